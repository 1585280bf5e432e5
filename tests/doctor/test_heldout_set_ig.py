"""Held-out set IG (tests/data/real/3360-3364, HELDOUT.md): a theme-neutral sample of ROCm on HPC clusters (rocHPL under
srun on an MI250X node, Quokka on Setonix, a Python script on Adastra, an MI300A node's memory placement, PIConGPU on
Frontier).  3361 (GTL's relay of ROCr's hsa_amd_ipc_memory_attach status) and 3364 (HIP's queue callback with
HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION) led at runtime on the unchanged code.  Two did not, and one has no line:

* 3360: Open MPI's shared-memory single copy through CMA (open-mpi/ompi opal/mca/btl/vader/btl_vader_get.c: "Read %ld,
  expected %lu, errno = %d"; btl_vader_put.c "Wrote ..."; Open MPI 5's opal/mca/smsc/cma/smsc_cma_module.c "CMA
  read/wrote ...") had no reading at all.  Row ig_openmpi_cma_single_copy_failed reads it at libraries.
* 3362: HPE Cray MPICH's 'MPIDI_CRAY_init: GPU_SUPPORT_ENABLED is requested, but GTL library is not linked' was read
  only by the catch-all, at framework.  Row ig_cray_mpich_gtl_not_linked reads it at libraries.
* 3363: an MI300A's allocation placed in another APU's HBM is shown only by per-node memory figures: in MISSES."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

CMA = "ig_openmpi_cma_single_copy_failed"
GTL = "ig_cray_mpich_gtl_not_linked"


@pytest.mark.parametrize("num,layer", [("3360", "libraries"), ("3361", "runtime"), ("3362", "libraries"),
                                       ("3364", "runtime")])
def test_the_set_ig_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_mi300a_placement_paste_raises_no_problem():
    # the failure is only in the numbers (ROCm/amdgpu#186): nothing to read, so nothing is invented
    assert _lead_layer(_fixture("3363")) is None


@pytest.mark.parametrize("num,row", [("3360", CMA), ("3362", GTL)])
def test_the_new_rows_name_their_fixture_and_lead_at_libraries(num, row):
    assert_named_and_leads(num, row, "libraries")


@pytest.mark.parametrize("line,row", [
    # the fixture's line (ROCm/rocHPL#14, rocHPL under srun on an MI250X node, Open MPI's vader BTL with CMA)
    ("[MI250-1:103933] Read -1, expected 549888, errno = 14", CMA),
    # the same line from horovod + TensorFlow on MI25 GPUs (horovod/horovod#531)
    ("[P47-01:57132] Read -1, expected 8192, errno = 14", CMA),
    # btl_vader_put.c's write, and Open MPI 5's smsc/cma component (smsc_cma_module.c), with EPERM under ptrace limits
    ("[node01:4242] Wrote -1, expected 4194304, errno = 14", CMA),
    ("CMA read -1, expected 1048576, errno = 1", CMA),
    # the fixture's line (gyselax/gyselalibxx#479, Adastra's MI250X partition)
    ("MPICH ERROR [Rank 0] [job id ] [Fri Dec  5 09:32:07 2025] [login5] - Abort(-1) (rank 0 in comm 0): "
     "MPIDI_CRAY_init: GPU_SUPPORT_ENABLED is requested, but GTL library is not linked", GTL),
    # Julia on LUMI (a Julia HPC examples README, 2025-11) and APPFL on Polaris (APPFL/APPFL#258, 2025-01)
    ("MPICH ERROR [Rank 0] [job id 14833080.5] [Fri Nov 21 09:21:34 2025] [nid007972] - Abort(-1) (rank 0 in comm 0): "
     "MPIDI_CRAY_init: GPU_SUPPORT_ENABLED is requested, but GTL library is not linked", GTL),
    ("MPICH ERROR [Rank 0] [job id ] [Thu Jan 30 22:35:30 2025] [x3006c0s19b1n0] - Abort(-1) (rank 0 in comm 0): "
     "MPIDI_CRAY_init: GPU_SUPPORT_ENABLED is requested, but GTL library is not linked", GTL),
    # the 'aborting job:' line after it
    ("MPIDI_CRAY_init: GPU_SUPPORT_ENABLED is requested, but GTL library is not linked", GTL),
])
def test_the_rows_read_the_mpi_lines(line, row):
    assert row in ids(line)
    assert error_signatures.failure_layer(row) == "libraries"


@pytest.mark.parametrize("line", [
    # no errno tail: not Open MPI's CMA line
    "Read 1024 bytes, expected 2048",
    "read error: expected 3 fields, got 2",
    # the environment and prose about the GTL
    "export MPICH_GPU_SUPPORT_ENABLED=1",
    "the GTL library is linked: libmpi_gtl_hsa.so.0 => /opt/cray/pe/mpich/8.1.30/gtl/lib/libmpi_gtl_hsa.so.0",
])
def test_near_misses_are_not_read_as_the_mpi_failures(line):
    found = ids(line)
    assert CMA not in found and GTL not in found
