"""A local site laid out like repo.radeon.com, and a competing "distribution" archive.

Radeon site (one HTTP server)::

    /rocm/rocm.gpg.key                                   armoured public test key
    /rocm/apt/<dir>/dists/<codename>/{Release,InRelease,Release.gpg,main/binary-amd64/Packages*}
    /rocm/apt/<dir>/pool/main/r/rocm-core/rocm-core_<ver>_amd64.deb ...
    /amdgpu/<dir>/ubuntu/dists/<codename>/...            amdgpu-dkms, amdgpu-dkms-firmware
    /amdgpu/<dir>/ubuntu/pool/main/a/...

Distribution archive (a second server, so one can be unreachable while the other is not)::

    /ubuntu/dists/<codename>/...   Origin: Ubuntu; HIGHER-versioned rocm, rocm-core,
                                   rocm-hip-runtime, plus linux-headers-/linux-modules-extra-<kernel>

Release files carry ``Origin``/``Label`` like the real ones, and are signed (InRelease and
Release.gpg) by throwaway keys.  Version strings follow the real formats (facts: ROCm deb
``<X.Y.Z>.<LIBPATCH>-<BUILD>~<ubuntu>``, e.g. ``6.4.3.60403-128~22.04`` and
``6.2.4.60204-139~24.04`` seen on repo.radeon.com; ``.info/version`` = ``X.Y.Z-BUILD``; amdgpu-dkms
``1:<kmod>.<LIBPATCH>-<build>.22.04``, e.g. ``1:6.3.6.60001-1710620.22.04``).  The amdgpu-dkms
build numbers below are stand-ins in that format.
"""
from __future__ import annotations

import gzip
import os
import shutil
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .debs import DebSpec, build_deb
from .gpgkeys import TestKey
from .procs import run

UBUNTU_SERIES = {"jammy": "22.04", "noble": "24.04"}


@dataclass(frozen=True)
class RocmRelease:
    version: str  # 6.4.3
    build: str  # 128 (the build id in .info/version and in the deb revision)
    amdgpu_kmod: str  # kernel module version inside amdgpu-dkms
    amdgpu_build: str  # amdgpu-dkms build number

    @property
    def dir(self) -> str:
        """Directory name on repo.radeon.com: no trailing ``.0`` (6.4.0 -> 6.4)."""
        major, minor, patch = self.version.split(".")
        return f"{major}.{minor}" if patch == "0" else self.version

    @property
    def libpatch(self) -> str:
        major, minor, patch = (int(x) for x in self.version.split("."))
        return f"{major}{minor:02d}{patch:02d}"

    def deb_version(self, codename: str) -> str:
        return f"{self.version}.{self.libpatch}-{self.build}~{UBUNTU_SERIES[codename]}"

    def dkms_version(self, codename: str) -> str:
        return f"1:{self.amdgpu_kmod}.{self.libpatch}-{self.amdgpu_build}.{UBUNTU_SERIES[codename]}"

    @property
    def info_version(self) -> str:
        return f"{self.version}-{self.build}"


OLD = RocmRelease("6.2.4", "139", "6.8.5", "2041575")
NEW = RocmRelease("6.4.3", "128", "6.12.12", "2194681")
RELEASES = (OLD, NEW)

# What the competing distribution archive offers: higher than any radeon version, so that apt
# picks it unless the 600 pin on ``o=repo.radeon.com`` says otherwise.
DISTRO_ROCM_VERSION = "7.0.1-0ubuntu1"


def rocm_packages(rel: RocmRelease, codename: str) -> List[DebSpec]:
    ver = rel.deb_version(codename)
    prefix = f"/opt/rocm-{rel.version}"
    major, minor, patch = rel.version.split(".")
    header = (
        "#ifndef ROCM_VERSION_H\n#define ROCM_VERSION_H\n"
        f"#define ROCM_VERSION_MAJOR {major}\n#define ROCM_VERSION_MINOR {minor}\n"
        f"#define ROCM_VERSION_PATCH {patch}\n#define ROCM_BUILD_INFO \"{rel.info_version}\"\n#endif\n"
    )
    core = DebSpec(
        name="rocm-core", version=ver,
        files={f"{prefix}/.info/version": rel.info_version + "\n",
               f"{prefix}/include/rocm-core/rocm_version.h": header},
        # /opt/rocm is an update-alternatives link, as on real systems
        # /run/rw-test-slow-postinst (a test's switch, holding a number of seconds) holds the postinst
        # in place so that a test can kill or signal everything in the middle of dpkg's work
        postinst=(f'if [ "$1" = configure ]; then\n'
                  '  if [ -e /run/rw-test-slow-postinst ]; then\n'
                  '    s=$(cat /run/rw-test-slow-postinst); rm -f /run/rw-test-slow-postinst\n'
                  '    : > /run/rw-test-in-postinst; sleep "${s:-120}"\n'
                  '  fi\n'
                  f'  update-alternatives --install /opt/rocm rocm {prefix} {rel.libpatch}\nfi\n'),
        prerm=(f'if [ "$1" = remove ] || [ "$1" = upgrade ] || [ "$1" = deconfigure ]; then\n'
               f'  update-alternatives --remove rocm {prefix} || true\nfi\n'),
        description="ROCm core stand-in: owns the release's .info/version",
    )
    hip = DebSpec(name="rocm-hip-runtime", version=ver, depends=[f"rocm-core (= {ver})"],
                  files={f"{prefix}/lib/libamdhip64.so.stand-in": f"hip runtime stand-in {rel.version}\n"},
                  description="HIP runtime stand-in")
    meta = DebSpec(name="rocm", version=ver, depends=[f"rocm-core (= {ver})", f"rocm-hip-runtime (= {ver})"],
                   section="metapackages", description="ROCm meta package stand-in")
    return [core, hip, meta]


def amdgpu_packages(rel: RocmRelease, codename: str) -> List[DebSpec]:
    ver = rel.dkms_version(codename)
    src = f"/usr/src/amdgpu-{rel.amdgpu_kmod}-{rel.amdgpu_build}.{UBUNTU_SERIES[codename]}"
    firmware = DebSpec(name="amdgpu-dkms-firmware", version=ver, arch="all",
                       files={"/lib/firmware/updates/amdgpu/stand-in.txt": f"firmware stand-in {ver}\n"},
                       description="amdgpu firmware stand-in")
    dkms = DebSpec(name="amdgpu-dkms", version=ver, arch="all", depends=[f"amdgpu-dkms-firmware (= {ver})"],
                   files={f"{src}/dkms.conf": ('PACKAGE_NAME="amdgpu"\n'
                                               f'PACKAGE_VERSION="{rel.amdgpu_kmod}-{rel.amdgpu_build}"\n'
                                               "# stand-in: builds no module\n")},
                   section="kernel", description="amdgpu DKMS stand-in (no kernel module is built)")
    # the WSL runtime amdgpu-install's wsl use case installs (ROCm 6.x under WSL 2), from this repository
    wsl = DebSpec(name="hsa-runtime-rocr4wsl-amdgpu", version=ver.split(":", 1)[-1],
                  files={"/usr/share/doc/hsa-runtime-rocr4wsl-amdgpu/stand-in.txt": f"WSL runtime stand-in {ver}\n"},
                  description="ROCm WSL runtime stand-in")
    return [firmware, dkms, wsl]


def distro_packages(kernel: str) -> List[DebSpec]:
    ver = DISTRO_ROCM_VERSION
    return [
        DebSpec(name="rocm-core", version=ver, files={"/usr/share/rocm-core/version": "7.0.1\n"},
                description="distribution's ROCm core (stand-in)"),
        DebSpec(name="rocm-hip-runtime", version=ver, depends=[f"rocm-core (= {ver})"],
                files={"/usr/share/rocm-hip-runtime/stand-in": "distro\n"}),
        DebSpec(name="rocm", version=ver, depends=[f"rocm-core (= {ver})", f"rocm-hip-runtime (= {ver})"],
                section="metapackages"),
        DebSpec(name=f"linux-headers-{kernel}", version="6.8.0-48.48~22.04.1", section="kernel",
                files={f"/usr/src/linux-headers-{kernel}/Makefile": "# stand-in\n"}),
        DebSpec(name=f"linux-modules-extra-{kernel}", version="6.8.0-48.48~22.04.1", section="kernel",
                files={f"/lib/modules/{kernel}/kernel/stand-in.txt": "stand-in\n"}),
    ]


def pool_path(archive_root: str, name: str) -> str:
    initial = name[:4] if name.startswith("lib") else name[0]
    return os.path.join(archive_root, "pool", "main", initial, name)


def publish_archive(archive_root: str, codename: str, specs: List[DebSpec], key: TestKey,
                    origin: str, label: str, build: bool = True) -> None:
    """Build ``specs`` into ``archive_root``'s pool (``build=False``: the pool is already built, as
    for a second codename of one archive), index them and sign the Release file."""
    for spec in specs if build else []:
        build_deb(spec, pool_path(archive_root, spec.name))
    dist = os.path.join(archive_root, "dists", codename)
    binary = os.path.join(dist, "main", "binary-amd64")
    os.makedirs(binary, exist_ok=True)
    packages = run(["apt-ftparchive", "packages", "pool"], cwd=archive_root).stdout
    with open(os.path.join(binary, "Packages"), "w", encoding="utf-8") as fh:
        fh.write(packages)
    with gzip.open(os.path.join(binary, "Packages.gz"), "wt", encoding="utf-8") as fh:
        fh.write(packages)
    opts = []
    for k, v in (("Origin", origin), ("Label", label), ("Suite", codename), ("Codename", codename),
                 ("Architectures", "amd64"), ("Components", "main"),
                 ("Description", f"{label} {codename} (rocm-wizard test stand-in)")):
        opts += ["-o", f"APT::FTPArchive::Release::{k}={v}"]
    release = run(["apt-ftparchive", *opts, "release", dist]).stdout
    # apt-ftparchive prints paths relative to the directory given; keep them relative to dists/<c>/
    release = release.replace(dist + "/", "")
    with open(os.path.join(dist, "Release"), "w", encoding="utf-8") as fh:
        fh.write(release)
    key.sign_release(os.path.join(dist, "Release"))


@dataclass
class AptSite:
    """The built trees (not yet served); see :func:`build_sites`."""

    radeon_root: str
    distro_root: str
    radeon_key: TestKey
    distro_key: TestKey
    releases: Dict[str, RocmRelease] = field(default_factory=dict)
    codename: str = "jammy"
    kernel: str = ""


def build_sites(base: str, radeon_key: TestKey, distro_key: TestKey, kernel: str,
                codename: str = "jammy", releases=RELEASES) -> AptSite:
    radeon_root = os.path.join(base, "radeon")
    distro_root = os.path.join(base, "distro")
    for d in (radeon_root, distro_root):
        if os.path.exists(d):
            shutil.rmtree(d)
        os.makedirs(d)
    radeon_key.write_armored(os.path.join(radeon_root, "rocm", "rocm.gpg.key"))
    for rel in releases:
        publish_archive(os.path.join(radeon_root, "rocm", "apt", rel.dir), codename,
                        rocm_packages(rel, codename), radeon_key, "repo.radeon.com", "repo.radeon.com")
        publish_archive(os.path.join(radeon_root, "amdgpu", rel.dir, "ubuntu"), codename,
                        amdgpu_packages(rel, codename), radeon_key, "repo.radeon.com", "repo.radeon.com")
    publish_archive(os.path.join(distro_root, "ubuntu"), codename, distro_packages(kernel), distro_key,
                    "Ubuntu", "Ubuntu")
    return AptSite(radeon_root, distro_root, radeon_key, distro_key,
                   {r.version: r for r in releases}, codename, kernel)


def rocm_list(base_url: str, release: RocmRelease, codename: str = "jammy",
              keyring: str = "/etc/apt/keyrings/rocm.gpg") -> str:
    """The two one-line sources of a single-version 6.x install, pointing at ``base_url``."""
    return (f"deb [arch=amd64 signed-by={keyring}] {base_url}/rocm/apt/{release.dir} {codename} main\n")


def amdgpu_list(base_url: str, release: RocmRelease, codename: str = "jammy",
                keyring: str = "/etc/apt/keyrings/rocm.gpg") -> str:
    return (f"deb [arch=amd64 signed-by={keyring}] {base_url}/amdgpu/{release.dir}/ubuntu {codename} main\n")


PIN_600 = "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n"


def distro_list(base_url: str, codename: str = "jammy") -> str:
    return f"deb {base_url}/ubuntu {codename} main\n"


def release_field(release_text: str, name: str) -> Optional[str]:
    for line in release_text.splitlines():
        if line.startswith(name + ":"):
            return line.split(":", 1)[1].strip()
    return None


# --------------------------------------------------------------------------------- ROCm Core SDK
# A tree laid out like AMD's Core SDK host (stable.repo.amd.com), served by the same server as the
# radeon-like site (one mirror URL stands for both hosts, as --rocm-core-mirror and --rocm-mirror):
#
#     /rocm/gpg/packages.gpg                                  armoured public test key (its own key)
#     /rocm/core/packages/<profile>/dists/stable/...          suite "stable", per profile
#     /rocm/core/packages/<profile>/pool/main/a/amdrocm-...
#     /amdgpu/<31.x>/ubuntu/dists/<codename>/...              the paired kernel driver (radeon key)
#
# Package model (facts: shared/research/rocm-2026.md 1.3-1.4): versioned packages amdrocm-<comp><X.Y>
# and per-gfx amdrocm-core-sdk<X.Y>-gfxNNNN, an unversioned pointer amdrocm-core-sdk that depends on
# the NEWEST stream in the repository (10.1 here: installing the pointer would be a mistake the tests
# see), install root /opt/rocm/core-X.Y with .info/version "X.Y.Z" and version-rocm "X.Y.Z-BUILD",
# and the alternative "core" (/opt/rocm/core -> core-X.Y) registered by the postinst, priority
# growing with the version.  Versions look like the observed "10.0.0-4".

CORE_PROFILES = {"jammy": "ubuntu2204", "resolute": "ubuntu2604"}


@dataclass(frozen=True)
class CoreRelease:
    version: str  # 10.0.0
    build: str  # 4
    driver_dir: str  # 31.50 (repo.radeon.com amdgpu/<dir>/ubuntu)
    driver_kmod: str  # kernel module base version inside amdgpu-dkms
    driver_field: str  # 8-digit MMmmpp00 field of the amdgpu-dkms version

    @property
    def series(self) -> str:
        return ".".join(self.version.split(".")[:2])

    @property
    def deb_version(self) -> str:
        return f"{self.version}-{self.build}"

    @property
    def root(self) -> str:
        return f"/opt/rocm/core-{self.series}"

    @property
    def priority(self) -> int:
        major, minor, patch = (int(x) for x in self.version.split("."))
        return major * 10000 + minor * 100 + patch

    @property
    def dkms_version(self) -> str:
        return f"1:{self.driver_kmod}.{self.driver_field}-2300000"


CORE_100 = CoreRelease("10.0.0", "4", "31.50", "6.19.18", "31500000")
CORE_101 = CoreRelease("10.1.0", "5", "31.50", "6.19.18", "31500000")
CORE_RELEASES = (CORE_100, CORE_101)
CORE_GFX = ("gfx1100", "gfx942")


def core_packages(rel: CoreRelease) -> List[DebSpec]:
    ver, s, root = rel.deb_version, rel.series, rel.root
    base = DebSpec(
        name=f"amdrocm-base{s}", version=ver,
        files={f"{root}/.info/version": rel.version + "\n", f"{root}/.info/version-rocm": ver + "\n",
               f"{root}/bin/rocminfo": "#!/bin/sh\necho 'rocminfo stand-in'\n",
               f"{root}/lib/libamdhip64.so.stand-in": f"hip runtime stand-in {rel.version}\n"},
        modes={f"{root}/bin/rocminfo": 0o755},
        # /run/rw-test-slow-postinst (a test's switch) holds the postinst, as in the legacy stand-ins
        postinst=('if [ "$1" = configure ]; then\n'
                  '  if [ -e /run/rw-test-slow-postinst ]; then\n'
                  '    s=$(cat /run/rw-test-slow-postinst); rm -f /run/rw-test-slow-postinst\n'
                  '    : > /run/rw-test-in-postinst; sleep "${s:-120}"\n'
                  '  fi\n'
                  '  mkdir -p /opt/rocm\n'
                  f'  update-alternatives --install /opt/rocm/core core {root} {rel.priority}\n'
                  f'  update-alternatives --install /opt/rocm/core-{s.split(".")[0]} core-{s.split(".")[0]} {root} '
                  f'{rel.priority}\nfi\n'),
        prerm=('if [ "$1" = remove ] || [ "$1" = deconfigure ]; then\n'
               f'  update-alternatives --remove core {root} || true\n'
               f'  update-alternatives --remove core-{s.split(".")[0]} {root} || true\nfi\n'),
        description="ROCm Core SDK base stand-in (rocminfo, rocm-core): owns .info/version")
    out = [base]
    for g in CORE_GFX:
        out.append(DebSpec(name=f"amdrocm-core-sdk{s}-{g}", version=ver, depends=[f"amdrocm-base{s} (= {ver})"],
                           files={f"{root}/lib/kpack/{g}.kpack": f"device code stand-in {g}\n"},
                           section="metapackages", description=f"Core SDK for {g} stand-in"))
    out.append(DebSpec(name=f"amdrocm-core-sdk{s}", version=ver, depends=[f"amdrocm-base{s} (= {ver})"],
                       files={f"{root}/lib/kpack/all.kpack": "device code stand-in (all targets)\n"},
                       section="metapackages", description="Core SDK (every GPU) stand-in"))
    return out


def core_pointer(newest: CoreRelease) -> DebSpec:
    return DebSpec(name="amdrocm-core-sdk", version=newest.deb_version, depends=[f"amdrocm-core-sdk{newest.series}"],
                   section="metapackages", description="unversioned pointer stand-in: follows the newest stream")


def core_driver_packages(rel: CoreRelease) -> List[DebSpec]:
    ver = rel.dkms_version
    firmware = DebSpec(name="amdgpu-dkms-firmware", version=ver, arch="all",
                       files={"/lib/firmware/updates/amdgpu/stand-in.txt": f"firmware stand-in {ver}\n"},
                       description="amdgpu firmware stand-in")
    dkms = DebSpec(name="amdgpu-dkms", version=ver, arch="all", depends=[f"amdgpu-dkms-firmware (= {ver})"],
                   files={f"/usr/src/amdgpu-{rel.driver_kmod}-{rel.driver_field}/dkms.conf":
                          'PACKAGE_NAME="amdgpu"\n# stand-in: builds no module\n'},
                   section="kernel", description="amdgpu DKMS stand-in (no kernel module is built)")
    return [firmware, dkms]


def build_core_site(radeon_root: str, core_key: TestKey, radeon_key: TestKey,
                    codenames=tuple(CORE_PROFILES)) -> None:
    """Add the Core SDK layout (and the paired amdgpu driver directories) to the radeon-like tree."""
    core_key.write_armored(os.path.join(radeon_root, "rocm", "gpg", "packages.gpg"))
    specs = [p for rel in CORE_RELEASES for p in core_packages(rel)] + [core_pointer(CORE_RELEASES[-1])]
    for codename in codenames:
        publish_archive(os.path.join(radeon_root, "rocm", "core", "packages", CORE_PROFILES[codename]), "stable",
                        specs, core_key, "AMD ROCm Core SDK stand-in", "amdrocm-stable")
    driver_dirs = {rel.driver_dir: rel for rel in CORE_RELEASES}
    for d, rel in driver_dirs.items():
        for i, codename in enumerate(codenames):
            publish_archive(os.path.join(radeon_root, "amdgpu", d, "ubuntu"), codename, core_driver_packages(rel),
                            radeon_key, "repo.radeon.com", "repo.radeon.com", build=i == 0)
