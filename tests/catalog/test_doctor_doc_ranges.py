"""docs/doctor.md's table of the catalog's files names the first and last ROCm release and torch
version the bundled catalog holds (issue 22: "docs/doctor.md's version ranges are stale")."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "src" / "rocm_wizard" / "catalog" / "data"


def _key(v: str):
    return tuple(int(x) for x in v.split("."))


def _range(rows) -> str:
    versions = sorted((r["version"] for r in rows), key=_key)
    return f"{versions[0]} … {versions[-1]}"


def _row(name: str) -> str:
    text = (REPO / "docs" / "doctor.md").read_text(encoding="utf-8")
    return next(line for line in text.splitlines() if line.startswith(f"| `{name}` |"))


def test_the_rocm_range_is_the_catalogs():
    rel = tomllib.loads((DATA / "rocm_releases.toml").read_text(encoding="utf-8"))["release"]
    row = _row("rocm_releases.toml")
    assert f"ROCm {_range(rel)}:" in row, row
    assert len(re.findall(r"ROCm \d+\.\d+\.\d+ … \d+\.\d+\.\d+", row)) == 1, row


def test_the_torch_range_is_the_catalogs():
    torch = tomllib.loads((DATA / "torch_wheels.toml").read_text(encoding="utf-8"))["torch"]
    row = _row("torch_wheels.toml")
    assert f"torch {_range(torch)} " in row, row
