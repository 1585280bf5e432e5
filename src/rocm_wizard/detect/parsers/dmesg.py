"""Kernel log lines: ``dmesg``, ``dmesg -T``, ``journalctl -k`` / ``journalctl -b``.

* ``[    4.123456] amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init``
* ``[Mon Jan  1 12:00:00 2024] amdgpu: ...`` (``dmesg -T``)
* ``Jan 01 12:00:00 host kernel: amdgpu ...`` (journalctl; the host name is dropped)

:func:`parse` keeps every kernel line, tags the GPU-related ones (amdgpu, kfd, drm, ttm) and lists
the lines that report an error.  The error *signatures* themselves are matched by the errors
probe against :mod:`rocm_wizard.detect.error_signatures`.
"""
from __future__ import annotations

import re
from ...model import field
from typing import List, Optional

from ...model import lean_dataclass
from ._core_text import lazy, content_lines

KIND = "dmesg"

_TS = lazy(r"^\s*\[\s*(?P<ts>\d+\.\d+)\]\s?(?P<msg>.*)$")
_TS_HUMAN = lazy(r"^\s*\[(?P<ts>(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2}\s+\d+ [\d:]{8} \d{4})\]\s?(?P<msg>.*)$")
# (s21-compwin) util-linux's `dmesg -H` / `dmesg -e` (--human, --reltime) stamps (util-linux sys-utils/dmesg.c
# print_record(), DMESG_TIMEFTM_RELTIME: "[%s] " with short_ctime()'s strftime "%b%d %H:%M" when the minute changes,
# else the delta since the previous line, "[%+8.06f]" / "[%+9.06f]"; older releases pad it, "[  +0.000011]"):
# "[Nov30 01:49] amdgpu 0000:28:00.0: ...", "[  +0.000011] amdgpu: Failed to map VA ..."
_TS_RELTIME = lazy(r"^\s*\[(?P<ts>[A-Z][a-z]{2} ?\d{1,2} \d\d:\d\d| {0,4}[+-]\d{1,9}\.\d{6})\]\s?(?P<msg>.*)$")
_JOURNAL = lazy(r"^(?P<ts>[A-Z][a-z]{2}\s+\d+ [\d:]{8}|\d{4}-\d\d-\d\dT[\d:.+-]+)\s+(?P<host>\S+)\s+kernel:\s?(?P<msg>.*)$")
_LEVEL = lazy(r"^(?:<\d>|(?:kern|user)\s*:(?:emerg|alert|crit|err|warn|notice|info|debug)\s*:)\s*")
_GPU = lazy(r"\b(amdgpu|kfd|amdkfd|drm|ttm|radeon|\[drm\]|amdxcp|amdkcl|gpu)\b", re.I)
_ERR = lazy(r"\*ERROR\*|\berror\b|\bfailed\b|\bfault\b|\btimeout\b|\btimed out\b|\bhang\b|\breset\b|"
                  r"\bcall trace\b|\bBUG:|\bOops\b|\bOut of memory\b", re.I)
_BDF = lazy(r"\b([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])\b", re.I)
# (s12-heldba) the header every oops, WARNING and call trace starts with, the kernel's own release in it
# (torvalds/linux lib/dump_stack.c dump_stack_print_info(): "CPU: %d PID: %d Comm: %.20s %s%s %s %.*s", the
# optional "Kdump: loaded ", print_tainted()'s "Not tainted" or "Tainted: <flags>", init_utsname()->release and the
# version's first word "#N..."; since 6.10 "UID: %u" after the CPU and the preemption model, "PREEMPT(voluntary)",
# after the version): "CPU: 13 UID: 1001 PID: 160480 Comm: Xorg Tainted: G           O        6.17.0-14-generic
# #14~24.04.1-Ubuntu PREEMPT(voluntary)", "CPU: 2 PID: 8730 Comm: clinfo Tainted: G           O      5.1.15-gentoo #3"
_OOPS_HEADER = lazy(r"\bCPU: \d{1,5} (?:UID: \d{1,10} )?PID: \d{1,10} Comm: .{1,20}? (?:Kdump: loaded )?"
                    r"(?:Not tainted|Tainted: [A-Z ]{1,40}?) {1,40}(?P<rel>\d+\.\d+(?:\.\d+)?[-+~._0-9A-Za-z]{0,80}) #\d")
# (s18-helddp) the hung-task detector's second line, the same three pieces without the CPU/PID/Comm prefix (torvalds/linux
# kernel/hung_task.c check_hung_task(): pr_err("INFO: task %s:%d blocked for more than %ld seconds.\n", ...) then
# pr_err("      %s %s %.*s\n", print_tainted(), init_utsname()->release, <version's first word>)):
# "      Not tainted 6.17.5-arch1-1 #1", "      Tainted: G           OE      6.8.0-85-generic #85-Ubuntu"
_HUNG_TASK_HEADER = lazy(r"^(?:Not tainted|Tainted: [A-Z ]{1,40}?) {1,40}"
                         r"(?P<rel>\d+\.\d+(?:\.\d+)?[-+~._0-9A-Za-z]{0,80}) #\d")

# (s19-kwarn) the kernel's panic screen decoded from its QR code (torvalds/linux drivers/gpu/drm/drm_panic.c
# drm_panic_get_qr_code_url(): CONFIG_DRM_PANIC_SCREEN_QR_CODE_URL "?a=%s&v=%s&z=" with utsname()->machine and
# utsname()->release), as the panic_report page shows it (kdj0c/panic_report: the heading "Panic Report", then
# add_info()'s "Arch: <a>" and "Version: <v>", then the kmsg lines), or the URL itself:
# "Panic Report\nArch: x86_64\nVersion: 6.15.7-zen1-1.1-zen", ".../panic_report/#?a=x86_64&v=6.19.11+kali-amd64&z=..."
_PANIC_REPORT = lazy(r"(?m)^[ \t]*Panic Report[ \t]*\r?\n(?:[ \t]*\r?\n){0,2}[ \t]*Arch: ?[\w-]{1,20}[ \t]*\r?\n"
                     r"(?:[ \t]*\r?\n){0,2}[ \t]*Version: ?(?P<rel>\d+\.\d+(?:\.\d+)?[-+~._0-9A-Za-z]{0,80})[ \t]*$"
                     r"|panic_report[/#]{0,3}\?a=[\w-]{1,20}&v=(?P<url>\d+\.\d+(?:\.\d+)?[-+~._0-9A-Za-z]{0,80})&zl?=")


@lean_dataclass
class DmesgLine:
    """One kernel log line: time stamp, level and message."""

    ts: Optional[str]
    text: str
    gpu: bool = False
    error: bool = False
    bdf: Optional[str] = None


@lean_dataclass
class DmesgLog:
    """The lines of a kernel log (``dmesg`` / ``journalctl -k``)."""

    lines: List[DmesgLine] = field(default_factory=list)
    format: Optional[str] = None  # dmesg | dmesg-T | dmesg-H | journal
    kernel_version: Optional[str] = None  # from a "Linux version ..." boot line
    # (s12-heldba) from an oops/WARNING header's "CPU: ... Comm: ... <release> #N"; (s19-kwarn) else a decoded panic
    # screen's "Version:" (or its QR URL's v=)
    oops_release: Optional[str] = None

    @property
    def ok(self) -> bool:
        return bool(self.lines)

    @property
    def gpu_lines(self) -> List[DmesgLine]:
        return [l for l in self.lines if l.gpu]

    @property
    def errors(self) -> List[DmesgLine]:
        return [l for l in self.lines if l.error]


def _split(line: str):
    s = line.rstrip()
    bracket = "[" in s  # the two dmesg stamps have it, journal lines have "kernel:"
    m = _TS.match(s) if bracket else None
    if m:
        return "dmesg", m.group("ts"), m.group("msg")
    m = _TS_HUMAN.match(s) if bracket else None
    if m:
        return "dmesg-T", m.group("ts"), m.group("msg")
    m = _TS_RELTIME.match(s) if bracket else None
    if m:
        return "dmesg-H", m.group("ts"), m.group("msg")
    m = _JOURNAL.match(s) if "kernel:" in s else None
    if m:
        return "journal", m.group("ts"), m.group("msg")
    return None, None, s


def looks_like(text: object) -> float:
    if not isinstance(text, str) or ("[" not in text and "kernel:" not in text):
        return 0.0
    body = content_lines(text, limit=300)  # (only the first 300 are looked at)
    if not body:
        return 0.0
    if len(body) > 20 and not any(_split(l)[0] for l in body[:20]):
        return 0.0
    sample = body[:300]
    stamped = sum(1 for l in sample if _split(l)[0])
    share = stamped / len(sample)
    if stamped == 0:
        return 0.0
    gpu = any(_GPU.search(_split(l)[2]) for l in sample)
    if share >= 0.6:
        return 0.9 if gpu else 0.8
    if share >= 0.3:
        return 0.5
    return 0.2 if gpu else 0.1


def kernel_version(text: object) -> Optional[str]:
    """``parse(text).kernel_version`` (the kernel of a "Linux version ..." boot line), else the release an
    oops or WARNING header (or the hung-task detector's second line) names, else the release of a decoded
    panic screen (drm_panic's QR report, its header or its URL), without reading every line where no line can
    be one."""
    if not isinstance(text, str) or ("Linux version " not in text and " Comm: " not in text
                                     and " blocked for more than " not in text and "Panic Report" not in text
                                     and "panic_report" not in text):
        return None
    log = parse(text)
    return log.kernel_version or log.oops_release


def parse(text: object) -> DmesgLog:
    res = DmesgLog()
    for line in content_lines(text):
        fmt, ts, msg = _split(line)
        if fmt is None:
            # continuation lines (call traces) belong to the kernel log only if one started
            if not res.lines:
                continue
        elif res.format is None:
            res.format = fmt
        msg = _LEVEL.sub("", msg.strip())
        bdf = _BDF.search(msg)
        dl = DmesgLine(ts, msg, bool(_GPU.search(msg)), bool(_ERR.search(msg)), bdf.group(1).lower() if bdf else None)
        res.lines.append(dl)
        if res.kernel_version is None:
            km = re.match(r"^Linux version (\S+)", msg)
            if km:
                res.kernel_version = km.group(1)
        if res.oops_release is None and " Comm: " in msg:
            om = _OOPS_HEADER.search(msg)
            if om:
                res.oops_release = om.group("rel")
        if res.oops_release is None and msg.startswith(("Not tainted ", "Tainted: ")):
            hm = _HUNG_TASK_HEADER.match(msg)
            if hm:
                res.oops_release = hm.group("rel")
    if (res.oops_release is None and res.kernel_version is None and isinstance(text, str)
            and ("Panic Report" in text or "panic_report" in text)):
        pm = _PANIC_REPORT.search(text)  # (s19-kwarn) a decoded panic screen's release, where no other line names one
        if pm:
            res.oops_release = pm.group("rel") or pm.group("url")
    return res
