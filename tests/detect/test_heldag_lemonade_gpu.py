"""Set AG (970): Lemonade's 'Unsupported GPU: <family>' names the AMD GPU's gfx target, which Lemonade read
from KFD's gfx_target_version or the GPU's name (lemonade-sdk/lemonade src/cpp/server/system_info.cpp,
identify_rocm_arch_from_name); detection takes it as the GPU's target."""
from __future__ import annotations

import pytest

from rocm_wizard.detect.parsers import paste_facts


@pytest.mark.parametrize("line, gfx", [
    ("Error: Cannot install llamacpp:rocm on this system: Unsupported GPU: gfx1152", "gfx1152"),
    ("Error: Cannot install vllm:rocm on this system: Unsupported GPU: gfx950", "gfx950"),
    ("Error pulling model: Model 'm' cannot be used on this system (recipe: vllm): Unsupported GPU: gfx90a", "gfx90a"),
])
def test_lemonades_family_is_the_gpus_target(line, gfx):
    facts = paste_facts.parse(line)
    assert [(g.how, g.gfx_target) for g in facts.gpus] == [("lemonade", gfx)]


def test_one_gpu_for_the_same_target_twice():
    text = ("Error: Cannot install llamacpp:rocm on this system: Unsupported GPU: gfx950\n"
            "Error: Cannot install vllm:rocm on this system: Unsupported GPU: gfx950\n")
    assert [g.gfx_target for g in paste_facts.parse(text).gpus] == ["gfx950"]


@pytest.mark.parametrize("line", [
    # an NVIDIA family, no family at all, another reason: no AMD target
    "Error: Cannot install llamacpp:cuda on this system: Unsupported GPU: sm_120 (compute capability 12.0)",
    "Error: Cannot install llamacpp:rocm on this system: Unsupported GPU",
    "Error: Cannot install flm:npu on this system: Requires XDNA2 NPU",
    # the words without Lemonade's 'on this system' prefix
    "Unsupported GPU: gfx1152 is not in this tool's list",
])
def test_no_target_from_other_lines(line):
    assert [g.gfx_target for g in paste_facts.parse(line).gpus if g.gfx_target] == []
