"""Held-out set DX (tests/data/real/2380-2383, HELDOUT.md): reinforcement learning, robotics and physics simulation on
AMD GPUs.  The index's pastes on the theme come from the Genesis simulator: quadrants' AMDGPU backend failing on
hipModuleGetFunction's hipErrorNotFound (2380, 2381: they led at hip on the unchanged code), Taichi under Genesis 0.2.0
falling back to the CPU (2382: warned only by the catch-all, at no layer) and a healthy rocm-smi block (2383).

The row added for 2382 reads the backend selection of Taichi and of its fork quadrants (taichi-dev/taichi and
Genesis-Embodied-AI/quadrants python/*/lang/misc.py adaptive_arch_select(): _logging.warn(f"Arch={arch} is not
supported, falling back to CPU"), or raise RuntimeError(f"Arch={arch} is not supported") when fallback is off); the
arch is printed as the list or tuple it was given."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "dx_taichi_arch_not_supported_cpu_fallback"


@pytest.mark.parametrize("num,layer", [("2380", "hip"), ("2381", "hip"), ("2382", "framework"), ("2383", None)])
def test_the_set_dx_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_taichi_cpu_fallback_is_named_at_framework_and_leads():
    assert_named_and_leads("2382", ROW, "framework")
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("line", [
    # the fixture's line (Genesis-Embodied-AI/genesis-world#225, Genesis 0.2.0, Taichi's logger prefix)
    "[W 12/22/24 10:19:01.532 18257] [misc.py:adaptive_arch_select@758] Arch=[<Arch.cuda: 3>] is not supported, "
    "falling back to CPU",
    # Taichi 1.0.1 on Windows, ti.init(arch=ti.gpu) on an integrated GPU (a user's Taichi notes in a public
    # repository): the arch list as the user's strings
    "[W 05/04/22 13:51:54.435 20080] [misc.py:adaptive_arch_select@781] Arch=['gpu'] is not supported, "
    "falling back to CPU",
    # Taichi 1.7.4's log as a project's design notes quote it (public repository), the logger's prefix shortened
    "    [W] [misc.py] Arch=[<Arch.cuda: 3>] is not supported, falling back to CPU",
    # the form adaptive_arch_select raises when fallback is off (both sources; rendered, the enum value illustrative)
    "RuntimeError: Arch=[<Arch.amdgpu: 9>] is not supported",
])
def test_the_row_reads_the_arch_selection_wordings(line):
    assert ROW in _ids(line)


@pytest.mark.parametrize("line", [
    "clang: error: --offload-arch=gfx1036 is not supported",                       # a compiler's target, no arch list
    "[Taichi] Starting on arch=x64",                                               # Taichi's normal start line
    "GPU Delegate is not supported, falling back to CPU only mode",                # TFLite's delegate, another program
])
def test_lines_that_are_not_the_arch_selection_do_not_match(line):
    assert ROW not in _ids(line)
