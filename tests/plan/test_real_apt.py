"""The generated rocm-upgrade script, run for real: inside a Debian root (that says it is Ubuntu
22.04) against the local signed stand-in of repo.radeon.com from the integration harness
(tests/integration/harness).  The first run upgrades 6.2.4 -> 6.4.3; the second changes nothing;
a dry run then says there is nothing to do; a wrong key is refused before anything is written."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from rwtest import ci

from plan_helpers import REPO, run_cli

pytestmark = [pytest.mark.integration, pytest.mark.slow]

sys.path.insert(0, str(REPO / "tests" / "integration"))


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    from harness import debroot as debroot_mod
    from harness.procs import missing_prerequisites
    from harness.sites import build_apt_world

    reasons = missing_prerequisites()
    if reasons:
        ci.missing("integration tier unavailable: " + "; ".join(reasons))
    kernel = os.uname().release
    apt = build_apt_world(str(tmp_path_factory.mktemp("aptworld")), kernel)
    image = debroot_mod.ensure_image(log=lambda m: print(m, file=sys.stderr))
    base = debroot_mod.BaseTree(image, str(tmp_path_factory.mktemp("roots")))
    yield apt, base, kernel
    apt.radeon.stop()
    apt.distro.stop()
    for key in (apt.site.radeon_key, apt.site.distro_key, apt.rogue_key):
        key.close()  # its gpg-agent and /tmp/rw-gpg-* secret keys
    base.close()


def _system(tmp: Path, kernel: str) -> str:
    from rocm_wizard import model

    s = model.System(origin="snapshot")
    s.os = model.OSInfo(id="ubuntu", version_id="22.04", codename="jammy", pretty_name="Ubuntu 22.04.5 LTS",
                        kernel=kernel, wsl=False)
    s.gpus = [model.GPU(vendor_id="1002", device_id="744c", revision="c8", gfx_target="gfx1100", kind="dgpu",
                        name="AMD Radeon RX 7900 XTX")]
    s.rocm = model.RocmInfo(version="6.2.4")
    s.access = model.AccessInfo(user="dev")
    path = tmp / "system.json"
    path.write_text(json.dumps(model.to_dict(s)))
    return str(path)


def _plan(tmp: Path, kernel: str, apt, fingerprint: str) -> str:
    rc, script, err = run_cli(["--plan-only", "--snapshot", _system(tmp, kernel), "--path", "rocm-upgrade",
                               "--rocm", "6.4.3", "--rocm-mirror", apt.radeon_url, "--allow-http-mirror", "--rocm-key-fingerprint", fingerprint])
    assert rc == 2, err
    return script


def _root(apt, base):
    from harness import wizard

    root = base.new_root()
    root.make_ubuntu("jammy", "22.04")
    root.add_user("dev", 1000)
    wizard.add_gpu(root)
    apt.install_rocm(root, apt.old)
    # the groups a real Ubuntu has
    root.run(["groupadd", "-f", "render"], check=True)
    root.run(["groupadd", "-f", "video"], check=True)
    return root


def test_upgrade_then_nothing_to_do(world, tmp_path):
    apt, base, kernel = world
    root = _root(apt, base)
    try:
        assert root.installed_version("rocm-core") == apt.old.deb_version("jammy")
        root.write("/root/plan.sh", _plan(tmp_path, kernel, apt, apt.site.radeon_key.fingerprint))
        first = root.run(["bash", "/root/plan.sh"], env={"SUDO_USER": "dev"}, timeout=900)
        assert first.returncode == 0, first.stdout + first.stderr
        assert root.installed_version("rocm-core") == apt.new.deb_version("jammy")
        assert root.installed_version("amdgpu-dkms") == apt.new.dkms_version("jammy")
        rocm_list = root.read("/etc/apt/sources.list.d/rocm.list")
        assert f"{apt.radeon_url}/rocm/apt/6.4.3 jammy main" in rocm_list and "6.2.4" not in rocm_list
        assert root.read("/etc/ld.so.conf.d/rocm.conf") == "/opt/rocm/lib\n/opt/rocm/lib64\n"
        groups = root.run(["id", "-nG", "dev"]).stdout.split()
        assert "render" in groups and "video" in groups
        assert root.exists("/run/reboot-required")
        second = root.run(["bash", "/root/plan.sh"], env={"SUDO_USER": "dev"}, timeout=900)
        assert second.returncode == 0, second.stderr
        assert "done: 0 step(s) changed the system" in second.stderr
        dry = root.run(["bash", "/root/plan.sh"], env={"SUDO_USER": "dev", "DRY_RUN": "1"}, timeout=300)
        assert dry.returncode == 0 and "dry run: nothing to do" in dry.stderr
    finally:
        root.close()


def test_a_wrong_key_is_refused_before_anything_is_written(world, tmp_path):
    apt, base, kernel = world
    root = _root(apt, base)
    try:
        root.remove("/etc/apt/keyrings/rocm.gpg")
        before = root.snapshot(["/etc/apt/sources.list.d/rocm.list", "/etc/apt/sources.list.d/amdgpu.list"])
        root.write("/root/plan.sh", _plan(tmp_path, kernel, apt, apt.rogue_key.fingerprint))
        res = root.run(["bash", "/root/plan.sh"], timeout=300)
        assert res.returncode == 1 and "nothing was written" in res.stderr
        assert not root.exists("/etc/apt/keyrings/rocm.gpg")
        assert root.snapshot(["/etc/apt/sources.list.d/rocm.list", "/etc/apt/sources.list.d/amdgpu.list"]) == before
    finally:
        root.close()


@pytest.fixture(scope="module")
def pyindex(tmp_path_factory):
    from harness.sites import build_py_index

    index = build_py_index(str(tmp_path_factory.mktemp("pyindex")))
    yield index
    index.server.stop()


def _torch_system(tmp: Path, kernel: str, venv: str) -> str:
    from rocm_wizard import model

    s = model.System(origin="snapshot")
    s.os = model.OSInfo(id="ubuntu", version_id="22.04", codename="jammy", kernel=kernel, wsl=False)
    s.gpus = [model.GPU(vendor_id="1002", device_id="744c", gfx_target="gfx1100", kind="dgpu")]
    s.torch = [model.TorchEnv(path=venv, python="3.11.2", active=True, version="2.5.1+rocm6.2", build="rocm",
                              triton={"pytorch-triton-rocm": "3.1.0", "triton": "3.0.0"})]
    s.access = model.AccessInfo(user="dev", groups=["dev"])
    path = tmp / "torch-system.json"
    path.write_text(json.dumps(model.to_dict(s)))
    return str(path)


@pytest.mark.parametrize("mode", ["existing", "new"])
def test_torch_reinstall_for_real(world, pyindex, tmp_path, mode):
    apt, base, kernel = world
    from harness import wizard

    root = base.new_root()
    try:
        root.make_ubuntu("jammy", "22.04")
        root.add_user("dev", 1000)
        wizard.add_gpu(root)
        root.run(["groupadd", "-f", "render"], check=True)
        root.run(["groupadd", "-f", "video"], check=True)
        old = "/home/dev/train/.venv" if mode == "existing" else "/home/dev/venvs/train-old"
        path = old if mode == "existing" else "/home/dev/venvs/train"
        root.run(["python3", "-m", "venv", old], user="dev", check=True)
        pip = [old + "/bin/python", "-m", "pip", "install", "-q", "--no-cache-dir"]
        root.run(pip + ["--index-url", pyindex.url("rocm6.2"), "torch==2.5.1+rocm6.2"], user="dev", check=True)
        root.run(pip + ["--index-url", pyindex.url("pypi"), "triton==3.0.0"], user="dev", check=True)
        if mode == "new":
            root.run(["ln", "-s", old, path], user="dev", check=True)
        rc, script, err = run_cli(["--plan-only", "--snapshot", _torch_system(tmp_path, kernel, path), "--path",
                                   "torch-reinstall", "--torch", "2.4.1", "--venv", path, "--venv-mode", mode,
                                   "--torch-index-url", pyindex.url("rocm6.1")])
        assert rc == 2, err
        root.write("/root/plan.sh", script)
        first = root.run(["bash", "/root/plan.sh"], env={"SUDO_USER": "dev", "PIP_INDEX_URL": pyindex.url("pypi")},
                         timeout=900)
        assert first.returncode == 0, first.stdout + first.stderr
        py = path + "/bin/python"
        listing = root.run([py, "-m", "pip", "list", "--format=freeze"]).stdout
        assert "torch==2.4.1+rocm6.1" in listing and "pytorch-triton-rocm==3.0.0" in listing
        assert "\ntriton==" not in "\n" + listing, listing
        out = root.run(["bash", "-c", f". {path}/bin/activate && echo $TORCH_BLAS_PREFER_HIPBLASLT"]).stdout
        assert out.strip() == "0"
        target = path if mode == "existing" else path + "-torch2.4.1-rocm6.1"
        owner = root.run(["stat", "-c", "%U", target + "/bin/activate", target + "/rocm-wizard.env"]).stdout.split()
        assert owner == ["dev", "dev"]
        if mode == "existing":
            assert "torch==2.5.1+rocm6.2" in root.read(path + "/rocm-wizard/pip-freeze-before-torch-2.4.1+rocm6.1.txt")
        else:
            assert root.resolve(path) == target and root.exists(old + "/bin/python")  # the old venv is kept
        second = root.run(["bash", "/root/plan.sh"], env={"SUDO_USER": "dev"}, timeout=600)
        assert second.returncode == 0 and "done: 0 step(s) changed the system" in second.stderr, second.stderr
    finally:
        root.close()
