"""Held-out set HS (tests/data/real/3210-3213, HELDOUT.md): threads about the distributions' own ROCm packages (Debian,
Ubuntu universe).  3213 (apt refusing AMD's rocm-hip-runtime-dev for universe's rocm-device-libs 5.0.0-1) led at
packaging on the unchanged code; 3211 and 3212 tell their failure only in titles and prose (MISSES).  3210 (AMDGPU.jl on
Ubuntu 26.04's packaged ROCm) missed twice: Julia's crash header names the signal with glibc's strsignal(), which
follows the locale ('signal 11 (1): Falha de segmentação'), where the set-BH row wanted the English name; and
AMDGPU.jl's own load-time warnings (JuliaGPU/AMDGPU.jl src/AMDGPU.jl __init__ '... is unavailable, ... will be
disabled.', src/discovery/utils.jl 'bindeps: Failed running ld.lld in <path>') had no row, the ld.lld line read at
kernel by the catch-all.  The BH row now reads any name for signals 11, 7, 6 and 4; a new framework row reads the
warnings."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

JULIA = "s13bh_julia_signal_in_rocm_math_library"
UNAVAILABLE = "hs_amdgpu_jl_rocm_component_unavailable"

_FRAMES = ("in expression starting at REPL[9]:1\n"
           "unknown function (ip: 0x70bbe5274516) at /usr/lib/x86_64-linux-gnu/libamdhip64.so\n"
           "unknown function (ip: 0x70bb884cfd2e) at /usr/lib/x86_64-linux-gnu/librocsparse.so\n"
           "rocsparse_create_handle at /usr/lib/x86_64-linux-gnu/librocsparse.so (unknown line)\n")


def test_the_set_hs_packaging_fixture_leads_at_packaging():
    assert _lead_layer(_fixture("3213")) == "packaging"


def test_the_amdgpu_jl_fixture_is_named_and_leads_at_libraries():
    assert_named_and_leads("3210", JULIA, "libraries")


@pytest.mark.parametrize("header", [
    # the fixture's header (JuliaGPU/AMDGPU.jl#920, Ubuntu 26.04, a pt_BR locale)
    "[9750] signal 11 (1): Falha de segmentação\n",
    # fixture 1480's English header (JuliaGPU/AMDGPU.jl#889, Fedora, Strix Halo)
    "[8887] signal 11 (1): Segmentation fault\n",
    # glibc po/de.po's strsignal(SIGSEGV), in Julia 1.10+'s form
    "[4242] signal 11 (128): Speicherzugriffsfehler\n",
    # Julia before 1.10 ('signal (%d): %s', src/signal-handling.c), glibc po/fr.po's SIGABRT name
    "signal (6): Abandon\n",
])
def test_the_julia_row_reads_the_signal_in_any_locale(header):
    assert JULIA in _ids(header + _FRAMES)
    assert error_signatures.failure_layer(JULIA) == "libraries"


@pytest.mark.parametrize("header", [
    # SIGINT (2) and SIGTERM (15) are a user's or a scheduler's stop, not a crash: a localised name is not read
    "[9750] signal 2 (0): Interrupção\n",
    "[9750] signal 15 (0): Beendet\n",
])
def test_other_signals_in_another_language_are_not_read(header):
    assert JULIA not in _ids(header + _FRAMES)


def test_a_crash_without_a_rocm_library_frame_is_not_read():
    text = ("[9750] signal 11 (1): Falha de segmentação\nin expression starting at REPL[9]:1\n"
            "unknown function (ip: 0x70bbe5274516) at /usr/lib/x86_64-linux-gnu/libamdhip64.so\n")
    assert JULIA not in _ids(text)


@pytest.mark.parametrize("line", [
    # the fixture's lines (JuliaGPU/AMDGPU.jl#920, AMDGPU.jl with Ubuntu 26.04's packaged ROCm, no ROCM_PATH)
    "┌ Warning: HSA runtime is unavailable, compilation and runtime functionality will be disabled.",
    "┌ Warning: HIP library is unavailable, HIP integration will be disabled.",
    "┌ Warning: rocSPARSE is unavailable, functionality will be disabled.",
    "┌ Warning: bindeps: Failed running ld.lld in /usr/lib/llvm-21/bin/ld.lld",
    # fixture 993 (Arch, ROCm 7.0.2's ld.lld missing libxml2.so.2)
    "┌ Warning: bindeps: Failed running ld.lld in /opt/rocm/lib/llvm/bin/ld.lld",
    # src/AMDGPU.jl's other warnings, as Julia's logger prints a one-line message
    "[ Warning: Device libraries are unavailable, device intrinsics will be disabled.",
    # AMDGPU.jl's 2021-2022 wording (src/AMDGPU.jl before the runtime discovery of 2023)
    "┌ Warning: rocRAND failed to load, RNG functionality will be unavailable.",
])
def test_the_amdgpu_jl_row_reads_its_discovery_warnings(line):
    assert UNAVAILABLE in _ids(line)
    assert error_signatures.failure_layer(UNAVAILABLE) == "framework"


@pytest.mark.parametrize("line", [
    # AMDGPU.jl's versioninfo() table of a working install: no warning
    "│     +     │ rocSPARSE        │ 4.1.0     │ /usr/lib/x86_64-linux-gnu/librocsparse.so                     │",
    # another program's wording
    "Warning: the GPU is unavailable, please try again later",
    # AMDGPU.jl's HSA init failure is a different message (the runtime's status), not this row
    "┌ Warning: HSA initialization failed with code HSA_STATUS_ERROR_OUT_OF_RESOURCES",
])
def test_near_misses_do_not_match_the_amdgpu_jl_row(line):
    assert UNAVAILABLE not in _ids(line)
