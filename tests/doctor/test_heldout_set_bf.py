"""Held-out set BF (tests/data/real/1440-1445, HELDOUT.md): cluster schedulers and orchestration.
Each miss's cause fixed from the program that prints the line: ROCm's Kubernetes device plugin and amdgpu node
labeller (ROCm/k8s-device-plugin internal/pkg/amdgpu/amdgpu.go, cmd/k8s-node-labeller/main.go) and UCX
(openucx/ucx src/uct/ib/base/ib_md.c, src/uct/rocm/ipc/rocm_ipc_md.c); tested on the fixture and on other wordings of
the same sources, with near-misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, ids as _ids


# -- the device plugin / labeller finds no amdgpu driver on its node (1440) ------------------------------
def test_1440_the_labellers_fatal_exit_is_named_at_runtime():
    assert_named_and_leads("1440", "s13bf_k8s_amdgpu_driver_unavailable", "runtime")


@pytest.mark.parametrize("line", [
    # the fixture's glog fatal line (amdgpu.go GetAMDGPUs, glog.Fatalf)
    "F0106 12:37:25.721352       1 amdgpu.go:151] amdgpu driver unavailable. exiting with exit code 2. error: "
    "stat /sys/module/amdgpu/drivers/: no such file or directory",
    # the same call with FatalOnDriverUnavailable off: glog.Warningf("amdgpu driver unavailable: %s", err)
    "W0312 08:01:02.000001       1 amdgpu.go:161] amdgpu driver unavailable: stat /sys/module/amdgpu/drivers/: "
    "no such file or directory",
    # the device plugin's pod log through kubectl, older line number
    "I0101 00:00:00.1 1 main.go:120] AMD GPU device plugin for Kubernetes\n"
    "F0101 00:00:00.2 1 amdgpu.go:120] amdgpu driver unavailable. exiting with exit code 2. error: stat "
    "/sys/module/amdgpu/drivers/: permission denied",
])
def test_the_driver_unavailable_line_is_named(line):
    assert "s13bf_k8s_amdgpu_driver_unavailable" in _ids(line), line


@pytest.mark.parametrize("line", [
    # prose about it, without the program's colon and error
    "is the amdgpu driver unavailable on the worker nodes or just not labelled?",
    # another program's wording
    "amdgpu driver not loaded: skipping GPU discovery",
])
def test_prose_about_a_missing_driver_is_not_the_plugins_line(line):
    assert "s13bf_k8s_amdgpu_driver_unavailable" not in _ids(line), line


# -- the node labeller cannot read a GPU property from sysfs (1441) --------------------------------------
def test_1441_the_labellers_sysfs_read_error_is_named_at_runtime():
    assert_named_and_leads("1441", "s13bf_k8s_node_labeller_sysfs_read_failed", "runtime")


@pytest.mark.parametrize("line", [
    # the fixture's product_name line (main.go:217, log.Error(err, prodnamePath))
    '{"level":"error","ts":"2025-05-08T18:14:04Z","logger":"amdgpu-node-labeller","msg":'
    '"/sys/class/drm/card0/device/product_name","error":"open /sys/class/drm/card0/device/product_name: '
    'no such file or directory","stacktrace":"main.init.func6"}',
    # the driver-version label (log.Error(err, versionPath)) on another card
    '{"level":"error","ts":1636410993.09,"logger":"amdgpu-node-labeller","msg":'
    '"/sys/class/drm/card8/device/driver/module/version","error":"open /sys/class/drm/card8/device/driver/module/'
    'version: no such file or directory"}',
    # the device-id label, permission denied
    '{"level":"error","ts":"2026-02-01T10:00:00Z","logger":"amdgpu-node-labeller","msg":'
    '"/sys/class/drm/card1/device/device","error":"open /sys/class/drm/card1/device/device: permission denied"}',
])
def test_the_labellers_read_errors_are_named(line):
    assert "s13bf_k8s_node_labeller_sysfs_read_failed" in _ids(line), line


@pytest.mark.parametrize("line", [
    # the labeller's info lines
    '{"level":"info","ts":"2025-05-08T18:14:04Z","logger":"amdgpu-node-labeller.entrypoint","msg":"setting up manager"}',
    '{"level":"info","ts":"2025-05-08T18:14:04Z","msg":"Starting Controller","controller":"amdgpu-node-labeller"}',
    # its other error, which has a row of its own (k8s_node_labeller_no_kfd_topology)
    '{"level":"error","ts":1636410993.09,"logger":"amdgpu-node-labeller","msg":"Fail to glob topology properties"}',
])
def test_the_labellers_other_lines_are_not_a_sysfs_read_error(line):
    assert "s13bf_k8s_node_labeller_sysfs_read_failed" not in _ids(line), line


# -- UCX cannot register a GPU buffer with the RDMA adapter (1444) ---------------------------------------
def test_1444_ucx_registration_failure_is_named_at_kernel():
    assert_named_and_leads("1444", "s13bf_ucx_ib_reg_mr_failed", "kernel")


@pytest.mark.parametrize("line", [
    # the fixture's line (ib_md.c, ibv_reg_mr)
    "[1706257302.851919] [lxbk1102:2038794:0]           ib_md.c:309  UCX  ERROR ibv_reg_mr(address=0x7fe35ea00000, "
    "length=16, access=0x10000f) failed: Invalid argument",
    # the dma-buf registration of the same function
    "[1760000000.1] [node01:4242:0]  ib_md.c:530  UCX  ERROR ibv_reg_dmabuf_mr(address=0x7f1200000000, "
    "length=1048576, access=0xf) failed: Operation not supported",
    # the huge-page hint UCX appends for EINVAL
    "ib_md.c:309 UCX ERROR ibv_reg_mr(address=0x7fe35ea00000, length=4194304, access=0x10000f) failed: Invalid "
    "argument. Application is using HUGE pages. Please set environment variable RDMAV_HUGEPAGES_SAFE=1",
    # an older UCX with the experimental verbs
    "ib_md.c:351  UCX  ERROR ibv_exp_reg_mr(address=0x7f8c40000000, length=65536, access=0xf) failed: Bad address",
])
def test_ucx_registration_failures_are_named(line):
    assert "s13bf_ucx_ib_reg_mr_failed" in _ids(line), line


@pytest.mark.parametrize("line", [
    # ENOMEM is the locked-memory limit, not a GPU memory path
    "ib_md.c:309 UCX ERROR ibv_reg_mr(address=0x7f0000000000, length=8388608, access=0xf) failed: Cannot allocate "
    "memory. Please set max locked memory (ulimit -l) to 'unlimited' (current: 65536 kbytes)",
    # the trace line of a successful registration
    "ib_md.c:420 UCX TRACE ibv_reg_mr(address=0x7f0000000000, length=4096, access=0xf) mr=0x1234 lkey 0x55",
])
def test_other_registration_lines_are_not_the_gpu_memory_row(line):
    assert "s13bf_ucx_ib_reg_mr_failed" not in _ids(line), line


# -- UCX's rocm_ipc cannot export a GPU buffer (1445) ----------------------------------------------------
def test_1445_ucx_rocm_ipc_failure_is_named_at_runtime():
    assert_named_and_leads("1445", "s13bf_ucx_rocm_ipc_create_failed", "runtime")


@pytest.mark.parametrize("line", [
    "[1724605863.595828] [cousteau:2757379:0] rocm_ipc_md.c:79 UCX ERROR Failed to create ipc for 0x7f8d0fa10000/8000",
    "rocm_ipc_md.c:69   UCX  ERROR Failed to create ipc for 0x7fc321800000/3758",
    "[1700000000.1] [n1:77:0]  rocm_ipc_md.c:68  UCX  ERROR failed to get base ptr for 0x7f0000001000/1000, ROCm "
    "returned 0x7f0000000000/200000",
])
def test_ucx_rocm_ipc_lines_are_named(line):
    assert "s13bf_ucx_rocm_ipc_create_failed" in _ids(line), line


def test_the_rows_layers_and_other_ipc_lines():
    assert error_signatures.failure_layer("s13bf_ucx_rocm_ipc_create_failed") == "runtime"
    assert error_signatures.failure_layer("s13bf_ucx_ib_reg_mr_failed") == "kernel"
    # the rocm_ipc map side and UCX's cuda_ipc are other failures
    for line in ("rocm_ipc_md.c:147 UCX ERROR Failed to map IPC handle: Input/output error",
                 "cuda_ipc_md.c:212 UCX ERROR cuIpcGetMemHandle(&key->ph) failed: invalid argument"):
        assert "s13bf_ucx_rocm_ipc_create_failed" not in _ids(line), line
