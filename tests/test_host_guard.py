"""The host guard (tests/rwtest/guard.py) stops what would change this machine, and only that."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from rwtest import guard, sandbox

SCRIPT_HEAD = "#!/usr/bin/env bash\n# rocm-wizard plan: Upgrade ROCm\n"


@pytest.mark.parametrize("argv", [
    ["rocm-wizard", "--yes", "--answers", "a.toml"],
    ["/usr/bin/python3", "-m", "rocm_wizard", "--yes"],
    ["python3", "-m", "rocm_wizard", "resume", "latest"],
    ["rocm-wizard", "--no-verify", "rollback"],
    ["bash", "-c", SCRIPT_HEAD + "rw_main\n"],
])
def test_what_runs_a_plan_on_the_host_is_stopped(argv):
    assert guard.why(argv)


@pytest.mark.parametrize("argv", [
    ["rocm-wizard", "--plan-only", "--path", "docker"],
    ["rocm-wizard", "doctor", "--json"],
    ["python3", "-m", "rocm_wizard", "detect", "--json"],
    ["/usr/bin/bwrap", "--ro-bind", "/", "/", "--", "rocm-wizard", "--yes"],
    ["unshare", "--mount", "--", "/bin/sh", "-c", "chroot /r python3 -m rocm_wizard --yes"],
    ["gpg", "--batch", "--yes", "--dearmor"],
    ["bash", "-n", "plan.sh"],
])
def test_what_cannot_change_the_host_runs(argv):
    assert guard.why(argv) is None


def test_a_plan_script_file_run_by_a_shell_is_stopped_not_checked(tmp_path):
    script = tmp_path / "plan.sh"
    script.write_text(SCRIPT_HEAD + "rw_main\n")
    assert guard.why(["bash", str(script)]) and guard.why([str(script)])
    assert guard.why(["shellcheck", str(script)]) is None  # reading it is fine


def test_popen_is_refused_before_anything_starts(tmp_path):
    start = len(guard.violations)
    mark = tmp_path / "started"
    with pytest.raises(guard.HostGuardError, match="runs `rocm-wizard --yes"):
        subprocess.run([sys.executable, "-m", "rocm_wizard", "--yes", "--answers", str(mark)])
    assert guard.violations[start:] and not mark.exists()
    del guard.violations[start:]  # seen; this test is about the refusal itself


def test_the_sandbox_wrapper_is_allowed(tmp_path):
    wrapper = sandbox.executable(tmp_path)
    assert guard.why([wrapper, "-m", "rocm_wizard", "--yes"]) is None


def test_the_executor_refuses_this_machines_root_in_the_test_process(tmp_path):
    from rocm_wizard.execute.engine import Executor

    start = len(guard.violations)
    with pytest.raises(guard.HostGuardError, match="executor on this machine's /"):
        Executor(None, None, None, root="/")
    del guard.violations[start:]


def test_the_read_only_root_keeps_the_host_as_it_is(tmp_path):
    outside = "/etc/rwtest-must-not-exist"
    res = subprocess.run(sandbox.argv(["sh", "-c", f"touch {outside}; echo $? > {tmp_path}/rc; echo ok > {tmp_path}/w"],
                                      writable=[tmp_path]), capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "rc").read_text().strip() != "0" and (tmp_path / "w").read_text() == "ok\n"
    assert not os.path.exists(outside)


def test_recorders_take_the_place_of_commands_that_change_a_system(tmp_path):
    rec = sandbox.recorders(tmp_path)
    env = {"PATH": f"{rec}:/usr/bin:/bin"}
    res = subprocess.run(sandbox.argv(["sh", "-c", "apt-get install -y rocm; usermod -a -G render dev"],
                                      writable=[tmp_path]), env=env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 1 and "rwtest recorder: usermod does not run in a fake root" in res.stderr
    assert sandbox.recorded(tmp_path) == ["apt-get install -y rocm", "usermod -a -G render dev"]
