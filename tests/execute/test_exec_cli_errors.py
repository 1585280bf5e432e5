"""Bad input to --yes / resume / rollback gets a plain message and the right exit status.

Each command runs in the read-only root (rwtest.sandbox): only the test's directory is writable,
so a validation that let a run through could not change this machine."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from rwtest import sandbox


def run(*args, tmp_path, env=None):
    e = dict(os.environ)
    e["ROCM_WIZARD_LOG_DIR"] = str(tmp_path / "logs")
    e.update(env or {})
    argv = sandbox.argv([sys.executable, "-m", "rocm_wizard", *args], writable=[tmp_path], chdir=str(tmp_path))
    p = subprocess.run(argv, capture_output=True, text=True, env=e, timeout=120)
    assert "Traceback" not in p.stderr, p.stderr
    return p


@pytest.mark.parametrize("args, code, message", [
    (["--yes", "--dry-run"], 64, "choose one of --yes"),
    (["--yes", "--snapshot", "x.json"], 64, "--snapshot and --root are for --plan-only"),
    (["--yes", "--answers", "/nonexistent/answers.toml"], 1, "does not exist"),
    (["--yes", "--lock-timeout", "-3"], 64, "must be between 0 and 86400"),
    (["--yes", "--env", "NOEQUALS"], 64, "expected NAME=VALUE"),
])
def test_bad_command_lines(tmp_path, args, code, message):
    p = run(*args, tmp_path=tmp_path)
    assert p.returncode == code and message in p.stderr, p.stderr


def test_bad_answers_file(tmp_path):
    f = tmp_path / "a.toml"
    f.write_text("path = [1, 2]\n")
    p = run("--yes", "--answers", str(f), tmp_path=tmp_path)
    assert p.returncode == 1 and "path must be a string" in p.stderr


def test_resume_and_rollback_without_runs(tmp_path):
    for cmd in ("resume", "rollback"):
        p = run(cmd, tmp_path=tmp_path)
        assert p.returncode == 1 and "no run in" in p.stderr
    p = run("resume", "20260101-000000-1", tmp_path=tmp_path)
    assert p.returncode == 1 and "no run '20260101-000000-1'" in p.stderr


def test_damaged_run_directory(tmp_path):
    run_dir = tmp_path / "logs" / "20260101-000000-1"
    run_dir.mkdir(parents=True)
    (run_dir / "journal.json").write_text("{not json")
    for cmd in ("resume", "rollback"):
        p = run(cmd, tmp_path=tmp_path)
        assert p.returncode == 1 and "damaged" in p.stderr
    (run_dir / "journal.json").write_text(json.dumps({
        "format": "rocm-wizard-journal", "version": 1, "run_id": "20260101-000000-1", "state": "interrupted",
        "steps": [{"id": "a", "status": "changed"}], "files": [], "pid": 0}))
    p = run("resume", tmp_path=tmp_path)
    assert p.returncode == 1 and "cannot read the run's plan" in p.stderr
    p = run("rollback", tmp_path=tmp_path)
    assert p.returncode == 0 and "no file to restore" in p.stdout
