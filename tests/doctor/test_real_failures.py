"""The failure rules that are not version skew, on real pastes: every fixture of ``tests/data/real``
whose ``labels.toml`` names a ``failure_class`` must get that class's rule from ``doctor`` (with
evidence lines from the paste), and the healthy fixtures (``failure_class = "none"``, and the
shared fixtures without a failure) must get none of these rules."""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Dict, List

import pytest
from rwtest import realrun

from rocm_wizard.detect import detect_snapshot

try:
    import tomllib  # type: ignore[import-not-found]
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "data" / "real"

# failure class (labels.toml) -> the rule that must fire for it: data, beside the fixtures
with open(FIXTURES / "failure_classes.toml", "rb") as _fh:
    _CLASSES = tomllib.load(_fh)
CLASS_RULES: Dict[str, str] = dict(_CLASSES["rules"])
LAYERS = set(_CLASSES["layers"])
MISSES: Dict[str, str] = dict(_CLASSES.get("misses", {}))
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
    return {f.id: f for f in realrun.diagnosis(folder).findings}


FAILING = [pytest.param(f, id=f.name.split("-", 1)[0], marks=[pytest.mark.xfail(strict=True, reason=MISSES[f.name.split("-", 1)[0]])]
                        if f.name.split("-", 1)[0] in MISSES else [])
           for f in _folders() if _labels(f).get("failure_class") in CLASS_RULES]
HEALTHY = [pytest.param(f, id=f.name.split("-", 1)[0]) for f in _folders() if _labels(f).get("failure_class") == "none"]


def test_the_corpus_is_there() -> None:
    assert len(FAILING) >= 20 and HEALTHY


@pytest.mark.parametrize("folder", FAILING)
def test_failure_rule_fires_with_evidence_from_the_paste(folder: Path) -> None:
    cls = _labels(folder)["failure_class"]
    rule_id = CLASS_RULES[cls]
    found = _findings(folder)
    assert rule_id in found, (cls, sorted(found))
    from rocm_wizard.detect.paste_text import normalise

    # (the paste as doctor reads it: a web page's curly quotes and no-break spaces in ASCII, detect/paste_text.py)
    text = "\n".join(normalise(p.read_text(encoding="utf-8", errors="replace")) for p in folder.glob("*.txt"))
    # at least one evidence line quotes the paste (after its "where: " prefix)
    quoted = [part for e in found[rule_id].evidence for part in e.split(": ", 1)[-1].rstrip("…").split(" / ")]
    assert any(q and q[:60] in text for q in quoted), found[rule_id].evidence


@pytest.mark.parametrize("folder", HEALTHY)
def test_failure_rules_quiet_on_healthy_systems(folder: Path) -> None:
    assert not set(_findings(folder)) & set(NEW_RULES)


def test_layer_labels_are_known():
    """Every fixture that names a failure class names its layer with one of the known words (and the
    healthy ones say none)."""
    for folder in _folders():
        labels = _labels(folder)
        layer = labels.get("failure_layer")
        if layer is None:
            assert folder.name < "200" or "failure_class" not in labels, folder.name  # issue 28's fixtures carry it
            continue
        assert layer in LAYERS, (folder.name, layer)
        assert (layer == "none") == (labels.get("failure_class") == "none"), folder.name


def test_the_misses_are_fixtures():
    names = {f.name.split("-", 1)[0] for f in _folders()}
    assert set(MISSES) <= names


def test_chip_over_reported_target_on_a_real_runtime_line():
    """(issue 28, item 4) ROCm CLR names the device by the target the runtime gave it and by its PCI
    id ('HSA device gfx1030 (PCI ID 73df)'): 73df is a Navi 22 chip, gfx1031, so the doctor says the
    runtime reports another target than the chip, offers no override (one is in effect) and the
    resolver plans for gfx1031."""
    from rocm_wizard.resolve import facts

    folder = next(f for f in _folders() if f.name.startswith("263-"))
    found = _findings(folder)
    assert "reported-target-not-chip" in found and "hsa-override-missing" not in found
    text = " / ".join(found["reported-target-not-chip"].evidence)
    assert "1002:73df is a gfx1031 chip" in text and "reports gfx1030" in text
    assert [g.gfx for g in facts.from_system(detect_snapshot(str(folder))).gpus] == ["gfx1031"]
