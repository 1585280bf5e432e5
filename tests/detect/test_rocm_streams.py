"""ROCm release streams: the Core SDK (amdrocm* packages, /opt/rocm/core-X.Y), legacy (rocm-*,
/opt/rocm-X.Y.Z), a distribution's own ROCm (/usr) and ROCm as pip wheels in a venv.

Most inputs here are built from DOCUMENTED layouts and names (research sheet rocm-2026.md sections
1.3, 1.4, 1.6, 1.9, 2.2; sources.toml tags coresdk-*, therock-*), not from real captures: test names
say "documented" where that is so.  Real pastes are in tests/data/real.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from rocm_wizard.catalog import streams
from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import hipconfig, packages
from rocm_wizard.detect.probes import rocm as rocm_probe
from rocm_wizard.detect.sources import LiveSource
from rocm_wizard.model import System


def _w(root: Path, rel: str, text: str = "") -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def _link(root: Path, rel: str, target: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, p)


HIP_10_0 = "HIP_VERSION_MAJOR=7\nHIP_VERSION_MINOR=15\nHIP_VERSION_PATCH=26333\nHIP_PACKAGING_VERSION_PATCH=26333-0000000\n"


def core_sdk_tree(root: Path, *releases: str, active: str = None) -> Path:
    """/opt/rocm as the Core SDK's postinst leaves it: a directory with bin/ lib/ (alternatives),
    core-X.Y trees, core -> /etc/alternatives/core -> core-X.Y, core-<major> links, extras-<major>."""
    (root / "opt/rocm/bin").mkdir(parents=True, exist_ok=True)
    (root / "opt/rocm/lib").mkdir(parents=True, exist_ok=True)
    for rel in releases:
        xy = ".".join(rel.split(".")[:2])
        _w(root, "opt/rocm/core-%s/.info/version" % xy, rel + "\n")
        _w(root, "opt/rocm/core-%s/.info/version-rocm" % xy, rel + "-4\n")
        (root / ("opt/rocm/extras-%s" % rel.split(".")[0])).mkdir(parents=True, exist_ok=True)
    if rel == "10.0.0":
        _w(root, "opt/rocm/core-10.0/share/hip/version", HIP_10_0)
    act = active or releases[-1]
    xy = ".".join(act.split(".")[:2])
    _link(root, "etc/alternatives/core", "/opt/rocm/core-" + xy)
    _link(root, "opt/rocm/core", "/etc/alternatives/core")
    _link(root, "opt/rocm/core-" + act.split(".")[0], "core-" + xy)
    return root


def probe(root: Path) -> System:
    s = System()
    rocm_probe.probe(LiveSource(root=str(root), commands=False), s)
    return s


def pasted(tmp_path: Path, **files: str) -> System:
    for name, text in files.items():
        (tmp_path / (name + ".txt")).write_text(text)
    return detect_snapshot(str(tmp_path))


# ---------------------------------------------------------------------------------------------- live

def test_documented_core_sdk_10_0_layout_live(tmp_path):
    r = probe(core_sdk_tree(tmp_path, "10.0.0")).rocm
    assert r.version == "10.0.0" and r.stream == "core-sdk" and r.streams == ["core-sdk"]
    (inst,) = r.installs
    assert inst.path == "/opt/rocm/core-10.0" and inst.build == "4" and inst.active is True
    assert inst.sources["version"] == "file:/opt/rocm/core-10.0/.info/version-rocm"
    assert r.core_target == "/opt/rocm/core-10.0" and r.opt_rocm_target is None
    # HIP is recorded apart, never as the release
    assert r.hip_version == "7.15.26333-0000000" and r.version != "7.15.26333"
    assert any("extras-10" in n for n in r.notes)
    assert any("/opt/rocm/.info/version does not exist" in n for n in r.notes)


def test_documented_core_sdk_streams_side_by_side_follow_the_core_link(tmp_path):
    r = probe(core_sdk_tree(tmp_path, "7.13.0", "10.0.0", active="7.13.0")).rocm
    assert [i.path for i in r.installs] == ["/opt/rocm/core-7.13", "/opt/rocm/core-10.0"]
    assert r.version == "7.13.0"  # /opt/rocm/core points there, even though 10.0 is newer
    assert [i.active for i in r.installs] == [True, False]


def test_documented_7_14_core_directory_without_link(tmp_path):
    _w(tmp_path, "opt/rocm/core/.info/version", "7.14.0\n")
    (tmp_path / "opt/rocm/bin").mkdir(parents=True)
    r = probe(tmp_path).rocm
    assert r.version == "7.14.0" and r.stream == "core-sdk"
    assert [i.path for i in r.installs] == ["/opt/rocm/core"]


def test_legacy_and_core_sdk_side_by_side_live_newer_core_is_not_read_as_older(tmp_path):
    core_sdk_tree(tmp_path, "10.0.0")
    _w(tmp_path, "opt/rocm-7.2.4/.info/version", "7.2.4-70204\n")
    r = probe(tmp_path).rocm
    assert r.streams == ["legacy", "core-sdk"]
    assert r.version == "10.0.0" and r.stream == "core-sdk"
    by_path = {i.path: i for i in r.installs}
    assert by_path["/opt/rocm-7.2.4"].stream == "legacy" and by_path["/opt/rocm-7.2.4"].active is False


def test_legacy_link_is_the_legacy_stream(tmp_path):
    _w(tmp_path, "opt/rocm-7.2.4/.info/version", "7.2.4\n")
    _w(tmp_path, "opt/rocm-7.2.4/share/hip/version", "HIP_VERSION_MAJOR=7\nHIP_VERSION_MINOR=2\nHIP_VERSION_PATCH=53211\n")
    _link(tmp_path, "etc/alternatives/rocm", "/opt/rocm-7.2.4")
    _link(tmp_path, "opt/rocm", "/etc/alternatives/rocm")
    r = probe(tmp_path).rocm
    assert (r.version, r.stream, r.streams) == ("7.2.4", "legacy", ["legacy"])
    assert r.hip_version == "7.2.53211" and r.installs[0].active is True
    assert r.core_target is None


# ---------------------------------------------------------------------------------------------- pastes

DPKG_CORE = """Desired=Unknown/Install/Remove/Purge/Hold
| Status=Not/Inst/Conf-files/Unpacked/halF-conf/Half-inst/trig-aWait/Trig-pend
|/ Err?=(none)/Reinst-required (Status,Err: uppercase=bad)
||/ Name                              Version        Architecture Description
+++-=================================-==============-============-=================================
ii  amdrocm-core-sdk10.0-gfx1201      10.0.0-4       amd64        ROCm Core SDK
ii  amdrocm-core-dev10.0-gfx1201      10.0.0-4       amd64        ROCm developer essentials
ii  amdrocm10.0-gfx1201               10.0.0-4       amd64        ROCm runtime
ii  amdrocm-blas10.0-gfx1201          10.0.0-4       amd64        ROCm BLAS
ii  amdrocm-base10.0                  10.0.0-4       amd64        rocminfo, rocm-core
"""

DPKG_LEGACY = """ii  rocm-core                         7.2.4.70204-1~24.04  amd64  ROCm core
ii  rocminfo                          1.0.0.70204-1~24.04  amd64  ROCm info
ii  hip-runtime-amd                   7.2.53211.70204-1~24.04 amd64 HIP runtime
"""


def test_documented_amdrocm_names():
    n = packages.core_sdk_name("amdrocm-core-sdk10.0-gfx1201")
    assert (n.component, n.stream, n.gfx) == ("core-sdk", "10.0", "gfx1201")
    assert packages.core_sdk_name("amdrocm7.14").stream == "7.14"
    assert packages.core_sdk_name("amdrocm-gfx942").gfx == "gfx942"  # nightly, unversioned
    assert packages.core_sdk_name("amdrocm-core-sdk").stream is None
    assert packages.core_sdk_name("rocm-core") is None
    assert packages.core_sdk_release("7.14.0~20260622-27922350966") == "7.14.0"
    assert packages.release_of("10.0.0-4") is None  # no libpatch: never read as a legacy release


def test_documented_core_sdk_dpkg_list(tmp_path):
    r = pasted(tmp_path, dpkg=DPKG_CORE).rocm
    assert r.version == "10.0.0" and r.stream == "core-sdk" and r.streams == ["core-sdk"]
    assert r.package_gfx == ["gfx1201"]
    assert r.packages["amdrocm-core-sdk10.0-gfx1201"] == "10.0.0-4"


def test_documented_mixed_streams_in_one_package_db(tmp_path):
    r = pasted(tmp_path, dpkg=DPKG_CORE + DPKG_LEGACY).rocm
    assert r.streams == ["legacy", "core-sdk"]
    assert r.version == "10.0.0", "a Core SDK 10.0 must not be read as older than legacy 7.2.4"


def test_documented_core_sdk_rpm_and_apt_lists(tmp_path):
    rpm = ("amdrocm-core-sdk7.14-gfx1100-7.14.0-27.el9.x86_64\namdrocm7.14-gfx1100-7.14.0-27.el9.x86_64\n"
           "bash-5.1.8-9.el9.x86_64\n")
    (tmp_path / "a").mkdir()
    r = pasted(tmp_path / "a", rpm=rpm).rocm
    assert (r.version, r.stream, r.package_gfx) == ("7.14.0", "core-sdk", ["gfx1100"])
    apt = ("Listing...\namdrocm-core-sdk10.1/stable,now 10.1.0-2 amd64 [installed]\n"
           "amdrocm10.1-gfx1100/stable,now 10.1.0-2 amd64 [installed,automatic]\n")
    (tmp_path / "b").mkdir()
    r = pasted(tmp_path / "b", apt=apt).rocm
    assert (r.version, r.stream) == ("10.1.0", "core-sdk")


def test_documented_amd_smi_rocm_version_line(tmp_path):
    text = "$ amd-smi version\nAMDSMI Tool: 26.1.0+abc | AMDSMI Library version: 26.1.0 | ROCm version: 10.1.0 | amdgpu version: 7.1.9.31600000 | hsmp version: N/A\n"
    r = pasted(tmp_path, smi=text).rocm
    assert (r.version, r.stream) == ("10.1.0", "core-sdk")


def test_pasted_hipconfig_is_hip_not_the_release(tmp_path):
    r = pasted(tmp_path, hip="$ hipconfig --version\n7.15.26333-0000000\n", dpkg=DPKG_CORE).rocm
    assert r.hip_version == "7.15.26333-0000000"
    assert r.version == "10.0.0"


def test_hipconfig_parser_formats():
    assert hipconfig.parse("HIP version  : 7.14.60850-abc\n\n== hipconfig\nROCM_PATH    : /opt/rocm/core-7.14\n").rocm_path \
        == "/opt/rocm/core-7.14"
    assert hipconfig.parse("7.15.26333-0000000").version == "7.15.26333"
    assert hipconfig.parse(HIP_10_0).full == "7.15.26333-0000000"
    assert hipconfig.looks_like("7.15.26333-0000000") < 0.35 <= hipconfig.looks_like(HIP_10_0)
    assert hipconfig.parse("no version here").version is None


def test_distribution_rocm_is_a_third_stream(tmp_path):
    # names of Debian's / Ubuntu's own packages (no libpatch in the version): ROCm in /usr
    text = "ii  librocm-core1  6.4.3-1  amd64  ROCm core\nii  rocminfo  6.4.3-1  amd64  ROCm info\n"
    r = pasted(tmp_path, dpkg=text).rocm
    assert (r.version, r.stream, r.streams) == ("6.4.3", "distro", ["distro"])
    assert any(i.path == "/usr" and i.stream == "distro" for i in r.installs)


def test_distribution_rocm_next_to_core_sdk(tmp_path):
    text = DPKG_CORE + "ii  rocminfo  7.1.0-1  amd64  ROCm info\n"
    r = pasted(tmp_path, dpkg=text).rocm
    assert r.streams == ["core-sdk", "distro"] and r.version == "10.0.0"


# ---------------------------------------------------------------------------------------------- venvs

def _torch(tmp_path: Path, freeze: str):
    (tmp_path / "pip-freeze.txt").write_text("$ pip freeze\n" + freeze)
    return detect_snapshot(str(tmp_path)).torch


def test_documented_core_sdk_torch_with_rocm_wheels(tmp_path):
    (t,) = _torch(tmp_path, "torch==2.12.0+rocm7.14.0\nrocm==7.14.0\nrocm-sdk-core==7.14.0\n"
                  "rocm-sdk-libraries==7.14.0\nrocm-sdk-device-gfx1201==7.14.0\namd-torch-device-gfx1201==2.12.0+rocm7.14.0\n"
                  "numpy==2.3.0\n")
    assert (t.rocm, t.stream, t.channel) == ("7.14.0", "pip", "release")
    assert t.device_gfx == ["gfx1201"]
    assert set(t.rocm_wheels) == {"rocm", "rocm-sdk-core", "rocm-sdk-libraries", "rocm-sdk-device-gfx1201",
                                  "amd-torch-device-gfx1201"}


@pytest.mark.parametrize("version,rocm,stream,channel", [
    ("2.13.0+rocm10.0.0", "10.0.0", "pip", "release"),
    ("2.9.1+rocm7.10.0a20251015", "7.10.0a20251015", "pip", "nightly"),
    ("2.10.0+rocm7.13.0", "7.13.0", "pip", "preview"),
    ("2.5.1+rocm6.2", "6.2", "legacy", "release"),
    ("2.14.0+rocm7.2", "7.2", "legacy", "release"),
    ("2.15.0.dev20260824+rocm7.2", "7.2", "legacy", "nightly"),
])
def test_torch_stream_and_channel_from_the_label(tmp_path, version, rocm, stream, channel):
    (t,) = _torch(tmp_path, "torch==%s\n" % version)
    assert (t.rocm, t.stream, t.channel) == (rocm, stream, channel)


def test_git_build_is_a_source_build(tmp_path):
    (t,) = _torch(tmp_path, "torch==2.6.0a0+git8d4926e\ntriton==3.2.0+gite5be006a\n")
    assert t.channel == "source" and t.rocm is None


def test_live_venv_with_version_py_rocm_and_module_dirs(tmp_path):
    from rocm_wizard.detect.probes import python as p_python
    site = "home/u/venv/lib/python3.12/site-packages"
    _w(tmp_path, "home/u/venv/pyvenv.cfg", "version = 3.12.3\n")
    _w(tmp_path, site + "/torch/version.py",
       "__version__ = '2.13.0+rocm10.0.0'\nhip: Optional[str] = '7.15.26333'\nrocm: Optional[str] = '10.0.0'\n")
    _w(tmp_path, site + "/torch-2.13.0+rocm10.0.0.dist-info/METADATA", "Version: 2.13.0+rocm10.0.0\n")
    _w(tmp_path, site + "/_rocm_sdk_core/__init__.py")
    _w(tmp_path, site + "/rocm_sdk_core-10.0.0.dist-info/METADATA", "Version: 10.0.0\n")
    _w(tmp_path, site + "/amd_torch_device_gfx1100-2.13.0+rocm10.0.0.dist-info/METADATA", "x\n")
    s = System()
    p_python.probe(LiveSource(root=str(tmp_path), commands=False), s, venvs=["/home/u/venv"])
    (t,) = [e for e in s.torch if e.path == "/home/u/venv"]
    assert t.rocm == "10.0.0" and t.hip == "7.15.26333"  # torch.version.rocm apart from hip
    assert t.stream == "pip" and t.device_gfx == ["gfx1100"]
    assert "_rocm_sdk_core" in t.rocm_wheels and t.rocm_wheels["rocm-sdk-core"] == "10.0.0"


def test_streams_catalog_orders_versions_numerically():
    assert streams.version_key("7.14.0") > streams.version_key("7.2.4")
    assert streams.version_key("10.0.0") > streams.version_key("7.14.1")
    assert streams.stream_of("7.2.4").stream == "legacy"
    assert (streams.stream_of("7.9.0").stream, streams.stream_of("7.9.0").channel) == ("core-sdk", "preview")
    assert streams.stream_of("8.0") is None


def test_streams_catalog_cites_known_sources():
    from rocm_wizard.catalog import sources
    assert streams.all_sources()
    for tag in streams.all_sources():
        assert sources.get(tag) is not None, tag


def test_uv_install_summary_is_read_and_removed_lines_are_not_kept():
    from rocm_wizard.detect.parsers import pip_freeze
    text = ("Resolved 3 packages in 1.0s\nInstalled 2 packages in 30ms\n - torch==2.6.0+rocm6.2\n"
            " + torch==2.13.0+rocm10.0.0\n + rocm-sdk-core==10.0.0\n + rocm==10.0.0\n")
    p = pip_freeze.parse(text)
    assert p.get("torch") == "2.13.0+rocm10.0.0" and p.get("rocm-sdk-core") == "10.0.0"
    assert pip_freeze.looks_like(text) >= 0.6


def test_collect_env_tail_alone_gives_the_device_wheels(tmp_path):
    text = ("Versions of relevant libraries:\n[pip3] amd-torch-device-gfx1100==2.13.0+rocm10.0.0\n"
            "[pip3] numpy==2.3.0\n[pip3] triton-rocm==3.7.1\n")
    (t,) = pasted(tmp_path, env=text).torch
    assert t.device_gfx == ["gfx1100"] and t.rocm == "10.0.0" and t.stream == "pip"


def test_documented_pasted_ls_opt_rocm_and_alternatives_core(tmp_path):
    text = ("$ ls /opt/rocm\nbin  core  core-10  core-10.0  core-7.14  extras-10  include  lib  libexec  share\n"
            "$ update-alternatives --display core\ncore - auto mode\n  link best version is /opt/rocm/core-10.0\n"
            "  link currently points to /opt/rocm/core-10.0\n  link core is /opt/rocm/core\n"
            "/opt/rocm/core-10.0 - priority 1000000\n/opt/rocm/core-7.14 - priority 71400\n")
    r = pasted(tmp_path, opt=text).rocm
    assert {i.path: (i.stream, i.active) for i in r.installs} == {
        "/opt/rocm/core-10.0": ("core-sdk", True), "/opt/rocm/core-7.14": ("core-sdk", False)}
    assert r.core_target == "/opt/rocm/core-10.0" and r.version == "10.0" and r.stream == "core-sdk"


def test_pasted_core_sdk_release_file(tmp_path):
    r = pasted(tmp_path, v="$ cat /opt/rocm/core-10.0/.info/version-rocm\n10.0.0-4\n").rocm
    assert (r.version, r.stream) == ("10.0.0", "core-sdk")


def test_distribution_rocm_in_usr_live(tmp_path):
    # the layout of Debian's / Ubuntu's own packages: librocm-core.so.1 in the multiarch dir, the header from -dev
    _w(tmp_path, "usr/lib/x86_64-linux-gnu/librocm-core.so.1")
    _w(tmp_path, "usr/include/rocm-core/rocm_version.h",
       "#define ROCM_VERSION_MAJOR 7\n#define ROCM_VERSION_MINOR 1\n#define ROCM_VERSION_PATCH 0\n")
    r = probe(tmp_path).rocm
    assert (r.version, r.stream, r.streams) == ("7.1.0", "distro", ["distro"])
    assert [i.path for i in r.installs] == ["/usr"]


def test_distribution_rocm_in_usr_next_to_core_sdk_live(tmp_path):
    core_sdk_tree(tmp_path, "10.0.0")
    _w(tmp_path, "usr/lib64/librocm-core.so.1")
    r = probe(tmp_path).rocm
    assert r.streams == ["core-sdk", "distro"] and r.version == "10.0.0"
    assert any(i.path == "/usr" and i.version is None for i in r.installs)


def test_pasted_ls_l_opt_marks_the_legacy_tree_in_use(tmp_path):
    text = ("$ ls -l /opt\nlrwxrwxrwx  1 root root   22 Jun  3 10:00 rocm -> /opt/rocm-6.4.1\n"
            "drwxr-xr-x 11 root root 4096 Jun  3 10:00 rocm-6.2.4\ndrwxr-xr-x 11 root root 4096 Jun  3 10:00 rocm-6.4.1\n")
    r = pasted(tmp_path, opt=text).rocm
    assert r.version == "6.4.1" and r.stream == "legacy"
    assert {i.path: i.active for i in r.installs} == {"/opt/rocm-6.2.4": False, "/opt/rocm-6.4.1": True}


def test_documented_rocm_sdk_cli_outputs(tmp_path):
    # the outputs TheRock's RELEASES.md shows for `rocm-sdk targets`; the version line is the rocm wheels' version
    text = "$ rocm-sdk version\n7.14.0\n$ rocm-sdk targets\ngfx1100;gfx1101;gfx1102\n"
    (t,) = pasted(tmp_path, sdk=text).torch
    assert t.rocm_wheels == {"rocm": "7.14.0"} and t.device_gfx == ["gfx1100", "gfx1101", "gfx1102"]
    assert t.stream == "pip"


def test_rocm_sdk_outputs_join_the_one_pasted_venv(tmp_path):
    text = "$ pip freeze\ntorch==2.12.0+rocm7.14.0\n$ rocm-sdk targets\ngfx1201\n"
    (t,) = pasted(tmp_path, venv=text).torch
    assert t.version == "2.12.0+rocm7.14.0" and t.device_gfx == ["gfx1201"] and t.stream == "pip"


def test_a_legacy_torch_keeps_its_bundled_rocm_next_to_rocm_wheels(tmp_path):
    (t,) = _torch(tmp_path, "torch==2.5.1+rocm6.2\nrocm==7.14.0\nrocm-sdk-core==7.14.0\n")
    assert t.stream == "legacy" and any("bundled in torch/lib" in n for n in t.notes)
