"""Pure text helpers of the TUI: what the screens say, computed from plain data.

Nothing here imports Textual or Rich, so every rule can be unit-tested without a terminal.
"""
from __future__ import annotations

from ..termsafe import clean_line
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from ..model import System

# Probe modules in the order the detection screen lists them, with what each looks at.
PROBE_LABELS: Dict[str, str] = {
    "os": "Operating system and kernel",
    "gpus": "GPUs and gfx targets",
    "rocm": "ROCm, amdgpu driver, apt",
    "python": "Python envs with torch",
    "docker": "Docker",
    "access": "GPU access and groups",
    "errors": "Known error messages",
}

SEVERITY_ORDER = {"error": 0, "critical": 0, "warning": 1, "warn": 1, "info": 2, "ok": 3}
SEVERITY_MARK = {"error": "✗", "critical": "✗", "warning": "!", "warn": "!", "info": "i", "ok": "✓"}

# step check states as the review screen shows them
CHECK_LABEL = {"ok": "ok", "change": "will change", "unknown": "unknown"}
CHECK_MARK = {"ok": "✓", "change": "~", "unknown": "?"}

# executor step states
STEP_MARK = {"pending": "·", "running": "▶", "ok": "✓", "changed": "✓", "skipped": "-", "failed": "✗",
             "cancelled": "-"}


def ssh_without_multiplexer(environ: Optional[Mapping[str, str]] = None) -> bool:
    """True when the wizard runs in an SSH session that is not inside tmux or screen: a dropped
    connection would then kill a running execution."""
    env = os.environ if environ is None else environ
    return bool(env.get("SSH_CONNECTION") or env.get("SSH_TTY")) and not (env.get("TMUX") or env.get("STY"))


SSH_NOTICE = ("You are connected over SSH without tmux or screen: if the connection drops, a running "
              "execution stops with it. Start `tmux` (or `screen`) first and run rocm-wizard inside it, "
              "then re-attach with `tmux attach` after a disconnect; `rocm-wizard resume` continues an "
              "interrupted run.")


def elapsed(seconds: float) -> str:
    """``75.4`` -> ``1:15``; ``3725`` -> ``1:02:05``; negative or garbage -> ``0:00``."""
    try:
        total = int(max(0.0, float(seconds)))
    except (TypeError, ValueError):
        total = 0
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def gib(nbytes: Optional[int]) -> Optional[str]:
    if not nbytes:
        return None
    return f"{nbytes / 1024 ** 3:.0f} GiB"


def severity_key(severity: Any) -> int:
    return SEVERITY_ORDER.get(str(severity or "info").lower(), 2)


def severity_mark(severity: Any) -> str:
    return SEVERITY_MARK.get(str(severity or "info").lower(), "i")


def _join(parts: Iterable[Optional[str]], sep: str = ", ") -> str:
    return sep.join(p for p in parts if p)


def summary_rows(system: System) -> List[Tuple[str, str]]:
    """(label, value) rows describing a detected system, for the detection screen.

    Unknown values read "unknown" (with the first note that says why, when there is one), never
    an empty cell."""
    rows: List[Tuple[str, str]] = []
    o = system.os
    os_text = o.pretty_name or _join([o.id, o.version_id], " ") or "unknown"
    extra = _join([o.arch, "WSL" if o.wsl else None, f"in {o.container}" if o.container else None])
    rows.append(("OS", f"{os_text} ({extra})" if extra else os_text))
    kernel = o.kernel or "unknown"
    if o.hwe:
        kernel += " (HWE)"
    rows.append(("Kernel", kernel))

    amd = system.amd_gpus
    if amd:
        for i, g in enumerate(amd):
            label = "GPU" if len(amd) == 1 else f"GPU {i}"
            name = g.name or (f"PCI {g.pci_id}" if g.pci_id else "unknown AMD GPU")
            detail = _join([g.gfx_target or "gfx unknown", gib(g.vram_bytes), g.bdf])
            rows.append((label, f"{name} ({detail})"))
    else:
        others = [g.name or g.pci_id or "?" for g in system.gpus if not g.is_amd]
        rows.append(("GPU", "no AMD GPU found" + (f" (other: {', '.join(others)})" if others else "")))

    r = system.rocm
    if r.version:
        where = r.opt_rocm_target or (r.installs[0].path if r.installs else None)
        rows.append(("ROCm", f"{r.version}" + (f" ({where})" if where else "")))
    else:
        rows.append(("ROCm", "not installed" if not r.installs else "installed, version unknown"))
    if r.amdgpu_loaded is False:
        driver = "amdgpu not loaded"
    elif r.amdgpu_version:
        driver = f"amdgpu {r.amdgpu_version} (dkms)"
    elif r.amdgpu_loaded:
        driver = "amdgpu (in-kernel)"
    else:
        driver = "unknown"
    rows.append(("Driver", driver))

    if system.torch:
        for env in system.torch:
            tri = _join([f"{k} {v}" for k, v in sorted(env.triton.items())])
            where = env.path or env.site_packages or "?"
            text = f"{where}: " + (f"torch {env.version}" if env.version else "torch not installed") + (f", {tri}" if tri else "")
            rows.append(("Venv", text))
    else:
        rows.append(("Venv", "no Python environment with torch found"))

    d = system.docker
    if d.client:
        state = "daemon running" if d.daemon else ("daemon not reachable" if d.daemon is False else "daemon ?")
        if d.user_allowed is False:
            state += ", user not allowed"
        rows.append(("Docker", f"{d.client} ({state})"))
    else:
        rows.append(("Docker", "not installed"))

    a = system.access
    groups = [g for g, flag in (("render", a.in_render), ("video", a.in_video)) if flag]
    missing = [g for g, flag in (("render", a.in_render), ("video", a.in_video)) if flag is False]
    kfd = a.kfd
    kfd_text = None
    if kfd is not None:
        kfd_text = "/dev/kfd " + ("rw" if kfd.accessible else ("missing" if not kfd.exists else "no access"))
    access = _join([a.user, ("groups " + "+".join(groups)) if groups else None,
                    ("not in " + "+".join(missing)) if missing else None, kfd_text])
    rows.append(("Access", access or "unknown"))
    return rows


def probe_result_text(name: str, system: System) -> str:
    """One-line outcome of a finished probe, read from the part of ``system`` it fills."""
    if name == "os":
        return _join([system.os.pretty_name or system.os.id, system.os.kernel]) or "unknown"
    if name == "gpus":
        amd = system.amd_gpus
        if not amd:
            return "no AMD GPU"
        return _join([f"{g.name or g.pci_id or 'AMD GPU'} ({g.gfx_target or '?'})" for g in amd])
    if name == "rocm":
        return f"ROCm {system.rocm.version}" if system.rocm.version else "no ROCm install found"
    if name == "python":
        with_torch = [t for t in system.torch if t.version]
        if not with_torch:
            return (f"torch not installed ({len(system.torch)} Python environment(s) checked)" if system.torch
                    else "no torch found")
        return _join([f"torch {t.version}" for t in with_torch])
    if name == "docker":
        return f"Docker {system.docker.client}" if system.docker.client else "not installed"
    if name == "access":
        return system.access.user or "checked"
    if name == "errors":
        sigs = [e.signature for e in system.errors if e.signature]
        return ", ".join(sigs) if sigs else "none found"
    return "done"


def diff_stat(diff: str) -> Tuple[int, int]:
    """(+added, -removed) lines of a unified diff, headers excluded."""
    add = rem = 0
    for line in (diff or "").splitlines():
        if line.startswith(("+++", "---")):
            continue
        if line.startswith("+"):
            add += 1
        elif line.startswith("-"):
            rem += 1
    return add, rem


def replay_command(answers_path: str) -> str:
    """The unattended replay of an answers file."""
    import shlex

    return f"rocm-wizard --yes --answers {shlex.quote(answers_path)}"


def short(text: Any, width: int) -> str:
    """One line of at most ``width`` characters, without terminal sequences (what detection read
    and what a step printed come from outside)."""
    s = " ".join(clean_line(text or "").split())
    return s if len(s) <= width else s[: max(0, width - 1)] + "…"
