"""Every failure layer that names a doctor rule names one that exists, and the rendered
verdict points at it."""
import json
from pathlib import Path

from rocm_wizard.doctor import registry
from rocm_wizard.verify import analyse, layers, render

HANDMADE = Path(__file__).parent / "fixtures" / "handmade"


def test_every_doctor_link_names_a_real_rule():
    known = set(registry.rules())
    linked = {r["doctor"] for r in layers.rules()["rule"] if "doctor" in r}
    assert linked, "layers.toml links no failure to a doctor rule"
    assert linked <= known, f"unknown doctor rules: {sorted(linked - known)}"


def test_hipblaslt_failure_points_at_the_doctor_rule():
    doc = json.loads((HANDMADE / "rocm-hipblaslt-fails-hipblas-works.json").read_text())
    text = render(analyse(doc), width=200)
    assert "hipblas-not-supported" in text
    assert "hipblaslt-path  (rocm-wizard doctor" not in text
