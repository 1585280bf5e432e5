"""Held-out set DR (tests/data/real/2320-2324, HELDOUT.md): the amdgpu and amdkfd drivers' own warnings, oopses and
panics in 2025-2026 kernels.  Three of the five fixtures had no finding on the unchanged code: the kernel's oops header
for a bad kernel memory access (torvalds/linux arch/x86/mm/fault.c show_fault_oops(), arm64 die_kernel_fault()), the
WARN header of the 6.19+ kernels (kernel/panic.c __warn() since 28ea295f941e: "WARNING: %s:%d at %pS, CPU#%d: %s/%d")
and a panic screen decoded from drm_panic's QR code (drivers/gpu/drm/drm_panic.c's URL "?a=%s&v=%s&z=" and the
panic_report page's "Panic Report" / "Arch:" / "Version:" header).  A fourth, kernel/panic.c panic()'s "Kernel panic -
not syncing: %s", was read only by the catch-all.  Each row is tested on its fixture, on other real wordings of the same
source, and on near-misses; the dmesg parser reads the panic report's release."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import dmesg
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("2320", "kernel"), ("2321", "kernel"), ("2322", "kernel"), ("2323", "kernel"),
                                       ("2324", "kernel")])
def test_the_set_dr_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row", [("2320", "dr_kernel_oops_bad_memory_access"),
                                     ("2321", "dr_kernel_warn_in_amdgpu_cpu_hash_header"),
                                     ("2322", "dr_kernel_panic_not_syncing"),
                                     ("2324", "dr_drm_panic_qr_report")])
def test_each_new_row_reads_its_fixture_and_leads_at_kernel(num, row):
    assert_named_and_leads(num, row, "kernel")


@pytest.mark.parametrize("row,text", [
    # x86 since v5.2, a kernel address (ROCm/ROCm#2198 title, rocm-bandwidth-test on two RX 7900 XTX, 6.2.16)
    ("dr_kernel_oops_bad_memory_access", "[  110.623513] BUG: unable to handle page fault for address: ffffa92a3eaffff8"),
    # x86 up to v5.1 (ROCm/ROCm#365, 2018, gmc_v8_0_set_pte_pde)
    ("dr_kernel_oops_bad_memory_access",
     "[  236.421417] BUG: unable to handle kernel NULL pointer dereference at 0000000000000018"),
    # arm64 die_kernel_fault (geerlingguy/raspberry-pi-pcie-devices#222, an RX 6700 XT on a Raspberry Pi 5)
    ("dr_kernel_oops_bad_memory_access",
     "[    5.360608] Unable to handle kernel NULL pointer dereference at virtual address 0000000000000008"),
    # the reason after an oops in an interrupt (a dma_fence_signal oops quoted in an amdgpu patch, freedesktop patchwork 654669)
    ("dr_kernel_panic_not_syncing", "[  206.555667] Kernel panic - not syncing: Fatal exception in interrupt"),
    # the 6.19+ WARN header: a journal line on a FirePro W4100 (7.1.0-rc6, a linux-kernel list report of 2026-06)
    ("dr_kernel_warn_in_amdgpu_cpu_hash_header",
     "Jun 02 09:25:11 sunny kernel: WARNING: drivers/gpu/drm/amd/amdgpu/vce_v1_0.c:329 at "
     "vce_v1_0_set_powergating_state+0x5b8/0x600 [amdgpu], CPU#8: (udev-worker)/251"),
    # ... the GPU reset path of a Framework Desktop on NixOS's 7.0.2 (a report of 2026-05)
    ("dr_kernel_warn_in_amdgpu_cpu_hash_header",
     "May 04 13:59:27 skrye kernel: WARNING: drivers/gpu/drm/amd/amdgpu/../display/dc/clk_mgr/dcn35/dcn35_smu.c:175 at "
     "dcn35_smu_send_msg_with_param+0x10d/0x1d0 [amdgpu], CPU#23: kworker/u128:2/3316950"),
    # ... with the file relative to the amd tree (devsnd's post 'Fixing display freezing with AMD GPU on kernel 7.0.0')
    ("dr_kernel_warn_in_amdgpu_cpu_hash_header",
     "[   35.439875] WARNING: amd/amdgpu/../display/dc/hubbub/dcn31/dcn31_hubbub.c:151 at "
     "dcn31_program_compbuf_size+0xcc/0x230 [amdgpu], CPU#0: kworker/0:2/180"),
    # drm_panic's QR URL itself, as scanned from the panic screen (morrownr/rtw89#88, Kali's 6.19.11)
    ("dr_drm_panic_qr_report",
     "you get [a link](https://kernel-team.pages.debian.net/panic_report/#?a=x86_64&v=6.19.11+kali-amd64&z=617303509201"),
])
def test_other_real_wordings_of_the_same_sources(row, text):
    assert row in ids(text)
    assert error_signatures.failure_layer(row) == "kernel"


@pytest.mark.parametrize("text,row", [
    # the older WARN header is the older rows' (kernel_warn_in_amdgpu), not this one
    ("[   93.248827] WARNING: CPU: 7 PID: 2893 at drivers/gpu/drm/amd/amdgpu/../display/dc/hubbub/dcn31/dcn31_hubbub.c:151 "
     "hubbub31_init_dchub_sys_ctx+0x610/0x27d0 [amdgpu]", "dr_kernel_warn_in_amdgpu_cpu_hash_header"),
    # another subsystem's WARN in the new header (intel/ccc-linux-guest-hardening#98's kfree WARN, its older header
    # rewritten in the new one): no amd/scheduler/ttm file, no [amdgpu] function
    ("[   12.000000] WARNING: mm/slub.c:3567 at kfree+0x1e/0x90, CPU#0: sh/79", "dr_kernel_warn_in_amdgpu_cpu_hash_header"),
    # the lockup watchdog's 'CPU#' is not a WARN header
    ("[  196.456906] watchdog: BUG: soft lockup - CPU#31 stuck for 26s! [python3:4415]",
     "dr_kernel_warn_in_amdgpu_cpu_hash_header"),
    # an issue title in prose, and a Rust program's own 'PANIC REPORT' block (no Arch/Version header)
    ("Kernel panic when loading any model", "dr_kernel_panic_not_syncing"),
    ("PANIC REPORT\n============================================================\nTimestamp: 2026-01-01T00:00:00Z\n"
     "Version: 0.3.1\n", "dr_drm_panic_qr_report"),
    # a user's sentence about a NULL pointer, not the oops header
    ("I think amdgpu has a NULL pointer dereference somewhere in the teardown", "dr_kernel_oops_bad_memory_access"),
])
def test_near_misses_are_not_read(text, row):
    assert row not in ids(text)


@pytest.mark.parametrize("text,release", [
    # the fixture's header (ollama/ollama#11651, Arch's zen kernel)
    ("Panic Report\nArch: x86_64\nVersion: 6.15.7-zen1-1.1-zen\n\n[ 5804.236961]  ? __kmalloc_noprof+0x25f/0x4e0\n",
     "6.15.7-zen1-1.1-zen"),
    # the QR URL (morrownr/rtw89#88)
    ("https://kernel-team.pages.debian.net/panic_report/#?a=x86_64&v=6.19.11+kali-amd64&z=6173035092\n",
     "6.19.11+kali-amd64"),
])
def test_the_decoded_panic_screen_names_the_kernel_release(text, release):
    assert dmesg.kernel_version(text) == release


def test_a_version_line_without_the_panic_report_header_names_no_release():
    assert dmesg.kernel_version("PANIC REPORT\nTimestamp: 2026-01-01\nVersion: 0.3.1\n") is None
