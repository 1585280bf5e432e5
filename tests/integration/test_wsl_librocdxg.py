"""rocm-upgrade to ROCm 7.2.x under WSL 2 in a Debian root posing as WSL: librocdxg built the way its
README has you do it (git clone, cmake -DWIN_SDK=<Windows SDK>/shared, make, make install), from a
local git repository on 127.0.0.1 standing in for github.com/ROCm/librocdxg, with Debian's real
cmake, gcc and git, against a Windows SDK directory under /mnt/c.  The plan script's DRY_RUN=1 and
--dry-run change nothing, `--yes` converges (the library in /opt/rocm/lib, known to the linker,
HSA_ENABLE_DXG_DETECTION=1 for login shells, no 6.x WSL runtime, no kernel driver), and a second run
has nothing to do and fetches nothing."""
from __future__ import annotations

import os
import re
import subprocess

import pytest
from harness import aptrepo, checks, toolchain, wizard
from harness.debs import DebSpec
from harness.httpserve import LocalServer

WSL = {"WSL_DISTRO_NAME": "Ubuntu"}
REL = aptrepo.RocmRelease("7.2.1", "81", "6.16.6", "2247890")
AMDGPU_DIR = "30.30.1"  # the catalog's amdgpu directory of 7.2.1
KITS = "/mnt/c/Program Files (x86)/Windows Kits/10/Include"
NEW_SDK, OLD_SDK = "10.0.26100.0", "10.0.22621.0"

# A stand-in librocdxg: a CMake project that needs -DWIN_SDK pointing at the SDK's shared headers,
# builds a versioned shared library with the header's version in it and installs it in /opt/rocm/lib
CMAKE = """cmake_minimum_required(VERSION 3.15)
project(rocdxg C)
if(NOT WIN_SDK OR NOT EXISTS "${WIN_SDK}/dxcore_interface.h")
  message(FATAL_ERROR "WIN_SDK must name the Windows SDK's shared include directory")
endif()
set(CMAKE_INSTALL_PREFIX /opt/rocm CACHE PATH "" FORCE)
add_library(rocdxg SHARED rocdxg.c)
target_include_directories(rocdxg PRIVATE "${WIN_SDK}")
set_target_properties(rocdxg PROPERTIES VERSION 1.1.0 SOVERSION 1)
install(TARGETS rocdxg LIBRARY DESTINATION lib)
"""
SOURCE = '#include "dxcore_interface.h"\nconst char *rocdxg_sdk(void) { return "built with SDK " RW_SDK; }\n'


@pytest.fixture(scope="module")
def toolchain_debs(root_base):
    from harness.procs import CommandFailed
    from rwtest import ci

    try:
        return toolchain.ensure_debs(root_base)
    except CommandFailed as exc:
        ci.missing(f"Debian's cmake, gcc and git (fetched once from Debian's archive): {exc}")


@pytest.fixture(scope="module")
def librocdxg_repo(tmp_path_factory):
    """A git repository served over HTTP on 127.0.0.1 (git's dumb protocol), as github.com serves ROCm/librocdxg."""
    top = tmp_path_factory.mktemp("librocdxg")
    work = top / "work"
    work.mkdir()
    (work / "CMakeLists.txt").write_text(CMAKE)
    (work / "rocdxg.c").write_text(SOURCE)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@invalid", "-c", "init.defaultBranch=main"]
    for argv in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "stand-in"]):
        subprocess.run(git + argv, cwd=work, check=True)
    served = top / "served"
    served.mkdir()
    subprocess.run(git + ["clone", "-q", "--bare", str(work), str(served / "librocdxg.git")], check=True)
    subprocess.run(["git", "update-server-info"], cwd=served / "librocdxg.git", check=True)
    server = LocalServer(str(served), "librocdxg").start()
    yield server
    server.stop()


def _publish_72(site) -> None:
    """ROCm 7.2.1's three repositories on the radeon stand-in (rocm, graphics, amdgpu/30.30.1)."""
    root, codename = site.radeon_root, site.codename
    if os.path.isdir(os.path.join(root, "rocm", "apt", REL.dir)):
        return
    aptrepo.publish_archive(os.path.join(root, "rocm", "apt", REL.dir), codename,
                            aptrepo.rocm_packages(REL, codename), site.radeon_key, "repo.radeon.com", "repo.radeon.com")
    aptrepo.publish_archive(os.path.join(root, "amdgpu", AMDGPU_DIR, "ubuntu"), codename,
                            aptrepo.amdgpu_packages(REL, codename), site.radeon_key, "repo.radeon.com", "repo.radeon.com")
    graphics = DebSpec(name="rw-graphics-stand-in", version=REL.deb_version(codename), arch="all",
                       files={"/usr/share/doc/rw-graphics-stand-in/stand-in.txt": "graphics repository stand-in\n"},
                       description="graphics repository stand-in")
    aptrepo.publish_archive(os.path.join(root, "graphics", REL.dir, "ubuntu"), codename, [graphics],
                            site.radeon_key, "repo.radeon.com", "repo.radeon.com")


def _args(world, repo_url):
    return ["--path", "rocm-upgrade", "--rocm", REL.version, "--rocm-mirror", world.radeon_url, "--allow-http-mirror",
            "--rocm-key-fingerprint", world.site.radeon_key.fingerprint, "--librocdxg-repo", repo_url + "/librocdxg.git"]


def _installed(root, name):
    res = root.run(["dpkg-query", "-W", "-f=${db:Status-Abbrev}", name])
    return res.returncode == 0 and res.stdout.startswith("ii")


def test_wsl_rocm_72_builds_librocdxg_and_converges(wroot, apt_site, toolchain_debs, librocdxg_repo):
    root = wroot
    _publish_72(apt_site.site)
    toolchain.install(root, toolchain_debs)
    root.write("/dev/dxg", "")
    for lib in ("libdxcore.so", "libd3d12.so"):
        root.write("/usr/lib/wsl/lib/" + lib, "")
    for sdk in (OLD_SDK, NEW_SDK):  # two SDKs installed on Windows: the newest is used
        root.write(f"{KITS}/{sdk}/shared/dxcore_interface.h", f'#define RW_SDK "{sdk}"\n')
    watched = ["/etc/apt", "/var/lib/dpkg/status", "/opt", "/etc/profile.d", "/etc/ld.so.cache", "/var/tmp"]
    args = _args(apt_site, librocdxg_repo.url)

    plan = wizard.run(root, "--plan-only", *args, extra_env=WSL)
    assert plan.returncode in (0, 2), plan.stderr
    header = plan.stdout.split("set -Eeuo")[0]
    steps = [line for line in header.splitlines() if re.match(r"#\s+\d+\. ", line)]
    assert any("librocdxg" in line for line in steps) and any("HSA_ENABLE_DXG_DETECTION=1" in line for line in steps)
    assert not any("rocr4wsl" in line or "driver" in line for line in steps), steps
    assert "network" in header and "compiler" in header
    root.write("/root/plan.sh", plan.stdout, mode=0o755)
    before = root.snapshot(watched)
    dry = root.run(["bash", "/root/plan.sh"], env={"DRY_RUN": "1", **WSL}, timeout=600)
    assert dry.returncode == 2, dry.stderr[-3000:]
    assert "would: build librocdxg" in dry.stderr
    cli_dry = wizard.run(root, "--dry-run", *args, extra_env=WSL)
    assert cli_dry.returncode in (0, 2), cli_dry.stderr[-3000:]
    assert root.snapshot(watched) == before
    assert not librocdxg_repo.fetched("librocdxg")  # a dry run clones nothing

    res = wizard.run(root, "--yes", "--no-verify", *args, extra_env=WSL, timeout=1200)
    assert res.returncode == 0, res.stderr[-4000:]
    assert _installed(root, "rocm") and not _installed(root, "hsa-runtime-rocr4wsl-amdgpu")
    assert not _installed(root, "amdgpu-dkms")
    assert librocdxg_repo.fetched("librocdxg")
    lib = root.host_path("/opt/rocm/lib/librocdxg.so")
    assert os.path.islink(lib) and os.path.isfile(root.host_path("/opt/rocm/lib/librocdxg.so.1.1.0"))
    assert f"built with SDK {NEW_SDK}".encode() in open(root.host_path("/opt/rocm/lib/librocdxg.so.1.1.0"), "rb").read()
    assert "librocdxg.so.1" in root.run(["ldconfig", "-p"], check=True).stdout
    profile = open(root.host_path("/etc/profile.d/rocm-wizard-dxg.sh")).read()
    assert "export HSA_ENABLE_DXG_DETECTION=1" in profile
    login = root.run(["bash", "-lc", "echo $HSA_ENABLE_DXG_DETECTION"], env=WSL)
    assert login.stdout.strip() == "1", login.stdout + login.stderr
    assert not [n for n in os.listdir(root.host_path("/var/tmp")) if n.startswith("rocm-wizard-librocdxg.")]
    checks.assert_dpkg_healthy(root)

    detect = wizard.run(root, "detect", "--json", extra_env=WSL)
    assert '"wsl_userspace": "librocdxg"' in detect.stdout, detect.stdout[:2000]

    # rollback removes what the build installed (recorded before make install) and the profile file
    back = wizard.run(root, "rollback", extra_env=WSL)
    assert back.returncode == 0, back.stderr[-4000:]
    assert not [n for n in os.listdir(root.host_path("/opt/rocm/lib")) if n.startswith("librocdxg")]
    assert not os.path.exists(root.host_path("/etc/profile.d/rocm-wizard-dxg.sh"))
    librocdxg_repo.reset()
    res = wizard.run(root, "--yes", "--no-verify", *args, extra_env=WSL, timeout=1200)
    assert res.returncode == 0, res.stderr[-4000:]
    assert librocdxg_repo.fetched("librocdxg") and os.path.islink(lib)

    librocdxg_repo.reset()
    again = wizard.run(root, "--yes", "--no-verify", *args, extra_env=WSL)
    assert again.returncode == 0, again.stderr[-4000:]
    words = checks.step_lines(again.stderr)
    assert words and set(words.values()) == {"ok"}, again.stderr[-4000:]
    assert not librocdxg_repo.fetched("librocdxg")


def test_wsl_rocm_72_playbook_builds_librocdxg_check_converge_and_changed_0(wroot, apt_site, toolchain_debs,
                                                                          librocdxg_repo, ansible_in):
    """The same plan as a playbook under each of the harness's ansible-cores: --check changes nothing
    and clones nothing, the run builds and installs librocdxg, a second run reports changed=0."""
    from harness import ansible

    root = wroot
    _publish_72(apt_site.site)
    ansible_in(root)
    toolchain.install(root, toolchain_debs)
    root.write("/dev/dxg", "")
    root.write("/usr/lib/wsl/lib/libdxcore.so", "")
    root.write(f"{KITS}/{NEW_SDK}/shared/dxcore_interface.h", f'#define RW_SDK "{NEW_SDK}"\n')
    root.add_user("alice")
    root.run(["groupadd", "--system", "render"], check=True)
    res = wizard.run(root, "--plan-only", "--format", "ansible", *_args(apt_site, librocdxg_repo.url), extra_env=WSL)
    assert res.returncode in (0, 2), res.stderr
    root.write("/root/wsl72.yml", res.stdout)
    users = ["-e", '{"rocm_wizard_gpu_users": ["alice"]}']
    watched = ["/etc", "/var/lib/dpkg/status", "/opt", "/var/tmp"]
    before = root.snapshot(watched)
    librocdxg_repo.reset()

    check = ansible.playbook(root, "/root/wsl72.yml", "--check", "--diff", *users, extra_env=WSL)
    assert check.returncode == 0, check.stdout[-6000:] + check.stderr[-3000:]
    assert root.snapshot(watched) == before and not librocdxg_repo.fetched("librocdxg")

    run = ansible.playbook(root, "/root/wsl72.yml", *users, extra_env=WSL)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert os.path.isfile(root.host_path("/opt/rocm/lib/librocdxg.so.1.1.0"))
    assert "export HSA_ENABLE_DXG_DETECTION=1" in root.read("/etc/profile.d/rocm-wizard-dxg.sh")
    assert not [n for n in os.listdir(root.host_path("/var/tmp")) if n.startswith("rocm-wizard-librocdxg.")]
    assert not _installed(root, "hsa-runtime-rocr4wsl-amdgpu")

    librocdxg_repo.reset()
    again = ansible.playbook(root, "/root/wsl72.yml", *users, extra_env=WSL)
    assert again.returncode == 0, again.stdout[-6000:] + again.stderr[-3000:]
    counts = ansible.recap(again.stdout)
    assert counts["changed"] == 0 and counts["failed"] == 0, ansible.changed_tasks(again.stdout)
    assert not librocdxg_repo.fetched("librocdxg")
