"""The verify report: the smoke script's JSON document read into plain typed data, plus what
the wizard adds (the failing layers, the figures against the card's peak, the target it ran on).

Reading never raises: a document that is not what the script writes gives a report whose
``error`` says so.  Standard library only (headless paths import this).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional, Union

from .. import exitcodes
from ..termsafe import clean_tree

REPORT_SCHEMA = "rocm-wizard/verify/1"
SMOKE_SCHEMA_PREFIX = "rocm-wizard/smoke/"
STATUSES = ("pass", "fail", "skip")

Device = Union[int, str, None]  # GPU index, "cpu" (the script's CPU fallback) or None (global check)


@dataclass
class CheckResult:
    name: str
    device: Device = None
    status: str = "fail"  # pass | fail | skip
    reason: str = ""
    seconds: float = 0.0
    details: Dict[str, Any] = field(default_factory=dict)
    stderr_tail: str = ""

    @property
    def where(self) -> str:
        return "" if self.device is None else f"[{self.device}]"


@dataclass
class DeviceInfo:
    index: Device = None
    name: Optional[str] = None
    arch: Optional[str] = None  # gfx target on ROCm ("gfx1100"), sm_XY on CUDA
    gcn_arch_name: Optional[str] = None  # "gfx90a:sramecc+:xnack-"
    capability: Optional[str] = None
    total_memory_bytes: Optional[int] = None
    multi_processor_count: Optional[int] = None
    covered_by_wheel: Optional[bool] = None


@dataclass
class Figure:
    name: str  # matmul | bandwidth
    device: Device
    value: float
    unit: str  # TFLOP/s | GB/s
    dtype: Optional[str] = None
    size: Optional[int] = None
    peak: Optional[float] = None
    fraction: Optional[float] = None  # value / peak
    flagged: bool = False  # far below the peak
    peak_key: Optional[str] = None  # gpu_peaks.toml entry
    peak_status: Optional[str] = None


@dataclass
class Diagnosis:
    layer: str  # driver | runtime | wheel | BLAS | triton | compile | multi-GPU | performance
    summary: str  # "/dev/kfd not accessible"
    rule_id: str  # this failure's id in verify/layers.toml: kfd-not-accessible, hipblaslt-path...
    severity: str = "error"  # error | warning
    checks: List[str] = field(default_factory=list)  # "linear[0]", ...
    advice: str = ""
    source: str = ""
    doctor_rule: Optional[str] = None  # the `rocm-wizard doctor` rule that explains it, if any

    @property
    def headline(self) -> str:
        return f"{self.layer}: {self.summary}"


@dataclass
class Target:
    kind: str = "python"  # python | venv | docker
    python: Optional[str] = None
    venv: Optional[str] = None
    image: Optional[str] = None
    command: List[str] = field(default_factory=list)


@dataclass
class Report:
    target: Target = field(default_factory=Target)
    checks: List[CheckResult] = field(default_factory=list)
    devices: List[DeviceInfo] = field(default_factory=list)
    torch: Dict[str, Any] = field(default_factory=dict)
    env: Dict[str, str] = field(default_factory=dict)
    host: Dict[str, Any] = field(default_factory=dict)
    figures: List[Figure] = field(default_factory=list)
    diagnoses: List[Diagnosis] = field(default_factory=list)
    duration_s: Optional[float] = None
    error: Optional[str] = None  # the smoke test could not run at all
    stderr_tail: str = ""
    interrupted: bool = False
    raw: Optional[Dict[str, Any]] = None

    # -- verdicts --------------------------------------------------------------------------------
    @property
    def failed(self) -> List[CheckResult]:
        return [c for c in self.checks if c.status == "fail"]

    @property
    def status(self) -> str:
        if self.error is not None:
            return "error"
        if self.failed or self.interrupted or not self.checks:
            return "failed"
        return "ok"

    @property
    def exit_code(self) -> int:
        return {"ok": exitcodes.OK, "failed": exitcodes.PENDING}.get(self.status, exitcodes.ERROR)

    @property
    def errors(self) -> List[Diagnosis]:
        return [d for d in self.diagnoses if d.severity == "error"]

    @property
    def warnings(self) -> List[Diagnosis]:
        return [d for d in self.diagnoses if d.severity != "error"]

    @property
    def headline(self) -> str:
        if self.error is not None:
            return f"the smoke test could not run: {self.error}"
        if self.errors:
            return self.errors[0].headline
        if self.status == "failed":
            return "the smoke test did not complete"
        n = sum(1 for c in self.checks if c.status == "pass")
        return f"the GPU works for PyTorch: {n} checks passed"

    def check(self, name: str, device: Device = None) -> Optional[CheckResult]:
        for c in self.checks:
            if c.name == name and (device is None or c.device == device):
                return c
        return None

    def to_dict(self) -> Dict[str, Any]:
        return {
            "schema": REPORT_SCHEMA,
            "status": self.status,
            "exit_code": self.exit_code,
            "headline": self.headline,
            "error": self.error,
            "target": asdict(self.target),
            "diagnoses": [dict(asdict(d), headline=d.headline) for d in self.diagnoses],
            "figures": [asdict(f) for f in self.figures],
            "smoke": self.raw,
            "stderr_tail": self.stderr_tail or None,
        }


# -- reading the smoke script's document ---------------------------------------------------------

def _num(value: Any) -> Optional[float]:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    v = float(value)
    return v if math.isfinite(v) else None


def _int(value: Any) -> Optional[int]:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


def _str(value: Any) -> Optional[str]:
    return value if isinstance(value, str) else None


def _device(value: Any) -> Device:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) or value is None:
        return value
    if isinstance(value, str):
        return value
    return None


def _dict(value: Any) -> Dict[str, Any]:
    return value if isinstance(value, dict) else {}


def from_smoke(doc: Any, target: Optional[Target] = None) -> Report:
    """Report from the smoke script's JSON document (already parsed).  Never raises."""
    report = Report(target=target or Target())
    if not isinstance(doc, dict):
        report.error = "the smoke test's output is not a JSON object"
        return report
    doc = clean_tree(doc)  # it came from another process or a file: no terminal sequences in it
    schema = doc.get("schema")
    if not (isinstance(schema, str) and schema.startswith(SMOKE_SCHEMA_PREFIX)):
        report.error = f"the smoke test's output has an unknown schema ({schema!r})"
        return report
    report.raw = doc
    for item in doc.get("checks") if isinstance(doc.get("checks"), list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        status = item.get("status") if item.get("status") in STATUSES else "fail"
        report.checks.append(CheckResult(
            name=item["name"], device=_device(item.get("device")), status=status,
            reason=_str(item.get("reason")) or "", seconds=_num(item.get("seconds")) or 0.0,
            details=_dict(item.get("details")), stderr_tail=_str(item.get("stderr_tail")) or ""))
    for d in doc.get("devices") if isinstance(doc.get("devices"), list) else []:
        if not isinstance(d, dict):
            continue
        cov = d.get("covered_by_wheel")
        report.devices.append(DeviceInfo(
            index=_device(d.get("index")), name=_str(d.get("name")), arch=_str(d.get("arch")),
            gcn_arch_name=_str(d.get("gcn_arch_name")), capability=_str(d.get("capability")),
            total_memory_bytes=_int(d.get("total_memory_bytes")),
            multi_processor_count=_int(d.get("multi_processor_count")),
            covered_by_wheel=cov if isinstance(cov, bool) else None))
    for f in doc.get("figures") if isinstance(doc.get("figures"), list) else []:
        if not isinstance(f, dict):
            continue
        value = _num(f.get("value"))
        name = _str(f.get("name"))
        if value is None or name is None:
            continue
        report.figures.append(Figure(name=name, device=_device(f.get("device")), value=value,
                                     unit=_str(f.get("unit")) or "", dtype=_str(f.get("dtype")),
                                     size=_int(f.get("size"))))
    report.torch = _dict(doc.get("torch"))
    report.env = {str(k): str(v) for k, v in _dict(doc.get("env")).items()}
    report.host = _dict(doc.get("host"))
    report.duration_s = _num(doc.get("duration_s"))
    report.interrupted = doc.get("interrupted") is True
    return report
