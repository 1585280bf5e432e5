"""Where a paste tells the host's ROCm release besides /opt/rocm/.info/version and dpkg -l:
``apt-cache policy``'s "Installed:" line of a ROCm package, and hipconfig's HIP_PATH/ROCM_PATH lines
naming a versioned tree."""
from pathlib import Path

from rocm_wizard.detect import detect_snapshot

DATA = Path(__file__).resolve().parents[1] / "data"

POLICY_INSTALLED = """\
rocm-core:
  Installed: 6.2.4.60204-139~24.04
  Candidate: 6.2.4.60204-139~24.04
  Version table:
 *** 6.2.4.60204-139~24.04 600
        600 https://repo.radeon.com/rocm/apt/6.2.4 noble/main amd64 Packages
        100 /var/lib/dpkg/status
"""

POLICY_NOT_INSTALLED = """\
rocminfo:
  Installed: (none)
  Candidate: 5.7.1-3build1
  Version table:
     6.2.4.60204-139~24.04 500
        500 https://repo.radeon.com/rocm/apt/6.2.4 noble/main amd64 Packages
     5.7.1-3build1 500
        500 http://archive.ubuntu.com/ubuntu noble/universe amd64 Packages
"""


def _rocm(tmp_path: Path, text: str):
    (tmp_path / "paste.txt").write_text(text)
    return detect_snapshot(str(tmp_path)).rocm


def test_apt_policy_installed_line_gives_the_release(tmp_path):
    r = _rocm(tmp_path, POLICY_INSTALLED)
    assert r.version == "6.2.4"
    assert r.packages == {"rocm-core": "6.2.4.60204-139~24.04"}
    assert "apt-policy" in r.sources["version"]


def test_apt_policy_candidate_only_is_no_install(tmp_path):
    r = _rocm(tmp_path, POLICY_NOT_INSTALLED)
    assert r.version is None and r.packages == {}


def test_apt_policy_of_a_package_outside_rocm_is_ignored(tmp_path):
    r = _rocm(tmp_path, POLICY_INSTALLED.replace("rocm-core:", "firefox:"))
    assert r.version is None


def test_real_hipconfig_names_its_tree(tmp_path):
    text = (DATA / "hipconfig" / "rocm-4369-hipconfig-head.txt").read_text()
    r = _rocm(tmp_path, text)
    assert r.version == "6.3.2"
    assert "HIP_PATH path" in r.sources["version"]


def test_hipconfig_unversioned_or_windows_tree_gives_no_release(tmp_path):
    assert _rocm(tmp_path, "HIP_PATH           :/opt/rocm\nROCM_PATH          :/opt/rocm\n").version is None
    assert _rocm(tmp_path, "HIP_PATH           :C:\\Develop\\m\\dist\\therock\n").version is None


def test_two_trees_named_give_none(tmp_path):
    text = "HIP_PATH           :/opt/rocm-6.3.2\nROCM_PATH          :/opt/rocm-7.0.0\n"
    assert _rocm(tmp_path, text).version is None


# RCCL's version banner (ROCm/rccl src/init.cc showVersion; ROCM_BUILD_INFO is the ROCm it was built against), as
# tests/data/real/139 pasted it (ROCm/vllm#390: NCCL_DEBUG=INFO in a vLLM container, librccl from /opt/rocm)
def _banner() -> str:
    text = next((DATA / "real").glob("139-*/rccl.txt")).read_text()
    start = text.index("RCCL version : ")
    start = text.rindex("\n", 0, start) + 1
    end = text.index("\n", text.index("Librccl path : ")) + 1
    return text[start:end]


def test_rccl_banner_of_the_library_in_opt_rocm_gives_the_release(tmp_path):
    banner = _banner()
    assert "ROCm version : 6.4.0.0-47-73dae9c" in banner and "Librccl path : /opt/rocm/lib/librccl.so.1" in banner
    r = _rocm(tmp_path, banner)
    assert r.version == "6.4.0"
    assert "RCCL version banner (/opt/rocm/lib/librccl.so.1)" in r.sources["version"]
    # a versioned tree's library says the same
    r = _rocm(tmp_path, banner.replace("/opt/rocm/lib/", "/opt/rocm-6.4.0/lib/"))
    assert r.version == "6.4.0"


def test_rccl_banner_of_a_wheels_or_hand_built_library_is_not_the_hosts_release(tmp_path):
    banner = _banner()
    # torch's bundled librccl: the banner names the ROCm the wheel was built with
    wheel = banner.replace("/opt/rocm/lib/librccl.so.1",
                           "/home/u/venv/lib/python3.12/site-packages/torch/lib/librccl.so.1")
    assert _rocm(tmp_path, wheel).version is None
    assert _rocm(tmp_path, banner.replace("/opt/rocm/lib/", "/usr/local/lib/")).version is None
    # the ROCm line alone, without RCCL's own line before it or the library's path after it, is no banner
    assert _rocm(tmp_path, banner.split("\n", 1)[1]).version is None
    assert _rocm(tmp_path, banner.replace("Librccl path", "Library path")).version is None


def test_rccl_banners_hip_version_is_the_hosts_only_for_the_library_in_opt_rocm(tmp_path):
    # the banner's "HIP version  :" is the HIP RCCL was built against (VERSION_STRING_EXTENDED), not hipconfig's
    banner = _banner()
    assert "HIP version  : 6.4.43482-0f2d60242" in banner
    r = _rocm(tmp_path, banner)
    assert r.hip_version == "6.4.43482-0f2d60242"
    assert "RCCL version banner" in r.sources["hip_version"] and "hipconfig" not in r.sources["hip_version"]
    for elsewhere in ("/home/u/venv/lib/python3.12/site-packages/torch/lib/", "/usr/local/lib/"):
        r = _rocm(tmp_path, banner.replace("/opt/rocm/lib/", elsewhere))
        assert r.hip_version is None and r.version is None
    # hipconfig's own line, away from RCCL's, is still hipconfig's
    r = _rocm(tmp_path, "HIP version  : 6.4.43482-0f2d60242\n\nROCM_PATH    : /opt/rocm\n")
    assert r.hip_version == "6.4.43482-0f2d60242" and "hipconfig" in r.sources["hip_version"]


def test_rccl_banners_naming_two_releases_give_none(tmp_path):
    banner = _banner()
    other = banner.replace("6.4.0.0-47-73dae9c", "6.3.3.0-74-cbc70b5")
    assert _rocm(tmp_path, banner + other).version is None
