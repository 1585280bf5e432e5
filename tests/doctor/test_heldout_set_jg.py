"""Held-out set JG (tests/data/real/3620-3624, HELDOUT.md): threads of 2024-2026 on laptops with AMD GPUs (mobile
Radeon dGPUs, hybrid graphics with an iGPU).  3622 and 3623 led at their layer on the unchanged code and 3620 (a
Framework 16 running Ollama) stayed without a false alarm.  3624 (lemonade's gfx1151 llama.cpp build on a gfx1150 APU)
was read only by the catch-all with no layer: its crash report is LLVM's Windows exception handler's
(llvm/lib/Support/Windows/Signals.inc: "Exception Code: 0x%08X", then frames "0x%016llX, <module>(0x%016llX) + 0x%llX
byte(s), <symbol>() + 0x%llX byte(s)" or the symbolizer's " #N 0x... (<module>+0x<off>)"), whose first frame is in the
HIP runtime (amdhip64_7.dll).  The new row jg_windows_llvm_crash_first_frame_in_hip_runtime reads such a report when its
first frame after Windows' own system DLLs is amdhip64[_N].dll or hipRTC's.  The same frame line is now a native-Windows
sign for detection (windows_facts._LLVM_WIN_FRAME), which read 3624's os_id.  3621 (Ollama on the CPU beside an RX
6800M, told only in prose) was dropped at the merge: the same thread as set JF's 3612, collected at the same time."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.windows_facts import windows_sign
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "jg_windows_llvm_crash_first_frame_in_hip_runtime"


@pytest.mark.parametrize("num,layer", [("3620", None), ("3622", "libraries"), ("3623", "libraries"), ("3624", "hip")])
def test_the_set_jg_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_llvm_windows_crash_row_names_3624_and_leads_at_hip():
    assert_named_and_leads("3624", ROW, "hip")


_Z = "0x00007FF8B548888F, C:\\WINDOWS\\SYSTEM32\\amdhip64_6.dll(0x00007FF8B4C50000) + 0x83888F byte(s), " \
     "hipHccModuleLaunchKernel() + 0x4F45FF byte(s)\n"


@pytest.mark.parametrize("text", [
    # the fixture's report (lemonade-sdk/llamacpp-rocm#5, comment of 2025-10-06: a gfx1151 build on a gfx1150 APU)
    "Exception Code: 0xC0000005\n0x00007FFB04224100, \\Downloads\\llama-b1070-windows-rocm-gfx1151-x64\\amdhip64_7.dll"
    "(0x00007FFB03E30000) + 0x3F4100 byte(s), hipHccModuleLaunchKernel() + 0x7F7E0 byte(s)\n",
    # patientx/ComfyUI-Zluda#295 (2025-09): a C++ throw (0xE06D7363), KERNELBASE's RaiseException frame first, then HIP's
    "Exception Code: 0xE06D7363\n0x00007FF98C9A7F7A, C:\\WINDOWS\\System32\\KERNELBASE.dll(0x00007FF98C8E0000) + "
    "0xC7F7A byte(s), RaiseException() + 0x8A byte(s)\n" + _Z,
    # lshqqytiger/stable-diffusion-webui-amdgpu#645: the symbolizer's frame form, TheRock's wheel copy of the runtime
    "Exception Code: 0xC0000005\n #0 0x00007ff83fa38eb4 (C:\\Users\\Fulken\\Desktop\\Stable Diffusion\\stable-diffusion-"
    "webui-amdgpu\\venv\\Lib\\site-packages\\_rocm_sdk_core\\bin\\amdhip64_7.dll+0x18eb4)\n #1 0x00007ff83fd02ba5 (C:"
    "\\Users\\Fulken\\Desktop\\Stable Diffusion\\stable-diffusion-webui-amdgpu\\venv\\Lib\\site-packages\\_rocm_sdk_core"
    "\\bin\\amdhip64_7.dll+0x2e2ba5)\n",
    # constructed, not a real paste: 1084's abort frames (ucrtbase's raise and abort) with a hipRTC frame in place of
    # its comgr frame, for the system-DLL skip and the hipRTC name
    "Exception Code: 0x80000003\n0x00007FFE7B2119A9, C:\\WINDOWS\\System32\\ucrtbase.dll(0x00007FFE7B150000) + 0xC19A9 "
    "byte(s), raise() + 0x1D9 byte(s)\n0x00007FFE7B1F4AD1, C:\\WINDOWS\\System32\\ucrtbase.dll(0x00007FFE7B150000) + "
    "0xA4AD1 byte(s), abort() + 0x31 byte(s)\n0x00007FFD935B2DF5, C:\\llama\\hiprtc0702.dll(0x00007FFD92080000) + "
    "0x1532DF5 byte(s), hiprtcCompileProgram() + 0x1445505 byte(s)\n",
])
def test_the_row_reads_a_first_frame_in_the_hip_runtime(text):
    assert ROW in _ids(text)
    assert error_signatures.failure_layer(ROW) == "hip"


@pytest.mark.parametrize("text", [
    # the program's own frame first (ggml's abort from 1084's report), HIP's frame only below it
    "Exception Code: 0x80000003\n0x00007FFDFE5310F6, C:\\llama\\ggml-base.dll(0x00007FFDFE530000) + 0x10F6 byte(s), "
    "ggml_abort() + 0xC6 byte(s)\n" + _Z,
    # comgr's frame first (1107's report, s11ao_crash_in_amd_comgr's)
    "Exception Code: 0x80000003\n0x00007FFAF6C3EA65, C:\\runner\\bin\\amd_comgr0702.dll(0x00007FFAF57D0000) + "
    "0x146EA65 byte(s), amd_comgr_symbolize() + 0x1379325 byte(s)\n" + _Z,
    # HIP's frame with no exception record before it (a frame list a person quotes alone)
    _Z,
    # torch's frame first (2760's native frames), the HIP runtime not in them
    "Exception Code: 0xC0000005\n0x00007FFD299070C7, C:\\ComfyUI\\torch\\lib\\torch_hip.dll(0x00007FFD28430000) + "
    "0x14D70C7 byte(s), ?rrelu_with_noise_cuda_@native@at@@YAAEAVTensor@2@AEAV32@0AEBVScalar@c10@@1_NV() + 0xCBC7 byte(s)\n",
])
def test_the_row_leaves_other_first_frames(text):
    assert ROW not in _ids(text)


def test_an_llvm_windows_frame_line_is_a_native_windows_sign():
    sign = windows_sign("Exception Code: 0xC0000005\n0x00007FFB04224100, \\Downloads\\llama-b1070-windows-rocm-gfx1151-x64"
                        "\\amdhip64_7.dll(0x00007FFB03E30000) + 0x3F4100 byte(s), hipHccModuleLaunchKernel() + 0x7F7E0 byte(s)\n")
    assert sign and sign[0] == "llvm_windows_frame"


@pytest.mark.parametrize("text", [
    # gdb's Linux frame of the same function: no module load address, no 'byte(s)'
    "#0  0x00007fffa62e0457 in hipHccModuleLaunchKernel () from /opt/rocm/lib/libamdhip64.so.7\n",
    # a sentence quoting the module and an offset without LLVM's frame layout
    "the crash is at amdhip64_7.dll + 0x3F4100 bytes according to the event viewer\n",
])
def test_other_frame_lines_are_no_windows_sign(text):
    assert windows_sign(text) is None
