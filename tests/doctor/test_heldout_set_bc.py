"""Held-out set BC (tests/data/real/1380-1387, HELDOUT.md): GPU compute on AMD beyond machine learning in 2026
(Blender, hashcat, darktable with rusticl, oxDNA, Kokkos/LAMMPS, a HIP game mod).
The misses' causes, each from the program that prints the line: hashcat's HIP backend wrappers and its kernel
report (hashcat src/ext_hip.c, ext_hiprtc.c, backend.c), darktable's OpenCL program build (src/common/opencl.c) and
the OpenCL API's CL_BUILD_PROGRAM_FAILURE (Khronos CL/cl.h), and Mesa's loader failing to identify a GPU's DRM node
(mesa src/loader/loader.c).  Each is tested on the fixture, on other wordings of the same source and on near-misses
that must not match.  1383 (HSA_STATUS_ERROR_INVALID_ISA led at the runtime, its code's layer named second) is left
as it is: the paste cannot tell a build for another target from an override only the prose names (974)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest import realrun
from rwtest.heldout import (assert_named_and_leads, doctor_files, fixture as _fixture, ids as _ids,
                            lead_layer as _lead_layer, problems)

HASHCAT_HIP = "s13bc_hashcat_hip_call_failed"
HASHCAT_KERNEL = "s13bc_hashcat_kernel_create_failed"
DARKTABLE = "s13bc_darktable_opencl_program_build_failed"
CL_BUILD = "s13bc_opencl_build_program_failure"
MESA = "s13bc_mesa_loader_device_unidentified"


# -- the fixtures: every one leads at its labelled layer ---------------------------------------------
@pytest.mark.parametrize("num,layer", [("1380", "packaging"), ("1381", "hip"), ("1382", "hip"),
                                       ("1384", "runtime"), ("1385", "hip"), ("1386", "runtime"), ("1387", "hip")])
def test_the_set_bc_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row,layer", [
    ("1381", HASHCAT_HIP, "hip"),
    ("1381", HASHCAT_KERNEL, "hip"),
    ("1384", DARKTABLE, "runtime"),
    ("1384", CL_BUILD, "runtime"),
    ("1386", MESA, "runtime"),
])
def test_the_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


@pytest.mark.parametrize("num", ["1381", "1384", "1386"])
def test_no_line_of_the_fixture_is_left_unnamed(num):
    assert not [p for p in problems(realrun.diagnosis(_fixture(num))) if p[0] == "unrecognised-failure"]


# -- hashcat's HIP backend: '<HIP call>(): <HIP's error string or number>' (1381) ---------------------
@pytest.mark.parametrize("line", [
    "hipModuleGetFunction(): named symbol not found",                 # the fixture's line
    "hipModuleGetFunction(): 500",                                    # the number when the string lookup fails
    "hipInit(): 101",
    "hipDeviceGetAttribute(): 1",
    "hipDeviceGetCount(): no ROCm-capable device is detected",
    "hipCtxCreate(): invalid device ordinal",
    "hiprtcCompileProgram(): HIPRTC_ERROR_OUT_OF_MEMORY",             # ext_hiprtc.c (a compile failure of hashcat's
    # own kernels, HIPRTC_ERROR_COMPILATION / _INVALID_OPTION, is read at framework since set FD: test_heldout_set_fd.py)
])
def test_hashcats_hip_calls_are_named_at_hip(line):
    assert HASHCAT_HIP in _ids(line), line
    assert error_signatures.failure_layer(HASHCAT_HIP) == "hip"


@pytest.mark.parametrize("line", [
    "cuModuleGetFunction(): named symbol not found",                  # hashcat's CUDA backend (ext_cuda.c)
    "hipMemcpyToSymbol( HIP_SYMBOL(::Kokkos::Impl::g_device_hip_lock_arrays), &x, 8) error( hipErrorInvalidKernelFile)",
    "call hipModuleGetFunction() to look the kernel up",
    "hipModuleGetFunction(): ",
])
def test_other_backends_and_prose_are_not_hashcats_hip_call(line):
    assert HASHCAT_HIP not in _ids(line), line


@pytest.mark.parametrize("line", [
    "* Device #3: Kernel gpu_memset create failed.",                  # the fixture's line
    "* Device #1: Kernel m12666_init create failed.",                 # hashcat#4224 (a module's init kernel)
    "* Device #12: Kernel pcfg_gpu_prob_generate_opti create failed.",
])
def test_hashcats_kernel_create_report_is_named(line):
    assert HASHCAT_KERNEL in _ids(line), line


@pytest.mark.parametrize("line", [
    "[   42.123456] amdgpu 0000:03:00.0: amdgpu: (-22) ring create failed",   # the kernel driver's ring
    "* Device #1: Kernel exec timeout is not disabled.",
])
def test_other_create_failures_are_not_hashcats_kernel_report(line):
    assert HASHCAT_KERNEL not in _ids(line), line


# -- darktable's OpenCL program build and the OpenCL API status (1384) --------------------------------
@pytest.mark.parametrize("line", [
    "[opencl_build_program] could not build program: CL_BUILD_PROGRAM_FAILURE",          # the fixture (5.x: cl_errstr)
    "[dt_opencl_device_init] failed to compile program `spektrafilm.cl'",                 # the fixture's title
    "[dt_opencl_device_init] failed to compile program `basic.cl'!",                      # darktable#20179's title
    "1.803323 [opencl_build_program] could not build program: -11",                       # 3.x, '%d'
    "0.459072 [opencl_init] failed to compile program `filmic.cl'!",                      # 3.x/4.x dt_opencl_init
])
def test_darktables_build_failure_is_named_at_runtime(line):
    assert DARKTABLE in _ids(line), line
    assert error_signatures.failure_layer(DARKTABLE) == "runtime"


@pytest.mark.parametrize("line", [
    "[opencl_build_program] successfully built program",
    "[opencl_init] compiling program `basic.cl' ..",
    "GL: Failed to compile program `shaders/blit.glsl'",
    "[opencl_load_program] could not load cached binary program, trying to compile source",
])
def test_darktables_other_lines_are_not_a_build_failure(line):
    assert DARKTABLE not in _ids(line), line


@pytest.mark.parametrize("line", [
    "Error CL_BUILD_PROGRAM_FAILURE when calling clBuildProgram.",
    "clBuildProgram(): CL_BUILD_PROGRAM_FAILURE",
    "[opencl_build_program] could not build program: CL_BUILD_PROGRAM_FAILURE",
])
def test_the_opencl_build_status_is_named_at_runtime(line):
    assert CL_BUILD in _ids(line), line
    assert error_signatures.failure_layer(CL_BUILD) == "runtime"


@pytest.mark.parametrize("line", ["CL_BUILD_SUCCESS", "CL_BUILD_PROGRAM_FAILURES_SEEN = 0", "CL_BUILD_ERROR"])
def test_other_build_statuses_are_not_the_failure(line):
    assert CL_BUILD not in _ids(line), line


# -- Mesa's loader cannot identify a GPU's DRM node (1386) ---------------------------------------------
@pytest.mark.parametrize("line", [
    "MESA-LOADER: failed to retrieve device information",             # the fixture's lines
    "failed to get driver name for fd 18",
    "libEGL warning: MESA-LOADER: failed to retrieve device information",
    "libGL error: MESA-LOADER: failed to retrieve device information",
    "failed to get driver name for fd 5",
])
def test_mesas_loader_failure_is_a_runtime_warning(line):
    assert MESA in _ids(line), line
    assert error_signatures.failure_layer(MESA) == "runtime"


@pytest.mark.parametrize("line", [
    "libEGL warning: failed to get driver name for fd -1",            # no DRM node at all (WSL, a container)
    "MESA-LOADER: failed to open radeonsi: /usr/lib/dri/radeonsi_dri.so: cannot open shared object file",
    "MESA-LOADER: dlopen(/usr/lib64/dri/radeonsi_dri.so)",
])
def test_other_mesa_loader_lines_are_not_it(line):
    assert MESA not in _ids(line), line


# -- HSA_STATUS_ERROR_INVALID_ISA stays the runtime's finding (1383 against 974) -----------------------------
# ROCr reports it for a dispatch asking for more VGPRs than the hardware has (ROCR-Runtime amd_aql_queue.cpp), i.e. code
# for another target: the program's build (1383) or an HSA_OVERRIDE_GFX_VERSION (974, 1146).  974's override is only in
# the thread's prose, so the paste cannot tell the two apart: the status stays at the runtime (upstream of the code),
# and 1383's own HIP line ('invalid kernel file') names the code's layer beside it.
INVALID_ISA = (":0:rocdevice.cpp            :3586: 2080189768804 us:  Callback: Queue 0x7ff7dc400000 aborting with "
               "error : HSA_STATUS_ERROR_INVALID_ISA: The instruction set architecture is invalid. code: 0x100f")


def test_1383_names_the_refused_code_at_hip_behind_the_runtimes_status():
    found = problems(realrun.diagnosis(_fixture("1383")))
    assert found[0] == ("hsa-runtime-error", "runtime"), found
    assert ("known-failure", "hip") in found, found


def test_an_invalid_isa_alone_is_the_runtimes_finding(tmp_path):
    found = problems(doctor_files(tmp_path, {"log.txt": INVALID_ISA + "\n"}))
    assert ("hsa-runtime-error", "runtime") in found, found


@pytest.mark.parametrize("num", ["974", "1146"])
def test_the_override_fixtures_still_lead_at_the_runtime(num):
    assert _lead_layer(_fixture(num)) == "runtime"
