"""Print doctor's outcome on real fixtures as a Markdown table (the held-out measurement of issue 28).

    python scripts/real_fixture_table.py [FIRST [LAST]]

For each folder of tests/data/real numbered FIRST..LAST: the labelled layer and class, whether
doctor reported a warning or worse, whether one such finding is at the labelled layer, and the
findings (id@layer).  A fixture labelled ``none`` is right when it gets no unrecognised/told finding.
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
from rocm_wizard.doctor import diagnose  # noqa: E402

PROBLEM = ("warning", "error", "critical")


def main(argv):
    first = int(argv[1]) if len(argv) > 1 else 0
    last = int(argv[2]) if len(argv) > 2 else 9999
    real = REPO / "tests" / "data" / "real"
    rows, warned, at_layer, layered, failing, healthy_ok, healthy, lead = [], 0, 0, 0, 0, 0, 0, 0
    for d in sorted((p for p in real.iterdir() if (p / "labels.toml").is_file()), key=lambda p: (len(p.name.split("-", 1)[0]), p.name)):
        num = int(d.name.split("-", 1)[0])
        if not first <= num <= last:
            continue
        lab = tomllib.loads((d / "labels.toml").read_text(encoding="utf-8"))
        layer = lab.get("failure_layer", "")
        findings = diagnose(detect_snapshot(str(d))).findings
        probs = [f for f in findings if f.severity in PROBLEM]
        ids = ", ".join("%s@%s" % (f.id, f.layer) for f in probs) or "-"
        if "failure_class" not in lab:
            continue  # not labelled for diagnosis
        if lab["failure_class"] == "none" or layer == "none":
            healthy += 1
            ok = not any(f.id in ("unrecognised-failure", "failure-told-not-shown") for f in findings)
            healthy_ok += ok
            rows.append("| %s | none | none | %s | %s | - | %s |" % (d.name.split("-", 1)[0], "-", "ok" if ok else "FALSE ALARM", ids))
            continue
        failing += 1
        w = bool(probs)
        a = any(f.layer == layer for f in probs)
        leads = bool(probs) and probs[0].layer == layer
        warned += w
        if layer:
            layered += 1
            at_layer += a
            lead += leads
        rows.append("| %s | %s | %s | %s | %s | %s | %s |" % (d.name.split("-", 1)[0], layer, lab.get("failure_class", ""),
                                                      "yes" if w else "**no**", ("yes" if a else "**no**") if layer else "-",
                                                      ("yes" if leads else "**no**") if layer else "-", ids))
    print("| # | layer | class | warned | at layer | lead | problem findings (id@layer, doctor's order) |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    print("Failing: %d; warned %d/%d; at the labelled layer %d/%d, leading finding at it %d/%d (of those with a layer). "
          "Healthy: %d/%d without a false alarm." % (failing, warned, failing, at_layer, layered, lead, layered, healthy_ok, healthy))


if __name__ == "__main__":
    main(sys.argv)
