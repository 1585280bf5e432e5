"""Set DD's detection misses (HELDOUT.md, set DD): pacman -Qs' list (pacman src/pacman/package.c), a "GPU: gfx..."
field of an issue's system block, and clang's "<n> error generated when compiling for gfx..." where comgr compiled a
kernel at run time for the device.  Each tested on the fixture's form, other forms, and a near-miss."""
from __future__ import annotations

import pytest

from rocm_wizard.detect.parsers import packages, paste_facts


QS = """local/hip-runtime-amd 7.1.1-1 (rocm)
    Heterogeneous Interface for Portability ROCm
local/rocm-core 7.1.1-1
    AMD ROCm core package (version files)
local/rocm-device-libs 2:7.1.1-2
    AMD specific device-side language runtime libraries
"""


def test_pacman_qs_list_is_read_with_its_groups_and_epochs():
    assert packages.kind_of(QS) == "pacman-list"
    got = {(p.name, p.version) for p in packages.parse(QS).packages}
    assert ("rocm-core", "7.1.1-1") in got
    assert ("hip-runtime-amd", "7.1.1-1") in got
    assert ("rocm-device-libs", "2:7.1.1-2") in got


def test_pacman_q_list_is_still_read():
    got = {(p.name, p.version) for p in packages.parse("rocm-core 6.4.1-1\nhipblas 6.4.1-1\n").packages}
    assert ("rocm-core", "6.4.1-1") in got


def test_pacman_ss_repository_entries_are_not_installed_packages():
    ss = "extra/rocm-core 7.1.1-1 [installed]\n    AMD ROCm core package\nextra/rocblas 7.1.1-1\n    BLAS\n"
    assert not [p for p in packages.parse(ss).packages if p.name == "rocm-core"]


def _gfx(text):
    return {g.gfx_target for g in paste_facts.parse(text).gpus if g.gfx_target}


@pytest.mark.parametrize("text,want", [
    ("GPU: gfx1151\nPython: 3.12.12\nOS: Ubuntu 22.04 LTS\nROCm version: rocm-7.1.1\n", {"gfx1151"}),
    ("GPU: gfx90a:sramecc+:xnack-\n", {"gfx90a"}),
    ("GPU Architecture: gfx906 (MI50/MI60)\n", {"gfx906"}),
    ("GPU: gfx1100 (RX 7900 XTX)\n", {"gfx1100"}),
])
def test_a_gpu_field_holding_a_target_is_read(text, want):
    assert _gfx(text) == want


@pytest.mark.parametrize("text", [
    "GPU: AMD Radeon RX 7900 XTX (gfx1100) and more\n",  # a name, not the field's whole value as a target
    "GPU: gfx1100, gfx1030\n",  # a list of targets (a build's)
    "GPU arch: gfx906\n",  # torch's property typed by a person: left unread (test_paste_facts)
])
def test_other_gpu_fields_are_not_read_as_one_target(text):
    assert _gfx(text) == set()


RTC = ("MIOpen: Error [Compile] 'hiprtcCompileProgram(prog.get(), c_options.size(), c_options.data())' x.cpp: "
       "HIPRTC_ERROR_COMPILATION (6)\n"
       "C:\\Users\\u\\AppData\\Local\\Temp\\comgr-9004-512-cc9f7f\\include\\miopen_type_traits.hpp:151:10: fatal error: "
       "'type_traits' file not found\n1 error generated when compiling for gfx1151.\n")


def test_clangs_target_of_a_runtime_compile_is_the_gpus():
    assert _gfx(RTC) == {"gfx1151"}


def test_clangs_target_of_a_hipcc_build_is_not_read():
    build = ("/home/me/llama.cpp/ggml/src/ggml-cuda/mmq.cu:12:10: fatal error: 'foo.h' file not found\n"
             "1 error generated when compiling for gfx1100.\n")
    assert _gfx(build) == set()
