"""ROCm-side parsers: package lists, dkms, apt sources / preferences / policy, lsmod, release files.

Package lines are excerpts of the real outputs in ../shared/fixtures/real (013: dpkg -l, 026: apt
list with its WARNING line, 028: dnf list with side-by-side names); version strings such as
``6.4.3.60403-128~22.04`` are the examples of research/rocm-facts.md section 7.
"""
from __future__ import annotations

import pytest

from rocm_wizard.detect.parsers import apt_policy, apt_prefs, apt_sources, dkms, lsmod, packages
from rocm_wizard.detect.parsers import rocm_version as rv
from rocm_wizard.detect.sources import KIND_COMMANDS

# -- versions --------------------------------------------------------------------------------------


@pytest.mark.parametrize("version,release", [
    ("6.4.3.60403-128~22.04", "6.4.3"),
    ("6.2.2.60202-116~24.04", "6.2.2"),
    ("0.13.0.60202-116~24.04", "6.2.2"),  # rocm-cmake: own upstream version, same libpatch
    ("18.0.0.24355.60202-116~24.04", "6.2.2"),  # rocm-llvm
    ("14.2.60202-116~24.04", "6.2.2"),  # rocm-gdb
    ("5.3.0.50300-63.el9", "5.3.0"),
    ("1:5.18.2.22.40.50300-1483871.el9", "5.3.0"),  # amdgpu-dkms with an epoch
    ("7.0.0.70000-17~24.04", "7.0.0"),
    ("5.7.1-3build1", None),  # Ubuntu's own rocminfo: no libpatch
    ("2.35-0ubuntu3.8", None),
    ("", None),
    (None, None),
])
def test_release_of(version, release):
    assert packages.release_of(version) == release


def test_split_release():
    assert packages.split_release("6.4.3.60403-128~22.04") == ("6.4.3", "128")


# -- package lists ---------------------------------------------------------------------------------

DPKG_L = """\
dpkg -l | grep rocm
ii  rocm                                             6.2.2.60202-116~24.04                     amd64        Radeon Open Compute (ROCm) software stack meta package
ii  rocm-cmake                                       0.13.0.60202-116~24.04                    amd64        rocm-cmake built using CMake
ii  rocm-core                                        6.2.2.60202-116~24.04                     amd64        Radeon Open Compute (ROCm) Runtime software stack
rc  rocm-old                                         6.1.3.60103-122~24.04                     amd64        removed, config files left
"""

APT_LIST = """\
apt list --installed | grep rocm

WARNING: apt does not have a stable CLI interface. Use with caution in scripts.

rocm-core/jammy,now 5.4.3.50403-121~22.04 amd64 [installed,automatic]
rocm-dkms/jammy,now 5.4.3.50403-121~22.04 amd64 [installed]
rocminfo/jammy,now 1.0.0.50403-121~22.04 amd64 [installed,automatic]
"""

DNF = """\
root@hs2 ~# dnf list --installed | grep rocm
hsa-rocr5.3.0.x86_64                             1.7.0.50300-63.el9                @rocm
rocm-core.x86_64                                 5.3.0.50300-63.el9                @rocm
rocm-core5.3.0.x86_64                            5.3.0.50300-63.el9                @rocm
rocminfo5.3.0.x86_64                             1.0.0.50300-63.el9                @rocm
"""


def test_dpkg_l():
    out = packages.parse(DPKG_L)
    assert out.format == "dpkg-l"
    assert [(p.name, p.installed) for p in out.packages] == [
        ("rocm", True), ("rocm-cmake", True), ("rocm-core", True), ("rocm-old", False)]
    rel, pkg = packages.rocm_release(out.packages)
    assert rel == "6.2.2" and pkg.name == "rocm-core"
    assert packages.kind_of(DPKG_L) == "dpkg"


def test_dpkg_query_tab_output_with_status():
    text = "rocm-core\t6.4.3.60403-128~22.04\tii \nlibc6\t2.35-0ubuntu3.8\tii \nrocminfo\t5.7.1-3\trc \n"
    out = packages.parse(text)
    assert out.format == "dpkg-query"
    assert [(p.name, p.version, p.installed) for p in out.packages] == [
        ("rocm-core", "6.4.3.60403-128~22.04", True), ("libc6", "2.35-0ubuntu3.8", True), ("rocminfo", "5.7.1-3", False)]
    assert [p.name for p in out.rocm_packages()] == ["rocm-core"]


def test_apt_list_with_warning_line():
    out = packages.parse(APT_LIST)
    assert out.format == "apt-list" and packages.kind_of(APT_LIST) == "apt-list"
    assert out.warnings == ["WARNING: apt does not have a stable CLI interface. Use with caution in scripts."]
    assert [(p.name, p.origin, p.installed) for p in out.packages] == [
        ("rocm-core", "jammy,now", True), ("rocm-dkms", "jammy,now", True), ("rocminfo", "jammy,now", True)]
    assert packages.rocm_release(out.packages)[0] == "5.4.3"


def test_apt_list_not_installed_lines():
    out = packages.parse("Listing... Done\nrocm-core/noble 6.4.3.60403-128~24.04 amd64\n")
    assert [(p.name, p.installed) for p in out.packages] == [("rocm-core", False)]
    assert packages.rocm_release(out.packages) is None


def test_dnf_side_by_side_names():
    out = packages.parse(DNF)
    assert out.format == "dnf" and packages.kind_of(DNF) == "dnf-list"
    names = {p.name: (p.base_name, p.name_release, p.origin) for p in out.packages}
    assert names["rocm-core5.3.0"] == ("rocm-core", "5.3.0", "rocm")
    assert names["hsa-rocr5.3.0"] == ("hsa-rocr", "5.3.0", "rocm")
    assert names["rocm-core.x86_64".split(".")[0]][0] == "rocm-core"
    assert packages.releases(out.packages) == ["5.3.0"]


def test_dnf_wrapped_long_name_and_rpm_qa():
    wrapped = "amdgpu-dkms-firmware-very-long-name.noarch\n                 1:6.8.5.60202-2041575.el9   @amdgpu\n"
    (p,) = packages.parse(wrapped).packages
    assert (p.name, p.version, p.origin) == ("amdgpu-dkms-firmware-very-long-name", "1:6.8.5.60202-2041575.el9", "amdgpu")
    (p,) = packages.parse("rocm-core-6.2.4.60204-139.el9.x86_64\n").packages
    assert (p.name, p.release) == ("rocm-core", "6.2.4")


def test_rocm_release_prefers_rocm_core_over_components():
    out = packages.parse("ii  rocm-llvm  18.0.0.24355.60202-116~24.04  amd64  x\n"
                         "ii  rocm-core  6.2.2.60202-116~24.04  amd64  x\n")
    rel, pkg = packages.rocm_release(out.packages)
    assert (rel, pkg.name) == ("6.2.2", "rocm-core")


def test_packages_looks_like_rejects_prose():
    assert packages.looks_like("The quick brown fox jumps over the lazy dog\n") == 0.0
    assert packages.looks_like(DPKG_L) > 0.8


# -- dkms ------------------------------------------------------------------------------------------

def test_dkms_status_forms():
    text = ("amdgpu/6.8.5-2041575.24.04, 6.8.0-45-generic, x86_64: installed\n"
            "amdgpu, 5.18.2.22.40-1483871.el9, 5.14.0-70.30.1.el9_0.x86_64, x86_64: installed "
            "(WARNING! Diff between built and installed module!)\n"
            "amdgpu/6.3.6-1697589.22.04: added\nnvidia/550.54.14, 6.8.0-45-generic, x86_64: installed\n")
    out = dkms.parse(text)
    assert [(e.module, e.version, e.kernel, e.status) for e in out.amdgpu] == [
        ("amdgpu", "6.8.5-2041575.24.04", "6.8.0-45-generic", "installed"),
        ("amdgpu", "5.18.2.22.40-1483871.el9", "5.14.0-70.30.1.el9_0.x86_64", "installed"),
        ("amdgpu", "6.3.6-1697589.22.04", None, "added")]
    assert out.amdgpu[1].remark.startswith("(WARNING!")
    assert len(out.entries) == 4 and dkms.looks_like(text) > 0.9
    assert dkms.parse("Error! Could not locate dkms.conf file.\n").errors


# -- apt sources -----------------------------------------------------------------------------------

LIST = """\
deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.2.4 jammy main
deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/graphics/7.0/ubuntu noble main
deb [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/amdgpu/30.10.1/ubuntu noble main
#deb-src [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/amdgpu/30.10.1/ubuntu noble main
deb http://archive.ubuntu.com/ubuntu jammy main universe   # the archive
deb https://repo.radeon.com/amdgpu-install/latest/ubuntu jammy main
# a plain comment
"""


def test_apt_sources_one_line_format():
    out = apt_sources.parse(LIST, file="/etc/apt/sources.list.d/rocm.list")
    rows = [(e.type, e.enabled, e.radeon, e.repo_kind, e.release, e.suite) for e in out.entries]
    assert rows == [
        ("deb", True, True, "rocm", "6.2.4", "jammy"),
        ("deb", True, True, "graphics", "7.0", "noble"),
        ("deb", True, True, "amdgpu", "30.10.1", "noble"),
        ("deb-src", False, True, "amdgpu", "30.10.1", "noble"),
        ("deb", True, False, None, None, "jammy"),
        ("deb", True, True, "amdgpu-install", "latest", "jammy"),
    ]
    first = out.entries[0]
    assert first.signed_by == "/etc/apt/keyrings/rocm.gpg" and first.arch == "amd64"
    assert out.entries[4].components == ["main", "universe"]
    assert out.entries[0].file == "/etc/apt/sources.list.d/rocm.list"


def test_apt_sources_deb822():
    text = """\
Types: deb
URIs: https://repo.radeon.com/rocm/apt/7.0
Suites: noble
Components: main
Architectures: amd64
Signed-By: /etc/apt/keyrings/rocm.gpg

# Types: deb
# URIs: https://repo.radeon.com/rocm/apt/6.4.3
# Suites: noble
# Components: main

Types: deb deb-src
URIs: http://archive.ubuntu.com/ubuntu/
Suites: noble noble-updates
Components: main restricted universe
Enabled: no
"""
    out = apt_sources.parse(text, file="ubuntu.sources")
    assert out.format == "deb822"
    rows = [(e.type, e.uri, e.suite, e.enabled, e.radeon, e.release) for e in out.entries]
    assert rows[0] == ("deb", "https://repo.radeon.com/rocm/apt/7.0", "noble", True, True, "7.0")
    assert rows[1] == ("deb", "https://repo.radeon.com/rocm/apt/6.4.3", "noble", False, True, "6.4.3")
    assert len(rows) == 2 + 4 and all(not r[3] for r in rows[2:])
    assert out.entries[0].signed_by == "/etc/apt/keyrings/rocm.gpg"


def test_apt_sources_mirror_hosts():
    assert apt_sources.classify_uri("https://mirror.example.org/rocm/apt/6.2", ()) == (False, None, None)
    assert apt_sources.classify_uri("https://mirror.example.org/rocm/apt/6.2", ("mirror.example.org",)) == (True, "rocm", "6.2")
    assert apt_sources.classify_uri("https://cache.lan/repo.radeon.com/amdgpu/6.2/ubuntu")[:2] == (True, "amdgpu")
    assert apt_sources.classify_uri("https://repo.radeon.com/rocm/rhel9/6.2.4/main")[1:] == ("rocm", "6.2.4")
    assert apt_sources.classify_uri("not a url") == (False, None, None)


# -- preferences / policy --------------------------------------------------------------------------

def test_apt_prefs():
    text = ("# pin ROCm\nPackage: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n\n"
            "Explanation: keep ubuntu's rocminfo away\nPackage: rocminfo\nPin: origin \"archive.ubuntu.com\"\nPin-Priority: -1\n")
    out = apt_prefs.parse(text, file="/etc/apt/preferences.d/rocm-pin-600")
    assert [(p.package, p.pin, p.priority) for p in out.pins] == [
        ("*", "release o=repo.radeon.com", 600), ("rocminfo", 'origin "archive.ubuntu.com"', -1)]
    assert [p.origin for p in out.pins] == ["repo.radeon.com", "archive.ubuntu.com"]
    assert len(out.radeon()) == 1 and apt_prefs.looks_like(text) > 0.8


POLICY = """\
rocminfo:
  Installed: (none)
  Candidate: 5.7.1-3build1
  Version table:
     6.2.4.60204-139~24.04 500
        500 https://repo.radeon.com/rocm/apt/6.2.4 noble/main amd64 Packages
     5.7.1-3build1 500
        500 http://archive.ubuntu.com/ubuntu noble/universe amd64 Packages
rocm-core:
  Installed: 6.2.4.60204-139~24.04
  Candidate: 6.2.4.60204-139~24.04
  Version table:
 *** 6.2.4.60204-139~24.04 600
        600 https://repo.radeon.com/rocm/apt/6.2.4 noble/main amd64 Packages
        100 /var/lib/dpkg/status
"""


def test_apt_policy_finds_distribution_candidates():
    out = apt_policy.parse(POLICY)
    assert set(out.packages) == {"rocminfo", "rocm-core"}
    core = out.packages["rocm-core"]
    assert core.installed == core.candidate == "6.2.4.60204-139~24.04"
    assert core.versions[0].installed and core.versions[0].priority == 600
    assert [o.is_status for o in core.versions[0].origins] == [False, True]
    assert out.packages["rocminfo"].installed is None
    assert out.distro_offers_rocm() is True
    assert out.candidates_from_other_archive() == ["rocminfo"]


def test_apt_policy_only_radeon():
    text = POLICY.split("rocm-core:")[0].replace(
        "     5.7.1-3build1 500\n        500 http://archive.ubuntu.com/ubuntu noble/universe amd64 Packages\n", "")
    out = apt_policy.parse(text)
    assert out.distro_offers_rocm() is False and out.candidates_from_other_archive() == []
    assert apt_policy.parse("").distro_offers_rocm() is None


def test_apt_policy_package_files_form():
    text = ("Package files:\n 100 /var/lib/dpkg/status\n     release a=now\n"
            " 600 https://repo.radeon.com/rocm/apt/6.2.4 noble/main amd64 Packages\n"
            "     release o=repo.radeon.com,a=noble,n=noble,l=repo.radeon.com,c=main,b=amd64\nPinned packages:\n")
    out = apt_policy.parse(text)
    assert [(o.priority, o.uri) for o in out.origins] == [
        (100, "/var/lib/dpkg/status"), (600, "https://repo.radeon.com/rocm/apt/6.2.4")]
    assert apt_policy.looks_like(text) > 0.5


# -- lsmod -----------------------------------------------------------------------------------------

def test_lsmod_dkms_and_in_tree():
    dkms_build = ("lsmod | grep amdgpu\namdgpu              19632128  0\namdttm                110592  2 amdgpu,amddrm_ttm_helper\n"
                  "amdkcl                 32768  3 amd_sched,amdttm,amdgpu\n")  # fixtures/real/013
    out = lsmod.parse(dkms_build)
    assert out.amdgpu_loaded is True and out.dkms_build is True
    in_tree = "amdgpu               7393280  1\ngpu_sched              49152  1 amdgpu\nttm  86016  3 amdgpu,drm_ttm_helper,i915\n"
    out = lsmod.parse(in_tree)  # fixtures/real/028
    assert out.amdgpu_loaded is True and out.dkms_build is False
    assert out.modules["ttm"].used_by == ["amdgpu", "drm_ttm_helper", "i915"]
    full = "Module                  Size  Used by\nsnd_hda_intel          61440  3\n"
    assert lsmod.parse(full).amdgpu_loaded is False
    assert lsmod.parse("").amdgpu_loaded is None  # an empty grep says nothing


def test_proc_modules_taint():
    text = ("amdgpu 19632128 0 - Live 0x0000000000000000 (OE)\n"
            "drm_exec 12288 1 amdgpu, Live 0x0000000000000000\n")
    out = lsmod.parse(text)
    assert out.full_list and out.modules["amdgpu"].taint == "OE" and out.dkms_build is True
    assert out.modules["drm_exec"].used_by == ["amdgpu"]


# -- release files ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text,version,build", [
    ("6.3.4-76\n", "6.3.4", "76"),  # pytorch/pytorch#147669
    ("6.4.3-128\n", "6.4.3", "128"),
    ("7.0.0\n", "7.0.0", None),
    ("6.2.4.1-139\n", "6.2.4.1", "139"),
    ("garbage\n", None, None),
    ("", None, None),
])
def test_info_version(text, version, build):
    rel = rv.parse_info_version(text)
    assert (rel.version, rel.build) == (version, build)


def test_version_header_and_dirname():
    hdr = ("#define ROCM_VERSION_MAJOR   6\n#define ROCM_VERSION_MINOR   2\n#define ROCM_VERSION_PATCH   4\n"
           '#define ROCM_BUILD_INFO      "6.2.4.0-139-"\n')
    rel = rv.parse_version_header(hdr)
    assert (rel.version, rel.build) == ("6.2.4", "139")
    assert rv.parse_version_header("#define FOO 1\n").version is None
    assert rv.version_from_dirname("rocm-6.2.4") == "6.2.4" and rv.version_from_dirname("rocm") is None


def test_every_kind_is_a_known_kind():
    from rocm_wizard.detect.parsers import amd_smi, lshw, lspci, rocm_smi, rocminfo, sysfs

    for mod in (amd_smi, apt_policy, apt_prefs, apt_sources, dkms, lshw, lsmod, lspci, packages, rocm_smi, rocminfo, sysfs):
        assert mod.KIND in KIND_COMMANDS, mod.__name__
    for kind in ("apt-list", "dnf-list", "amd-smi-version"):
        assert kind in KIND_COMMANDS


def test_pacman_q():
    text = "rocm-core 6.4.1-1\nrocminfo 6.4.1-1\nhip-runtime-amd 6.4.1-1\n"
    out = packages.parse(text)
    assert out.format == "pacman" and packages.kind_of(text) == "pacman-list"
    assert [(p.name, p.version) for p in out.packages][0] == ("rocm-core", "6.4.1-1")
    assert packages.rocm_release(out.packages) is None  # no libpatch: the probe reads it as a distribution's
    pip_list = "Package            Version\n------------------ -----------\ntorch              2.5.1+rocm6.2\n"
    assert packages.looks_like(pip_list) == 0.0


def test_apt_show_and_dpkg_status_stanzas():
    apt_show = ("Package: rocm-libs\nVersion: 6.2.4.60204-139~24.04\nPriority: optional\nAPT-Manual-Installed: yes\n"
                "APT-Sources: https://repo.radeon.com/rocm/apt/6.2.4 noble/main amd64 Packages\n"
                "Description: Radeon Open Compute (ROCm) Runtime software stack\n\n"
                "Package: rocm-libs\nVersion: 6.2.3.60203-124~24.04\n"
                "APT-Sources: https://repo.radeon.com/rocm/apt/6.2.4 noble/main amd64 Packages\n")
    out = packages.parse(apt_show)
    assert out.format == "control" and packages.kind_of(apt_show) == "apt-list"
    assert [(p.version, p.installed) for p in out.packages] == [
        ("6.2.4.60204-139~24.04", True), ("6.2.3.60203-124~24.04", False)]
    assert packages.rocm_release(out.packages)[0] == "6.2.4"
    dpkg_s = "Package: rocm-core\nStatus: install ok installed\nVersion: 6.4.3.60403-128~22.04\nArchitecture: amd64\n"
    (p,) = packages.parse(dpkg_s).packages
    assert (p.installed, p.arch, p.release) == (True, "amd64", "6.4.3") and packages.kind_of(dpkg_s) == "dpkg"
    # apt preferences look alike but have no Version
    assert packages.parse("Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n").packages == []


def test_info_version_looks_like_needs_the_command():
    assert rv.looks_like("6.2.4-139\n") < 0.35
    assert rv.looks_like("#define ROCM_VERSION_MAJOR 6\n") > 0.5
    assert rv.parse("6.2.4-139\n").version == "6.2.4"
