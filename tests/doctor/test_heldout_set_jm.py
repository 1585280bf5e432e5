"""Held-out set JM (tests/data/real/3680-3683, HELDOUT.md): 2026 threads on PyTorch 2.10-2.12 on ROCm 7.x.  Three of
the four are native crashes of torch on Windows reported by LLVM's unhandled-exception filter
(llvm/lib/Support/Windows/Signals.inc: "Exception Code: 0x%08X", then one line a frame, "0x%016llX, <module>(0x%016llX)
+ 0x%llX byte(s), <symbol>() + 0x%llX byte(s)" or the symbolizer's " #N 0x... (<module>+0x<offset>)") whose first frame
is in PyTorch's own DLLs (torch_hip/torch_cpu/torch_python, c10).  The new row jm_windows_llvm_crash_first_frame_in_torch
reads such a report after its Exception Code line (past Windows' own system frames), or a run of its old-form frame
lines whose first is torch's and that follows no other frame line (a paste that holds the frame list only: 3680, 3681).
3682 (torch from pytorch.org's rocm7.1 wheel crashing, told in the title only) stays in MISSES."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "jm_windows_llvm_crash_first_frame_in_torch"
HIP_ROW = "jg_windows_llvm_crash_first_frame_in_hip_runtime"


@pytest.mark.parametrize("num,layer", [("3680", "framework"), ("3681", "framework"), ("3682", None),
                                       ("3683", "framework")])
def test_the_set_jm_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num", ["3680", "3681", "3683"])
def test_the_torch_crash_row_names_the_fixture_and_leads_at_framework(num):
    assert_named_and_leads(num, ROW, "framework")


_HIP = "0x00007FF8B548888F, C:\\WINDOWS\\SYSTEM32\\amdhip64_6.dll(0x00007FF8B4C50000) + 0x83888F byte(s), " \
       "hipHccModuleLaunchKernel() + 0x4F45FF byte(s)\n"
_TORCH = "0x00007FFD299070C7, C:\\ComfyUI\\torch\\lib\\torch_hip.dll(0x00007FFD28430000) + 0x14D70C7 byte(s), " \
         "?rrelu_with_noise_cuda_@native@at@@YAAEAVTensor@2@AEAV32@0AEBVScalar@c10@@1_NV() + 0xCBC7 byte(s)\n"


@pytest.mark.parametrize("text", [
    # the fixture's report (ROCm/pytorch#3283, 2026-06-06: _grouped_mm on gfx1200, AMD's ROCm 7.2.1 wheels)
    "basic cuda mm OK\nException Code: 0xC0000005\n  #0 0x00007fffc9250000 (torch_hip.dll+0x0)\n"
    "  #1 at::cuda::_grouped_mm(...) (torch_hip.dll+0x270c4a9)\n",
    # ROCm/legacy-rocm-build#5440 (2025-09, Windows preview torch): the symbolizer's form with a symbol
    "Exception Code: 0xC0000094\n #0 0x00007ffecadc98d5 at::native::_chunk_cat_out_cuda(class c10::ArrayRef<class "
    "at::Tensor>, __int64, __int64, class at::Tensor &) (C:\\manga-image-translator\\venv\\Lib\\site-packages\\torch\\lib"
    "\\torch_hip.dll+0x13398d5)\n",
    # pollockjj/ComfyUI-MultiGPU#98: the old frame form, torch_cpu.dll first
    "Exception Code: 0xC0000005\n0x00007FFA69347536, H:\\ComfyUI-portable\\python_embeded\\Lib\\site-packages\\torch\\lib"
    "\\torch_cpu.dll(0x00007FFA630A0000) + 0x62A7536 byte(s), ?_rowwise_prune@native@at@@YA() + 0x316 byte(s)\n",
    # CS1o/Stable-Diffusion-Info#51 (ZLUDA): c10.dll first, the progress bar on the Exception Code line
    "Exception Code: 0xC0000005\u2588\u2588\u2588| 28/28 [01:41<00:00,  3.79s/it]\n0x00007FFB59F060B4, Z:\\SD-Zluda\\"
    "stable-diffusion-webui-amdgpu\\venv\\Lib\\site-packages\\torch\\lib\\c10.dll(0x00007FFB59E80000) + 0x860B4 "
    "byte(s), ?typeMetaDatas@TypeMeta@caffe2@@CAPEAUTypeMetaData@detail@2@XZ() + 0x6E14 byte(s)\n",
    # patientx-cfz/comfyui-rocm#83 (fixture 2760's native frames): a frame list alone, torch_hip.dll first
    _TORCH + _TORCH,
    # constructed, not a real paste: a C++ throw's KERNELBASE frame before torch's (the system-frame skip)
    "Exception Code: 0xE06D7363\n0x00007FF98C9A7F7A, C:\\WINDOWS\\System32\\KERNELBASE.dll(0x00007FF98C8E0000) + "
    "0xC7F7A byte(s), RaiseException() + 0x8A byte(s)\n" + _TORCH,
])
def test_the_row_reads_a_first_frame_in_torch(text):
    assert ROW in _ids(text)
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("text", [
    # the HIP runtime's frame first, torch's below it: the HIP row's, not this one's
    "Exception Code: 0xC0000005\n" + _HIP + _TORCH + _TORCH,
    # a frame list whose first frame is the HIP runtime's, torch's below it
    _HIP + _TORCH + _TORCH,
    # a single torch frame line alone (no exception record, no second frame)
    _TORCH,
    # python312.dll frames only (3680's second chunk)
    "0x00007FFAA1A94276, C:\\Users\\User\\AppData\\Local\\Programs\\Python\\Python312\\python312.dll(0x00007FFAA19F0000)"
    " + 0xA4276 byte(s), PyObject_Call() + 0xB6 byte(s)\n" * 2,
])
def test_the_row_leaves_other_first_frames(text):
    assert ROW not in _ids(text)


def test_the_hip_row_still_reads_a_hip_first_frame_above_torch_frames():
    assert HIP_ROW in _ids("Exception Code: 0xC0000005\n" + _HIP + _TORCH)
