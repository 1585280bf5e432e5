"""Held-out set DQ (tests/data/real/2310-2314, HELDOUT.md): CUDA code brought to AMD GPUs through translation layers
(SCALE, ZLUDA, HIPIFY).  Three fixtures missed their layer on the unchanged code; rows read from the printing programs'
sources now name them:
* dq_clang_driver_crash (packaging): the clang driver's crash banner (llvm/llvm-project clang/tools/driver/driver.cpp,
  setBugReportMsg "... and include the crash backtrace, preprocessed source, and associated run script.") and glibc's
  assert message of a clang process whose assertion is in LLVM's or clang's sources (SCALE's nvcc, 2310);
* dq_ggml_blas_call_failed (libraries): ggml_cuda_error's three lines when the failing statement is a cublas*/hipblas*
  call, whatever the status's wording (cuBLAS's cublasGetStatusString sentence in a CUDA build such as ZLUDA's, 2311);
* dq_zluda_device_basic_test_failed (framework): the AMD web UIs' ZLUDA device check (modules/zluda.py, 2313);
and dq_clang_no_cuda_installation (packaging) names clang's err_drv_no_cuda_installation, which 2314 (hipify-clang)
only had through the catch-all.  Detection: the web UIs' installer line 'ROCm: agents=[...]' (vladmandic/sdnext
installer.py, install_rocm_zluda) now names the GPU targets (2313's gfx803)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,row,layer", [
    ("2310", "dq_clang_driver_crash", "packaging"),
    ("2311", "dq_ggml_blas_call_failed", "libraries"),
    ("2313", "dq_zluda_device_basic_test_failed", "framework"),
    ("2314", "dq_clang_no_cuda_installation", "packaging"),
])
def test_the_set_dq_fixtures_are_named_and_lead_at_their_layer(num, row, layer):
    assert_named_and_leads(num, row, layer)


def test_the_zluda_memory_access_fault_leads_at_runtime():
    assert _lead_layer(_fixture("2312")) == "runtime"


@pytest.mark.parametrize("text", [
    # 2310 (spectral-compute/scale-validation#42): SCALE's clang, its own report address
    "PLEASE submit a bug report to help@spectralcompute.co.uk and include the crash backtrace, preprocessed source, "
    "and associated run script.",
    "clang: /workspace/spectral-compute/scale/llvm-project/llvm/include/llvm/Support/Casting.h:662: decltype(auto) "
    "llvm::dyn_cast(From *) [To = PtxSRegOperand, From = PtxOperand]: Assertion `detail::isPresent(Val) && "
    "\"dyn_cast on a non-existent value\"' failed.",
    # upstream clang++ with assertions (llvm/llvm-project#183501)
    "clang++: /root/llvm-project/llvm/tools/clang/include/clang/AST/Expr.h:3151: clang::Expr* "
    "clang::CallExpr::getArg(unsigned int): Assertion `Arg < getNumArgs() && \"Arg access out of range!\"' failed.",
    "PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ and include the crash backtrace, "
    "preprocessed source, and associated run script.",
])
def test_the_clang_driver_crash_is_read_at_packaging(text):
    assert "dq_clang_driver_crash" in _ids(text)
    assert error_signatures.failure_layer("dq_clang_driver_crash") == "packaging"


@pytest.mark.parametrize("text", [
    # LLVM's default message, printed by tools and in-process users of LLVM (comgr, Triton), not the clang driver
    "PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ and include the crash backtrace.",
    # an assertion in LLVM's sources inside another process, Triton's LLVM in python (a constructed line)
    "python3: /root/.triton/llvm/llvm-project/llvm/lib/IR/Instructions.cpp:2857: Assertion `castIsValid(op, S, Ty) "
    "&& \"Invalid cast!\"' failed.",
    # the driver's follow-up names no crash of its own
    "clang++: error: clang frontend command failed due to signal (use -v to see invocation)",
])
def test_lines_that_are_not_the_clang_driver_crash(text):
    assert "dq_clang_driver_crash" not in _ids(text)


@pytest.mark.parametrize("text", [
    # 2311 (vosen/ZLUDA#604): CUDA 13.1 build under ZLUDA, cuBLAS's sentence for CUBLAS_STATUS_ARCH_MISMATCH
    "CUDA error: the function requires an architectural feature absent from the device\n"
    "  current device: 0, in function ggml_cuda_op_mul_mat_cublas at C:\\llamaZLUDA\\llama.cpp\\ggml\\src\\ggml-cuda"
    "\\ggml-cuda.cu:1333\n"
    "  cublasGemmEx(ctx.cublas_handle(id), CUBLAS_OP_T, CUBLAS_OP_N, row_diff, src1_ncols, ne10)\n",
    # ggml-org/ggml#926: the batched GEMM
    "CUDA error: the function failed to launch on the GPU\n"
    "  current device: 0, in function ggml_cuda_mul_mat_batched_cublas at /home/isodden/work/C/stable-diffusion.cpp"
    "/ggml/src/ggml-cuda.cu:1881\n"
    "  cublasGemmBatchedEx(ctx.cublas_handle(), CUBLAS_OP_T, CUBLAS_OP_N, ne01, ne11, ne10, alpha)\n",
    # ggml-org/llama.cpp#25061: the same lines under a logger's time stamp and level
    "38.24.611.605 E CUDA error: an unsupported value or parameter was passed to the function\n"
    "38.24.611.612 E   current device: 0, in function ggml_cuda_op_mul_mat_cublas at /opt/llama.cpp-beta/ggml/src"
    "/ggml-cuda/ggml-cuda.cu:1774\n"
    "38.24.611.613 E   cublasSgemm_v2(ctx.cublas_handle(id), CUBLAS_OP_T, CUBLAS_OP_N, row_diff, src1_ncols, ne10)\n",
])
def test_ggml_reports_of_a_failed_blas_call_are_read_at_libraries(text):
    assert "dq_ggml_blas_call_failed" in _ids(text)
    assert error_signatures.failure_layer("dq_ggml_blas_call_failed") == "libraries"


def test_a_ggml_error_of_a_cuda_runtime_call_is_not_a_blas_failure():
    # vosen/ZLUDA#102: the failing statement is cudaGetLastError, not a BLAS call
    text = ("CUDA error: operation not supported\n"
            "  current device: 0, in function ggml_cuda_op_flatten at ggml-cuda.cu:9208\n"
            "  cudaGetLastError()\n")
    assert "dq_ggml_blas_call_failed" not in _ids(text)


@pytest.mark.parametrize("text", [
    # 2313's title (lshqqytiger/stable-diffusion-webui-amdgpu#639)
    "[Bug]: Error:ZLUDA device failed to pass basic operation test: index=None, device_name=Radeon RX550/550 Series "
    "[ZLUDA]",
    # CS1o/Stable-Diffusion-Info#41 and lshqqytiger/stable-diffusion-webui-amdgpu#540
    "ZLUDA device failed to pass basic operation test: index=0, device_name=AMD Radeon RX 6800 XT [ZLUDA]",
    "`ZLUDA device failed to pass basic operation test: index=None, device_name=AMD Radeon RX 7800 XT [ZLUDA]`",
])
def test_the_zluda_device_check_is_read_at_framework(text):
    assert "dq_zluda_device_basic_test_failed" in _ids(text)
    assert error_signatures.failure_layer("dq_zluda_device_basic_test_failed") == "framework"


@pytest.mark.parametrize("text", [
    # a working ZLUDA device (lshqqytiger/stable-diffusion-webui-amdgpu-forge#81) and the loader's own failure line
    "Device: cuda:0 AMD Radeon RX 6600 XT [ZLUDA] : native",
    "Failed to load ZLUDA: list index out of range",
])
def test_lines_that_are_not_the_zluda_device_check(text):
    assert "dq_zluda_device_basic_test_failed" not in _ids(text)


@pytest.mark.parametrize("text", [
    # 2314 (ROCm/HIPIFY#92, Fedora 42, clang 19) and ROCm/HIPIFY#1253 (Windows, clang 14)
    "error: cannot find CUDA installation; provide its path via '--cuda-path', or pass '-nocudainc' to build without "
    "CUDA includes",
    # clang before 12 (AdaptiveCpp/AdaptiveCpp#105)
    "clang: error: cannot find CUDA installation.  Provide its path via --cuda-path, or pass -nocudainc to build "
    "without CUDA includes.",
])
def test_clang_finding_no_cuda_installation_is_read_at_packaging(text):
    assert "dq_clang_no_cuda_installation" in _ids(text)
    assert error_signatures.failure_layer("dq_clang_no_cuda_installation") == "packaging"


@pytest.mark.parametrize("text", [
    "clang: error: cannot find libdevice for sm_52. Provide path to different CUDA installation via --cuda-path, or "
    "pass -nocudalib to build without linking with libdevice.",
    "Found CUDA installation: /usr/local/cuda-10.1, version 10.1",
])
def test_lines_that_are_not_a_missing_cuda_installation(text):
    assert "dq_clang_no_cuda_installation" not in _ids(text)


@pytest.mark.parametrize("line,gfx", [
    # lshqqytiger/stable-diffusion-webui-amdgpu#624 (a target feature after the name) and -forge#81
    ("ROCm: agents=['gfx1010:xnack-']", ["gfx1010"]),
    ("ROCm: agents=['gfx1032']", ["gfx1032"]),
    # the installer's other outcome names no agent
    ("ROCm: no agent was found", []),
])
def test_the_web_ui_installers_agent_list_names_the_gpu_targets(line, gfx):
    # (detection, 2313) vladmandic/sdnext installer.py install_rocm_zluda: log.info(f'ROCm: agents={[...]}')
    assert [g.gfx_target for g in paste_facts.parse(line).gpus if g.gfx_target] == gfx
