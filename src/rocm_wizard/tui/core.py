"""Where the TUI meets the headless core (detect -> doctor -> plan -> execute -> verify).  Every
piece of work a screen starts goes through a :class:`Core`, so switching an implementation is a
change here only (the pure helpers beside it read the catalog, the plan engine's validators and the
executor's file formats: ``fields``, ``execution``).

:class:`Core` works on the live machine (or a snapshot given with ``--snapshot``);
:class:`rocm_wizard.demo.DemoCore` is the same core on the bundled demo system with a simulated
executor and a simulated smoke test.

Blocking methods (``run_probe``, ``finish``, ``build_plan``, ``evaluate``, ``execute``, ``verify``)
are called from worker threads only.
"""
from __future__ import annotations

import os
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

from ..model import System
from . import fields as fieldmod
from .execution import ChildRun, Control, ExecOutcome, StepEvent


# Step kinds (rocm_wizard.plan.steps) that nothing later in a plan builds on: going on without one
# leaves the system consistent, only less complete.  Every other kind is not skippable; the reason
# shown for the common ones:
SKIP_SAFE = frozenset({"user-groups", "reboot-flag", "pip-check", "env-persist", "docker-run-script"})
SKIP_UNSAFE = {
    "apt-key": "the repository cannot be used without its signing key",
    "apt-sources": "the packages come from this repository",
    "apt-pin": "without the pin, the distribution's packages could replace AMD's",
    "apt-update": "the package lists must know the new repository",
    "apt-install": "the rest of the plan expects these packages",
    "venv": "the later steps install into this environment",
    "pip-uninstall": "installing next to the old build mixes two builds",
    "pip-install": "the environment would be left without torch",
    "docker-pull": "the image is what the later steps run",
}


def skippable(step) -> "tuple[bool, str]":
    """Whether a plan can go on without ``step`` (by its kind), and if not, why."""
    if step is None:
        return False, "unknown step"
    own = getattr(step, "skippable", None)
    if isinstance(own, bool):
        return own, "" if own else "the step says later steps depend on it"
    if step.kind in SKIP_SAFE:
        return True, ""
    return False, SKIP_UNSAFE.get(step.kind, "later steps may depend on this one")


class Unavailable(Exception):
    """A part of the core that this build does not have (yet); the message is for the user."""


# -- the core ---------------------------------------------------------------------------------------

class Core:
    demo = False
    simulated = False

    def changes_this_machine(self) -> bool:
        """Whether Run acts on this machine (not the demo, not a snapshot): then it needs root."""
        return not (self.demo or self.snapshot)

    def __init__(self, snapshot: Optional[str] = None, venvs: Sequence[str] = (), error_text: Optional[str] = None,
                 state_dir: Optional[str] = None) -> None:
        self.snapshot = snapshot
        self.venvs = tuple(venvs)
        self.error_text = error_text
        self._state_dir = state_dir

    def cleanup(self) -> None:
        """Remove what this core made for itself only (the live core keeps its logs and answers)."""

    # detection ----------------------------------------------------------------------------------
    def open_source(self):
        if self.snapshot:
            from ..detect.bundle import open_snapshot

            return open_snapshot(self.snapshot)
        from ..detect import invoker_venvs
        from ..detect.sources import LiveSource

        # run through sudo/pkexec/doas: the invoking user's venvs too, listed as them (detect_live's rule)
        extra, note = invoker_venvs()
        self.venvs = tuple(dict.fromkeys(tuple(self.venvs) + tuple(extra)))
        source = LiveSource(guard_venvs=extra)
        if note:
            source.notes.append(note)
        return source

    def probe_names(self) -> Sequence[str]:
        from ..detect import PROBES

        return PROBES

    def new_system(self, source) -> System:
        from ..detect import new_system

        return new_system(source)

    def run_probe(self, name: str, source, system: System) -> None:
        """Run one probe module; raises what it raises (the caller reports it)."""
        from ..detect import run_probe, venvs_for

        run_probe(name, source, system, venvs_for(source, self.venvs))

    def finish(self, source, system: System):
        """The merge pass of detection, then the diagnosis."""
        from ..detect import finish

        finish(source, system)
        from ..doctor import diagnose
        from ..plan.outline import attach

        diag = diagnose(system, self.error_text)
        attach(system, diag)  # each way's "what it does": the steps of the plan it would make
        return diag

    # the ways of one's own (not from the diagnosis) ---------------------------------------------
    def clean_root(self) -> Optional[str]:
        """The file tree the clean list is read from: this machine ("/"); None for a snapshot (its
        ROCm trees only)."""
        return None if self.snapshot else "/"

    def clean_items(self, system: System, sizes: bool = True) -> List[Any]:
        """What ``--path clean`` would offer here (plan/clean.py), the sizes counted when asked."""
        from ..plan import clean
        from ..plan.build import Choices, _user

        root = self.clean_root()
        if root is None:
            return clean.rocm_trees(system, None)
        try:
            user = _user(system, Choices(path="clean"))
        except Exception:
            user = ""
        held: List[Any] = []
        items = clean.candidates(system, user or None, root, sizes=sizes, apparent=root != "/", held=held)
        self._clean_held = held
        return items

    def clean_held_cached(self) -> List[Any]:
        """(item, why) of what the clean list does not offer because it is in use (a running program,
        a unit or a shell start-up file naming it): the checklist shows them, not tickable."""
        return list(getattr(self, "_clean_held", []) or [])

    def sizes_later(self) -> bool:
        """Whether the clean checklist counts its sizes in the background (this machine's disk)."""
        return self.clean_root() == "/"

    def sizes_pending(self) -> bool:
        return any(i.size is None and i.kind != "package-leftover" for i in self.clean_items_cached()) \
            and self.clean_root() is not None

    def count_sizes(self) -> None:
        """Count the sizes of the cached clean list (from a worker thread)."""
        from ..plan import clean

        root = self.clean_root()
        for it in self.clean_items_cached():
            if it.size is None and it.kind != "package-leftover" and root is not None:
                it.size, it.exact = clean.size_of(clean._p(root, it.path), apparent=root != "/")

    def clean_items_cached(self) -> List[Any]:
        """The clean list the options form was built from (its sizes make the checklist's total)."""
        return list(getattr(self, "_clean_list", []) or [])

    def extra_ways(self, system: System) -> List[Any]:
        """The guard and clean-up ways, as the ways screen lists them beside the diagnosis' ones:
        each applies where there is something to do."""
        from types import SimpleNamespace as W

        venvs = fieldmod.guard_venvs(system)
        guard = W(path="guard", rank=None, target={"venv": venvs[0][0]} if venvs else {}, applies=bool(venvs),
                  why=("pin the ROCm torch of " + ", ".join(v for v, _ in venvs) + " so that a later pip or uv "
                       "install cannot swap it for a CUDA or CPU build") if venvs else
                  "no venv with a ROCm torch that is not guarded yet",
                  steps=["write the guard file (torch, torchvision, torchaudio, Triton, rocm wheels as installed)",
                         "name it in the venv's pip.conf; UV_CONSTRAINT in bin/activate and rocm-wizard.env"])
        try:
            items = self.clean_items(system, sizes=False)
        except Exception as exc:  # the list is read from the disk: say why it is missing
            items, err = [], f"the list could not be read ({type(exc).__name__}: {exc})"
        else:
            err = "nothing to clean: no old ROCm tree, left-behind venv, cache or stale apt file was found"
        clean = W(path="clean", rank=None, target={"items": len(items)}, applies=bool(items),
                  why=(f"{len(items)} things can go (old ROCm trees, left-behind venvs, caches, stale apt files): "
                       "pick them from a list with their sizes; nothing is removed unless picked") if items else err,
                  steps=["remove only what you tick, each checked again at run time (never the ROCm or the venv "
                         "in use, never a packaged file)"])
        return [guard, clean]

    # options and plan --------------------------------------------------------------------------
    def fields(self, system: System, diagnosis, path: str) -> List[fieldmod.Field]:
        if path == "guard":
            return fieldmod.guard_fields(system)
        if path == "clean":
            # on this machine the sizes are counted after the form is shown (sizes_pending, count_sizes):
            # a cache of many files takes seconds to walk
            self._clean_list = self.clean_items(system, sizes=not self.sizes_later())
            return fieldmod.clean_fields(self._clean_list, counting=self.sizes_pending(),
                                         held=self.clean_held_cached())
        rec = diagnosis.recommendation(path) if diagnosis is not None else None
        users = fieldmod.described_users(system) if (self.snapshot or self.demo) else fieldmod.live_users
        return fieldmod.fields_for(path, system, getattr(rec, "target", None), users)

    def catalog_date(self) -> str:
        """The date of the catalog's knowledge the offered versions come from (``doctor --json``'s
        ``catalog``): the bundled date, or the overlay's when ``catalog refresh`` wrote a newer one."""
        from ..catalog import overlay

        try:
            k = overlay.knowledge()
        except Exception:  # packaged data; the options still work without the line
            return "The catalog's date of knowledge could not be read."
        where = ("its overlay from 'catalog refresh'" if k["overlay"] == k["knowledge_date"]
                 else "the catalog bundled with rocm-wizard")
        return (f"Versions known as of {k['knowledge_date']} ({where})"
                + ("; that is old: run 'rocm-wizard catalog refresh'" if k["stale"] else "") + ".")

    def choices(self, path: str, values: Dict[str, Any]):
        """The plan engine's Choices for the form's values."""
        from ..plan.build import Choices

        return Choices(**_choice_kwargs(path, values))

    def build_plan(self, system: System, path: str, values: Dict[str, Any]):
        """Raises ValueError with the plan engine's message when the choices cannot work."""
        from ..plan.build import PlanError, build_plan

        try:
            return build_plan(system, self.choices(path, values))
        except PlanError as exc:
            raise ValueError(exc.message) from None

    def confirmations(self, plan) -> List[Dict[str, str]]:
        """The plan's open yes/no questions (``Plan.confirmations``: ``step``, ``key`` -- the
        Choices field a yes sets --, ``flag``, ``question``), asked before it runs, once per key (one
        answer covers every step it is for); none when this core's plans have none."""
        ask = getattr(plan, "confirmations", None)
        out: Dict[str, Dict[str, str]] = {}
        for q in (ask() if callable(ask) else []):
            out.setdefault(q["key"], q)
        return list(out.values())

    def context(self):
        from ..plan.context import Context

        if self.snapshot or self.demo:
            return Context.snapshot()
        return Context()

    def evaluate(self, plan, system: System) -> List[Any]:
        from ..plan.core import evaluate

        return evaluate(plan, self.context(), system)

    def render(self, plan, fmt: str, reports=None) -> str:
        from .. import plan as planmod

        if fmt == "shell":
            return planmod.render_shell(plan)
        if fmt == "ansible":
            return planmod.render_ansible(plan)
        if fmt == "json":
            return planmod.render_json(plan, reports)
        raise ValueError(f"unknown format {fmt!r}")

    def answers_text(self, plan) -> str:
        """The answers file of ``plan`` in the executor's format (TOML): ``rocm-wizard --yes
        --answers FILE`` replays the same choices unattended."""
        from ..execute import answers

        return answers.dumps(answers.from_plan_inputs(plan.inputs), comment=f"from the wizard: {plan.title}")

    # execution ---------------------------------------------------------------------------------
    def state_dir(self) -> str:
        """Where the wizard keeps its answers files: the executor's log root."""
        if self._state_dir is None:
            from ..execute import paths

            self._state_dir = paths.log_root()
        return self._state_dir

    def write_answers(self, plan, directory: Optional[str] = None) -> str:
        """Write the answers file atomically (mode 0600: URLs may carry credentials); its path."""
        directory = directory or self.state_dir()
        target = os.path.join(directory, "answers-%s-%s.toml" % (time.strftime("%Y%m%d-%H%M%S"), plan.plan_id))
        write_atomic(target, self.answers_text(plan), 0o600)
        return target

    def execute(self, plan, system: System, emit: Callable[[StepEvent], None], control: Control,
                reports=None) -> ExecOutcome:
        """Run the plan for real: ``rocm-wizard --yes`` on the plan's answers as a child process,
        followed through its run directory (see :mod:`.execution`)."""
        if self.snapshot:
            raise Unavailable("this plan is for a snapshot of another machine: save the script (s) and run it there")
        answers_path = self.write_answers(plan)
        outcome = ChildRun(plan, answers_path, emit, control).run()
        outcome.answers_path = answers_path
        return outcome

    def can_skip(self, plan, step, changed: Sequence[str] = ()) -> "tuple[bool, str]":
        """Whether the run can go on without the failed ``step``, and if not, why.  ``changed``:
        the steps that changed something so far in this run."""
        from ..execute.engine import RESTORABLE_KINDS

        kinds = {s.kind for s in plan.steps if s.id in set(changed)}
        if kinds <= RESTORABLE_KINDS:
            return False, ("after this failure the executor puts the changed files back as they were: retry "
                           "starts the run again")
        return skippable(step)

    # verification ------------------------------------------------------------------------------
    def verify_target(self, plan, system: Optional[System] = None) -> Dict[str, Any]:
        """What the smoke test runs against after ``plan`` (:func:`rocm_wizard.plan.after.target`)."""
        from ..plan import after

        return after.target(plan, system)

    def verify_waits(self, plan, outcome) -> Optional[str]:
        """Why the smoke test must wait after ``outcome`` (the reboot a new kernel driver needs, as
        ``--yes`` decides), or None: it can run now."""
        from ..plan import after

        return after.REBOOT_WHY if getattr(outcome, "reboot", False) else None

    def next_steps(self, plan, outcome, system: Optional[System] = None) -> List[str]:
        """The exact command lines to run after the run (after the reboot when one is needed)."""
        from ..plan import after

        if getattr(outcome, "status", None) != "done":
            return []
        return after.next_steps(plan, bool(getattr(outcome, "reboot", False)), system)

    def verify(self, plan, system: System, on_progress: Callable[[str], None]):
        from .. import verify

        return verify.run_verify(on_progress=on_progress, **self.verify_target(plan, system))


def _choice_kwargs(path: str, values: Dict[str, Any]) -> Dict[str, Any]:
    """Form values (named after the plan engine's Choices fields) -> Choices keyword arguments."""
    kw: Dict[str, Any] = {"path": path}
    for name, value in values.items():
        if name == "env":
            kw["env"] = fieldmod.env_dict(value or "")
        elif isinstance(value, bool):
            kw[name] = value
        elif isinstance(value, (list, tuple)):
            kw[name] = [str(v) for v in value]
        elif value is None or str(value).strip() == "":
            continue
        else:
            kw[name] = str(value).strip()
    return kw


def write_atomic(path: str, text: str, mode: int = 0o644) -> None:
    """Write ``text`` whole or not at all (the executor's atomic write: temporary file + rename)."""
    from ..execute.fsutil import write_atomic as write_bytes

    write_bytes(path, text.encode("utf-8"), mode)


def make_core(args) -> Core:
    """The core for the command line ``args`` (``--demo`` gives the demo core)."""
    if getattr(args, "demo", False):
        from ..demo import DemoCore

        return DemoCore()
    snapshot = getattr(args, "snapshot", None)
    venvs = getattr(args, "venv", None) or ()
    if isinstance(venvs, str):
        venvs = [venvs]
    error_text = None
    err_file = getattr(args, "error_file", None) or getattr(args, "error", None)
    if err_file and os.path.isfile(str(err_file)):
        try:
            with open(str(err_file), encoding="utf-8", errors="replace") as fh:
                error_text = fh.read(1024 * 1024)
        except OSError:
            error_text = None
    return Core(snapshot=snapshot, venvs=venvs, error_text=error_text)
