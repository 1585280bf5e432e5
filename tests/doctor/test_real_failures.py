"""The failure rules that are not version skew, on real pastes: every fixture of ``tests/data/real``
whose ``labels.toml`` names a ``failure_class`` must get that class's rule from ``doctor`` (with
evidence lines from the paste), and the healthy fixtures (``failure_class = "none"``, and the
shared fixtures without a failure) must get none of these rules."""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Dict, List

import pytest

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.doctor import diagnose

try:
    import tomllib  # type: ignore[import-not-found]
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "data" / "real"

# failure class (labels.toml) -> the rule that must fire for it
CLASS_RULES: Dict[str, str] = {
    "amdgpu-init-failed": "amdgpu-init-failed",
    "sriov-vf-cloud-vm": "vm-gpu-unsupported",
    "pcie-atomics-missing": "pcie-atomics-missing",
    "gpu-hang-mes": "gpu-hang-reset",
    "dkms-build-failed": "dkms-build-failed",
    "secure-boot": "secure-boot-module-rejected",
    "gpu-off-bus": "gpu-off-bus",
    "rocminfo-hang": "rocminfo-crashed",
    "rocminfo-crash": "rocminfo-crashed",
    "hipblaslt-file-not-found": "hipblaslt-library-missing",
    "sensors-degraded": "smi-sensors-implausible",
    "sensors-unavailable": "smi-sensors-unavailable",
    "amdgpu-disabled-cmdline": "amdgpu-disabled-by-cmdline",
    "hsa-out-of-resources": "hsa-runtime-error",
    "memory-access-fault": "memory-access-fault",
    "miopen-cache": "miopen-cache-error",
    "lds-limit": "lds-limit-exceeded",
    "invalid-device": "invalid-device",
    "iommu-p2p": "iommu-p2p-settings",
    "apu-memory-carveout": "gpu-memory-small",
    "gpu-unclaimed": "gpu-unclaimed",
    "hsa-oor-wsl": "hsa-oor-wsl-unsupported",
    "hsa-oor-driver-too-old": "hsa-oor-gpu-unsupported",
    "wheel-library-kernels-missing": "wheel-library-lacks-kernels",
}
# HSA out of resources after a hang / in a VM: no real paste shows the error and its cause together
# yet (tests/doctor/test_rules.py checks them on real lines); they must stay quiet here too
NEW_RULES = sorted((set(CLASS_RULES.values()) | {"hsa-oor-after-gpu-hang", "hsa-oor-virtual-gpu"}) - {"hsa-runtime-error"})


def _labels(folder: Path) -> dict:
    with open(folder / "labels.toml", "rb") as fh:
        return tomllib.load(fh)


def _folders() -> List[Path]:
    return sorted(p for p in FIXTURES.iterdir() if (p / "labels.toml").is_file()) if FIXTURES.is_dir() else []


@functools.lru_cache(maxsize=None)
def _findings(folder: Path):
    return {f.id: f for f in diagnose(detect_snapshot(str(folder))).findings}


FAILING = [pytest.param(f, id=f.name[:3]) for f in _folders() if _labels(f).get("failure_class") in CLASS_RULES]
HEALTHY = [pytest.param(f, id=f.name[:3]) for f in _folders() if _labels(f).get("failure_class") == "none"]


def test_the_corpus_is_there() -> None:
    assert len(FAILING) >= 20 and HEALTHY


@pytest.mark.parametrize("folder", FAILING)
def test_failure_rule_fires_with_evidence_from_the_paste(folder: Path) -> None:
    cls = _labels(folder)["failure_class"]
    rule_id = CLASS_RULES[cls]
    found = _findings(folder)
    assert rule_id in found, (cls, sorted(found))
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in folder.glob("*.txt"))
    # at least one evidence line quotes the paste (after its "where: " prefix)
    quoted = [part for e in found[rule_id].evidence for part in e.split(": ", 1)[-1].rstrip("…").split(" / ")]
    assert any(q and q[:60] in text for q in quoted), found[rule_id].evidence


@pytest.mark.parametrize("folder", HEALTHY)
def test_failure_rules_quiet_on_healthy_systems(folder: Path) -> None:
    assert not set(_findings(folder)) & set(NEW_RULES)
