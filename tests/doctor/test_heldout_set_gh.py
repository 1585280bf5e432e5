"""Held-out set GH (tests/data/real/2890-2894, HELDOUT.md): a theme-neutral sample of Arch Linux ROCm packaging
issues (rocm-arch/rocm-arch, CachyOS/linux-cachyos).  One row was added, from the printing programs' sources:

* ``gh_hsa_api_name_undeclared_old_rocr_headers`` -- the C++ compiler's undeclared-name error (GCC's "'%E' was not
  declared in this scope", clang's "use of undeclared identifier '%0'") for an HSA runtime API name (HSA_*/hsa_*),
  which only ROCr's public headers declare (ROCm/ROCR-Runtime src/inc/hsa.h, hsa_ext_amd.h, e.g. the hsa_amd_agent_info_t
  enumerator HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT that ROCclr's rocdevice.cpp queries): the ROCr headers
  found are older than the source being built, the AUR hip-runtime-amd builds of 2890 and 2892 (packaging).

2891 stays a miss (its failure, CMake's refusal of the hipsparse build, is told only in prose; the paste is hipconfig's
healthy report): tests/doctor/test_known_failure.py MISSES.
"""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("2890", "packaging"), ("2892", "packaging"), ("2893", "kernel"),
                                       ("2894", "kernel")])
def test_the_set_gh_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


ROW = "gh_hsa_api_name_undeclared_old_rocr_headers"


@pytest.mark.parametrize("num", ["2890", "2892"])
def test_the_new_row_names_its_fixtures_and_leads(num):
    assert_named_and_leads(num, ROW, "packaging")


@pytest.mark.parametrize("text", [
    # the fixtures' line (rocm-arch/rocm-arch#687, #779: the AUR hip-runtime-amd, ROCclr rocm-5.0.1 / 5.1.1)
    "/home/gene/.cache/yay/hip-runtime-amd/src/ROCclr-rocm-5.0.1/device/rocm/rocdevice.cpp:1079:44: error: "
    "‘HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT’ was not declared in this scope; did you mean "
    "‘HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT’?",
    # 2892's title, the user's quote of the same line
    "[hip-runtime-amd] error: ‘HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT’ was not declared in this scope; "
    "did you mean ‘HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT’?",
    # ROCm/ROCclr#23 (ROCclr against an older ROCr's headers): an hsa_* function
    "/home/ian/Documents/ROCclr/device/rocm/roccounters.hpp:127:9: error: ‘hsa_system_get_major_extension_table’ was "
    "not declared in this scope; did you mean ‘hsa_system_get_extension_table’?",
    # ROCm/ROCR-Runtime#47 (ROCr's own source finding an older hsa.h first), ASCII quotes as a C locale prints them
    "amd_blit_kernel.cpp:631:33: error: 'HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE' was not declared in this scope",
    # clang's wording of the same diagnostic
    "rocdevice.cpp:1079:44: error: use of undeclared identifier 'HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT'",
])
def test_the_row_reads_the_compilers_wordings(text):
    assert ROW in ids(text)
    assert error_signatures.failure_layer(ROW) == "packaging"


@pytest.mark.parametrize("text", [
    # ROCm/ROCclr#23: a class member of ROCclr's own, not an HSA API name
    "/home/ian/Documents/ROCclr/device/rocm/rocprogram.cpp:78:7: error: ‘hsaCodeObjectReader_’ was not declared in "
    "this scope",
    # GCC's note with the suggestion, not the error
    "amd_blit_kernel.cpp:631:33: note: suggested alternative: ‘HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE’",
    # an undeclared name of another library (HIP's, its own headers' matter)
    "main.cpp:12:5: error: ‘hipMallocAsync’ was not declared in this scope",
])
def test_near_misses_are_not_read_by_the_row(text):
    assert ROW not in ids(text)
