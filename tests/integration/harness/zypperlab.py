"""The zypper lab (issue 26): a Debian test root that poses as SUSE Linux Enterprise Server 15 SP6
with Debian's own ``zypper`` and ``rpm`` installed in it, and repositories laid out like AMD's SLES
repositories, built here with ``rpmbuild``, signed with ``rpmsign`` (packages) and gpg
(``repodata/repomd.xml.asc``), indexed with ``createrepo_c`` and served on 127.0.0.1:

* ``<radeon>/rocm/zyp/<ver>/main``                         rocm, rocm-core (6.2.4 and 6.4.3)
* ``<radeon>/amdgpu/<ver>/sle/15.6/main/x86_64``           amdgpu-dkms
* ``<radeon>/rocm/rocm.gpg.key``                           the AMD stand-in key (armoured)
* ``<suse>/hpc``                                           "SUSE's" own rocm/rocm-core 6.5.0 (a newer
                                                           version that must not win), kernel-default-devel

zypper and rpm run inside the root (its own ``/root/.rpmdb``, ``/etc/zypp``): nothing reaches this
machine's packages.  The stand-in packages are ``noarch`` and carry only small files under /opt.
Debian's zypper and rpm are fetched once from Debian's archive and cached beside the root image,
as the ansible .debs are (``debs-zypper-<hash>/``).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

from . import fetched
from .debroot import RECIPE, BaseTree, DebRoot, cache_dir, recipe_key
from .gpgkeys import TestKey
from .httpserve import LocalServer

PACKAGES = ["zypper", "rpm"]
APT_OPTS = ["--no-install-recommends"]
INSIDE = "/opt/rw-zypper-debs"
SP = "15.6"
OLD, NEW, SUSE_ROCM = "6.2.4", "6.4.3", "6.5.0"
CORE_KEY_PATH = ("rocm", "gpg", "packages.gpg")


def libpatch(version: str) -> str:
    a, b, c = (int(x) for x in version.split("."))
    return f"{version}.{a * 10000 + b * 100 + c}"


def debs_dir(recipe: dict = RECIPE) -> Path:
    key = hashlib.sha256(json.dumps([recipe_key(recipe), PACKAGES, APT_OPTS], sort_keys=True).encode()).hexdigest()[:16]
    return cache_dir() / f"debs-zypper-{key}"


def ensure_debs(base: BaseTree, recipe: dict = RECIPE, mirror: Optional[str] = None) -> Path:
    """Debian's zypper and rpm .debs for a root of ``recipe``, downloaded once (atomic, locked:
    :func:`.fetched.debs`)."""
    return fetched.debs(base, debs_dir(recipe), PACKAGES, "zypper_*.deb", recipe=recipe, mirror=mirror,
                        apt_opts=APT_OPTS)


def make_sles(root: DebRoot, debs: Path, sp: str = SP) -> None:
    """Install zypper and rpm into ``root`` (offline) and make it say it is SLES 15 SP<n>."""
    root.bind(str(debs), INSIDE)
    root.run(f"dpkg -i {INSIDE}/*.deb >/tmp/dpkg-zypper.log 2>&1 || (cat /tmp/dpkg-zypper.log; exit 1)",
             check=True, timeout=600)
    # Debian's rpm keeps its database in ~/.rpmdb; SLES (and libzypp) in /var/lib/rpm: one database
    root.write("/etc/rpm/macros", "%_dbpath /var/lib/rpm\n")
    major, minor = sp.split(".")
    osrel = (f'NAME="SLES"\nVERSION="{major}-SP{minor}"\nVERSION_ID="{sp}"\n'
             f'PRETTY_NAME="SUSE Linux Enterprise Server {major} SP{minor}"\nID="sles"\nID_LIKE="suse"\n'
             f'ANSI_COLOR="0;32"\nCPE_NAME="cpe:/o:suse:sles:{major}:sp{minor}"\n')
    root.remove("/etc/os-release")
    root.write("/etc/os-release", osrel)
    root.write("/usr/lib/os-release", osrel)
    root.run(["getent", "group", "render"], check=False)
    for group in ("render", "video"):
        if root.run(["getent", "group", group]).returncode != 0:
            root.run(["groupadd", "--system", group], check=True)


# ------------------------------------------------------------------ the stand-in rpms
@dataclass
class Rpm:
    name: str
    version: str
    release: str = "sles156"
    requires: tuple = ()
    conflicts: tuple = ()
    files: Dict[str, str] = None  # path -> content
    links: Dict[str, str] = None  # path -> target
    scripts: str = ""  # scriptlet sections, verbatim


SPEC = """Name: {name}
Version: {version}
Release: {release}
Summary: rocm-wizard test stand-in for {name}
License: MIT
BuildArch: noarch
{requires}
%description
A rocm-wizard test stand-in; it carries only small files.
%install
{install}
%files
{files}
{scripts}
"""


def build_rpms(workdir: str, specs: List[Rpm], key: TestKey) -> List[str]:
    """Build and sign ``specs`` (rpmbuild + rpmsign with ``key``); the .rpm paths."""
    top = os.path.join(workdir, "rpmbuild")
    os.makedirs(os.path.join(top, "SPECS"), exist_ok=True)
    out = []
    for s in specs:
        install, files = [], []
        for path, content in (s.files or {}).items():
            install.append(f"mkdir -p %{{buildroot}}{os.path.dirname(path)}")
            install.append(f"printf '%s' '{content}' > %{{buildroot}}{path}")
            files.append(path)
        for path, target in (s.links or {}).items():
            install.append(f"mkdir -p %{{buildroot}}{os.path.dirname(path)}")
            install.append(f"ln -s {target} %{{buildroot}}{path}")
            files.append(path)
        req = "\n".join([f"Requires: {r}" for r in s.requires] + [f"Conflicts: {c}" for c in s.conflicts])
        spec = os.path.join(top, "SPECS", f"{s.name}-{s.version}.spec")
        with open(spec, "w") as fh:
            fh.write(SPEC.format(name=s.name, version=s.version, release=s.release, requires=req,
                                 install="\n".join(install) or "true", files="\n".join(files),
                                 scripts=s.scripts))
        subprocess.run(["rpmbuild", "--quiet", "--define", f"_topdir {top}", "--define", "_build_id_links none",
                        "-bb", spec], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        rpm = os.path.join(top, "RPMS", "noarch", f"{s.name}-{s.version}-{s.release}.noarch.rpm")
        out.append(rpm)
    env = dict(key.env)
    subprocess.run(["rpmsign", "--addsign", "--define", "__gpg /usr/bin/gpg", "--define", f"_gpg_name {key.fingerprint}",
                    "--define", f"_gpg_path {key.home}", *out], check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return out


def publish(repo_dir: str, rpms: List[str], key: TestKey) -> None:
    """A signed rpm-md repository: the packages, ``createrepo_c``, ``repomd.xml.asc`` by ``key``."""
    os.makedirs(repo_dir, exist_ok=True)
    for r in rpms:
        shutil.copy2(r, repo_dir)
    subprocess.run(["createrepo_c", "--quiet", repo_dir], check=True)
    repomd = os.path.join(repo_dir, "repodata", "repomd.xml")
    key._gpg("--local-user", key.fingerprint, "--armor", "--detach-sign", "--output", repomd + ".asc", repomd)
    key.write_armored(repomd + ".key")


def rocm_rpms(version: str, release: str = "sles156", vendor_note: str = "AMD") -> List[Rpm]:
    full = libpatch(version)
    return [
        Rpm("rocm-core", full, release, files={f"/opt/rocm-{version}/.info/version": f"{version}-{vendor_note}\n"},
            links={"/opt/rocm": f"/opt/rocm-{version}"}),
        Rpm("rocm", full, release, requires=(f"rocm-core = {full}-{release}",),
            files={f"/opt/rocm-{version}/share/rocm-standin.txt": f"rocm {version} ({vendor_note})\n"}),
    ]


@dataclass
class ZypperWorld:
    radeon: LocalServer
    suse: LocalServer
    radeon_key: TestKey
    suse_key: TestKey
    rogue_key: TestKey
    radeon_root: str
    core_key: Optional[TestKey] = None

    @property
    def radeon_url(self) -> str:
        return self.radeon.url

    def reset(self) -> None:
        self.radeon.reset()
        self.suse.reset()
        if self.core_key is not None:
            self.core_key.write_armored(os.path.join(self.radeon_root, *CORE_KEY_PATH))

    def core(self) -> "ZypperWorld":
        """The Core SDK's SLES repository laid out like AMD's (rpm_repos.toml [coresdk] 10.0:
        ``rocm/core/packages/sles15/x86_64``, key ``rocm/gpg/packages.gpg``) on the radeon server: the
        full suite amdrocm-core-sdk10.0 (SLES has per-gfx packages for Instinct targets only) and
        amdrocm-base10.0, signed (packages and repomd.xml) by a Core SDK test key; built once."""
        if self.core_key is None:
            from .rpmlab import CORE_ROOT, CORE_RELEASE, CORE_SCRIPTS, CORE_SERIES, CORE_VERSION

            self.core_key = TestKey("Core SDK stand-in <core@example.invalid>")
            rel = f"{CORE_RELEASE}.sles15"
            rpms = build_rpms(os.path.join(self.radeon_root, "..", "build-core"), [
                Rpm(f"amdrocm-base{CORE_SERIES}", CORE_VERSION, rel,
                    files={f"{CORE_ROOT}/.info/version": f"{CORE_VERSION}-{CORE_RELEASE}\n"}, scripts=CORE_SCRIPTS),
                Rpm(f"amdrocm-core-sdk{CORE_SERIES}", CORE_VERSION, rel,
                    requires=(f"amdrocm-base{CORE_SERIES} = {CORE_VERSION}-{rel}",),
                    files={f"{CORE_ROOT}/share/core-sdk-standin.txt": "full\n"})], self.core_key)
            publish(os.path.join(self.radeon_root, "rocm", "core", "packages", "sles15", "x86_64"), rpms,
                    self.core_key)
            self.core_key.write_armored(os.path.join(self.radeon_root, *CORE_KEY_PATH))
        return self


def build_world(base: str) -> ZypperWorld:
    radeon_key = TestKey("repo.radeon.com stand-in <radeon@example.invalid>")
    suse_key = TestKey("SUSE stand-in <suse@example.invalid>")
    rogue_key = TestKey("rogue <rogue@example.invalid>")
    radeon_root = os.path.join(base, "radeon")
    suse_root = os.path.join(base, "suse")
    work = os.path.join(base, "build")
    for version in (OLD, NEW):
        rpms = build_rpms(os.path.join(work, version), rocm_rpms(version), radeon_key)
        publish(os.path.join(radeon_root, "rocm", "zyp", version, "main"), rpms, radeon_key)
        drv = build_rpms(os.path.join(work, "amdgpu-" + version),
                         [Rpm("amdgpu-dkms", f"{version}.99", files={"/usr/src/amdgpu-standin/VERSION": f"{version}\n"})],
                         radeon_key)
        publish(os.path.join(radeon_root, "amdgpu", version, "sle", SP, "main", "x86_64"), drv, radeon_key)
    radeon_key.write_armored(os.path.join(radeon_root, "rocm", "rocm.gpg.key"))
    suse = build_rpms(os.path.join(work, "suse"), rocm_rpms(SUSE_ROCM, "150600.1", "SUSE") + [
        Rpm("kernel-default-devel", "6.4.0", "150600.23.25.1", files={"/usr/src/linux-standin/VERSION": "6.4.0\n"}),
        Rpm("suse-hpc-tool", "1.0", "1", files={"/usr/share/suse-hpc-tool/README": "x\n"})], suse_key)
    publish(os.path.join(suse_root, "hpc"), suse, suse_key)
    radeon = LocalServer(radeon_root, "radeon", "127.0.0.1").start()
    suse_srv = LocalServer(suse_root, "suse", "127.0.0.1").start()
    return ZypperWorld(radeon, suse_srv, radeon_key, suse_key, rogue_key, radeon_root)


def repo_text(alias: str, url: str, priority: Optional[int] = None) -> str:
    return (f"[{alias}]\nname={alias}\nbaseurl={url}\nenabled=1\nautorefresh=0\ntype=rpm-md\ngpgcheck=1\n"
            + (f"priority={priority}\n" if priority is not None else ""))


def make_rocm_old(root: DebRoot, world: ZypperWorld) -> None:
    """The "before": SLES' own (stand-in) HPC repository trusted and configured, and ROCm 6.2.4
    installed from AMD's 6.2.4 repository set up the way AMD's page does it (its rocm.repo)."""
    root.write("/tmp/suse.key", world.suse_key.armored_public())
    root.run(["rpm", "--import", "/tmp/suse.key"], check=True)
    root.write("/etc/zypp/repos.d/sle-hpc.repo", repo_text("SLE-HPC", world.suse.url + "/hpc"))
    # AMD's page: `zypper --gpg-auto-import-keys install rocm` from its [ROCm-6.2.4] repository
    root.write("/etc/zypp/repos.d/rocm.repo", repo_text(f"ROCm-{OLD}", f"{world.radeon_url}/rocm/zyp/{OLD}/main"))
    root.run(["zypper", "--non-interactive", "--gpg-auto-import-keys", "refresh"], check=True, timeout=600)
    # Debian's zypper on a root whose rpm database was only just made by `rpm --import` fails its
    # first target initialisation ("Failed to cache rpm database", rpmdb2solv); the second works.
    # A SLES system has had its @System cache since installation: the lab warms it up once here.
    root.run(["zypper", "--non-interactive", "search", "--installed-only", "rpm"], timeout=300)
    root.run(["zypper", "--non-interactive", "install", "--from", f"ROCm-{OLD}", "rocm", "suse-hpc-tool"],
             check=True, timeout=600)
    # then forget AMD's key again: the wizard must bring and check it itself
    keys = root.run(["rpm", "-q", "gpg-pubkey", "--qf", "%{NAME}-%{VERSION}-%{RELEASE} %{SUMMARY}\\n"]).stdout
    for line in keys.splitlines():
        if "radeon" in line:
            root.run(["rpm", "-e", line.split()[0]], check=True)


def rpm_version(root: DebRoot, name: str) -> Optional[str]:
    res = root.run(["rpm", "-q", "--qf", "%{VERSION}-%{RELEASE}", name])
    return res.stdout.strip() if res.returncode == 0 else None


def state(root: DebRoot) -> Dict[str, Optional[str]]:
    """What a run may change: repository files, the key file, installed packages and rpm keys."""
    out = dict(root.snapshot(["/etc/zypp/repos.d", "/etc/pki/rpm-gpg", "/etc/ld.so.conf.d"]))
    out["rpm -qa"] = "\n".join(sorted(root.run(["rpm", "-qa"]).stdout.split()))
    return out
