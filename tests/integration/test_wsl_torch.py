"""The torch-reinstall plan in a Debian root posing as WSL 2 with ROCm's 6.x WSL runtime: WSL_DISTRO_NAME
in the environment, /dev/dxg and /usr/lib/wsl/lib in the root, a stand-in hsa-runtime-rocr4wsl-amdgpu
installed with dpkg.  The plan picks a ROCm 6.x wheel and removes the wheel's own libhsa-runtime64 from
torch/lib as the venv's owner (AMD's WSL steps); `--yes` converges, a second run changes nothing,
`--dry-run` and the script's DRY_RUN=1 change nothing."""
from __future__ import annotations

import glob
import os

from harness import checks, wizard
from harness.debs import DebSpec, build_deb
from harness.wheels import read_version_py

from test_exec_torch import make_torch_venv

WSL = {"WSL_DISTRO_NAME": "Debian"}
VENV = "/home/alice/ml env"
OWN = "torch/lib/libhsa-runtime64.so"


def _pose_as_wsl(root, tmp_path):
    root.write("/dev/dxg", "")
    for lib in ("libdxcore.so", "libd3d12.so", "libd3d12core.so"):
        root.write("/usr/lib/wsl/lib/" + lib, "")
    deb = build_deb(DebSpec("hsa-runtime-rocr4wsl-amdgpu", "1.14.0.60304-2089753.24.04",
                            files={"/opt/rocm-6.3.4/lib/libhsa-runtime64.so.1.14.0": "stand-in WSL runtime\n"}),
                    str(tmp_path / "debs"))
    root.bind(str(tmp_path / "debs"), "/opt/rw-wsl-debs")
    root.run(["dpkg", "-i", "/opt/rw-wsl-debs/" + os.path.basename(deb)], check=True)


def _site(root, venv):
    found = glob.glob(glob.escape(root.host_path(venv)) + "/lib/python3*/site-packages")
    assert found, venv
    return found[0]


def _alices_venv(root, pyindex) -> str:
    """alice's venv ``VENV`` with torch 2.5.1+rocm6.2 (made and filled as her); its site-packages."""
    root.add_user("alice")
    make_torch_venv(root, pyindex, VENV, user="alice")
    return _site(root, VENV)


def _args(pyindex):
    return ["--path", "torch-reinstall", "--torch", "2.4.1+rocm6.1", "--venv", VENV, "--venv-mode", "existing",
            "--torch-index-url", pyindex.url("rocm6.1")]


def test_wsl_torch_plan_removes_the_wheels_own_runtime_and_converges(wroot, pyindex, tmp_path):
    root = wroot
    _pose_as_wsl(root, tmp_path)
    site = _alices_venv(root, pyindex)
    assert os.path.exists(os.path.join(site, OWN))

    detect = wizard.run(root, "detect", "--json", "--venv", VENV, extra_env=WSL)
    assert detect.returncode == 0, detect.stderr
    assert '"wsl_userspace": "rocr4wsl"' in detect.stdout and '"wsl_dxg": true' in detect.stdout
    assert '"libhsa-runtime64.so"' in detect.stdout  # torch[].bundled_hsa

    plan = wizard.run(root, "--plan-only", *_args(pyindex), extra_env=WSL)
    assert plan.returncode in (0, 2), plan.stderr
    assert "WSL: remove the wheel's own HSA runtime" in plan.stdout
    root.write("/root/plan.sh", plan.stdout, mode=0o755)
    watched = ["/home/alice"]
    before = root.snapshot(watched)
    dry = root.run(["bash", "/root/plan.sh"], env={"DRY_RUN": "1", **WSL})
    assert dry.returncode == 2, dry.stderr[-3000:]
    assert root.snapshot(watched) == before
    cli_dry = wizard.run(root, "--dry-run", *_args(pyindex), extra_env=WSL)
    assert cli_dry.returncode in (0, 2), cli_dry.stderr[-3000:]
    assert root.snapshot(watched) == before

    res = wizard.run(root, "--yes", "--no-verify", *_args(pyindex), extra_env=WSL)
    assert res.returncode == 0, res.stderr[-4000:]
    assert read_version_py(site)["__version__"] == "2.4.1+rocm6.1"
    assert not glob.glob(os.path.join(glob.escape(site), "torch", "lib", "libhsa-runtime64.so*"))
    assert "removed libhsa-runtime64.so" in res.stderr
    assert "runuser -u alice" in res.stderr or os.stat(root.host_path(VENV)).st_uid != 0

    again = wizard.run(root, "--yes", "--no-verify", *_args(pyindex), extra_env=WSL)
    assert again.returncode == 0, again.stderr[-4000:]
    words = checks.step_lines(again.stderr)
    assert words and set(words.values()) == {"ok"}, again.stderr[-4000:]


def _playbook_three_runs(root, pyindex, ansible_in, names: str, converged) -> None:
    """The torch-reinstall playbook (torch 2.5.1+rocm6.2 -> 2.4.1+rocm6.1) for a root-owned venv of a
    host posing as WSL, the molecule-style way: ``--check --diff`` changes nothing, the run converges
    (``converged(site)`` asserts what became of torch/lib's runtime), a second run reports changed=0.
    ``names``: what the playbook must name (its WSL runtime step)."""
    from harness import ansible

    venv = "/srv/venvs/ml"
    make_torch_venv(root, pyindex, venv)  # python3 -m venv + pip install, as root
    ansible_in(root)
    args = ["--path", "torch-reinstall", "--torch", "2.4.1+rocm6.1", "--venv", venv, "--venv-mode", "existing",
            "--torch-index-url", pyindex.url("rocm6.1")]
    res = wizard.run(root, "--plan-only", "--format", "ansible", *args, extra_env=WSL)
    assert res.returncode in (0, 2), res.stderr
    assert names in res.stdout
    root.write("/root/torch.yml", res.stdout)
    site = _site(root, venv)
    before = root.snapshot([venv])

    check = ansible.playbook(root, "/root/torch.yml", "--check", "--diff")
    assert check.returncode == 0, check.stdout[-6000:] + check.stderr[-3000:]
    assert root.snapshot([venv]) == before

    run = ansible.playbook(root, "/root/torch.yml")
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert read_version_py(site)["__version__"] == "2.4.1+rocm6.1"
    converged(site)

    again = ansible.playbook(root, "/root/torch.yml")
    assert again.returncode == 0, again.stdout[-6000:] + again.stderr[-3000:]
    counts = ansible.recap(again.stdout)
    assert counts["changed"] == 0 and counts["failed"] == 0, ansible.changed_tasks(again.stdout)


def test_wsl_torch_playbook_removes_the_runtime_check_converge_and_changed_0(wroot, pyindex, ansible_in, tmp_path):
    _pose_as_wsl(wroot, tmp_path)

    def converged(site):
        assert not glob.glob(os.path.join(glob.escape(site), "torch", "lib", "libhsa-runtime64.so*"))

    _playbook_three_runs(wroot, pyindex, ansible_in, "libhsa-runtime64.so*", converged)


def _pose_as_wsl_613(root, tmp_path):
    """A WSL host on ROCm 6.1.3's WSL runtime (the releases whose AMD steps copy the runtime into torch/lib)."""
    root.write("/dev/dxg", "")
    for lib in ("libdxcore.so", "libd3d12.so"):
        root.write("/usr/lib/wsl/lib/" + lib, "")
    deb = build_deb(DebSpec("hsa-runtime-rocr4wsl-amdgpu", "1.13.0.60103-1871153.22.04",
                            files={"/opt/rocm-6.1.3/lib/libhsa-runtime64.so.1.2": "stand-in 6.1.3 WSL runtime\n",
                                   "/opt/rocm-6.1.3/.info/version": "6.1.3-122\n"}),
                    str(tmp_path / "debs613"))
    root.bind(str(tmp_path / "debs613"), "/opt/rw-wsl-debs")
    root.run(["dpkg", "-i", "/opt/rw-wsl-debs/" + os.path.basename(deb)], check=True)
    os.symlink("/opt/rocm-6.1.3", root.host_path("/opt/rocm"))


def test_wsl_613_torch_plan_copies_the_hosts_runtime_in_as_the_venv_owner(wroot, pyindex, tmp_path):
    """ROCm 6.1.3-6.2 under WSL: AMD's steps remove the wheel's libhsa-runtime64.so* and copy
    /opt/rocm/lib/libhsa-runtime64.so.1.2 in as libhsa-runtime64.so; the venv's owner does it, DRY_RUN
    and --dry-run change nothing, `--yes` converges, rollback puts the wheel's file back, and after a
    new run a second one has nothing to do."""
    root = wroot
    _pose_as_wsl_613(root, tmp_path)
    site = _alices_venv(root, pyindex)

    plan = wizard.run(root, "--plan-only", *_args(pyindex), extra_env=WSL)
    assert plan.returncode in (0, 2), plan.stderr
    assert "copy /opt/rocm/lib/libhsa-runtime64.so.1.2 into torch/lib" in plan.stdout, plan.stdout[:3000]
    root.write("/root/plan.sh", plan.stdout, mode=0o755)
    before = root.snapshot(["/home/alice"])
    dry = root.run(["bash", "/root/plan.sh"], env={"DRY_RUN": "1", **WSL})
    assert dry.returncode == 2, dry.stderr[-3000:]
    cli_dry = wizard.run(root, "--dry-run", *_args(pyindex), extra_env=WSL)
    assert cli_dry.returncode in (0, 2), cli_dry.stderr[-3000:]
    assert root.snapshot(["/home/alice"]) == before

    res = wizard.run(root, "--yes", "--no-verify", *_args(pyindex), extra_env=WSL)
    assert res.returncode == 0, res.stderr[-4000:]
    assert read_version_py(site)["__version__"] == "2.4.1+rocm6.1"
    libs = glob.glob(os.path.join(glob.escape(site), "torch", "lib", "libhsa-runtime64.so*"))
    assert [os.path.basename(f) for f in libs] == ["libhsa-runtime64.so"], libs
    assert open(libs[0]).read() == "stand-in 6.1.3 WSL runtime\n"
    assert os.stat(libs[0]).st_uid == os.stat(root.host_path(VENV)).st_uid != 0  # written as the venv's owner

    back = wizard.run(root, "rollback", extra_env=WSL)  # the wheel's own libhsa-runtime64.so comes back
    assert back.returncode == 0, back.stderr[-4000:]
    assert os.path.isfile(libs[0]) and open(libs[0], "rb").read() != b"stand-in 6.1.3 WSL runtime\n"

    res = wizard.run(root, "--yes", "--no-verify", *_args(pyindex), extra_env=WSL)
    assert res.returncode == 0, res.stderr[-4000:]
    assert open(libs[0]).read() == "stand-in 6.1.3 WSL runtime\n"
    again = wizard.run(root, "--yes", "--no-verify", *_args(pyindex), extra_env=WSL)
    assert again.returncode == 0, again.stderr[-4000:]
    words = checks.step_lines(again.stderr)
    assert words and set(words.values()) == {"ok"}, again.stderr[-4000:]


def test_wsl_613_torch_playbook_copies_the_runtime_in_check_converge_and_changed_0(wroot, pyindex, ansible_in, tmp_path):
    """The 6.1.3-6.2 copy-back as a playbook: --check changes nothing, the run leaves torch/lib with
    just libhsa-runtime64.so equal to /opt/rocm/lib/libhsa-runtime64.so.1.2, a second run reports changed=0."""
    _pose_as_wsl_613(wroot, tmp_path)

    def converged(site):
        libs = glob.glob(os.path.join(glob.escape(site), "torch", "lib", "libhsa-runtime64.so*"))
        assert [os.path.basename(f) for f in libs] == ["libhsa-runtime64.so"], libs
        assert open(libs[0]).read() == "stand-in 6.1.3 WSL runtime\n"

    _playbook_three_runs(wroot, pyindex, ansible_in, "/opt/rocm/lib/libhsa-runtime64.so.1.2", converged)
