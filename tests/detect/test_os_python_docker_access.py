"""The os / python / docker / access / errors probes and the detect() orchestrator, on fake trees."""
from __future__ import annotations

import stat as st

import pytest

from rocm_wizard import detect as detect_mod
from rocm_wizard.detect import detect, error_signatures
from rocm_wizard.detect.probes import access as p_access
from rocm_wizard.detect.probes import docker as p_docker
from rocm_wizard.detect.probes import errors as p_errors
from rocm_wizard.detect.probes import os as p_os
from rocm_wizard.detect.probes import python as p_python
from rocm_wizard.model import System

from _detect_core_support import FakeSource, FakeSystem

HOME = "/home/ann"
ENV = {"HOME": HOME, "USER": "ann", "PATH": "/usr/bin:/bin"}


@pytest.fixture
def fs(tmp_path):
    return FakeSystem(tmp_path)


def run_probe(mod, fs, env=None, commands=None, stats=None, **kw):
    src = FakeSource(str(fs.root), dict(ENV if env is None else env), commands, stats)
    system = System()
    mod.probe(src, system, **kw)
    return system, src


# -- os --------------------------------------------------------------------------------------------

def test_os_ubuntu_hwe_kernel(fs):
    # a BIOS boot (sysfs without /sys/firmware/efi): Secure Boot is known off without mokutil
    fs.ubuntu("22.04", "jammy", "6.8.0-45-generic").mkdir("/sys/bus")
    s, src = run_probe(p_os, fs)
    o = s.os
    assert (o.id, o.version_id, o.codename) == ("ubuntu", "22.04", "jammy")
    assert o.secure_boot is False
    assert o.kernel == "6.8.0-45-generic" and o.kernel_flavour == "generic"
    assert o.hwe is True and o.arch == "x86_64" and o.wsl is False
    assert o.cpu == "AMD Ryzen 9 7950X 16-Core Processor"
    assert o.sources["kernel"] == "file:/proc/sys/kernel/osrelease"
    assert not src.ran, "with /proc readable no command is needed"


@pytest.mark.parametrize("version,kernel,hwe", [("22.04", "5.15.0-119-generic", False), ("24.04", "6.8.0-45-generic", False),
                                                ("24.04", "6.11.0-19-generic", True), ("24.04", "6.17.0-1012-oem", False)])
def test_os_hwe_rule(fs, version, kernel, hwe):
    fs.ubuntu(version, {"22.04": "jammy", "24.04": "noble"}[version], kernel)
    s, _ = run_probe(p_os, fs)
    assert s.os.hwe is hwe
    if "oem" in kernel:
        assert any("vendor kernel" in n for n in s.os.notes)


def test_os_hwe_from_package(fs):
    fs.ubuntu("22.04", "jammy", "5.15.0-119-generic").mkdir("/usr/share/doc/linux-generic-hwe-22.04")
    s, _ = run_probe(p_os, fs)
    assert s.os.hwe is True and s.os.sources["hwe"].endswith("linux-generic-hwe-22.04")


def test_os_not_ubuntu_has_no_hwe(fs):
    fs.write("/etc/os-release", 'NAME="Arch Linux"\nID=arch\nBUILD_ID=rolling\n').write("/proc/sys/kernel/osrelease", "6.10.4-arch1-1\n")
    s, _ = run_probe(p_os, fs)
    assert (s.os.id, s.os.version_id, s.os.kernel_flavour, s.os.hwe) == ("arch", "rolling", "arch", None)


@pytest.mark.parametrize("how", ["kernel", "interop", "env"])
def test_os_wsl(fs, how):
    fs.ubuntu("24.04", "noble", "6.6.87.2-microsoft-standard-WSL2" if how == "kernel" else "6.8.0-45-generic")
    env = dict(ENV)
    if how == "interop":
        fs.write("/proc/sys/fs/binfmt_misc/WSLInterop", "enabled\n")
    if how == "env":
        env["WSL_DISTRO_NAME"] = "Ubuntu-24.04"
    s, _ = run_probe(p_os, fs, env=env)
    assert s.os.wsl is True
    if how == "kernel":
        assert s.os.kernel_flavour == "microsoft-standard-WSL2" and s.os.hwe is None


@pytest.mark.parametrize("files,expected", [({"/.dockerenv": ""}, "docker"), ({"/run/.containerenv": ""}, "podman"),
                                            ({"/proc/1/cgroup": "0::/kubepods/besteffort/pod1\n"}, "kubernetes"),
                                            ({"/run/systemd/container": "lxc\n"}, "lxc"),
                                            ({"/proc/1/cgroup": "0::/\n"}, None)])
def test_os_container(fs, files, expected):
    fs.ubuntu()
    for p, t in files.items():
        fs.write(p, t)
    s, _ = run_probe(p_os, fs)
    assert s.os.container == expected


def test_os_rhel_clone_uses_system_release_and_uname_when_proc_missing(fs):
    fs.write("/etc/system-release", "Rocky Linux release 9.0 (Blue Onyx)\n")
    uname = "Linux hs2 5.14.0-70.30.1.el9_0.x86_64 #1 SMP PREEMPT Thu Nov 3 20:29:04 UTC 2022 x86_64 x86_64 x86_64 GNU/Linux\n"
    s, src = run_probe(p_os, fs, commands={("uname", "-a"): uname})
    assert (s.os.id, s.os.version_id) == ("rocky", "9.0")
    assert s.os.kernel == "5.14.0-70.30.1.el9_0.x86_64" and s.os.kernel_flavour == "el9" and s.os.arch == "x86_64"
    assert ("uname", "-a") in src.ran


def test_os_system_python_from_link(fs):
    fs.ubuntu().link("/usr/bin/python3", "python3.10")
    s, _ = run_probe(p_os, fs)
    assert s.os.python == "3.10"


def test_os_missing_everything_is_none_not_error(fs):
    s, _ = run_probe(p_os, fs, env={})
    assert s.os.id is None and s.os.kernel is None and s.os.wsl is None


# -- python --------------------------------------------------------------------------------------------

def test_python_rocm_venv_in_project_dir(fs):
    site = fs.venv(HOME + "/comfy/venv", "3.12", torch="2.5.1+rocm6.2", hip="6.2.41133-dd7f95766",
                   triton={"pytorch-triton-rocm": "3.1.0"}, requires_triton="pytorch-triton-rocm==3.1.0",
                   extra={"torchvision": "0.20.1+rocm6.2", "numpy": "1.26.4", "transformers": "4.46.0"})
    s, _ = run_probe(p_python, fs)
    assert len(s.torch) == 1
    t = s.torch[0]
    assert t.path == HOME + "/comfy/venv" and t.site_packages == site
    assert (t.version, t.build, t.hip, t.cuda, t.python) == ("2.5.1+rocm6.2", "rocm", "6.2.41133-dd7f95766", None, "3.12.3")
    assert t.triton == {"pytorch-triton-rocm": "3.1.0"}
    assert t.triton_required == "pytorch-triton-rocm==3.1.0"
    assert t.torchvision == "0.20.1+rocm6.2" and t.packages == {"numpy": "1.26.4", "transformers": "4.46.0"}
    assert t.triton_shadow is None
    assert t.sources["hip"].endswith("torch/version.py")


def test_python_old_unannotated_hip_and_cuda_and_cpu_builds(fs):
    fs.venv(HOME + "/venv-old", "3.10", torch="1.13.1+rocm5.2", hip="5.2.21151-afdc89f8", annotated=False)
    fs.venv(HOME + "/.venv", "3.11", torch="2.4.1+cu121", cuda="12.1")
    fs.venv("/opt/venv-cpu", "3.11", torch="2.4.1+cpu")
    s, _ = run_probe(p_python, fs)
    by = {t.path: t for t in s.torch}
    assert by[HOME + "/venv-old"].build == "rocm" and by[HOME + "/venv-old"].hip == "5.2.21151-afdc89f8"
    assert by[HOME + "/.venv"].build == "cuda" and by[HOME + "/.venv"].cuda == "12.1"
    assert by["/opt/venv-cpu"].build == "cpu"


def test_python_active_and_explicit_venvs_first(fs):
    fs.venv(HOME + "/a/.venv", torch="2.6.0+rocm6.2.4", hip="6.2.41134")
    fs.venv("/srv/b", torch="2.7.0+rocm6.3", hip="6.3.42131")
    fs.mkdir("/srv/empty")
    env = dict(ENV, VIRTUAL_ENV="/srv/b")
    s, _ = run_probe(p_python, fs, env=env, venvs=["/srv/empty"])
    assert s.torch[0].path == "/srv/b" and s.torch[0].active is True
    empty = [t for t in s.torch if t.path == "/srv/empty"]
    assert empty and empty[0].version is None and any("not a virtual environment" in n for n in empty[0].notes)
    assert any(t.path == HOME + "/a/.venv" and not t.active for t in s.torch)


def test_python_venv_without_torch_is_skipped_unless_asked(fs):
    fs.venv(HOME + "/venv", extra={"numpy": "2.0.0"})
    s, _ = run_probe(p_python, fs)
    assert s.torch == []
    s, _ = run_probe(p_python, fs, venvs=[HOME + "/venv"])
    assert len(s.torch) == 1 and s.torch[0].packages == {"numpy": "2.0.0"} and any("no torch" in n for n in s.torch[0].notes)


def test_python_conda_env(fs):
    site = fs.venv(HOME + "/miniconda3/envs/ml", "3.11", torch="2.3.0+rocm6.0", hip="6.0.32830-d62f6a171", pyvenv=False)
    fs.write(HOME + "/miniconda3/envs/ml/conda-meta/python-3.11.9-h955ad1f_0.json", "{}")
    s, _ = run_probe(p_python, fs)
    t = [t for t in s.torch if t.site_packages == site][0]
    assert t.python == "3.11.9" and t.build == "rocm"


@pytest.mark.parametrize("layout,needle", [("no-init", "no __init__.py"), ("no-language", "no language/")])
def test_python_broken_triton_dir_is_a_shadow(fs, layout, needle):
    site = fs.venv(HOME + "/venv", torch="2.4.1+rocm6.1", hip="6.1.40091", triton={"pytorch-triton-rocm": "3.0.0"},
                   triton_dir=layout)
    s, _ = run_probe(p_python, fs)
    t = s.torch[0]
    assert t.triton_shadow == site + "/triton"
    assert any(needle in n for n in t.notes)


def test_python_two_triton_dists_noted(fs):
    fs.venv(HOME + "/venv", torch="2.4.1+rocm6.1", hip="6.1.40091",
            triton={"pytorch-triton-rocm": "3.0.0", "triton": "3.0.0"}, requires_triton="pytorch-triton-rocm==3.0.0")
    t = run_probe(p_python, fs)[0].torch[0]
    assert t.triton == {"pytorch-triton-rocm": "3.0.0", "triton": "3.0.0"}
    assert any("several Triton distributions" in n for n in t.notes)
    assert t.triton_shadow is None


def test_python_shadow_on_pythonpath_and_in_workdir(fs):
    fs.venv(HOME + "/venv", torch="2.4.1+rocm6.1", hip="6.1.40091", triton={"pytorch-triton-rocm": "3.0.0"})
    fs.mkdir("/srv/proj/triton")
    s, _ = run_probe(p_python, fs, env=dict(ENV, PWD="/srv/proj"))
    assert s.torch[0].triton_shadow == "/srv/proj/triton"
    fs.write("/opt/libs/triton/__init__.py", "")
    s, _ = run_probe(p_python, fs, env=dict(ENV, PYTHONPATH="/opt/libs"))
    assert s.torch[0].triton_shadow == "/opt/libs/triton"
    assert s.torch[0].sources["triton_shadow"] == "env:PYTHONPATH"


def test_python_user_site_triton_shadows_system_torch(fs):
    fs.write("/usr/local/lib/python3.12/dist-packages/torch/version.py", "__version__ = '2.5.1+rocm6.2'\nhip = '6.2.41133'\ncuda = None\n")
    fs.write("/usr/local/lib/python3.12/dist-packages/pytorch_triton_rocm-3.1.0.dist-info/METADATA", "Name: x\n")
    fs.write(HOME + "/.local/lib/python3.12/site-packages/triton/__init__.py", "")
    s, _ = run_probe(p_python, fs)
    sysenv = [t for t in s.torch if t.site_packages == "/usr/local/lib/python3.12/dist-packages"][0]
    assert sysenv.triton_shadow == HOME + "/.local/lib/python3.12/site-packages/triton"
    assert sysenv.python == "3.12"


def test_python_metadata_only_and_label_build(fs):
    site = HOME + "/venv/lib/python3.12/site-packages"
    fs.write(HOME + "/venv/pyvenv.cfg", "version_info = 3.12.1.final.0\n")
    fs.write(site + "/torch-2.8.0+rocm6.4.dist-info/METADATA", "Name: torch\nVersion: 2.8.0+rocm6.4\n")
    t = run_probe(p_python, fs)[0].torch[0]
    assert (t.version, t.build, t.python) == ("2.8.0+rocm6.4", "rocm", "3.12.1")
    assert any("package directory is missing" in n for n in t.notes)


@pytest.mark.parametrize("version,build", [("2.5.1+rocm6.2", "rocm"), ("2.5.1+cu124", "cuda"), ("2.5.1+cpu", "cpu"),
                                           ("2.5.1", None), ("2.8.0a0+gitfc14c65", None), (None, None)])
def test_build_from_version(version, build):
    assert p_python.build_from_version(version) == build


# -- docker ---------------------------------------------------------------------------------------------

DV = ("docker", "version", "--format", "{{.Client.Version}} {{.Server.Version}}")
DI = ("docker", "images", "--format", "{{.Repository}}:{{.Tag}}")


def test_docker_daemon_up_with_rocm_images(fs):
    stats = {"/var/run/docker.sock": {"mode": 0o140660, "uid": 0, "gid": 999, "is_dir": False, "access_rw": True}}
    s, _ = run_probe(p_docker, fs, commands={DV: "27.3.1 27.3.1\n",
                                             DI: "rocm/pytorch:latest\nubuntu:22.04\nrocm/dev-ubuntu-22.04:6.3\n"}, stats=stats)
    d = s.docker
    assert (d.client, d.daemon, d.user_allowed) == ("27.3.1", True, True)
    assert d.images == ["rocm/pytorch:latest", "rocm/dev-ubuntu-22.04:6.3"]


def test_docker_daemon_down_and_not_allowed(fs):
    stats = {"/var/run/docker.sock": {"mode": 0o140660, "uid": 0, "gid": 999, "is_dir": False, "access_rw": False}}
    s, src = run_probe(p_docker, fs, commands={DV: ("28.2.2 \n", 1, None)}, stats=stats)
    d = s.docker
    assert (d.client, d.daemon, d.user_allowed) == ("28.2.2", False, False)
    assert DI not in src.ran and any("may not use it" in n for n in d.notes)


def test_docker_not_installed(fs):
    s, _ = run_probe(p_docker, fs)
    assert s.docker.client is None and s.docker.daemon is None and "docker is not installed" in s.docker.notes


def test_docker_full_version_paste():
    text = "Client: Docker Engine - Community\n Version:           24.0.7\n API version:       1.43\n\nServer: Docker Engine - Community\n Engine:\n  Version:          24.0.7\n"
    assert p_docker.parse_version_output(text) == ("24.0.7", "24.0.7")
    assert p_docker.parse_version_output("") == (None, None)


# -- access ----------------------------------------------------------------------------------------------

KFD_OK = {"mode": st.S_IFCHR | 0o660, "uid": 0, "gid": 992, "is_dir": False}


def test_access_groups_devices_env(fs):
    fs.write("/etc/group", "root:x:0:\nvideo:x:44:ann\nrender:x:992:ann\nann:x:1000:\nsecret:x:5000:bob\n")
    env = dict(ENV, PATH="/usr/bin:/opt/rocm-6.2.4/bin", HSA_OVERRIDE_GFX_VERSION="11.0.0", HIP_VISIBLE_DEVICES="0")
    cmds = {("id",): "uid=1000(ann) gid=1000(ann) groups=1000(ann),44(video),992(render)\n",
            ("id", "ann"): "uid=1000(ann) gid=1000(ann) groups=1000(ann),44(video),992(render)\n"}
    fs.mkdir("/dev/dri")
    fs.write("/dev/dri/renderD128", "")
    fs.write("/dev/dri/card0", "")
    stats = {"/dev/kfd": KFD_OK, "/dev/dri/renderD128": dict(KFD_OK, gid=992)}
    s, _ = run_probe(p_access, fs, env=env, commands=cmds, stats=stats)
    a = s.access
    assert a.user == "ann" and a.groups == ["ann", "video", "render"] and a.in_render and a.in_video
    assert a.kfd.exists and a.kfd.mode == "crw-rw----" and a.kfd.group == "render" and a.kfd.accessible is True
    assert [n.path for n in a.render_nodes] == ["/dev/dri/renderD128"] and a.render_nodes[0].accessible is True
    assert a.env == {"HIP_VISIBLE_DEVICES": "0", "HSA_OVERRIDE_GFX_VERSION": "11.0.0"}
    assert a.path_has_rocm_bin is True
    assert not any("log out" in n for n in a.notes)


def test_access_added_to_render_but_not_relogged(fs):
    cmds = {("id",): "uid=1000(ann) gid=1000(ann) groups=1000(ann),44(video)\n",
            ("id", "ann"): "uid=1000(ann) gid=1000(ann) groups=1000(ann),44(video),992(render)\n"}
    s, _ = run_probe(p_access, fs, commands=cmds, stats={"/dev/kfd": KFD_OK})
    a = s.access
    assert a.in_render is False and a.kfd.group == "992" and a.kfd.accessible is False
    assert any("log out and back in" in n for n in a.notes)


def test_access_without_id_uses_proc_and_group_file(fs):
    fs.write("/proc/self/status", "Name:\tx\nUid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\nGroups:\t44 1000\n")
    fs.write("/etc/group", "video:x:44:ann\nrender:x:992:ann\nann:x:1000:\n")
    s, _ = run_probe(p_access, fs, stats={"/dev/kfd": KFD_OK})
    a = s.access
    assert a.groups == ["video", "ann"] and a.in_render is False and a.in_video is True
    assert a.kfd.group == "render" and a.kfd.accessible is False
    assert any("log out" in n for n in a.notes), "render is in /etc/group for ann but not in the session"


def test_access_unknown_for_pastes(fs):
    s, _ = run_probe(p_access, fs, env={})
    assert s.access.kfd is None and s.access.in_render is None and s.access.groups == []


def test_access_missing_kfd(fs):
    s, _ = run_probe(p_access, fs, commands={("id",): "uid=0(root) gid=0(root) groups=0(root)\n"})
    assert s.access.kfd.exists is False and s.access.kfd.accessible is None


# -- errors ----------------------------------------------------------------------------------------------

def test_errors_from_dmesg(fs):
    dmesg = ("[    1.0] Linux version 6.8.0-45-generic\n[    4.1] amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init\n"
             "[   77.7] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx timeout, signaled seq=1, emitted seq=3\n")
    s, _ = run_probe(p_errors, fs, commands={("dmesg",): dmesg})
    assert [e.signature for e in s.errors if error_signatures.failure(e.signature) is None] == ["amdgpu_init_failed", "gpu_hang"]
    assert s.errors[0].sources["text"] == "cmd:dmesg"
    # the failure catalogue's rows name the same lines, with their layer
    rows = {e.signature: e.layer for e in s.errors if error_signatures.failure(e.signature) is not None}
    assert rows == {"kernel_fatal_gpu_init": "kernel", "kernel_ring_timeout": "kernel"}


def test_errors_dmesg_not_permitted_is_a_note(fs):
    s, _ = run_probe(p_errors, fs, commands={("dmesg",): (None, 1, "exit status 1: dmesg: read kernel buffer failed")})
    assert s.errors == [] and any("kernel log could not be read" in n for n in s.notes)


# -- orchestrator ----------------------------------------------------------------------------------------

def test_detect_probe_failure_is_a_note(fs, monkeypatch):
    fs.ubuntu()

    def boom(source, system):
        raise RuntimeError("kaboom")

    real = detect_mod._load_probe

    def fake_load(name):
        return boom if name == "docker" else real(name)

    monkeypatch.setattr(detect_mod, "_load_probe", fake_load)
    s = detect(FakeSource(str(fs.root), dict(ENV)))
    assert s.os.id == "ubuntu"
    assert any("docker probe failed" in n and "kaboom" in n for n in s.notes)


def test_detect_skips_missing_probe_modules(fs, monkeypatch):
    monkeypatch.setattr(detect_mod, "PROBES", ("os", "no_such_probe"))
    fs.ubuntu()
    s = detect(FakeSource(str(fs.root), dict(ENV)))
    assert s.os.id == "ubuntu" and s.notes == []


def test_detect_merges_docker_permission_from_groups(fs):
    cmds = {DV: ("28.2.2 \n", 1, None), ("id",): "uid=1000(ann) gid=1000(ann) groups=1000(ann),998(docker)\n"}
    s = detect(FakeSource(str(fs.root), dict(ENV), cmds))
    assert s.docker.user_allowed is True and s.docker.sources["user_allowed"] == "access:groups"


# -- Secure Boot -----------------------------------------------------------------------------------

def _live_os(root):
    from rocm_wizard.detect.sources import LiveSource

    system = System()
    p_os.probe(LiveSource(str(root), commands=False, environ={}), system)
    return system.os


@pytest.mark.parametrize("value, expected", [(b"\x01", True), (b"\x00", False)])
def test_secure_boot_from_the_efi_variable(tmp_path, value, expected):
    var = tmp_path / p_os.SECURE_BOOT_VAR.lstrip("/")
    var.parent.mkdir(parents=True)
    var.write_bytes(b"\x06\x00\x00\x00" + value)  # attributes, then the value (efivarfs layout)
    o = _live_os(tmp_path)
    assert o.secure_boot is expected and o.sources["secure_boot"] == "file:" + p_os.SECURE_BOOT_VAR


def test_secure_boot_off_when_booted_without_uefi_and_unknown_without_sys(tmp_path):
    (tmp_path / "sys/bus/pci/devices").mkdir(parents=True)
    assert _live_os(tmp_path).secure_boot is False
    assert _live_os(tmp_path / "nothing").secure_boot is None  # nothing read: not known, not "off"


@pytest.mark.parametrize("text, expected", [
    ("SecureBoot enabled\n", True), ("SecureBoot disabled\nPlatform is in Setup Mode\n", False),
    ("This system doesn't support Secure Boot\n", False), ("EFI variables are not supported on this system\n", False),
    ("mokutil: command not found\n", None)])
def test_mokutil_sb_state_texts(text, expected):
    assert p_os.secure_boot_of(text) is expected


def test_secure_boot_from_a_pasted_mokutil_in_a_snapshot(tmp_path):
    from rocm_wizard.detect import detect_snapshot

    (tmp_path / "os-release.txt").write_text('$ cat /etc/os-release\nNAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\n'
                                             'VERSION_CODENAME=jammy\nPRETTY_NAME="Ubuntu 22.04.4 LTS"\n')
    (tmp_path / "sb.txt").write_text("$ mokutil --sb-state\nSecureBoot enabled\n")
    system = detect_snapshot(str(tmp_path))
    assert system.os.secure_boot is True


def test_python_guard_pins_wiring_and_who_installed_torch(fs):
    """rocm-wizard's guard in a venv (issue "Keep it ROCm"): its pins, whether pip.conf still names
    it, and the INSTALLER of the torch that is there now, for doctor's guard-broken finding."""
    venv = HOME + "/venv"
    site = fs.venv(venv, "3.12", torch="2.5.1+cu121", cuda="12.1")
    dinfo = [p for p in fs.p(site).iterdir() if p.name.startswith("torch-") and p.name.endswith(".dist-info")]
    assert dinfo
    (dinfo[0] / "INSTALLER").write_text("uv\n")
    fs.write(venv + "/rocm-wizard-guard.txt", "# written by rocm-wizard\ntorch==2.5.1+rocm6.2\ntorchvision==0.20.1+rocm6.2\n")
    fs.write(venv + "/pip.conf", "[global]\nconstraint = %s/rocm-wizard-guard.txt\n" % venv)
    t = run_probe(p_python, fs)[0].torch[0]
    assert t.guard == {"torch": "2.5.1+rocm6.2", "torchvision": "0.20.1+rocm6.2"}
    assert t.guard_wired is True
    assert t.torch_installer.startswith("uv on 20") and " from " not in t.torch_installer
    # installed from a URL (PEP 610 direct_url.json): where it came from, without credentials or query
    (dinfo[0] / "direct_url.json").write_text(
        '{"url": "https://user:secret@download.example/whl/cu121/torch-2.5.1%2Bcu121-cp312-linux_x86_64.whl?t=1",'
        ' "archive_info": {}}')
    t = run_probe(p_python, fs)[0].torch[0]
    assert t.torch_installer.endswith(" from https://download.example/whl/cu121/torch-2.5.1%2Bcu121-cp312-linux_x86_64.whl")
    assert "secret" not in t.torch_installer and "t=1" not in t.torch_installer
    (dinfo[0] / "direct_url.json").write_text("not json")
    assert " from " not in run_probe(p_python, fs)[0].torch[0].torch_installer
    fs.write(venv + "/pip.conf", "[global]\ntimeout = 60\n")
    assert run_probe(p_python, fs)[0].torch[0].guard_wired is False
    # no guard file: nothing said
    fs.p(venv + "/rocm-wizard-guard.txt").unlink()
    t = run_probe(p_python, fs)[0].torch[0]
    assert t.guard == {} and t.guard_wired is None and t.torch_installer is None
