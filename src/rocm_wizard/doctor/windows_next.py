"""The commands doctor names on a native Windows host (data: doctor/windows.toml).

The catalogue's "run next" commands are Linux ones (dmesg, rocminfo, /opt/rocm, a POSIX shell's pipes
and ``VAR=value`` prefixes); on Windows -- HIP over the Adrenalin driver, no amdgpu/amdkfd module and no
ROCr runtime, PowerShell for a shell -- none of them runs.  :func:`adapt` keeps a finding's commands
that run there (rewriting cmd.exe spellings), drops the Linux ones and adds the Windows commands of the
finding's layer; :func:`ask` is evidence.ask's Windows counterpart.  WSL is Linux: these apply only to
a host detect marked ``os.windows_native`` and not WSL.
"""
from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import Any, Dict, List, Pattern, Sequence, Tuple

MAX_COMMANDS = 6  # as many as a finding shows (matchers' catalogue findings keep six)


class _Table:
    def __init__(self, data: Dict[str, Any]) -> None:
        lo = data.get("linux_only", {})
        words = [re.escape(w) for w in lo.get("words", [])]
        self.word_rx: Pattern[str] = re.compile(r"(?<![\w.$-])(?:%s)(?![\w:-])" % "|".join(words)) if words else re.compile(r"(?!)")
        self.substrings: Tuple[str, ...] = tuple(lo.get("substrings", []))
        self.env_prefix: Pattern[str] = re.compile(lo.get("env_prefix", r"(?!)"))
        self.rewrites: List[Tuple[Pattern[str], str]] = [(re.compile(p), r) for p, r in data.get("rewrite", {}).get("rules", [])]
        self.next_commands: Dict[str, List[str]] = {k: list(v) for k, v in data.get("next_commands", {}).items()}
        self.ask: Dict[str, List[str]] = {k: list(v) for k, v in data.get("ask", {}).items()}
        self.sources: Dict[str, str] = dict(data.get("source", {}))


@lru_cache(maxsize=1)
def table() -> _Table:
    from ..catalog import _data

    return _Table(_data.parse_toml_file(os.path.join(os.path.dirname(os.path.abspath(__file__)), "windows.toml"),
                                        _data._PKG_ROOT))


def linux_only(command: str) -> bool:
    """Whether ``command`` names a program, path or shell syntax that native Windows lacks."""
    t = table()
    return bool(any(s in command for s in t.substrings) or t.env_prefix.search(command) or t.word_rx.search(command))


def rewrite(command: str) -> str:
    """``command`` with cmd.exe's spellings written as PowerShell's (``where`` -> ``where.exe``, ``%X%``
    -> ``$env:X``)."""
    for rx, repl in table().rewrites:
        command = rx.sub(repl, command)
    return command


def adapt(commands: Sequence[str], layer: str) -> List[str]:
    """The commands of a finding at ``layer`` as a native Windows host runs them: the given ones that
    run there (rewritten), then the layer's Windows commands, each once, at most :data:`MAX_COMMANDS`."""
    out: List[str] = []
    seen = set()  # a command quoted either way is the same command (python -c '...' and "...")
    for cmd in [rewrite(c) for c in commands if not linux_only(c)] + table().next_commands.get(layer, [])[:3]:
        k = cmd.replace("'", '"')
        if k not in seen:
            seen.add(k)
            out.append(cmd)
    return out[:MAX_COMMANDS]


def ask(parts: Sequence[str]) -> List[str]:
    """The Windows commands whose output settles each of ``parts`` (evidence.missing's names)."""
    out: List[str] = []
    for part in parts:
        for cmd in table().ask.get(part, []):
            if cmd not in out:
                out.append(cmd)
    return out


def windows_host(system: Any) -> bool:
    """A native Windows host: detect's ``os.windows_native`` and not WSL (WSL runs Linux commands)."""
    osi = getattr(system, "os", None)
    return getattr(osi, "windows_native", None) is True and getattr(osi, "wsl", None) is not True


__all__ = ["MAX_COMMANDS", "adapt", "ask", "linux_only", "rewrite", "table", "windows_host"]
