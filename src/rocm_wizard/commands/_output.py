"""The Rich console the human reports print through (imported only by those reports)."""
from __future__ import annotations

from typing import Any


def console(**kwargs: Any) -> Any:
    """A Rich Console that lets a closed pipe ('rocm-wizard doctor | head') surface as
    BrokenPipeError, which ``rocm_wizard.cli.main`` turns into exit status 0; Rich's own handling
    exits with 1."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError()

    return _Console(**kwargs)


# Words that begin a command a reader may copy out of a sentence ("run sudo apt install ... then
# reboot"): such a span is kept on one line when prose is wrapped (moved whole to the next line,
# never split).  Names that are also English words, or that prose uses as names ("the uv resolver",
# "pip's cache"), count only before one of their subcommands or an option.
COMMAND_WORDS = frozenset({
    "rocm-smi", "amd-smi", "rocminfo", "rocm-wizard", "modprobe", "usermod", "mokutil", "amd-ttm", "rocm-sdk",
    "runuser", "update-initramfs", "ldconfig", "journalctl", "lspci", "dmesg", "apt-get", "apt-cache", "dpkg",
    "dpkg-query", "amdgpu-install",
})
SUBCOMMANDS = {
    "sudo": None,  # before another command (checked below)
    "pip": {"install", "uninstall", "list", "freeze", "show", "download", "check", "cache"},
    "pip3": {"install", "uninstall", "list", "freeze", "show", "download", "check"},
    "uv": {"pip", "tool", "venv", "run", "sync", "add", "lock"},
    "pipx": {"install", "uninstall", "run", "upgrade", "list"},
    "apt": {"install", "update", "upgrade", "full-upgrade", "remove", "purge", "policy", "list", "autoremove"},
    "dnf": {"install", "update", "upgrade", "remove", "list", "info"},
    "zypper": {"install", "in", "update", "refresh", "remove"},
    "docker": {"run", "pull", "images", "exec", "ps", "logs", "info", "version"},
    "podman": {"run", "pull", "images", "exec"},
    "python": None, "python3": None,  # before an option (python -m ...)
    "dkms": {"status", "autoinstall", "install", "build", "remove"},
    "systemctl": {"restart", "status", "start", "stop", "enable", "disable"},
    "export": None,  # before NAME=VALUE
}


def _core(word: str) -> str:
    return word.lstrip("('\"`").rstrip(".,;:)'\"`")


def _is_command_start(word: str, nxt: str = "") -> bool:
    core = word.lstrip("('\"`")
    if core in COMMAND_WORDS:
        return True
    if core not in SUBCOMMANDS:
        return False
    follow = _core(nxt)
    allowed = SUBCOMMANDS[core]
    if core == "sudo":
        return bool(follow) and (follow in COMMAND_WORDS or follow in SUBCOMMANDS)
    if core == "export":
        return "=" in follow
    if allowed is None:
        return follow.startswith("-")
    return follow in allowed or follow.startswith("-")


def prose_units(text: str) -> list:
    """``text`` split into the units a wrapper may break between: words, and whole command spans
    (a command word up to the punctuation that ends its clause: ``,`` ``;`` a closing bracket or
    quote that balances an opening one, or a sentence's full stop)."""
    words = text.split()
    units: list = []
    i = 0
    while i < len(words):
        w = words[i]
        if not _is_command_start(w, words[i + 1] if i + 1 < len(words) else ""):
            units.append(w)
            i += 1
            continue
        opener = w[0] if w[0] in "('\"`" else ""
        closer = {"(": ")", "'": "'", '"': '"', "`": "`"}.get(opener, "")
        span = [w]
        depth = w.count("(") - w.count(")") if opener == "(" else 0
        j = i
        while True:
            cur = words[j]
            if opener == "(" and depth <= 0 and (j > i or cur.endswith(")")):
                break
            if opener and opener != "(" and (cur.rstrip(".,;:").endswith(closer) and (j > i or len(cur.rstrip(".,;:")) > 1)):
                break
            if not opener and (cur.endswith((",", ";")) or (cur.endswith(".") and not cur.endswith(".."))
                               and not _looks_like_path_or_version(cur)):
                break
            if j + 1 >= len(words):
                break
            j += 1
            span.append(words[j])
            if opener == "(":
                depth += words[j].count("(") - words[j].count(")")
        units.append(" ".join(span))
        i = j + 1
    return units


def _looks_like_path_or_version(word: str) -> bool:
    body = word[:-1]
    return "/" in body and not body.endswith(")") and word.count(".") > 1


def wrap_prose(text: str, width: int, first_width: int = 0) -> list:
    """Lines of ``text`` at most ``width`` wide (the first ``first_width`` when given), broken only
    between :func:`prose_units`: a command span longer than the width gets a line of its own, whole."""
    lines: list = []
    cur = ""
    limit = first_width or width
    for unit in prose_units(text):
        if not cur:
            cur = unit
        elif len(cur) + 1 + len(unit) <= limit:
            cur += " " + unit
        else:
            lines.append(cur)
            cur = unit
            limit = width
    if cur or not lines:
        lines.append(cur)
    return lines
