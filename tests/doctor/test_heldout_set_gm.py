"""Held-out set GM (tests/data/real/2940-2943, HELDOUT.md): a theme-neutral sample of multi-GPU and distributed work
on AMD GPUs (rccl-tests, RCCL's unit tests, DeepSpeed).  The one general fix: RCCL's MSCCL++ switch refusing itself
during communicator set-up (ROCm/rccl src/init.cc: WARN("MSCCL++: Cannot enable MSCCL++; environment is not MSCCL
compatible"), WARN("MSCCL++: Cannot enable MSCCL++ on %s architecture", ...), and without ENABLE_MSCCLPP
WARN("MSCCL++: Feature not enabled. ENABLE_MSCCLPP must be defined at compile-time to enable this feature.")) is
printed at RCCL's WARN level although init goes on; the catch-all took it for a failure on a healthy run (2941).
failure_lines.toml's benign list now holds those three forms; RCCL's other WARN lines stay failures."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import failure_lines
from rwtest.heldout import fixture as _fixture, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("2940", None), ("2941", None), ("2942", "libraries")])
def test_the_set_gm_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("line", [
    # set GM 2941 (ROCm/rccl-tests#163, RCCL 2.21.5 / ROCm 6.3.3 on MI50s): the fixture's line
    "z292:58192:58200 [2] /long_pathname_so_that_rpms_can_package_the_debug_info/src/rccl/build/hipify/src/init.cc:2065 "
    "NCCL WARN MSCCL++: Cannot enable MSCCL++; environment is not MSCCL compatible",
    # a LUMI gfx90a tuning study's notes quoting RCCL's line (public repository, index id 68574218558)
    "#   NCCL WARN MSCCL++: Cannot enable MSCCL++; environment is not MSCCL compatible",
    # a JAX-on-ROCm training log's table of benign lines (public repository, index id 56846028627)
    "| `NCCL WARN MSCCL++: Feature not enabled. ENABLE_MSCCLPP must be defined at compile-time` | every rank |",
    # the source's architecture form (ROCm/rccl src/init.cc, "MSCCL++: Cannot enable MSCCL++ on %s architecture"),
    # in debug.cc's log prefix
    "node1:4242:4250 [0] /src/rccl/build/hipify/src/init.cc:2061 NCCL WARN MSCCL++: Cannot enable MSCCL++ on "
    "gfx906:sramecc+:xnack- architecture",
])
def test_rccl_mscclpp_refusals_are_not_failures(line):
    assert not failure_lines.looks_like_failure(line)


@pytest.mark.parametrize("line", [
    # ROCm/rccl#1454 (failures.toml's example): a HIP call failing inside RCCL's P2P transport
    "UVOSLinux:19402:19419 [0] /usr/src/debug/rccl/build/hipify/src/transport/p2p.cc:237 NCCL WARN Cuda failure "
    "'invalid argument'",
    # constructed: MSCCL++ named in a WARN line that is not the switch's refusal
    "node1:4242:4250 [0] NCCL WARN MSCCL++: mscclpp_ncclCommInitRank failed with error 3",
    # constructed: the words without RCCL's WARN prefix (a user's sentence about the feature)
    "Error: Cannot enable MSCCL++ because the build failed",
])
def test_other_rccl_warn_lines_stay_failures(line):
    assert failure_lines.looks_like_failure(line)


def test_the_deepspeed_traceback_cut_before_its_exception_is_a_known_miss():
    # 2943 (deepspeedai/DeepSpeed#5274): the rank traceback's frames only; the exception line is not in the copy
    assert _lead_layer(_fixture("2943")) is None
