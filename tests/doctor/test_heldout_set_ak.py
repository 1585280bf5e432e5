"""Held-out set AK (tests/data/real/1020-1027, HELDOUT.md): PyTorch on ROCm in 2026.
The misses had two causes, fixed generally and tested on the fixtures, other wordings and near-misses:
* a Windows access violation (0xC0000005) inside a ROCm math library was unknown (1024): catalogue row
  ``s11ak_access_violation_in_rocm_library`` (Windows' STATUS_ACCESS_VIOLATION named with the library, or a crash
  stack's frame in the library's DLL);
* advice about a second, unsupported GPU led a library failure of the supported device 0 (1022): doctor's GPU views
  read an APU-only target (gfx1036 named only "AMD Radeon Graphics") as integrated, and ``mixed-gpu-left-out`` is a
  note when the supported GPU is ROCm's first device and every failure shown sits above the runtime without naming
  the left-out target."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.doctor import diagnose
from rwtest.heldout import doctor_files, ids as _ids, lead_layer as _lead_layer
from rwtest.heldout import fixture as _fixture

PROBLEM = ("warning", "error", "critical")
ROW = "s11ak_access_violation_in_rocm_library"


@pytest.mark.parametrize("num", ["1022", "1023", "1024"])
def test_the_library_fixtures_lead_at_libraries(num):
    diag = diagnose(detect_snapshot(str(_fixture(num))))
    found = [(f.id, f.layer) for f in diag.findings if f.severity in PROBLEM]
    assert ("known-failure", "libraries") in found, found
    assert _lead_layer(_fixture(num)) == "libraries"


# -- a Windows access violation inside a ROCm library (1024) ------------------------------------------
@pytest.mark.parametrize("line", [
    # 1024: the crash stack's top frame, in hipBLASLt's DLL
    "libhipblaslt.dll + 0x4416EE, hipblasLtMatmulAlgoGetHeuristic() + 0x10E",
    # 1024: the title
    "[Issue]: Access violation (0xC0000005) in bmm/baddbmm on gfx1201 (RX 9070 XT) under Windows, crashes in both "
    "hipBLASLt and rocBLAS",
    # the same stack with TORCH_BLAS_PREFER_HIPBLASLT=0 (rocBLAS), numbered
    "#0 rocblas.dll + 0x1A2B3C, rocblas_sgemm() + 0x4F",
    # MIOpen's DLL, no symbol
    "MIOpen.dll + 0x00ABCDEF",
    # the exit code as a launcher prints it, in decimal, with the library
    "Process exited with code 3221225477 (access violation) inside rocblas.dll while running the text encoder",
    "Exception Code: 0xC0000005 at hipblasLtMatmul in libhipblaslt.dll",
])
def test_an_access_violation_in_a_rocm_library_is_named(line):
    assert ROW in _ids(line), line


@pytest.mark.parametrize("line", [
    # Python's faulthandler names the exception, not the module: no library to blame
    "Windows fatal exception: access violation",
    # an access violation in another vendor's driver
    "Exception code 0xC0000005: access violation in nvoglv64.dll",
    # torch's own frames in the same stack are not a ROCm library
    "torch_hip.dll + 0x2276377, structured_baddbmm_out_cuda::impl() + 0xBF7",
    # a DLL named without a crash frame
    "Loaded rocblas.dll from C:\\venv\\Lib\\site-packages\\_rocm_sdk_libraries_custom\\bin",
    # the Linux crash has its own row
    "python3[4711]: segfault at 0 ip 00007f00 sp 00007ffd error 4 in libhipblaslt.so.1[7f00+100000]",
])
def test_near_misses_are_not_the_access_violation_row(line):
    assert ROW not in _ids(line), line


def test_the_access_violation_row_is_at_libraries():
    assert error_signatures.failure_layer(ROW) == "libraries"


# -- a second, unsupported GPU beside a failing supported device 0 (1022) -----------------------------
RX7600_THEN_IGPU = """GPU:
  Name:                    AMD Ryzen 7 9700X 8-Core Processor
  Marketing Name:          AMD Ryzen 7 9700X 8-Core Processor
  Name:                    gfx1102
  Marketing Name:          AMD Radeon RX 7600
      Name:                    amdgcn-amd-amdhsa--gfx1102
  Name:                    gfx1036
  Marketing Name:          AMD Radeon Graphics
      Name:                    amdgcn-amd-amdhsa--gfx1036
"""
IGPU_THEN_RX7600 = """GPU:
  Name:                    gfx1036
  Marketing Name:          AMD Radeon Graphics
      Name:                    amdgcn-amd-amdhsa--gfx1036
  Name:                    gfx1102
  Marketing Name:          AMD Radeon RX 7600
      Name:                    amdgcn-amd-amdhsa--gfx1102
"""
HIPBLASLT = "RuntimeError: CUDA error: HIPBLAS_STATUS_INVALID_VALUE when calling hipblasLtMatmulAlgoGetHeuristic\n"


def _severity(diag, rid):
    return next((f.severity for f in diag.findings if f.id == rid), None)


def test_1022_the_igpu_advice_is_a_note_and_no_override_is_proposed_for_it():
    diag = diagnose(detect_snapshot(str(_fixture("1022"))))
    assert _severity(diag, "mixed-gpu-left-out") == "info"
    assert _severity(diag, "hsa-override-missing") is None


def test_a_library_failure_of_the_first_supported_gpu_is_led_by_itself(tmp_path):
    diag = doctor_files(tmp_path, {"specs.txt": RX7600_THEN_IGPU, "error.txt": HIPBLASLT})
    assert _severity(diag, "mixed-gpu-left-out") == "info"
    lead = next(f for f in diag.findings if f.severity in PROBLEM)
    assert lead.layer == "libraries", (lead.id, lead.layer)


def test_the_advice_still_leads_when_the_unsupported_gpu_is_device_0(tmp_path):
    diag = doctor_files(tmp_path, {"specs.txt": IGPU_THEN_RX7600, "error.txt": HIPBLASLT})
    assert _severity(diag, "mixed-gpu-left-out") == "warning"


def test_the_advice_still_leads_when_the_failure_names_the_unsupported_target(tmp_path):
    err = ("rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory "
           "for GPU arch : gfx1036\n")
    diag = doctor_files(tmp_path, {"specs.txt": RX7600_THEN_IGPU, "error.txt": err})
    assert _severity(diag, "mixed-gpu-left-out") == "warning"


def test_the_advice_still_leads_below_the_libraries(tmp_path):
    err = "RuntimeError: HIP error: invalid device function\n"
    diag = doctor_files(tmp_path, {"specs.txt": RX7600_THEN_IGPU, "error.txt": err})
    assert _severity(diag, "mixed-gpu-left-out") == "warning"


def test_an_apu_only_target_alone_still_gets_the_override_advice(tmp_path):
    only = """GPU:
  Name:                    gfx1036
  Marketing Name:          AMD Radeon Graphics
      Name:                    amdgcn-amd-amdhsa--gfx1036
"""
    diag = doctor_files(tmp_path, {"specs.txt": only, "error.txt": "RuntimeError: HIP error: invalid device function\n"})
    assert _severity(diag, "hsa-override-missing") in PROBLEM
