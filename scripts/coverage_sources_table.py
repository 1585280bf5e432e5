"""Print the sweep of the stack's failure strings (tests/data/coverage_sources.toml) as the
Markdown table docs/coverage-sources.md carries.

    python scripts/coverage_sources_table.py           # print the table
    python scripts/coverage_sources_table.py --write   # rewrite the table in docs/coverage-sources.md
"""
from __future__ import annotations

import sys
from pathlib import Path

try:
    import tomllib  # type: ignore[import-not-found]
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

REPO = Path(__file__).resolve().parents[1]
TABLE = REPO / "tests" / "data" / "coverage_sources.toml"
DOC = REPO / "docs" / "coverage-sources.md"
BEGIN, END = "<!-- table: begin -->", "<!-- table: end -->"


def _cell(text: str, limit: int = 110) -> str:
    text = text if len(text) <= limit else text[: limit - 1] + "\u2026"
    return text.replace("|", "\\|").replace("`", "'")


def table() -> str:
    with TABLE.open("rb") as fh:
        messages = tomllib.load(fh)["message"]
    counts = {s: sum(1 for m in messages if m["status"] == s) for s in ("covered", "added", "left")}
    rows = ["%d messages: %d covered before the sweep, %d added by it, %d left." % (
        len(messages), counts["covered"], counts["added"], counts["left"]), "",
        "| source | message (printed form) | status | layer / row, or why left |", "| --- | --- | --- | --- |"]
    for m in messages:
        what = m["why"] if m["status"] == "left" else "%s / `%s`" % (m["layer"], m["row"])
        rows.append("| %s | `%s` | %s | %s |" % (_cell(m["source"], 90), _cell(m["line"]), m["status"],
                                                 _cell(what, 220) if m["status"] == "left" else what))
    return "\n".join(rows) + "\n"


def main(argv) -> int:
    out = table()
    if "--write" in argv:
        doc = DOC.read_text(encoding="utf-8")
        start, end = doc.index(BEGIN), doc.index(END)
        DOC.write_text(doc[: start + len(BEGIN)] + "\n" + out + doc[end:], encoding="utf-8")
    else:
        sys.stdout.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
