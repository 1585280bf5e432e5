"""Held-out set DS (tests/data/real/2330-2335, HELDOUT.md): creative and media applications on AMD GPUs (Blender Cycles
HIP, DaVinci Resolve on ROCr 7.2 / ROCm OpenCL / Mesa, GIMP with ROCm OpenCL, FFmpeg's AMF encoder).  Before the fixes
three of six were not warned and four not at their layer; the fixes, each from the program that prints the line:
* FFmpeg's AMF encoder (libavcodec/amfenc.c and libavutil/hwcontext_amf.c: 'AMF failed to initialise on the given Vulkan
  device: %d.', 'AMF via Vulkan is not supported on the given device.', 'DLL %s failed to open'; HandBrake's vce_common.c)
  was unknown (2335): rows ds_ffmpeg_amf_init_failed and ds_ffmpeg_amf_runtime_not_loaded, framework;
* a crash whose frames are in Mesa's AMD user-space drivers (radeonsi_dri.so / libgallium, libvulkan_radeon,
  rusticl, clover) in glibc's backtrace_symbols, gdb's or systemd-coredump's frame format (2333):
  ds_native_crash_frames_in_mesa_amd_driver, framework, as the corpus reads Mesa;
* ROCm's LLVM stopping on its own check in the AMDGPU back end (glibc's assert message, LLVM's 'UNREACHABLE executed
  at', gdb's frame with the file= argument) while comgr builds an OpenCL/HIP program (2332):
  ds_rocm_llvm_amdgpu_backend_assertion, hip, as the corpus reads comgr;
* a native crash whose frame #0 is a C++ standard-library function carried by another library (Resolve's
  libProResRAW.so) called from ROCr's load-time code (2331): the set-BK rows now look past such a #0 frame;
* amdgpu's ring tests failing while a GPU reset tears the engines down were read as an init failure (2330, also 327):
  the amdgpu-init-failed rule leaves them to gpu-hang-reset when the text shows the reset;
* the second line of amdgpu's job-timeout report ('Process information: process %s pid %d thread %s pid %d') was an
  unrecognised failure beside the timeout (2330, also 327 and 329): a benign line of the catch-all."""
from __future__ import annotations

import pytest

from rwtest.heldout import doctor_files, fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems as _problems

AMF = "ds_ffmpeg_amf_init_failed"
AMF_DLL = "ds_ffmpeg_amf_runtime_not_loaded"
MESA = "ds_native_crash_frames_in_mesa_amd_driver"
LLVM = "ds_rocm_llvm_amdgpu_backend_assertion"
ROCR = "bk_native_crash_innermost_frame_in_rocr"


@pytest.mark.parametrize("num,layer", [("2330", "kernel"), ("2331", "runtime"), ("2332", "hip"), ("2333", "framework"),
                                       ("2334", "kernel"), ("2335", "framework")])
def test_the_set_ds_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("row,line", [
    # the fixture (GPUOpen-LibrariesAndSDKs/AMF#358, Radeon 780M)
    (AMF, "[h264_amf @ 0x5584aa279680] AMF failed to initialise on the given Vulkan device: 1."),
    # GPUOpen-Drivers/AMDVLK#220 (AMF with AMDVLK instead of the Pro Vulkan driver)
    (AMF, "[h264_amf @ 0x5606a891da00] AMF failed to initialise on the given Vulkan device: 1."),
    # HandBrake libhb/vce_common.c's wording, and FFmpeg's AMF_NOT_SUPPORTED branch
    (AMF, "VCE: AMF failed to initialise on the given Vulkan device."),
    (AMF, "[hevc_amf @ 0x55d0c1a2b940] AMF via Vulkan is not supported on the given device."),
    # GPUOpen-LibrariesAndSDKs/AMF#481 (NixOS, no AMF runtime on the loader's path)
    (AMF_DLL, "[h264_amf @ 0xc3fa40] DLL libamfrt64.so.1 failed to open"),
])
def test_amf_wordings_are_named(row, line):
    assert row in _ids(line)


@pytest.mark.parametrize("line", [
    "[h264_amf @ 0x5584aa279680] AMF initialisation succeeded via Vulkan.",
    "[h264_amf @ 0xc3fa40] DLL libfoo.so.1 failed to open",
])
def test_amf_lookalikes_are_not_named(line):
    assert not {AMF, AMF_DLL} & _ids(line)


@pytest.mark.parametrize("text", [
    # the fixture's frames (ROCm/ROCm#2672, Resolve 18.6.2, glibc's backtrace_symbols format)
    "/usr/lib/dri/radeonsi_dri.so(+0x8165cc) [0x7fd668c165cc]\n"
    "/usr/lib/dri/radeonsi_dri.so(amdgpu_winsys_create+0x628) [0x7fd668cd1d88]\n",
    # Ashark/davinci-resolve-checker#43 (Resolve 18.6.4, the same crash in Mesa's winsys)
    "/usr/lib/dri/radeonsi_dri.so(+0x86255b) [0x7f71a466255b]\n/usr/lib/dri/radeonsi_dri.so(+0x8b15bd) [0x7f71a46b15bd]\n",
    # systemd-coredump's frame format (src/shared/elf-util.c), Mesa 24.2+'s libgallium
    "#3  0x00007f1a2b3c4d5e n/a (libgallium-24.2.8-arch1.1.so + 0x9a3d5e)\n"
    "#4  0x00007f1a2b3c5f00 n/a (libgallium-24.2.8-arch1.1.so + 0x9a4f00)\n",
])
def test_crash_frames_in_mesa_are_named(text):
    assert MESA in _ids(text)


@pytest.mark.parametrize("text", [
    "/usr/lib/dri/radeonsi_dri.so(+0x8165cc) [0x7fd668c165cc]\n",                        # one frame alone
    "MESA-LOADER: failed to open radeonsi: /usr/lib/dri/radeonsi_dri.so: cannot open shared object file\n"
    "libGL error: failed to load driver: radeonsi\n",
    "\tlibvulkan_radeon.so => /usr/lib/libvulkan_radeon.so (0x00007f0000000000)\n"
    "\tlibdrm_amdgpu.so.1 => /usr/lib/libdrm_amdgpu.so.1 (0x00007f0000100000)\n",        # an ldd listing
])
def test_mesa_lookalikes_are_not_named(text):
    assert MESA not in _ids(text)


@pytest.mark.parametrize("line", [
    # the fixture (ROCm/ROCm-OpenCL-Runtime#159: gdb's __assert_fail_base frame, rocm-llvm 5.4.3)
    '    file=file@entry=0x7ffec329f690 "/build/rocm-llvm/src/llvm-project-rocm-5.4.3/llvm/lib/Target/AMDGPU/'
    'SIOptimizeVGPRLiveRange.cpp", line=line@entry=525, ',
    # rocm-arch/rocm-arch#258 (Blender's OpenCL kernels, llvm-amdgpu 3.5.0)
    "UNREACHABLE executed at /home/torsten/Dokumente/rocm-arch/llvm-amdgpu/src/llvm-project-rocm-3.5.0/llvm/lib/Target/"
    "AMDGPU/AMDGPUAsmPrinter.cpp:846!",
    # glibc's assert format (assert/assert.c) with the fixture's assertion
    "resolve: /build/rocm-llvm/src/llvm-project-rocm-5.4.3/llvm/lib/Target/AMDGPU/SIOptimizeVGPRLiveRange.cpp:525: "
    "void {anonymous}::SIOptimizeVGPRLiveRange::optimizeLiveRange(): Assertion `UseMI->isPHI() && "
    '"Uses should be PHI in Endif block"\' failed.',
])
def test_rocm_llvm_amdgpu_assertions_are_named(line):
    assert LLVM in _ids(line)


@pytest.mark.parametrize("line", [
    # Triton's own LLVM build (not ROCm's): left to the framework's rows
    "python: /source/llvm-project/llvm/lib/Target/AMDGPU/SIISelLowering.cpp:1234: foo(): Assertion `x' failed.",
    "davinci resolve studio assert in SIOptimizeVGPRLiveRange.cpp:525",               # the title's prose
])
def test_llvm_lookalikes_are_not_named(line):
    assert LLVM not in _ids(line)


def test_a_cxx_library_frame_before_rocr_is_looked_past():
    text = ("                #0  0x00007f26178da708 _ZNSt10filesystem7__cxx114path14_M_split_cmptsEv (libProResRAW.so "
            "+ 0xda708)\n                #1  0x00007f25c1e34818 n/a (libhsa-runtime64.so.1 + 0x34818)\n")
    assert ROCR in _ids(text)


@pytest.mark.parametrize("text", [
    # libstdc++'s own wait, then ROCr: a thread waiting, not a crash in ROCr
    "#0  0x00007ffff7e4a1b0 in std::condition_variable::wait(std::unique_lock<std::mutex>&) () from "
    "/usr/lib/libstdc++.so.6\n#1  0x00007fffe863e49c in ?? () from /opt/rocm/lib/libhsa-runtime64.so.1\n",
    # the program's own (non-library) frame first
    "#0  0x000055c9df2681a6 n/a (myapp + 0xa6d1a6)\n#1  0x00007f778a1d5c3a n/a (libhsa-runtime64.so.1 + 0x15c3a)\n",
])
def test_frames_that_are_not_a_cxx_library_copy_are_not_looked_past(text):
    assert ROCR not in _ids(text)


def test_a_ring_test_failing_in_a_reset_is_not_an_init_failure(tmp_path):
    found = _problems(doctor_files(tmp_path, {"dmesg.txt": (
        "[ 2679.300601] amdgpu 0000:0c:00.0: amdgpu: GPU reset begin!\n"
        "[ 2679.729744] amdgpu 0000:0c:00.0: [drm:amdgpu_ring_test_helper [amdgpu]] *ERROR* ring kiq_2.1.0 test failed "
        "(-110)\n")}))
    assert ("gpu-hang-reset", "kernel") in found and not any(i == "amdgpu-init-failed" for i, _l in found)


def test_a_ring_test_failing_without_a_reset_is_still_an_init_failure(tmp_path):
    found = _problems(doctor_files(tmp_path, {"dmesg.txt": (
        "[    4.100000] amdgpu 0000:03:00.0: [drm:amdgpu_ring_test_helper [amdgpu]] *ERROR* ring gfx_0.0.0 test failed "
        "(-110)\n")}))
    assert ("amdgpu-init-failed", "kernel") in found


def test_the_job_timeouts_process_line_is_not_a_failure_of_its_own(tmp_path):
    found = _problems(doctor_files(tmp_path, {"dmesg.txt": (
        "[ 2679.300490] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* Process information: process blender pid 10728 "
        "thread blender:cs0 pid 10762\n")}))
    assert found == []
