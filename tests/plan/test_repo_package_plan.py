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


# -------------------------------------------------------------- issue 21: the adopted keyring
FPR = "D0F004A0025A1145C7807FCD0701EAC4D5E02107"


def _plan(tmp_path, fmt="json", **kw):
    rc, out, err = run_cli(["--plan-only", "--format", fmt, "--snapshot", _snapshot(tmp_path, **kw),
                            "--path", "rocm-upgrade"])
    assert rc == 2, err
    return out, err


def test_the_adopted_keyring_is_checked_first_and_no_key_of_our_own_is_written(tmp_path):
    out, err = _plan(tmp_path)
    plan = json.loads(out)
    kinds = [s["kind"] for s in plan["steps"]]
    assert kinds[0] == "apt-key-check", kinds  # before anything changes
    # the wizard's own Core SDK key (/etc/apt/keyrings/amdrocm.gpg) is not written (repo.radeon.com's, for the
    # kernel driver, still is)
    assert [s["params"]["keyring"] for s in plan["steps"] if s["kind"] == "apt-key"] == ["/etc/apt/keyrings/rocm.gpg"]
    assert "rocm-core-key" not in [s["id"] for s in plan["steps"]]
    check = plan["steps"][0]["params"]
    assert check == {"keyrings": [core_repo_package().keyring], "fingerprint": FPR, "package": "amdrocm-repo-stable"}
    assert "Its keyring is checked first against the Core SDK key " + FPR in out
    script, _ = _plan(tmp_path, fmt="shell")
    assert "rw_key_is \"$keyring\" \"$fpr\"" in script and "/etc/apt/keyrings/amdrocm.gpg" not in script
    book, _ = _plan(tmp_path, fmt="ansible")
    assert "--show-keys" in book and FPR in book and "/etc/apt/keyrings/amdrocm.gpg" not in book


def test_the_builders_package_and_keyring_are_known_too(tmp_path):
    """TheRock's builder (build_repo_package.py) makes one package, amdrocm-repo, whose entry names
    /usr/share/keyrings/amdrocm.gpg: adopted and checked like the RFC's."""
    pkg = core_repo_package()
    assert "amdrocm-repo" in pkg.names and "/usr/share/keyrings/amdrocm.gpg" in pkg.keyrings
    out, _ = _plan(tmp_path, signed_by="/usr/share/keyrings/amdrocm.gpg")
    plan = json.loads(out)
    assert plan["steps"][0]["params"]["keyrings"] == ["/usr/share/keyrings/amdrocm.gpg"]


def test_without_the_package_the_plan_fetches_and_checks_its_own_key(tmp_path):
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    rc, out, err = run_cli(["--plan-only", "--format", "json", "--snapshot", str(repo / SYSTEM), "--path", "rocm-upgrade"])
    assert rc == 2, err
    kinds = [s["kind"] for s in json.loads(out)["steps"]]
    assert "apt-key-check" not in kinds and kinds[0] == "apt-key"
    assert json.loads(out)["steps"][0]["params"]["keyring"] == "/etc/apt/keyrings/amdrocm.gpg"


def _keyfile(tmp_path, name, uid):
    import shutil
    import subprocess

    if not shutil.which("gpg"):
        import pytest

        pytest.skip("gpg is not installed")
    home = tmp_path / ("gnupg-" + name)
    home.mkdir(mode=0o700)
    env = {"GNUPGHOME": str(home), "PATH": "/usr/bin:/bin"}
    subprocess.run(["gpg", "--batch", "--passphrase", "", "--quick-gen-key", uid, "ed25519", "sign", "never"],
                   env=env, check=True, capture_output=True)
    data = subprocess.run(["gpg", "--batch", "--export"], env=env, check=True, capture_output=True).stdout
    fpr = [ln.split(":")[9] for ln in subprocess.run(["gpg", "--batch", "--with-colons", "--list-keys"], env=env,
                                                    check=True, capture_output=True, text=True).stdout.splitlines()
           if ln.startswith("fpr:")][0]
    subprocess.run(["gpgconf", "--kill", "all"], env=env, capture_output=True)
    return data, fpr


def test_the_step_passes_the_pinned_key_and_refuses_any_other(tmp_path):
    """The executor's side in a tree under tmp_path (the script's and the playbook's run in the Debian
    root, tests/integration/test_core_repo_package.py)."""
    from rocm_wizard.plan.context import Context
    from rocm_wizard.plan.core import FAILED, OK
    from rocm_wizard.plan.steps import make_step

    good, fpr = _keyfile(tmp_path, "good", "Core SDK stand-in <core@invalid>")
    other, other_fpr = _keyfile(tmp_path, "other", "Someone else <other@invalid>")
    root = tmp_path / "root"
    (root / "usr/share/keyrings").mkdir(parents=True)
    ring = root / "usr/share/keyrings/amdrocm.gpg"
    step = make_step("apt-key-check", "repo-package-key", "check", {
        "keyrings": ["/usr/share/keyrings/amdrocm.gpg"], "fingerprint": fpr, "package": "amdrocm-repo"})
    ctx = Context(root=str(root), commands=False, env={})
    missing = step.apply(ctx)
    assert missing.status == FAILED and "does not exist" in missing.detail
    ring.write_bytes(good)
    assert step.apply(ctx).status == OK
    before = ring.read_bytes()
    ring.write_bytes(other)
    res = step.apply(ctx)
    assert res.status == FAILED and other_fpr in res.detail and "Nothing was changed" in res.detail
    assert "apt-get purge amdrocm-repo" in res.detail
    ring.write_bytes(before + other)  # the right key with another smuggled beside it
    assert step.apply(ctx).status == FAILED
    assert ring.read_bytes() == before + other  # never written


def test_a_legacy_plan_keeps_the_package_entry_and_says_why(tmp_path):
    """Issue 21: a legacy release planned beside AMD's repository-setup package: the package's Core
    SDK entry is neither rewritten nor commented out (its URI is not one the legacy plan takes out),
    and the plan says why and how to leave the stream (TheRock's builder: Conflicts: amdgpu-install;
    the entry is a conffile, so purge)."""
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    d = json.loads((repo / "tests/plan/systems/seed-rx6700xt-noble-gfx1031.json").read_text())
    d["rocm"]["packages"] = dict(d["rocm"].get("packages") or {}, **{"amdrocm-repo": "7.14.0-1"})
    uri = "https://repo.amd.com/rocm/packages-multi-arch/ubuntu2404/"
    d["rocm"]["apt_sources"] = list(d["rocm"].get("apt_sources") or []) + [{
        "sources": {}, "notes": [], "file": "/etc/apt/sources.list.d/amdrocm.sources", "line": None, "uri": uri,
        "suite": "stable", "components": ["main"], "signed_by": "/usr/share/keyrings/amdrocm.gpg", "enabled": True,
        "radeon": True, "repo_kind": "other", "release": None}]
    snap = tmp_path / "noble.json"
    snap.write_text(json.dumps(d))
    rc, out, err = run_cli(["--plan-only", "--format", "json", "--snapshot", str(snap), "--path", "rocm-upgrade",
                            "--rocm", "7.2.4"])
    assert rc == 2, err
    plan = json.loads(out)
    note = next(n for n in plan["notes"] if "amdrocm-repo is installed" in n)
    assert "/etc/apt/sources.list.d/amdrocm.sources (" + uri + ") stays as it is" in note
    assert "apt-get purge amdrocm-repo" in note and "amdgpu-install" in note
    step = next(s for s in plan["steps"] if s["kind"] == "apt-sources")
    assert all(f["path"] != "/etc/apt/sources.list.d/amdrocm.sources" for f in step["params"]["files"])
    assert not any(m in uri for m in step["params"]["markers"])  # its line is not taken out
    assert step["params"]["adopted"] == ["/etc/apt/sources.list.d/amdrocm.sources"]  # nor ever edited
    assert not any(s["kind"] == "apt-key-check" for s in plan["steps"])
