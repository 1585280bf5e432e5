"""``rocm-wizard --yes`` and ``--dry-run``: detect, plan and apply with no prompt (or show what
applying would change).

Exit statuses: 0 done (and verified, or verification pending) / dry run: nothing to do; 1 a step
failed, the run was refused (a bad answers file, an untrusted log directory...) or stopped because
its log directory could not be written (disk full: the journal says interrupted); 2 dry run:
changes pending, or applied but the GPU smoke test failed; 64 bad usage; 130 stopped by a signal
at a safe point (``rocm-wizard resume`` continues).
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import List, Optional

from .. import exitcodes
from ..termsafe import clean


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (0 <= value <= 86400):
        raise argparse.ArgumentTypeError(f"must be between 0 and 86400 seconds: {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("unattended runs (--yes, --dry-run)")
    g.add_argument("--no-verify", action="store_true", help="--yes: skip the GPU smoke test after the last step")
    g.add_argument("--detach", action="store_true",
                   help="--yes: run in the background (systemd-run or setsid); follow with rocm-wizard resume --follow")
    g.add_argument("--lock-timeout", type=_seconds, default=600.0, metavar="S",
                   help="--yes: wait this long for another package manager to release the dpkg lock (default 600)")


def _err(msg: str) -> None:
    try:
        print(f"rocm-wizard: {clean(msg)}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _argv_for_messages(argv: Optional[List[str]]) -> str:
    from ..plan.shellquote import q
    from ..execute.redact import redact_argv

    return " ".join(q(a) for a in redact_argv(argv or []))


# --------------------------------------------------------------------------- entry
def run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    try:
        return _run(args, argv)
    except KeyboardInterrupt:  # before the steps (detection, planning) or during the smoke test
        _err("stopped (Ctrl-C) at a safe point; no step was running")
        return exitcodes.INTERRUPTED


def _run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    demo = bool(getattr(args, "demo", False))  # --demo --dry-run: the bundled demo system (commands/main.use_demo)
    if demo and not getattr(args, "dry_run", False):
        _err("--demo cannot be applied: the demo system is not this machine (try --demo --dry-run)")
        return exitcodes.USAGE
    if (getattr(args, "snapshot", None) or getattr(args, "plan_root", None)) and not demo:
        _err("--yes and --dry-run act on this machine; --snapshot and --root are for --plan-only")
        return exitcodes.USAGE
    if getattr(args, "yes", False) and getattr(args, "dry_run", False):
        _err("choose one of --yes (apply) and --dry-run (show what would change)")
        return exitcodes.USAGE
    dry = bool(getattr(args, "dry_run", False))
    if getattr(args, "detach", False) and not dry and not os.environ.get("ROCM_WIZARD_DETACHED"):
        return _detach(argv)

    from .main import choices_from_args
    from ..plan.build import PlanError, build_plan

    try:
        choices = choices_from_args(args)
    except PlanError as exc:
        _err(exc.message)
        return exc.exit_code

    if demo:
        from .main import load_system

        try:
            system = load_system(args.snapshot)
        except ValueError as exc:
            _err(str(exc))
            return exitcodes.ERROR
    else:
        try:
            from ..detect import detect_live
        except ImportError:
            _err("detection is not available in this build")
            return exitcodes.ERROR
        system = detect_live(venvs=[choices.venv] if choices.venv else ())
    if not system.amd_gpus:
        if not choices.path:
            _err("no AMD GPU was found on this system, so there is no recommendation to apply. To set up a machine "
                 "before its card is in, choose the way explicitly: --path rocm-upgrade, --path torch-reinstall or "
                 "--path docker")
            return exitcodes.refusal(exitcodes.SYSTEM)  # as --plan-only and doctor: nothing here to act on
        _err(f"warning: no AMD GPU was found on this system; planning {choices.path} anyway, as asked "
             "(provisioning before the card is in)")
    try:
        plan = build_plan(system, choices)
    except PlanError as exc:
        from .main import blame_answers

        exc = blame_answers(exc, choices)
        _err(exc.message)
        return exc.exit_code
    for note in plan.notes:  # a way taken other than the recommended one is said before anything runs
        if note.startswith("WAY CHANGED"):
            _err(note)
    if dry:
        return _dry_run(args, plan, system, snapshot=demo)
    return _apply(args, plan, argv)


def _dry_run(args, plan, system, snapshot: bool = False) -> int:
    """What applying ``plan`` would change, checked on this machine (or, ``snapshot``, from what the
    demo system's snapshot shows)."""
    from ..plan.context import Context
    from ..plan.core import evaluate, pending, summary

    reports = evaluate(plan, Context.snapshot() if snapshot else Context(root="/"), system)
    if getattr(args, "plan_format", None) == "json":
        from ..plan.jsonplan import render_json

        sys.stdout.write(render_json(plan, reports))
    else:
        out = [f"# {plan.title} (plan {plan.plan_id}); dry run: nothing is changed"]
        for r in reports:
            word = {"ok": "ok", "change": "would change", "unknown": "unknown"}.get(r.check.status, r.check.status)
            out.append(f"[{r.step.index}/{len(reports)}] {r.step.title}: {word}" +
                       (f" ({r.check.detail})" if r.check.detail else ""))
            if r.check.status != "ok":
                out += ["    " + ln for ln in r.description.text().splitlines()[1:]]
        for note in plan.notes:
            out.append(f"# note: {note}")
        sys.stdout.write(clean("\n".join(out)) + "\n")  # titles, diffs: what the plan quotes came from outside
    counts = summary(reports)
    _err(f"dry run: {counts.get('change', 0)} step(s) would change, {counts.get('unknown', 0)} unknown, "
         f"{counts.get('ok', 0)} already done")
    return exitcodes.PENDING if pending(reports) else exitcodes.OK


# --------------------------------------------------------------------------- root
def _needs_root(step, report) -> bool:
    from ..execute.engine import ROOT_KINDS

    if report.check.status == "ok" or step.kind == "user-groups":
        return False
    if step.kind in ROOT_KINDS:
        return True
    probe = None
    for key in ("path", "venv", "link", "env_file", "freeze_backup"):
        value = step.params.get(key)
        if isinstance(value, str) and value.startswith("/"):
            probe = value
            break
    if probe is None:
        return False
    while probe and not os.path.lexists(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    return not os.access(probe or "/", os.W_OK)


def _root_check(plan, argv: List[str]) -> Optional[int]:
    """None to go on; else an exit status (after a message, or after re-running under sudo)."""
    from ..plan.context import Context
    from ..plan.core import evaluate
    from ..execute.preflight import passwordless_sudo

    if os.geteuid() == 0:
        return None
    reports = evaluate(plan, Context(root="/"))
    need = [r.step for r in reports if _needs_root(r.step, r)]
    if not need:
        return None
    names = ", ".join(f"{s.index} ({s.id})" for s in need)
    from ..invoker import root_command

    # the absolute path: sudo's secure_path does not hold ~/.local/bin (pipx, uv tool) or a venv's bin
    command = root_command(sys.argv[0] if sys.argv else None) + " " + _argv_for_messages(argv)
    if passwordless_sudo() and not os.environ.get("ROCM_WIZARD_NO_SUDO"):
        _err(f"steps {names} need root: running the same command through sudo")
        keep = [k for k in ("ROCM_WIZARD_LOG_DIR", "PYTHONPATH") if k in os.environ]
        sudo = ["sudo", "-n"] + ([f"--preserve-env={','.join(keep)}"] if keep else [])
        try:
            os.execvp("sudo", sudo + ["--", sys.executable, "-m", "rocm_wizard"] + argv)
        except OSError as exc:
            _err(f"could not run sudo: {exc.strerror or exc}")
            return exitcodes.ERROR
    import shutil

    from ..plan.shellquote import q

    how = ("sudo asks for a password, which an unattended run cannot type" if shutil.which("sudo")
           else "sudo is not installed")
    _err(f"steps {names} change the system and need root, and this is user {_user()} ({how}). Nothing was changed. "
         f"Run it as root:\n    {command}\n  (or as root without sudo: su -c {q(command[5:])})")
    return exitcodes.ERROR


def _user() -> str:
    try:
        import pwd

        return pwd.getpwuid(os.geteuid()).pw_name
    except (ImportError, KeyError):
        return os.environ.get("USER", str(os.geteuid()))


# --------------------------------------------------------------------------- apply
def _apply(args, plan, argv: List[str]) -> int:
    from ..execute import answers, paths
    from ..execute.detach import preset_run_id
    from ..execute.engine import Executor
    from ..execute.fsutil import write_json
    from ..execute.journal import Journal
    from ..execute.preflight import dpkg_audit, over_ssh_without_multiplexer
    from ..execute.redact import redact_argv
    from ..execute.runlog import RunLog
    from ..plan.context import Context
    from ..plan.core import stale_plan_message
    from ..plan.jsonplan import plan_to_dict

    stale = stale_plan_message(plan, Context(root="/"), "apply it")
    if stale:  # the system changed between detection and now (the script's rule, rw_check_fingerprint)
        _err(stale + ". Nothing was changed; run rocm-wizard --yes again")
        return exitcodes.ERROR
    code = _root_check(plan, argv)
    if code is not None:
        return code
    busy = paths.take_run_lock()
    if busy:
        _err(busy)
        return exitcodes.ERROR
    has_apt = any(s.kind.startswith("apt-") for s in plan.steps)
    if has_apt:
        clean, output = dpkg_audit()
        if clean is False:
            _err("dpkg reports unfinished or broken packages (dpkg --audit), so nothing was changed:\n"
                 + "\n".join("    " + ln for ln in output.splitlines()[:20])
                 + "\nRepair them first:  sudo dpkg --configure -a  (then  sudo apt-get -f install), and run again.")
            return exitcodes.ERROR
    if over_ssh_without_multiplexer():
        _err("warning: this runs over SSH without tmux or screen: if the connection drops, the run stops at the next "
             "safe point. To keep it going, run it with --detach (follow it later with rocm-wizard resume --follow).")

    run_id = preset_run_id() or paths.new_run_id()
    try:
        run_dir = paths.make_run_dir(run_id)
        write_json(os.path.join(run_dir, "plan.json"), plan_to_dict(plan))
        answers.write(os.path.join(run_dir, "answers.toml"), answers.from_plan_inputs(plan.inputs),
                      comment=f"run {run_id}: {plan.title}")
        paths.point_latest(run_id)
        log = RunLog(run_dir)
    except paths.UntrustedPath as exc:
        _err(str(exc))
        return exitcodes.ERROR
    except OSError as exc:
        _err(f"cannot write the run's log directory under {paths.log_root()}: {exc.strerror or exc}")
        return exitcodes.ERROR
    try:
        journal = Journal.create(os.path.join(run_dir, "journal.json"), run_id=run_id, plan=plan,
                                 argv=redact_argv(argv), root="/",
                                 backup_dir=paths.backup_root())
    except OSError as exc:
        _err(f"cannot write the run's journal in {run_dir}: {exc.strerror or exc}")
        log.close()
        return exitcodes.ERROR
    try:
        log.event("run-start", run_id=run_id, plan_id=plan.plan_id, path=plan.path, argv=redact_argv(argv))
        log.say(f"rocm-wizard: {plan.title} (plan {plan.plan_id}, run {run_id})")
        log.say(f"log: {log.path}")
        for note in plan.notes:
            log.say(f"note: {note}")
        executor = Executor(plan, journal, log, lock_timeout=getattr(args, "lock_timeout", 600.0))
        code = executor.run()
        if code == exitcodes.OK:
            code = verify_after(plan, journal, log, skip=getattr(args, "no_verify", False))
            from ..invoker import root_command
            from ..plan import after

            for line in after.reminders(plan, journal.changed, root_command(sys.argv[0] if sys.argv else None)):
                log.say(line)
        log.event("run-end", exit=code, state=journal.state)
        return code
    except OSError as exc:
        from ..execute.engine import state_write_failed

        return state_write_failed(journal, log, exc)
    finally:
        log.close()


def verify_after(plan, journal, log, skip: bool = False) -> int:
    """The GPU smoke test after the last step, where one applies; else say it is pending."""
    target = None
    if plan.path == "torch-reinstall":
        target = {"venv": plan.inputs.get("venv")}
    elif plan.path == "docker":
        target = {"docker_image": plan.inputs.get("image")}
    if skip:
        journal.data["verify"] = {"status": "skipped"}
        journal.save()
        log.say("verification skipped (--no-verify): run  rocm-wizard verify  when ready")
        return exitcodes.OK
    from ..plan import after

    rebooting = after.rebooting(plan, journal.changed)
    if target is None or rebooting:
        why = after.REBOOT_WHY if rebooting else "this plan sets up no PyTorch environment to test"
        journal.data["verify"] = {"status": "pending", "why": why}
        journal.save()
        log.say(f"verification pending: {why}; then run:")
        for line in after.next_steps(plan, True):
            log.say(f"  {line}")
        return exitcodes.OK
    try:
        from ..verify import run_verify
    except ImportError:
        journal.data["verify"] = {"status": "pending", "why": "the smoke test is not part of this build"}
        journal.save()
        log.say("verification pending: the GPU smoke test is not part of this build")
        return exitcodes.OK
    what = target.get("venv") or target.get("docker_image")
    log.say(f"verifying: GPU smoke test with {what} ...")
    report = run_verify(timeout=60.0, **target)
    failing = [d.headline for d in getattr(report, "diagnoses", []) or []]
    ok = getattr(report, "status", "error") == "ok"
    journal.data["verify"] = {"status": "pass" if ok else "fail", "error": report.error, "diagnoses": failing}
    journal.save()
    if ok:
        log.say("verified: the GPU smoke test passed")
        return exitcodes.OK
    log.say("the GPU smoke test failed: " + (report.error or "; ".join(failing) or "a check failed")
            + "  (details: rocm-wizard verify " + (f"--venv {what}" if target.get("venv") else f"--docker {what}") + ")")
    return exitcodes.PENDING


def _detach(argv: List[str]) -> int:
    from ..execute import detach, paths

    run_id = paths.new_run_id()
    try:
        how, console = detach.start(argv, run_id, paths.log_root())
    except (OSError, ValueError) as exc:
        _err(f"could not start the detached run: {exc}")
        return exitcodes.ERROR
    _err(f"running detached as {how}, run {run_id}.\n  follow it:  rocm-wizard resume --follow {run_id}\n"
         f"  or:         tail -f {console}")
    print(run_id)
    return exitcodes.OK
