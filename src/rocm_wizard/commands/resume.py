"""``rocm-wizard resume [RUN]``: continue an interrupted or failed run where it stopped (the newest
run by default).  ``--follow`` watches a running (for example detached) run instead, printing its
output until it ends.

Run as root, the run directory and its log root must be root's alone (else refused, see
``rocm_wizard.execute.paths``); the run lock is taken, and a command the interrupted run left
running (a pip or dpkg in its own session after a SIGKILL) is waited for up to ``--lock-timeout``
seconds, then ended, before anything starts.

Exit statuses as for ``--yes``: 0 done, 1 failed or refused, 2 done but the GPU smoke test failed,
130 stopped again by a signal.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from .. import exitcodes
from .apply import _seconds  # apply's bounds: nan, inf and negatives are a usage error (exit 64)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", nargs="?", default=None, metavar="RUN",
                        help="run id or run directory (default: the latest run)")
    parser.add_argument("--follow", action="store_true", help="follow a run that is still going; change nothing")
    parser.add_argument("--no-verify", action="store_true", help="skip the GPU smoke test after the last step")
    parser.add_argument("--lock-timeout", type=_seconds, default=600.0, metavar="S",
                        help="wait this long for another package manager to release the dpkg lock, and for a "
                             "command the interrupted run left running to finish (default 600)")


def _err(msg: str) -> None:
    print(f"rocm-wizard resume: {msg}", file=sys.stderr, flush=True)


def _load(spec, err=None):
    from ..execute import paths
    from ..execute.journal import Journal, JournalError

    _err_ = err or _err
    try:
        run_dir = paths.resolve_run(spec)
    except paths.UntrustedPath as exc:
        _err_(str(exc))
        return None, None
    if run_dir is None:
        where = paths.log_root()
        if spec:
            _err_(f"no run {spec!r} in {where}")
        else:
            _err_(f"no run in {where}")
        return None, None
    try:
        return run_dir, Journal.load(os.path.join(run_dir, "journal.json"))
    except JournalError as exc:
        _err_(str(exc))
        return run_dir, None


EXIT_OF_STATE = {"finished": exitcodes.OK, "failed": exitcodes.ERROR, "restored": exitcodes.ERROR,
                 "interrupted": exitcodes.INTERRUPTED, "rolled-back": exitcodes.OK}


# How long --follow waits for a journal it cannot load (damaged, not root's, a link, or missing with
# no detached starter alive) before it stops with exit status 1: the journal is written whole
# (temporary file and rename), so one that stays unloadable this long will not become loadable.
UNLOADABLE_WAIT = 10.0


def _journal_problem(journal_path: str):
    """Why the journal cannot be followed as it is (a link, not a regular file, another user's when
    run as root), or None: what Journal.load does not check itself."""
    import stat as stat_

    try:
        st = os.lstat(journal_path)
    except OSError:
        return None
    if stat_.S_ISLNK(st.st_mode):
        return f"{journal_path} is a symbolic link, not a journal rocm-wizard wrote"
    if not stat_.S_ISREG(st.st_mode):
        return f"{journal_path} is not a regular file"
    me = os.geteuid() if hasattr(os, "geteuid") else 0
    if st.st_uid != me:
        return f"{journal_path} belongs to uid {st.st_uid}, not to the user who runs rocm-wizard (uid {me})"
    return None


def follow(run_dir: str, journal_path: str, poll: float = 0.5, out=None, wait=None) -> int:
    """Print the run's output as it grows until the run ends; exit status from its final state.  A
    journal that stays unloadable for ``wait`` seconds (damaged, a link, another user's, or never
    written while no detached starter is alive) stops it with exit status 1 and the reason."""
    from ..execute.journal import Journal, JournalError
    from ..execute.procs import same_process
    from ..termsafe import clean

    out = out or sys.stdout
    wait = UNLOADABLE_WAIT if wait is None else wait
    console = os.path.join(run_dir, "console.log")
    source = console if os.path.exists(console) else os.path.join(run_dir, "run.log")
    from ..termsafe import clean

    pos = 0
    pending = ""
    state = "running"
    bad_since = None
    while True:
        try:
            with open(source, "r", encoding="utf-8", errors="replace") as fh:
                fh.seek(pos)
                chunk = fh.read()
                pos = fh.tell()
        except OSError:
            chunk = ""
        if chunk:
            pending += chunk
            cut = pending.rfind("\n") + 1  # whole lines only: a sequence split across reads is still seen whole
            if cut:
                out.write(clean(pending[:cut]))
                out.flush()
                pending = pending[cut:]
            if len(pending) > 1 << 20:  # a partial line that never ends: print it cleaned, bounded
                out.write(clean(pending))
                out.flush()
                pending = ""
        problem = _journal_problem(journal_path)
        try:
            if problem:
                raise JournalError(problem)
            j = Journal.load(journal_path)
            state = j.state
            alive = j.alive()
            bad_since = None
        except JournalError as exc:
            j = None  # a detached run that has not written its journal yet (or never will)
            starter = _detached_pid(run_dir)
            present = os.path.lexists(journal_path)
            starting = starter is not None and same_process(starter, None)
            if starter is not None and not starting and not present:
                _err("the detached run ended before it started its steps (see its output above)")
                return exitcodes.ERROR
            if present or not starting:
                now = time.monotonic()
                bad_since = now if bad_since is None else bad_since
                if now - bad_since >= wait:
                    why = str(exc) if present else f"{journal_path} was never written"
                    _err(f"cannot follow the run in {run_dir}: {why}. Nothing was changed; look at its run.log, and "
                         "start a new run with rocm-wizard --yes if it is not going")
                    return exitcodes.ERROR
            else:
                bad_since = None
        if j is not None and (state != "running" or not alive):
            time.sleep(poll)  # its last lines
            try:
                with open(source, "r", encoding="utf-8", errors="replace") as fh:
                    fh.seek(pos)
                    out.write(clean(pending + fh.read()))
                    out.flush()
            except OSError:
                pass
            if state == "running":
                _err("the run stopped without finishing (killed?): continue it with  rocm-wizard resume")
                return exitcodes.INTERRUPTED
            return EXIT_OF_STATE.get(state, exitcodes.ERROR)
        time.sleep(poll)


def _detached_pid(run_dir: str):
    from ..execute.fsutil import read_json

    try:
        data = read_json(os.path.join(run_dir, "detached.json"))
    except ValueError:
        return None
    return data.get("pid") if isinstance(data, dict) else None


def _fingerprint_problems(plan) -> list:
    """What differs between this system and the one the run's plan was made for: every field of
    the plan's fingerprint, by the script's rule (``plan.core.system_fingerprint_mismatches``)."""
    from ..plan.context import Context
    from ..plan.core import system_fingerprint_mismatches

    return system_fingerprint_mismatches(plan, Context(root="/"))


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except KeyboardInterrupt:
        _err("stopped (Ctrl-C) at a safe point")
        return exitcodes.INTERRUPTED


def _run(args: argparse.Namespace) -> int:
    from ..execute import journal as jr
    from .apply import _root_check, verify_after
    from ..execute.engine import Executor
    from ..execute.fsutil import read_json
    from ..execute.preflight import dpkg_audit
    from ..execute.runlog import RunLog
    from ..plan.jsonplan import PlanFormatError, plan_from_dict

    if args.follow:
        from ..execute import paths

        try:
            run_dir = paths.resolve_run(args.run)
        except paths.UntrustedPath as exc:
            _err(str(exc))
            return exitcodes.ERROR
        if run_dir is None:
            _err(f"no run {args.run or ''} in {paths.log_root()}".replace("  ", " "))
            return exitcodes.ERROR
        return follow(run_dir, os.path.join(run_dir, "journal.json"))
    run_dir, journal = _load(args.run)
    if journal is None:
        return exitcodes.ERROR
    state = journal.state
    if state == jr.RUN_FINISHED:
        _err(f"run {journal.run_id} finished; nothing to resume")
        return exitcodes.OK
    if state in (jr.RUN_ROLLED_BACK, jr.RUN_RESTORED):
        _err(f"run {journal.run_id} was {'rolled back' if state == jr.RUN_ROLLED_BACK else 'put back after its failure'}"
             "; nothing to resume (start a new run with rocm-wizard --yes)")
        return exitcodes.OK if state == jr.RUN_ROLLED_BACK else exitcodes.ERROR
    if state == jr.RUN_RUNNING and journal.alive() and journal.data.get("pid") != os.getpid():
        _err(f"run {journal.run_id} is still going (pid {journal.data.get('pid')}); follow it with  "
             f"rocm-wizard resume --follow {journal.run_id}")
        return exitcodes.ERROR
    try:
        plan = plan_from_dict(read_json(os.path.join(run_dir, "plan.json")))
    except (ValueError, PlanFormatError) as exc:
        _err(f"cannot read the run's plan: {exc}")
        return exitcodes.ERROR
    if [s.id for s in plan.steps] != [s["id"] for s in journal.steps]:
        _err("the run's plan and journal do not match (edited?); start a new run with rocm-wizard --yes")
        return exitcodes.ERROR
    problems = _fingerprint_problems(plan)
    if problems:
        _err("refusing to resume: this plan was made for another system, or the system changed since (fingerprint "
             f"{plan.fingerprint.digest}): " + "; ".join(problems) + ". Start a new run with rocm-wizard --yes "
             f"(undo this one first with  rocm-wizard rollback {journal.run_id}  if needed)")
        return exitcodes.ERROR
    code = _root_check(plan, ["resume", journal.run_id] + (["--no-verify"] if args.no_verify else []))
    if code is not None:
        return code
    from ..execute import paths
    from ..execute.procs import settle_survivors

    busy = paths.take_run_lock(paths.log_root_of(run_dir))
    if busy:
        _err(busy)
        return exitcodes.ERROR
    try:  # read again under the lock: another resume may have finished it meanwhile
        journal = jr.Journal.load(journal.path)
    except jr.JournalError as exc:
        _err(str(exc))
        return exitcodes.ERROR
    if journal.state in (jr.RUN_FINISHED, jr.RUN_ROLLED_BACK, jr.RUN_RESTORED):
        _err(f"run {journal.run_id} is {journal.state} now; nothing to resume")
        return EXIT_OF_STATE.get(journal.state, exitcodes.ERROR)
    try:
        log = RunLog(run_dir)
    except OSError as exc:
        _err(f"cannot write the run's log in {run_dir}: {exc.strerror or exc}")
        return exitcodes.ERROR
    try:
        settle_survivors(journal.data.get("children") or [], log.say, args.lock_timeout)
        journal.mark_resumed()
        log.event("run-resume", run_id=journal.run_id)
        log.say(f"rocm-wizard: resuming run {journal.run_id}: {plan.title} (plan {plan.plan_id})")
        log.say(f"log: {log.path}")
        executor = Executor(plan, journal, log, lock_timeout=args.lock_timeout)
        if any(s.kind.startswith("apt-") for s in plan.steps):
            clean, output = dpkg_audit()
            if clean is False:
                ours = next((s for s in journal.steps if s["status"] in (jr.RUNNING, jr.FAILED)
                             and s.get("kind", "").startswith("apt-")), None)
                if ours is None:
                    msg = ("dpkg reports unfinished or broken packages that this run did not leave; repair them "
                           "first (sudo dpkg --configure -a) and resume again")
                    log.say("rocm-wizard: " + msg + ":\n" + output)
                    journal.set_state(state if state != jr.RUN_RUNNING else jr.RUN_INTERRUPTED, msg)
                    return exitcodes.ERROR
                log.say(f"dpkg was interrupted during step {ours['id']}: finishing its work first (dpkg --configure -a)")
                res = executor.runner(["dpkg", "--configure", "-a"], env=_env(), timeout=3600)
                clean, output = dpkg_audit()
                if clean is False:
                    executor.runner(["apt-get", "-y", "-f", "install"], env=_env(), timeout=3600)
                    clean, output = dpkg_audit()
                if clean is False:
                    msg = f"dpkg could not be repaired (exit {res.rc}):\n{output}"
                    log.say("rocm-wizard: " + msg)
                    journal.set_state(jr.RUN_FAILED, msg)
                    return exitcodes.ERROR
        code = executor.run(resumed=True)
        if code == exitcodes.OK:
            code = verify_after(plan, journal, log, skip=args.no_verify)
        log.event("run-end", exit=code, state=journal.state)
        return code
    except OSError as exc:  # the journal could not be written before the steps started
        from ..execute.engine import state_write_failed

        return state_write_failed(journal, log, exc)
    finally:
        log.close()


def _env():
    env = dict(os.environ)
    env.update(LC_ALL="C", DEBIAN_FRONTEND="noninteractive")
    env.setdefault("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
    return env
