"""The ROCm release list says which entries are AMD's Core SDK and which the legacy stream (issue 22)."""
from __future__ import annotations


def test_each_release_names_its_stream():
    from rocm_wizard.catalog import streams  # noqa: F401  (the catalog the labels come from)
    from rocm_wizard.demo import SYSTEM_DIR
    from rocm_wizard.detect import detect_snapshot
    from rocm_wizard.tui.fields import release_choices

    choices = dict(release_choices(detect_snapshot(SYSTEM_DIR)))
    assert choices["7.2.4"].startswith("ROCm 7.2.4 legacy")
    core = [v for v in choices if v.startswith("10.")]
    assert core and all(" Core SDK" in choices[v] for v in core)
    assert all((" Core SDK" in label) != (" legacy" in label) for label in choices.values())
