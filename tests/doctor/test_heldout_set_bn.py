"""Held-out set BN (tests/data/real/1580-1587, HELDOUT.md): GPU passthrough and virtualisation hosts.  The lines read from
the programs that print them: QEMU's vCPU loop ('error: kvm run failed %s', accel/kvm/kvm-all.c) and its vfio device
('vfio: Unable to power on device, stuck in D%d', hw/vfio/pci.c); the kernel PCI core's reset wait ('not ready %dms after
%s; giving up', drivers/pci/pci.c), now at kernel with its siblings; gnif/vendor-reset's own failure messages
('<dev>: AMD_<family>: failed to reset device' ..., and its SMU mailbox's 'SMU error 0x%x'); the kernel's sysfs
'cannot create duplicate filename' under a PCI device (fs/sysfs/dir.c); AMD's SR-IOV host driver GIM's error lines
('gim error libgv: [bdf][function:line] ...', and GIM 1.x's 'gim error:(function:line) ...'); amdgpu's VF mailbox 'Doesn't
get ack from pf' (mxgpu_vi/ai/nv.c).  Doctor's VM rule is information on the SR-IOV host's own log, and the catch-all puts
lines printed through vfio-pci/pci-stub or GIM at kernel."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rwtest.heldout import assert_named_and_leads, doctor_files, problems, ids as _ids

KVM = "bn_qemu_kvm_run_failed"
D3 = "bn_qemu_vfio_stuck_in_d3"
NOT_READY = "pci_not_ready_after_reset"
VR = "bn_vendor_reset_failed"
VR_SMU = "bn_vendor_reset_smu_no_response"
SYSFS = "bn_sysfs_duplicate_filename_pci_device"
GIM = "bn_gim_libgv_error"
ACK = "bn_amdgpu_vf_no_ack_from_pf"


@pytest.mark.parametrize("num,row,layer", [
    ("1580", KVM, "kernel"),
    ("1580", D3, "kernel"),
    ("1580", NOT_READY, "kernel"),
    ("1581", VR, "kernel"),
    ("1581", VR_SMU, "kernel"),
    ("1584", SYSFS, "kernel"),
    ("1586", GIM, "kernel"),
    ("1587", ACK, "kernel"),
])
def test_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


@pytest.mark.parametrize("row,line", [
    # QEMU's KVM_RUN failure with other errno texts and a libvirt log prefix
    (KVM, "error: kvm run failed Invalid argument"),
    (KVM, "2026-10-02T08:11:43.512301Z qemu-system-x86_64: error: kvm run failed Bad address"),
    # QEMU's vfio power-up failure, other states
    (D3, "kvm: vfio: Unable to power on device, stuck in D3"),
    (D3, "vfio: Unable to power on device, stuck in D1"),
    # the PCI core's reset wait giving up after a resume or an FLR
    (NOT_READY, "[ 87.412701] nvidia 0000:01:00.0: not ready 65535ms after resume; giving up"),
    (NOT_READY, "vfio-pci 0000:81:00.0: not ready 65535ms after FLR; giving up"),
    # vendor-reset's failures from its threads (#82, #5, #73) and its sources (navi10.c, polaris10.c, vega10.c)
    (VR, "May 13 04:23:43 pve kernel: vfio-pci 0000:75:00.0: AMD_VEGA10: amdgpu_get_bios failed: 0"),
    (VR, "[  184.390719] vfio-pci 0000:43:00.0: AMD_VEGA20: psp mode1 reset failed"),
    (VR, "Feb 10 02:10:49 omv kernel: vfio-pci 0000:06:00.0: AMD_VEGA10: Could not reset w/ PPSMC_MSG_GfxDeviceDriverReset: 254"),
    (VR, "vfio-pci 0000:0c:00.0: AMD_NAVI14: timed out waiting for MP1 reset"),
    (VR, "vfio-pci 0000:03:00.0: AMD_POLARIS10: Failed to enter BACO: -110"),
    (VR, "vfio-pci 0000:45:00.0: AMD_VEGA10: could not get enabled SMU features, trying BACO reset anyway [ret -62]"),
    # vendor-reset's SMU mailbox on the stub's device (#25, #73)
    (VR_SMU, "[  754.280970] vfio-pci 0000:0c:00.0: SMU error 0xfd"),
    (VR_SMU, "Feb 10 02:10:49 omv kernel: vfio-pci 0000:06:00.0: Failed to send message 0x45: return 0xfe"),
    # sysfs's duplicate under a PCI device, amdgpu re-bound after passthrough (vendor-reset#21)
    (SYSFS, "[ 1078.072222] sysfs: cannot create duplicate filename "
            "'/devices/pci0000:00/0000:00:03.1/0000:07:00.0/0000:08:00.0/0000:09:00.0/vbios_version'"),
    # GIM's other error lines: a reset (libgv's RESET category), the vf-limit message, GIM 1.x's format
    (GIM, "[44217.861241] gim error libgv: [0:3d:0:0][PF][amdgv_reset_gpu:142] Issuing Whole GPU reset."),
    (GIM, "[Wed Oct 15 16:04:04 2025] gim error libgv: [0:c6:0:0][amdgv_parse_config_opt:1020] VF number 8 to be enabled "
          "exceeds the vf limit 1."),
    (GIM, "gim error:(set_new_adapter:617) asic does not support SRIOV"),
    # amdgpu's VF mailbox, its three wordings
    (ACK, "[    4.102311] amdgpu 0000:00:08.0: Doesn't get ack from pf, give up"),
    (ACK, "[    3.551120] amdgpu 0000:03:00.0: Doesn't get ack from pf, continue"),
    (ACK, "Doesn't get ack from pf."),
])
def test_other_wordings_are_named(row, line):
    assert row in _ids(line), line
    assert error_signatures.failure_layer(row) == "kernel"


@pytest.mark.parametrize("row,line", [
    # another VMM's vCPU failure (libkrun) and QEMU's entry failure are not QEMU's KVM_RUN errno line
    (KVM, "ERROR krun_vmm::linux::vstate] Failure during vcpu run: Bad address (os error 14)"),
    (KVM, "KVM: entry failed, hardware error 0x80000021"),
    # the kernel's own power-state message is another row
    (D3, "vfio-pci 0000:84:00.1: Unable to change power state from D3cold to D0, device inaccessible"),
    # the reset wait still waiting is no failure yet
    (NOT_READY, "vfio-pci 0000:84:00.0: not ready 4095ms after bus reset; waiting"),
    # vendor-reset's progress and success lines
    (VR, "vfio-pci 0000:0c:00.0: AMD_NAVI14: timed out waiting for PSP to reach valid state, but continuing anyway"),
    (VR, "vfio-pci 0000:43:00.0: AMD_VEGA20: psp mode1 reset succeeded"),
    (VR, "vfio-pci 0000:10:00.0: AMD_NAVI10: mode1 reset succeeded"),
    (VR, "vfio-pci 0000:2f:00.0: AMD_NAVI10: reset result = 0"),
    # amdgpu's own SMU lines are not vendor-reset's mailbox
    (VR_SMU, "amdgpu 0000:03:00.0: amdgpu: SMU driver if version not matched"),
    (VR_SMU, "amdgpu 0000:09:00.0: SMU error 0x0"),
    # duplicates outside a PCI device (a charger, an auxiliary bus device, an ACPI device)
    (SYSFS, "[    8.134533] sysfs: cannot create duplicate filename '/class/power_supply/sbs-charger'"),
    (SYSFS, "sysfs: cannot create duplicate filename '/bus/auxiliary/devices/ice.roce.0'"),
    (SYSFS, "sysfs: cannot create duplicate filename '/devices/platform/ACPI000E:00/time'"),
    # GIM's information lines
    (GIM, "gim info libgv: [0:3d:0:0][amdgv_sched_enter_full_access:412] VF0 entered full access mode."),
    (GIM, "[  162.028934] gim info:(gim_init:152) GPU IOV MODULE - version 0.0"),
    # the VF mailbox's other message
    (ACK, "amdgpu 0000:00:08.0: trn=2 ack should not assert! wait again !"),
])
def test_near_misses_are_not_the_row(row, line):
    assert row not in _ids(line), line


@pytest.mark.parametrize("line", [
    # lines printed through the passthrough stub or GIM are the host kernel's, whatever block they name
    "vfio-pci 0000:45:00.0: AMD_VEGA10: SMU response reg: 1, sol reg: 6b0, mp1 intr enabled? no, bl ready? no, baco? off failed",
    "pci-stub 0000:0f:00.0: AMD_NAVI10: PSP error while waiting",
    "gim error libgv: [0:3d:0:0][PF][mi300_something_new:99] PSP firmware error 0x42",
])
def test_the_catch_all_puts_passthrough_driver_lines_at_kernel(line):
    assert failure_lines.layer_of(line) == "kernel"


def _passthrough_layer_row():
    import re
    rows = [r for r in failure_lines.table()._data["layer"] if "vfio-pci" in r["pattern"] and "gim" in r["pattern"]]
    assert len(rows) == 1 and rows[0]["layer"] == "kernel"
    return re.compile(rows[0]["pattern"], re.I)


@pytest.mark.parametrize("line", [
    # the row is the printing driver's prefix, not the words: amdgpu's own SMU/PSP lines and prose keep their rows
    "amdgpu 0000:03:00.0: amdgpu: SMU: I'm not done with your previous command: SMN_C2PMSG_66:0x00000006",
    "[drm:psp_hw_start [amdgpu]] *ERROR* PSP create ring failed!",
    "the vfio-pci driver failed to bind my gim setup",
])
def test_the_passthrough_layer_row_is_the_drivers_prefix(line):
    assert not _passthrough_layer_row().search(line), line


def test_the_vm_rule_is_information_on_the_sriov_hosts_own_log(tmp_path):
    host = doctor_files(tmp_path, {
        "title.txt": "The VM with MxGPU gets a kernel panic after multiple resets\n",
        "dmesg.txt": "[44217.850044] gim error libgv: [0:3d:0:0][PF][amdgv_psp_cmd_km_submit:525] PSP command fence wait "
                     "failed.\n",
    })
    found = problems(host)
    assert found and found[0] == ("known-failure", "kernel")
    assert "vm-gpu-unsupported" not in {i for i, _l in found}


def test_the_vm_rule_still_reports_a_guest(tmp_path):
    guest = doctor_files(tmp_path, {
        "lspci.txt": "00:05.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Tonga XT GL [FirePro S7150] "
                     "(MxGPU)\n",
        "dmesg.txt": "[    4.102311] amdgpu 0000:00:05.0: Doesn't get ack from pf, give up\n",
    })
    assert "vm-gpu-unsupported" in {i for i, _l in problems(guest)}
