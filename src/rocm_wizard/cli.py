"""Command line entry point of rocm-wizard.

Each sub-command lives in ``rocm_wizard.commands.<name>`` with ``add_arguments(parser)`` and
``run(args) -> int`` and is imported only when used, so ``rocm-wizard detect --json`` loads neither
Textual nor Rich.  stdout carries the product (JSON, a script, a report); messages go to stderr.
"""
from __future__ import annotations

import argparse
import os
import importlib
import sys
from typing import List, Optional

from . import __version__
from .exitcodes import INTERRUPTED, OK, USAGE

# sub-command -> (module, one-line help)
COMMANDS = {
    "detect": ("rocm_wizard.commands.detect", "describe this system (or a snapshot): OS, GPUs, ROCm, venvs, Docker, access"),
    "snapshot": ("rocm_wizard.commands.snapshot", "gather what detection reads into a bundle to share"),
    "doctor": ("rocm_wizard.commands.doctor", "diagnose the system and recommend a way out"),
    "verify": ("rocm_wizard.commands.verify", "GPU smoke test of a venv, interpreter or Docker image"),
    "resume": ("rocm_wizard.commands.resume", "continue an interrupted run"),
    "rollback": ("rocm_wizard.commands.rollback", "restore what the last run replaced"),
    "catalog": ("rocm_wizard.commands.catalog", "learn new releases (refresh) or show what the catalog knows (status)"),
}


DESCRIPTION = ("Detect an AMD GPU Linux system (or a snapshot of one), diagnose ROCm / PyTorch / Triton "
               "mismatches and other failures, and plan, run and verify a way out: a ROCm upgrade, a PyTorch "
               "reinstall in a venv, or AMD's Docker image. With no command it starts the interactive wizard.")


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns`` (``COLUMNS``, else the terminal of ``sys.__stdout__``,
    else 80), without importing ``shutil`` (with ``bz2``, ``lzma`` and ``fnmatch``): argparse makes a
    help formatter for every ``add_argument`` (to check its metavar), and each would import it."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
        except (AttributeError, ValueError, OSError):
            columns = 80
    return columns


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, its default width found as argparse finds it (less 2 columns)."""

    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None, **kwargs) -> None:
        if width is None:
            width = _terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width, **kwargs)


class _Parser(argparse.ArgumentParser):
    argv: List[str] = []  # the command line being parsed (for a better message about an unknown option)

    def __init__(self, *args, **kwargs) -> None:
        if "formatter_class" not in kwargs and len(args) < 6:  # (formatter_class: the 6th positional)
            kwargs["formatter_class"] = _Formatter
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> "None":  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(USAGE, f"{self.prog}: error: {_explain(self, message)}\n")


def _explain(parser: argparse.ArgumentParser, message: str) -> str:
    """argparse reads a word after an unknown option as the COMMAND ('--pth docker': "invalid choice:
    'docker'"); name the unknown option instead, with the closest known one."""
    if "invalid choice" not in message or "COMMAND" not in message:
        return message
    known = set(parser._option_string_actions)
    for tok in _Parser.argv:
        if tok == "--":
            break
        name = tok.split("=", 1)[0]
        if name.startswith("-") and name not in known:
            import difflib

            close = difflib.get_close_matches(name, sorted(known), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            return f"unknown option {name!r}{hint}; the word after it was then read as a command: {message}"
    return message


def build_parser(only: Optional[str] = None) -> argparse.ArgumentParser:
    parser = _Parser(prog="rocm-wizard", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"rocm-wizard {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (module, helptext) in COMMANDS.items():
        p = sub.add_parser(name, help=helptext, description=helptext)
        if only is None or only == name:
            mod = _load(module)
            if mod is not None:
                mod.add_arguments(p)
    # the top-level modes (--plan-only, --yes, the TUI) are added by the plan/run frontends
    frontend = _load("rocm_wizard.commands.main")
    if frontend is not None:
        frontend.add_arguments(parser)
    executor = _load("rocm_wizard.commands.apply")  # --no-verify, --detach, --lock-timeout (light import)
    if executor is not None:
        executor.add_arguments(parser)
    return parser


def _load(module: str):
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            return None
        raise


# Sub-commands after which the process may end without the interpreter's teardown (freeing every
# module and object one by one, several garbage collections: about 8 ms of CPU after a live
# ``detect --json`` on a 2-core machine, a tenth of the whole run), once what they wrote is flushed and
# the exit functions have run (:func:`entry`).  Only commands whose work is done when they return: no
# thread of theirs left, no file of theirs left open for writing.  ``doctor`` is detect and then a
# diagnosis that only reads: after a 5 MB folder of pastes the teardown took about 20 ms of wall.
QUICK_EXIT = frozenset({"detect", "doctor"})
_quick_exit = False  # set by _main when such a command has returned


def entry() -> None:
    """The ``rocm-wizard`` command and ``python -m rocm_wizard``: :func:`main`, then the exit.  After a
    :data:`QUICK_EXIT` command: stdout and stderr flushed, the ``atexit`` functions run, then
    ``os._exit`` with the same status; anything unusual (a flush that fails, a thread still running, a
    function registered with ``threading._register_atexit``) takes the ordinary exit instead, which
    does the same and more.  The stored code of the package's regular expressions answers their
    compiling from here on (``_re_code``; ``python -m rocm_wizard`` installs it before this module's
    imports)."""
    from . import _re_code

    _re_code.install()
    code = _flushed(main())
    if _quick_exit and _own_program():
        _exit_now(code)
    raise SystemExit(code)


def _own_program() -> bool:
    """Whether this process's program is ``python -m rocm_wizard`` or the ``rocm-wizard`` script,
    whose main module holds :func:`entry`: not a program that runs the CLI inside itself."""
    return getattr(sys.modules.get("__main__"), "entry", None) is entry


def _flushed(code: int) -> int:
    """What :func:`main` wrote, flushed before the exit: a reader gone before the last buffered bytes
    ('rocm-wizard detect --json | head -c1', or a pipe closed before the command started) is README's
    rule for a closed pipe, status 0, as in :func:`main` -- not the interpreter's status 120 and its
    "Exception ignored" message from the flush at its teardown."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_nowhere()
        return OK
    except (OSError, ValueError, AttributeError):  # (stdout closed or gone: the ordinary exit says so)
        pass
    return code


def _stdout_nowhere() -> None:
    """stdout goes nowhere from now on, so the interpreter's last flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _exit_now(code: int) -> None:
    import threading

    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:  # (a closed pipe: the ordinary exit reports it as before)
        return
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        return
    if getattr(threading, "_threading_atexits", True):  # (functions the ordinary exit runs first: none here)
        return
    import atexit

    run_exitfuncs = getattr(atexit, "_run_exitfuncs", None)
    if run_exitfuncs is None:
        return
    run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        return
    os._exit(code if isinstance(code, int) else 1)


def main(argv: Optional[List[str]] = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # the reader stopped early ('rocm-wizard doctor | head'): not an error
        _stdout_nowhere()
        return OK
    except KeyboardInterrupt:
        # Ctrl-C where no command caught it (detection, diagnosis, planning: nothing was being
        # changed): 130, README's row, never a traceback
        print("rocm-wizard: stopped (Ctrl-C) at a safe point; nothing was being changed", file=sys.stderr)
        return INTERRUPTED


def _main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _Parser.argv = argv
    if not argv and os.environ.get("ROCM_WIZARD_LAUNCH"):  # a detached run (execute/detach.py)
        from .execute.detach import LAUNCH_ENV, take_launch

        try:
            argv, env = take_launch(os.environ.pop(LAUNCH_ENV))
        except (OSError, ValueError) as exc:
            print(f"rocm-wizard: cannot start the detached run: {exc}", file=sys.stderr)
            return 1
        os.environ.update(env)
    first = next((a for a in argv if not a.startswith("-")), None)
    only = first if first in COMMANDS else None
    parser = build_parser(only)
    args = parser.parse_args(argv)
    if args.command:
        frontend = _load("rocm_wizard.commands.main")
        code = frontend.use_demo(args) if frontend is not None else None  # --demo detect / doctor
        if code is not None:
            return code
        mod = _load(COMMANDS[args.command][0])
        if mod is None:
            print(f"rocm-wizard: '{args.command}' is not available in this build", file=sys.stderr)
            return 1
        if args.command in QUICK_EXIT and _own_program():
            # a command that ends its own process when it returns: the cyclic garbage collector's
            # passes are left out (about 130 of them, 20-25 ms, in ``doctor`` on a 5 MB folder of
            # pastes, for about a thousand objects, which the exit frees anyway)
            import gc

            gc.disable()
        code = int(mod.run(args) or 0)
        if args.command in QUICK_EXIT:
            global _quick_exit
            _quick_exit = True
        return code
    frontend = _load("rocm_wizard.commands.main")
    if frontend is None:
        parser.print_help(sys.stderr)
        return USAGE
    return int(frontend.run(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
