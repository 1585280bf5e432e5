"""Measure doctor's catch-all (``unrecognised-failure``) alone on the labelled real fixtures.

    python scripts/catchall_layers.py [FIRST [LAST]] [--sightings]

Runs detection and diagnosis over every folder of tests/data/real numbered FIRST..LAST that has a
``labels.toml`` with a ``failure_layer`` (the way ``scripts/real_fixture_table.py`` does), with the
known-failure catalogue switched off: the known-signature scan (``detect.error_index.scan``) is
replaced, inside this script's process only, by one that finds nothing, so every error-looking line
is an unknown one and reaches ``detect/failure_lines.py``.  For each failing fixture it prints the
layer of the ``unrecognised-failure`` finding (its first layer: the lowest layer among the lines it
lists) against the labelled one, then the totals.  A fixture labelled ``none`` is right when the
catch-all stays silent.  ``--sightings`` reads the errors probe's ``unrecognised`` sightings directly
(the lowest layer among them), without the rule's one filter (a line another rule's own patterns
report is left to that rule, which fires on it in the product).

The product's normal path is untouched: nothing here is a switch of the program.
"""
from __future__ import annotations

import sys
from pathlib import Path

try:
    import tomllib  # type: ignore[import-not-found]
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from rocm_wizard.detect import detect_snapshot  # noqa: E402
from rocm_wizard.detect import error_index  # noqa: E402
from rocm_wizard.doctor import diagnose  # noqa: E402


def catalogue_off() -> None:
    """The known-signature scan finds nothing (this process only): every line is unknown."""
    error_index.scan = lambda text, limit=50: []  # type: ignore[assignment]


def catchall_layer(folder: Path, sightings: bool = False):
    """(layer of the unrecognised-failure finding or None, its evidence lines) on ``folder``.  With
    ``sightings``, the lowest layer among the errors probe's ``unrecognised`` sightings instead: the
    finding less its one filter (lines another rule's own patterns report are left to that rule)."""
    system = detect_snapshot(str(folder))
    if sightings:
        from rocm_wizard.detect.failure_lines import LAYERS

        rows = [(getattr(e, "layer", None), getattr(e, "text", "")) for e in system.errors or []
                if getattr(e, "signature", None) == "unrecognised"]
        layers = sorted({l for l, _t in rows if l in LAYERS}, key=LAYERS.index)
        return (layers[0] if layers else None), ["[%s] %s" % (l, t) for l, t in rows]
    for f in diagnose(system).findings:
        if f.id == "unrecognised-failure":
            return f.layer, list(getattr(f, "evidence", []) or [])
    return None, []


def measure(first: int = 0, last: int = 9999, sightings: bool = False):
    """``[(fixture name, labelled layer, catch-all layer)]`` over the labelled fixtures."""
    real = REPO / "tests" / "data" / "real"
    out = []
    for d in sorted((p for p in real.iterdir() if (p / "labels.toml").is_file()), key=lambda p: (len(p.name.split("-", 1)[0]), p.name)):
        num = int(d.name.split("-", 1)[0])
        if not first <= num <= last:
            continue
        lab = tomllib.loads((d / "labels.toml").read_text(encoding="utf-8"))
        if "failure_class" not in lab:
            continue  # not labelled for diagnosis
        layer = lab.get("failure_layer", "")
        if lab["failure_class"] == "none":
            layer = "none"
        if not layer:
            continue
        got, _ev = catchall_layer(d, sightings)
        out.append((d.name, layer, got))
    return out


def main(argv) -> int:
    args = [a for a in argv[1:] if not a.startswith("--")]
    first = int(args[0]) if args else 0
    last = int(args[1]) if len(args) > 1 else 9999
    sightings = "--sightings" in argv
    catalogue_off()
    rows = measure(first, last, sightings)
    print("| # | labelled layer | catch-all layer | right |")
    print("|---|---|---|---|")
    failing = right = fired = healthy = healthy_ok = 0
    by_layer = {}
    for name, layer, got in rows:
        if layer == "none":
            healthy += 1
            ok = got is None
            healthy_ok += ok
            print("| %s | none | %s | %s |" % (name.split("-", 1)[0], got or "-", "ok" if ok else "FALSE ALARM"))
            continue
        failing += 1
        fired += got is not None
        hit = got == layer
        right += hit
        n, r = by_layer.get(layer, (0, 0))
        by_layer[layer] = (n + 1, r + hit)
        print("| %s | %s | %s | %s |" % (name.split("-", 1)[0], layer, got or "-", "yes" if hit else "**no**"))
    print()
    print(("From the sightings, " if sightings else "") + "Catch-all alone (catalogue off): failing %d; catch-all fired on %d/%d; its first layer is the "
          "labelled one on %d/%d (%.0f%%). Healthy: %d/%d silent." % (
              failing, fired, failing, right, failing, 100.0 * right / max(failing, 1), healthy_ok, healthy))
    print("By labelled layer: " + "; ".join("%s %d/%d" % (l, r, n) for l, (n, r) in sorted(by_layer.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
