"""Issue 14 items 3 and 7 for real, inside the test root: a run planted in a log root another user
can write is never executed by ``resume``; a command the executor left running after a SIGKILL
is waited for (or ended) before ``resume`` starts anything; a full log disk stops the run with a
clear message and a journal that does not say "running"."""
from __future__ import annotations

import errno
import json
import os
import signal

from harness import checks, wizard
from rocm_wizard.plan.core import Fingerprint, Plan
from rocm_wizard.plan.jsonplan import plan_to_dict
from rocm_wizard.plan.steps.files import Command, FileContent

RUN = "20260101-000000-4242"
STEPS = ["rocm-key", "rocm-repos", "rocm-pin", "apt-update", "kernel-driver", "rocm-packages", "ld-conf",
         "ldconfig", "gpu-groups", "reboot-flag"]


def upgrade_args(world):
    return ["--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-mirror", world.radeon_url, "--allow-http-mirror",
            "--rocm-key-fingerprint", world.site.radeon_key.fingerprint]



def plant(root, logs, owner):
    """An interrupted run whose plan runs a command as root, in ``logs`` owned by ``owner``."""
    plan = Plan("rocm-upgrade", "planted", [
        FileContent("conf", "conf", path="/etc/planted.conf", content="x\n"),
        Command("run", "run", argv=["/bin/sh", "-c", "id -u > /pwned"], after=["conf"])], Fingerprint())
    steps = [{"id": s.id, "kind": s.kind, "title": s.title, "status": "pending", "detail": "", "started": None,
              "finished": None} for s in plan.steps]
    journal = {"format": "rocm-wizard-journal", "version": 1, "run_id": RUN, "plan_id": plan.plan_id,
               "path": plan.path, "title": plan.title, "state": "interrupted", "pid": 0, "root": "/",
               "backup_dir": "/var/backups/rocm-wizard", "steps": steps, "changed": [], "files": [],
               "resumes": [], "message": ""}
    root.write(f"{logs}/{RUN}/plan.json", json.dumps(plan_to_dict(plan)))
    root.write(f"{logs}/{RUN}/journal.json", json.dumps(journal))
    os.symlink(RUN, root.host_path(f"{logs}/latest"))
    for inside in (logs, f"{logs}/{RUN}", f"{logs}/{RUN}/plan.json", f"{logs}/{RUN}/journal.json"):
        os.lchown(root.host_path(inside), owner, owner)
    os.chmod(root.host_path(logs), 0o750)
    os.chmod(root.host_path(f"{logs}/{RUN}"), 0o700)


def test_resume_never_runs_a_plan_planted_where_another_user_can_write(debroot):
    root = debroot
    wizard.prepare(root)
    root.add_user("alice")
    plant(root, "/srv/alice-logs", 1000)
    for args, env in ((["resume"], {"ROCM_WIZARD_LOG_DIR": "/srv/alice-logs"}),
                      (["resume", f"/srv/alice-logs/{RUN}"], None), (["rollback"], {"ROCM_WIZARD_LOG_DIR": "/srv/alice-logs"})):
        res = wizard.run(root, *args, "--no-verify" if args[0] == "resume" else "--dry-run", extra_env=env)
        assert res.returncode == 1, res.stderr
        assert "belongs to uid 1000, not root" in res.stderr and "/srv/alice-logs" in res.stderr, res.stderr
        assert "Traceback" not in res.stderr
    assert not root.exists("/pwned") and not root.exists("/etc/planted.conf")
    assert not root.exists("/srv/alice-logs/run.lock")  # root did not even create its lock there
    # the same run in a directory only root controls is executed: the check is what stopped it above
    plant(root, "/srv/root-logs", 0)
    res = wizard.run(root, "resume", "--no-verify", extra_env={"ROCM_WIZARD_LOG_DIR": "/srv/root-logs"})
    assert res.returncode == 0, res.stderr
    assert root.read("/pwned") == "0\n"


def test_a_command_left_running_by_a_killed_run_is_waited_for_before_resume_starts(rocm_old, apt_site):
    root = rocm_old
    root.write("/run/rw-test-slow-postinst", "15\n")
    proc = wizard.popen(root, "--yes", "--no-verify", *upgrade_args(apt_site))
    checks.wait_for(root, "/run/rw-test-in-postinst")
    root.signal(proc, signal.SIGKILL)  # the executor only: apt-get and dpkg live on in their session
    proc.wait(timeout=30)
    j = checks.journal(root)
    assert j["state"] == "running"
    child = j["children"][-1]
    assert child["step"] == "rocm-packages" and child["argv"][0] == "apt-get" and isinstance(child["start"], int)
    resumed = wizard.run(root, "resume", "--no-verify")
    assert resumed.returncode == 0, resumed.stderr
    err = resumed.stderr
    assert f"a command of the interrupted run is still running (step rocm-packages, process group {child['pgid']}" in err
    assert "it finished; going on" in err
    # nothing started beside it: any repair comes after it ended.  (It does not finish cleanly: with
    # the executor gone, its output pipe is closed and apt-get dies of SIGPIPE at its next line.)
    repair = err.find("dpkg was interrupted")
    assert repair == -1 or repair > err.index("it finished; going on")
    checks.assert_rocm_upgraded(root, apt_site.new)
    checks.assert_dpkg_healthy(root)
    assert checks.journal(root)["state"] == "finished"


def test_a_survivor_that_outlasts_the_timeout_is_ended_and_its_work_repaired(rocm_old, apt_site):
    root = rocm_old
    root.write("/run/rw-test-slow-postinst", "300\n")
    proc = wizard.popen(root, "--yes", "--no-verify", *upgrade_args(apt_site))
    checks.wait_for(root, "/run/rw-test-in-postinst")
    root.signal(proc, signal.SIGKILL)
    proc.wait(timeout=30)
    resumed = wizard.run(root, "resume", "--no-verify", "--lock-timeout", "2")
    assert resumed.returncode == 0, resumed.stderr
    assert "still running after 2s: ending process group" in resumed.stderr
    assert "dpkg was interrupted during step rocm-packages" in resumed.stderr
    checks.assert_rocm_upgraded(root, apt_site.new)
    checks.assert_dpkg_healthy(root)


def test_a_full_log_disk_stops_the_run_with_a_message_and_resume_finishes(rocm_old, apt_site):
    root = rocm_old
    root.write("/run/rw-test-slow-postinst", "4\n")
    args = " ".join(f"'{a}'" for a in upgrade_args(apt_site))
    # the root has no mount(8): python3 mounts a 2 MiB tmpfs on the log root (in the root's own
    # mount namespace), or the script stops there
    mount = ("import ctypes, os, sys; os.makedirs('/var/log/rocm-wizard', 0o750, exist_ok=True); "
             "libc = ctypes.CDLL(None, use_errno=True); "
             "sys.exit(libc.mount(b'tmpfs', b'/var/log/rocm-wizard', b'tmpfs', 0, b'size=2m,mode=0750') and "
             "'mount failed: ' + os.strerror(ctypes.get_errno()))")
    script = (f'python3 -c "{mount}" || exit 99\n'
              f"python3 -m rocm_wizard --yes --no-verify {args}; echo \"first=$?\" >&2\n"
              "cp /var/log/rocm-wizard/latest/journal.json /root/journal-after-full.json\n"
              "rm -f /var/log/rocm-wizard/filler\n"
              "python3 -m rocm_wizard resume --no-verify; echo \"second=$?\" >&2\n")
    proc = root.popen(["/bin/sh", "-c", script], env=wizard.env())
    checks.wait_for(root, "/run/rw-test-in-postinst")
    logs = f"/proc/{root.main_pid(proc)}/root/var/log/rocm-wizard"  # the tmpfs, seen from its namespace
    fs = os.statvfs(logs)
    assert fs.f_blocks * fs.f_frsize <= 4 << 20, "the log root is not the small tmpfs: not filling it"
    # unbuffered: a buffered file keeps what the full disk refused and fails again when closed
    with open(f"{logs}/filler", "wb", buffering=0) as fh:
        try:
            for _ in range(64):  # 4 MiB at most: more than the tmpfs holds
                fh.write(b"\0" * 65536)
            raise AssertionError("the tmpfs did not fill up")
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    out, err = proc.communicate(timeout=600)
    assert "Traceback" not in err, err
    assert "first=1" in err and "second=0" in err, err
    assert "cannot write the run's log and journal in /var/log/rocm-wizard/" in err
    assert "No space left on device" in err and "continue with: rocm-wizard resume" in err
    j = json.loads(root.read("/root/journal-after-full.json"))
    assert j["state"] == "interrupted" and "No space left on device" in j["message"]
    checks.assert_rocm_upgraded(root, apt_site.new)
    checks.assert_dpkg_healthy(root)


def test_rollback_keeps_the_pip_freeze_it_tells_the_user_to_reinstall_from(wroot, pyindex):
    from test_exec_torch import make_torch_venv, torch_args

    root = wroot
    make_torch_venv(root, pyindex, "/srv/venv")
    res = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, "/srv/venv"))
    assert res.returncode == 0, res.stderr
    back = wizard.run(root, "rollback")
    assert back.returncode == 0, back.stderr
    line = next(ln for ln in back.stdout.splitlines() if "--force-reinstall -r " in ln)
    freeze = line.split(" -r ", 1)[1].split()[0]
    assert freeze.startswith("/srv/venv/rocm-wizard/pip-freeze-before")
    # the record is not among the run's changes (the owner wrote it; see runas), so rollback leaves it
    assert root.exists(freeze)
    assert "torch==2.5.1+rocm6.2" in root.read(freeze)  # what the account says to reinstall from is there
