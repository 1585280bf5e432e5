"""Issue 14 item 3 and 7: the log root and run directories root uses, the run lock, interrupted runs.

These tests need root (the tests run as root): they build trees under tmp_path owned by another
uid or with loose modes, and run ``resume`` / ``rollback`` against them in a subprocess, inside the
read-only root (rwtest.sandbox) where only the test's directory is writable; nothing there can
execute a plan (there is none, or it is refused before it is read)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from rwtest import sandbox

from rocm_wizard.execute import journal as jr, paths
from rocm_wizard.execute.procs import proc_start
from rocm_wizard.execute.rollback import cannot_undo, kept_files, restore_files

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the trust checks apply to root; these tests need root")
RUN = "20260101-000000-1"


def cli(*args, logs):
    env = dict(os.environ, ROCM_WIZARD_LOG_DIR=str(logs))
    # the test's directory (the log root's parent) is the only writable place; the host's PIDs stay
    # visible, so a lock holder or a "still going" run the test started is seen as it is
    argv = sandbox.argv([sys.executable, "-m", "rocm_wizard", *args], writable=[logs.parent], host_pids=True)
    p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert "Traceback" not in p.stderr, p.stderr
    return p


def journal(state="interrupted", **extra):
    data = {"format": "rocm-wizard-journal", "version": 1, "run_id": RUN, "state": state, "title": "t",
            "steps": [{"id": "a", "status": "changed", "kind": "file"}], "files": [], "pid": 0}
    data.update(extra)
    return data


def planted_run(logs, victim=None, **extra):
    """A run as another user could plant it: a journal (and a file the rollback would "restore")."""
    d = logs / RUN
    d.mkdir(parents=True)
    files = []
    if victim is not None:
        (d / "bak").write_text("attacker's content\n")
        files = [{"path": str(victim), "before": "file", "backup": str(d / "bak")}]
    (d / "journal.json").write_text(json.dumps(journal(files=files, **extra)))
    os.symlink(RUN, logs / "latest")
    return d


@pytest.mark.parametrize("how", ["owner", "group", "world", "link"])
def test_a_log_root_another_user_controls_is_refused(tmp_path, how):
    victim = tmp_path / "victim"
    victim.write_text("root's file\n")
    real = tmp_path / "real-logs"
    real.mkdir(mode=0o750)
    logs = real
    if how == "link":
        logs = tmp_path / "logs"
        os.symlink(real, logs)
    planted_run(real, victim)
    if how == "owner":
        os.chown(real, 1000, 1000)
    elif how == "group":
        os.chown(real, 0, 1000)
        os.chmod(real, 0o770)
    elif how == "world":
        os.chmod(real, 0o1777)  # sticky is fine above the log root, not for it
    direct = [] if how == "link" else [["rollback", str(real / RUN)]]  # only the link is wrong there
    for cmd in [["rollback"], ["resume"], ["resume", "--follow"]] + direct:
        p = cli(*cmd, logs=logs)
        assert p.returncode == 1, (cmd, p.stderr)
        assert ("refusing" in p.stderr and str(logs) in p.stderr and "chown root:root" in p.stderr), p.stderr
    assert victim.read_text() == "root's file\n"  # the planted journal was never acted on
    assert not (real / "run.lock").exists()


def test_a_run_directory_another_user_owns_is_refused(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir(mode=0o750)
    victim = tmp_path / "victim"
    victim.write_text("root's file\n")
    d = planted_run(logs, victim)
    os.chown(d, 1000, 1000)
    p = cli("rollback", logs=logs)
    assert p.returncode == 1 and f"{d} belongs to uid 1000" in p.stderr, p.stderr
    assert victim.read_text() == "root's file\n"
    os.chown(d, 0, 0)  # the same run, root's: the check is what stopped it
    p = cli("rollback", logs=logs)
    assert p.returncode == 0, p.stderr
    assert victim.read_text() == "attacker's content\n"


def test_a_parent_another_user_can_write_is_refused_but_a_sticky_one_is_not(tmp_path):
    top = tmp_path / "shared"
    top.mkdir()
    os.chmod(top, 0o777)
    (top / "logs").mkdir(mode=0o750)
    with pytest.raises(paths.UntrustedPath, match="writable by others"):
        paths.check_trusted(str(top / "logs"))
    os.chmod(top, 0o1777)  # like /tmp: others cannot rename what is root's in it
    paths.check_trusted(str(top / "logs"))


def test_a_run_lock_link_never_makes_root_write_through_it(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir(mode=0o750)
    victim = tmp_path / "shadow"
    victim.write_text("root:x:0:0\n")
    os.symlink(victim, logs / "run.lock")
    code = "from rocm_wizard.execute import paths; import sys; print(paths.take_run_lock(sys.argv[1]))"
    p = subprocess.run([sys.executable, "-c", code, str(logs)], capture_output=True, text=True, timeout=60)
    assert "run.lock is a symbolic link; refusing to open it" in p.stdout, p.stdout + p.stderr
    assert victim.read_text() == "root:x:0:0\n"


def _hold_lock(logs):
    code = ("from rocm_wizard.execute import paths; import sys, time\n"
            "print(paths.take_run_lock(sys.argv[1]), flush=True); time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(logs)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "None"
    return proc


def test_rollback_takes_the_run_lock_and_names_its_holder(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir(mode=0o750)
    planted_run(logs)
    holder = _hold_lock(logs)
    try:
        assert f"pid {holder.pid} start {proc_start(holder.pid)}" in (logs / "run.lock").read_text()
        p = cli("rollback", logs=logs)
        assert p.returncode == 1 and f"another rocm-wizard run is in progress (pid {holder.pid})" in p.stderr, p.stderr
    finally:
        holder.kill()
        holder.wait()
    assert cli("rollback", logs=logs).returncode == 0


def test_a_reused_pid_does_not_block_resume_or_rollback(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir(mode=0o750)
    me = os.getpid()  # alive, but not the process that wrote the journal: its start time differs
    planted_run(logs, state="running", pid=me, pid_start=proc_start(me) + 1)
    p = cli("rollback", logs=logs)
    assert p.returncode == 0 and "still going" not in p.stderr, p.stderr
    d = logs / RUN
    (d / "journal.json").write_text(json.dumps(journal(state="running", pid=me, pid_start=proc_start(me) + 1)))
    p = cli("resume", logs=logs)
    assert "still going" not in p.stderr and "cannot read the run's plan" in p.stderr, p.stderr
    (d / "journal.json").write_text(json.dumps(journal(state="running", pid=me, pid_start=proc_start(me))))
    p = cli("resume", logs=logs)
    assert p.returncode == 1 and f"still going (pid {me})" in p.stderr, p.stderr


@pytest.mark.parametrize("field, value, message", [
    ("state", 3, "state is a int"), ("state", "exploded", "unknown state"), ("pid", "12", "pid is a str"),
    ("steps", [{"id": 1, "status": "ok"}], "step 1: id is a int"), ("steps", [{"id": "a", "status": "done"}], "unknown status"),
    ("files", [{"path": 5}], "file 1: path is a int"), ("files", ["x"], "file 1 is not an object"),
    ("changed", [None], "not a step id"), ("children", [{"pgid": "1"}], "child 1: pgid is a str"),
    ("title", ["t"], "title is a list"), ("pid", True, "pid is a bool"),
])
def test_journals_with_wrong_types_are_refused_plainly(tmp_path, field, value, message):
    logs = tmp_path / "logs"
    logs.mkdir(mode=0o750)
    d = planted_run(logs)
    (d / "journal.json").write_text(json.dumps(journal(**{field: value})))
    with pytest.raises(jr.JournalError, match=message):
        jr.Journal.load(str(d / "journal.json"))
    for cmd in ("resume", "rollback"):
        p = cli(cmd, logs=logs)
        assert p.returncode == 1 and "is damaged" in p.stderr and message in p.stderr, p.stderr


def test_rollback_keeps_the_pip_freeze_it_tells_the_user_to_reinstall_from(tmp_path):
    freeze = "/venv/rocm-wizard/pip-freeze-before-x.txt"
    (tmp_path / "venv/rocm-wizard").mkdir(parents=True)
    (tmp_path / freeze.lstrip("/")).write_text("torch==2.5.1+rocm6.2\n")
    (tmp_path / "venv/bin").mkdir()
    (tmp_path / "venv/bin/activate").write_text("new\n")
    data = {"steps": [{"id": "venv", "kind": "venv", "status": "changed", "detail": f"saved pip freeze to {freeze}"}],
            "files": [{"path": freeze, "before": "absent"}, {"path": "/venv/bin/activate", "before": "absent"}]}
    assert kept_files(data) == [freeze]
    res = restore_files(data["files"], str(tmp_path), keep=kept_files(data))
    assert res.ok and (tmp_path / freeze.lstrip("/")).read_text() == "torch==2.5.1+rocm6.2\n"
    assert not (tmp_path / "venv/bin/activate").exists()  # the rest is still put back
    assert any(line.startswith(f"kept {freeze}") for line in res.restored)
    assert any(f"-r {freeze}" in line for line in cannot_undo([], data))
