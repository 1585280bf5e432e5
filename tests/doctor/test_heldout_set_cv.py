"""Held-out set CV (tests/data/real/1920-1924, HELDOUT.md): communication between GPUs and nodes (UCX under GPU-aware
Open MPI, rocSHMEM beside MPICH, rocSHMEM's own collectives).
The misses' causes, each from the program that prints the line: UCX's log format (openucx/ucx src/ucs/debug/log.c,
UCS_LOG_FMT: '<file>:<line> UCX ERROR|FATAL <message>'), which yields to a row reading a UCX line more precisely (as a
harness header does); glibc's loader's 'undefined symbol' for a module of the communication stack (UCX's lib/ucx
modules, Open MPI's mca_ components, RCCL/NCCL net plug-ins, libfabric providers); MPICH's MPIR_Assert_fail
('Assertion failed in file %s at line %d: %s', pmodels/mpich src/util/mpir_assert.c) for a file of MPICH's tree; and
rocSHMEM's dlmalloc error actions (ROCm/rocSHMEM src/memory/dlmalloc.cpp).  Each is tested on the fixture, on other
wordings of the same source and on near-misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import (assert_named_and_leads, doctor_files, fixture as _fixture, ids as _ids,
                            lead_layer as _lead_layer, problems)

UCX_LOG = "cv_ucx_log_error"
MODULE = "cv_comm_module_undefined_symbol"
MPICH = "cv_mpich_assertion_failed"
ROCSHMEM = "cv_rocshmem_symmetric_heap_error"


@pytest.mark.parametrize("num,layer", [("1920", "libraries"), ("1921", "libraries"), ("1922", "runtime"),
                                       ("1923", "libraries"), ("1924", "libraries")])
def test_the_set_cv_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row,layer", [("1920", MODULE, "libraries"), ("1921", UCX_LOG, "libraries"),
                                           ("1923", MPICH, "libraries"), ("1924", ROCSHMEM, "libraries")])
def test_the_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


def test_the_rows_sit_at_the_communication_librarys_layer():
    for row in (UCX_LOG, MODULE, MPICH, ROCSHMEM):
        assert error_signatures.failure_layer(row) == "libraries", row


# -- UCX's own log line at ERROR/FATAL (1921, 1920's second block) ------------------------------------
@pytest.mark.parametrize("line", [
    # ucm's memory hooks (the fixture's line)
    "[1690292071.482590] [localhost.i:777081:0]              sys.c:140  UCX  ERROR mremap(oldptr=0x7fca85e8d000 "
    "oldsize=4096, newsize=8192) failed: Cannot allocate memory",
    # the short form without time and process (1920's inter-node block)
    "select.c:450  UCX  ERROR no active messages transport to <no debug data>: posix/memory - Destination is "
    "unreachable, rocm_copy/rocm_cpy - no am bcopy",
    # FATAL, and a header file of an inline function
    "[1722431131.746321] [host:31218:0]    rndv.inl:57   UCX  FATAL failed to allocate rendezvous request",
    "[1700000000.000001] [node1:1234:0]     ucp_worker.c:1855 UCX  ERROR failed to open UCT interface: No such device",
])
def test_ucx_error_lines_are_named(line):
    assert UCX_LOG in _ids(line), line


@pytest.mark.parametrize("line", [
    # UCX's warnings and debug lines are not errors
    "[1690292071.574608] [localhost:777081:0]          parser.c:1989 UCX  WARN  unused environment variable: UCX_DIR",
    "[1722431131.746321] [host:31218:0]  rocm_copy_md.c:120 UCX  DEBUG rocm_copy md opened",
    # another program's ERROR with a file:line (not UCX's component)
    "misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with error Invalid argument",
    "common.c:77 MPI  ERROR something",
])
def test_other_log_lines_are_not_ucx_errors(line):
    assert UCX_LOG not in _ids(line), line


def test_the_ucx_line_yields_to_the_rocm_ipc_row(tmp_path):
    # 1922's line: UCX's rocm_ipc transport refused an IPC handle by ROCr: the runtime row leads, the generic one yields
    diag = doctor_files(tmp_path, {"ucx.txt": "[1724605863.595828] [cousteau:2757379:0] rocm_ipc_md.c:79 UCX ERROR "
                                              "Failed to create ipc for 0x7f8d0fa10000/8000\n"})
    assert problems(diag)[0] == ("known-failure", "runtime"), problems(diag)
    assert ("known-failure", "libraries") not in problems(diag)


def test_the_ucx_line_yields_to_the_ib_registration_row(tmp_path):
    diag = doctor_files(tmp_path, {"ucx.txt": "[1706257302.851919] [lxbk1102:2038794:0]           ib_md.c:309  UCX  "
                                              "ERROR ibv_reg_mr(address=0x7fe35ea00000, length=16, access=0x10000f) "
                                              "failed: Invalid argument\n"})
    assert problems(diag)[0] == ("known-failure", "kernel"), problems(diag)


def test_a_ucx_error_alone_is_reported_at_libraries(tmp_path):
    diag = doctor_files(tmp_path, {"ucx.txt": "[1700000000.000001] [node1:1234:0]     ucp_worker.c:1855 UCX  ERROR "
                                              "failed to open UCT interface: No such device\n"})
    assert problems(diag)[0] == ("known-failure", "libraries"), problems(diag)


# -- a communication module's undefined symbol (1920) --------------------------------------------------
@pytest.mark.parametrize("line", [
    "/opt/ucx-1.10.0/lib/ucx/libuct_rocm_gdr.so.0: undefined symbol: gdr_copy_to_bar",
    # UCX's module loader's debug form around the loader's message
    "[1611780000.123456] [node:4242:0]         module.c:72   UCX  DEBUG dlopen('/usr/lib64/ucx/libuct_ib.so.0', "
    "mode=0x1) failed: /usr/lib64/ucx/libuct_ib.so.0: undefined symbol: ibv_reg_dmabuf_mr",
    # an Open MPI component and an RCCL net plug-in
    "mca_base_component_repository_open: unable to open mca_pml_ucx: /opt/ompi/lib/openmpi/mca_pml_ucx.so: "
    "undefined symbol: ucp_request_check_status (ignored)",
    "NCCL INFO NET/Plugin: Plugin load returned 2 : /opt/aws-ofi-rccl/lib/librccl-net.so: undefined symbol: "
    "fi_getinfo",
])
def test_communication_module_symbols_are_named(line):
    assert MODULE in _ids(line), line


@pytest.mark.parametrize("line", [
    # ROCm's own libraries have their rows (packaging / hip), not this one
    "ImportError: /opt/rocm-7.2.0/lib/libMIOpen.so.1: undefined symbol: _ZN2ck16tensor_operation",
    "python: symbol lookup error: /opt/rocm/lib/libamdhip64.so.7: undefined symbol: hsa_amd_memory_get_preferred_copy_engine",
    # UCX's core library is not a module (a mixed install shows up in its modules)
    "/opt/ucx/lib/libucs.so.0: cannot open shared object file: No such file or directory",
])
def test_other_libraries_are_not_a_communication_module(line):
    assert MODULE not in _ids(line), line


# -- MPICH's internal assertion (1923) -----------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "Assertion failed in file ../src/mpid/ch4/src/ch4_impl.h at line 128: *(&incomplete) >= 0",
    "Assertion failed in file src/mpi/coll/allreduce/allreduce_intra_recursive_doubling.c at line 127: "
    "type_size >= 0",
    "Assertion failed in file ./src/mpid/ch3/channels/nemesis/src/ch3_progress.c at line 566: !vc_ch->recv_active",
    "Assertion failed in file src/mpl/src/gpu/mpl_gpu_hip.c at line 210: 0",
])
def test_mpich_assertions_are_named(line):
    assert MPICH in _ids(line), line


@pytest.mark.parametrize("line", [
    # the same words from another program (FreeRTOS' configASSERT, an application's macro)
    "Assertion failed in file main.c at line 12",
    "Assertion failed in file src/solver/cg.cpp at line 88: r >= 0",
    "MPICH ERROR [Rank 1] [job id 1377452.0] [Wed Jul 12 15:39:36 2023] [frontier08573] - Abort(1): Internal error",
])
def test_other_assertions_are_not_mpichs(line):
    assert MPICH not in _ids(line), line


# -- rocSHMEM's symmetric heap (1924) ------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "Symmetric heap usage error detected, possibly at 0x7ef628c00470",
    "Symmetric heap data structure corruption found",
])
def test_rocshmem_heap_errors_are_named(line):
    assert ROCSHMEM in _ids(line), line


@pytest.mark.parametrize("line", [
    "Test examples/rocshmem_allreduce_test    nelem 256 [PASS]",
    "symmetric heap size set to 1073741824 bytes",
    "free(): invalid pointer",
])
def test_other_heap_lines_are_not_rocshmems(line):
    assert ROCSHMEM not in _ids(line), line
