"""Held-out set AX (tests/data/real/1280-1286, HELDOUT.md): Strix Halo, Strix Point and other APUs in 2026.

Two misses fixed by their causes:
* ROCr's memory error handler ("Memory critical error by agent node-N (Agent handle: ...) on address ...
  Reason: Memory in use.", runtime.cpp) as users quote it (shortened with '...', wrapped after the handle, or only
  its reason) is ROCr's memory fault report, read by the memory_access_fault signature (1281, 1286);
* the GPU memory a program reports (PyTorch's "total capacity") far below the VRAM or GTT amdgpu set up is the
  kernel handing ROCm a smaller pool (ROCm/ROCm#5444), reported at kernel by gpu-memory-below-driver (1283)."""
from __future__ import annotations

import re

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import doctor_files, fixture as _fixture, lead_layer as _lead_layer, problems


def _fault_rx():
    return error_signatures.pattern(error_signatures.by_id("memory_access_fault"))


@pytest.mark.parametrize("num", ["1281", "1286"])
def test_rocr_memory_critical_error_in_a_title_is_the_runtime_memory_fault(num):
    from rocm_wizard.detect import detect_snapshot
    from rocm_wizard.doctor import diagnose

    diag = diagnose(detect_snapshot(str(_fixture(num))))
    assert ("memory-access-fault", "runtime") in problems(diag)
    assert _lead_layer(_fixture(num)) == "runtime"


@pytest.mark.parametrize("line", [
    # the full line (ROCr runtime.cpp's format), then the forms users quote it in
    "Memory critical error by agent node-1 (Agent handle: 0x2aecc9cfe0) on address 0x3f8b182000. Reason: Memory in use.",
    "Memory critical error by agent node-0 ... Reason: Memory in use.",
    "    Memory critical error by agent node-0 ... Reason: Memory in use.",
    "on address 0x7fbb51601000. Reason: Memory in use.",
    "AMD 6800U: ROCm error Reason: Memory in use",
    "Memory access fault by GPU node-1 (Agent handle: 0x55f8b54eec30) on address 0x7f2a53193000. Reason: Page not "
    "present or supervisor privilege.",
])
def test_rocr_memory_fault_wordings(line):
    assert _fault_rx().search(line), line


@pytest.mark.parametrize("line", [
    "Memory in use: 4.2 GiB of 16 GiB",
    "GPU memory in use 12000 MiB",
    "Reason: Memory in use by another process",
    "critical error: memory allocation failed",
])
def test_near_misses_are_not_a_memory_fault(line):
    assert not _fault_rx().search(line), line


def test_a_wrapped_memory_critical_error_in_a_log_is_reported_at_runtime(tmp_path):
    log = ("Memory critical error by agent node-0 (Agent handle: 0x7fc7f1d9a5e0)\n"
           "on address 0x7fc846a02000. Reason: Memory in use.\n")
    assert ("memory-access-fault", "runtime") in problems(doctor_files(tmp_path, {"log.txt": log}))


def test_1283_torch_capacity_far_below_the_carve_out_is_reported_at_kernel():
    from rocm_wizard.detect import detect_snapshot
    from rocm_wizard.doctor import diagnose

    diag = diagnose(detect_snapshot(str(_fixture("1283"))))
    assert ("gpu-memory-below-driver", "kernel") in problems(diag)
    assert _lead_layer(_fixture("1283")) == "kernel"


_OOM_21 = ("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 20.00 GiB. GPU 0 has a total capacity of {cap} "
           "of which 1.00 GiB is free.\n")
_OOM_20 = ("RuntimeError: HIP out of memory. Tried to allocate 2.00 GiB (GPU 0; {cap} total capacity; 1.00 GiB already "
           "allocated; 0 bytes free)\n")


@pytest.mark.parametrize("oom,cap,dmesg", [
    (_OOM_21, "15.24 GiB", "[    4.973019] [drm] amdgpu: 98304M of VRAM memory ready\n"),
    (_OOM_20, "15.50 GiB", "[    4.9] amdgpu 0000:c5:00.0: amdgpu: 65536M of VRAM memory ready\n"),
    (_OOM_21, "7.80 GiB", "[    2.7] [drm] amdgpu: 512M of VRAM memory ready\n[    2.7] [drm] amdgpu: 31744M of GTT memory ready.\n"),
    # PyTorch 2.1's spelling ('capacty')
    (_OOM_21.replace("capacity", "capacty"), "15.24 GiB", "[    4.9] [drm] amdgpu: 98304M of VRAM memory ready\n"),
])
def test_capacity_below_half_of_the_drivers_memory_is_a_kernel_finding(tmp_path, oom, cap, dmesg):
    found = problems(doctor_files(tmp_path, {"err.txt": oom.format(cap=cap), "dmesg.txt": dmesg}))
    assert ("gpu-memory-below-driver", "kernel") in found, found


@pytest.mark.parametrize("cap,dmesg", [
    # the whole GTT reaches the program (516's case: a real out-of-memory at the GTT size)
    ("62.47 GiB", "[    1.7] [drm] amdgpu: 512M of VRAM memory ready\n[    1.7] [drm] amdgpu: 63968M of GTT memory ready.\n"),
    # a discrete card: the total is its VRAM
    ("23.98 GiB", "[    3.1] [drm] amdgpu: 24560M of VRAM memory ready\n[    3.1] [drm] amdgpu: 32048M of GTT memory ready.\n"),
    # no driver line: nothing to compare
    ("15.24 GiB", "[    3.1] [drm] amdgpu kernel modesetting enabled.\n"),
])
def test_capacity_matching_the_driver_is_not_reported(tmp_path, cap, dmesg):
    found = problems(doctor_files(tmp_path, {"err.txt": _OOM_21.format(cap=cap), "dmesg.txt": dmesg}))
    assert not [f for f in found if f[0] == "gpu-memory-below-driver"], found


def test_a_vram_size_alone_is_no_failure_told_or_shown(tmp_path):
    # the VRAM figure row is a figure, like the GTT one: a boot log with it and a told failure still asks for the failure
    diag = doctor_files(tmp_path, {"title.txt": "rocminfo got kernel panic\n",
                                   "dmesg.txt": "[    3.755795] [drm] amdgpu: 4096M of VRAM memory ready\n"})
    assert [f for f in problems(diag) if f[0] == "failure-told-not-shown"]


def test_the_other_fixtures_lead_at_their_labelled_layer():
    for num, layer in (("1280", "kernel"), ("1282", "framework"), ("1285", "runtime")):
        assert _lead_layer(_fixture(num)) == layer, num
    assert _lead_layer(_fixture("1284")) is None
