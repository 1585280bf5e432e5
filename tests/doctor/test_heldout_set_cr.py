"""Held-out set CR (tests/data/real/1840-1844, HELDOUT.md): scientific and HPC codes on AMD GPUs (smith/tribol, Idefix
with Kokkos, AdaptiveCpp, UCX under MPI, CP2K).
The misses' causes, each from the program that prints the line: UCX's ROCm transports and its fatal-signal backtrace
(openucx/ucx src/uct/rocm, src/ucs/debug/debug.c), lld's undefined-symbol report (lld/ELF/Relocations.cpp) for ROCm's
device-library functions (amd/device-libs ockl/ocml/oclc), and gfortran's run-time backtrace with its module-procedure
mangling (libgfortran/runtime/backtrace.c, gcc/fortran/trans-decl.cc).  Each is tested on the fixture, on other
wordings of the same source and on near-misses that must not match.  1841: Kokkos' own compile-time check of View
assignments (kokkos core/src/View/Kokkos_ViewLegacy.hpp, Kokkos_View.hpp: 'Incompatible View copy assignment' and
'... construction'), the application's source at framework; clang's 'N errors generated when compiling for gfxNNN'
(a count of the device compilation's errors) yields to the row that reads an error line, as a harness header does."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import (assert_named_and_leads, doctor_files, fixture as _fixture, ids as _ids,
                            lead_layer as _lead_layer, problems)

UCX = "cr_ucx_rocm_transport_crash_frame"
LLD = "cr_lld_undefined_rocm_device_lib_symbol"
GFORTRAN = "cr_gfortran_backtrace_module_procedure"
KOKKOS = "cr_kokkos_incompatible_view_copy"


@pytest.mark.parametrize("num,layer", [("1840", "hip"), ("1841", "framework"), ("1842", "framework"), ("1843", "libraries"),
                                       ("1844", "framework")])
def test_the_set_cr_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row,layer", [("1841", KOKKOS, "framework"), ("1842", LLD, "framework"), ("1843", UCX, "libraries"),
                                           ("1844", GFORTRAN, "framework")])
def test_the_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


# -- UCX's ROCm transports in a crash's backtrace (1843) ----------------------------------------------
@pytest.mark.parametrize("line", [
    # glibc's backtrace_symbols form, as UCX's handler prints it (the fixture's frame)
    " 6  /opt/ucx/lib/ucx/libuct_rocm.so.0(uct_rocm_copy_ep_get_short+0x6f) [0x79f3a318adc6]",
    # the same handler's symbolised form (function, then file:line)
    " 3 0x0000000000012345 uct_rocm_copy_ep_put_short()  /build/ucx/src/uct/rocm/copy/rocm_copy_ep.c:182",
    # the IPC and GDR transports' functions
    " 5  /usr/lib/ucx/libuct_rocm.so.0(uct_rocm_ipc_ep_put_zcopy+0x1a4) [0x7f10c2a3b1e4]",
    " 4 0x000000000000a9c1 uct_rocm_gdr_ep_get_short()  rocm_gdr_ep.c:61",
])
def test_ucx_rocm_transport_frames_are_named(line):
    assert UCX in _ids(line), line


@pytest.mark.parametrize("line", [
    # UCX's own log line naming the transport's source file (no crash frame)
    "[1722431131.746321] [host:31218:0]  rocm_copy_md.c:120 UCX  DEBUG rocm_copy md opened",
    # a transport frame of another library (the TCP transport)
    " 8 0x000000000001e0a1 uct_tcp_ep_am_bcopy()  tcp_ep.c:1603",
    # ucx_info listing the transport
    "#      Transport: rocm_copy",
])
def test_other_ucx_lines_are_not_the_rocm_crash(line):
    assert UCX not in _ids(line), line


# -- lld's undefined ROCm device-library symbols (1842) -----------------------------------------------
@pytest.mark.parametrize("line", [
    "ld.lld: error: undefined hidden symbol: __ockl_get_group_id",
    "lld: error: undefined hidden symbol: __ockl_get_local_size",
    "ld.lld: error: undefined symbol: __ocml_sin_f32",
    "error: undefined protected symbol: __oclc_ISA_version",
])
def test_undefined_device_library_symbols_are_named(line):
    assert LLD in _ids(line), line


@pytest.mark.parametrize("line", [
    # an undefined HIP runtime symbol is another failure (a host link without libamdhip64)
    "ld.lld: error: undefined symbol: hipMalloc",
    "/usr/bin/ld: main.o: in function `main': undefined reference to `hipSetDevice'",
    # a device-library file named in a successful link
    "LLVMToAmdgpu: Linking with bitcode file: /opt/rocm/amdgcn/bitcode/ockl.bc",
])
def test_other_undefined_symbols_are_not_the_device_libs(line):
    assert LLD not in _ids(line), line


# -- gfortran's backtrace in the application's own module procedures (1844) ---------------------------
@pytest.mark.parametrize("line", [
    "#3  0x7c87fe in __tmc_analysis_MOD_do_tmc_analysis",
    "#5  0x7d5f47 in __tmc_worker_MOD_do_tmc_worker",
    "#1  0x4015a2 in __solver_MOD_apply_boundary",
])
def test_gfortran_module_frames_are_named(line):
    assert GFORTRAN in _ids(line), line


@pytest.mark.parametrize("line", [
    # the runtime's own frames (no module procedure)
    "#0  0x7fa2bb25a2e2 in ???",
    # a gdb frame of a C library
    "#3  0x00007f5b2c1a3e10 in hipMemcpy () from /opt/rocm/lib/libamdhip64.so.6",
    # hipfort, ROCm's Fortran interface, is not the application
    "#2  0x40a1b2 in __hipfort_MOD_hipmalloc",
])
def test_other_frames_are_not_the_applications_module(line):
    assert GFORTRAN not in _ids(line), line


def test_the_rows_sit_at_their_components_layers():
    assert error_signatures.failure_layer(UCX) == "libraries"
    assert error_signatures.failure_layer(LLD) == "framework"
    assert error_signatures.failure_layer(GFORTRAN) == "framework"
    assert error_signatures.failure_layer(KOKKOS) == "framework"


# -- Kokkos' View assignment check in an application's build (1841) -----------------------------------
@pytest.mark.parametrize("line", [
    # clang's caret display of the assertion (the fixture's line)
    '  938 |     static_assert(Mapping::is_assignable, "Incompatible View copy assignment");',
    # clang's error line for the construction check
    "/src/kokkos/core/src/View/Kokkos_ViewLegacy.hpp:929:19: error: static assertion failed due to requirement "
    "'Kokkos::Impl::ViewMapping<...>::is_assignable': Incompatible View copy construction",
    # nvcc's form
    'Kokkos_ViewLegacy.hpp(929): error: static assertion failed with "Incompatible View copy construction"',
    # DynRankView's check
    'error: static assertion failed: Incompatible DynRankView copy construction',
])
def test_kokkos_view_assignment_checks_are_named(line):
    assert KOKKOS in _ids(line), line


@pytest.mark.parametrize("line", [
    "Kokkos::View<int*> a = b;  // compatible View copy",
    "static_assert(Mapping::is_assignable_data_type, \"View assignment must have compatible dimensions\");",
])
def test_other_kokkos_lines_are_not_the_view_check(line):
    assert KOKKOS not in _ids(line), line


def test_the_error_count_alone_is_still_reported(tmp_path):
    # clang's summary with no error line known above it keeps its own row (and layer)
    diag = doctor_files(tmp_path, {"build.txt": "2 errors generated when compiling for gfx942.\n"})
    assert ("known-failure", "libraries") in problems(diag)


def test_the_error_count_yields_to_the_kokkos_line(tmp_path):
    diag = doctor_files(tmp_path, {"build.txt": '  938 |     static_assert(Mapping::is_assignable, "Incompatible View '
                                                'copy assignment");\n4 errors generated when compiling for gfx942.\n'})
    assert problems(diag)[0] == ("known-failure", "framework"), problems(diag)
