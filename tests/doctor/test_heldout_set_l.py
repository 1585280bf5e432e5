"""Held-out set L (tests/data/real/570-581, HELDOUT.md): each miss's cause, fixed from the source that
prints the line (LLVM's option registry, kmod, Composable Kernel, MIOpen) or that makes two lines a
failure together (two libLLVM versions in one backtrace, one-way peer access), tested on the fixture
and on other wordings of the same source, so that the rows are not the fixture's text."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.doctor import diagnose
from rwtest.heldout import PROBLEM, REAL, assert_named_and_leads, ids as _ids

FIXTURES = {  # fixture -> (the row or signature that names its cause, the labelled layer)
    "574": ("llvm_cl_literal_option_exists", "packaging"),
    "575": ("llvm_two_versions_in_backtrace", "packaging"),
    "576": ("kmod_dependency_path_missing", "packaging"),
    "578": ("hip_peer_access_asymmetric", "firmware"),
    "579": ("ck_buffer_resource_undeclared", "libraries"),
    "572": ("miopen_invalid_elapsed_time", "libraries"),
}


@pytest.mark.parametrize("num", sorted(FIXTURES))
def test_set_l_fixture_is_named_by_its_row_and_leads_at_its_layer(num):
    assert_named_and_leads(num, *FIXTURES[num])


def test_llvm_option_registry_messages_in_other_programs_wordings():
    # CommandLine.cpp prefixes the program name; any option name; the abort line that follows
    assert "llvm_cl_option_registered_twice" in _ids(
        "blender: CommandLine Error: Option 'amdgpu-kernarg-preload-count' registered more than once!\n"
        "LLVM ERROR: inconsistency in registered CommandLine options\n")
    assert "llvm_cl_literal_option_exists" in _ids("LLVM ERROR: Option 'default' already exists!\n")
    assert error_signatures.failure_layer("llvm_cl_option_registered_twice") == "packaging"


def test_kmod_dependency_error_from_a_plain_modprobe():
    # libkmod's ERR() as modprobe prints it on a terminal, another module and errno
    found = _ids("modprobe: ERROR: ctx=0x5581c2a3b2a0 path=/lib/modules/6.17.0-5-generic/kernel/drivers/gpu/drm/"
                 "drm_buddy.ko.zst error=No such file or directory\n")
    assert "kmod_dependency_path_missing" in found


def test_ck_buffer_constant_in_clangs_own_wording_and_the_older_ck():
    for line in ("include/ck_tile/core/arch/amd_buffer_addressing.hpp:41:35: error: use of undeclared identifier "
                 "'CK_TILE_BUFFER_RESOURCE_3RD_DWORD'",
                 "include/ck/utility/amd_buffer_addressing.hpp:33:57: error: use of undeclared identifier "
                 "'CK_BUFFER_RESOURCE_3RD_DWORD'"):
        assert "ck_buffer_resource_undeclared" in _ids(line)


def test_miopen_elapsed_time_under_both_log_prefixes():
    for line in ("MIOpen(HIP): Error [EvaluateInvokers] /src/solver_finders.cpp:373: Invalid elapsed time detected in "
                 "EvaluateInvokers, failed condition: elapsed <= 0",
                 "MIOpen: Error [EvaluateInvokers] ...: Invalid elapsed time detected in EvaluateInvokers"):
        assert "miopen_invalid_elapsed_time" in _ids(line)


def test_the_healthy_set_l_paste_stays_quiet():
    folder = next(REAL.glob("580-*"))
    diag = diagnose(detect_snapshot(str(folder)))
    assert not [f for f in diag.findings if f.severity in PROBLEM]
