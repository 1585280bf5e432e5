"""``rocm-wizard --demo``: the whole wizard on a bundled system (the seed scenario: RX 7900 XT,
Ubuntu 22.04, ROCm 6.2 and its kernel driver, torch 2.11.0+rocm7.2 in a venv -- outside the driver's
window -- failing with HIPBLAS_STATUS_ALLOC_FAILED).

Detection reads the bundle in ``system/`` through the normal snapshot path; diagnosis and the plan
are the real ones; only execution and the smoke test are simulated (:mod:`.simulate`), so the demo
changes nothing on the machine it runs on.  See ``README.md`` in this directory for what the bundle
holds and which values were adapted.
"""
from __future__ import annotations

import os
import tempfile
import time
from typing import Any, Callable, Dict, Optional

from ..tui.core import Control, Core, ExecOutcome

SYSTEM_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "system")
SPEED_ENV = "ROCM_WIZARD_DEMO_SPEED"  # multiplies the simulated pauses (0 = instant)


def bundle_path() -> str:
    """The demo system's snapshot bundle (a directory inside the package)."""
    return SYSTEM_DIR


def _speed(environ: Optional[Dict[str, str]] = None) -> float:
    text = (os.environ if environ is None else environ).get(SPEED_ENV, "")
    try:
        value = float(text) if text else 1.0
    except ValueError:
        return 1.0
    return value if value >= 0 else 1.0


class DemoCore(Core):
    """The real core on the demo bundle, with a simulated executor and smoke test."""

    demo = True
    simulated = True

    def __init__(self, speed: Optional[float] = None, fail: Optional[Dict[str, int]] = None,
                 state_dir: Optional[str] = None, sleep: Callable[[float], None] = time.sleep) -> None:
        super().__init__(snapshot=SYSTEM_DIR)
        from .simulate import failures_from_env

        self.speed = _speed() if speed is None else speed
        self.fail = failures_from_env() if fail is None else dict(fail)
        self._state_dir = state_dir
        self._own_dir: Optional[str] = None  # the temporary directory state_dir() made, if any
        self.sleep = sleep  # the simulated executor's pauses (a test holds a step with it)

    def state_dir(self) -> str:
        # the demo writes nothing outside a temporary directory of its own, removed by cleanup()
        if self._state_dir is None:
            self._state_dir = self._own_dir = tempfile.mkdtemp(prefix="rocm-wizard-demo-")
        return self._state_dir

    def cleanup(self) -> None:
        """Remove the temporary directory the demo made (never one it was given)."""
        import shutil

        own, self._own_dir = self._own_dir, None
        if own is not None:
            shutil.rmtree(own, ignore_errors=True)
            if self._state_dir == own:
                self._state_dir = None

    def clean_root(self) -> str:
        """The demo machine's disk for the clean list (host_state.toml, written into the demo's
        own temporary directory)."""
        from .host_state import materialize

        return materialize(os.path.join(self.state_dir(), "host-state"))

    def build_plan(self, system, path, values):
        if path == "clean":
            system.clean_root = self.clean_root()  # plan/build.py reads the clean list from it
        return super().build_plan(system, path, values)

    def write_answers(self, plan, directory=None) -> str:
        from ..tui.core import write_atomic

        target = os.path.join(directory or self.state_dir(), "answers.toml")
        write_atomic(target, self.answers_text(plan), 0o600)
        return target

    def can_skip(self, plan, step, changed=()):
        from ..tui.core import skippable

        return skippable(step)

    def execute(self, plan, system, emit: Callable[[Any], None], control: Control, reports=None) -> ExecOutcome:
        """The simulated run, recorded like a real one (``run/events.jsonl``, ``run/run.log`` in
        the demo's own temporary directory) and shown through the same translation."""
        import json
        import time as _time

        from ..plan import after
        from ..tui.execution import OUTPUT, PLAN_START, StepEvent, Steps, translate
        from .simulate import SimulatedExecutor

        steps = Steps(plan)
        run_dir = os.path.join(self.state_dir(), "run")
        os.makedirs(run_dir, exist_ok=True)
        results: Dict[str, str] = {}
        with open(os.path.join(run_dir, "events.jsonl"), "w", encoding="utf-8") as ev, \
                open(os.path.join(run_dir, "run.log"), "w", encoding="utf-8") as log:

            def record(rec):
                rec = dict(rec, t=round(_time.time(), 3))
                ev.write(json.dumps(rec) + "\n")
                ev.flush()
                if rec.get("event") == "step-end":
                    results[rec["step"]] = rec["status"]
                out = translate(rec, steps)
                if out is not None and out.kind != PLAN_START:
                    emit(out)

            def say(line):
                log.write(line + "\n")
                log.flush()
                emit(StepEvent(OUTPUT, None, 0, steps.total, line=line))

            emit(StepEvent(PLAN_START, total=steps.total, title=plan.title))
            code = SimulatedExecutor(self.speed, self.fail, self.sleep).run(plan, reports or [], record, say,
                                                                            lambda _sid: control.wait_answer(),
                                                                            lambda: control.cancelled)
        status = {0: "done", 130: "cancelled"}.get(code, "failed")
        failed = next((sid for sid, st in results.items() if st == "failed"), None)
        outcome = ExecOutcome(status=status, results=results, simulated=True, run_dir=run_dir,
                              log_path=os.path.join(run_dir, "run.log"),
                              reboot=after.rebooting(plan, [sid for sid, st in results.items() if st == "changed"]),
                              error=f"step {failed} failed (simulated)" if status == "failed" and failed else None)
        outcome.answers_path = self.write_answers(plan)
        return outcome

    def verify(self, plan, system, on_progress: Callable[[str], None]):
        import time

        from ..verify import analyse
        from ..verify.report import Target
        from .simulate import smoke_document

        doc = smoke_document(plan, system)
        for c in doc["checks"]:
            where = "" if c["device"] is None else f"[{c['device']}]"
            on_progress(f"smoke: {c['name'] + where:<16} {c['status']:<4} {c['seconds']:6.2f}s  (simulated)")
            time.sleep(min(0.15, 0.15 * self.speed))
        t = self.verify_target(plan, system)
        target = Target(kind="docker" if t.get("docker_image") else "venv", venv=t.get("venv"),
                        image=t.get("docker_image"))
        return analyse(doc, target)
