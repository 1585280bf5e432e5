"""Held-out set BH (tests/data/real/1480-1484, HELDOUT.md): GPU programming on AMD outside Python.  The lines read from the
programs that print them: Julia's crash report (JuliaLang/julia src/signal-handling.c jl_critical_error and its backtrace
frames), AdaptiveCpp's HIP backend (src/runtime/hip/hip_code_object.cpp build_hip_module, hip_queue.cpp) and its plugin
loader (src/runtime/backend_loader.cpp), and the LLVM offload AMDGPU plugin's fatal message of ROCm 6.x (FATAL_MESSAGE,
offload/include/Shared/Debug.h)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, ids as _ids

JULIA = "s13bh_julia_signal_in_rocm_math_library"
ACPP = "s13bh_adaptivecpp_hip_could_not_create_module"
ACPP_PLUGIN = "s13bh_adaptivecpp_non_hip_backend_plugin_not_loaded"
OFFLOAD = "s13bh_offload_amdgpu_fatal_memory_access_fault"


@pytest.mark.parametrize("num,row,layer", [
    ("1480", JULIA, "libraries"),
    ("1482", ACPP, "hip"),
    ("1483", OFFLOAD, "runtime"),
])
def test_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


@pytest.mark.parametrize("text", [
    # Julia >= 1.10's header, the frames of AMDGPU.jl#987 (Ubuntu's packaged rocSPARSE)
    "[41230] signal 11 (1): Segmentation fault\nin expression starting at REPL[3]:1\n"
    "unknown function (ip: 0x7a1b2c3d4e5f) at /usr/lib/x86_64-linux-gnu/libamdhip64.so.7\n"
    "rocsparse_create_handle at /usr/lib/x86_64-linux-gnu/librocsparse.so.1 (unknown line)",
    # Julia before 1.10 ('signal (N): name'), a rocBLAS frame from an AMDGPU.jl artifact
    "signal (6): Aborted\nin expression starting at none:0\ngsignal at /usr/lib/libc.so.6 (unknown line)\n"
    "rocblas_gemm_ex at /home/u/.julia/artifacts/abc/rocblas/lib/librocblas.so.4 (unknown line)",
])
def test_julias_crash_through_a_rocm_library_is_named(text):
    assert JULIA in _ids(text), text


@pytest.mark.parametrize("text", [
    # a crash inside libamdhip64 alone (AMDGPU.jl#216): the HIP runtime's, not a math library's
    "signal (6): Aborted\nin expression starting at none:0\n"
    "hipStreamSynchronize at /home/deck/.julia/artifacts/b5a3/hip/lib/libamdhip64.so (unknown line)",
    # a crash with no ROCm frame
    "[99] signal 11 (1): Segmentation fault\nin expression starting at x.jl:3\njl_gc_collect at /opt/julia/lib/libjulia-internal.so.1.12 (unknown line)",
    # a library path without a crash
    "rocSPARSE        4.1.0  /usr/lib/x86_64-linux-gnu/librocsparse.so",
])
def test_near_misses_are_not_the_julia_row(text):
    assert JULIA not in _ids(text), text


@pytest.mark.parametrize("line", [
    "[AdaptiveCpp Error] from D:/source/AdaptiveCpp/src/runtime/hip/hip_code_object.cpp:67 @ build_hip_module(): "
    "hip_executable_object: could not create module (error code = HIP:218)",
    # hipSYCL's older prefix, another HIP error (209, hipErrorNoBinaryForGpu)
    "[hipSYCL Error] from /opt/hipSYCL/src/runtime/hip/hip_code_object.cpp:64 @ build_hip_module(): "
    "hip_executable_object: could not create module (error code = HIP:209)",
    "[AdaptiveCpp Error] from /src/runtime/hip/hip_queue.cpp:574 @ submit_multipass_kernel_from_code_object(): "
    "hip_queue: Code object construction failed",
])
def test_adaptivecpps_module_error_is_named(line):
    assert ACPP in _ids(line), line


@pytest.mark.parametrize("line", [
    "[AdaptiveCpp Error] hip_executable_object: could not unload module (error code = HIP:400)",
    "importlib: Could not create module spec for /tmp/x.py",
])
def test_near_misses_are_not_the_adaptivecpp_row(line):
    assert ACPP not in _ids(line), line


def test_non_hip_plugin_warnings_inform_and_the_hip_plugin_is_not_one_of_them():
    assert error_signatures.failure(ACPP_PLUGIN).severity == "info"
    for line in ("[AdaptiveCpp Warning] backend_loader: Could not load library: g:\\Temp\\amdtest\\hipSYCL\\rt-backend-cuda.dll with: 126",
                 "[AdaptiveCpp Warning] backend_loader: Could not load backend plugin: /opt/acpp/lib/hipSYCL/librt-backend-ze.so"):
        assert ACPP_PLUGIN in _ids(line), line
    assert ACPP_PLUGIN not in _ids(
        "[AdaptiveCpp Warning] backend_loader: Could not load backend plugin: /opt/acpp/lib/hipSYCL/librt-backend-hip.so")


@pytest.mark.parametrize("line", [
    "AMDGPU fatal error 1: Memory access fault by GPU 2 (agent 0x1280c060) at virtual address 0x7f0f8521b000. "
    "Reasons: Page not present or supervisor privilege, Write access to a read-only page",
    "AMDGPU fatal error 1: Memory access fault by GPU 0 (agent 0x5d3a0) at virtual address 0x7ffd2c000000. "
    "Reasons: Page not present or supervisor privilege",
])
def test_the_offload_plugins_older_fault_message_is_named(line):
    assert OFFLOAD in _ids(line), line


def test_the_newer_prefix_stays_with_its_own_row():
    line = ("OFFLOAD ERROR: memory access fault by GPU 1 (agent 0x18415920) at virtual address 0x7fffa7d19000. "
            "Reasons: Page not present or supervisor privilege")
    found = _ids(line)
    assert "offload_memory_access_fault" in found and OFFLOAD not in found
    # ROCr's own message is another row's
    assert OFFLOAD not in _ids("Memory access fault by GPU node-1 (Agent handle: 0x55f8b54eec30) on address 0x7f2a53193000. "
                               "Reason: Page not present or supervisor privilege.")
