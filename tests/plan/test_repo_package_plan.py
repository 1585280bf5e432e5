"""The Core SDK plan on a snapshot where AMD's repository-setup package (``amdrocm-repo-stable``, a
draft of AMD's: coresdk.toml [repo_package]) is installed: its entry for the plan's repository is
adopted (no source file of the plan's own, the package's file listed as adopted, the plan says so),
one for another repository is refused with the reason, and the package is not taken for an
installed Core SDK."""
from __future__ import annotations

import json

from plan_helpers import run_cli

from rocm_wizard.plan.catalog_adapter import core_repo_package

SYSTEM = "tests/plan/systems/seed-rx7900xt-resolute-fresh.json"
FILE = "/etc/apt/sources.list.d/amdrocm-stable.sources"
URI = "https://stable.repo.amd.com/rocm/core/packages/ubuntu2604/"


def _snapshot(tmp_path, uri=URI, signed_by=None):
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    d = json.loads((repo / SYSTEM).read_text())
    d["rocm"]["packages"] = {"amdrocm-repo-stable": "10.0.0-1"}
    d["rocm"]["apt_sources"] = [{
        "sources": {}, "notes": [], "file": FILE, "line": None, "uri": uri, "suite": "stable",
        "components": ["main"], "signed_by": signed_by or core_repo_package().keyring, "enabled": True,
        "radeon": True, "repo_kind": "other", "release": None}]
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(d))
    return str(path)


def test_the_package_entry_is_adopted(tmp_path):
    rc, out, err = run_cli(["--plan-only", "--format", "json", "--snapshot", _snapshot(tmp_path), "--path", "rocm-upgrade"])
    assert rc == 2, err
    plan = json.loads(out)
    step = next(s for s in plan["steps"] if s["kind"] == "apt-sources")
    assert step["params"]["adopted"] == [FILE]
    assert not any(f["path"] == FILE for f in step["params"]["files"])
    assert "amdrocm-repo-stable" in out and "provides this repository in " + FILE in out
    rc, script, err = run_cli(["--plan-only", "--snapshot", _snapshot(tmp_path), "--path", "rocm-upgrade"])
    assert rc == 2 and f"local -a adopted=({FILE})" in script and 'rw_radeon_files "${paths[@]}" "${adopted[@]}"' in script


def test_a_package_naming_another_repository_is_refused(tmp_path):
    snap = _snapshot(tmp_path, uri="https://stable.repo.amd.com/rocm/core/packages/ubuntu2404/")
    rc, out, err = run_cli(["--plan-only", "--snapshot", snap, "--path", "rocm-upgrade"])
    assert rc != 0 and not out
    assert "amdrocm-repo-stable is installed, but none of its entries" in err and "ubuntu2404" in err


def test_a_hand_made_entry_is_not_the_package(tmp_path):
    """The same URI under another keyring is not the package's entry: refused (the package is
    installed but its entry is gone), rather than written beside it."""
    snap = _snapshot(tmp_path, signed_by="/etc/apt/keyrings/amdrocm.gpg")
    rc, out, err = run_cli(["--plan-only", "--snapshot", snap, "--path", "rocm-upgrade"])
    assert rc != 0 and "none of its entries" in err


def test_the_package_is_not_a_core_sdk_install():
    from rocm_wizard.detect.parsers.packages import core_sdk_name

    assert core_sdk_name("amdrocm-repo-stable") is None and core_sdk_name("amdrocm-repo-nightly") is None
    assert core_sdk_name("amdrocm-core-sdk10.0-gfx1201").stream == "10.0"
