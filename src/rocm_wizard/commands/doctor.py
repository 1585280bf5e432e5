"""``rocm-wizard doctor``: what is wrong with this system (or a snapshot), with evidence, and the ways
out ranked for it.

    rocm-wizard doctor [--snapshot PATH] [--error-log FILE|-] [--json] [--venv PATH]... [--skip RULE]...

``--snapshot`` takes what ``detect_snapshot`` reads (a bundle, a folder of pasted outputs, one pasted
file) or the JSON of ``rocm-wizard detect --json``.  ``--error-log`` adds a traceback or log
(``-`` reads stdin).  ``--json`` prints ``findings[]`` and ``recommendations[]`` and imports
neither Rich nor Textual.

Exit status: 0 when no finding is a warning or worse, 2 when problems are found, 3 when this system
has neither an AMD GPU nor ROCm (nothing to diagnose: the report says so instead of "No known
problem"), 1 on an error (unreadable snapshot or log, or a snapshot that describes no system at all),
64 on a bad command line.  With no finding on a snapshot that does not show the GPU and the
ROCm/PyTorch side, the report says so instead of "No known problem".
"""
from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import sys
from typing import Any, Dict, List, Optional

from .. import limits
from ..exitcodes import ERROR, NOT_APPLICABLE, OK, PENDING
from ..termsafe import clean

PROG = "rocm-wizard doctor"
MAX_LOG_BYTES = 8 * 1024 * 1024


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--snapshot", metavar="PATH",
                        help="diagnose a snapshot bundle, a folder of pasted outputs, one pasted file, or the JSON "
                             "of 'rocm-wizard detect --json' instead of this machine")
    parser.add_argument("--error-log", metavar="FILE", dest="error_log",
                        help="a traceback or log to explain ('-' reads standard input)")
    parser.add_argument("--json", action="store_true", help="print findings and recommendations as JSON")
    parser.add_argument("--venv", metavar="PATH", action="append", default=[],
                        help="also examine this virtual environment (repeatable)")
    parser.add_argument("--skip", metavar="RULE", action="append", default=[],
                        help="do not run this rule (repeatable; ids as shown in the report)")
    parser.add_argument("--repo-base", metavar="URL", dest="repo_base",
                        help="mirror of https://repo.radeon.com used in the suggested commands")
    parser.add_argument("--index-base", metavar="URL", dest="index_base",
                        help="mirror of https://download.pytorch.org/whl used in the suggested commands")


def _err(msg: str) -> None:
    print(f"{PROG}: {clean(msg)}", file=sys.stderr)


def _read_error_log(spec: Optional[str]) -> Optional[str]:
    """The log's text (a web page's or mail's rendering undone, as a pasted file's is: detect/paste_text.py);
    raises ValueError with a message for the user."""
    text = _read_error_log_raw(spec)
    if text is None:
        return None
    from ..detect.paste_text import normalise

    return normalise(text)


def _decode(data: bytes) -> str:
    from ..detect.sources import decode  # (UTF-16 with a byte order mark too: a log saved by PowerShell)

    return decode(data)


def _read_error_log_raw(spec: Optional[str]) -> Optional[str]:
    if spec is None:
        return None
    if spec == "-":
        if sys.stdin is None:
            raise ValueError("--error-log -: there is no standard input to read")
        data = sys.stdin.buffer.read(MAX_LOG_BYTES) if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
        return _decode(data) if isinstance(data, bytes) else str(data)
    if os.path.isdir(spec):
        raise ValueError(f"error log {spec} is a directory, not a file")
    try:
        with open(spec, "rb") as fh:
            return _decode(fh.read(MAX_LOG_BYTES))
    except FileNotFoundError:
        raise ValueError(f"error log not found: {spec}") from None
    except OSError as exc:
        raise ValueError(f"cannot read error log {spec}: {exc.strerror or exc}") from None


def _system_json(path: str) -> Optional[Any]:
    """A System from ``detect --json`` output, or None when ``path`` is something else; a
    :class:`~rocm_wizard.limits.LimitError` when it is nested too deep."""
    if not os.path.isfile(path) or not path.lower().endswith(".json"):
        return None
    try:
        with open(path, "rb") as fh:
            data = limits.loads_json(fh.read(limits.MAX_FILE_BYTES).decode("utf-8", errors="replace"), path)
    except (OSError, ValueError):
        return None
    if isinstance(data, dict) and isinstance(data.get("system"), dict):
        data = data["system"]
    if not isinstance(data, dict) or not ({"gpus", "rocm", "os"} & set(data)):
        return None
    from ..model import System, from_dict

    try:
        return from_dict(System, data)
    except Exception:
        return None


def _load_system(args: argparse.Namespace):
    """(System, None) or (None, message)."""
    venvs = list(getattr(args, "venv", []) or [])
    if args.snapshot is not None:
        path = args.snapshot
        if not os.path.exists(path):
            from ..detect.bundle import missing

            return None, missing(path)
        try:
            system = _system_json(path)
        except limits.LimitError as exc:
            return None, str(exc)
        if system is not None:
            return system, None
        try:
            from ..detect import detect_snapshot
        except ImportError:
            return None, "reading snapshots is not available in this build"
        try:
            from ..detect.bundle import SnapshotError
        except ImportError:  # pragma: no cover
            SnapshotError = ValueError  # type: ignore[misc,assignment]
        try:
            return detect_snapshot(path, venvs), None
        except SnapshotError as exc:
            return None, str(exc)
        except OSError as exc:
            return None, f"cannot read {path}: {exc.strerror or exc}"
    try:
        from ..detect import detect_live
    except ImportError:
        return None, "detection is not available in this build"
    return detect_live(venvs), None


# what the diagnosis imports once a system is detected (see run)
_DIAGNOSIS_MODULES = ("rocm_wizard.doctor.engine", "rocm_wizard.doctor.evidence", "rocm_wizard.plan.outline")


def run(args: argparse.Namespace) -> int:
    try:
        error_text = _read_error_log(getattr(args, "error_log", None))
    except ValueError as exc:
        _err(str(exc))
        return ERROR
    from ..detect import _forked

    # (the diagnosis's imports, done while this process would wait for the recogniser's worker, where
    # one works for a large folder of pastes)
    _forked.while_waiting(*[functools.partial(importlib.import_module, m) for m in _DIAGNOSIS_MODULES])
    try:
        system, problem = _load_system(args)
    finally:
        _forked.while_waiting()
    if system is None:
        _err(problem or "no system to diagnose")
        return ERROR
    from ..doctor.evidence import described, describes_nothing

    if args.snapshot is not None and not described(system) and not error_text:
        _err(describes_nothing(args.snapshot))
        return ERROR

    from ..doctor import diagnose
    from ..doctor.registry import rules

    unknown = [r for r in args.skip if r not in rules()]
    if unknown:
        _err("unknown rule id(s) for --skip: " + ", ".join(unknown) + " (ignored)")
    diag = diagnose(system, error_text, skip=args.skip, repo_base=args.repo_base, index_base=args.index_base)
    plans = way_plans(system, diag, args)
    if args.json:
        from ..termsafe import json_c1

        sys.stdout.write(json_c1(json.dumps(payload(diag, system, plans), indent=2, ensure_ascii=False)) + "\n")
    else:
        render_human(diag, system, plans=plans)
    return {"problems": PENDING, "not-applicable": NOT_APPLICABLE}.get(status(diag, system), OK)


def way_plans(system: Any, diag, args: argparse.Namespace) -> Dict[str, Any]:
    """What each way out the diagnosis offers does: the plan ``--plan-only --path WAY`` makes for the
    same system and diagnosis (``plan.outline``), never a description of our own."""
    try:
        from ..plan.outline import attach
    except ImportError:  # a build without the plan engine: the ways are shown without their plans
        return {}
    return attach(system, diag, snapshot=getattr(args, "snapshot", None),
                  rocm_mirror=getattr(args, "repo_base", None), pytorch_mirror=getattr(args, "index_base", None))


def no_amd_stack(system: Any) -> bool:
    """This (live) system has no AMD GPU, no ROCm install or package and no ROCm build of PyTorch."""
    if getattr(system, "origin", "live") != "live" or system.amd_gpus or system.rocm.amdgpu_loaded:
        return False
    from ..doctor.context import Context

    ctx = Context(system)
    return not ctx.rocm_installed and not ctx.rocm_envs


def status(diag, system: Any = None) -> str:
    """problems | not-applicable (no AMD GPU, no ROCm here) | too-little (a snapshot short of a verdict) | healthy"""
    if system is not None and no_amd_stack(system) and all(f.id == "no-amd-gpu" for f in diag.findings):
        return "not-applicable"  # "no AMD GPU" is then the whole story, not a problem to fix
    if diag.problems:
        return "problems"
    if diag.findings:
        return "healthy"
    if system is not None and getattr(system, "origin", "live") == "snapshot":
        from ..doctor.evidence import missing

        if missing(system):
            return "too-little"
    return "healthy"


def payload(diag, system=None, plans: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The ``--json`` document; ``plans``: path -> ``plan.outline.WayPlan`` of the applying ways."""
    plans = plans or {}
    out: Dict[str, Any] = {
        "schema_version": 1,
        "origin": getattr(system, "origin", None),
        "status": status(diag, system),
        "worst": diag.worst,
        "problems": len(diag.problems),
        "findings": [
            {"id": f.id, "severity": f.severity, "title": f.title, "evidence": list(f.evidence), "fix": f.fix,
             "path": f.path, "sources": list(f.sources), "explanation": f.explanation, "community": f.community,
             "layer": f.layer, "next_commands": list(f.next_commands)}
            for f in diag.findings
        ],
        "recommendations": [
            {"path": r.path, "rank": r.rank, "applies": r.applies, "target": r.target, "why": r.why,
             "steps": list(r.steps), "plan": plans[r.path].to_dict() if r.path in plans else None,
             "commands": _plan_commands(plans.get(r.path))}
            for r in diag.recommendations
        ],
        "notes": list(diag.notes),
        "catalog": _catalog_date(),
    }
    if system is not None and getattr(system, "origin", "live") == "snapshot":
        from ..doctor.evidence import ask, described, missing

        out["evidence"] = {"described": described(system), "missing": missing(system), "ask": ask(system)}
    return out


def _catalog_date() -> Optional[Dict[str, Any]]:
    """The date of the knowledge the diagnosis rests on (``overlay.knowledge``); None when the
    catalog's date cannot be read (the notes say so)."""
    from ..catalog import overlay

    try:
        return overlay.knowledge()
    except Exception:  # packaged data; a diagnosis never dies of it (doctor.engine notes it)
        return None


# ------------------------------------------------------------------ human report
_STYLE = {"critical": "bold white on red", "error": "bold red", "warning": "yellow", "info": "cyan"}


def render_human(diag, system=None, file=None, plans: Optional[Dict[str, Any]] = None) -> None:
    from rich.markup import escape as _markup_escape

    from ._output import console as Console

    def escape(text: Any) -> str:  # what a finding quotes came from outside: no sequences, no markup
        return _markup_escape(clean(text))

    console = Console(file=file or sys.stdout, highlight=False, soft_wrap=False)
    prose, command = _printers(console)
    where = "the snapshot" if getattr(system, "origin", "live") == "snapshot" else "this system"
    from ..doctor.evidence import missing

    lacking = missing(system) if system is not None and getattr(system, "origin", "live") == "snapshot" else []
    if status(diag, system) == "not-applicable":
        others = [escape(s_) for f in diag.findings for s_ in f.evidence if s_.startswith("GPUs found")]
        if others:
            console.print(others[0] + ".")
        prose("this system has no AMD GPU and no ROCm (no AMD GPU in the PCI devices, the KFD topology or the ROCm "
              "tools; no ROCm install, package or ROCm build of PyTorch). rocm-wizard diagnoses AMD GPU systems; to "
              "look at one from here, give --snapshot its outputs.", 0, prefix="[bold yellow]Nothing to diagnose[/]: ")
        return
    if not diag.findings and lacking:
        from ..doctor.evidence import ask

        prose(f"{where} does not show {' or '.join(clean(m) for m in lacking)}. These commands would settle it; "
              f"add their output to the snapshot (one command a line):", 0,
              prefix="[bold yellow]No problem seen, but too little to call it healthy[/]: ")
        for cmd in ask(system):
            command(cmd)
    elif not diag.findings:
        console.print(f"[bold green]No known problem found[/] on {where}.")
    else:
        n = len(diag.problems)
        console.print(f"[bold]{len(diag.findings)} finding(s) on {where}[/], {n} problem(s); the root cause's layer first.\n")
    for f in diag.findings:
        layer = f"[dim]{escape(f.layer)} layer, [/]" if f.layer else ""
        console.print(f"[{_STYLE.get(f.severity, 'bold')}]{f.severity.upper()}[/] [bold]{escape(f.title)}[/]  "
                      f"[dim]([/]{layer}[dim]{escape(f.id)})[/]", soft_wrap=False, crop=False)  # wrapped at the width
        prose(f.explanation, 2)
        if f.evidence:
            console.print("  [bold]Evidence[/]")
            for e in f.evidence:
                prose(e, 4, hang=2, prefix="- ")
        label = "Fix (community setting)" if f.community else "Fix"
        prose(f.fix + (f"  -> way out: {f.path}" if f.path else ""), 2, prefix=f"[bold]{label}[/]: ")
        if f.next_commands:
            console.print("  [bold]Run next[/] (one command a line)")
            for cmd in f.next_commands:  # whole, never wrapped: a command is copied as a line
                command(cmd)
        if f.sources:
            prose("; ".join(f.sources), 2, prefix="Sources: ", style="dim")
        console.print()
    console.print("[bold]Ways out[/]")
    for r in diag.recommendations:
        if r.applies:
            prose(r.why, 2, hang=3, prefix=f"[bold green]{r.rank}. {r.path}[/]: ")
            wp = (plans or {}).get(r.path)
            for line in _plan_lines(wp):  # the plan's own lines, one a line (the script's header lists them)
                command(line, 5)
            for cmd in _plan_commands(wp):  # whole, never wrapped: a command is copied as a line
                command(cmd, 5)
        else:
            prose(r.why, 2, hang=3, prefix=f"[dim]-  {r.path}: does not apply: [/]", style="dim")
    for note in diag.notes:
        prose(note, 0, hang=6, prefix="[dim]note: [/]", style="dim")


def _printers(console: Any):
    """``prose(text, indent, hang=0, prefix=markup)`` wraps text to the console's width with its
    indent kept on every line (``hang`` more after the first) and never breaks a command the text
    quotes (:func:`._output.wrap_prose`); ``command(text, indent=4)`` prints one command whole on its
    own line, never wrapped nor cropped at any width (a command is copied as a line: the first half
    of a wrapped install command pasted alone installs something else)."""
    from rich.markup import escape as escape_markup  # noqa: F401  (kept for callers' symmetry)
    from rich.text import Text

    from ._output import wrap_prose

    def prose(text: Any, indent: int, hang: int = 0, prefix: str = "", style: Optional[str] = None) -> None:
        head = Text.from_markup(prefix) if prefix else Text("")
        width = max(20, (console.width or 80) - indent - hang)
        first = max(10, (console.width or 80) - indent - len(head.plain))
        for i, line in enumerate(wrap_prose(clean(text), width, first)):
            out = Text(" " * (indent + (hang if i else 0)))
            if i == 0:
                out += head
            out += Text(line, style=style or "")
            console.print(out, soft_wrap=True, crop=False)

    def command(text: str, indent: int = 4) -> None:
        console.print(Text(" " * indent + clean(text)), soft_wrap=True, crop=False, highlight=False)

    return prose, command


def _plan_lines(wp: Any) -> List[str]:
    """A way out's plan as the report shows it: the plan's title and step lines (the script's header
    lists the same lines), or the plan engine's refusal, then the command that prints it whole."""
    if wp is None:
        return []
    if wp.error:
        return [f"plan: not made as it is: {wp.error}", "the plan (run this to see why, and to change the options):"]
    return [f"plan: {wp.title}", *(f"  {line}" for line in wp.steps), "the whole plan:"]


def _plan_commands(wp: Any) -> List[str]:
    """The command that prints a way out's plan whole (``--json``'s ``commands``)."""
    return [wp.command] if wp is not None and getattr(wp, "command", None) else []
