"""The harness itself, proven against the real tools: apt, dpkg, gpgv and pip."""
from __future__ import annotations

import os

import pytest
from rwtest import ci

from harness import aptrepo, debroot as debroot_mod, venvs
from harness.wheels import read_version_py


def _update(root):
    res = root.apt("update")
    return res.returncode, res.stdout + res.stderr


# --- apt + dpkg ----------------------------------------------------------------------------

def test_apt_update_against_signed_local_repos(debroot, apt_site):
    apt_site.add_distro(debroot)
    apt_site.add_rocm(debroot, apt_site.old)
    rc, out = _update(debroot)
    assert rc == 0, out
    assert "W:" not in out and "E:" not in out, out
    # apt fetched the signed InRelease of each repository from the local servers
    assert apt_site.radeon.fetched(f"/rocm/apt/{apt_site.old.dir}/dists/jammy/InRelease")
    assert apt_site.radeon.fetched(f"/amdgpu/{apt_site.old.dir}/ubuntu/dists/jammy/InRelease")
    policy = debroot.run(["apt-cache", "policy"]).stdout
    assert "o=repo.radeon.com" in policy and "l=repo.radeon.com" in policy
    assert "o=Ubuntu" in policy


def test_without_pin_the_distribution_wins(debroot, apt_site):
    apt_site.add_distro(debroot)
    apt_site.add_rocm(debroot, apt_site.new, pin=False)
    assert _update(debroot)[0] == 0
    assert debroot.candidate("rocm") == aptrepo.DISTRO_ROCM_VERSION
    debroot.apt("install", "rocm", check=True)
    assert debroot.installed_version("rocm-core") == aptrepo.DISTRO_ROCM_VERSION
    assert not debroot.exists(f"/opt/rocm-{apt_site.new.version}")


def test_with_the_600_pin_repo_radeon_com_wins(debroot, apt_site):
    apt_site.add_distro(debroot)
    apt_site.add_rocm(debroot, apt_site.new, pin=True)
    assert _update(debroot)[0] == 0
    want = apt_site.new.deb_version("jammy")
    assert want == "6.4.3.60403-128~22.04"  # the real format (rocm-facts §7)
    assert debroot.candidate("rocm") == want
    assert debroot.candidate("amdgpu-dkms") == apt_site.new.dkms_version("jammy")
    debroot.apt("install", "rocm", "amdgpu-dkms", check=True)
    assert debroot.installed_version("rocm-core") == want
    assert debroot.read("/opt/rocm-6.4.3/.info/version") == "6.4.3-128\n"
    owner = debroot.run(["dpkg-query", "-S", "/opt/rocm-6.4.3/.info/version"]).stdout
    assert owner.startswith("rocm-core:")
    # /opt/rocm is an update-alternatives link to the release directory
    assert (debroot.resolve("/opt/rocm") == "/opt/rocm-6.4.3")
    assert debroot.exists("/usr/src/amdgpu-6.12.12-2194681.22.04/dkms.conf")


def test_wrong_key_fails_apt_update(debroot, apt_site):
    apt_site.add_distro(debroot)
    apt_site.add_rocm(debroot, apt_site.new, key=apt_site.rogue_key)
    rc, out = _update(debroot)
    assert rc != 0
    assert "NO_PUBKEY" in out or "not signed" in out, out
    assert apt_site.site.radeon_key.long_id in out
    assert debroot.candidate("rocm") == aptrepo.DISTRO_ROCM_VERSION  # radeon's packages ignored


def test_old_to_new_release_with_real_dpkg(debroot, apt_site):
    apt_site.install_rocm(debroot, apt_site.old)
    assert (debroot.resolve("/opt/rocm") == "/opt/rocm-6.2.4")
    assert debroot.read("/opt/rocm/.info/version") == "6.2.4-139\n"
    apt_site.add_rocm(debroot, apt_site.new)  # what an upgrade rewrites
    assert _update(debroot)[0] == 0
    debroot.apt("install", "rocm", "amdgpu-dkms", check=True)
    assert debroot.installed_version("rocm") == "6.4.3.60403-128~22.04"
    assert (debroot.resolve("/opt/rocm") == "/opt/rocm-6.4.3")
    assert not debroot.exists("/opt/rocm-6.2.4/.info/version")
    assert debroot.dpkg_audit() == ""
    assert debroot.run(["apt-get", "check"]).returncode == 0


def test_unreachable_and_404_switches(debroot, apt_site):
    apt_site.add_distro(debroot)
    apt_site.add_rocm(debroot, apt_site.new)
    apt_site.radeon.stop()
    assert not apt_site.radeon.is_reachable()
    rc, out = _update(debroot)
    assert "Failed to fetch" in out or "Could not connect" in out, out
    apt_site.radeon.start()
    assert apt_site.radeon.is_reachable()
    apt_site.radeon.mode = "404"
    rc, out = _update(debroot)
    assert "404" in out, out
    apt_site.radeon.mode = "ok"
    assert _update(debroot)[0] == 0


def test_root_looks_like_ubuntu_jammy(debroot):
    out = debroot.run(". /etc/os-release; echo $ID $VERSION_ID $VERSION_CODENAME").stdout
    assert out.split() == ["ubuntu", "22.04", "jammy"]
    # processes inside see /proc and run as root; a user can be added for not-root cases
    debroot.add_user("alice")
    assert debroot.run("id -un", user="alice").stdout.strip() == "alice"
    assert debroot.run("id -u").stdout.strip() == "0"


@pytest.mark.skipif(not __import__("shutil").which("bwrap"), reason=ci.MISSING + "bwrap not installed (apt-get install bubblewrap)")
def test_bwrap_entry(root_base):
    root = root_base.new_root(enter="bwrap")
    try:
        root.make_ubuntu()
        res = root.run(". /etc/os-release; echo $ID; ls /proc/self/status")
        assert res.returncode == 0, res.stderr
        assert res.stdout.split()[0] == "ubuntu"
    finally:
        root.close()


def test_fresh_root_per_test(debroot):
    # nothing from the tests above leaked into this root
    assert not debroot.exists("/etc/apt/sources.list.d/rocm.list")
    assert not debroot.exists("/opt/rocm")
    assert debroot.installed_version("rocm-core") is None


def test_image_cache_is_keyed_by_recipe(monkeypatch, tmp_path):
    monkeypatch.setenv("ROCM_WIZARD_TEST_CACHE", str(tmp_path))
    a = debroot_mod.image_path()
    changed = dict(debroot_mod.RECIPE, include=debroot_mod.RECIPE["include"] + ["sudo"])
    b = debroot_mod.image_path(changed)
    assert a.parent == b.parent == tmp_path
    assert a != b and a.name.startswith("debroot-") and a.suffix == ".tar"


# --- pip -----------------------------------------------------------------------------------

def test_pip_installs_stand_in_torch_from_local_index(tmp_path, pyindex):
    venv = str(tmp_path / "my env 'quoted' \"both\"")
    venvs.make_venv(venv)
    venvs.pip(venv, "install", "--index-url", pyindex.url("rocm6.1"),
              "torch==2.4.1+rocm6.1", "torchvision==0.19.1+rocm6.1", "torchaudio==2.4.1+rocm6.1")
    dists = venvs.installed(venv)
    assert dists["torch"] == "2.4.1+rocm6.1"
    assert dists["torchvision"] == "0.19.1+rocm6.1"
    assert dists["pytorch-triton-rocm"] == "3.0.0"  # pulled by torch's Requires-Dist
    values = read_version_py(venvs.site_packages(venv))
    assert values == {"__all__": values["__all__"], "__version__": "2.4.1+rocm6.1", "debug": "False",
                      "cuda": None, "git_version": "ee1b6804381c57161c477caa380a840a84167676",
                      "hip": "6.1.40091-a8dbc0c19"}
    assert os.path.isfile(os.path.join(venvs.site_packages(venv), "triton", "language", "__init__.py"))


def test_pip_moves_between_indexes_with_the_triton_pin(tmp_path, pyindex):
    venv = str(tmp_path / "v")
    venvs.make_venv(venv)
    venvs.pip(venv, "install", "--index-url", pyindex.url("rocm6.2"), "torch==2.5.1+rocm6.2", "torchvision")
    assert venvs.installed(venv)["pytorch-triton-rocm"] == "3.1.0"
    venvs.pip(venv, "install", "--index-url", pyindex.url("rocm6.1"),
              "torch==2.4.1+rocm6.1", "torchvision==0.19.1+rocm6.1")
    after = venvs.installed(venv)
    assert (after["torch"], after["torchvision"], after["pytorch-triton-rocm"]) == \
        ("2.4.1+rocm6.1", "0.19.1+rocm6.1", "3.0.0")
    # the wrong index has no such build: pip says so
    res = venvs.pip(venv, "install", "--index-url", pyindex.url("rocm6.1"), "torch==2.5.1+rocm6.2", check=False)
    assert res.returncode != 0 and "No matching distribution" in res.stderr


def test_plain_triton_shares_the_triton_directory(tmp_path, pyindex):
    """The stand-ins reproduce the real trap: two distributions owning ``triton/``."""
    venv = str(tmp_path / "v")
    venvs.make_venv(venv)
    venvs.pip(venv, "install", "--index-url", pyindex.url("rocm6.1"), "pytorch-triton-rocm==3.0.0")
    venvs.pip(venv, "install", "--index-url", pyindex.url("pypi"), "triton==3.0.0")
    venvs.pip(venv, "uninstall", "-y", "triton")
    assert venvs.installed(venv)["pytorch-triton-rocm"] == "3.0.0"
    assert not os.path.exists(os.path.join(venvs.site_packages(venv), "triton", "language", "__init__.py"))


# --- the stand-in servers themselves ---------------------------------------------------------

_OUT_OF_FDS = r'''
import os, resource, sys, urllib.request
sys.path.insert(0, sys.argv[1])
from harness.httpserve import LocalServer

served = sys.argv[2]
server = LocalServer(served, "fds", host="127.0.0.1").start()
# one ordinary answer first (and mimetypes' tables read, as in any long session)
with urllib.request.urlopen(server.url + "/pkg/index.html") as answer:
    assert answer.status == 200 and answer.headers["Cache-Control"] == "no-store", dict(answer.headers)
# glibc loads libgcc_s when a thread exits (unwinding): loaded now, it needs no descriptor later
import ctypes
ctypes.CDLL("libgcc_s.so.1")
# room for exactly one more descriptor (the lowest free number, which the kernel hands out next):
# the accepted connection; the file's open() then fails
listed = [int(fd) for fd in os.listdir("/proc/self/fd")]
def is_open(fd):
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False
used = {fd for fd in listed if is_open(fd)}
free = next(n for n in range(len(used) + 1) if n not in used)
resource.setrlimit(resource.RLIMIT_NOFILE, (free + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
print(server.url, flush=True)
sys.stdin.read()
print("\n".join(server.errors), flush=True)
'''


def test_a_listed_file_the_server_cannot_open_is_a_500_naming_why_not_a_404(tmp_path):
    """The stand-in index's answer when the test process is out of file descriptors (one mechanism,
    found reading ``http.server``, by which pip is told "404" or "no versions" for files an index
    lists: ``SimpleHTTPRequestHandler`` answers any ``open`` error with 404 "File not found").  The
    server runs in a child whose descriptor limit leaves room for the connection only: a file that
    is there gets 500 with the reason and is kept in ``errors``; a file that is not there is still a
    plain 404."""
    import subprocess
    import sys
    import urllib.error
    import urllib.request

    served = tmp_path / "served"
    (served / "pkg").mkdir(parents=True)
    (served / "pkg" / "index.html").write_text("<a href='../x.whl'>x.whl</a>\n")
    harness_dir = os.path.dirname(os.path.dirname(os.path.abspath(aptrepo.__file__)))
    child = subprocess.Popen([sys.executable, "-c", _OUT_OF_FDS, harness_dir, str(served)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = child.stdout.readline().strip()
        assert url.startswith("http://"), child.stderr.read()
        codes = {}
        for path in ("/pkg/", "/pkg/index.html", "/missing.whl"):
            try:
                with urllib.request.urlopen(url + path, timeout=30) as answer:
                    codes[path] = (answer.status, answer.read().decode())
            except urllib.error.HTTPError as exc:
                codes[path] = (exc.code, exc.read().decode())
        out, err = child.communicate("", timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, err
    for path in ("/pkg/", "/pkg/index.html"):
        code, body = codes[path]
        assert code == 500 and "Too many open files" in body, (path, code, body)
    assert codes["/missing.whl"][0] == 404, codes
    assert "/pkg/index.html: Too many open files" in out and "/pkg/: Too many open files" in out, out
