"""The ``--plan-only`` shell script, made inside the test root and run there with bash: the same
scenarios as the executor's (upgrade, second run, crashes, wrong key, unreachable repository,
torch downgrade with the variable persisted, odd venv path)."""
from __future__ import annotations

import os
import signal
import time

import pytest

from harness import checks, wizard
from harness.wheels import read_version_py

from test_exec_torch import make_torch_venv

STEPS = ["rocm-key", "rocm-repos", "rocm-pin", "apt-update", "kernel-driver", "rocm-packages", "ld-conf",
         "ldconfig", "gpu-groups", "reboot-flag"]


def upgrade_args(world, fingerprint=None):
    return ["--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-mirror", world.radeon_url, "--allow-http-mirror",
            "--rocm-key-fingerprint", fingerprint or world.site.radeon_key.fingerprint]


def make_script(root, *args, name="/root/plan.sh"):
    res = wizard.run(root, "--plan-only", *args)
    assert res.returncode in (0, 2), res.stderr
    assert res.stdout.startswith("#!/usr/bin/env bash")
    root.write(name, res.stdout, mode=0o755)
    return name


def run_script(root, script, env=None, timeout=300):
    return root.run(["bash", script], env=env, timeout=timeout)


def kill_before(root, step_index):
    """A BASH_ENV that SIGKILLs the script right before it calls step N (a real kill -9 at a step
    boundary, the script itself unchanged)."""
    root.write("/root/kill.bash", "set -T\n"
               f"trap '[[ $BASH_COMMAND == step_{step_index:02d}_* ]] && kill -9 $$' DEBUG\n")
    return {"BASH_ENV": "/root/kill.bash"}


def test_script_upgrades_and_a_second_run_changes_nothing(rocm_old, apt_site):
    root = rocm_old
    script = make_script(root, *upgrade_args(apt_site))
    dry = root.run(["bash", script], env={"DRY_RUN": "1"})
    assert dry.returncode == 2, dry.stderr
    res = run_script(root, script)
    assert res.returncode == 0, res.stderr
    checks.assert_rocm_upgraded(root, apt_site.new)
    checks.assert_dpkg_healthy(root)
    apt_site.radeon.requests.clear()
    again = run_script(root, script)
    assert again.returncode == 0, again.stderr
    assert "done: 0 step(s) changed the system" in again.stderr
    assert not apt_site.radeon.fetched("InRelease")


@pytest.mark.parametrize("index", range(2, len(STEPS) + 1))
def test_script_killed_at_a_step_boundary_then_run_again_converges(rocm_old, apt_site, index):
    root = rocm_old
    script = make_script(root, *upgrade_args(apt_site))
    first = run_script(root, script, env=kill_before(root, index))
    assert first.returncode == -signal.SIGKILL or first.returncode == 128 + signal.SIGKILL, first.stderr
    assert f"==> [{index}]" not in first.stderr and f"==> [{index - 1}]" in first.stderr
    again = run_script(root, script)
    assert again.returncode == 0, again.stderr
    checks.assert_rocm_upgraded(root, apt_site.new)
    checks.assert_dpkg_healthy(root)
    assert "done: 0 step(s)" in run_script(root, script).stderr


def test_script_killed_in_the_middle_of_dpkg_then_run_again(rocm_old, apt_site):
    root = rocm_old
    script = make_script(root, *upgrade_args(apt_site))
    root.write("/run/rw-test-slow-postinst", "120\n")
    proc = root.popen(["bash", script])
    end = time.monotonic() + 60
    while not root.exists("/run/rw-test-in-postinst") and time.monotonic() < end:
        time.sleep(0.1)
    assert root.kill_all() >= 3
    proc.wait(timeout=30)
    assert root.dpkg_audit() != ""
    again = run_script(root, script)
    assert again.returncode == 0, again.stderr
    checks.assert_rocm_upgraded(root, apt_site.new)
    checks.assert_dpkg_healthy(root)


def test_script_killed_before_ldconfig_runs_it_on_the_next_run(rocm_old, apt_site):
    """The linker cache is judged by what it is made from, not only by what changed in this run."""
    root = rocm_old
    script = make_script(root, *upgrade_args(apt_site))
    first = run_script(root, script, env=kill_before(root, STEPS.index("ldconfig") + 1))
    assert first.returncode in (-signal.SIGKILL, 128 + signal.SIGKILL), first.stderr
    cache = root.host_path("/etc/ld.so.cache")
    libdir = root.host_path(f"/opt/rocm-{apt_site.new.version}/lib")
    assert os.stat(cache).st_mtime_ns < os.stat(libdir).st_ctime_ns  # the kill left the cache stale
    again = run_script(root, script)
    assert again.returncode == 0, again.stderr
    ldconfig = again.stderr.split("==> [8]")[1].split("==> [9]")[0]
    assert "changed after /etc/ld.so.cache was written" in ldconfig and "+ ldconfig" in ldconfig
    assert os.stat(cache).st_mtime_ns >= os.stat(libdir).st_ctime_ns
    third = run_script(root, script)
    assert third.returncode == 0 and "done: 0 step(s)" in third.stderr, third.stderr


def test_script_with_a_wrong_key_fingerprint_changes_nothing(rocm_old, apt_site):
    root = rocm_old
    before = checks.apt_state(root)
    script = make_script(root, *upgrade_args(apt_site, fingerprint=apt_site.rogue_key.fingerprint))
    res = run_script(root, script)
    assert res.returncode != 0
    assert "nothing was written" in res.stderr
    assert checks.apt_state(root) == before


def test_script_with_the_repository_unreachable_restores_the_sources(rocm_old, apt_site):
    root = rocm_old
    before = checks.apt_state(root)
    script = make_script(root, *upgrade_args(apt_site))
    apt_site.radeon.stop()
    res = run_script(root, script)
    assert res.returncode != 0
    assert "apt-get update" in res.stderr
    after = checks.apt_state(root)
    assert after == before, "the script left the system changed after the repository was unreachable"


def test_script_torch_downgrade_in_an_odd_venv_path(wroot, pyindex):
    root = wroot
    venv = "/srv/my envs/it's \"ml\""
    make_torch_venv(root, pyindex, venv)
    script = make_script(root, "--path", "torch-reinstall", "--torch", "2.4.1+rocm6.1", "--venv", venv,
                         "--venv-mode", "existing", "--torch-index-url", pyindex.url("rocm6.1"))
    res = run_script(root, script)
    assert res.returncode == 0, res.stderr
    import glob

    sp = glob.glob(glob.escape(root.host_path(venv)) + "/lib/python3*/site-packages")[0]
    assert read_version_py(sp)["__version__"] == "2.4.1+rocm6.1"
    got = root.run(["bash", "-c", '. "$0/bin/activate"; printf %s "$TORCH_BLAS_PREFER_HIPBLASLT"', venv]).stdout
    assert got == "0"
    again = run_script(root, script)
    assert again.returncode == 0 and "done: 0 step(s)" in again.stderr, again.stderr
    assert root.read(venv + "/bin/activate").count("export TORCH_BLAS_PREFER_HIPBLASLT=") == 1
    assert os.path.exists(root.host_path(venv + "/rocm-wizard.env"))


def test_script_new_venv_mode_moves_a_venv_directory_aside(wroot, pyindex):
    """The script's venv switch on a venv made in place: the directory is moved aside (named after
    its torch), the path becomes a link to the new venv; a second run changes nothing."""
    root = wroot
    venv = "/srv/ml env"
    make_torch_venv(root, pyindex, venv)
    script = make_script(root, "--path", "torch-reinstall", "--torch", "2.4.1+rocm6.1", "--venv", venv,
                         "--venv-mode", "new", "--torch-index-url", pyindex.url("rocm6.1"))
    res = run_script(root, script)
    assert res.returncode == 0, res.stderr
    aside, new = venv + "-torch2.5.1-rocm6.2", venv + "-torch2.4.1-rocm6.1"
    assert os.readlink(root.host_path(venv)) == new
    import glob

    for path, version in ((aside, "2.5.1+rocm6.2"), (new, "2.4.1+rocm6.1")):
        sp = glob.glob(glob.escape(root.host_path(path)) + "/lib/python3*/site-packages")[0]
        assert read_version_py(sp)["__version__"] == version
    assert f"the previous venv {aside} is kept" in res.stderr, res.stderr
    again = run_script(root, script)
    assert again.returncode == 0 and "done: 0 step(s)" in again.stderr, again.stderr


def test_script_torch_downgrade_from_inside_the_activated_venv(wroot, pyindex):
    """The same downgrade planned from inside the activated venv (VIRTUAL_ENV), an odd path too."""
    root = wroot
    venv = "/srv/my envs/it's \"ml\""
    make_torch_venv(root, pyindex, venv)
    res = wizard.run(root, "--plan-only", "--path", "torch-reinstall", "--torch", "2.4.1+rocm6.1", "--venv", venv,
                     "--venv-mode", "existing", "--torch-index-url", pyindex.url("rocm6.1"),
                     extra_env={"VIRTUAL_ENV": venv})
    assert res.returncode == 2, res.stderr
    root.write("/root/plan.sh", res.stdout, mode=0o755)
    run = run_script(root, "/root/plan.sh")
    assert run.returncode == 0, run.stderr
    import glob

    sp = glob.glob(glob.escape(root.host_path(venv)) + "/lib/python3*/site-packages")[0]
    values = read_version_py(sp)
    assert (values["__version__"], values["hip"]) == ("2.4.1+rocm6.1", "6.1.40091-a8dbc0c19")
    got = root.run(["bash", "-c", '. "$0/bin/activate"; printf %s "$TORCH_BLAS_PREFER_HIPBLASLT"', venv]).stdout
    assert got == "0"
    again = run_script(root, "/root/plan.sh")
    assert again.returncode == 0 and "done: 0 step(s)" in again.stderr, again.stderr
    assert root.read(venv + "/bin/activate").count("export TORCH_BLAS_PREFER_HIPBLASLT=") == 1


def test_script_as_a_user_without_root_says_so_and_changes_nothing(rocm_old, apt_site):
    root = rocm_old
    root.add_user("alice")
    before = checks.apt_state(root)
    script = make_script(root, *upgrade_args(apt_site))
    root.run(["chmod", "0755", "/root"])
    res = root.run(["bash", script], user="alice")
    assert res.returncode == 1
    assert "needs root: run this script with sudo" in res.stderr
    assert checks.apt_state(root) == before
