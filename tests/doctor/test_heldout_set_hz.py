"""Held-out set HZ (tests/data/real/3290-3294, HELDOUT.md): a fourth theme-neutral sample of ROCm's new trackers
(ROCm/TheRock, ROCm/rocm-systems, ROCm/rocm-libraries).  Two fixtures missed their layer on the unchanged code:

* 3291: rocRoller's own exception escaping rocroller-tests on a gfx1150 runner ("terminate called after throwing an
  instance of 'rocRoller::FatalError'" / "Invalid fromString: type name: N9rocRoller18GPUArchitectureGFXE, string
  input: gfx1150"; ROCm/rocm-libraries shared/rocroller Utilities/Error.hpp and Enum.hpp fromString), read by the
  catch-all at framework.  Rows `hz_rocroller_unknown_gpu_architecture` and `hz_rocroller_exception_uncaught`
  (libraries).
* 3292: hipBLASLt's configure refusing a GPU target ("CMake Error at cmake/tensilelite_supported_architectures.cmake:81
  (message):" / "Unsupported GPU target: gfx1152"; rocm-libraries projects/hipblaslt/cmake/
  tensilelite_supported_architectures.cmake tensilelite_validate_gpu_targets, the same check in rocSPARSE's, rocBLAS's
  and Tensile's cmake), read by the catch-all at libraries.  Row `hz_rocm_lib_cmake_unsupported_gpu_target` (packaging).
"""
from __future__ import annotations

import pytest

from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("3290", "hip"), ("3293", "hip"), ("3294", "libraries")])
def test_the_set_hz_fixtures_that_led_before_still_lead(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row,layer", [
    ("3291", "hz_rocroller_unknown_gpu_architecture", "libraries"),
    ("3291", "hz_rocroller_exception_uncaught", "libraries"),
    ("3292", "hz_rocm_lib_cmake_unsupported_gpu_target", "packaging"),
])
def test_the_fixed_fixtures_are_named_by_their_row_and_lead(num, row, layer):
    assert_named_and_leads(num, row, layer)


@pytest.mark.parametrize("text", [
    # the fixture's what() line (ROCm/rocm-libraries#3377, TheRock CI on gfx1150)
    "  what():  Invalid fromString: type name: N9rocRoller18GPUArchitectureGFXE, string input: gfx1150",
    # the same throw on a gfx1102 runner (ROCm/TheRock#6693, rockrel nightly 2026-07: 'GPUArchitectureGFX::fromString
    # rejects gfx1102'), Enum.hpp's message with that target
    "  what():  Invalid fromString: type name: N9rocRoller18GPUArchitectureGFXE, string input: gfx1102",
    # the type name demangled (the row takes both spellings of typeName<T>())
    "what():  Invalid fromString: type name: rocRoller::GPUArchitectureGFX, string input: gfx1153",
])
def test_rocroller_unknown_architecture_wordings(text):
    assert "hz_rocroller_unknown_gpu_architecture" in _ids(text)


@pytest.mark.parametrize("text", [
    # another enum of rocRoller's: a data type, not the GPU (Enum.hpp's same throw for DataType)
    "  what():  Invalid fromString: type name: N9rocRoller8DataTypeE, string input: fp8x",
    # some other library's parser
    "ValueError: Invalid fromString: string input: gfx1150",
])
def test_other_fromstring_failures_are_not_the_architecture_row(text):
    assert "hz_rocroller_unknown_gpu_architecture" not in _ids(text)


@pytest.mark.parametrize("text", [
    "terminate called after throwing an instance of 'rocRoller::FatalError'",          # the fixture (rocm-libraries#3377)
    "terminate called after throwing an instance of 'rocRoller::RecoverableError'",    # Error.hpp's other type
    "terminate called after throwing an instance of 'rocRoller::Error'",               # the base type
])
def test_rocroller_uncaught_exception_wordings(text):
    assert "hz_rocroller_exception_uncaught" in _ids(text)


@pytest.mark.parametrize("text", [
    "terminate called after throwing an instance of 'std::runtime_error'",
    "terminate called after throwing an instance of 'migraphx::version_2_10_0::exception'",
    "[rocRoller] FatalError count: 0",
])
def test_other_uncaught_exceptions_are_not_rocrollers(text):
    assert "hz_rocroller_exception_uncaught" not in _ids(text)


@pytest.mark.parametrize("text", [
    # the fixture's header (ROCm/TheRock#2221, Windows release nightly, GitHub Actions timestamp)
    "2025-11-20T04:49:42.3835448Z CMake Error at cmake/tensilelite_supported_architectures.cmake:81 (message):",
    # its message line as CMake indents it (the reporter's ** inside the code block)
    "2025-11-20T04:49:42.4018210Z   **Unsupported GPU target: gfx1152**",
    # rocSPARSE's copy of the check (projects/rocsparse/cmake/rocsparse_supported_architectures.cmake), full path
    "CMake Error at /src/rocm-libraries/projects/rocsparse/cmake/rocsparse_supported_architectures.cmake:57 (message):",
    # the message line for gfx1031 (a standalone hipBLASLt configure; a TheRock user's build notes quote it)
    "  Unsupported GPU target: gfx1031",
    # an xnack-qualified target
    "  Unsupported GPU target: gfx90a:xnack+",
])
def test_rocm_library_unsupported_target_wordings(text):
    assert "hz_rocm_lib_cmake_unsupported_gpu_target" in _ids(text)


@pytest.mark.parametrize("text", [
    "nvcc fatal   : Unsupported gpu architecture 'compute_86'",                        # NVIDIA's compiler
    "CMake Error at cmake/EvalGpuArchs.cmake:64 (message):",                           # cuML's arch probe
    "Unsupported GPU target: rtx4090",                                                 # not an AMD target
    "CMake Error at cmake/tensilelite_supported_architectures.py:81",                  # not a CMake listfile
])
def test_other_target_refusals_are_not_the_row(text):
    assert "hz_rocm_lib_cmake_unsupported_gpu_target" not in _ids(text)
