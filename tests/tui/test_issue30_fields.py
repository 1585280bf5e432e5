"""Issue 30: the TUI's choices come from the catalog through the resolver (no list of its own), and
its key fields show the catalog's fingerprints with their sources."""
from __future__ import annotations

import json
from pathlib import Path

from rocm_wizard import model
from rocm_wizard.tui import fields as F

SYSTEMS = Path(__file__).resolve().parents[1] / "plan" / "systems"


def _seed(name: str, driver: str = "") -> model.System:
    with open(SYSTEMS / f"{name}.json") as fh:
        data = json.load(fh)
    if driver:
        data["rocm"]["packages"]["amdgpu-dkms"] = driver
    s = model.from_dict(model.System, data)
    s.origin = "snapshot"
    return s


def test_torch_list_reaches_the_newest_builds_the_driver_allows():
    # the seed's amdgpu 6.2 driver: AMD's window ends at ROCm 7.0, so torch 2.10.0+rocm7.0 is the newest
    keys = [k for k, _ in F.torch_choices(_seed("seed-rx7900xt-jammy-rocm6.2"))]
    assert keys[0] == "2.10.0+rocm7.0"
    # the same host on a 7.2-era driver (30.30): the catalog's newer releases are offered
    keys = [k for k, _ in F.torch_choices(_seed("seed-rx7900xt-jammy-rocm6.2", "1:6.16.13.30300000-2278356.24.04"))]
    assert "2.13.0+rocm7.2" in keys and "2.12.0+rocm7.2" in keys and not any(k.startswith("2.15") for k in keys)


def test_key_fields_show_the_default_and_its_source():
    form = {f.name: f for f in F.fields_for("rocm-upgrade", _seed("seed-rx7900xt-resolute-fresh"), {})}
    core = form["rocm_core_key_fingerprint"]
    assert core.value == "" and core.placeholder.replace(" ", "") == "D0F004A0025A1145C7807FCD0701EAC4D5E02107"
    assert "D0F004A0025A1145C7807FCD0701EAC4D5E02107" in core.help and "build_repo_package.py" in core.help
    assert "PR #7269" in core.help and "observed" in core.help
    legacy = form["rocm_key_fingerprint"]
    assert legacy.placeholder.replace(" ", "") == "CA8BB4727A47B4D09B4EE8969386B48A1A693C5C"
