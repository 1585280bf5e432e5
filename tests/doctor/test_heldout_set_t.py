"""Held-out set T (tests/data/real/730-736, HELDOUT.md): older GPUs under 2026 software.
Each miss's cause, fixed from the program that prints the line (the kernel's segfault report in
arch/x86/mm/fault.c show_signal_msg with print_vma_addr's " in <object>"; clinfo's per-platform device count,
Oblomov/clinfo and ROCm/clr's clinfo), tested on the fixture and on other wordings of the same source."""
from __future__ import annotations


import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.detect import failure_lines as fl
from rocm_wizard.doctor import diagnose
from rwtest.heldout import ids as _ids, lead_layer as _lead_layer
from rwtest.heldout import doctor_files as _doctor, problems as _problems, fixture as _fixture


# -- the fixtures --------------------------------------------------------------------------------
def test_736_comgr_segfault_leads_at_hip():
    # before: only "Segmentation fault (core dumped)" was seen, placed at the framework by llama.cpp's lines;
    # set T's fix read the segfault's object (libamd_comgr) as HIP's (the catch-all), set AO's catalogue row
    # s11ao_crash_in_amd_comgr names the crash itself: either way a finding at hip
    found = _problems(diagnose(detect_snapshot(str(_fixture("736")))))
    assert ("unrecognised-failure", "hip") in found or ("known-failure", "hip") in found, found
    assert _lead_layer(_fixture("736")) == "hip"


def test_730_clinfo_amd_platform_without_devices_is_a_known_runtime_failure():
    text = (_fixture("730") / "report.txt").read_text(encoding="utf-8")
    assert "heldt_clinfo_amd_platform_no_devices" in _ids(text)
    assert _lead_layer(_fixture("730")) == "runtime"


# -- the kernel's segfault report: the layer of the object it names ---------------------------------
@pytest.mark.parametrize("line,layer", [
    # the fixture's line, addresses elided by the user
    ("segfault at ... ip ... error 4 in libamd_comgr.so.3.0", "hip"),
    # show_signal_msg as printed since 6.2 (print_vma_addr's [offset+size], then the CPU)
    ("[ 4012.118] llama-server[4821]: segfault at 18 ip 00007f3a9c2b1d40 sp 00007ffd4d1c2a10 error 4 in "
     "libamd_comgr.so.3[7f3a9a000000+3200000] likely on CPU 5 (core 5, socket 0)", "hip"),
    ("python3[2211]: segfault at 0 ip 00007f11aa00 sp 00007ffe10 error 4 in libamdhip64.so.7[7f11a0000+481000]", "hip"),
    ("python3[999]: segfault at 8 ip 00007f00 sp 00007ffe error 6 in librocblas.so.5.1[7f00+100]", "libraries"),
    ("ollama[77]: segfault at 40 ip 00007f sp 00007f error 4 in libhipblaslt.so.1[7f+2000]", "libraries"),
    ("rocminfo[12]: segfault at 18 ip 00007f sp 00007f error 4 in libhsa-runtime64.so.1.18.0[7f+2000]", "runtime"),
])
def test_a_segfault_in_a_rocm_library_is_that_librarys(line, layer):
    assert fl.classify(line) == fl.SHOWN
    assert fl.layer_of(line) == layer


def test_a_segfault_in_the_program_itself_is_shown_without_a_rocm_layer():
    line = "a.out[40342]: segfault at 0 ip 00000000004005b1 sp 00007ffc5b1be400 error 4 in a.out[400000+1000]"
    assert fl.classify(line) == fl.SHOWN
    assert fl.layer_of(line) is None
    # prose about a segfault is not the kernel's line
    assert fl.classify("it segfaults at load time in comgr, I think") != fl.SHOWN


def test_a_comgr_segfault_in_a_kernel_log_leads_over_the_shells_message(tmp_path):
    diag = _doctor(tmp_path, {
        "run.txt": "ggml_cuda_init: found 1 ROCm devices:\n"
                   "  Device 0: AMD Radeon RX 6800, gfx1030 (0x1030), VMM: no, Wave Size: 32\n"
                   "Segmentation fault (core dumped)\n",
        "dmesg.txt": "[  812.441] llama-cli[9120]: segfault at 7f0 ip 00007fd1c2a3b4c5 sp 00007ffc0a0b0c0d error 4 in "
                     "libamd_comgr.so.3.0[7fd1c0000000+3100000] likely on CPU 2 (core 2, socket 0)\n"})
    found = _problems(diag)
    assert found and found[0][1] == "hip", found


# -- clinfo: AMD's platform with no device ----------------------------------------------------------
@pytest.mark.parametrize("text", [
    # Oblomov/clinfo (the fixture's form)
    "  Platform Name                                   AMD Accelerated Parallel Processing\n"
    "Number of devices                                 0\n",
    # ROCm/clr's clinfo (as 151 and 658 print it)
    "  Platform Name:                                 AMD Accelerated Parallel Processing\n"
    "  Number of devices:                               0\n",
])
def test_amds_opencl_platform_without_devices(text):
    assert "heldt_clinfo_amd_platform_no_devices" in _ids(text)
    assert error_signatures.failure_layer("heldt_clinfo_amd_platform_no_devices") == "runtime"


@pytest.mark.parametrize("text", [
    # a GPU listed
    "  Platform Name:                                 AMD Accelerated Parallel Processing\n"
    "  Number of devices:                               1\n",
    "  Platform Name                                   AMD Accelerated Parallel Processing\n"
    "Number of devices                                 10\n",
    # another vendor's platform without devices is not ROCm's
    "  Platform Name                                   Clover\nNumber of devices                                 0\n",
    # the NULL-platform probe for CPU devices fails on every healthy GPU-only platform
    "  clCreateContextFromType(NULL, CL_DEVICE_TYPE_CPU)  No devices found in platform\n",
])
def test_clinfo_look_alikes_are_not_that_failure(text):
    assert "heldt_clinfo_amd_platform_no_devices" not in _ids(text)
