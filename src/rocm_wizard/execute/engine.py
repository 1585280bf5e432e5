"""The step loop of a real run.

For every step, in order: wait for the package manager lock (apt steps), journal it as running,
apply it, journal its result, show it (``ok`` / ``changed`` / ``failed`` / ``skipped``).  A first
SIGINT/SIGTERM/SIGHUP lets the running step finish and stops after it (exit 130, resumable); the
children run in their own session, so a Ctrl-C never reaches dpkg.  A failure stops the run; when
nothing but configuration files had changed by then, they are put back as they were, so the system
is as before; otherwise the run stays resumable (``rocm-wizard resume``) or can be rolled back.

Every command a step starts is recorded in the journal (its process group and start time) before
it runs, so a ``resume`` after a SIGKILL of this process finds it if it is still running.  When
the run's directory cannot be written (disk full, I/O error) the run stops at the next step
boundary, since going on without a journal would leave nothing to resume from: the journal is
marked interrupted (overwritten in place if no new copy fits) and the exit status is 1.
"""
from __future__ import annotations

import os
import signal
import threading
import time
import traceback
from typing import Any, Dict, List, Optional

from .. import exitcodes
from ..plan.context import StepError
from ..plan.core import CHANGED, FAILED, OK, Result
from . import journal as jr
from .context import ExecContext
from .fsutil import read_json, write_json
from .pkgdb import BEFORE_FILES, db_of, tool_of, versions as db_versions
from .preflight import wait_for_locks
from .rollback import package_changes, restore_files
from .runner import Runner

# a failure after only these steps changed something leaves nothing but files to put back
RESTORABLE_KINDS = {"apt-key", "apt-sources", "apt-pin", "apt-update", "file", "reboot-flag"}
ROOT_KINDS = {"apt-key", "apt-sources", "apt-pin", "apt-update", "apt-install", "apt-remove", "alternative", "command",
              "reboot-flag"}
# issue 26: rpm's database, dnf and zypper need root
ROOT_KINDS |= {"rpm-key", "dnf-install", "zypper-key", "zypper-repos", "zypper-refresh", "zypper-install"}
STATUS_WORDS = {OK: "ok", CHANGED: "changed", FAILED: "failed", jr.SKIPPED: "skipped"}

# Fault injection for the crash tests: ROCM_WIZARD_FAULT=kill-after:<step id> (or kill-before:)
# makes the run SIGKILL itself at that step boundary, exactly as a power cut or `kill -9` would.
FAULT_ENV = "ROCM_WIZARD_FAULT"


def _fault_point(where: str, step_id: str) -> None:
    want = os.environ.get(FAULT_ENV, "")
    if want and want == f"{where}:{step_id}":
        os.kill(os.getpid(), signal.SIGKILL)


def state_write_failed(journal: "jr.Journal", log, exc: OSError) -> int:
    """The run's directory cannot be written (disk full, I/O error): say so plainly, leave a journal
    that does not say "running" (overwritten in place when no new copy fits), exit 1."""
    run_dir = os.path.dirname(journal.path)
    msg = (f"cannot write the run's log and journal in {run_dir} ({exc.strerror or exc}); stopped at a step "
           f"boundary. Free space there (or repair the disk), then continue with: rocm-wizard resume {journal.run_id}")
    journal.data.update(state=jr.RUN_INTERRUPTED, message=msg, finished=time.time())
    try:
        journal.save()
    except OSError:
        try:
            journal.save_in_place()
        except OSError:
            msg += " (the journal could not be updated either: it may still say running)"
    log.show(f"rocm-wizard: {msg}")
    return exitcodes.ERROR


class Executor:
    def __init__(self, plan, journal: "jr.Journal", log, *, root: str = "/", lock_timeout: float = 600.0,
                 env: Optional[Dict[str, str]] = None, heartbeat: float = 30.0) -> None:
        self.plan = plan
        self.journal = journal
        self.log = log
        self.root = root
        self.lock_timeout = lock_timeout
        self.stop_requested: Optional[str] = None
        self.runner = Runner(log, heartbeat=heartbeat, on_start=self._child_started)
        self.ctx = ExecContext(root=root, runner=self.runner, env=env, log=lambda _m: None,
                               backup_dir=journal.data["backup_dir"], run_id=journal.run_id, journal=journal)
        self.ctx.changed = set(journal.changed)
        self.counts: Dict[str, int] = {OK: 0, CHANGED: 0, FAILED: 0, jr.SKIPPED: 0}
        self.failed_step: Optional[str] = None
        self.failure: str = ""

    def _child_started(self, proc) -> None:
        from .redact import redact_argv

        argv = proc.args if isinstance(proc.args, (list, tuple)) else [str(proc.args)]
        try:
            self.journal.add_child(proc.pid, self.ctx.current_step, redact_argv([str(a) for a in argv]))
        except OSError as exc:  # the command is running: let it finish, stop at the step's end
            self.log.failure = self.log.failure or exc

    # ------------------------------------------------------------------ signals
    def _on_signal(self, signum, _frame) -> None:
        name = signal.Signals(signum).name
        first = self.stop_requested is None
        self.stop_requested = self.stop_requested or name
        self.log.event("signal", signal=name)
        if first:
            self.log.say(f"rocm-wizard: {name} received: the running step finishes first (dpkg and pip must not be "
                         "cut off), then the run stops; continue later with: rocm-wizard resume")
        else:
            self.log.say(f"rocm-wizard: {name} again: still finishing the running step; the run stops right after it")

    def _install_signals(self) -> Dict[int, Any]:
        old: Dict[int, Any] = {}
        if threading.current_thread() is not threading.main_thread():
            return old
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            try:
                old[sig] = signal.signal(sig, self._on_signal)
            except (ValueError, OSError):
                pass
        return old

    @staticmethod
    def _restore_signals(old: Dict[int, Any]) -> None:
        for sig, handler in old.items():
            try:
                signal.signal(sig, handler)
            except (ValueError, OSError):
                pass

    # ------------------------------------------------------------------ the loop
    def run(self, resumed: bool = False) -> int:
        old = self._install_signals()
        try:
            return self._run(resumed)
        except OSError as exc:  # the journal (or dpkg-/rpm-before.json) could not be written
            return state_write_failed(self.journal, self.log, exc)
        finally:
            self._restore_signals(old)

    def _run(self, resumed: bool) -> int:
        start = time.monotonic()
        self._save_dpkg_before()
        total = len(self.plan.steps)
        for step in self.plan.steps:
            entry = self.journal.step(step.id)
            label = f"[{step.index}/{total}] {step.title}"
            if resumed and entry["status"] in jr.DONE_STATUSES:
                self.log.say(f"{label}\n        skipped: done before the interruption ({entry['status']})")
                self.counts[jr.SKIPPED] += 1
                continue
            if self.stop_requested or self.failed_step:
                break
            if self.log.failure is not None:
                raise self.log.failure
            self.log.say(label)
            result = self._apply(step)
            word = STATUS_WORDS.get(result.status, result.status)
            self.counts[result.status] = self.counts.get(result.status, 0) + 1
            self.log.say(f"        {word}: {result.detail}")
            if result.status == FAILED:
                self.failed_step = step.id
                self.failure = result.detail
        remaining = [s for s in self.plan.steps if self.journal.step(s.id)["status"] in (jr.PENDING,)]
        for s in remaining:
            if self.failed_step or self.stop_requested:
                self.journal.step(s.id)["status"] = jr.SKIPPED
                self.counts[jr.SKIPPED] += 1
        if remaining:
            self.journal.save()
        if self.log.failure is not None:
            raise self.log.failure
        return self._finish(time.monotonic() - start)

    def _apply(self, step) -> Result:
        _fault_point("kill-before", step.id)
        self.journal.begin_step(step.id)
        self.log.step = step.id
        self.ctx.current_step = step.id
        self.log.event("step-start", step=step.id, kind=step.kind, title=step.title)
        t0 = time.monotonic()
        result = None
        if step.kind.startswith("apt-"):
            why = wait_for_locks(self.log.say, self.lock_timeout, self.root, stop=lambda: bool(self.stop_requested))
            if why is not None:
                result = Result(FAILED, why)
        if result is None and step.kind == "user-groups" and self.ctx.euid != 0:
            result = self._groups_without_root(step)
        if result is None:
            try:
                result = step.apply(self.ctx)
            except StepError as exc:
                result = Result(FAILED, str(exc))
            except Exception as exc:  # a bug in a step must not leave the journal saying "running"
                self.log.write("internal error:\n" + traceback.format_exc())
                result = Result(FAILED, f"internal error in step {step.id}: {type(exc).__name__}: {exc}")
        if result.status == CHANGED:
            self.ctx.changed.add(step.id)
        status = {OK: jr.OK, CHANGED: jr.CHANGED, FAILED: jr.FAILED}.get(result.status, jr.SKIPPED)
        self.journal.end_step(step.id, status, result.detail)
        self.log.event("step-end", step=step.id, status=status, detail=result.detail,
                       duration=round(time.monotonic() - t0, 3))
        self.log.step = None
        self.ctx.current_step = None
        _fault_point("kill-after", step.id)
        if status == jr.SKIPPED:
            return Result(jr.SKIPPED, result.detail)
        return result

    def _groups_without_root(self, step) -> Optional[Result]:
        """Not root: adding a user to groups cannot be done here; say the exact command instead."""
        from ..plan.state import UNKNOWN as UNK, PlanState

        state = PlanState(self.ctx)
        try:
            check = step.check(state)
        except Exception:  # judged by apply() below
            return None
        if check.status == OK:
            return Result(OK, check.detail)
        user = self.ctx.invoking_user(step.params.get("user") or None) or ""
        have = state.groups_of(user) if user else UNK
        if have is UNK:
            return None
        missing = [g for g in step.params.get("groups", []) if g not in have and state.group_exists(g) is not False]
        if not missing:
            return Result(OK, f"{user} is in the groups that exist here")
        return Result(jr.SKIPPED, f"needs root: run  sudo usermod -a -G {','.join(missing)} {user}  "
                                  "then log out and in again")

    # ------------------------------------------------------------------ the end
    @property
    def package_db(self) -> str:
        """dpkg or rpm: the package database this plan's steps change."""
        return db_of(tool_of(s.kind for s in self.plan.steps))

    def _dpkg_before_path(self) -> str:
        return os.path.join(os.path.dirname(self.journal.path), BEFORE_FILES[self.package_db])

    def _save_dpkg_before(self) -> None:
        path = self._dpkg_before_path()
        if os.path.exists(path):
            return
        versions = db_versions(self.package_db, self.root)
        if versions is not None:
            write_json(path, versions)

    def package_changes(self) -> List[Dict[str, Any]]:
        try:
            before = read_json(self._dpkg_before_path())
        except ValueError:
            return []
        if not isinstance(before, dict):
            return []
        return package_changes(before, db_versions(self.package_db, self.root))

    def _finish(self, elapsed: float) -> int:
        changes = self.package_changes()
        self.journal.data["packages"] = changes
        c = self.counts
        summary = (f"{len(self.plan.steps)} steps: {c.get(CHANGED, 0)} changed, {c.get(OK, 0)} ok, "
                   f"{c.get(FAILED, 0)} failed, {c.get(jr.SKIPPED, 0)} skipped ({elapsed:.1f}s)")
        if self.failed_step:
            return self._failed(summary)
        if self.stop_requested:
            msg = (f"stopped after a {self.stop_requested} at a safe point; continue with: rocm-wizard resume "
                   f"{self.journal.run_id}")
            self.journal.set_state(jr.RUN_INTERRUPTED, msg)
            self.log.say(f"\nsummary: {summary}\nrocm-wizard: {msg}")
            return exitcodes.INTERRUPTED
        self.journal.set_state(jr.RUN_FINISHED, "all steps done")
        self.log.say(f"\nsummary: {summary}")
        if any(s.kind == "reboot-flag" and s.id in self.ctx.changed for s in self.plan.steps):
            self.log.say("rocm-wizard: a reboot is needed before the new kernel driver is used")
        return exitcodes.OK

    def _failed(self, summary: str) -> int:
        changed_kinds = {s.kind for s in self.plan.steps if s.id in self.ctx.changed}
        step_label = f"step {self.plan.step(self.failed_step).index} ({self.failed_step})"
        if changed_kinds <= RESTORABLE_KINDS and not self.package_changes():
            res = restore_files(self.journal.data["files"], self.root)
            for line in res.restored:
                self.log.say(f"    {line}")
            if res.ok:
                if self.journal.data["files"]:
                    msg = (f"{step_label} failed: {self.failure}. Nothing else had changed but configuration files, "
                           "and they are back as they were: the system is as before the run.")
                else:
                    msg = f"{step_label} failed: {self.failure}. Nothing had been changed: the system is as before the run."
                self.journal.set_state(jr.RUN_RESTORED, msg)
                self.log.say(f"\nsummary: {summary}\nrocm-wizard: {msg}")
                return exitcodes.ERROR
            for p in res.problems:
                self.log.say(f"    could not restore: {p}")
        msg = (f"{step_label} failed: {self.failure}. Fix the cause, then continue with: rocm-wizard resume "
               f"{self.journal.run_id}  (finished steps are not repeated), or undo the file changes with: "
               "rocm-wizard rollback")
        self.journal.set_state(jr.RUN_FAILED, msg)
        self.log.say(f"\nsummary: {summary}\nrocm-wizard: {msg}")
        return exitcodes.ERROR
