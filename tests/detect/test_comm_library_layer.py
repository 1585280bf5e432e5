"""The communication libraries' own log lines are placed at libraries by the format each prints them in
(failure_lines.toml, the s15 row after the libraries' names): UCX's and UCC's log handler, libfabric's log prefix,
MPICH's error stack, Open MPI's components naming their source file, rocSHMEM by name.  A launcher's notice
of a process that died is not the library's line."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import failure_lines

LIBRARY_LINES = [
    # UCX (openucx/ucx src/ucs/debug/log.c: "<file>:<line> UCX  <LEVEL> <message>"), a real 1922 line and others
    "[1704800000.123456] [host:4242:0]     rocm_ipc_md.c:79   UCX  ERROR Failed to create ipc",
    "[1690000000.000001] [n1:77:0]          sys.c:140  UCX  ERROR mremap(oldptr=0x7f, oldsize=4096) failed",
    "[1700000000.1] [n2:9:0]   ib_iface.c:986  UCX  WARN  failed to create ib address",
    "[1700000000.1] [n2:9:0]   wireup.c:1234  UCX  FATAL endpoint reconfiguration not supported yet",
    # UCC, the same handler with its own component name
    "[1700000000.1] [n3:5:0] tl_rccl_team.c:50 UCC  ERROR failed to create rccl comm",
    # libfabric (ofiwg/libfabric src/log.c)
    "libfabric:180833:1712345678::cxi:core:cxip_gen_auth_key():2104<warn> nid002: failed to get svc",
    # MPICH's error stack
    "Fatal error in PMPI_Init_thread: Other MPI error, error stack:",
    "MPIR_Init_thread(586)..............: ",
    "MPID_Init(224).....................: channel initialization failed",
    "MPIDI_OFI_mpi_init_hook(1546)......: OFI call to fi_getinfo failed",
    # Open MPI's components
    "[node17:01234] pml_ucx.c:419  Error: ucp_ep_create(proc=1) failed: Destination is unreachable",
    "[node17:01234] btl_tcp_endpoint.c:626:mca_btl_tcp_endpoint_recv_connect_ack] received unexpected process identifier",
    # rocSHMEM, a real 691 line
    "E-001h rocSHMEM Could not open libnuma. Returning       NUMAWrapper@src/gda/numa_wrapper.cpp:48",
]

NOT_THE_LIBRARY = [
    "mpirun noticed that process rank 0 with PID 0 on node gpu01 exited on signal 11 (Segmentation fault).",
    "srun: error: node1: task 0: Segmentation fault (core dumped)",
    "UCX is not installed on this system: error",
    "my_MPIR_Init(3) failed",
    "libfabric: error: cannot find it",
    "ERROR: subpml_x.c:12 failed",
]


@pytest.mark.parametrize("line", LIBRARY_LINES)
def test_a_communication_library_s_own_line_is_at_libraries(line):
    assert failure_lines.named_layer(line) == "libraries"


@pytest.mark.parametrize("line", NOT_THE_LIBRARY)
def test_a_launcher_notice_or_a_near_miss_is_not_placed_by_the_row(line):
    assert failure_lines.named_layer(line) != "libraries"
