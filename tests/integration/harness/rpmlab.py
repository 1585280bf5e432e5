"""An rpm lab for the dnf path (issue 26): stand-in rpms built with ``rpmbuild`` on this machine,
signed with ``rpmsign`` by a throw-away key, laid out like AMD's repositories
(``rocm/rhel9/<ver>/main``, ``amdgpu/<ver>/rhel/9.4/main/x86_64``) plus a distribution repository
whose ``rocm`` looks newer (so ``priority=`` is exercised), indexed with ``createrepo_c`` and served on
127.0.0.1.  The test root is a Debian root that says it is Rocky Linux 9.4, with Debian's ``dnf`` and
``rpm`` installed from .debs fetched once from Debian's archive (cached like Ansible's); dnf and rpm
then act on the root's own rpm database, never on the machine running the tests."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List, Optional

from . import fetched
from .debroot import RECIPE, BaseTree, DebRoot, cache_dir, recipe_key
from .gpgkeys import TestKey
from .httpserve import LocalServer

PACKAGES = ["dnf", "rpm"]
KERNEL = "5.14.0-427.13.1.el9_4.x86_64"  # a RHEL 9.4 kernel's uname -r (stand-in kernel-devel provides it)
INSIDE = "/opt/rw-dnf-debs"


def debs_dir(recipe: dict = RECIPE) -> Path:
    key = hashlib.sha256(json.dumps([recipe_key(recipe), PACKAGES], sort_keys=True).encode()).hexdigest()[:16]
    return cache_dir() / f"debs-dnf-{key}"


def ensure_debs(base: BaseTree, recipe: dict = RECIPE, mirror: Optional[str] = None) -> Path:
    """The cached .debs of dnf and rpm for a root of ``recipe`` (fetched once; atomic, locked:
    :func:`.fetched.debs`)."""
    return fetched.debs(base, debs_dir(recipe), PACKAGES, "dnf_*.deb", recipe=recipe, mirror=mirror)


def make_rocky(root: DebRoot, debs: Path, version: str = "9.4") -> None:
    """The root says it is Rocky Linux ``version`` and has dnf and rpm (Debian's)."""
    osrel = (f'NAME="Rocky Linux"\nVERSION="{version} (Blue Onyx)"\nID="rocky"\nID_LIKE="rhel centos fedora"\n'
             f'VERSION_ID="{version}"\nPLATFORM_ID="platform:el9"\nPRETTY_NAME="Rocky Linux {version} (Blue Onyx)"\n')
    root.write("/usr/lib/os-release", osrel)
    root.write("/etc/os-release", osrel)
    # as on Rocky: rocky-release, and redhat-release and system-release linked to it.  Ansible's
    # distribution facts read /etc/redhat-release: without it the root's family is not RedHat, its
    # pkg_mgr fact not dnf, and ansible-core 2.19's dnf module cannot pick its backend
    root.write("/etc/rocky-release", f"Rocky Linux release {version} (Blue Onyx)\n")
    root.run(["ln", "-sfn", "rocky-release", "/etc/redhat-release"], check=True)
    root.run(["ln", "-sfn", "rocky-release", "/etc/system-release"], check=True)
    root.bind(str(debs), INSIDE)
    root.run(f"dpkg -i {INSIDE}/*.deb", check=True, timeout=600)
    # Debian's dnf.conf skips unreachable repositories (skip_if_unavailable=True); RHEL's default is
    # False: the root gets RHEL's setting, and the plan's .repo files say it per repository anyway
    root.write("/etc/dnf/dnf.conf", "[main]\ngpgcheck=1\ninstallonly_limit=3\nbest=False\nskip_if_unavailable=False\n"
                                    "reposdir=/etc/yum.repos.d\n")
    root.run(["mkdir", "-p", "/etc/yum.repos.d", "/etc/pki/rpm-gpg"], check=True)


SPEC = """Name: {name}
Version: {version}
Release: {release}
Summary: rocm-wizard stand-in of {name}
License: MIT
BuildArch: noarch
{requires}
%description
Stand-in built by the rocm-wizard tests.
%install
{install}
%files
{files}
{scripts}
"""


def build_rpm(work: str, out_dir: str, name: str, version: str, release: str, files: Dict[str, str],
              links: Optional[Dict[str, str]] = None, requires: str = "", scripts: str = "") -> str:
    top = os.path.join(work, f"top-{name}-{version}-{release}")
    for d in ("SPECS", "BUILD", "RPMS", "SOURCES", "SRPMS", "BUILDROOT"):
        os.makedirs(os.path.join(top, d), exist_ok=True)
    install, listed = [], []
    for path, content in sorted(files.items()):
        install.append(f"mkdir -p %{{buildroot}}{os.path.dirname(path)}")
        install.append(f"printf '%s' '{content}' > %{{buildroot}}{path}")
        listed.append(path)
    for path, target in sorted((links or {}).items()):
        install.append(f"mkdir -p %{{buildroot}}{os.path.dirname(path)}")
        install.append(f"ln -s {target} %{{buildroot}}{path}")
        listed.append(path)
    spec = os.path.join(top, "SPECS", f"{name}.spec")
    with open(spec, "w") as fh:
        fh.write(SPEC.format(name=name, version=version, release=release, requires=requires,
                             install="\n".join(install), files="\n".join(listed), scripts=scripts))
    subprocess.run(["rpmbuild", "-bb", "--define", f"_topdir {top}", "--define", "_build_id_links none",
                    "--define", "__os_install_post %{nil}", spec], check=True, capture_output=True,
                   env={**os.environ, "HOME": work})
    (rpm,) = list(Path(top, "RPMS", "noarch").glob("*.rpm"))
    os.makedirs(out_dir, exist_ok=True)
    dest = os.path.join(out_dir, rpm.name)
    shutil.copy2(rpm, dest)
    return dest


def sign_rpms(key: TestKey, rpms: List[str], work: str) -> None:
    subprocess.run(["rpmsign", "--addsign", "--define", "__gpg /usr/bin/gpg", "--define", f"_gpg_name {key.fingerprint}",
                    "--define", f"_gpg_path {key.home}", *rpms], check=True, capture_output=True,
                   env={**os.environ, "HOME": work, "GNUPGHOME": key.home})


def createrepo(directory: str) -> None:
    subprocess.run(["createrepo_c", "-q", directory], check=True, capture_output=True)


CORE_SERIES, CORE_VERSION, CORE_RELEASE = "10.0", "10.0.0", "4"
CORE_KEY_PATH = ("rocm", "gpg", "packages.gpg")
CORE_ROOT = f"/opt/rocm/core-{CORE_SERIES}"
# the Core SDK's packages register their tree for the "core" alternative (/opt/rocm/core), as the
# apt lab's stand-ins do in their postinst (coresdk.toml [stream] alternative).  The scriptlets are
# rpm's built-in Lua: a shell scriptlet would need /bin/sh in rpm's database, which the lab root's
# (Debian) system does not register there.  Quiet: ansible-core 2.20's dnf module reads its helper's
# stdout as JSON, and a scriptlet's output there fails the task ("Failed to parse JSON from dnf script")
CORE_SCRIPTS = ("%post -p <lua>\n"
                'rpm.execute("update-alternatives", "--quiet", "--install", "/opt/rocm/core", "core", '
                f'"{CORE_ROOT}", "100")\n'
                "%postun -p <lua>\n"
                'if arg[2] == 0 then rpm.execute("update-alternatives", "--quiet", "--remove", "core", '
                f'"{CORE_ROOT}") end\n')


def build_core(work: str, out: str, key: TestKey, dist: str, gfx: Optional[str] = "gfx1100") -> List[str]:
    """Stand-ins of the Core SDK 10.0 rpms (names from coresdk.toml: amdrocm-base10.0, the full suite
    amdrocm-core-sdk10.0 and, with ``gfx``, its per-gfx package), signed, indexed in ``out``."""
    release = f"{CORE_RELEASE}.{dist}"
    base = build_rpm(work, out, f"amdrocm-base{CORE_SERIES}", CORE_VERSION, release,
                     {f"{CORE_ROOT}/.info/version": f"{CORE_VERSION}-{CORE_RELEASE}\\n"}, scripts=CORE_SCRIPTS)
    req = f"Requires: amdrocm-base{CORE_SERIES} = {CORE_VERSION}-{release}"
    rpms = [base, build_rpm(work, out, f"amdrocm-core-sdk{CORE_SERIES}", CORE_VERSION, release,
                            {f"{CORE_ROOT}/share/core-sdk-standin": "full\\n"}, requires=req)]
    if gfx:
        rpms.append(build_rpm(work, out, f"amdrocm-core-sdk{CORE_SERIES}-{gfx}", CORE_VERSION, release,
                              {f"{CORE_ROOT}/share/core-sdk-{gfx}": gfx + "\\n"}, requires=req))
    sign_rpms(key, rpms, work)
    createrepo(out)
    return rpms


class RpmWorld:
    """AMD-like site (radeon) and a distribution repository on 127.0.0.1."""

    def __init__(self, work: str) -> None:
        self.work = work
        self.core_key: Optional[TestKey] = None
        self.key = TestKey("rocm-wizard test radeon rpm <radeon@example.invalid>", algo="rsa3072")
        self.rogue_key = TestKey("rocm-wizard test rogue <rogue@example.invalid>", algo="rsa3072")
        self.distro_key = TestKey("rocm-wizard test distro <distro@example.invalid>", algo="rsa3072")
        self.site = os.path.join(work, "radeon")
        self.distro_dir = os.path.join(work, "distro")
        build = os.path.join(work, "build")
        self.rpms: Dict[str, str] = {}
        for ver, build_no in (("6.2.4", "60204"), ("6.4.3", "60403")):
            out = os.path.join(self.site, "rocm", "rhel9", ver, "main")
            core = build_rpm(build, out, "rocm-core", f"{ver}.{build_no}", "1.el9",
                             {f"/opt/rocm-{ver}/.info/version": f"{ver}-{build_no[-3:]}\\n"},
                             links={"/opt/rocm": f"rocm-{ver}"})
            meta = build_rpm(build, out, "rocm", f"{ver}.{build_no}", "1.el9",
                             {f"/opt/rocm-{ver}/share/rocm-standin": ver + "\\n"},
                             requires=f"Requires: rocm-core = {ver}.{build_no}-1.el9")
            self.rpms[ver] = meta
            self.rpms[ver + "-core"] = core
            signed = [core, meta]
            if ver == "6.4.3":  # a package of AMD's that obsoletes one of the distribution's
                signed.append(build_rpm(build, out, "rocm-obsoleter", f"{ver}.{build_no}", "1.el9",
                                        {"/opt/rocm-obsoleter": ver}, requires="Obsoletes: distro-tool"))
            sign_rpms(self.key, signed, build)
            createrepo(out)
            drv = os.path.join(self.site, "amdgpu", ver, "rhel", "9.4", "main", "x86_64")
            dk = build_rpm(build, drv, "amdgpu-dkms", f"6.8.5.{build_no}", "1.el9", {"/usr/src/amdgpu-standin": ver})
            sign_rpms(self.key, [dk], build)
            createrepo(drv)
        # the distribution's own rocm, newer-looking: priority=50 must keep it out
        dist = build_rpm(build, self.distro_dir, "rocm", "99.0.0", "1.el9", {"/usr/share/distro-rocm": "99\\n"})
        # the headers of a RHEL 9.4 kernel, found by what every kernel-devel provides
        kdev = build_rpm(build, self.distro_dir, "kernel-devel", "5.14.0", "427.13.1.el9_4",
                         {"/usr/src/kernels/standin": KERNEL},
                         requires=f"Provides: kernel-devel-uname-r = {KERNEL}")
        tool = build_rpm(build, self.distro_dir, "distro-tool", "1.0", "1.el9", {"/usr/share/distro-tool": "1"})
        self.rpms["distro-tool"] = tool
        sign_rpms(self.distro_key, [dist, kdev, tool], build)
        createrepo(self.distro_dir)
        os.makedirs(os.path.join(self.site, "rocm"), exist_ok=True)
        self.key.write_armored(os.path.join(self.site, "rocm", "rocm.gpg.key"))
        self.radeon = LocalServer(self.site, "radeon-rpm").start()
        self.distro = LocalServer(self.distro_dir, "distro-rpm").start()

    @property
    def radeon_url(self) -> str:
        return self.radeon.url

    def reset(self) -> None:
        self.radeon.reset()
        self.distro.reset()
        if not self.radeon.running:
            self.radeon.start()
        self.key.write_armored(os.path.join(self.site, "rocm", "rocm.gpg.key"))
        if getattr(self, "core_key", None) is not None:
            self.core_key.write_armored(os.path.join(self.site, *CORE_KEY_PATH))

    def core(self) -> "RpmWorld":
        """The Core SDK's rpm repository laid out like AMD's (rpm_repos.toml [coresdk] 10.0:
        ``rocm/core/packages/rhel9/x86_64``, key ``rocm/gpg/packages.gpg``), on the same server, with
        stand-ins of its versioned packages signed by a Core SDK test key (built once)."""
        if getattr(self, "core_key", None) is None:
            self.core_key = TestKey("rocm-wizard test Core SDK rpm <core@example.invalid>", algo="rsa3072")
            build_core(self.work, os.path.join(self.site, "rocm", "core", "packages", "rhel9", "x86_64"),
                       self.core_key, "el9")
            self.core_key.write_armored(os.path.join(self.site, *CORE_KEY_PATH))
        return self

    def serve_rogue_core_key(self) -> None:
        self.rogue_key.write_armored(os.path.join(self.site, *CORE_KEY_PATH))

    def serve_rogue_key(self) -> None:
        self.rogue_key.write_armored(os.path.join(self.site, "rocm", "rocm.gpg.key"))

    def add_distro(self, root: DebRoot) -> None:
        root.write("/etc/pki/rpm-gpg/RPM-GPG-KEY-distro", self.distro_key.armored_public())
        root.write("/etc/yum.repos.d/distro.repo",
                   f"[distro]\nname=distro stand-in\nbaseurl={self.distro.url}\nenabled=1\ngpgcheck=1\n"
                   "gpgkey=file:///etc/pki/rpm-gpg/RPM-GPG-KEY-distro\n")
        root.run(["rpm", "--import", "/etc/pki/rpm-gpg/RPM-GPG-KEY-distro"], check=True)

    def install_old(self, root: DebRoot) -> None:
        """ROCm 6.2.4 as a machine installed it earlier (the rpm files themselves, no repository)."""
        for name in (self.rpms["6.2.4-core"], self.rpms["6.2.4"]):
            root.write("/root/" + os.path.basename(name), open(name, "rb").read())
        root.run("rpm -i --nosignature /root/rocm-core-*.rpm /root/rocm-6*.rpm", check=True)

    def close(self) -> None:
        self.radeon.stop()
        self.distro.stop()
        for k in (self.key, self.rogue_key, self.distro_key, getattr(self, "core_key", None)):
            if k is not None:
                k.close()
