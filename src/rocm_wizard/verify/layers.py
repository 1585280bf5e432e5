"""Which layer a failed smoke-test check points at, and the known issue that explains it.

The rules are data (``layers.toml`` beside this file); this module only matches them.  Each
failed check gets the first rule that matches it; diagnoses with the same rule and summary are
merged (a wheel without kernels for the GPU fails several checks: one diagnosis names them all).
Figures far below the card's peak (see :mod:`.peaks`) become warnings.
"""
from __future__ import annotations

import fnmatch
import functools
import os
import re
import sys
from typing import Any, Dict, List, Optional

from .report import CheckResult, Diagnosis, Report

if sys.version_info >= (3, 11):  # pragma: no cover - depends on the interpreter
    import tomllib as _toml
else:  # pragma: no cover
    import tomli as _toml

RULES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "layers.toml")

# BLAS backend on the other path, to name the backend of a check that crashed before saying
_OTHER_BLAS = {"hipblaslt": "hipblas", "hipblas": "hipblaslt", "cublas": "cublaslt", "cublaslt": "cublas"}
_BLAS_FROM_ENV = {
    ("TORCH_BLAS_PREFER_HIPBLASLT", True): "hipblaslt", ("TORCH_BLAS_PREFER_HIPBLASLT", False): "hipblas",
    ("TORCH_BLAS_PREFER_CUBLASLT", True): "cublaslt", ("TORCH_BLAS_PREFER_CUBLASLT", False): "cublas",
}


@functools.lru_cache(maxsize=None)
def rules() -> Dict[str, Any]:
    with open(RULES_FILE, "rb") as fh:
        return _toml.load(fh)


def layer_order() -> List[str]:
    return list(rules().get("layer_order", []))


def rule_ids() -> List[str]:
    """Every known-issue id this module can name (for aligning with the doctor's rules)."""
    ids = [r["id"] for r in rules().get("rule", [])]
    ids.append(rules()["below_peak"]["id"])
    return list(dict.fromkeys(ids))


class _Fmt(dict):
    def __missing__(self, key: str) -> str:
        return "?"


def _truthy_env(value: str) -> bool:
    return value.strip().lower() in ("1", "true", "yes", "on")


def _blas(check: CheckResult, report: Report) -> Optional[str]:
    blas = check.details.get("blas")
    if isinstance(blas, str) and blas not in ("unknown", "default", ""):
        return blas
    env = check.details.get("env")
    if isinstance(env, dict):
        for name, value in env.items():
            key = (str(name), _truthy_env(str(value)))
            if key in _BLAS_FROM_ENV:
                return _BLAS_FROM_ENV[key]
    # a crashed check does not say; the sibling on the same device used the other path
    for other in report.checks:
        if other is not check and other.device == check.device and other.name.startswith("linear") \
                and other.name != check.name:
            ob = other.details.get("blas")
            if isinstance(ob, str) and ob in _OTHER_BLAS:
                return _OTHER_BLAS[ob]
    return None


def _text(check: CheckResult) -> str:
    parts = [check.reason, check.stderr_tail]
    tb = check.details.get("traceback")
    if isinstance(tb, str):
        parts.append(tb)
    for key in ("init_error", "error"):
        if isinstance(check.details.get(key), str):
            parts.append(check.details[key])
    return "\n".join(p for p in parts if p)


def _matches(check: CheckResult, cond: Dict[str, Any], report: Report, default_status: str) -> bool:
    status = cond.get("status", default_status)
    if check.status != status:
        return False
    if "check" in cond:
        globs = cond["check"] if isinstance(cond["check"], list) else [cond["check"]]
        if not any(fnmatch.fnmatchcase(check.name, str(g)) for g in globs):
            return False
    if "build" in cond and (report.torch.get("build") or "") != cond["build"]:
        return False
    if "blas" in cond and _blas(check, report) != cond["blas"]:
        return False
    if "stage" in cond and check.details.get("stage") != cond["stage"]:
        return False
    if "detail" in cond and not check.details.get(str(cond["detail"])):
        return False
    if "text" in cond:
        try:
            if not re.search(str(cond["text"]), _text(check), re.IGNORECASE):
                return False
        except re.error:
            return False
    return True


def _other(check: CheckResult, cond: Dict[str, Any], report: Report, status: str) -> bool:
    for other in report.checks:
        if other is check or other.device != check.device:
            continue
        if _matches(other, cond, report, status):
            return True
    return False


def _gfx(check: CheckResult, report: Report) -> str:
    arch = check.details.get("arch")
    if isinstance(arch, str) and arch:
        return arch
    for d in report.devices:
        if d.index == check.device and d.arch:
            return d.arch
    archs = sorted({d.arch for d in report.devices if d.arch})
    return ", ".join(archs) if archs else "this GPU"


def _fields(check: CheckResult, report: Report) -> _Fmt:
    details = check.details
    env = details.get("env") if isinstance(details.get("env"), dict) else {}
    hiding = details.get("hiding_env") if isinstance(details.get("hiding_env"), dict) else {}
    timeout = details.get("timeout")
    return _Fmt(
        hiding=", ".join(f"{k}={v!r}" for k, v in sorted(hiding.items())) or "?",
        check=check.name + check.where, device="" if check.device is None else str(check.device),
        reason=check.reason, arch=_gfx(check, report), gfx=_gfx(check, report),
        build=report.torch.get("build") or "?", version=report.torch.get("version") or "?",
        signal=details.get("signal") or "?",
        timeout=f"{timeout:g}" if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) else "?",
        blas=_blas(check, report) or "?", env=", ".join(f"{k}={v}" for k, v in env.items()),
    )


def _layer_for(rule: Dict[str, Any], check: CheckResult) -> str:
    layer = rule.get("layer", "*")
    if layer == "*":
        layer = rules().get("check_layers", {}).get(check.name, "smoke test")
    return layer


def diagnose_check(check: CheckResult, report: Report) -> Optional[Diagnosis]:
    if check.status != "fail":
        return None
    for rule in rules().get("rule", []):
        if not _matches(check, rule.get("when", {}), report, "fail"):
            continue
        if "also_passed" in rule and not _other(check, rule["also_passed"], report, "pass"):
            continue
        if "also_failed" in rule and not _other(check, rule["also_failed"], report, "fail"):
            continue
        fields = _fields(check, report)
        return Diagnosis(
            layer=_layer_for(rule, check),
            summary=str(rule.get("summary", "{check} failed")).format_map(fields),
            rule_id=str(rule["id"]),
            doctor_rule=rule.get("doctor"),
            checks=[check.name + check.where],
            advice=str(rule.get("advice", "")).format_map(fields),
            source=str(rule.get("source", "")),
        )
    return None


def _num(x: float) -> str:
    return f"{x:,.1f}" if abs(x) < 100 else f"{x:,.0f}"


def _peak_warnings(report: Report) -> List[Diagnosis]:
    spec = rules()["below_peak"]
    out = []
    for f in report.figures:
        if not f.flagged or f.peak is None or f.fraction is None:
            continue
        fields = _Fmt(
            figure=f"{f.name} {f.dtype}" if f.dtype else f.name,
            where=f"device {f.device}", percent=f"{f.fraction * 100:.0f}", value=_num(f.value),
            peak=_num(f.peak), unit=f.unit)
        out.append(Diagnosis(layer=spec["layer"], summary=spec["summary"].format_map(fields),
                             rule_id=spec["id"], severity="warning",
                             checks=[("throughput" if f.name == "matmul" else "bandwidth") + f"[{f.device}]"],
                             advice=spec["advice"], source=spec["source"]))
    return out


_GUARDED = ("torch-cpu-wheel", "torch-cuda-wheel")


def guard_pin(venv: Optional[str]) -> Optional[str]:
    """The torch build rocm-wizard's guard pins in ``venv`` (``rocm-wizard-guard.txt``), if any.
    Read with no link followed and only a version-shaped value kept: verify may run as root."""
    if not venv:
        return None
    import os
    import re
    import stat

    try:
        from ..model import GUARD_FILE

        fd = os.open(os.path.join(venv, GUARD_FILE), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        text = os.read(fd, 64 * 1024).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)
    m = re.search(r"^torch==([0-9][0-9A-Za-z.+!_-]{0,63})\s*$", text, re.M)
    return m.group(1) if m else None


def _guard_advice(found: List[Diagnosis], report: Report) -> None:
    """A CPU or CUDA torch in a venv rocm-wizard guarded: say what the guard pinned and the way back."""
    venv = report.target.venv if report.target.kind == "venv" else None
    pin = guard_pin(venv)
    if not pin:
        return
    for d in found:
        if d.rule_id in _GUARDED:
            d.advice = (f"rocm-wizard's guard in {venv} pins torch=={pin}: this build was installed past it "
                        f"(pip with PIP_CONFIG_FILE=/dev/null or --isolated, uv without the venv's environment); put "
                        f"the pinned build back with  rocm-wizard --path torch-reinstall --venv {venv} "
                        f"--torch {pin}  (rocm-wizard doctor names what installed it)")


def diagnose(report: Report) -> List[Diagnosis]:
    """Diagnoses of a report: errors ordered from the lowest broken layer up, then warnings."""
    found: List[Diagnosis] = []
    index: Dict[tuple, Diagnosis] = {}
    for check in report.checks:
        d = diagnose_check(check, report)
        if d is None:
            continue
        key = (d.rule_id, d.summary)
        if key in index:
            for c in d.checks:
                if c not in index[key].checks:
                    index[key].checks.append(c)
            continue
        index[key] = d
        found.append(d)
    order = {name: i for i, name in enumerate(layer_order())}
    found.sort(key=lambda d: order.get(d.layer, len(order)))  # stable: check order within a layer
    _guard_advice(found, report)
    return found + _peak_warnings(report)
