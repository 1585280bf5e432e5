"""Held-out set AO (tests/data/real/1100-1107, HELDOUT.md): ROCm's math and ML libraries failing under applications.
The misses had four causes, fixed generally and tested on the fixtures, other wordings and near-misses:
* a queue's kernel-fault status (HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION / _MEMORY_FAULT / _EXCEPTION) was read at the
  runtime although the paste names the faulting kernel as a Tensile GEMM of rocBLAS/hipBLASLt (1100, 1101):
  ``hsa-runtime-error`` puts it at libraries then;
* MLIR's pass-pipeline failure of Triton's compiler was unknown (1103): row ``s11ao_mlir_pass_pipeline_failed``;
* aiter's compiled JIT module without the op its sources load was unknown (1104): row ``s11ao_aiter_jit_module_lacks_op``;
* a crash inside the code-object compiler libamd_comgr was unknown (1107, and 736 on Linux): row
  ``s11ao_crash_in_amd_comgr``."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.doctor import diagnose
from rwtest.heldout import doctor_files, ids as _ids, lead_layer as _lead_layer, problems
from rwtest.heldout import fixture as _fixture

MLIR = "s11ao_mlir_pass_pipeline_failed"
AITER = "s11ao_aiter_jit_module_lacks_op"
COMGR = "s11ao_crash_in_amd_comgr"


@pytest.mark.parametrize("num,layer", [("1100", "libraries"), ("1101", "libraries"), ("1103", "framework"),
                                       ("1104", "packaging"), ("1107", "hip")])
def test_the_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


# -- a kernel fault of a Tensile GEMM (1100, 1101) -----------------------------------------------------------------
ILLEGAL = "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION:\nThe agent attempted to execute an illegal shader instruction.\n"
MEMFAULT = "Queue error - HSA_STATUS_ERROR_MEMORY_FAULT\nfaulting_addr=0x780b5b400000\n"


def _with_error_text(folder, text):
    """Doctor on a folder with only a kernel version in it, given ``text`` as the user's --error-log."""
    (folder / "uname.txt").write_text("$ uname -r\n6.8.0-45-generic\n", encoding="utf-8")
    return diagnose(detect_snapshot(str(folder)), error_text=text)


def _hsa(diag):
    return next((f for f in diag.findings if f.id == "hsa-runtime-error"), None)


@pytest.mark.parametrize("status,title", [
    # 1100's title
    (ILLEGAL, "[Issue]: Radeon AI PRO R9700 / gfx1201: reproducible FP16 Tensile GEMM illegal instruction at M=128\n"),
    # 1101's title
    (MEMFAULT, "[Issue]: gfx1201 (Radeon AI PRO R9700): deterministic ISA1201 Tensile GEMM page fault during BF16 "
               "Qwen3.5 inference on a 1,501-token prompt\n"),
    ("HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception. code: 0x1016\n",
     "[Issue]: rocBLAS Tensile GEMM kernel crashes with a hardware exception on MI300X (gfx942)\n"),
    (MEMFAULT, "[Issue]: gfx1201 (RX 9070 XT): Tensile GEMM memory access fault in hipBLASLt under vLLM\n"),
])
def test_a_kernel_fault_the_title_names_as_a_tensile_gemm_is_at_libraries(tmp_path, status, title):
    diag = doctor_files(tmp_path, {"error.txt": status, "title.txt": title})
    f = _hsa(diag)
    assert f is not None and f.layer == "libraries", problems(diag)
    assert any("Tensile GEMM" in e for e in f.evidence)


@pytest.mark.parametrize("status,kernel", [
    # the ShaderName a fault prints (Tensile's Contraction kernel naming), pasted as the error text
    (MEMFAULT, "Cijk_Ailk_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT64x64x32_MI16x16x1_SN_LDSB0_ISA1201_WG32_8_1\n"),
    # ROCr's kernel name print at AMD_LOG_LEVEL (TheRock#1844's form), with the exception status
    ("HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception. code: 0x1016\n",
     "Kernel Name: Cijk_Ailk_Bljk_BBS_BH_MT128x96x32_MI32x32x4x1_SE_ISA908_WG128_2_1\n"),
])
def test_a_kernel_fault_with_a_tensile_kernel_name_in_the_error_text_is_at_libraries(tmp_path, status, kernel):
    diag = _with_error_text(tmp_path, status + kernel)
    f = _hsa(diag)
    assert f is not None and f.layer == "libraries", problems(diag)


@pytest.mark.parametrize("status,other", [
    # the same status with no kernel named stays the runtime's
    (ILLEGAL, "SGLang worker terminated while serving Qwen3.5\n"),
    # rocBLAS' Tensile host (its library loader), not a kernel
    (MEMFAULT, "rocBLAS error: Could not initialize Tensile host: No devices found\n"),
    # a Tensile library file, not a kernel
    (ILLEGAL, "rocBLAS warning: loading /opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx1201.dat\n"),
    # a status the runtime reports at start-up, not a kernel's fault, even beside a Tensile kernel name
    ("HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.\n",
     "Cijk_Ailk_Bljk_HHS_BH_MT64x64x64_ISA1201\n"),
])
def test_near_misses_stay_at_the_runtime(tmp_path, status, other):
    diag = _with_error_text(tmp_path, status + other)
    f = _hsa(diag)
    assert f is not None and f.layer == "runtime", problems(diag)


# -- MLIR's pass pipeline failing in Triton's compiler (1103) -------------------------------------------------------
@pytest.mark.parametrize("line", [
    "  error: Failures have been detected while processing an MLIR pass pipeline",  # 1103
    "note: Pipeline failed while executing [`TritonAMDGPUCanonicalizePointers` on 'tt.func' operation: @_kernel]: "
    "reproducer generated at `std::errs`, please share the reproducer above with Triton project.",
    "RuntimeError: PassManager::run failed",  # Triton's pass_manager binding (ROCm/triton#941's final error)
    "error: A failure has been detected while processing the MLIR module",  # MLIR's whole-module reproducer
    "Pipeline failed while executing [`TritonGPUToLLVM` on 'builtin.module' operation]: reproducer generated",
])
def test_an_mlir_pass_pipeline_failure_is_named(line):
    assert MLIR in _ids(line), line


@pytest.mark.parametrize("line", [
    "pipeline failed: stage 3 of the CI pipeline",  # a CI pipeline
    "MLIR_ENABLE_DUMP=1 python repro.py",  # the debug variable, not a failure
    "pm.run(mod, 'make_ttgir')",  # the traceback's source line
    "llama.cpp build pipeline failed while executing cmake",  # no MLIR pass operation
])
def test_near_misses_are_not_the_mlir_row(line):
    assert MLIR not in _ids(line), line


def test_the_mlir_row_is_at_framework():
    assert error_signatures.failure_layer(MLIR) == "framework"


# -- aiter's compiled JIT module without the op its sources load (1104) -----------------------------------------------
@pytest.mark.parametrize("line", [
    "AttributeError: module 'aiter.jit.module_aiter_core' has no attribute 'MlaVersion'",  # 1104
    "AttributeError: module 'aiter.jit.module_moe_asm' has no attribute 'fmoe_fp8_blockscale_g1u1'",
    "    AttributeError: module 'aiter.jit.module_rmsnorm' has no attribute 'rmsnorm2d_fwd_with_add'",
])
def test_a_stale_aiter_jit_module_is_named(line):
    assert AITER in _ids(line), line


@pytest.mark.parametrize("line", [
    "AttributeError: module 'torch.version' has no attribute 'rocm'",  # another module
    "AttributeError: module 'aiter' has no attribute 'gemm_a8w8'",  # the package, not a JIT module
    "ModuleNotFoundError: No module named 'aiter.jit.module_aiter_core'",  # a module not built yet (the JIT builds it)
])
def test_near_misses_are_not_the_aiter_row(line):
    assert AITER not in _ids(line), line


def test_the_aiter_row_is_at_packaging():
    assert error_signatures.failure_layer(AITER) == "packaging"


# -- a crash inside libamd_comgr (1107; 736 on Linux) ----------------------------------------------------------------
FRAME = ("0x00007FFAF6C3EA65, C:\\runner\\_work\\TheRock\\TheRock\\build\\bin\\amd_comgr0702.dll(0x00007FFAF57D0000) "
         "+ 0x146EA65 byte(s), amd_comgr_symbolize() + 0x1379325 byte(s)")


@pytest.mark.parametrize("text", [
    "Exception Code: 0x80000003\n" + FRAME + "\n",  # 1107
    "Exception Code: 0xC0000005\n0x00007FF1, C:\\x\\ucrtbase.dll(0x00007FF0) + 0x1 byte(s), raise() + 0x1 byte(s)\n"
    + FRAME + "\n",  # the comgr frame second
    "Unhandled exception at 0x00007FFB12345678 (amd_comgr_2.dll) in python.exe\n"
    "amd_comgr_2.dll + 0x3A1F2\n",  # Visual Studio's form
    "llama-server[4711]: segfault at 8 ip 00007f3a sp 00007ffd error 4 in libamd_comgr.so.3.0[7f3a+5000000]\n",  # 736
    "Faulting module name: amd_comgr0702.dll, version: 2.8.0.0, time stamp: 0x00000000\n",  # Windows' event log
])
def test_a_crash_in_comgr_is_named(text):
    assert COMGR in _ids(text), text


@pytest.mark.parametrize("text", [
    FRAME + "\n",  # a comgr frame without a crash before it (a debugger's listing)
    "Exception Code: 0x80000003\n0x1, C:\\x\\MIOpen.dll(0x0) + 0x18F3FC1 byte(s)\n0x2, C:\\x\\a.dll(0x0) + 0x1 byte(s)\n"
    "0x3, C:\\x\\b.dll(0x0) + 0x1 byte(s)\n" + FRAME + "\n",  # comgr deep in another library's crash
    "Loaded 'C:\\Windows\\System32\\amd_comgr0702.dll'. Symbols loaded.\n",  # a load, not a crash
    "MIOpen(HIP): Error [BuildOcl] comgr status = ERROR (1)\n",  # comgr returning an error (its own row)
])
def test_near_misses_are_not_the_comgr_row(text):
    assert COMGR not in _ids(text), text


def test_the_comgr_row_is_at_hip():
    assert error_signatures.failure_layer(COMGR) == "hip"
