"""The readers of the releases a regression hangs on (issue 28, s8-regress): the GPU firmware package's
version from package listings and issue forms, and the release changes a user's prose names.

Lines marked "real" are quoted from public threads (the URL beside each); the others are the
listing formats of the package managers (dpkg -l, apt policy, rpm -q, dnf list, pacman -Q).
"""
from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers.release_changes import MAX_CHANGES, changes, firmware_version

FIRMWARE_LINES = [
    # real: ROCm/ROCm#5665 (Arch, pacman -Q)
    ("linux-firmware-amdgpu 20260110-1", ("linux-firmware-amdgpu", "20260110-1")),
    # rpm -q / rpm -qa (the Fedora package of ROCm/ROCm#5724: amd-gpu-firmware-20251111-1.fc43)
    ("amd-gpu-firmware-20251111-1.fc43.noarch", ("amd-gpu-firmware", "20251111-1.fc43.noarch")),
    ("linux-firmware-20251125-1.fc43.noarch", ("linux-firmware", "20251125-1.fc43.noarch")),
    ("kernel-firmware-amdgpu-20251125-1.1.noarch", ("kernel-firmware-amdgpu", "20251125-1.1.noarch")),
    # dnf list installed
    ("amd-gpu-firmware.noarch            20251125-1.fc43           @updates", ("amd-gpu-firmware", "20251125-1.fc43")),
    # dpkg -l (Ubuntu's version: tests/data/real/316 names 20240318.git3b128b60-0ubuntu3.2)
    ("ii  linux-firmware   20240318.git3b128b60-0ubuntu3.2   all   Firmware for Linux kernel drivers",
     ("linux-firmware", "20240318.git3b128b60-0ubuntu3.2")),
    ("ii  firmware-amd-graphics 20230210-5 all Binary firmware for AMD/ATI graphics chips",
     ("firmware-amd-graphics", "20230210-5")),
    # pacman -Q, issue-form fields
    ("linux-firmware 20251125.a1b2c3d4-1", ("linux-firmware", "20251125.a1b2c3d4-1")),
    ("- **linux-firmware**: 20251125", ("linux-firmware", "20251125")),
    ("| linux-firmware | 20251125-1.fc43 |", ("linux-firmware", "20251125-1.fc43")),
]


@pytest.mark.parametrize("line,want", FIRMWARE_LINES)
def test_firmware_version_from_listing_lines(line, want):
    assert firmware_version(line) == want


def test_apt_policy_takes_the_installed_version():
    text = ("linux-firmware:\n  Installed: 20240318.git3b128b60-0ubuntu2.10\n  Candidate: 20240318.git3b128b60-0ubuntu2.11\n"
            "  Version table:\n")
    assert firmware_version(text) == ("linux-firmware", "20240318.git3b128b60-0ubuntu2.10")


def test_the_amd_specific_package_wins_and_prose_and_other_packages_are_not_listings():
    text = "linux-firmware 20251125.abc-1\nlinux-firmware-amdgpu 20260110-1\n"
    assert firmware_version(text) == ("linux-firmware-amdgpu", "20260110-1")
    # amdgpu-dkms's firmware is a driver build, not a linux-firmware release
    assert firmware_version("ii  amdgpu-dkms-firmware  1:6.16.13.30300000-2278356.24.04  all  firmware") is None
    # a sentence naming a release is no listing of what is installed
    assert firmware_version("I updated linux-firmware 20251125 yesterday and went back to 20251111") is None
    # real (tests/data/real/316): two versions tested, none installed for sure
    assert firmware_version("- **linux-firmware-amd-graphics:** tested both `20240318.git3b128b60-0ubuntu3.2` (stock "
                            "noble-updates) and `20260319.git217ca6e4-0ubuntu3.1`") is None
    assert firmware_version("") is None and firmware_version(None) is None  # type: ignore[arg-type]


PROSE = [
    # real: ROCm/ROCm#5616 (waltercool, 2025-12-01)
    ("I can confirm it always fails (to me) with latest firmware (20251125). It does not happen with 20251111.",
     ("linux-firmware", "good-bad", "20251111", "20251125")),
    # real: ROCm/amdgpu#213's title (tests/data/real/603)
    ("# hipMemcpy Host-to-Device triggers WALKER_ERROR=1/MAPPING_ERROR=1 on gfx1150 APU \u2014 regression in kernel 6.17 "
     "(works on 6.14)", ("kernel", "good-bad", "6.14", "6.17")),
    # real: ROCm/ROCm#5747 (Fedora kernels), shortened to one sentence
    ("Was working with kernel.x86_64 6.17.8-300.fc43 but not with kernel.x86_64 6.17.9-300.fc43",
     ("kernel", "good-bad", "6.17.8-300.fc43", "6.17.9-300.fc43")),
    # real: ROCm/amdgpu#204's summary as quoted in ROCm/amdgpu#225 ("good on 6.17.9, bad on 6.18.3")
    ("Works fine on 6.17.9, broken on 6.18.3", ("kernel", "good-bad", "6.17.9", "6.18.3")),
    ("broken on 6.19.2 but works on 6.18.9", ("kernel", "good-bad", "6.18.9", "6.19.2")),
    ("ROCm broke after updating linux-firmware", ("linux-firmware", "updated", None, None)),
    ("after upgrading to kernel 6.19 rocminfo hangs", ("kernel", "updated", None, "6.19")),
    ("the linux-firmware update broke rocm", ("linux-firmware", "updated", None, None)),
    ("After updating to ROCm 7.1 I get segfaults", ("rocm", "updated", None, "7.1")),
    ("Downgrading linux-firmware to 20251111 fixed it", ("linux-firmware", "rolled-back", "20251111", None)),
    ("fixed by downgrading the firmware", ("linux-firmware", "rolled-back", None, None)),
    ("rolling back to the 6.18.22-lts kernel solved it", ("kernel", "rolled-back", "6.18.22-lts", None)),
    ("Reverting to ROCm 6.4 works", ("rocm", "rolled-back", "6.4", None)),
    ("a regression since linux-firmware 20251125", ("linux-firmware", "updated", None, "20251125")),
]


@pytest.mark.parametrize("line,want", PROSE)
def test_changes_the_prose_names(line, want):
    got = changes(line)
    assert [(c.component, c.direction, c.good, c.bad) for c in got] == [want]
    assert got[0].line == line.strip()


@pytest.mark.parametrize("line", [
    "I use kernel 6.19 and ROCm 7.2",  # a bare version mention
    "linux-firmware 20251125",
    "since the last update nothing works",  # no component named
    "After installing ROCm without any issues dmesg | grep kfd returns the following:",  # an install, not a change
    "It worked after I rebooted",
    "works on my machine",
    "I reverted the commit and it works",  # no release named
    "After the update to 7.2 it works",  # 7.2: ROCm or a kernel series? not told
    "[   67.058794] amdgpu 0000:c4:00.0: amdgpu: works on 6.17, broken on 6.18",  # a log line
    "",
])
def test_no_change_from_a_bare_mention_or_an_untold_component(line):
    assert changes(line) == []


def test_changes_are_kept_once_and_capped():
    text = "\n".join(["Works fine on 6.17.9, broken on 6.18.3"] * 5 + ["works on 6.%d.1, broken on 6.%d.2" % (i, i)
                                                                     for i in range(5, 30)])
    got = changes(text)
    assert len(got) == MAX_CHANGES
    assert len({(c.good, c.bad) for c in got}) == len(got)


def test_hostile_input_stays_linear():
    # one huge line full of cue words and versions, and many short ones: each finishes in one bounded pass
    cues = "works on 6.17 after updating linux-firmware downgrading the kernel regression in broken on " * 40_000
    many = "works on kernel 6.17.%d but fails with 6.18.%d after updating linux-firmware\n" * 50_000
    for text in (cues, many, "(" * 1_000_000, "6." * 500_000, "works on " * 200_000):
        start = time.process_time()
        changes(text)
        firmware_version(text)
        assert time.process_time() - start < 20  # a quadratic scan of these would take hours


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("works on broken fails after updating downgrad linux-firmware kernel rocm "
                                              "torch 6.17 20251125 .-()\n")), max_size=400))
def test_fuzzed_prose_never_raises_and_gives_well_formed_changes(text):
    for c in changes(text):
        assert c.component in ("kernel", "linux-firmware", "amdgpu-dkms", "rocm", "torch")
        assert c.direction in ("updated", "good-bad", "rolled-back", "moved-fixed")
        assert c.line and len(c.line) <= 600
    fw = firmware_version(text)
    assert fw is None or fw[1][:2] == "20" or ":" in fw[1]


def test_detection_records_them_from_a_folder(tmp_path):
    (tmp_path / "issue.txt").write_text(
        "I can confirm it always fails (to me) with latest firmware (20251125). It does not happen with 20251111.\n"
        "Memory access fault by GPU node-1 (Agent handle: 0x5570f8146df0) on address 0x7ff96a9ac000. Reason: Page not "
        "present or supervisor privilege\n", encoding="utf-8")
    (tmp_path / "packages.txt").write_text("amd-gpu-firmware-20251125-1.fc43.noarch\nrocminfo-7.1.0-1.fc43.x86_64\n",
                                           encoding="utf-8")
    sysm = detect_snapshot(str(tmp_path))
    assert sysm.os.linux_firmware == "20251125-1.fc43.noarch"
    assert "amd-gpu-firmware" in sysm.os.sources["linux_firmware"]
    assert [(c.component, c.direction, c.good, c.bad) for c in sysm.changes] == [
        ("linux-firmware", "good-bad", "20251111", "20251125")]


def test_firmware_blobs_from_amdgpu_firmware_info():
    from rocm_wizard.detect.parsers.release_changes import firmware_blobs

    # real: ROCm/ROCm#5724 (cat /sys/kernel/debug/dri/128/amdgpu_firmware_info | grep MES)
    text = ("# cat /sys/kernel/debug/dri/128/amdgpu_firmware_info | grep MES\n"
            "MES_KIQ feature version: 6, firmware version: 0x0000006f\n"
            "MES feature version: 1, firmware version: 0x00000080\n")
    assert firmware_blobs(text) == {"MES_KIQ": "0x0000006f", "MES": "0x00000080"}
    # real: ROCm/ROCm#5616 (the whole file starts with these)
    assert firmware_blobs("VCE feature version: 0, firmware version: 0x00000000\n"
                          "UVD feature version: 0, firmware version: 0x00000000\n")["VCE"] == "0x00000000"
    assert firmware_blobs("MES firmware version 0x83 is bad") == {} and firmware_blobs("") == {}
    assert firmware_blobs("feature version: " * 100_000) == {}


def test_dkms_build_from_dkms_make_log_and_dpkg_lines():
    from rocm_wizard.detect.parsers.release_changes import dkms_build

    # real: ROCm/ROCm#5905, ROCm/amdgpu#209 (tests/data/real/218), ROCm/amdgpu#192, ROCm/ROCm#5624 (tests/data/real/203)
    assert dkms_build("Autoinstall of module amdgpu/6.16.13-2278356.24.04 for kernel 6.18.7-061807-generic (x86_64)") == \
        "6.16.13-2278356.24.04"
    assert dkms_build("$ cat /var/lib/dkms/amdgpu/6.16.13-2278356.24.04/build/make.log") == "6.16.13-2278356.24.04"
    assert dkms_build("Setting up amdgpu-dkms (1:6.12.12.60401-2164967.24.04) ...") == "1:6.12.12.60401-2164967.24.04"
    assert dkms_build("Loading new amdgpu-6.12.12-2164967.24.04 DKMS files...") == "6.12.12-2164967.24.04"
    assert dkms_build("DKMS (dkms-3.2.0) make.log for amdgpu/6.12.12-2202139.24.04 for kernel 6.17.0-6-generic (x86_64)") == \
        "6.12.12-2202139.24.04"
    # other amdgpu packages and lines without DKMS are not the driver build
    assert dkms_build("ii  amdgpu-install  30.20.1.0.30200100-2255209.24.04  all  AMDGPU driver repository and installer") is None
    assert dkms_build("[drm] amdgpu kernel modesetting enabled. amdgpu 0000:03:00.0: amdgpu: 6.16.13") is None
    assert dkms_build("") is None


def test_detection_reads_the_dkms_build_of_a_make_log(tmp_path):
    (tmp_path / "build.txt").write_text("Autoinstall of module amdgpu/6.16.13-2278356.24.04 for kernel 6.18.7-061807-generic "
                                        "(x86_64)\nBuilding module(s)......(bad exit status: 2)\n", encoding="utf-8")
    sysm = detect_snapshot(str(tmp_path))
    assert sysm.rocm.amdgpu_dkms == "6.16.13-2278356.24.04"


def test_non_ascii_text_and_the_prose_window():
    text = "İstanbul notları: ÇÖZÜLDÜ\nWorks fine on 6.17.9, broken on 6.18.3\n"  # 'İ'.lower() is two characters long
    assert [(c.good, c.bad, c.line) for c in changes(text)] == [("6.17.9", "6.18.3", "Works fine on 6.17.9, broken on 6.18.3")]
    late = "x" * 70_000 + "\nDowngrading linux-firmware to 20251111 fixed it\n"
    assert changes(late) == []  # past the first MAX_PROSE characters of one text
    assert [c.direction for c in changes(late, whole=True)] == ["rolled-back"]


@pytest.mark.parametrize("line,want", [
    # the shapes of the threads' own sentences (tests/data/real/593's and 594's notes: ROCm/ROCm#6146 "swap onto the
    # 6.14-1018 OEM kernel ... remove amdgpu-dkms", 1bit-MONSTER#1 "reproduces on the 6.19.x kernels", 615's "updating
    # the host fixed it")
    ("it reproduces on the 6.19.x kernels and works fine on 6.18.22-lts", ("kernel", "good-bad", "6.18.22-lts", "6.19")),
    ("It does not reproduce on 6.18.9 but crashes on 6.19.1", ("kernel", "good-bad", "6.18.9", "6.19.1")),
    ("resolved by swapping the kernel back to 6.14.0-1018-oem and removing amdgpu-dkms",
     ("kernel", "rolled-back", "6.14.0-1018-oem", None)),
    ("I booted back into 6.18 and it works", ("kernel", "rolled-back", "6.18", None)),
    ("updating the host kernel fixed it", ("kernel", "moved-fixed", None, None)),
    ("upgrading linux-firmware to 20260110 solved it", ("linux-firmware", "moved-fixed", None, "20260110")),
])
def test_more_shapes_of_the_change(line, want):
    assert [(c.component, c.direction, c.good, c.bad) for c in changes(line)] == [want]


@pytest.mark.parametrize("line", ["after updating my notes it works", "we went back to the office and fixed lunch",
                                  "the bug does not reproduce anymore"])
def test_no_change_from_everyday_sentences(line):
    assert changes(line) == []
