"""Held-out set FH (tests/data/real/2626-2630, HELDOUT.md): a theme-neutral sample of ROCm under WSL2.  2629's failing
lines are the WSL kernel's DirectX driver refusing its host queries, 'misc dxg: dxgk: dxgkio_query_adapter_info: Ioctl
failed: -22' (microsoft/WSL2-Linux-Kernel drivers/hv/dxgkrnl/dxgkrnl.h: DXG_TRACE_IOCTL_END prints
DXG_ERR("Ioctl failed: %d", ret) for a negative return, DXG_ERR being dev_err(DXGDEV, "%s: " fmt, __func__) with
dev_fmt "dxgk: "), read at kernel by the row fh_wsl_dxgkrnl_ioctl_failed; 2626 and 2627 led at their layers on the
unchanged code; 2628 (Ollama's WSL discovery failure told only in prose, the paste rocminfo's healthy header) and 2630
(torch's 'No HIP GPUs are available' labelled framework where the corpus reads it at runtime) are misses
(tests/doctor/test_known_failure.py MISSES)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "fh_wsl_dxgkrnl_ioctl_failed"


@pytest.mark.parametrize("num,layer", [("2626", "runtime"), ("2627", "hip"), ("2629", "kernel")])
def test_the_set_fh_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_ollama_failure_told_in_prose_stays_a_miss():
    # 2628's paste is rocminfo's healthy WSL header; Ollama's give-up is told only in the thread's prose
    assert _lead_layer(_fixture("2628")) is None


def test_no_hip_gpus_keeps_the_corpus_runtime_reading():
    # 2630 is labelled framework (torch printed the line); the corpus reads it at runtime, and the row stays there
    assert _lead_layer(_fixture("2630")) == "runtime"


def test_the_row_names_2629s_lines_and_leads_at_kernel():
    assert_named_and_leads("2629", ROW, "kernel")


@pytest.mark.parametrize("line", [
    # the fixture's lines (microsoft/WSL#41654, RX 7600, 2026)
    "[    1.519442] misc dxg: dxgk: dxgkio_query_adapter_info: Ioctl failed: -22",
    "[    1.514588] misc dxg: dxgk: dxgkio_is_feature_enabled: Ioctl failed: -22",
    # -ENOENT from the same query (microsoft/WSL#11939, a D3D12 VA-API failure under WSL)
    "[    1.569584] misc dxg: dxgk: dxgkio_query_adapter_info: Ioctl failed: -2",
    # the older tree without the 'dxgk: ' prefix, as quoted in microsoft/WSL#40464 (RX 7800 XT, 2026)
    "misc dxg: dxgkio_query_adapter_info: Ioctl failed: -22",
])
def test_the_row_reads_dxgkrnls_wordings(line):
    assert ROW in _ids(line)
    assert error_signatures.failure_layer(ROW) == "kernel"


@pytest.mark.parametrize("line", [
    # the driver registering on the VMBus (2629's first line): no failure
    "[    0.328612] hv_vmbus: registering driver dxgkrnl",
    # DXG_TRACE's success form of the same macro (debug builds): a return, not a failure
    "misc dxg: dxgk: dxgkio_query_adapter_info: Ioctl returned: 0",
    # another program's ioctl failure of the same words (an NVMe tool's ilm_log_err("%s: ioctl failed: %d"))
    "nvme_admin_cmd: ioctl failed: -1",
])
def test_lines_that_are_not_dxgkrnl_refusing_do_not_match(line):
    assert ROW not in _ids(line)


@pytest.mark.parametrize("line", [
    # 2626's rocminfo of the 6.1.x WSL runtime package (ROCm/legacy-rocm-build#3402; also #3413, #4068)
    "hsa api call failure at: ./sources/wsl/tools/rocminfo/rocminfo.cc:1087",
    # the same package's thunk asserting (ROCm/legacy-rocm-build#4460, corpus 244)
    "rocminfo: ./sources/wsl/libhsakmt/src/thunk_proxy/thunk_proxy.cpp:111: void thunk_proxy::QueryAdapterInfo("
    "D3DKMT_HANDLE, ATIADAPTERINFO*): Assertion `ret == STATUS_SUCCESS' failed.",
])
def test_the_wsl_builds_source_path_shows_the_wsl_runtime(line):
    assert "wsl_runtime" in _ids(line)


def test_a_native_rocminfo_path_does_not_show_wsl():
    # the native package's build tree (ROCm/legacy-rocm-build#1361 prints '/src/rocminfo/rocminfo.cc:1142')
    assert "wsl_runtime" not in _ids(
        "hsa api call failure at: /long_pathname_so_that_rpms_can_package_the_debug_info/src/rocminfo/rocminfo.cc:1306")


def test_2626_is_read_as_the_wsl_out_of_resources():
    from rwtest import realrun
    ids = [f.id for f in realrun.diagnosis(_fixture("2626")).findings]
    assert "hsa-oor-wsl-unsupported" in ids and "hsa-oor-gpu-unsupported" not in ids
