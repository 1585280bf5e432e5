"""Held-out set AR (tests/data/real/1160-1167, HELDOUT.md): the amdgpu driver package and AMD's repositories in 2026.
Each miss's cause fixed from the program that prints the line: apt refusing a repository file that is larger than the
repository's Release/Packages index says ('File has unexpected size (X != Y). Mirror sync in progress?', apt's
methods/basehttp.cc), and dpkg-deb's extraction helper killed after a dpkg error ('paste subprocess was killed by
signal (Broken pipe)', dpkg's lib/dpkg/subproc.c).  Each is tested on the fixtures, on other wordings of the same
source, and on near-misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import doctor_files, fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems

SIZE = "s11ar_apt_file_unexpected_size"
PASTE = "s11ar_dpkg_deb_subprocess_killed"


@pytest.mark.parametrize("num", ["1160", "1161", "1162", "1163", "1164", "1165", "1166", "1167"])
def test_the_set_ar_fixtures_lead_at_packaging(num):
    assert _lead_layer(_fixture(num)) == "packaging"


def _text(num: str) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(_fixture(num).glob("*.txt")))


@pytest.mark.parametrize("num,row", [("1161", SIZE), ("1162", SIZE), ("1163", SIZE), ("1164", SIZE), ("1167", SIZE),
                                     ("1166", PASTE), ("1166", "dpkg_trying_to_overwrite")])
def test_the_fixtures_name_their_cause(num, row):
    assert row in _ids(_text(num))


def test_the_rows_sit_at_packaging():
    assert error_signatures.failure_layer(SIZE) == "packaging"
    assert error_signatures.failure_layer(PASTE) == "packaging"


# -- apt: a repository file larger than its index says (1161-1164, 1167) -------------------------------------------
@pytest.mark.parametrize("text", [
    # apt's Err: block (legacy-rocm-build#5904, 1161)
    "Err:25 https://repo.radeon.com/rocm/apt/latest noble/main amd64 Packages\n"
    "  File has unexpected size (62798 != 60911). Mirror sync in progress? [IP: 23.44.215.171 443]",
    # the E: summary line (legacy-rocm-build#6070, 1162)
    "E: Failed to fetch https://repo.radeon.com/rocm/apt/debian/dists/noble/main/binary-amd64/Packages.gz  File has "
    "unexpected size (61330 != 60911). Mirror sync in progress? [IP: 2a02:26f0:fd00:15::213:a1a8 443]",
    # a .deb itself (TheRock#5856, 1164)
    "  File has unexpected size (13343180 != 13343700). Mirror sync in progress? [IP: 2600:9000:20c6:5200:7:c0e1:fbc0"
    ":93a1 443]",
    # without the [IP: ...] tail (legacy-rocm-build#3980, 1167)
    "  File has unexpected size (14796 != 14502). Mirror sync in progress?",
    # the container toolkit's repository (ROCm/container-toolkit#53)
    "Err:10 https://repo.radeon.com/amd-container-toolkit/apt noble/main amd64 Packages\n"
    "  File has unexpected size (590 != 408). Mirror sync in progress? [IP: 2600:1406:5e00:9c::1720:9871 443]",
])
def test_a_file_of_unexpected_size_is_known(text):
    assert SIZE in _ids(text)


@pytest.mark.parametrize("text", [
    # scripts and docs that talk about the message, without apt's numbers
    "# apt update can race against mirror syncs and fail with \"File has unexpected size ... Mirror sync in progress?\"",
    # apt's successful fetch of the same index
    "Get:25 https://repo.radeon.com/rocm/apt/latest noble/main amd64 Packages [60.9 kB]",
    # a mirror-sync script's own success line
    "Mirror sync successful",
])
def test_unexpected_size_near_misses_are_not_matched(text):
    assert SIZE not in _ids(text)


def test_an_unexpected_size_leads_at_packaging(tmp_path):
    found = problems(doctor_files(tmp_path, {"apt.txt": "Err:7 https://repo.radeon.com/amdgpu/6.2.3/ubuntu jammy/main "
                                                        "amd64 Packages\n  File has unexpected size (14796 != 14502). "
                                                        "Mirror sync in progress?\n"}))
    assert found and found[0][1] == "packaging", found


# -- dpkg-deb's extraction helper killed after a dpkg error (1166) -------------------------------------------------
@pytest.mark.parametrize("text", [
    # current dpkg ('%s subprocess was killed by signal (%s)%s'; legacy-rocm-build#3032, 1166)
    "dpkg-deb: error: paste subprocess was killed by signal (Broken pipe)",
    # older dpkg's order (legacy-rocm-build#387, #3)
    "dpkg-deb: error: subprocess paste was killed by signal (Broken pipe)",
    # with the process id dpkg-deb adds in some releases
    "dpkg-deb (subprocess): error: paste subprocess was killed by signal (Broken pipe)",
])
def test_dpkg_deb_helper_killed_is_known(text):
    assert PASTE in _ids(text)


@pytest.mark.parametrize("text", [
    # a process killed by a signal that is not dpkg-deb's helper
    "rocminfo subprocess was killed by signal (Segmentation fault)",
    "Error: process was killed by signal 9",
])
def test_other_killed_processes_are_not_this_row(text):
    assert PASTE not in _ids(text)


def test_the_overwrite_leads_before_the_helper(tmp_path):
    found = problems(doctor_files(tmp_path, {"apt.txt": _text("1166")}))
    assert found and found[0][1] == "packaging", found
