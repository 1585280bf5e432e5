"""Held-out set EP (tests/data/real/2536-2540, HELDOUT.md): a theme-neutral sample of ROCm's component trackers
(ROCR-Runtime, clr, HIP, amdgpu, rocminfo, rocm_smi_lib, amdsmi, rocm-install-on-linux) of 2023-2026.  On the unchanged
code every fixture was warned; the misses were:

* 2537 (layer): an OpenCL program's CL_OUT_OF_HOST_MEMORY from command-queue creation (ROCm/clr opencl/amdocl/
  cl_command.cpp: clCreateCommandQueueWithProperties returns it whenever the device queue cannot be created) was no
  catalogue line; row ``ep_opencl_command_queue_out_of_host_memory`` reads it at runtime.
* 2539 (lead): a PSP command failing inside a GPU reset (amdgpu_device_gpu_recover -> psp suspend -> psp_ta_unload ->
  psp_cmd_submit_buf's "psp gfx command %s(0x%X) failed ...") was reported first at firmware, ahead of the ring timeout
  that started the reset; known-failure now reports such a line, stamped at or after the reset's start, with the reset
  at the kernel.
* 2536 (detection): util-linux's `dmesg -H` stamps ("[Nov30 01:49]", "[  +0.000011]", sys-utils/dmesg.c print_record's
  reltime format) were not read as kernel log lines, so the oops header's release was missed; they are now."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import dmesg
from rwtest.heldout import doctor_files, fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems

OPENCL = "ep_opencl_command_queue_out_of_host_memory"


@pytest.mark.parametrize("num,layer", [("2536", "kernel"), ("2537", "runtime"), ("2538", "kernel"),
                                       ("2539", "kernel"), ("2540", "runtime")])
def test_the_set_ep_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_opencl_queue_row_sits_at_runtime():
    assert error_signatures.failure_layer(OPENCL) == "runtime"


@pytest.mark.parametrize("text", [
    # the fixture's title (ROCm/ROCR-Runtime#163, ROCm 5.6.0 on a Ryzen 5700G)
    "OpenCL fails on a Ryzen 5700G APU on ROCm 5.6.0 - regression (command queue creation fails with "
    "`CL_OUT_OF_HOST_MEMORY`)",
    # darktable 4.8.1 on a Radeon 680M with ROCm 6.2.0 (ROCm/legacy-rocm-build#3798)
    "*** could not create command queue *** CL_OUT_OF_HOST_MEMORY",
    # xmr-stak-amd on an HD 7850 (fireice-uk/xmr-stak-amd#53)
    "[2017-06-19 21:28:56] : Error CL_OUT_OF_HOST_MEMORY when calling clCreateCommandQueueWithProperties.",
    # the title of ROCm/clr#261 (ROCm 6.4.2 under WSL, RX 7900 XTX)
    "[Issue]: clCreateCommandQueueWithProperties returning CL_OUT_OF_HOST_MEMORY error on WSL",
])
def test_an_opencl_queue_refused_with_out_of_host_memory_is_named(text):
    assert OPENCL in _ids(text)


@pytest.mark.parametrize("text", [
    "clCreateBuffer failed: CL_OUT_OF_HOST_MEMORY",                        # another call's error
    "clCreateCommandQueue returned CL_OUT_OF_RESOURCES",                   # another error code
    "Creating the command queue succeeded: CL_SUCCESS",                    # no error
])
def test_other_opencl_errors_are_not_the_queue_row(text):
    assert OPENCL not in _ids(text)


@pytest.mark.parametrize("text,release", [
    # the fixture's lines (ROCm/hip#3353, comment of 2023-11-30: `dmesg -H` on kernel 6.6.2-zen)
    ("[Nov30 01:49] amdgpu 0000:28:00.0: amdgpu: bo 00000000414d2147 va 0x0800000000-0x0800000001 conflict with "
     "0x0800000000-0x0800000840\n"
     "[  +0.000004] CPU: 13 PID: 28657 Comm: blender Tainted: G      D            6.6.2-zen1-1-zen #1 "
     "6d6e8f60a278275566e6df0e1eb1d11309a4619b\n", "6.6.2-zen1-1-zen"),
    # an oom-killer report quoted on the linux-kernel list (kernel 4.7, the index's copy of the thread)
    ("[Jul31 01:56] kthreadd invoked oom-killer: gfp_mask=0x27000c0(GFP_KERNEL_ACCOUNT|__GFP_NOTRACK), order=2, "
     "oom_score_adj=0\n"
     "[  +0.000004] CPU: 3 PID: 2 Comm: kthreadd Not tainted 4.7.0-06816-g797cee982eef-dirty #37\n",
     "4.7.0-06816-g797cee982eef-dirty"),
    # a CFI failure report on a linux-next kernel of 2025-08 (deltas only, no minute line)
    ("[  +0.000027] Oops: invalid opcode: 0000 [#1] SMP NOPTI\n"
     "[  +0.000004] CPU: 0 UID: 0 PID: 3232 Comm: cat Not tainted 6.17.0-rc1-debug-next-20250814-02528-g3aebcf0edb14 "
     "#1 PREEMPT(full)  724b1db7f580ddb34e14b43820ff16d9fd75d36c\n",
     "6.17.0-rc1-debug-next-20250814-02528-g3aebcf0edb14"),
])
def test_dmesg_human_stamps_are_kernel_log_lines(text, release):
    assert dmesg.parse(text).format == "dmesg-H"
    assert dmesg.kernel_version(text) == release


@pytest.mark.parametrize("text", [
    "[ +12.5] CPU: 3 PID: 2 Comm: x Not tainted 4.7.0 #37\n",            # not a microsecond delta
    "[Build 01:56] CPU: 3 PID: 2 Comm: x Not tainted 4.7.0 #37\n",       # not a month and day
])
def test_other_bracketed_stamps_are_not_dmesg_h(text):
    assert dmesg.parse(text).format is None
    assert dmesg.kernel_version(text) is None


# a llama-server run on a 4-GPU host whose BACO reset followed a job timeout (a public report in the index's code
# corpus): the PSP's UNLOAD_TA fails inside the reset
RESET = ("[16465.453556] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* Process information: process llama-server pid 374059 "
         "thread llama-server pid 374059\n"
         "[16465.455568] amdgpu 0000:87:00.0: amdgpu: GPU reset begin!\n"
         "[16465.469399] amdgpu 0000:87:00.0: amdgpu: psp gfx command UNLOAD_TA(0x2) failed and response status is (0x117)\n"
         "[16465.499371] amdgpu 0000:87:00.0: amdgpu: BACO reset\n"
         "[16467.066465] amdgpu 0000:87:00.0: amdgpu: GPU reset succeeded, trying to resume\n")


def test_a_psp_failure_inside_a_reset_is_reported_with_the_reset(tmp_path):
    found = problems(doctor_files(tmp_path, {"dmesg.txt": RESET}))
    assert found and found[0][1] == "kernel"
    assert ("known-failure", "firmware") not in found


def test_a_psp_failure_before_any_reset_stays_at_firmware(tmp_path):
    # the PSP refusing a firmware load at boot (fixture 430's line), and a reset only later
    text = ("[    2.585146] amdgpu 0000:03:00.0: amdgpu: psp gfx command LOAD_IP_FW(0x6) failed and response status is "
            "(0x11)\n"
            "[  900.000000] amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n")
    found = problems(doctor_files(tmp_path, {"dmesg.txt": text}))
    assert ("known-failure", "firmware") in found
