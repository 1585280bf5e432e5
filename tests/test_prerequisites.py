"""Everything the suite needs is here -- and under ``CI=true`` a missing tool, ``../shared``, torch
or integration prerequisite is a failure that names it, not a quiet skip (see tests/rwtest/ci.py).

scripts/setup.sh installs all of it; this module says at once what a machine lacks."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rwtest import ci

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", sorted(ci.TOOLS))
def test_tool_is_installed(name):
    assert os.access(ci.tool(name), os.X_OK)


def test_shared_field_data_is_present():
    real = ci.shared_dir("fixtures/real")
    assert any(p.is_dir() for p in real.iterdir()), f"{real} has no fixture folders"


@pytest.mark.parametrize("module", ["torch", "vermin", "hypothesis", "jsonschema", "pytest_timeout"])
def test_python_module_is_installed(module):
    if importlib.util.find_spec(module) is None:
        ci.missing(f"the Python module {module} is not installed in {sys.executable} (scripts/setup.sh)")


def test_integration_tier_can_run():
    sys.path.insert(0, str(REPO / "tests" / "integration"))
    from harness.procs import missing_prerequisites

    reasons = missing_prerequisites()
    if reasons:
        ci.missing("integration tier unavailable: " + "; ".join(reasons))


# -- the mechanism itself: a nested pytest with a tool or ../shared taken away --------------------

def _pytest(tmp_path, *args, ci_value, **env):
    e = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER")}
    e.update(env)
    if ci_value is not None:
        e["CI"] = ci_value
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                           "-p", "no:randomly", *args], cwd=REPO, env=e, capture_output=True, text=True, timeout=600)


def test_under_ci_a_missing_shellcheck_fails_and_is_named(tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()  # a PATH without shellcheck (the interpreter is started by its full path)
    target = "tests/plan/test_shell.py::test_golden_scripts_pass_shellcheck"
    strict = _pytest(tmp_path, target, "-x", ci_value="true", PATH=str(empty))
    assert strict.returncode == 1, strict.stdout + strict.stderr
    assert "CI=true, so this is a failure, not a skip" in strict.stdout
    assert "shellcheck is not installed" in strict.stdout
    relaxed = _pytest(tmp_path, target, "-x", ci_value=None, PATH=str(empty))
    assert relaxed.returncode == 0 and "shellcheck is not installed" in relaxed.stdout, relaxed.stdout
    assert " passed" not in relaxed.stdout.splitlines()[-1]  # every one skipped, reason listed by -rs


def test_under_ci_missing_shared_data_fails_and_is_named(tmp_path):
    gone = tmp_path / "no-shared"
    targets = ["tests/test_prerequisites.py::test_shared_field_data_is_present",
               "tests/test_cli_detect.py::test_detect_json_snapshot_validates"]  # parametrised over ../shared
    strict = _pytest(tmp_path, *targets, ci_value="true", ROCM_WIZARD_SHARED=str(gone))
    assert strict.returncode == 1, strict.stdout + strict.stderr
    assert f"{gone}/fixtures/real is not present" in strict.stdout
    # a skip mark is evaluated at set-up: that one is an error, the other a failure; none passes
    assert "1 failed, 1 error" in strict.stdout.splitlines()[-1], strict.stdout
