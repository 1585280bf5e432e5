"""Set AO (1106): CLR's fat-binary loader (hipamd/src/hip_fatbin.cpp) names the GPU's target in HIP's own log at
AMD_LOG_LEVEL 3 ('Device name: amdgcn-amd-amdhsa--gfx942:...') and 1 ('No compatible code objects found for:
gfx942:...'); read as the target of a GPU, once per target."""
from __future__ import annotations

from rocm_wizard.detect.parsers import paste_facts

LOG = """:3:hip_fatbin.cpp           :537 : 2500313198678 us:  Device name: amdgcn-amd-amdhsa--gfx942:sramecc+:xnack- Generic name: amdgcn-amd-amdhsa--gfx9-4-generic:sramecc+:xnack-
:1:hip_fatbin.cpp           :694 : 2500313198684 us:  No compatible code objects found for: gfx942:sramecc+:xnack-, value of HIP_FORCE_SPIRV_CODEOBJECT: 0
"""


def _targets(text):
    return [g.gfx_target for g in paste_facts.parse(text).gpus]


def test_the_fatbin_loaders_target_is_read_once():
    assert _targets(LOG) == ["gfx942"]


def test_the_error_line_alone_and_another_target():
    assert _targets(":1:hip_fatbin.cpp :694 : 11 us: No compatible code objects found for: gfx1201\n") == ["gfx1201"]
    assert _targets(":3:hip_fatbin.cpp :537 : 9 us:  Device name: amdgcn-amd-amdhsa--gfx1151 Generic name: "
                    "amdgcn-amd-amdhsa--gfx11-generic\n") == ["gfx1151"]


def test_not_read_outside_the_loaders_log_lines():
    # prose quoting the message, and another file's 'Device name' line
    assert _targets("Loading any of those modules on gfx1201 segfaults with `No compatible code objects found for: "
                    "gfx1201`.\n") == []
    assert _targets(":3:hip_device.cpp :100 : 1 us: Device name: amdgcn-amd-amdhsa--gfx90a\n") == []
    # the generic target on the same line is not read as a second GPU
    assert _targets(LOG) == ["gfx942"]
