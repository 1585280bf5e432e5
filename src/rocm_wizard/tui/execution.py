"""Execution as the screens see it, built on the executor's own event stream.

The executor (``rocm_wizard.execute``) records a run in its run directory: ``events.jsonl``
(``step-start`` / ``step-end`` / ``command`` / ``run-start`` / ``run-end`` records) and ``run.log``
(what it says and what its commands print).  :func:`translate` turns those records into the
:class:`StepEvent` the execute screen draws, for the real executor and for the demo's simulated
one alike, so the screen code is shared.

:class:`ChildRun` runs the real thing: ``rocm-wizard --yes --answers FILE --no-verify`` as a child
process in its own session (a Ctrl-C in the terminal never reaches dpkg), follows its run directory,
stops it at a safe point on cancel (SIGTERM: the running step finishes first), and after a failure
retries (``rocm-wizard resume``), skips the failed step (marked skipped in the journal, then
resume), or stops.  Root, sudo, the dpkg lock and audit, the journal, backups and logs stay the
executor's business.

No Textual here.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Optional

PLAN_START, STEP_START, OUTPUT, STEP_END, PLAN_END = "plan-start", "step-start", "output", "step-end", "plan-end"


@dataclass
class StepEvent:
    kind: str  # plan-start | step-start | output | step-end | plan-end
    step: Optional[str] = None  # step id
    index: int = 0  # 1-based
    total: int = 0
    title: str = ""
    status: str = ""  # step-end: ok | changed | failed | skipped; plan-end: done | failed | cancelled
    line: str = ""  # output
    detail: str = ""
    at: float = field(default_factory=time.monotonic)


@dataclass
class ExecOutcome:
    status: str  # done | failed | cancelled
    results: Dict[str, str] = field(default_factory=dict)  # step id -> ok | changed | failed | skipped
    log_path: Optional[str] = None
    run_dir: Optional[str] = None
    reboot: bool = False
    error: Optional[str] = None
    simulated: bool = False
    restored: bool = False  # a failed run whose file changes the executor put back
    answers_path: Optional[str] = None  # the answers file the run was made from


class Control:
    """Shared between the screen and the executor thread: cancel at a safe point, and the user's
    answer when a step fails (``retry`` | ``skip`` | ``stop``)."""

    def __init__(self) -> None:
        self._cancel = threading.Event()
        self._answer: Optional[str] = None
        self._answered = threading.Event()

    def cancel(self) -> None:
        self._cancel.set()
        self.answer("stop")

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def answer(self, choice: str) -> None:
        self._answer = choice
        self._answered.set()

    def wait_answer(self, timeout: Optional[float] = None) -> str:
        """Block the executor thread until the screen answers (``stop`` when cancelled)."""
        self._answered.wait(timeout)
        choice = self._answer or "stop"
        self._answer = None
        self._answered.clear()
        return "stop" if self.cancelled else choice


class Steps:
    """Index and title of a plan's steps, for translating records that name only the step id."""

    def __init__(self, plan) -> None:
        self.total = len(plan.steps)
        self.index = {s.id: s.index for s in plan.steps}
        self.title = {s.id: s.title for s in plan.steps}


def translate(rec: Dict[str, Any], steps: Steps) -> Optional[StepEvent]:
    """One record of the executor's ``events.jsonl`` as a screen event (None: nothing to show)."""
    if not isinstance(rec, dict):
        return None
    kind = rec.get("event")
    sid = rec.get("step") if isinstance(rec.get("step"), str) else None
    idx, total = steps.index.get(sid or "", 0), steps.total
    if kind in ("run-start", "run-resume"):
        return StepEvent(PLAN_START, total=total, title=str(rec.get("path") or ""),
                         detail="resumed" if kind == "run-resume" else "")
    if kind == "step-start" and sid:
        return StepEvent(STEP_START, sid, idx, total, str(rec.get("title") or steps.title.get(sid, sid)))
    if kind == "step-end" and sid:
        return StepEvent(STEP_END, sid, idx, total, steps.title.get(sid, sid), str(rec.get("status") or ""),
                         detail=str(rec.get("detail") or ""))
    if kind == "command":
        argv = rec.get("argv") if isinstance(rec.get("argv"), list) else []
        rc = rec.get("rc")
        line = "$ " + " ".join(str(a) for a in argv)
        line += f"   (exit {rc}, {rec.get('duration', 0)}s)" if rc is not None else f"   ({rec.get('error', 'error')})"
        return StepEvent(OUTPUT, sid, idx, total, line=line)
    if kind == "run-end":
        code = rec.get("exit")
        status = {0: "done", 130: "cancelled"}.get(code, "failed") if isinstance(code, int) else "failed"
        return StepEvent(PLAN_END, total=total, status=status, detail=str(rec.get("state") or ""))
    return None


def log_line(text: str) -> str:
    """A run.log line without its timestamp (``2025-01-02 10:11:12.345 ``)."""
    if len(text) > 24 and text[4] == "-" and text[10] == " " and text[13] == ":" and text[23] == " ":
        return text[24:]
    return text


class _Tail:
    """New complete lines of a growing file."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.pos = 0
        self.rest = ""

    def lines(self) -> List[str]:
        try:
            with open(self.path, "r", encoding="utf-8", errors="replace") as fh:
                fh.seek(self.pos)
                data = fh.read()
                self.pos = fh.tell()
        except OSError:
            return []
        data = self.rest + data
        parts = data.split("\n")
        self.rest = parts.pop()
        return parts


class ChildRun:
    """The real executor as a child process, followed through its run directory."""

    POLL = 0.1

    def __init__(self, plan, answers_path: str, emit: Callable[[StepEvent], None], control: Control,
                 python: str = sys.executable, env: Optional[Dict[str, str]] = None,
                 log_root: Optional[str] = None) -> None:
        from ..execute import paths

        self.plan = plan
        self.steps = Steps(plan)
        self.answers_path = answers_path
        self.emit = emit
        self.control = control
        self.python = python
        self.log_root = log_root or paths.log_root()
        self.env = dict(os.environ if env is None else env)
        self.env["ROCM_WIZARD_LOG_DIR"] = self.log_root
        self.run_id: Optional[str] = None
        self.run_dir: Optional[str] = None
        self.console: List[str] = []

    # -- one child -----------------------------------------------------------------------------
    def _argv(self, resume: bool) -> List[str]:
        base = [self.python, "-m", "rocm_wizard"]
        if resume:
            return base + ["resume", self.run_id or "latest", "--no-verify"]
        return base + ["--yes", "--answers", self.answers_path, "--no-verify"]

    def _follow(self, argv: List[str]) -> int:
        from ..execute import paths

        env = dict(self.env)
        if self.run_id is None:
            self.run_id = paths.new_run_id()
        env["ROCM_WIZARD_RUN_ID"] = self.run_id
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    env=env, start_new_session=True, text=True, errors="replace")
        except OSError as exc:
            self.console.append(f"cannot start {argv[0]}: {exc.strerror or exc}")
            return 1
        out_lines: List[str] = []
        reader = threading.Thread(target=lambda: out_lines.extend(proc.stdout), daemon=True)  # type: ignore[arg-type]
        reader.start()
        events = log = None
        signalled = False
        while True:
            done = proc.poll() is not None
            if self.run_dir is None:
                self.run_dir = self._find_run_dir()
            if self.run_dir is not None and events is None:
                events = _Tail(os.path.join(self.run_dir, "events.jsonl"))
                log = _Tail(os.path.join(self.run_dir, "run.log"))
            if events is not None:
                for raw in events.lines():
                    try:
                        ev = translate(json.loads(raw), self.steps)
                    except ValueError:
                        ev = None
                    if ev is not None and ev.kind != PLAN_END:
                        self.emit(ev)
                for raw in log.lines():  # type: ignore[union-attr]
                    text = log_line(raw)
                    if text.strip() and not text.startswith("command "):
                        self.emit(StepEvent(OUTPUT, None, 0, self.steps.total, line=text))
            if self.control.cancelled and not signalled and not done:
                signalled = True
                try:
                    os.kill(proc.pid, signal.SIGTERM)  # the executor stops after the running step
                except OSError:
                    pass
            if done:
                break
            time.sleep(self.POLL)
        reader.join(timeout=2)
        self.console.extend(ln.rstrip("\n") for ln in out_lines)
        return proc.returncode if proc.returncode is not None else 1

    def _find_run_dir(self) -> Optional[str]:
        """The run's directory: the preset run id, or (after a sudo re-exec that dropped it) the
        newest run that started after us."""
        from ..execute import paths

        d = paths.run_dir(self.run_id or "", self.log_root) if self.run_id else None
        if d and os.path.isfile(os.path.join(d, "journal.json")):
            return d
        return None

    def _journal(self):
        from ..execute.journal import Journal, JournalError

        if self.run_dir is None:
            return None
        try:
            return Journal.load(os.path.join(self.run_dir, "journal.json"))
        except (JournalError, OSError, ValueError):
            return None

    # -- the whole run, with the user's decisions ------------------------------------------------
    def run(self) -> ExecOutcome:
        self.emit(StepEvent(PLAN_START, total=self.steps.total, title=getattr(self.plan, "title", "")))
        code = self._follow(self._argv(resume=False))
        outcome = ExecOutcome(status="done")
        while True:
            journal = self._journal()
            outcome = self._outcome(code, journal)
            if outcome.status != "failed" or journal is None or self.control.cancelled:
                break
            failed = next((s for s in journal.steps if s.get("status") == "failed"), None)
            if failed is None:
                break
            choice = self.control.wait_answer()
            if choice == "retry":
                if outcome.restored:  # the executor put everything back: start over
                    self.run_id = self.run_dir = None
                    code = self._follow(self._argv(resume=False))
                else:
                    code = self._follow(self._argv(resume=True))
                continue
            if choice == "skip" and not outcome.restored:
                from ..execute import journal as jr

                failed["status"] = jr.SKIPPED
                failed["detail"] = (failed.get("detail") or "") + " (skipped by the user)"
                journal.save()
                self.emit(StepEvent(STEP_END, failed["id"], self.steps.index.get(failed["id"], 0), self.steps.total,
                                    self.steps.title.get(failed["id"], failed["id"]), "skipped",
                                    detail="skipped by the user"))
                code = self._follow(self._argv(resume=True))
                continue
            break
        if self.run_dir is None:  # refused before a run began: its messages are all there is to show
            for line in self.console:
                if line.strip():
                    self.emit(StepEvent(OUTPUT, None, 0, self.steps.total, line=line))
        if outcome.status == "failed" and outcome.error is None:
            tail = [ln for ln in self.console if ln.strip()][-6:]
            outcome.error = "\n".join(tail) or f"the run ended with exit status {code}"
        self.emit(StepEvent(PLAN_END, total=self.steps.total, status=outcome.status, detail=outcome.error or ""))
        return outcome

    def _outcome(self, code: int, journal) -> ExecOutcome:
        from ..execute import journal as jr
        from ..plan import after

        status = "done" if code == 0 else "cancelled" if code == 130 else "failed"
        out = ExecOutcome(status=status, run_dir=self.run_dir)
        if self.run_dir:
            out.log_path = os.path.join(self.run_dir, "run.log")
        if journal is not None:
            out.results = {s["id"]: s.get("status", "pending") for s in journal.steps
                           if s.get("status") in (jr.OK, jr.CHANGED, jr.FAILED, jr.SKIPPED)}
            out.reboot = after.rebooting(self.plan, journal.changed)
            out.restored = journal.state == jr.RUN_RESTORED
            if status == "failed":
                failed = next((s for s in journal.steps if s.get("status") == jr.FAILED), None)
                out.error = journal.data.get("message") or (failed or {}).get("detail") or None
        return out


def records_of(lines: Iterable[str]) -> List[Dict[str, Any]]:
    out = []
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out
