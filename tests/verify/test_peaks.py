"""The peak table (catalog/data/gpu_peaks.toml) and the lookup by device name."""
from __future__ import annotations

import re

import pytest

from rocm_wizard.verify import peaks

STATUSES = {"documented", "third-party", "inferred", "unverified"}


def test_every_entry_has_figures_a_source_and_a_status():
    entries = peaks.entries()
    assert len(entries) >= 8
    assert len({e.key for e in entries}) == len(entries)
    for e in entries:
        assert e.match, e.key
        assert e.source.startswith("https://") and e.status in STATUSES and e.checked, e.key
        figures = [x for x in (e.bf16_tflops, e.fp16_tflops, e.mem_bandwidth_gbs) if x is not None]
        assert figures and all(x > 0 for x in figures), e.key
        for pattern in e.match:
            re.compile(pattern)
    limits = peaks.thresholds()
    assert 0 < limits["matmul_fraction"] < 1 and 0 < limits["bandwidth_fraction"] < 1


@pytest.mark.parametrize("name, key", [
    ("NVIDIA H100 80GB HBM3", "nvidia-h100-sxm"),       # the name torch reported on the test machine
    ("NVIDIA H100 PCIe", "nvidia-h100-pcie"),
    ("NVIDIA H200", "nvidia-h200"),
    ("NVIDIA H200 NVL", None),                           # a different board: no figures on record
    ("AMD Instinct MI300X", "amd-mi300x"),
    ("AMD Instinct MI300X VF", "amd-mi300x"),
    ("AMD Instinct MI210", "amd-mi210"),
    ("AMD Radeon RX 7900 XTX", "amd-rx-7900-xtx"),
    ("AMD Radeon RX 7900 XT", "amd-rx-7900-xt"),         # not the XTX
    ("Radeon RX 7900 GRE", None),
    ("AMD Radeon RX 7800 XT", None),
    ("", None),
    (None, None),
])
def test_lookup_by_name(name, key):
    entry = peaks.lookup(name)
    assert (entry.key if entry else None) == key


def test_lookup_by_pci_id():
    assert peaks.lookup(pci_id="1002:74A1").key == "amd-mi300x"
    assert peaks.lookup(pci_id="1002:ffff") is None


def test_dense_figures_only():
    h100 = peaks.lookup("NVIDIA H100 80GB HBM3")
    # NVIDIA lists 1,979 TFLOPS "with sparsity" for the SXM board; the dense figure is half of it
    assert h100.peak_for("matmul", "bfloat16") == pytest.approx(1979 / 2, rel=0.01)
    assert h100.peak_for("bandwidth", None) == 3350
    assert h100.peak_for("matmul", "float32") is None
