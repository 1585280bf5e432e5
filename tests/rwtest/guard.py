"""The host guard: no test runs ``rocm-wizard --yes``/``resume``/``rollback`` or a generated plan
script on the machine it runs on.

An audit hook (``sys.addaudithook``) sees every ``subprocess.Popen`` of the test process, threads
and asyncio included.  A command that would run one of those outside a root -- that is, not through
bwrap, chroot, unshare or a :func:`rwtest.sandbox.executable` wrapper -- raises
:class:`HostGuardError` instead of starting, and the root conftest fails the test even where the
code under test catches the error.  Run such commands with :mod:`rwtest.sandbox` or in the
integration harness.  In the test process itself, the executor refuses this machine's ``/`` as its
root (tests give it a temporary one).
"""
from __future__ import annotations

import functools
import os
import sys
from typing import List, Optional, Sequence

from . import sandbox

ROOTS = {"bwrap", "chroot", "unshare", "systemd-nspawn"}
EXECUTING = {"--yes"}
EXECUTING_COMMANDS = {"resume", "rollback"}
SHELLS = {"bash", "sh", "dash", "zsh", "ksh"}
PLAN_MARK = "\n# rocm-wizard plan:"

violations: List[str] = []
_installed = False


class HostGuardError(RuntimeError):
    """A test tried to run a plan or ``--yes`` on the host."""


def _words(args) -> List[str]:
    if isinstance(args, (str, bytes, os.PathLike)):
        args = [args]
    try:
        return [os.fsdecode(a) for a in args]
    except TypeError:
        return []


def _wizard_args(words: Sequence[str]) -> Optional[List[str]]:
    """The arguments given to rocm-wizard when ``words`` starts it, else None."""
    if os.path.basename(words[0]) == "rocm-wizard":
        return list(words[1:])
    for i in range(1, len(words) - 1):
        if words[i] == "-m" and words[i + 1] in ("rocm_wizard", "rocm_wizard.cli"):
            return list(words[i + 2:])
    return None


def _is_plan_script(word: str) -> bool:
    if PLAN_MARK in word:
        return True
    try:
        if not os.path.isfile(word):
            return False
        with open(word, "rb") as fh:
            head = fh.read(512)
    except OSError:
        return False
    return PLAN_MARK.encode() in head


def why(args) -> Optional[str]:
    """Why starting ``args`` would touch the host, or None when it would not."""
    words = _words(args)
    if not words or os.path.basename(words[0]) in ROOTS or sandbox.is_wrapper(words[0]):
        return None
    wiz = _wizard_args(words)
    if wiz is not None:
        commands = [w for w in wiz if not w.startswith("-")]
        if EXECUTING & set(wiz) or (commands and commands[0] in EXECUTING_COMMANDS):
            return "runs `rocm-wizard %s` on the host" % " ".join(wiz)
    shell = os.path.basename(words[0]) in SHELLS
    if shell and "-n" in words[1:]:  # a syntax check runs nothing
        return None
    for w in (words[1:] if shell else words[:1]):
        if _is_plan_script(w):
            return "runs a generated plan script on the host (%s)" % (w if len(w) < 200 else "inline")
    return None


def _hook(event: str, args) -> None:
    if event != "subprocess.Popen":
        return
    reason = why(args[1])
    if reason:
        _refuse(reason + ": run it with rwtest.sandbox or in the integration harness")


def _refuse(message: str) -> None:
    violations.append(message)
    raise HostGuardError(message)


def _guard_executor() -> None:
    try:
        from rocm_wizard.execute import engine
    except ImportError:  # pragma: no cover - the package is always importable in the suite
        return
    original = engine.Executor.__init__

    @functools.wraps(original)
    def __init__(self, *args, root: str = "/", **kwargs):
        if os.path.realpath(root) == "/":
            _refuse("runs the executor on this machine's / in the test process: give it a temporary root")
        original(self, *args, root=root, **kwargs)

    engine.Executor.__init__ = __init__


def install() -> None:
    global _installed
    if not _installed:
        sys.addaudithook(_hook)
        _guard_executor()
        _installed = True
