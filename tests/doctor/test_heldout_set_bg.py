"""Held-out set BG (tests/data/real/1460-1464, HELDOUT.md): the newest threads of ROCm's trackers the index holds, a family
of MIOpen's Composable Kernel grouped-convolution library missing from TheRock's wheels.  The lines read from the programs
that print them: MIOpen's run-time CK loader (ROCm/rocm-libraries projects/miopen, CkImplLibLoader::
OpenRuntimeLibraryForDevice, a warning after which MIOpen runs its other solvers) and torch's ROCm-only warning that the cuDNN
benchmark limit has no MIOpen counterpart (pytorch/pytorch torch/csrc/cuda/Module.cpp).  Both are information: the healthy
1464 prints them while its torch test passes."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.doctor import diagnose
from rwtest.heldout import fixture as _fixture, ids as _ids

PROBLEM = ("warning", "error", "critical")
CK = "s13bg_miopen_ck_grouped_conv_library_not_found"
BENCH = "s13bg_torch_cudnn_benchmark_limit_unsupported"


@pytest.mark.parametrize("line", [
    # the fixtures' lines (1461 gfx1151, 1464 gfx1103) and 1460's title
    "MIOpen(HIP): Warning [OpenRuntimeLibraryForDevice] CK grouped conv library not found for device gfx1151: "
    "libMIOpenCKGroupedConv_gfx1151.so: cannot open shared object file: No such file or directory",
    "[Issue]: CK grouped conv library not found for device gfx90c",
    # MIOpenDriver on gfx1201 (rocm-libraries PR 6439's test log), convolution passing
    "MIOpen(HIP): Warning [OpenRuntimeLibraryForDevice] CK grouped conv library not found for device gfx1201: "
    "libMIOpenCKGroupedConv_gfx1201.so: cannot open shared object file: No such file or directory",
    # Windows: the loader's error is Windows' message in the system's language
    "MIOpen(HIP): Warning [OpenRuntimeLibraryForDevice] CK grouped conv library not found for device gfx1031: "
    "No se puede encontrar el módulo especificado.",
    # MIOpen's plain log prefix (no backend in parentheses) and the xnack/sramecc suffix stripped by the loader
    "MIOpen: Warning [OpenRuntimeLibraryForDevice] CK grouped conv library not found for device gfx942: "
    "libMIOpenCKGroupedConv_gfx942.so: cannot open shared object file: No such file or directory",
])
def test_miopens_ck_loader_warning_is_named(line):
    assert CK in _ids(line), line


@pytest.mark.parametrize("line", [
    # the loader's success lines (MIOPEN_LOG_I2) and its other warnings are not this row
    "MIOpen(HIP): Info2 [OpenRuntimeLibraryForDevice] Loaded CK grouped conv library from lib dir: "
    "/opt/rocm/lib/libMIOpenCKGroupedConv_gfx1151.so",
    "MIOpen(HIP): Warning [OpenRuntimeLibraryForDevice] CK grouped conv API version mismatch for device gfx1151: "
    "expected 3, got 2",
    # prose about the library, not MIOpen's line
    "libMIOpenCKGroupedConv_gfx1103.so is not built because CK does not support gfx1103",
])
def test_near_misses_are_not_the_ck_loader_row(line):
    assert CK not in _ids(line), line


def test_the_ck_row_informs_at_libraries():
    row = error_signatures.failure(CK)
    assert row is not None and row.severity == "info"
    assert error_signatures.failure_layer(CK) == "libraries"


@pytest.mark.parametrize("line", [
    # the fixture's UserWarning (1464) as Python prints torch's TORCH_WARN_ONCE
    "/home/syrmia/therock/.venv/lib/python3.12/site-packages/torch/backends/cudnn/__init__.py:175: UserWarning: cuDNN "
    "Benchmark limit is not supported in MIOpen and will have no effect. (Triggered internally at "
    "/__w/TheRock/TheRock/external-builds/pytorch/pytorch/torch/csrc/cuda/Module.cpp:1985.)",
    # Windows path, and the cuDNN v7 build's sibling message of the same function
    "C:\\venv\\Lib\\site-packages\\torch\\backends\\cudnn\\__init__.py:175: UserWarning: cuDNN Benchmark limit is not "
    "supported in MIOpen and will have no effect.",
    "UserWarning: cuDNN Benchmark limit is not supported with cuDNN v7 API and will have no effect.",
])
def test_torchs_benchmark_limit_warning_is_named(line):
    assert BENCH in _ids(line), line


def test_other_cudnn_warnings_are_not_the_benchmark_limit_row():
    for line in ("UserWarning: cuDNN SDPA backward got grad_output.strides() != output.strides()",
                 "torch.backends.cudnn.benchmark_limit = 10"):
        assert BENCH not in _ids(line), line
    assert error_signatures.failure(BENCH).severity == "info"


def test_1464_healthy_with_the_warnings_gets_no_problem():
    diag = diagnose(detect_snapshot(str(_fixture("1464"))))
    assert not [f.id for f in diag.findings if f.severity in PROBLEM]
    # the CK line is still reported, as information at libraries
    assert any(f.id == "known-failure" and f.layer == "libraries" and f.severity == "info" for f in diag.findings)


def test_1461_the_fallback_is_reported_as_information():
    diag = diagnose(detect_snapshot(str(_fixture("1461"))))
    infos = [f for f in diag.findings if f.id == "known-failure" and f.severity == "info"]
    assert infos and any(CK in str(f.evidence) for f in infos)
