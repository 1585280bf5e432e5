"""Held-out set DA (2020): a rocminfo paste that starts inside a GPU agent's "ISA Info" names the GPU's
target only in its ISA name ('Name: amdgcn-amd-amdhsa--gfx1201', then 'Machine Models:'); the reader takes
that agent as a GPU (a CPU agent has no amdgcn ISA)."""
from __future__ import annotations

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import rocminfo
from rwtest.heldout import fixture

_FRAGMENT = """  ISA Info:
    ISA 1
      Name:                    amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-
      Machine Models:          HSA_MACHINE_MODEL_LARGE
      Profiles:                HSA_PROFILE_BASE
      Default Rounding Mode:   NEAR
      Fast f16:                TRUE
      Workgroup Max Size:      1024(0x400)
"""


def test_2020_the_isa_name_gives_the_target():
    system = detect_snapshot(str(fixture("2020")))
    assert [g.gfx_target for g in system.gpus] == ["gfx1201"]


def test_an_isa_fragment_with_features_is_one_gpu():
    assert rocminfo.looks_like(_FRAGMENT) >= 0.35
    out = rocminfo.parse(_FRAGMENT)
    assert [(a.is_gpu, a.gfx_target) for a in out.agents] == [(True, "gfx942")]


def test_a_cpu_agents_empty_isa_info_is_no_gpu():
    text = ("*******\nAgent 1\n*******\n  Name:                    AMD Ryzen 9 7950X 16-Core Processor\n"
            "  Device Type:             CPU\n  ISA Info:\n")
    out = rocminfo.parse(text)
    assert [a.is_gpu for a in out.agents] == [False]


def test_a_whole_agent_still_reads_its_name():
    text = ("*******\nAgent 2\n*******\n  Name:                    gfx1100\n  Marketing Name:          Radeon RX 7900 XTX\n"
            "  Device Type:             GPU\n  ISA Info:\n    ISA 1\n      Name:                    amdgcn-amd-amdhsa--gfx1100\n"
            "      Machine Models:          HSA_MACHINE_MODEL_LARGE\n")
    out = rocminfo.parse(text)
    assert [(a.name, a.gfx_target, a.is_gpu) for a in out.agents] == [("gfx1100", "gfx1100", True)]
