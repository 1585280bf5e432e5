"""Journal, run directories and the ``latest`` link, restoring files, lock detection."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from rocm_wizard.execute import journal as jr, paths, preflight
from rocm_wizard.execute.rollback import cannot_undo, package_changes, restore_files
from rocm_wizard.plan.core import Fingerprint, Plan
from rocm_wizard.plan.steps.files import FileContent


def _plan():
    return Plan("rocm-upgrade", "t", [FileContent("one", "one", path="/etc/one", content="1\n"),
                                      FileContent("two", "two", path="/etc/two", content="2\n")], Fingerprint())


def test_journal_round_trip_and_write_ahead(tmp_path):
    j = jr.Journal.create(str(tmp_path / "journal.json"), run_id="20260101-000000-1", plan=_plan(), argv=["--yes"],
                          root="/", backup_dir="/b")
    j.begin_step("one")
    again = jr.Journal.load(j.path)
    assert again.running_step()["id"] == "one" and again.state == "running"
    j.end_step("one", jr.CHANGED, "wrote /etc/one")
    j.add_file({"path": "/etc/one", "before": "absent", "backup": None, "link": None, "step": "one"})
    j.add_file({"path": "/etc/one", "before": "file", "backup": "/x", "link": None, "step": "two"})  # first wins
    again = jr.Journal.load(j.path)
    assert again.changed == ["one"] and again.done("one") and not again.done("two")
    assert again.data["files"] == [{"path": "/etc/one", "before": "absent", "backup": None, "link": None, "step": "one"}]
    assert sorted(os.listdir(tmp_path)) == ["journal.json"]  # no temporary file left behind


@pytest.mark.parametrize("content, message", [
    ("{", "damaged"), ("[]", "not a rocm-wizard journal"),
    (json.dumps({"format": "rocm-wizard-journal", "version": 9}), "version 9"),
    (json.dumps({"format": "rocm-wizard-journal", "version": 1, "steps": [{"x": 1}], "files": []}), "malformed"),
])
def test_damaged_journals_are_refused_plainly(tmp_path, content, message):
    p = tmp_path / "journal.json"
    p.write_text(content)
    with pytest.raises(jr.JournalError, match=message):
        jr.Journal.load(str(p))


def test_run_directories_and_the_latest_link(tmp_path, monkeypatch):
    monkeypatch.setenv(paths.LOG_ENV, str(tmp_path))
    assert paths.log_root() == str(tmp_path)
    assert paths.resolve_run(None) is None
    for rid in ("20260101-000000-1", "20260102-000000-2"):
        d = paths.make_run_dir(rid)
        (open(os.path.join(d, "journal.json"), "w")).close()
    paths.point_latest("20260101-000000-1")
    assert paths.resolve_run(None) == str(tmp_path / "20260101-000000-1")  # the link, not the newest name
    paths.point_latest("20260102-000000-2")
    assert os.readlink(tmp_path / "latest") == "20260102-000000-2"
    assert paths.resolve_run("20260101-000000-1") == str(tmp_path / "20260101-000000-1")
    assert paths.resolve_run("../../etc") is None and paths.resolve_run("nonsense") is None


def test_restore_files_puts_everything_back(tmp_path):
    root = tmp_path
    (root / "etc").mkdir()
    (root / "bak").mkdir()
    (root / "etc/changed").write_text("new\n")
    (root / "bak/changed").write_text("old\n")
    (root / "etc/created").write_text("created by the run\n")
    os.symlink("/venvs/new", root / "etc/link")
    files = [
        {"path": "/etc/changed", "before": "file", "backup": "/bak/changed"},
        {"path": "/etc/created", "before": "absent"},
        {"path": "/etc/link", "before": "link", "link": "/venvs/old"},
        {"path": "/etc/lost", "before": "file", "backup": "/bak/missing"},
    ]
    dry = restore_files(files, str(root), dry_run=True)
    assert (root / "etc/changed").read_text() == "new\n" and len(dry.restored) == 3
    res = restore_files(files, str(root))
    assert (root / "etc/changed").read_text() == "old\n"
    assert not (root / "etc/created").exists()
    assert os.readlink(root / "etc/link") == "/venvs/old"
    assert res.problems == ["/etc/lost: its backup /bak/missing is missing; cannot restore it"]
    assert restore_files(files[:3], str(root)).restored == []  # a second time: nothing to do


def test_what_cannot_be_undone_comes_with_commands():
    changes = package_changes({"rocm": "6.2.4", "amdgpu-dkms": "1:6.8", "gone": "1"},
                              {"rocm": "6.4.3", "amdgpu-dkms": "1:6.12", "linux-headers-x": "6.8"})
    assert [c["name"] for c in changes] == ["amdgpu-dkms", "gone", "linux-headers-x", "rocm"]
    text = "\n".join(cannot_undo(changes, {"steps": []}))
    assert "sudo apt-get install --allow-downgrades amdgpu-dkms=1:6.8 rocm=6.2.4 gone=1" in text
    assert "sudo apt-get remove linux-headers-x" in text
    assert "amdgpu kernel module stays the new one (1:6.12)" in text


def _holder(path, seconds=None):
    """A process that holds the lock on ``path`` for ``seconds``, or (None) until a line arrives on its stdin."""
    release = "time.sleep(float(sys.argv[2]))" if seconds is not None else "sys.stdin.readline()"
    proc = subprocess.Popen([sys.executable, "-c",
                             "import fcntl, sys, time\n"
                             "f = open(sys.argv[1], 'w')\nfcntl.lockf(f, fcntl.LOCK_EX)\n"
                             f"print('locked', flush=True)\n{release}\n", path, str(seconds)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "locked"
    return proc


def test_lock_holder_is_found_and_waited_for(tmp_path):
    lock = tmp_path / "var/lib/dpkg/lock-frontend"
    lock.parent.mkdir(parents=True)
    lock.write_text("")
    assert preflight.lock_holder(str(lock)) is None
    proc = _holder(str(lock))
    try:
        assert preflight.lock_holder(str(lock)) == proc.pid
        said = []

        def say(message):  # the holder lets go only once the wait has begun: no clock involved
            said.append(message)
            if len(said) == 1:
                proc.stdin.write("release\n")
                proc.stdin.flush()

        assert preflight.wait_for_locks(say, 60, root=str(tmp_path), interval=0.1) is None
        assert "to release /var/lib/dpkg/lock-frontend" in said[0] and "lock is free" in said[-1]
        assert proc.wait(timeout=60) == 0  # it was waited for, not killed
    finally:
        proc.kill()
        proc.wait()


def test_lock_wait_is_bounded(tmp_path):
    lock = tmp_path / "var/lib/dpkg/lock-frontend"
    lock.parent.mkdir(parents=True)
    lock.write_text("")
    proc = _holder(str(lock), 30)
    try:
        why = preflight.wait_for_locks(lambda m: None, 0.5, root=str(tmp_path), interval=0.1)
        assert why and "still holds /var/lib/dpkg/lock-frontend after 0s" in why
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("env, expected", [
    ({"SSH_CONNECTION": "1 2 3 4"}, True), ({"SSH_TTY": "/dev/pts/1"}, True),
    ({"SSH_CONNECTION": "1 2 3 4", "TMUX": "/tmp/t,1,0"}, False), ({"SSH_CONNECTION": "1 2 3 4", "STY": "1.pts"}, False),
    ({"SSH_CONNECTION": "1 2 3 4", "ROCM_WIZARD_DETACHED": "1"}, False),
])
def test_ssh_without_a_multiplexer(env, expected):
    assert preflight.over_ssh_without_multiplexer(env) is expected
