"""Crashes and stops: SIGKILL at every step boundary and in the middle of dpkg, SIGTERM at a safe
point; ``rocm-wizard resume`` then converges with apt and dpkg clean."""
from __future__ import annotations

import signal

import pytest

from harness import checks, wizard

STEPS = ["rocm-key", "rocm-repos", "rocm-pin", "apt-update", "kernel-driver", "rocm-packages", "ld-conf",
         "ldconfig", "gpu-groups", "reboot-flag"]


def upgrade_args(world):
    return ["--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-mirror", world.radeon_url, "--allow-http-mirror",
            "--rocm-key-fingerprint", world.site.radeon_key.fingerprint]


def _converged(root, world):
    checks.assert_rocm_upgraded(root, world.new)
    checks.assert_dpkg_healthy(root)
    again = wizard.run(root, "--yes", "--no-verify", *upgrade_args(world))
    assert again.returncode == 0, again.stderr
    words = checks.step_lines(again.stderr)
    assert len(words) == len(STEPS) and set(words.values()) == {"ok"}, again.stderr



@pytest.mark.parametrize("step", STEPS)
def test_sigkill_after_each_step_then_resume_converges(rocm_old, apt_site, step):
    root = rocm_old
    res = wizard.run(root, "--yes", "--no-verify", *upgrade_args(apt_site),
                     extra_env={"ROCM_WIZARD_FAULT": f"kill-after:{step}"})
    assert res.returncode == -signal.SIGKILL, res.stderr
    j = checks.journal(root)
    assert j["state"] == "running"  # what a crash leaves: nobody wrote "finished"
    done = [s["id"] for s in j["steps"] if s["status"] in ("ok", "changed")]
    assert done == STEPS[:STEPS.index(step) + 1]
    resumed = wizard.run(root, "resume", "--no-verify")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stderr.count("skipped: done before the interruption") == len(done)
    j = checks.journal(root)
    assert j["state"] == "finished" and len(j["resumes"]) == 1
    # the linker cache is refreshed even when the crash came between the packages and ldconfig
    assert any(e["event"] == "command" and e["argv"] == ["ldconfig"] for e in checks.events(root))
    _converged(root, apt_site)


def test_sigkill_of_everything_in_the_middle_of_dpkg_then_resume(rocm_old, apt_site):
    root = rocm_old
    root.write("/run/rw-test-slow-postinst", "120\n")
    proc = wizard.popen(root, "--yes", "--no-verify", *upgrade_args(apt_site))
    checks.wait_for(root, "/run/rw-test-in-postinst")
    assert root.kill_all() >= 3  # the wizard, apt-get, dpkg and the maintainer script
    proc.wait(timeout=30)
    assert "rocm-core" in root.dpkg_audit()  # dpkg really was cut off
    assert checks.journal(root)["steps"][STEPS.index("rocm-packages")]["status"] == "running"
    resumed = wizard.run(root, "resume", "--no-verify")
    assert resumed.returncode == 0, resumed.stderr
    assert "dpkg was interrupted during step rocm-packages" in resumed.stderr
    _converged(root, apt_site)


def test_sigterm_lets_the_step_finish_then_stops_and_resume_finishes(rocm_old, apt_site):
    root = rocm_old
    root.write("/run/rw-test-slow-postinst", "3\n")
    proc = wizard.popen(root, "--yes", "--no-verify", *upgrade_args(apt_site))
    checks.wait_for(root, "/run/rw-test-in-postinst")
    root.signal(proc, signal.SIGTERM)  # the wizard's python itself
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err  # bwrap passes the command's exit status on
    assert "SIGTERM received: the running step finishes first" in err
    assert root.dpkg_audit() == ""  # dpkg was not interrupted
    j = checks.journal(root)
    statuses = {s["id"]: s["status"] for s in j["steps"]}
    assert j["state"] == "interrupted"
    assert statuses["rocm-packages"] == "changed"
    assert all(statuses[s] == "skipped" for s in STEPS[STEPS.index("rocm-packages") + 1:])
    resumed = wizard.run(root, "resume", "--no-verify")
    assert resumed.returncode == 0, resumed.stderr
    assert "ran ldconfig" in resumed.stderr  # needed after the packages changed in the first part
    _converged(root, apt_site)
    done = wizard.run(root, "resume")
    assert done.returncode == 0 and "nothing to resume" in done.stderr


def test_resume_refuses_a_run_that_is_still_going(rocm_old, apt_site):
    root = rocm_old
    root.write("/run/rw-test-slow-postinst", "4\n")
    proc = wizard.popen(root, "--yes", "--no-verify", *upgrade_args(apt_site))
    checks.wait_for(root, "/run/rw-test-in-postinst")
    res = wizard.run(root, "resume")
    assert res.returncode == 1 and "still going" in res.stderr and "--follow" in res.stderr
    other = wizard.run(root, "--yes", "--no-verify", *upgrade_args(apt_site))
    assert other.returncode == 1 and "another rocm-wizard run is in progress (pid " in other.stderr
    follow = wizard.run(root, "resume", "--follow")
    proc.wait(timeout=60)
    assert follow.returncode == 0, follow.stderr
    assert "summary: 10 steps" in follow.stdout


def test_resume_refuses_when_the_system_no_longer_matches_the_plan(rocm_old, apt_site):
    """Every field of the plan's fingerprint is re-checked (the script's rule), not only the OS and
    the kernel: here ROCm was changed behind the interrupted run's back."""
    root = rocm_old
    res = wizard.run(root, "--yes", "--no-verify", *upgrade_args(apt_site),
                     extra_env={"ROCM_WIZARD_FAULT": "kill-after:rocm-key"})
    assert res.returncode == -signal.SIGKILL, res.stderr
    root.write("/opt/rocm/.info/version", "5.7.1-98\n")
    resumed = wizard.run(root, "resume", "--no-verify")
    assert resumed.returncode == 1, resumed.stderr
    assert "refusing to resume: this plan was made for another system" in resumed.stderr
    assert "rocm: this system has '5.7.1'" in resumed.stderr
    assert checks.journal(root)["state"] == "running"  # nothing ran: the journal is as the crash left it
