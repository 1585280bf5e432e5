"""Held-out set X (tests/data/real/810-820, HELDOUT.md): training, distributed work and the libraries under them.
Each miss's cause fixed from the program that prints the line: LLVM's AMDGPU instruction selection (a kernel asking
for an instruction the target lacks), clang's summary of a failed device-code compile, a crash inside a ROCm math
library, bitsandbytes' choice of its native library by torch's ROCm release, hipBLAS' success status (no failure),
RCCL's own missing kernels; tested on the fixture and on other wordings of the same source, with near misses."""
from __future__ import annotations

from pathlib import Path

import pytest

from rocm_wizard.detect import error_signatures
from rwtest import realrun
from rwtest.heldout import assert_named_and_leads, doctor_files, fixture, ids as _ids, lead_layer, problems


# -- LLVM cannot select an AMDGPU intrinsic (810) --------------------------------------------------------------
ROW_ISEL = "s10x_llvm_cannot_select_amdgpu_intrinsic"


def test_810_the_llvm_abort_is_named_at_framework():
    # the lead stays the missing override (runtime, a deeper root cause than the label's): only named here
    folder = fixture("810")
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.txt")))
    assert ROW_ISEL in _ids(text)
    assert error_signatures.failure_layer(ROW_ISEL) == "framework"
    found = [(f.id, f.layer) for f in realrun.diagnosis(folder).findings if f.severity in ("warning", "error", "critical")]
    assert ("known-failure", "framework") in found, found
    # a deeper finding may lead (the GPU's target has no official kernels): never a layer downstream of it
    assert lead_layer(folder) in ("runtime", "framework")


@pytest.mark.parametrize("line", [
    "LLVM ERROR: Cannot select: intrinsic %llvm.amdgcn.fdot2.bf16.bf16",
    # clang reports report_fatal_error as an error in the back end
    "fatal error: error in backend: Cannot select: intrinsic %llvm.amdgcn.fdot2.f32.bf16",
    # a matrix-core intrinsic on a target without matrix cores, in a Triton compile log
    "  File \"/x/triton/backends/amd/compiler.py\", line 400  LLVM ERROR: Cannot select: intrinsic "
    "%llvm.amdgcn.mfma.f32.32x32x8bf16.1k",
])
def test_llvm_cannot_select_amdgpu_intrinsic_wordings(line):
    assert ROW_ISEL in _ids(line), line


@pytest.mark.parametrize("line", [
    # a CPU intrinsic: not the GPU's target
    "LLVM ERROR: Cannot select: intrinsic %llvm.x86.avx512.mask.cvtps2dq.512",
    # a DAG node, not an AMDGPU intrinsic (a compiler bug rather than a missing instruction)
    "fatal error: error in backend: Cannot select: 0x576c0c8: v2i64 = bitcast 0x57a5a30",
])
def test_llvm_cannot_select_near_misses(line):
    assert ROW_ISEL not in _ids(line), line


# -- clang's summary of a device-code compile that failed (816) -------------------------------------------------
ROW_COMPILE = "s10x_hip_device_code_compile_errors"


def test_816_the_device_compile_failure_leads_at_libraries():
    assert_named_and_leads("816", ROW_COMPILE, "libraries")


@pytest.mark.parametrize("line", [
    "20 errors generated when compiling for gfx1201",
    "9 warnings and 2 errors generated when compiling for gfx942.",
    "1 error generated when compiling for gfx90a.",
    "  4 errors generated when compiling for gfx1100.                         ",
])
def test_device_compile_summary_wordings(line):
    assert ROW_COMPILE in _ids(line), line


@pytest.mark.parametrize("line", [
    "1 warning generated when compiling for gfx942.",  # warnings only: the build goes on
    "1 error generated when compiling for host.",  # the host pass, not the GPU's code
    "1 error generated when compiling for mp_31.",  # another vendor's device
])
def test_device_compile_summary_near_misses(line):
    assert ROW_COMPILE not in _ids(line), line


# -- a crash inside a ROCm math library (814) --------------------------------------------------------------------
ROW_CRASH = "s10x_crash_in_rocm_math_library"


def test_814_the_hipblaslt_crash_leads_at_libraries():
    assert_named_and_leads("814", ROW_CRASH, "libraries")


@pytest.mark.parametrize("line", [
    "[Issue]: [hipblaslt] gfx1201: SIGSEGV in hipblaslt_f8::is_inf via hipblasLtMatmulAlgoGetHeuristic",
    # the kernel's own line for a process that faulted in a library (arch/x86/mm/fault.c, show_signal_msg)
    "[ 8123.456789] python3[40211]: segfault at 18 ip 00007f3c2a1b2c3d sp 00007ffd1e2f3a40 error 4 in "
    "libhipblaslt.so.1[7f3c29e00000+2400000] likely on CPU 7 (core 3, socket 0)",
    "Sep 04 10:11:12 host kernel: ollama[2210]: segfault at 0 ip 00007f11aa22bb33 sp 00007f0f8c7fd2a0 error 4 in "
    "librocblas.so.5[7f11a9000000+3000000]",
    "Thread 1 received signal SIGSEGV at rocblas_gemm_ex",
])
def test_crash_in_rocm_math_library_wordings(line):
    assert ROW_CRASH in _ids(line), line


@pytest.mark.parametrize("line", [
    "python3[40211]: segfault at 18 ip 00007f3c2a1b2c3d sp 00007ffd1e2f3a40 error 4 in libc.so.6[7f3c29e00000+1ad000]",
    "Segmentation fault (core dumped)",
    "SIGSEGV in hipMemcpyAsync",  # the HIP runtime's own call: not a math library
])
def test_crash_in_rocm_math_library_near_misses(line):
    assert ROW_CRASH not in _ids(line), line


# -- hipBLAS' success status is no failure (815) -------------------------------------------------------------------
def test_hipblas_success_is_not_a_hipblas_failure():
    assert "hipblas_status" not in _ids("hipblasGemmEx = HIPBLAS_STATUS_SUCCESS")
    assert "hipblas_status" not in _ids("ATTN_HIPBLAS_STATUS=HIPBLAS_STATUS_SUCCESS")
    for bad in ("RuntimeError: CUDA error: HIPBLAS_STATUS_NOT_SUPPORTED when calling `hipblasGemmEx(...)`",
                "HIPBLAS_STATUS_INVALID_VALUE when calling `hipblasLtMatmulAlgoGetHeuristic(...)`",
                "HIPBLAS_STATUS_SUCCESSFUL_ISH"):  # a longer name is not SUCCESS
        assert "hipblas_status" in _ids(bad), bad


# -- bitsandbytes without a native library for torch's ROCm (820) -----------------------------------------------
SIG_BNB = "bnb_no_library_for_torch_rocm"


def test_820_the_missing_bitsandbytes_library_leads_at_framework():
    assert_named_and_leads("820", SIG_BNB, "framework")


def test_bnb_listing_without_torchs_rocm_library():
    # ls -l of the package directory, torch.version.hip's form
    text = ("$ python -c 'import torch; print(torch.version.hip)'\ntorch.version.hip: 6.3.42131-fa1d09cbd\n"
            "$ ls -l venv/lib/python3.12/site-packages/bitsandbytes/\n"
            "-rwxr-xr-x 1 u u 5102344 Sep  1 12:00 libbitsandbytes_cpu.so\n"
            "-rwxr-xr-x 1 u u 61023448 Sep  1 12:00 libbitsandbytes_rocm62.so\n"
            "-rwxr-xr-x 1 u u 61023448 Sep  1 12:00 libbitsandbytes_rocm64.so\n")
    assert SIG_BNB in _ids(text)


@pytest.mark.parametrize("text", [
    # the library of torch's ROCm is there
    "PyTorch: 2.6.0+rocm6.1\nlibbitsandbytes_rocm61.so\nlibbitsandbytes_rocm64.so\n",
    # a path of the listing names it
    "torch 2.9.1+rocm6.4\n/opt/venv/lib/python3.12/site-packages/bitsandbytes/libbitsandbytes_rocm64.so\n"
    "/opt/venv/lib/python3.12/site-packages/bitsandbytes/libbitsandbytes_rocm72.so\n",
    # no listing at all: the user's sentence names a file, no library is listed
    "PyTorch: 2.6.0+rocm6.1\nThere is no libbitsandbytes_rocm61.so, only libbitsandbytes_rocm64.so here.\n",
    # no torch ROCm release in the text
    "libbitsandbytes_rocm64.so\nlibbitsandbytes_rocm72.so\n",
])
def test_bnb_listing_near_misses(text):
    assert SIG_BNB not in _ids(text), text


# -- RCCL's own missing kernels (818) -------------------------------------------------------------------------------
def test_818_rccls_invalid_device_function_is_the_collective_librarys():
    assert lead_layer(fixture("818")) == "libraries"


def test_rccl_warn_invalid_device_function_is_at_libraries(tmp_path: Path):
    diag = doctor_files(tmp_path, {"rccl.txt": (
        "host:1234:1250 [0] /long/rccl/src/enqueue.cc:1820 NCCL WARN HIP failure 'invalid device function'\n"
        "host:1234:1250 [0] NCCL INFO enqueue.cc:1980 -> 1\n")})
    found = problems(diag)
    assert ("no-binary-for-gpu", "libraries") in found, found
    assert ("no-binary-for-gpu", "hip") not in found, found


def test_a_frameworks_invalid_device_function_stays_at_hip(tmp_path: Path):
    diag = doctor_files(tmp_path, {"torch.txt": (
        "RuntimeError: HIP error: invalid device function\n"
        "HIP kernel errors might be asynchronously reported at some other API call\n")})
    found = problems(diag)
    assert ("no-binary-for-gpu", "hip") in found, found


# -- the override advice does not lead a failure it cannot cure (810) ----------------------------------------------
def _severity(folder: Path, rule_id: str):
    f = realrun.diagnosis(folder).finding(rule_id)
    return f.severity if f is not None else None


def test_810_the_override_is_advice_when_the_failure_is_the_frameworks():
    assert _severity(fixture("810"), "hsa-override-missing") == "info"
    assert lead_layer(fixture("810")) == "framework"


@pytest.mark.parametrize("num, shown", [("383", "hip"), ("320", "libraries")])
def test_the_override_follows_the_missing_kernels_it_may_cure(num, shown):
    # 'invalid device function' (hip) and rocBLAS's missing Tensile files (libraries) lead: the failure the paste
    # shows; the override is still a warning, a statement of support that follows it (model.STATUS_RULES, s12)
    assert _severity(fixture(num), "hsa-override-missing") == "warning"
    assert lead_layer(fixture(num)) == shown


# -- an APU out of GPU memory at the kernel's GTT size (482, held-out set H) ---------------------------------------
ROW_GTT = "s10x_kernel_gtt_memory_ready"
STRIX_ROCMINFO = ("*******\nAgent 2\n*******\n  Name:                    gfx1151\n"
                  "  Marketing Name:          AMD Radeon 8060S Graphics\n  Vendor Name:             AMD\n"
                  "  Feature:                 KERNEL_DISPATCH\n")


def test_482_the_gtt_ceiling_leads_at_kernel():
    assert lead_layer(fixture("482")) == "kernel"
    assert ("apu-gtt-ceiling", "kernel") in problems(realrun.diagnosis(fixture("482")))


@pytest.mark.parametrize("line", [
    "[    1.768086] amdgpu 0000:bd:00.0:  63968M of GTT memory ready.",
    "[    4.087965] [drm] amdgpu: 7400M of GTT memory ready.",  # older kernels: DRM_INFO("amdgpu: ...")
    "Feb 11 13:43:16 kernel: [drm] amdgpu: 14960M of GTT memory ready.",
])
def test_gtt_line_wordings(line):
    assert ROW_GTT in _ids(line), line


def test_gtt_row_near_misses():
    assert ROW_GTT not in _ids("[drm] amdgpu: 1024M of VRAM memory ready")
    assert error_signatures.failure(ROW_GTT).severity == "info"  # a size, no failure


def test_apu_oom_with_the_gtt_line_gives_the_ceiling(tmp_path: Path):
    diag = doctor_files(tmp_path, {"rocminfo.txt": STRIX_ROCMINFO,
                                   "dmesg.txt": "[    3.1] amdgpu 0000:c5:00.0:  65536M of GTT memory ready.\n",
                                   "run.txt": "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 4.00 GiB. "
                                              "GPU 0 has a total capacity of 64.00 GiB of which 1.2 GiB is free.\n"})
    assert ("apu-gtt-ceiling", "kernel") in problems(diag), problems(diag)


def test_apu_gtt_line_without_an_out_of_memory_is_no_finding(tmp_path: Path):
    diag = doctor_files(tmp_path, {"rocminfo.txt": STRIX_ROCMINFO,
                                   "dmesg.txt": "[    3.1] amdgpu 0000:c5:00.0:  65536M of GTT memory ready.\n"})
    assert "apu-gtt-ceiling" not in [f.id for f in diag.findings]
    assert not problems(diag), problems(diag)


def test_a_discrete_gpus_out_of_memory_is_not_the_gtt_ceiling(tmp_path: Path):
    diag = doctor_files(tmp_path, {
        "rocminfo.txt": STRIX_ROCMINFO.replace("gfx1151", "gfx1100").replace("AMD Radeon 8060S Graphics",
                                                                            "Radeon RX 7900 XTX"),
        "dmesg.txt": "[    3.1] amdgpu 0000:03:00.0:  32000M of GTT memory ready.\n",
        "run.txt": "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 4.00 GiB.\n"})
    assert "apu-gtt-ceiling" not in [f.id for f in diag.findings]
