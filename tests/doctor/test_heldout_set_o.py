"""Held-out set O (tests/data/real/630-641, HELDOUT.md): datacenter nodes and non-Ubuntu installs.  Each
miss's cause, fixed from the program that prints its line (the kubelet's device-manager checkpoint, ROCm's
Kubernetes device plugin, CLR's IPC logging, RCCL's HIP-failure warning, torch's dispatcher under an
extension), tested on the fixture and on its siblings of the same sources, so that the rows are not the
fixture's text; and the package managers and tools of the same families (pacman, rpm, librepo, libzypp,
nixpkgs, dnf config-manager, makepkg, Slurm, Docker's GPU request), on lines of public threads or in
the formats their sources print."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import REAL, assert_named_and_leads, ids as _ids, lead_layer as _lead_layer

FIXTURES = {  # fixture -> (the row that names its cause, the labelled layer)
    "632": ("clr_ipc_memory_create_failed", "runtime"),
    "636": ("k8s_kubelet_checkpoint_amd_gpu_empty", "runtime"),
    "637": ("torch_extension_operator_missing", "framework"),
    "641": ("rccl_warn_hip_failure", "libraries"),
}


@pytest.mark.parametrize("num", sorted(FIXTURES))
def test_set_o_fixture_is_named_by_its_row_and_leads_at_its_layer(num):
    assert_named_and_leads(num, *FIXTURES[num])


def test_rccl_quoting_a_hip_error_is_rccls_line():
    # RCCL's WARN (rocmwrap.h CUCHECK, checks.h CUDACHECK) and its [FATAL ERROR] form name the HIP error RCCL got:
    # the line is RCCL's (libraries), whatever the quoted string is
    for err in ("the operation cannot be performed in the present state", "an illegal memory access was encountered",
                "peer access is not supported between these two devices", "unspecified launch failure"):
        for line in ("node [0] rccl/src/enqueue.cc:2061 NCCL WARN HIP failure '%s'" % err,
                     "[FATAL ERROR]: HIP failure: '%s'" % err):
            layers = {error_signatures.failure_layer(sid) for sid in _ids(line)} - {None}
            assert layers == {"libraries"}, (line, layers)
    # the same strings from HIP itself (PyTorch's 'HIP error: ...') stay at hip
    assert "hip_illegal_state" in _ids("RuntimeError: HIP error: the operation cannot be performed in the present state")
    assert "hip_peer_access_unsupported" in _ids("RuntimeError: HIP error: hipErrorPeerAccessUnsupported")
    # RCCL's HSA and older 'Cuda failure' wordings
    assert "rccl_warn_hip_failure" in _ids("host:1:1 [0] NCCL WARN HSA failure 'HSA_STATUS_ERROR_INVALID_ARGUMENT' at x.cc:1")
    assert "rccl_warn_hip_failure" in _ids("host:2:2 [1] NCCL WARN Cuda failure 'invalid argument'")


def test_kubernetes_device_plugin_family():
    # 636's checkpoint and the partition resource names of the plugin's mixed strategy
    assert "k8s_kubelet_checkpoint_amd_gpu_empty" in _ids('{"Data":{"PodDeviceEntries":null,"RegisteredDevices":'
                                                          '{"amd.com/cpx_nps1":[]}},"Checksum":1}')
    # a checkpoint that lists devices is no failure
    assert "k8s_kubelet_checkpoint_amd_gpu_empty" not in _ids('{"RegisteredDevices":{"amd.com/gpu":["0000:05:00.0"]}}')
    assert "k8s_amd_device_plugin_found_zero" in _ids("I0311 09:54:20.038987 1 plugin.go:136] Found 0 AMDGPUs")
    assert "k8s_amd_device_plugin_found_zero" not in _ids("I0307 23:29:14.533973 1 plugin.go:136] Found 8 AMDGPUs")
    # kubectl describe node's Capacity/Allocatable lines
    assert "k8s_node_amd_gpu_zero" in _ids("  amd.com/gpu:        0")
    assert "k8s_node_amd_gpu_zero" not in _ids("  amd.com/gpu:        8")
    assert "k8s_insufficient_amd_gpu" in _ids("0/1 nodes are available: 1 Insufficient amd.com/gpu.")
    for sid in ("k8s_kubelet_checkpoint_amd_gpu_empty", "k8s_amd_device_plugin_found_zero", "k8s_node_amd_gpu_zero",
                "k8s_insufficient_amd_gpu"):
        assert error_signatures.failure_layer(sid) == "runtime"
    assert error_signatures.failure_layer("k8s_node_labeller_no_kfd_topology") == "kernel"


def test_clr_ipc_rows_and_torch_extension_operators():
    # CLR's device and HIP messages around hipIpcGetMemHandle / hipIpcOpenMemHandle (632's chain and its siblings)
    assert "clr_ipc_memory_create_failed" in _ids("[OCL] Failed to create memory for IPC")
    assert "hip_ipc_memory_creation_failed" in _ids(":1:hip_memory.cpp:3354: IPC memory creation failed for memory: 0xbae00000")
    assert "hip_ipc_attach_failed" in _ids("Cannot attach ipc_handle: with ipc_size: 6291456ipc_offset: 0 flags: 1")
    # any extension namespace missing from torch's dispatcher, and torchvision's own message
    assert "torch_extension_operator_missing" in _ids("RuntimeError: operator torchaudio::_lfilter does not exist")
    assert "torch_extension_operator_missing" not in _ids("the operator does not exist in this context")
    assert "torchvision_custom_ops_not_loaded" in _ids(
        "RuntimeError: Couldn't load custom C++ ops. This can happen if your PyTorch and torchvision versions are "
        "incompatible, or if you had errors while compiling torchvision from source.")


@pytest.mark.parametrize("line,row,layer", [
    ("error: failed to prepare transaction (could not satisfy dependencies)", "pacman_transaction_failed", "packaging"),
    ("comgr: /opt/rocm/lib/libamd_comgr.so exists in filesystem (owned by rocm-comgr)", "pacman_file_conflict", "packaging"),
    ("/opt/rocm exists in both 'opencl-amd' and 'hsakmt-roct'", "pacman_file_conflict", "packaging"),
    (":: installing hip-runtime-nvidia (5.4.1-1) breaks dependency 'hip-runtime-amd' required by rocm-hip-runtime",
     "pacman_breaks_dependency", "packaging"),
    ("[FAILED] dlpack-devel-0.8-1.5.x86_64.rpm: Status code: 404 for "
     "https://rpmfind.net/linux/opensuse/tumbleweed/repo/oss/x86_64/dlpack-devel-0.8-1.5.x86_64.rpm (IP: 195.220.108.108)",
     "librepo_status_404", "packaging"),
    ("==> ERROR: A failure occurred in build().", "makepkg_build_function_failed", "packaging"),
    ("Error response from daemon: could not select device driver \"rocm\" with capabilities: [[gpu video]]",
     "docker_no_gpu_device_driver", "runtime"),
    ("Configured with rsmi, but rsmi isn't enabled during the build.", "slurm_rsmi_not_built", "packaging"),
    ("[  918.654913] amdgpu 0000:15:00.0: {1}uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!",
     "ras_athub_uncorrectable_interrupt", "firmware"),
])
def test_non_ubuntu_and_datacenter_siblings(line, row, layer):
    assert row in _ids(line)
    assert error_signatures.failure_layer(row) == layer


def test_lead_of_the_rccl_fixture_with_iommu_advice():
    # 639 (as 492): RCCL's IPC failure (libraries) leads; RCCL's own missing-iommu=pt warning is a statement of
    # configuration that may explain it (model.STATUS_RULES, s12) and follows, still reported at firmware
    folder = next(REAL.glob("639-*"))
    assert _lead_layer(folder) == "libraries"
    assert "rccl_hip_failure" in _ids((folder / "summary.txt").read_text(encoding="utf-8"))
    from rwtest import realrun
    assert any(f.id == "iommu-p2p-settings" and f.layer == "firmware" for f in realrun.diagnosis(folder).findings)
