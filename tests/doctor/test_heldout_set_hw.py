"""Held-out set HW (tests/data/real/3260-3263, HELDOUT.md): a second sample of threads about installing ROCm from AMD's
repositories.  3263's failing line, glibc's loader refusing libdrm_amdgpu's 'amdgpu_va_get_start_addr' (bminor/glibc
elf/dl-lookup.c "undefined symbol: %s"; every function libdrm's amdgpu library exports is named amdgpu_*, mesa/drm
amdgpu/amdgpu-symbols.txt), was read by the catch-all without a layer; the row hw_libdrm_amdgpu_symbol_missing reads it
at packaging (two libdrm_amdgpu builds on the system, the wrong one loaded: AMD's /opt/amdgpu copy from amdgpu-install
shadowing the distribution's newer one Mesa needs, or the reverse).  3260 is a healthy install whose postinst prints a
'not found, but that is OK' note and must stay without a warning.  3261 and 3262 (meta packages whose dpkg -I / rpm -qR
show missing dependencies) are documented misses: no line of theirs fails."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

ROW = "hw_libdrm_amdgpu_symbol_missing"


def test_the_set_hw_failing_fixture_leads_at_packaging():
    assert_named_and_leads("3263", ROW, "packaging")


def test_the_healthy_install_with_the_postinst_note_stays_without_a_warning():
    assert _lead_layer(_fixture("3260")) is None


@pytest.mark.parametrize("line", [
    # the fixture's title (ROCm/ROCm#2934, Pop!_OS 22.04 after amdgpu-install --usecase=opencl)
    "[Issue]: undefined symbol: amdgpu_va_get_start_addr - Pop!_OS 22.04",
    # the same thread's description: the loader's own line for Mesa's radeonsi pipe loaded with AMD's older libdrm
    "clinfo: symbol lookup error: /usr/lib/x86_64-linux-gnu/gallium-pipe/pipe_radeonsi.so: undefined symbol: "
    "amdgpu_va_get_start_addr",
    # GPUOpen-Drivers/AMDVLK#348: LD_DEBUG's form, AMDVLK needing its libdrm fork's semaphore functions
    "   3165526:     /nix/store/qdwkcdm1mb2dnh96cigd2vma2x5gxyfm-libdrm-2.4.116/lib/libdrm_amdgpu.so.1: error: symbol lookup "
    "error: undefined symbol: amdgpu_cs_create_sem (fatal)",
    # Mesa's loader relaying dlerror (src/loader/loader.c "MESA-LOADER: failed to open %s: %s (search paths %s, suffix
    # %s)") for the symbol swaywm/wlroots#2890 reports with AMD's /opt/amdgpu libdrm loaded
    "MESA-LOADER: failed to open radeonsi: /usr/lib/x86_64-linux-gnu/dri/radeonsi_dri.so: undefined symbol: "
    "amdgpu_query_video_caps_info (search paths /usr/lib/x86_64-linux-gnu/dri, suffix _dri)",
])
def test_the_loader_refusing_a_libdrm_amdgpu_function_is_read_at_packaging(line):
    assert ROW in ids(line)
    assert error_signatures.failure_layer(ROW) == "packaging"


def test_the_row_replaces_the_two_releases_reading_for_libdrm_symbols():
    # rocm_symbol_lookup_error's meaning (two ROCm releases in one process) does not fit a libdrm function
    line = ("clinfo: symbol lookup error: /usr/lib/x86_64-linux-gnu/gallium-pipe/pipe_radeonsi.so: undefined symbol: "
            "amdgpu_va_get_start_addr")
    assert "rocm_symbol_lookup_error" not in ids(line)


@pytest.mark.parametrize("line", [
    # libhsakmt looks the function up itself and goes on (ROCR-Runtime libhsakmt/src/openclose.c): the runtime's line
    "amdgpu_device_get_fd is not available: /lib/x86_64-linux-gnu/libdrm_amdgpu.so.1: undefined symbol: "
    "amdgpu_device_get_fd",
    # two ROCm releases in one process: ROCr's symbol, the existing row's
    "python: symbol lookup error: /opt/rocm/lib/libamdhip64.so.7: undefined symbol: "
    "hsa_amd_memory_get_preferred_copy_engine, version ROCR_1",
    # a build linking against libdrm (ld's wording), and the kernel's module loader
    "/usr/bin/ld: amdgpu_device.o: undefined reference to `amdgpu_bo_alloc'",
    "[    5.123456] amdgpu: Unknown symbol amdgpu_xcp_drv_release (err -2)",
])
def test_near_misses_are_not_read_as_a_libdrm_mismatch(line):
    assert ROW not in ids(line)


def test_the_two_releases_row_still_reads_rocm_symbols():
    line = ("python: symbol lookup error: /opt/rocm/lib/libamdhip64.so.7: undefined symbol: "
            "hsa_amd_memory_get_preferred_copy_engine, version ROCR_1")
    assert "rocm_symbol_lookup_error" in ids(line)
