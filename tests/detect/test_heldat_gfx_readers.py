"""Held-out set AT (s12-heldat): the GPU's gfx target from rocBLAS's missing-Tensile line as users retype it
(ROCm/rocBLAS library/src/tensile_host.cpp prints "... for GPU arch : gfx906") and from CLR's fat-binary loader's
"Cannot find CO in the bundle <file> for ISA: amdgcn-amd-amdhsa--<target>" (ROCm/clr hipamd/src/hip_fatbin.cpp),
whose path often wraps the line."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import fixture as _fixture


@pytest.mark.parametrize("text, gfx", [
    # rocBLAS's own form, and the fixture's retyped one (1200), wrapped after 'TensileLibrary.dat:'
    ("rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: Illegal seek for GPU arch : gfx906\n", "gfx906"),
    ("rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: \nIllegal seek for GPU arch: gfx1103\n", "gfx1103"),
    # CLR's line, whole and wrapped (1203), with target features
    (":1:hip_fatbin.cpp :276 : 88 us: Cannot find CO in the bundle /opt/rocm/lib/libMIOpen.so.1 for ISA: "
     "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-\n", "gfx90a"),
    (":1:hip_fatbin.cpp:780 : Cannot find CO in the bundle\n    /usr/lib64/librocblas.so.4.4 for ISA: amdgcn-amd-amdhsa--gfx1013:xnack-\n",
     "gfx1013"),
])
def test_the_target_is_read(text, gfx):
    assert [g.gfx_target for g in paste_facts.parse(text).gpus] == [gfx]


def test_near_misses_name_no_gpu():
    for text in ("the GPU arch list of rocBLAS: gfx1100 gfx1101 gfx1102\n",  # prose about the library's targets
                 "clang: error: unsupported option for ISA amdgcn-amd-amdhsa--gfx1013\n"):  # no 'for ISA: ' of CLR
        assert not [g for g in paste_facts.parse(text).gpus if g.gfx_target], text


def test_1200_the_prose_list_of_other_gpus_is_no_gpu_of_the_machine():
    # once rocBLAS's line names the GPU, the list of RDNA3 products ("- gfx1101 — RX 7800 XT") is not read as GPUs
    assert [(g.gfx_target) for g in detect_snapshot(str(_fixture("1200"))).gpus] == ["gfx1103"]


def test_1203_the_gpu_is_the_bundles_isa():
    assert [g.gfx_target for g in detect_snapshot(str(_fixture("1203"))).gpus] == ["gfx1013"]
