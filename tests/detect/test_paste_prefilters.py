"""The cheap tests that stand before a pattern (or a whole parse) on the paths doctor takes over
every pasted line: each is a necessary condition of what it guards, so leaving the guarded work out
where it fails changes no answer.  Checked on every line of every real fixture and on lines made to
sit at the edges (blanks the patterns' ``\\s`` and ``str.strip`` agree on, the characters that match
a letter under re.I, commands behind sudo, VAR=value words and paths)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from rocm_wizard.detect import recognize
from rocm_wizard.detect.parsers import _core_text, dmesg, paste_facts, rocminfo

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
TEXTS = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(REAL.glob("*/*.txt"))]
LINES = sorted({line for t in TEXTS for line in t.replace("\r", "\n").split("\n")})

EDGE_LINES = [
    "2.3.0+rocm6.0 6.0.32830-d62f6a171", " \u00a0 2.3.0 , 6.0.32830", "\u0663.1.0+rocm6.0",
    "torch version: 2.4.0+rocm6.1", "PyTorch: 2.4.0+rocm6.1", "  '2.5.1+rocm6.2'", "`pytorch version 2.5.1+rocm6.2`",
    "Kernel version: 6.8.0-45-generic", "\u212aernel: 6.8.0-45-generic", "  Linux kernel = 6.1.0",
    "linux KERNEL release: 6.1.0-rc1", "\u00a0kernel: 6.8.0",
    "Ubuntu 24.04.1 LTS", "Debian GNU/Linux 12 (bookworm)", "Fedora Linux 41", "Pop!_OS 22.04 LTS", "Arch Linux",
    "Linux Mint 22", "Manjaro Linux", "AlmaLinux 9.4", "Red Hat Enterprise Linux 9.4", "CentOS Stream 9",
    "SUSE Linux Enterprise Server 15", "Rocky Linux 9.5",
    "#   Rank  0 Pid   2303 on host device  0 [0000:2f:00.0] AMD Instinct MI100",
    "[   3.2] amdgpu 0000:03:00.0: amdgpu: VRAM: 16368M", "amdgpu 0000:03:00.0: something",
    "ROCk module is loaded", "ROC\u212a MODULE version 6.8 is loaded", "rock Module is NOT loaded",
    "sudo rocminfo", "sudo  dpkg -l", "LANG=C dpkg -l", "_X=1 uname -a", "/opt/rocm/bin/rocminfo --support",
    "python3.11 -m pip list", "pip list", "pip3 freeze", "uv pip list", "apt-cache policy rocm", "ls /opt",
    "Python 3.12", "PYTHONPATH=x python3 -c 'import torch'", "env", "id", "which rocminfo", "groups",
    "rocm-core/noble 7.1.0-1 amd64 [installed]", "@x/y 1 2 3", "linux-firmware 20250101.abc-1", "+x 1.0-1", "rocm-hip-runtime 6.2.4-1",
    "hip-runtime-amd.x86_64 6.0.0-1 @rocm", "rocm-core-6.0.0.60000-91.el9.x86_64", "foo.src", "pkg 1:2.0-\u0663",
    "_foo 1:2.0-3", "rocminfo: error", "The rocminfo output", "I ran rocminfo", "ROCMINFO", "dpkg-query -W", "amdgpu-install -y",
]


def _stripped(line: str) -> str:
    return line.strip("`\t >")


@pytest.mark.parametrize("line", EDGE_LINES)
def test_edge_lines_keep_their_guards(line):
    _check_guards(line)


def test_every_fixture_line_keeps_its_guards():
    assert len(LINES) > 3000
    for line in LINES:
        _check_guards(line)


def _check_guards(raw: str) -> None:
    line = _stripped(raw)
    if not line:
        return
    l = line.lower()
    c = line.lstrip()[:1]
    # paste_facts: each guarded pattern matches only where its guard holds
    if paste_facts._TORCH_HIP.match(line):
        assert c.isdecimal(), line
    if paste_facts._TORCH_LABELLED.match(line):
        assert c in paste_facts._TORCH_LABEL_FIRST, line
    if paste_facts._REPL_TORCH.match(line):  # the REPL's echo, or IPython's after its "Out[N]: " prompt
        assert c == "'" or (c == "O" and line.lstrip().startswith("Out[")), line
    if paste_facts._KERNEL_LINE.match(line):
        assert c in paste_facts._KERNEL_FIRST, line
    if paste_facts._DISTRO_LINE.match(line) and line[:1] in paste_facts._DISTRO_FIRST:
        assert line.startswith(paste_facts._DISTRO_STARTS), line
    if paste_facts._RCCL_DEVICE.search(line):
        assert "device" in line, line
    if paste_facts._AMDGPU_BDF.search(line):
        assert "amdgpu " in line, line
    # packages: apt's and pacman's rows start with a name's first character
    from rocm_wizard.detect.parsers import packages

    s = raw.strip()
    if packages._APT.match(s):
        assert s[0] in packages._S_NAME_FIRST, s
    if packages._PACMAN.match(s):
        assert s[0] in packages._S_PACMAN_FIRST and s[-1].isdecimal(), s
    if packages._S_ARCH_ANY.search(s) is not None:
        assert any(a in s for a in packages._S_ARCHES), s
    elif "." in s:
        assert not any(a in s for a in packages._S_ARCHES), s
    # rocminfo: the ROCk line
    if rocminfo._ROCK.search(raw):
        assert "rock module" in raw.lower(), raw
    # the recogniser's bare command lines: the tool names' starts stand before _BARE
    assert recognize._prompt_command(raw) == _prompt_command_reference(raw), raw
    assert l == _core_text.lowered(line)


def _prompt_command_reference(line: str):
    """recognize._prompt_command without the tool-name test before _BARE."""
    if "@" in line or "$" in line or "#" in line or "\u276f" in line or "\u279c" in line:
        for rx, needs in recognize._PROMPTS:
            if needs in line if len(needs) == 1 else any(ch in line for ch in needs):
                m = rx.match(line)
                if m:
                    return (m.group("cmd") or "").strip()
    if line[:1] in (" ", "\t"):
        return None
    s = line.strip()
    m = recognize._BARE.match(s) if s[:1] in recognize._BARE_FIRST else None
    if m and recognize._plausible_bare(s):
        return m.group("cmd").strip()
    return None


def test_paste_facts_distro_starts_are_the_patterns_names():
    names = paste_facts._DISTRO_LINE.pattern.split("(?P<pretty>(?:", 1)[1].split(")", 1)[0].split("|")
    assert len(names) > 10 and "Ubuntu" in names
    for name in names:
        if name[:1] in paste_facts._DISTRO_FIRST:
            assert name.startswith(paste_facts._DISTRO_STARTS), name


def test_tool_starts_cover_every_tool():
    for tool in recognize._TOOLS.split("|"):
        plain = re.sub(r"\(\?:[^)]*\)\?|.\?", "", tool).replace("\\", "")
        assert plain.startswith(recognize._TOOL_STARTS), tool


def test_dmesg_kernel_version_is_the_parse_s():
    texts = TEXTS + [seg for t in TEXTS for kind, seg, _l in recognize.recognize(t) if kind == "dmesg"]
    texts += ["[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu",
              "kern  :notice: [    0.000000] Linux version 6.1.0",
              "Linux version 6.1.0 before any stamp\n[    1.0] later",
              "Nov 27 10:00:00 host kernel: Linux version 6.9.1-arch1-1 (linux@archlinux)", "", None, 3]
    seen = 0
    for t in texts:
        log = dmesg.parse(t)
        want = log.kernel_version or log.oops_release  # (an oops or WARNING header's release where no boot line is)
        assert dmesg.kernel_version(t) == want
        seen += want is not None
    assert seen >= 3


def test_lowered_is_lower_and_kept_by_identity():
    big = "ABC\u0130x" * 40000  # (İ lower-cases to two characters)
    assert _core_text.lowered(big) == big.lower()
    assert _core_text.lowered(big) is _core_text.lowered(big)
    other = "".join(["ABC\u0130x"] * 40000)  # equal, another object
    assert other is not big and _core_text.lowered(other) == big.lower()
    assert _core_text.lowered("Short") == "short"
    many = ["Q%d" % i + "Z" * (1 << 20) for i in range(20)]  # more than the cache keeps
    for t in many:
        assert _core_text.lowered(t) == t.lower()
    assert sum(len(t) for t, _l in _core_text._lowered.values()) <= _core_text._LOWER_KEEP_CHARS


def _clean_reference(text, dedent):
    """_paste._clean as one loop over the lines (its form before the fence-less path)."""
    from rocm_wizard.detect.parsers import _paste
    from rocm_wizard.termsafe import clean

    if text is None:
        return []
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    text = clean(str(text).replace("\r\n", "\n").replace("\r", "\n"))
    out = []
    for line in text.split("\n"):
        if _paste._FENCE_LINE.match(line):
            continue
        if line.rstrip().endswith("]"):
            line = _paste._strip_tmux_mark(line)
        if "```" in line:
            line = _paste._FENCE_TAIL.sub("", line)
        out.append(line.rstrip())
    if ">" in text:
        out = _paste._unquote(out)
    return _paste._dedent(out) if dedent else out


def test_clean_lines_without_fences_as_the_loop():
    from rocm_wizard.detect.parsers import _paste

    edge = ["x   [1/2]\n  > a\n  > b ]", "> quoted\n> [0/1]    [3/4]", "  a\n   b\n\tc", "```\nx\n```", "a ```",
            "~~~", "", None, b"bytes\r\nx", "line    [12/34]  \nother]\n", "    a\n    b [1/2]\n", "\x1b[1mbold\x1b[0m ]"]
    segs = [body for t in TEXTS for _l, _c, body in recognize.split(t)]
    assert len(segs) > 500
    for text in TEXTS + segs + edge:
        for dedent in (True, False):
            assert _paste._clean(text, dedent) == _clean_reference(text, dedent)


def test_declared_kinds_cover_what_kind_of_gives():
    # recognize._hint_foreign leaves a parser with kind_of out for a command hint none of its KINDS
    # can take: KINDS must hold every kind kind_of gives (and KIND, its fallback)
    from rocm_wizard.detect.parsers import amd_smi, packages

    segs = [body for t in TEXTS for _l, _c, body in recognize.split(t)] + TEXTS
    for mod in (amd_smi, packages):
        assert mod.KIND in mod.KINDS
        got = {mod.kind_of(body) for body in segs}
        assert got <= set(mod.KINDS), (mod.__name__, got)
        assert len(got) >= 2
    with_kind_of = [m for m in recognize.parser_modules() if getattr(m, "kind_of", None) is not None]
    assert all(getattr(m, "KINDS", None) for m in with_kind_of)


def test_split_asks_only_lines_that_can_be_commands(monkeypatch):
    # split()'s first tests (no call of _prompt_command for a line that cannot be a command) give
    # the segments of asking it of every line, on every fixture, all of them as one text, and lines
    # that start with every kind of blank, a prompt character or a tool's name
    edge = "\n".join(EDGE_LINES + ["\u00a0rocminfo --support", "\x0bdpkg -l", "\u2003lsmod | grep amdgpu", "",
                                   "bash$ rocminfo", "x@y:~$ uname -a", "\u276f lspci", "\u279c  dmesg | tail",
                                   "# lsmod", "FOO=1 rocminfo", "/opt/rocm/bin/rocminfo", "sudo dmesg", "[ 1.0] x",
                                   "bob@box:~% rocminfo", "bob@box> lsmod", "(venv) bob@box:~% dmesg",
                                   # a first character of a tool's name, sudo, a path or VAR=value, and then not
                                   "Sudo rocminfo", "sudo", "s rocminfo", "ROCMINFO=1 dpkg -l | grep rocm", "R=1",
                                   "Rocminfo --support", "_=1 lsmod", "_x lsmod", "X rocminfo", "rocm", "r",
                                   "ls", "l", "ls -la /opt/rocm", "lsmod\t| grep amdgpu", "dpkg\u00a0-l", "id -nG",
                                   "i", "env | grep HSA", "e", "/", "/x", "~/x", "pip3 list ", "pip list\u3000"])
    fenced = "x\n```\nrocminfo\n```\nlsmod | grep amdgpu\n~~~\n$ dmesg\n~~~\n"
    texts = TEXTS + ["\n".join(TEXTS), edge, "\n\n".join(EDGE_LINES), fenced, edge.replace("\u276f", ">").replace("\u279c", ">"),
                     "\u276f lspci\n" + fenced + "\n\n" + edge]
    fast = [recognize.split(t) for t in texts]
    monkeypatch.setattr(recognize, "_SPLIT_PRECHECK", False)
    assert fast == [recognize.split(t) for t in texts]


def test_segments_taken_as_clean_only_while_recognised_and_only_where_clean(monkeypatch):
    # recognize() tells the parsers' line cleaning that a paste without control characters has
    # segments without them (_paste.known_clean): the cleaning is then not asked of them, which gives
    # the same lines; a paste with one is cleaned as before; nothing is kept after the call
    from rocm_wizard import termsafe
    from rocm_wizard.detect.parsers import _paste

    seen = []
    real = _paste.known_clean
    monkeypatch.setattr(_paste, "known_clean", lambda texts=(): (seen.append(list(texts)), real(texts)))
    for text in TEXTS[:60] + ["$ rocminfo\n\x1b[31mAgent 1\x1b[0m\n  Name: gfx1100\n", "a\rb\n$ lsmod\namdgpu 1 0\n"]:
        seen.clear()
        got = recognize.recognize(text)
        assert not _paste._KNOWN_CLEAN
        if recognize._UNSURE.search(text) is None:
            bodies = seen[0]
            assert bodies == [body for _k, body, _l in got] and seen[-1] == []
            assert all(termsafe.clean(b) == b and "\r" not in b for b in bodies)  # (what is left out)
            real(bodies)
            taken = [_paste._clean(b, d) for b in bodies for d in (True, False)]
            real()
            assert taken == [_paste._clean(b, d) for b in bodies for d in (True, False)]
        else:
            assert not seen
