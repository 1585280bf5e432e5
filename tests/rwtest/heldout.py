"""What the held-out sets' tests (tests/doctor/test_heldout_set_*.py) check of a fixed fixture: the
catalogue row or whole-text signature that names its cause is found in its text, sits at the labelled
layer, and doctor's first problem finding is at that layer."""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Set

from rocm_wizard.detect import error_signatures

from . import realrun

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
PROBLEM = ("warning", "error", "critical")


def ids(text: str) -> Set[str]:
    """The ids of the catalogue rows and signatures that ``text`` matches."""
    return {s.id for s, _ in error_signatures.scan(text)}


def lead_layer(folder: Path) -> Optional[str]:
    """The layer of doctor's first finding of warning or worse on ``folder``."""
    diag = realrun.diagnosis(folder)
    problems = [f for f in diag.findings if f.severity in PROBLEM]
    return problems[0].layer if problems else None


def assert_named_and_leads(num: str, row: str, layer: str) -> None:
    folder = next(REAL.glob(f"{num}-*"))
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.txt")))
    assert row in ids(text)
    assert error_signatures.failure_layer(row) == layer
    assert lead_layer(folder) == layer


def fixture(num: str) -> Path:
    """The real fixture folder numbered ``num``."""
    return next(REAL.glob(f"{num}-*"))


def doctor_files(folder: Path, files: dict):
    """Doctor's diagnosis of a folder holding ``files`` (name -> text), written into ``folder``."""
    from rocm_wizard.detect import detect_snapshot
    from rocm_wizard.doctor import diagnose

    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return diagnose(detect_snapshot(str(folder)))


def problems(diag):
    """(id, layer) of a diagnosis' findings of warning or worse, in doctor's order."""
    return [(f.id, f.layer) for f in diag.findings if f.severity in PROBLEM]
