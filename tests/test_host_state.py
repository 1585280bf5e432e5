"""Tests are blind to the host's state (tests/rwtest/hoststate.py): every test's overlay, caches
and log root are its own, a test that opens rocm-wizard's state on the host fails, and ``--demo``
never reads the machine's catalog overlay."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from rwtest import hoststate

REPO = Path(__file__).resolve().parents[1]


def test_each_test_has_its_own_overlay_caches_and_log_root(tmp_path_factory):
    base = str(tmp_path_factory.getbasetemp())
    for name in ("ROCM_WIZARD_CATALOG_OVERLAY", "XDG_CACHE_HOME", "XDG_STATE_HOME", "ROCM_WIZARD_LOG_DIR"):
        assert os.environ[name].startswith(base + os.sep), (name, os.environ[name])
    assert "VIRTUAL_ENV" not in os.environ
    from rocm_wizard.catalog import overlay
    from rocm_wizard.execute import paths

    assert overlay.path() == os.environ["ROCM_WIZARD_CATALOG_OVERLAY"]
    assert overlay.read() is None
    assert os.environ["ROCM_WIZARD_TEST_CACHE"] == hoststate.TEST_CACHE  # the image cache keeps its place
    assert str(paths.__file__)  # (imported: the log root follows ROCM_WIZARD_LOG_DIR, execute/paths.py)


def test_the_tests_folders_are_not_in_pytests_base_directory(tmp_path_factory):
    # that one is listed by every tmp_path and mktemp (to number the next folder); the tests' own
    # folders are made in one folder of it (rwtest/hoststate.py's Folders)
    folder = os.path.dirname(os.environ["XDG_CACHE_HOME"])
    assert os.path.isdir(folder)
    assert os.path.dirname(folder) != str(tmp_path_factory.getbasetemp())


def test_a_new_folder_is_made_without_listing_the_parent(tmp_path, monkeypatch):
    folders = hoststate.Folders(str(tmp_path))
    (tmp_path / "1").mkdir()  # taken already: skipped
    (tmp_path / "1" / "left").write_text("x")

    def no_listing(*_a, **_k):
        raise AssertionError("the parent was listed")
    monkeypatch.setattr(os, "listdir", no_listing)
    monkeypatch.setattr(os, "scandir", no_listing)
    made = [folders.new() for _ in range(3)]
    monkeypatch.undo()
    assert made == [str(tmp_path / n) for n in ("0", "2", "3")]
    assert all(os.listdir(p) == [] for p in made) and os.listdir(tmp_path / "1") == ["left"]


def test_a_test_that_opens_the_hosts_state_fails(tmp_path):
    case = tmp_path / "test_peek.py"
    case.write_text("import os\n\ndef test_peek():\n"
                    "    try:\n        open('/var/lib/rocm-wizard/catalog-overlay.json').close()\n"
                    "    except OSError:\n        pass\n\n"
                    "def test_listing_apt():\n    os.listdir('/etc/apt') if os.path.isdir('/etc/apt') else open('/etc/apt/x')\n\n"
                    "import pytest\n\n@pytest.mark.reads_host\ndef test_allowed():\n"
                    "    os.path.isdir('/etc/apt') and os.listdir('/etc/apt')\n")
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER")}
    env["PYTHONPATH"] = str(REPO / "tests")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "conftest",
                        f"--rootdir={tmp_path}", str(case)], cwd=REPO, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 1 and "3 passed, 2 errors" in r.stdout.splitlines()[-1], r.stdout + r.stderr  # at teardown
    assert "opened the host's state" in r.stdout and "open /var/lib/rocm-wizard/catalog-overlay.json" in r.stdout


def test_demo_never_reads_the_machines_overlay(tmp_path):
    from rocm_wizard.catalog import overlay

    planted = tmp_path / "catalog-overlay.json"  # stands for this machine's overlay
    planted.write_text(json.dumps({"schema": overlay.SCHEMA, "created": "2027-11-02T10:00:00Z"}), encoding="utf-8")
    os.chmod(planted, 0o644)
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), ROCM_WIZARD_CATALOG_OVERLAY=str(planted),
               ROCM_WIZARD_TODAY="2026-12-01")
    plain = [sys.executable, "-m", "rocm_wizard", "doctor", "--json", "--snapshot",
             str(REPO / "src" / "rocm_wizard" / "demo" / "system")]
    doc = json.loads(subprocess.run(plain, capture_output=True, text=True, env=env, timeout=120).stdout)
    assert doc["catalog"]["overlay"] == "2027-11-02"  # the same system without --demo: the overlay is read
    demo = [sys.executable, "-m", "rocm_wizard", "--demo", "doctor", "--json"]
    r = subprocess.run(demo, capture_output=True, text=True, env=env, timeout=120)
    doc = json.loads(r.stdout)
    assert doc["catalog"]["overlay"] is None, r.stderr
    assert doc["catalog"]["knowledge_date"] == overlay.bundled_date()
