"""The host guard (tests/rwtest/guard.py) stops what would change this machine, and only that."""
from __future__ import annotations

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
