"""6. Execute: per-step progress, the live log and the elapsed time.  The executor runs in a thread
worker and posts its events; cancel asks first and stops at the next safe point (between steps);
a failed step shows its error and the choices retry / skip (where safe) / stop."""
from __future__ import annotations

from typing import Iterable, List

from textual import on, work
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import ProgressBar, RichLog, Static

from ...termsafe import clean, clean_line
from ..execution import OUTPUT, PLAN_END, PLAN_START, STEP_END, STEP_START, Control, ExecOutcome
from ..messages import ExecEvent, ExecFinished
from ..text import elapsed
from ..widgets.steps import StepProgress
from .base import WizardScreen


class ExecuteScreen(WizardScreen):
    STEP = 6
    NAME = "Run"
    BACK = False
    HELP = ("The plan runs step by step; the list shows each step's state and the log below shows "
            "its output as it comes. c cancels: after you confirm, the run stops once the current "
            "step has finished (never in the middle of one). If a step fails you can retry it, skip "
            "it when that is safe, or stop. When the run is over, n goes on to the GPU smoke test.")

    BINDINGS = [Binding("c", "cancel", "Cancel run"), Binding("n", "next", "Next")]

    def __init__(self, plan, reports: List) -> None:
        super().__init__()
        self.plan = plan
        self.reports = reports
        self.control = Control()
        self.started = 0.0
        self.finished_at = None
        self.outcome = None
        self.current = None
        self.cancel_requested = False
        self.log_lines: List[str] = []

    def body(self) -> Iterable:
        steps = [(s.id, s.title) for s in self.plan.steps]
        with Horizontal(id="exec-status"):
            yield ProgressBar(total=max(1, len(steps)), show_eta=False, id="exec-progress")
            yield Static("0:00", id="elapsed")
        yield Static("Starting…", id="exec-head", markup=False)
        yield StepProgress(steps, id="exec-steps")
        yield RichLog(id="exec-log", wrap=True, max_lines=5000, markup=False, highlight=False)

    def on_mount(self) -> None:
        self.started = self.wizard.clock()
        self.set_interval(0.1, self._tick, pause=not self.wizard.animate)
        self.set_interval(1.0, self._clock)
        self.run_plan()

    def on_unmount(self) -> None:
        # leaving the app (or the screen) must never leave the executor thread waiting for an answer
        if self.running:
            self.control.cancel()

    def _tick(self) -> None:
        self.query_one(StepProgress).advance()

    def _clock(self) -> None:
        end = self.finished_at or self.wizard.clock()
        self.query_one("#elapsed", Static).update(elapsed(end - self.started))

    @property
    def running(self) -> bool:
        return self.outcome is None

    @work(thread=True, exclusive=True, group="execute", exit_on_error=False)
    def run_plan(self) -> None:
        try:
            outcome = self.wizard.core.execute(self.plan, self.wizard.system, lambda e: self.post_message(ExecEvent(e)),
                                               self.control, reports=self.reports)
        except Exception as exc:
            outcome = ExecOutcome(status="failed", error=f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc))
        self.post_message(ExecFinished(outcome))

    def _log(self, text: str) -> None:
        text = clean(text)  # a step's output: apt, pip, a hook; no terminal sequences reach the screen
        self.log_lines.append(text)
        self.query_one(RichLog).write(text)

    @on(ExecEvent)
    def _event(self, msg: ExecEvent) -> None:
        e = msg.event
        steps = self.query_one(StepProgress)
        head = self.query_one("#exec-head", Static)
        if e.kind == PLAN_START:
            self._log(f"# {e.title or 'plan'}: {e.total} steps" + ("  (simulated)" if self.wizard.core.simulated else ""))
        elif e.kind == STEP_START:  # the executor's own log lines say it; the list shows it
            self.current = e.step
            steps.set_state(e.step, "running")
            head.update(f"Step {e.index}/{e.total}: {clean_line(e.title)}")
        elif e.kind == OUTPUT:
            self._log(e.line)
        elif e.kind == STEP_END:
            steps.set_state(e.step, e.status)
            done = steps.count("ok", "changed", "skipped", "failed")
            self.query_one(ProgressBar).update(progress=done)
            if e.status == "failed":
                self._ask_failure(e)
        elif e.kind == PLAN_END:
            self._log(f"# finished: {e.status}" + (f" ({e.detail})" if e.detail else ""))

    def _ask_failure(self, e) -> None:
        from ..widgets.modals import FailureModal

        step = next((s for s in self.plan.steps if s.id == e.step), None)
        changed = [sid for sid, st in self.query_one(StepProgress).states.items() if st == "changed"]
        can_skip, why = self.wizard.core.can_skip(self.plan, step, changed)
        if self.cancel_requested:
            self.control.answer("stop")
            return
        self.app.push_screen(FailureModal(e.title, e.detail, can_skip, why), self.control.answer)

    @on(ExecFinished)
    def _finished(self, msg: ExecFinished) -> None:
        self.outcome = msg.outcome
        self.finished_at = self.wizard.clock()
        self._clock()
        self.wizard.outcome = msg.outcome
        st = msg.outcome.status
        steps = self.query_one(StepProgress)
        if st == "cancelled":
            for sid, s in steps.states.items():
                if s == "pending":
                    steps.set_state(sid, "cancelled")
        waits = self.wizard.core.verify_waits(self.plan, msg.outcome) if st == "done" else None
        text = {"done": (f"Finished. The GPU smoke test waits: {waits}. Press n for the summary." if waits else
                         "Finished. Press n for the GPU smoke test."),
                "failed": f"Stopped: {msg.outcome.error or 'a step failed'}. Press n for the summary.",
                "cancelled": "Cancelled at a safe point. Press n for the summary."}.get(st, st)
        if msg.outcome.simulated:
            text = "(simulated) " + text
        self.query_one("#exec-head", Static).update(text)
        self.refresh_bindings()

    def check_action(self, action: str, parameters):
        if action == "cancel":
            return True if self.running else False
        if action == "next":
            return False if self.running else True
        if action == "back":
            return False
        return super().check_action(action, parameters)

    def action_cancel(self) -> None:
        if not self.running or self.cancel_requested:
            return
        from ..widgets.modals import ConfirmModal

        self.app.push_screen(ConfirmModal("Cancel the run?", "Stop after this step", "Keep running",
                                          note="The current step is allowed to finish; nothing is left half-done."),
                             self._cancel_confirmed)

    def _cancel_confirmed(self, yes) -> None:
        if yes and self.running:
            self.cancel_requested = True
            self.control.cancel()
            self.query_one("#exec-head", Static).update("Cancelling: stopping after the current step…")

    def action_next(self) -> None:
        if self.running:
            return
        if self.outcome.status == "done" and not self.wizard.core.verify_waits(self.plan, self.outcome):
            from .verify import VerifyScreen

            self.app.push_screen(VerifyScreen())
        else:
            from .done import DoneScreen

            self.app.push_screen(DoneScreen())
