"""``rocm-wizard verify``: GPU smoke test of a venv, an interpreter or a Docker image.

With no target it tests the venv ``detect`` finds: the active one (``VIRTUAL_ENV``) when it has
torch, else the only venv with torch; several and none active: it lists them and asks for
``--venv`` (exit 64); none: the default interpreter.

Exit status: 0 every applicable check passed, 2 a check failed (the failing layer is named),
1 the test could not run at all (no such interpreter, no docker, no report), 64 bad usage.
stdout carries the report (text, or JSON with ``--json``); progress goes to stderr.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys

from ..exitcodes import ERROR, USAGE
from ..termsafe import clean_line


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds: {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--venv", metavar="PATH", help="the virtual environment to test (its bin/python)")
    target.add_argument("--python", metavar="PATH", help="the interpreter to test (a path or a name on PATH)")
    target.add_argument("--docker", metavar="IMAGE", help="test inside this image, with the GPU device flags")
    parser.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    parser.add_argument("--timeout", type=_positive, default=60.0, metavar="S",
                        help="seconds per check (import and torch.compile get 3x); default 60")
    parser.add_argument("--deadline", type=_positive, default=None, metavar="S",
                        help="seconds the whole run may take, progress or not (default 30 times --timeout, 30 minutes at its default; "
                             "a Docker image gets 30 minutes more to be pulled); then it is stopped, with all it started")
    parser.add_argument("--only", metavar="CHECKS", default="",
                        help="comma-separated subset of checks (import and device always run)")
    parser.add_argument("--from-file", metavar="REPORT.json",
                        help="render a smoke report recorded earlier instead of running the test")
    parser.add_argument("-v", "--verbose", action="store_true", help="show the stderr tail of every failed check")


def _load_file(path: str):
    from .. import limits
    from ..verify.report import Report, Target

    try:
        with open(path, "rb") as fh:
            data = fh.read(limits.MAX_FILE_BYTES + 1)
        if len(data) > limits.MAX_FILE_BYTES:
            return Report(target=Target(kind="file"),
                          error=f"{path} is larger than {limits.mib(limits.MAX_FILE_BYTES)}; not a smoke report")
        doc = limits.loads_json(data.decode("utf-8", "replace"), path)
    except OSError as exc:
        return Report(target=Target(kind="file"), error=f"cannot read {path}: {exc.strerror or exc}")
    except limits.LimitError as exc:
        return Report(target=Target(kind="file"), error=str(exc))
    except ValueError as exc:
        return Report(target=Target(kind="file"), error=f"{path} is not JSON: {exc}")
    if isinstance(doc, dict) and isinstance(doc.get("smoke"), dict):  # a `verify --json` output
        doc = doc["smoke"]
    from ..verify.runner import analyse

    return analyse(doc, Target(kind="file", python=path))


def torch_venvs(system) -> list:
    """The environments with torch in them that detection found and ``--venv`` can test (a venv,
    a conda env: a directory with ``bin/python``; not a bare site-packages), the active one first."""
    return [t for t in system.torch if t.path and t.version
            and os.path.exists(os.path.join(t.path, "bin", "python"))]


def pick_venv(system):
    """The venv ``verify`` tests when given no target, as ``detect`` sees them: the active one
    (``VIRTUAL_ENV``) when it has torch, else the only venv with torch.  Returns (venv or None,
    candidates): several candidates and no active one mean the user has to choose."""
    found = torch_venvs(system)
    active = [t for t in found if t.active]
    if active:
        return active[0].path, found
    if len(found) == 1:
        return found[0].path, found
    return None, found


def _default_venv():
    """Detection's python probe on this machine: (venv or None, candidates)."""
    from ..detect import invoker_venvs, new_system, run_probe
    from ..detect.sources import LiveSource

    extra, note = invoker_venvs()  # run through sudo/pkexec/doas: the invoking user's venvs, listed as them
    source = LiveSource(guard_venvs=extra)
    if note:
        print(f"rocm-wizard verify: {note}", file=sys.stderr)
    system = new_system(source)
    run_probe("python", source, system, extra)
    return pick_venv(system)


def run(args: argparse.Namespace) -> int:
    only = [x.strip() for x in (args.only or "").split(",") if x.strip()]
    if only:
        from ..verify.smoke import CHECK_NAMES  # plain data; smoke.py imports only the stdlib

        unknown = [x for x in only if x not in CHECK_NAMES]
        if unknown:
            print(f"rocm-wizard verify: unknown check(s) {clean_line(', '.join(unknown))}; known: {', '.join(CHECK_NAMES)}",
                  file=sys.stderr)
            return USAGE
    if args.from_file:
        if args.venv or args.python or args.docker:
            print("rocm-wizard verify: --from-file cannot be combined with a target", file=sys.stderr)
            return USAGE
        report = _load_file(args.from_file)
    else:
        from ..verify.runner import progress_printer, run_verify

        interactive = sys.stderr.isatty() or bool(os.environ.get("ROCM_WIZARD_PROGRESS"))
        if not (args.venv or args.python or args.docker):
            venv, found = _default_venv()
            if venv is None and found:
                print("rocm-wizard verify: several venvs with torch were found; choose one with --venv PATH:\n"
                      + "\n".join(f"  {clean_line(t.path)}  (torch {clean_line(t.version)})" for t in found),
                      file=sys.stderr)
                return USAGE
            if venv is None:
                print("rocm-wizard verify: no venv with torch was found (looked at $VIRTUAL_ENV, $CONDA_PREFIX, "
                      "~/venv*, ~/.venv*, ~/*/venv, ~/*/.venv, ~/.virtualenvs/*, ~/.pyenv/versions/*, conda's envs, "
                      "/opt/venv*; give --venv PATH for another); testing the default interpreter", file=sys.stderr)
            args.venv = venv
        what = args.docker or args.venv or args.python or "the default interpreter"
        print(f"rocm-wizard verify: running the GPU smoke test with {clean_line(what)}...", file=sys.stderr)
        report = run_verify(python=args.python, venv=args.venv, docker_image=args.docker, timeout=args.timeout,
                            deadline=args.deadline, only=only, on_progress=progress_printer() if interactive else None)
    if args.json:
        sys.stdout.write(json.dumps(report.to_dict(), indent=1) + "\n")  # (ensure_ascii: all escaped)
    else:
        from ..verify.render import render

        sys.stdout.write(render(report, color=sys.stdout.isatty(), width=_width(), verbose=args.verbose))
    if report.error is not None:
        print(f"rocm-wizard verify: {clean_line(report.error)}", file=sys.stderr)
        return ERROR
    return report.exit_code


def _width() -> int:
    try:
        return max(60, min(140, os.get_terminal_size(sys.stdout.fileno()).columns))
    except (OSError, ValueError):
        return 100


def main(argv=None) -> int:
    """``python -m rocm_wizard.commands.verify ...``: the command without the CLI dispatcher."""
    from ..cli import _Parser  # usage errors exit 64, as through the CLI

    parser = _Parser(prog="rocm-wizard verify", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
