"""The top-level frontends: ``--plan-only`` (this module), ``--yes`` / ``--dry-run`` (the executor,
``rocm_wizard.commands.apply``) and, with no mode, the TUI (``rocm_wizard.tui.app``).

``rocm-wizard --plan-only [--format shell|ansible|json] [--path ...] [choices...] [--snapshot FILE]``
prints the plan on stdout (nothing else goes there) and exits 0 when there is nothing to do, 2 when
changes are pending (or cannot be ruled out from a snapshot), 1 on an error, 64 on an invalid choice.
Messages go to stderr.  Textual is never imported on these paths.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from typing import Any, Optional, Sequence

from ..exitcodes import ERROR, INPUT, OK, PENDING, USAGE, refusal
from ..termsafe import clean

FORMATS = ("shell", "ansible", "json")
PATHS = ("rocm-upgrade", "torch-reinstall", "docker", "guard", "clean")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    modes = parser.add_argument_group("modes (default: the interactive wizard)")
    modes.add_argument("--plan-only", action="store_true",
                       help="print the plan (a script, a playbook or JSON) and change nothing; "
                            "exit 0: nothing to do, 2: changes pending")
    modes.add_argument("--yes", action="store_true", help="apply the plan without asking (unattended)")
    modes.add_argument("--dry-run", action="store_true", help="show what applying the plan would do, change nothing")
    modes.add_argument("--answers", metavar="FILE", help="answers file for an unattended run")
    modes.add_argument("--demo", action="store_true", help="run the wizard on a built-in demo system")
    g = parser.add_argument_group("plan choices")
    g.add_argument("--format", dest="plan_format", choices=FORMATS, default=None,
                   help="--plan-only output: shell (default), ansible or json")
    g.add_argument("--path", dest="plan_path", choices=PATHS, default=None,
                   help="the way out (default: the diagnosis' recommendation)")
    g.add_argument("--rocm", metavar="VER", help="ROCm release for rocm-upgrade (6.4 = newest 6.4.x) or docker")
    g.add_argument("--torch", metavar="VER", help="torch version (2.4.1, or 2.4.1+rocm6.0 to pick the index)")
    g.add_argument("--venv", metavar="PATH", help="the venv to change (a new path gets a new venv)")
    g.add_argument("--venv-mode", choices=("new", "existing"), default=None,
                   help="new: build a new versioned venv and make PATH a link to it (a venv directory at PATH is "
                        "moved aside to PATH-torch<its torch>; rollback moves it back); existing: change PATH in place")
    g.add_argument("--image", metavar="TAG", help="rocm/pytorch image tag for the docker path")
    g.add_argument("--workspace", metavar="DIR", help="host directory mounted as /workspace (docker path)")
    g.add_argument("--no-dkms", action="store_true", help="keep the installed amdgpu kernel driver")
    g.add_argument("--rocm-mirror", metavar="URL", help="base URL of a mirror of repo.radeon.com (air-gapped sites)")
    g.add_argument("--librocdxg-repo", metavar="URL",
                   help="git repository of librocdxg to build under WSL with ROCm 7.2.x (default: "
                        "https://github.com/ROCm/librocdxg.git; a site's own copy)")
    g.add_argument("--allow-http-mirror", action="store_true",
                   help="accept an http:// --rocm-mirror: the signing key then comes unauthenticated and its "
                        "fingerprint is the only protection")
    g.add_argument("--user", dest="plan_user", metavar="NAME",
                   help="the user added to the render and video groups (an existing account; default: the user who "
                        "ran sudo, else the detected user)")
    g.add_argument("--allow-apt-removals", action="store_true",
                   help="let apt remove packages unrelated to ROCm when installing it needs that (otherwise the "
                        "step stops and lists them)")
    g.add_argument("--no-guard", action="store_true",
                   help="torch plans: leave out the guard (a constraints file named by the venv's pip.conf and "
                        "UV_CONSTRAINT that stops later installs from swapping the ROCm torch for a CUDA or CPU build)")
    g.add_argument("--clean", dest="clean_items", metavar="ID", action="append", default=None,
                   help="--path clean: remove this item of the list (its id or path; repeatable; 'all': every "
                        "one); nothing is removed unless picked")
    g.add_argument("--rocm-key-fingerprint", metavar="FPR", help="expected fingerprint of the repository key")
    g.add_argument("--rocm-core-mirror", metavar="URL",
                   help="base URL of a mirror of AMD's Core SDK hosts (https://stable.repo.amd.com for 10.x, "
                        "https://repo.amd.com for 7.14; same paths below it)")
    g.add_argument("--rocm-core-key-fingerprint", metavar="FPR",
                   help="expected fingerprint of the Core SDK repository key (default: the key the catalog pins, "
                        "taken from AMD's packaging sources)")
    g.add_argument("--torch-index-url", metavar="URL",
                   help="pip index to use instead of the catalog's (download.pytorch.org's, or AMD's for a torch "
                        "from AMD's index such as 2.12.0+rocm7.14.0)")
    g.add_argument("--pytorch-mirror", metavar="URL",
                   help="mirror of https://download.pytorch.org/whl (same layout): the torch-reinstall path "
                        "installs from <URL>/<rocm index>, as 'catalog refresh --pytorch-mirror' read it")
    g.add_argument("--env", dest="plan_env", metavar="NAME=VALUE", action="append", default=None,
                   help="environment variable to persist in the venv (NAME= drops a default)")
    g.add_argument("--snapshot", metavar="PATH", help="plan for a snapshot (bundle, folder of outputs, or System JSON)")
    g.add_argument("--root", dest="plan_root", metavar="DIR",
                   help="--plan-only: check the steps against the files under DIR (a captured tree or a chroot) "
                        "instead of this machine's; with --snapshot, the snapshot still describes the system")


def choices_from_args(args: argparse.Namespace):
    """The plan choices of a parsed command line, for ``--plan-only``, ``--dry-run`` and ``--yes``
    alike: ``--answers FILE`` first, the command line over it, so the plan reviewed with
    ``--plan-only --answers FILE`` is the plan ``--yes --answers FILE`` runs.  Raises PlanError
    (exit 64 for a bad option, 1 for an answers file that is missing or malformed)."""
    from ..execute import answers
    from ..plan.build import Choices, PlanError

    env = {}
    for item in getattr(args, "plan_env", None) or []:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise PlanError(f"--env {item!r}: expected NAME=VALUE")
        env[name] = value
    cli = {"path": getattr(args, "plan_path", None), "rocm": getattr(args, "rocm", None),
           "torch": getattr(args, "torch", None), "venv": getattr(args, "venv", None),
           "venv_mode": getattr(args, "venv_mode", None), "image": getattr(args, "image", None),
           "workspace": getattr(args, "workspace", None), "rocm_mirror": getattr(args, "rocm_mirror", None),
           "rocm_key_fingerprint": getattr(args, "rocm_key_fingerprint", None),
           "rocm_core_mirror": getattr(args, "rocm_core_mirror", None),
           "rocm_core_key_fingerprint": getattr(args, "rocm_core_key_fingerprint", None),
           "torch_index_url": getattr(args, "torch_index_url", None),
           "pytorch_mirror": getattr(args, "pytorch_mirror", None),
           "librocdxg_repo": getattr(args, "librocdxg_repo", None),
           "dkms": False if getattr(args, "no_dkms", False) else None,
           "allow_http_mirror": True if getattr(args, "allow_http_mirror", False) else None,
           "allow_apt_removals": True if getattr(args, "allow_apt_removals", False) else None,
           "guard": False if getattr(args, "no_guard", False) else None,
           "clean_items": getattr(args, "clean_items", None),
           "user": getattr(args, "plan_user", None), "env": env}
    try:
        from_file = answers.load(args.answers) if getattr(args, "answers", None) else {}
    except answers.AnswersError as exc:
        raise PlanError(str(exc), ERROR) from None
    from ..plan.build import PATHS, VENV_MODES

    for key, allowed in (("path", PATHS), ("venv_mode", VENV_MODES)):
        if key in from_file and from_file[key] not in allowed:
            # a bad value is a malformed answers file, like an unknown key (exit 1, exitcodes.INPUT)
            raise PlanError(f"answers file {args.answers}: {key} = {from_file[key]!r} is not one of "
                            f"{', '.join(allowed)}", refusal(INPUT))
    merged = answers.merge(from_file, cli)
    merged.setdefault("dkms", None)  # decided by the plan: no amdgpu-dkms on Ryzen APUs
    merged.setdefault("env", {})
    choices = Choices(**merged)
    # the values the plan took from the file (not overridden on the command line), so that a
    # refusal of one of them is blamed on the file (exit 1), not on the command line (64)
    choices._from_answers = (args.answers, {k: v for k, v in from_file.items()
                                            if isinstance(v, str) and cli.get(k) is None})
    return choices


def blame_answers(exc, choices):
    """``exc`` (a PlanError) as the refusal of an answers-file value when the value it refuses came
    from the file: a bad command line (64) becomes a bad input file (1), its message naming the file
    and the key (exitcodes.refusal)."""
    from ..plan.build import PlanError

    where, values = getattr(choices, "_from_answers", (None, {}))
    if exc.exit_code != USAGE or not where:
        return exc
    for key, value in values.items():
        if value and (repr(value) in exc.message or f" {value} " in f" {exc.message} "):
            return PlanError(f"answers file {where}: {key} = {value!r}: {exc.message}", refusal(INPUT))
    return exc


def _err(msg: str) -> None:
    print(f"rocm-wizard: {clean(msg)}", file=sys.stderr)


def load_system(snapshot: Optional[str], venvs: Sequence[str] = ()):
    """The System to plan for: ``--snapshot`` (a System JSON as ``detect --json`` writes it, or
    anything ``detect_snapshot`` reads), else this machine.  On this machine, ``venvs`` (the
    ``--venv`` choice) are examined besides the environments detection finds by itself.  Not for a
    snapshot: it holds what was captured, with the venvs given when it was taken (its manifest);
    a path named now could only look like an empty venv there.  Raises ValueError with a message."""
    from .. import model

    if snapshot:
        if os.path.isfile(snapshot) and snapshot.endswith(".json"):
            try:
                with open(snapshot, "r", encoding="utf-8") as fh:
                    data = json.load(fh)
            except (OSError, ValueError) as exc:
                raise ValueError(f"cannot read {snapshot}: {exc}") from None
            if isinstance(data, dict) and isinstance(data.get("system"), dict):
                data = data["system"]
            if not isinstance(data, dict) or "os" not in data:
                raise ValueError(f"{snapshot} is not a System JSON (rocm-wizard detect --json)")
            try:
                system = model.from_dict(model.System, data)
            except (TypeError, ValueError, AttributeError) as exc:
                raise ValueError(f"{snapshot}: malformed System JSON ({exc})") from None
            system.origin = "snapshot"
            return system
        if not os.path.exists(snapshot):
            from ..detect.bundle import missing

            raise ValueError(missing(snapshot))
        try:
            from ..detect import detect_snapshot
        except ImportError:
            raise ValueError("reading snapshot bundles is not available in this build; give a System JSON") from None
        try:
            return detect_snapshot(snapshot)
        except Exception as exc:  # SnapshotError and anything a damaged bundle causes
            raise ValueError(f"cannot read snapshot {snapshot}: {exc}") from None
    try:
        from ..detect import detect_live
    except ImportError:
        raise ValueError("detection is not available in this build; give --snapshot FILE.json") from None
    return detect_live(venvs=list(venvs))


def plan_only(args: argparse.Namespace) -> int:
    from ..plan.build import PlanError, build_plan
    from ..plan.context import Context
    from ..plan.core import evaluate, pending, summary

    fmt = getattr(args, "plan_format", None) or "shell"
    try:
        choices = choices_from_args(args)
    except PlanError as exc:
        _err(exc.message)
        return exc.exit_code
    root = getattr(args, "plan_root", None)
    if root is not None and not os.path.isdir(root):
        _err(f"--root {root}: not a directory")
        return USAGE
    snapshot = getattr(args, "snapshot", None)
    # the venv the plan is for, so that detection reads its torch (a venv that is not VIRTUAL_ENV
    # and not in a place detection looks at would otherwise seem to have none)
    venvs = [os.path.abspath(choices.venv)] if choices.venv and not snapshot else []
    try:
        if root is not None and not snapshot:
            from ..detect import detect_live

            system = detect_live(venvs=venvs, root=root)
        else:
            system = load_system(snapshot, venvs)
    except ValueError as exc:
        _err(str(exc))
        return ERROR
    from ..plan.build import gpu_warning

    warning = gpu_warning(system, choices)
    if warning:
        _err(warning)
    try:
        plan = build_plan(system, choices)
    except PlanError as exc:
        exc = blame_answers(exc, choices)
        _err(exc.message)
        return exc.exit_code
    if root is not None:
        ctx = Context(root=os.path.abspath(root), commands=False, env={})
    elif getattr(args, "snapshot", None):
        ctx = Context.snapshot()
    else:
        ctx = Context(root="/")
    reports = evaluate(plan, ctx, system)
    if fmt == "json":
        from ..plan.jsonplan import render_json

        text = render_json(plan, reports)
    elif fmt == "ansible":
        from ..plan.ansible import render_ansible

        text = render_ansible(plan)
    else:
        from ..plan.shell import render_shell

        text = render_shell(plan)
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return ERROR
    counts = summary(reports)
    _err(f"{plan.title}: {len(plan.steps)} steps; {counts.get('change', 0)} would change, "
         f"{counts.get('unknown', 0)} unknown, {counts.get('ok', 0)} already done")
    for note in plan.notes:
        _err(f"note: {note}")
    return PENDING if pending(reports) else OK


def _optional(module: str) -> Optional[Any]:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and (exc.name == module or module.startswith(exc.name + ".")):
            return None
        raise


DEMO_COMMANDS = ("detect", "doctor")  # sub-commands that describe a system: --demo gives them the demo's


def demo_bundle() -> str:
    """The bundled demo system (a snapshot bundle directory in the package; read in place, nothing
    is unpacked).  Found without importing ``rocm_wizard.demo``, which brings the wizard's core."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "demo", "system")


def use_demo(args: argparse.Namespace) -> Optional[int]:
    """``--demo`` with a headless command (``detect``, ``doctor``, ``--plan-only``, ``--dry-run``):
    point it at the bundled demo system, as ``--snapshot`` would.  None to go on, else an exit
    status after a message (``--yes`` and the other sub-commands would act on this machine)."""
    if not getattr(args, "demo", False):
        return None
    from ..catalog.overlay import bundled_only

    bundled_only()  # the demo's advice never depends on this machine's catalog overlay
    command = getattr(args, "command", None)
    headless = command is not None or getattr(args, "plan_only", False) or getattr(args, "dry_run", False)
    if getattr(args, "yes", False) or (command is not None and command not in DEMO_COMMANDS):
        what = "--yes" if getattr(args, "yes", False) else command
        _err("--demo works with the wizard, detect, doctor, --plan-only and --dry-run; "
             f"not with {what}: it works on this machine, not on the demo system")
        return USAGE
    if not headless:
        return None  # the wizard: its demo core reads the bundle itself
    if getattr(args, "snapshot", None) or getattr(args, "plan_root", None):
        _err("--demo is the bundled demo system: it cannot be combined with --snapshot or --root")
        return USAGE
    args.snapshot = demo_bundle()
    _err("demo: the bundled demo system (RX 7900 XT, Ubuntu 22.04, ROCm 6.2.0, torch 2.11.0+rocm7.2), "
         "not this machine")
    return None


def run(args: argparse.Namespace) -> int:
    code = use_demo(args)
    if code is not None:
        return code
    if getattr(args, "plan_only", False):
        if getattr(args, "yes", False) or getattr(args, "dry_run", False):
            _err("--plan-only cannot be combined with --yes or --dry-run")
            return USAGE
        return plan_only(args)
    if getattr(args, "yes", False) or getattr(args, "dry_run", False):
        mod = _optional("rocm_wizard.commands.apply")
        if mod is None:
            _err("--yes and --dry-run are not available in this build yet (use --plan-only)")
            return ERROR
        return int(mod.run(args) or 0)
    mod = _optional("rocm_wizard.tui.app")
    if mod is None:
        from ..cli import build_parser

        build_parser().print_help(sys.stderr)
        return USAGE
    return int(mod.run(args) or 0)
