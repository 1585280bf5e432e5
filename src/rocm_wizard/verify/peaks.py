"""Peak throughput and memory bandwidth per GPU model (``catalog/data/gpu_peaks.toml``) and the
comparison of the smoke test's figures against them."""
from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

from ..catalog import data_path
from .report import Report

if sys.version_info >= (3, 11):  # pragma: no cover - depends on the interpreter
    import tomllib as _toml
else:  # pragma: no cover
    import tomli as _toml

PEAKS_FILE = "gpu_peaks.toml"
_DTYPE_KEYS = {"bfloat16": "bf16_tflops", "float16": "fp16_tflops"}


@dataclass(frozen=True)
class GpuPeak:
    key: str
    name: str
    match: Tuple[str, ...]
    pci_ids: Tuple[str, ...]
    bf16_tflops: Optional[float]
    fp16_tflops: Optional[float]
    mem_bandwidth_gbs: Optional[float]
    source: str
    status: str
    checked: str

    def peak_for(self, figure: str, dtype: Optional[str]) -> Optional[float]:
        if figure == "bandwidth":
            return self.mem_bandwidth_gbs
        if figure == "matmul" and dtype in _DTYPE_KEYS:
            return getattr(self, _DTYPE_KEYS[dtype])
        return None


def _opt_float(value: Any) -> Optional[float]:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    return None


@functools.lru_cache(maxsize=None)
def _load() -> Tuple[Dict[str, float], Tuple[GpuPeak, ...]]:
    with open(data_path(PEAKS_FILE), "rb") as fh:
        data = _toml.load(fh)
    flags = {k: float(v) for k, v in data.get("flag", {}).items()}
    entries = []
    for row in data.get("gpu", []):
        entries.append(GpuPeak(
            key=str(row["key"]), name=str(row["name"]), match=tuple(row.get("match", ())),
            pci_ids=tuple(str(p).lower() for p in row.get("pci_ids", ())),
            bf16_tflops=_opt_float(row.get("bf16_tflops")), fp16_tflops=_opt_float(row.get("fp16_tflops")),
            mem_bandwidth_gbs=_opt_float(row.get("mem_bandwidth_gbs")),
            source=str(row.get("source", "")), status=str(row.get("status", "unverified")),
            checked=str(row.get("checked", ""))))
    return flags, tuple(entries)


def entries() -> Tuple[GpuPeak, ...]:
    return _load()[1]


def thresholds() -> Dict[str, float]:
    return dict(_load()[0])


def lookup(name: Optional[str] = None, pci_id: Optional[str] = None) -> Optional[GpuPeak]:
    """The entry for a device name as torch reports it ("NVIDIA H100 80GB HBM3",
    "AMD Radeon RX 7900 XTX") or a PCI "vendor:device" id; None when the model is unknown."""
    pid = pci_id.lower().strip() if isinstance(pci_id, str) else None
    for entry in entries():
        if pid and pid in entry.pci_ids:
            return entry
        if isinstance(name, str) and name:
            for pattern in entry.match:
                if re.search(pattern, name, re.IGNORECASE):
                    return entry
    return None


def annotate(report: Report) -> Report:
    """Fill each figure's peak, fraction and flag from the catalog (in place; returns report)."""
    limits = thresholds()
    names = {d.index: d.name for d in report.devices}
    for fig in report.figures:
        entry = lookup(names.get(fig.device))
        if entry is None:
            continue
        peak = entry.peak_for(fig.name, fig.dtype)
        if peak is None:
            continue
        fig.peak = peak
        fig.peak_key = entry.key
        fig.peak_status = entry.status
        fig.fraction = fig.value / peak
        limit = limits.get("matmul_fraction" if fig.name == "matmul" else "bandwidth_fraction")
        fig.flagged = limit is not None and fig.fraction < limit
    return report
