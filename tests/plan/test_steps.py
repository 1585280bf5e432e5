"""Each step type's check/apply against a temporary root: apply twice -> changed, then ok; after
apply, check says ok.  Files and keys are real; the venv steps use a real venv and pip against a
local index of small stand-in wheels; apt/usermod/ldconfig go through a recording runner."""
from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import List

import pytest

from plan_helpers import make_gpg_key, make_root
from rocm_wizard.detect.sources import CommandResult
from rocm_wizard.plan.context import Context, run_local
from rocm_wizard.plan.core import CHANGE, CHANGED, FAILED, OK, system_fingerprint_mismatches
from rocm_wizard.plan.state import PlanState
from rocm_wizard.plan.steps import (AptKey, AptPin, AptSources, Command, EnvPersist, FileContent, PipCheck, PipInstall,
                                    PipRestore, PipUninstall, RebootFlag, UserGroups, Venv, VenvLink)
from rocm_wizard.plan.openpgp import read_keys
from rocm_wizard.runas import write_as_argv


class Recorder:
    """A runner for commands that must not touch this machine: it records them; ``usermod -a -G``
    is carried out on the root's /etc/group so that its effect can be checked."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.calls: List[List[str]] = []

    def __call__(self, argv, input=None, env=None, timeout=None):
        argv = list(argv)
        self.calls.append(argv)
        if argv[:3] == ["usermod", "-a", "-G"]:
            groups, user = argv[3].split(","), argv[4]
            lines = []
            for line in (self.root / "etc/group").read_text().splitlines():
                parts = line.split(":")
                if parts[0] in groups:
                    members = [m for m in parts[3].split(",") if m] + [user]
                    parts[3] = ",".join(members)
                lines.append(":".join(parts))
            (self.root / "etc/group").write_text("\n".join(lines) + "\n")
        if argv[:2] == ["runuser", "-u"] and argv[4:] == write_as_argv(argv[-2], int(argv[-1], 8)):
            # a file written as a user (the user's rights are not what these tests look at): under the root
            subprocess.run(argv[4:-2] + [str(self.root) + argv[-2], argv[-1]], input=input, check=True)
        return CommandResult(tuple(argv), "", "", 0, None, 0.0)


def twice(step, ctx):
    first = step.apply(ctx)
    assert first.status == CHANGED, first.detail
    ctx.changed.add(step.id)
    second = step.apply(ctx)
    assert second.status == OK, second.detail
    state = PlanState(ctx)
    assert step.check(state).status == OK
    return first, second


def test_file_and_pin(tmp_path):
    root = make_root(tmp_path / "root")
    ctx = Context(root=str(root), runner=Recorder(root), env={})
    (root / "etc/ld.so.conf.d").mkdir(parents=True)
    (root / "etc/ld.so.conf.d/rocm.conf").write_text("/opt/rocm-6.2.0/lib\n")
    step = FileContent("ld-conf", "t", path="/etc/ld.so.conf.d/rocm.conf", content="/opt/rocm/lib\n/opt/rocm/lib64\n")
    state = PlanState(ctx)
    assert step.check(state).status == "change"
    desc = step.describe(state)
    assert "-/opt/rocm-6.2.0/lib" in desc.files[0].diff and "+/opt/rocm/lib64" in desc.files[0].diff
    twice(step, ctx)
    assert (root / "etc/ld.so.conf.d/rocm.conf").read_text() == "/opt/rocm/lib\n/opt/rocm/lib64\n"
    backups = list((root / "var/backups/rocm-wizard").rglob("rocm.conf"))
    assert len(backups) == 1 and backups[0].read_text() == "/opt/rocm-6.2.0/lib\n"
    assert not list(root.rglob(".rocm-wizard.*")), "no temporary file is left behind"
    pin = AptPin("pin", "t", path="/etc/apt/preferences.d/rocm-pin-600", origin="repo.radeon.com", priority=600)
    twice(pin, ctx)
    assert (root / "etc/apt/preferences.d/rocm-pin-600").read_text() == \
        "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n"
    assert oct((root / "etc/apt/preferences.d/rocm-pin-600").stat().st_mode & 0o777) == "0o644"


def test_apt_key_checks_the_fingerprint_before_writing(tmp_path):
    key = make_gpg_key(tmp_path)
    other = make_gpg_key(tmp_path, uid="other <o@example.invalid>")
    root = make_root(tmp_path / "root")
    (tmp_path / "good.asc").write_bytes(key.armored)
    (tmp_path / "bad.asc").write_bytes(other.armored)
    (tmp_path / "both.asc").write_bytes(key.armored + other.armored)
    ctx = Context(root=str(root), runner=Recorder(root), env={})
    keyring = root / "etc/apt/keyrings/rocm.gpg"
    for name in ("bad.asc", "both.asc"):
        bad = AptKey("rocm-key", "t", url=(tmp_path / name).as_uri(), fingerprint=key.fingerprint,
                     keyring="/etc/apt/keyrings/rocm.gpg")
        res = bad.apply(ctx)
        assert res.status == FAILED and "nothing was written" in res.detail
        assert not keyring.exists()
    step = AptKey("rocm-key", "t", url=(tmp_path / "good.asc").as_uri(), fingerprint=key.fingerprint,
                  keyring="/etc/apt/keyrings/rocm.gpg")
    twice(step, ctx)
    assert [k.fingerprint for k in read_keys(keyring.read_bytes())] == [key.fingerprint]
    assert not keyring.read_bytes().startswith(b"-----BEGIN")  # binary keyring, like gpg --dearmor
    missing = AptKey("rocm-key", "t", url=(tmp_path / "nope.asc").as_uri(), fingerprint=key.fingerprint,
                     keyring="/etc/apt/keyrings/other.gpg")
    assert missing.apply(ctx).status == FAILED


def test_apt_sources_replace_and_comment_out(tmp_path):
    root = make_root(tmp_path / "root")
    d = root / "etc/apt/sources.list.d"
    (d / "rocm.list").write_text("deb https://repo.radeon.com/rocm/apt/6.2 jammy main\n")
    (d / "amdgpu-proprietary.list").write_text("# deb https://repo.radeon.com/amdgpu/6.2/ubuntu jammy proprietary\n")
    (d / "old-rocm.sources").write_text("Types: deb\nURIs: https://repo.radeon.com/rocm/apt/6.0\nSuites: jammy\n")
    (d / "docker.list").write_text("deb https://download.docker.com/linux/ubuntu jammy stable\n")
    (root / "etc/apt/sources.list").write_text("deb http://archive.ubuntu.com/ubuntu jammy main\n"
                                               "deb-src https://repo.radeon.com/amdgpu/6.2/ubuntu jammy main\n")
    os.chmod(root / "etc/apt/sources.list", 0o640)
    files = [{"path": "/etc/apt/sources.list.d/rocm.list",
              "content": "deb [signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.4.3 jammy main\n"},
             {"path": "/etc/apt/sources.list.d/amdgpu.list",
              "content": "deb [signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/amdgpu/6.4.3/ubuntu jammy main\n"}]
    step = AptSources("rocm-repos", "t", files=files, markers=["//repo.radeon.com"])
    ctx = Context(root=str(root), runner=Recorder(root), env={})
    state = PlanState(ctx)
    check = step.check(state)
    assert check.status == "change" and "old-rocm.sources" in check.detail
    twice(step, ctx)
    assert (d / "rocm.list").read_text() == files[0]["content"]
    assert (d / "amdgpu.list").read_text() == files[1]["content"]
    assert not (d / "old-rocm.sources").exists()
    assert (d / "docker.list").read_text().startswith("deb https://download.docker.com")
    assert (root / "etc/apt/sources.list").read_text() == (
        "deb http://archive.ubuntu.com/ubuntu jammy main\n"
        "# disabled by rocm-wizard: deb-src https://repo.radeon.com/amdgpu/6.2/ubuntu jammy main\n")
    assert oct((root / "etc/apt/sources.list").stat().st_mode & 0o777) == "0o640"
    backed = {p.name for p in (root / "var/backups/rocm-wizard").rglob("*") if p.is_file()}
    assert backed == {"rocm.list", "old-rocm.sources", "sources.list"}


def test_apt_sources_on_a_site_mirror_leave_the_distribution_archive_alone(tmp_path):
    """One mirror host serves Ubuntu's archive and AMD's repositories: only AMD's paths are taken out."""
    from rocm_wizard.plan.catalog_adapter import rocm_line_markers

    root = make_root(tmp_path / "root")
    mirror = "http://mirror.site:8080"
    d = root / "etc/apt/sources.list.d"
    distro = (f"deb {mirror}/ubuntu jammy main universe\ndeb {mirror}/ubuntu jammy-updates main\n"
              f"deb {mirror}/docker/linux/ubuntu jammy stable\n")
    (root / "etc/apt/sources.list").write_text(distro + f"deb {mirror}/graphics/6.2/ubuntu jammy main\n")
    (d / "old.list").write_text(f"deb {mirror}/rocm/apt/6.2 jammy main\ndeb {mirror}/amdgpu/6.2/ubuntu jammy main\n")
    (d / "sdk.sources").write_text(f"Types: deb\nURIs: {mirror}/rocm/core/packages/ubuntu2204/\nSuites: stable\n")
    (d / "ubuntu.sources").write_text(f"Types: deb\nURIs: {mirror}/ubuntu\nSuites: jammy\n")
    markers = rocm_line_markers(["https://repo.radeon.com", mirror])
    assert "//mirror.site:8080" not in markers and "//mirror.site:8080/rocm/apt/" in markers
    step = AptSources("rocm-repos", "t", markers=markers, files=[
        {"path": "/etc/apt/sources.list.d/rocm.list", "content": f"deb {mirror}/rocm/apt/6.4.3 jammy main\n"}])
    ctx = Context(root=str(root), runner=Recorder(root), env={})
    twice(step, ctx)
    assert (root / "etc/apt/sources.list").read_text() == distro + (
        f"# disabled by rocm-wizard: deb {mirror}/graphics/6.2/ubuntu jammy main\n")
    assert (d / "old.list").read_text().count("# disabled by rocm-wizard: ") == 2
    assert not (d / "sdk.sources").exists()
    assert (d / "ubuntu.sources").read_text().startswith("Types: deb\nURIs: " + mirror + "/ubuntu")


def test_apt_sources_refuses_a_mixed_deb822_file(tmp_path):
    root = make_root(tmp_path / "root")
    mixed = root / "etc/apt/sources.list.d/mixed.sources"
    mixed.write_text("Types: deb\nURIs: https://repo.radeon.com/rocm/apt/6.0\n\nTypes: deb\nURIs: http://archive.ubuntu.com/ubuntu\n")
    step = AptSources("rocm-repos", "t", files=[{"path": "/etc/apt/sources.list.d/rocm.list", "content": "x\n"}],
                      markers=["//repo.radeon.com"])
    ctx = Context(root=str(root), runner=Recorder(root), env={})
    assert step.apply(ctx).status == FAILED
    assert mixed.exists() and not (root / "etc/apt/sources.list.d/rocm.list").exists()


def test_command_and_reboot_flag_follow_earlier_changes(tmp_path):
    root = make_root(tmp_path / "root")
    rec = Recorder(root)
    ctx = Context(root=str(root), runner=rec, env={})
    cmd = Command("ldconfig", "t", argv=["ldconfig"], after=["ld-conf"])
    flag = RebootFlag("reboot-flag", "t", after=["kernel-driver"])
    assert cmd.apply(ctx).status == OK and flag.apply(ctx).status == OK and rec.calls == []
    ctx.changed |= {"ld-conf", "kernel-driver"}
    assert cmd.apply(ctx).status == CHANGED and rec.calls == [["ldconfig"]]
    assert flag.apply(ctx).status == CHANGED
    assert (root / "run/reboot-required").read_text() == "*** System restart required ***\n"


def test_user_groups(tmp_path):
    root = make_root(tmp_path / "root", groups={"video": (44, ()), "render": (110, ()), "docker": (999, ())})
    rec = Recorder(root)
    ctx = Context(root=str(root), runner=rec, env={"SUDO_USER": "dev"})
    step = UserGroups("gpu-groups", "t", user="", groups=["render", "video"])
    twice(step, ctx)
    assert rec.calls == [["usermod", "-a", "-G", "render,video", "dev"]]
    nobody = UserGroups("gpu-groups", "t", user="ghost", groups=["render"])
    assert nobody.apply(Context(root=str(root), runner=rec, env={})).status == FAILED


def test_fingerprint_mismatches_in_python(tmp_path, seed_system):
    from rocm_wizard.plan import Choices, build_plan

    plan = build_plan(seed_system("seed-rx7900xt-jammy-rocm6.2"), Choices(path="rocm-upgrade", rocm="6.4.3"))
    root = make_root(tmp_path / "root")
    ctx = Context(root=str(root), runner=Recorder(root), env={})
    assert system_fingerprint_mismatches(plan, ctx) == []
    (root / "opt/rocm/.info/version").write_text("6.4.3-128\n")
    assert system_fingerprint_mismatches(plan, ctx) == []
    (root / "proc/sys/kernel/osrelease").write_text("6.8.0-1-generic\n")
    assert system_fingerprint_mismatches(plan, ctx) == [
        "kernel: this system has '6.8.0-1-generic', the plan was made for '6.5.0-45-generic'"]


# ------------------------------------------------------------------ venv and pip, for real
def _wheel(dist: Path, name: str, version: str, requires=()) -> None:
    norm = name.replace("-", "_")
    fname = dist / f"{norm}-{version}-py3-none-any.whl"
    info = f"{norm}-{version}.dist-info"
    files = {
        f"{norm}_standin/__init__.py": f"VERSION = {version!r}\n",
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: %s\nVersion: %s\n%s" % (
            name, version, "".join(f"Requires-Dist: {r}\n" for r in requires)),
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    with zipfile.ZipFile(fname, "w") as z:
        for path, text in files.items():
            data = text.encode()
            z.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{path},sha256={digest},{len(data)}")
        record.append(f"{info}/RECORD,,")
        z.writestr(f"{info}/RECORD", "\n".join(record) + "\n")


def _index(tmp: Path) -> str:
    """A PEP 503 index on disk (file://) with stand-ins of the rocm6.1 wheels and a stray triton."""
    files = tmp / "files"
    files.mkdir()
    _wheel(files, "torch", "2.4.1+rocm6.1", ["pytorch-triton-rocm==3.0.0"])
    _wheel(files, "torchvision", "0.19.1+rocm6.1", ["torch==2.4.1"])
    _wheel(files, "torchaudio", "2.4.1+rocm6.1", ["torch==2.4.1"])
    _wheel(files, "pytorch-triton-rocm", "3.0.0")
    _wheel(files, "triton", "3.0.0")
    _wheel(files, "needs-new-torch", "1.0", ["torch>=2.5"])
    simple = tmp / "simple"
    for whl in files.iterdir():
        project = whl.name.split("-")[0].replace("_", "-").lower()
        (simple / project).mkdir(parents=True, exist_ok=True)
        with open(simple / project / "index.html", "a") as fh:
            fh.write(f'<a href="../../files/{whl.name}">{whl.name}</a>\n')
    return simple.as_uri()


@pytest.fixture
def pyctx(tmp_path):
    env = {"PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""),
           "PIP_CONFIG_FILE": os.devnull, "HOME": str(tmp_path), "PIP_NO_CACHE_DIR": "1",
           "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    return Context(root="/", runner=run_local, env=env)


@pytest.mark.slow
def test_venv_pip_chain_is_idempotent(tmp_path, pyctx):
    index = _index(tmp_path)
    link = str(tmp_path / "venvs/train")
    target = link + "-torch2.4.1-rocm6.1"
    (tmp_path / "venvs").mkdir()
    venv = Venv("venv", "t", path=target, mode="new", python=os.path.basename(sys.executable), link=link)
    twice(venv, pyctx)
    py = target + "/bin/python"
    pip = [py, "-m", "pip", "install", "-q", "--index-url", index]
    subprocess.run(pip + ["triton==3.0.0", "pytorch-triton-rocm==3.0.0"], check=True, env=pyctx.env,
                   capture_output=True)
    strays = PipUninstall("triton-strays", "t", venv=target, strays=["triton", "triton-rocm", "pytorch-triton"],
                          keep="pytorch-triton-rocm")
    assert strays.check(PlanState(pyctx)).status == "change"
    first, _ = twice(strays, pyctx)
    assert "triton" in first.detail and "pytorch-triton-rocm" in first.detail
    reqs = ["torch==2.4.1+rocm6.1", "torchvision==0.19.1+rocm6.1", "torchaudio==2.4.1+rocm6.1",
            "pytorch-triton-rocm==3.0.0"]
    install = PipInstall("torch", "t", venv=target, requirements=reqs, index_url=index)
    twice(install, pyctx)
    state = PlanState(pyctx)
    assert state.venv(target).dists["torch"] == "2.4.1+rocm6.1"
    env = EnvPersist("torch-env", "t", venv=target, env={"TORCH_BLAS_PREFER_HIPBLASLT": "0"},
                     env_file=target + "/rocm-wizard.env")
    twice(env, pyctx)
    activate = Path(target + "/bin/activate").read_text()
    assert activate.count("# >>> rocm-wizard >>>") == 1
    out = subprocess.run(["bash", "-c", f'. "{target}/bin/activate" && echo "$TORCH_BLAS_PREFER_HIPBLASLT"'],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "0"
    assert Path(target + "/rocm-wizard.env").read_text().endswith("TORCH_BLAS_PREFER_HIPBLASLT=0\n")
    flip = VenvLink("venv-switch", "t", link=link, target=target)
    twice(flip, pyctx)
    assert os.readlink(link) == target
    subprocess.run(pip + ["needs-new-torch==1.0", "--no-deps"], check=True, env=pyctx.env, capture_output=True)
    report = PipCheck("pip-check", "t", venv=target).apply(pyctx)
    assert report.status == OK and "needs-new-torch" in report.detail


@pytest.mark.slow
def test_new_venv_carries_the_other_packages_over(tmp_path, pyctx):
    index = _index(tmp_path)
    old = tmp_path / "old"
    subprocess.run([sys.executable, "-m", "venv", str(old)], check=True)
    _wheel(tmp_path / "files", "transformers", "4.46.3")
    (tmp_path / "simple/transformers").mkdir()
    (tmp_path / "simple/transformers/index.html").write_text(
        '<a href="../../files/transformers-4.46.3-py3-none-any.whl">t</a>\n')
    subprocess.run([str(old / "bin/python"), "-m", "pip", "install", "-q", "--index-url", index, "transformers==4.46.3",
                    "triton==3.0.0"], check=True, env=pyctx.env, capture_output=True)
    link = tmp_path / "train"
    link.symlink_to(old)
    new = str(tmp_path / "new")
    subprocess.run([sys.executable, "-m", "venv", new], check=True)
    reqs = ["torch==2.4.1+rocm6.1", "pytorch-triton-rocm==3.0.0"]
    PipInstall("torch", "t", venv=new, requirements=reqs, index_url=index).apply(pyctx)
    env = dict(pyctx.env, PIP_INDEX_URL=index)
    ctx = Context(root="/", runner=run_local, env=env)
    restore = PipRestore("carry-over", "t", source=str(link), venv=new, constraints=reqs,
                         exclude=["torch", "torchvision", "torchaudio", "pytorch-triton-rocm", "triton"])
    first, _ = twice(restore, ctx)
    assert "transformers==4.46.3" in first.detail and "triton" not in first.detail.replace("transformers", "")


class FakeApt(Recorder):
    """apt for a temporary root: ``apt-cache madison`` offers ``offers``; ``apt-get install``
    writes what it installed into the root's dpkg status file."""

    def __init__(self, root: Path, offers) -> None:
        super().__init__(root)
        self.offers = offers

    def __call__(self, argv, input=None, env=None, timeout=None):
        argv = list(argv)
        if argv[:2] == ["apt-cache", "madison"]:
            self.calls.append(argv)
            out = "".join(f"{argv[2]} | {v} | http://x jammy/main amd64 Packages\n" for v in self.offers.get(argv[2], []))
            return CommandResult(tuple(argv), out, "", 0, None, 0.0)
        if argv[:2] == ["apt-cache", "policy"]:
            self.calls.append(argv)
            versions = self.offers.get(argv[2], [])
            out = f"{argv[2]}:\n  Installed: (none)\n  Candidate: {versions[0] if versions else '(none)'}\n"
            return CommandResult(tuple(argv), out, "", 0, None, 0.0)
        if argv[:2] == ["apt-get", "install"]:
            self.calls.append(argv)
            status = self.root / "var/lib/dpkg/status"
            status.parent.mkdir(parents=True, exist_ok=True)
            text = status.read_text() if status.exists() else ""
            for spec in argv[2:]:
                if spec.startswith("-") or spec in ("DPkg::Lock::Timeout=600", "Dpkg::Options::=--force-confold"):
                    continue
                name, _, version = spec.partition("=")
                text += f"\nPackage: {name}\nStatus: install ok installed\nVersion: {version or self.offers[name][0]}\n"
            status.write_text(text)
            return CommandResult(tuple(argv), "", "", 0, None, 0.0)
        return super().__call__(argv, input, env, timeout)


def test_apt_update_and_install(tmp_path):
    from rocm_wizard.plan.steps import AptInstall, AptUpdate

    root = make_root(tmp_path / "root")
    apt = FakeApt(root, {"rocm": ["6.4.3.60403-128~22.04", "6.2.4.60204-139~22.04"],
                         "amdgpu-dkms": ["1:6.12.12.60403-2194681.22.04"]})
    ctx = Context(root=str(root), runner=apt, env={})
    pkgs = [{"name": "rocm", "version": "6.4.3.60403-*"}]
    install = AptInstall("rocm-packages", "t", packages=pkgs, from_step="rocm-repos")
    update = AptUpdate("apt-update", "t", after=["rocm-repos"], packages=pkgs)
    assert update.apply(ctx).status == OK  # apt already offers 6.4.3 and no source changed
    ctx.changed.add("rocm-repos")
    assert update.apply(ctx).status == CHANGED and ["apt-get", "update"] in apt.calls
    first, _ = twice(install, ctx)
    assert "rocm=6.4.3.60403-128~22.04" in first.detail
    driver = AptInstall("kernel-driver", "t", packages=[{"name": "amdgpu-dkms"}], from_step="rocm-repos",
                        upgrade_with_repo=True)
    twice(driver, Context(root=str(root), runner=apt, env={}))
    missing = AptInstall("x", "t", packages=[{"name": "rocm", "version": "7.0.0.70000-*"}])
    assert missing.apply(ctx).status == FAILED


class UnreachableApt(FakeApt):
    """apt whose ``update`` cannot reach a repository: with --error-on=any it fails (exit 100), without
    it exits 0 after the error lines, as apt does."""

    def __call__(self, argv, input=None, env=None, timeout=None):
        argv = list(argv)
        if argv[:2] == ["apt-get", "update"]:
            self.calls.append(argv)
            out = ("Hit:1 http://archive.ubuntu.com/ubuntu jammy InRelease\n"
                   "Err:2 https://repo.radeon.com/rocm/apt/6.4.3 jammy InRelease\n")
            err = ("W: Failed to fetch https://repo.radeon.com/rocm/apt/6.4.3/dists/jammy/InRelease  Could not "
                   "connect\n"
                   "W: Some index files failed to download. They have been ignored, or old ones used instead.\n")
            rc = 100 if "--error-on=any" in argv else 0
            return CommandResult(tuple(argv), out, err.replace("W:", "E:") if rc else err, rc, None, 0.0)
        return super().__call__(argv, input, env, timeout)


@pytest.mark.parametrize("apt_version", [None, "2.0.10", "2.4.13", "1:2.7.14build2"])
def test_apt_update_that_cannot_fetch_fails_whatever_the_apt(tmp_path, apt_version):
    from rocm_wizard.plan.steps import AptUpdate

    root = make_root(tmp_path / "root")
    if apt_version:
        (root / "var/lib/dpkg").mkdir(parents=True)
        (root / "var/lib/dpkg/status").write_text(
            f"Package: apt\nStatus: install ok installed\nVersion: {apt_version}\n")
    apt = UnreachableApt(root, {"rocm": ["6.2.4.60204-139~22.04"]})
    ctx = Context(root=str(root), runner=apt, env={})
    ctx.changed.add("rocm-repos")
    res = AptUpdate("apt-update", "t", after=["rocm-repos"], packages=[{"name": "rocm", "version": "6.4.3.60403-*"}]
                    ).apply(ctx)
    assert res.status == FAILED and "could not fetch every repository" in res.detail
    assert "Failed to fetch https://repo.radeon.com" in res.detail
    knows = apt_version not in (None, "2.0.10")  # --error-on=any came with apt 2.1.16
    assert apt.calls == [["apt-get", "update"] + (["--error-on=any"] if knows else [])]


def test_the_runner_and_the_step_judge_apt_update_output_alike():
    from rocm_wizard.plan.steps.apt import apt_update_failures

    text = ("Hit:1 http://a jammy InRelease\nIgn:2 http://b jammy InRelease\nErr:2 http://b jammy InRelease\n"
            "  Could not connect to b:80\nW: Failed to fetch http://b/dists/jammy/InRelease\n"
            "W: Some index files failed to download. They have been ignored, or old ones used instead.\n")
    assert apt_update_failures(text) == [
        "Err:2 http://b jammy InRelease", "W: Failed to fetch http://b/dists/jammy/InRelease",
        "W: Some index files failed to download. They have been ignored, or old ones used instead."]
    assert apt_update_failures("Hit:1 http://a jammy InRelease\nReading package lists...\n") == []


def test_command_runs_again_when_its_output_is_older_than_an_input(tmp_path):
    """ldconfig: a run cut off before it leaves /etc/ld.so.cache older than the libraries; the next
    run (no step changed anything in it) must still see that."""
    import time

    root = make_root(tmp_path / "root")
    lib = root / "opt/rocm-6.4.3/lib"
    lib.mkdir(parents=True)
    (root / "etc/alternatives").mkdir(parents=True)
    os.symlink("/opt/rocm-6.2.4", root / "etc/alternatives/rocm")
    import shutil

    shutil.rmtree(root / "opt/rocm")
    os.symlink("../etc/alternatives/rocm", root / "opt/rocm")
    (root / "etc/ld.so.conf.d").mkdir(parents=True)
    (root / "etc/ld.so.conf.d/rocm.conf").write_text("/opt/rocm/lib\n")
    cache = root / "etc/ld.so.cache"

    class Ldconfig(Recorder):
        def __call__(self, argv, input=None, env=None, timeout=None):
            if argv == ["ldconfig"]:
                cache.write_bytes(b"cache")
            return super().__call__(argv, input, env, timeout)

    rec = Ldconfig(root)
    ctx = Context(root=str(root), runner=rec, env={})
    cmd = Command("ldconfig", "t", argv=["ldconfig"], after=["ld-conf", "rocm-packages"], output="/etc/ld.so.cache",
                  inputs=["/etc/ld.so.conf.d/rocm.conf", "/opt/rocm", "/opt/rocm/lib"])
    res = cmd.apply(ctx)  # no cache at all
    assert res.status == CHANGED and "/etc/ld.so.cache does not exist" in res.detail and rec.calls == [["ldconfig"]]
    assert cmd.apply(ctx).status == OK and cmd.check(PlanState(ctx)).status == OK
    old = os.stat(cache).st_mtime_ns - 10**9
    os.utime(cache, ns=(old, old))  # written before the libraries were installed
    assert cmd.check(PlanState(ctx)).status == CHANGE
    res = cmd.apply(ctx)
    assert res.status == CHANGED and "changed after /etc/ld.so.cache was written" in res.detail
    assert cmd.apply(ctx).status == OK
    # update-alternatives points /opt/rocm at another release: the link on the way changed
    time.sleep(0.05)  # a later inode change time than the cache's (ordering, not a timing check)
    os.unlink(root / "etc/alternatives/rocm")
    os.symlink("/opt/rocm-6.4.3", root / "etc/alternatives/rocm")
    check = cmd.check(PlanState(ctx))
    assert check.status == CHANGE and check.detail.startswith("/etc/alternatives/rocm changed after"), check.detail
    assert cmd.apply(ctx).status == CHANGED and cmd.apply(ctx).status == OK
    assert len(rec.calls) == 3


def test_docker_steps(tmp_path):
    from rocm_wizard.plan.steps import DockerCheck, DockerPull, DockerRunScript

    root = make_root(tmp_path / "root", groups={"video": (44, ()), "render": (110, ()), "docker": (999, ())})
    (root / "usr/bin").mkdir(parents=True)
    (root / "usr/bin/docker").write_text("#!/bin/sh\n")
    (root / "usr/bin/docker").chmod(0o755)
    rec = Recorder(root)
    ctx = Context(root=str(root), runner=rec, env={"SUDO_USER": "dev", "PATH": "/usr/bin"}, euid=0)
    first = DockerCheck("docker-engine", "t", user="dev").apply(ctx)
    assert first.status == CHANGED and ["usermod", "-a", "-G", "docker", "dev"] in rec.calls
    assert DockerCheck("docker-engine", "t", user="dev").apply(ctx).status == OK
    image = "rocm/pytorch:rocm6.4.3_ubuntu22.04_py3.10_pytorch_release_2.6.0"
    assert DockerPull("image", "t", image=image).apply(ctx).status == OK  # the recorder says "present"
    flags = ["--cap-add=SYS_PTRACE", "--security-opt", "seccomp=unconfined", "--device=/dev/kfd", "--device=/dev/dri",
             "--group-add", "video", "--ipc=host", "--shm-size", "8G"]
    step = DockerRunScript("run-script", "t", dir="/home/dev/rocm-workspace", image=image, flags=flags, user="dev")
    twice(step, ctx)
    written_as = [c[2] for c in rec.calls if c[:2] == ["runuser", "-u"] and c[4:6] == ["sh", "-c"]]
    assert written_as == ["dev", "dev"], rec.calls  # a root run writes in the workspace as its user
    script = (root / "home/dev/rocm-workspace/run-rocm-pytorch.sh").read_text()
    assert "--group-add 44 \\" in script and "--group-add 110 \\" in script and "--group-add video" not in script
    assert os.access(root / "home/dev/rocm-workspace/run-rocm-pytorch.sh", os.X_OK)
    compose = (root / "home/dev/rocm-workspace/compose.yaml").read_text()
    import yaml

    svc = yaml.safe_load(compose)["services"]["pytorch"]
    assert svc["group_add"] == [44, 110] and svc["devices"] == ["/dev/kfd", "/dev/dri"]
    assert svc["volumes"] == ["/home/dev/rocm-workspace:/workspace"]
    res = subprocess.run(["bash", "-n", str(root / "home/dev/rocm-workspace/run-rocm-pytorch.sh")])
    assert res.returncode == 0


@pytest.mark.parametrize("ws", ["/srv:/etc", "/srv/a,b", "/srv/tab\there", "srv"])
def test_docker_workspaces_that_cannot_be_mounted_are_refused(ws):
    from rocm_wizard.plan.steps import DockerRunScript
    from rocm_wizard.tui.fields import _check_workspace

    with pytest.raises(ValueError, match="workspace"):
        DockerRunScript("run-script", "t", dir=ws, image="rocm/pytorch:latest", flags=[])
    assert _check_workspace(ws)  # the TUI's field says why, too


def test_a_dollar_in_the_workspace_reaches_compose_literally():
    import yaml

    from rocm_wizard.plan.steps import DockerRunScript

    step = DockerRunScript("run-script", "t", dir="/srv/$HOME/${X}", image="rocm/pytorch:latest", flags=[])
    svc = yaml.safe_load(step.fill(step.compose_template, "44", "110"))["services"]["pytorch"]
    assert svc["volumes"] == ["/srv/$$HOME/$${X}:/workspace"]  # Compose turns $$ back into $
    assert "workspace='/srv/$HOME/${X}'" in step.script_template


def test_docker_run_script_adds_the_video_id_once_without_a_render_group_of_its_own(tmp_path):
    """No render group (or one sharing video's id): the script and compose file name video's id
    once, not `--group-add 44` twice."""
    from rocm_wizard.plan.steps import DockerRunScript

    root = make_root(tmp_path / "root", groups={"video": (44, ())})
    ctx = Context(root=str(root), runner=Recorder(root), env={"SUDO_USER": "dev", "PATH": "/usr/bin"}, euid=0)
    image = "rocm/pytorch:rocm6.4.3_ubuntu22.04_py3.10_pytorch_release_2.6.0"
    step = DockerRunScript("run-script", "t", dir="/home/dev/rocm-workspace", image=image,
                           flags=["--device=/dev/kfd", "--group-add", "video"], user="dev")
    twice(step, ctx)
    script = (root / "home/dev/rocm-workspace/run-rocm-pytorch.sh").read_text()
    assert script.count("--group-add") == 1 and "--group-add 44 \\" in script and "_GID@" not in script
    import yaml

    svc = yaml.safe_load((root / "home/dev/rocm-workspace/compose.yaml").read_text())["services"]["pytorch"]
    assert svc["group_add"] == [44]
    assert subprocess.run(["bash", "-n", str(root / "home/dev/rocm-workspace/run-rocm-pytorch.sh")]).returncode == 0
