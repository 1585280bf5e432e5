"""The catch-all's recall on the messages the stack's programs print (issue 28; s20).

    python scripts/catchall_recall.py [--misses] [--held-back | --all] [--part NAME]

Reads tests/data/catchall_recall.toml (each [[message]]: a line as its program prints it, the layer of
that program, failure true/false, held_back) and asks detect/failure_lines.py what it makes of each
line alone: ``classify(line, kind)`` (kind "dmesg" for the kernel's and firmware's lines, the way a
pasted kernel log reaches it; None otherwise) and ``layer_of(line, kind)``.  Prints, by layer: the
failures shown (recall), those among them placed at their layer (layer accuracy), and the
failure=false lines shown (false positives).  By default only the tuned part (held_back false);
``--held-back`` the held-back part, ``--all`` both.  ``--misses`` lists the failures not shown and
those shown at another layer.  ``--part NAME`` keeps only the messages of one sampling (their `part`,
e.g. s21-fwvocab), within the part chosen above.
"""
from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

try:
    import tomllib  # type: ignore[import-not-found]
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from rocm_wizard.detect import failure_lines  # noqa: E402

TABLE = REPO / "tests" / "data" / "catchall_recall.toml"
KERNEL_LAYERS = ("kernel", "firmware")


def messages():
    return tomllib.loads(TABLE.read_text(encoding="utf-8"))["message"]


def kind_of(msg: dict):
    """The kind a paste of the message's program is read as: the kernel's log for amdgpu/amdkfd lines."""
    return "dmesg" if msg["source"].startswith("torvalds/linux") else None


def judge(msg: dict):
    """(shown, layer given) for one message."""
    kind = kind_of(msg)
    shown = failure_lines.classify(msg["line"], kind) == failure_lines.SHOWN
    return shown, failure_lines.layer_of(msg["line"], kind)


def measure(rows):
    """{layer: [failures, shown, at layer, benign, benign shown]} and the misses."""
    by = defaultdict(lambda: [0, 0, 0, 0, 0])
    misses = []
    for m in rows:
        shown, layer = judge(m)
        c = by[m["layer"]]
        if m["failure"]:
            c[0] += 1
            c[1] += shown
            c[2] += shown and layer == m["layer"]
            if not shown:
                misses.append(("missed", m, layer))
            elif layer != m["layer"]:
                misses.append(("layer %s" % layer, m, layer))
        else:
            c[3] += 1
            c[4] += shown
            if shown:
                misses.append(("false alarm", m, layer))
    return by, misses


def report(rows, title):
    by, misses = measure(rows)
    tot = [sum(c[i] for c in by.values()) for i in range(5)]
    print("%s: recall %d/%d shown (%.0f%%); at their layer %d/%d of shown; false positives %d/%d"
          % (title, tot[1], tot[0], 100.0 * tot[1] / max(tot[0], 1), tot[2], tot[1], tot[4], tot[3]))
    for layer in failure_lines.LAYERS:
        if layer in by:
            c = by[layer]
            print("  %-10s shown %3d/%-3d  at layer %3d/%-3d  false positives %d/%d" % (layer, c[1], c[0], c[2], c[1], c[4], c[3]))
    return misses


def main(argv):
    rows = messages()
    if "--part" in argv:
        name = argv[argv.index("--part") + 1]
        rows = [m for m in rows if m.get("part") == name]
    if "--all" in argv:
        parts = [("all", rows)]
    elif "--held-back" in argv:
        parts = [("held-back", [m for m in rows if m.get("held_back")])]
    else:
        parts = [("tuned", [m for m in rows if not m.get("held_back")])]
    for title, part in parts:
        misses = report(part, title)
        if "--misses" in argv:
            for what, m, layer in misses:
                print("  %-14s [%s] %s" % (what, m["layer"], m["line"][:160]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
