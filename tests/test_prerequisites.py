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


def test_the_suites_data_is_in_the_repository():
    assert len(ci.real_fixtures(labelled=True)) >= 50, f"{ci.REAL} lacks its labelled real outputs"
    # no test, helper or script reads the project's field-data folder beside the checkout
    readers = [str(p.relative_to(REPO)) for p in sorted((REPO / "tests").rglob("*.py")) + sorted((REPO / "scripts").glob("*"))
               if p.is_file() and ("ROCM_WIZARD_SHARED" in p.read_text(errors="replace")
                                   or '"..", "shared"' in p.read_text(errors="replace")
                                   or '".." / "shared"' in p.read_text(errors="replace"))
               and p.name != "test_prerequisites.py"]
    assert readers == []


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


def test_under_ci_only_a_named_skip_stays_a_skip(tmp_path):
    case = tmp_path / "test_skips.py"
    case.write_text("import pytest\nfrom rwtest import ci\n\n"
                    "def test_named():\n    pytest.skip('root reads everything')\n\n"
                    "def test_unnamed():\n    pytest.skip('flaky on Tuesdays')\n\n"
                    "def test_missing():\n    ci.missing('the frobnicator is not installed')\n")
    env = {"PYTHONPATH": str(REPO / "tests")}  # the root conftest, loaded as a plugin
    strict = _pytest(tmp_path, str(case), "-p", "conftest", f"--rootdir={tmp_path}", ci_value="true", **env)
    assert strict.returncode == 1, strict.stdout + strict.stderr
    assert "2 failed, 1 skipped" in strict.stdout.splitlines()[-1], strict.stdout
    assert "not one of tests/rwtest/ci.py's NAMED_SKIPS: 'flaky on Tuesdays'" in strict.stdout
    assert "CI=true, so this is a failure, not a skip: missing prerequisite: the frobnicator" in strict.stdout
    relaxed = _pytest(tmp_path, str(case), "-p", "conftest", f"--rootdir={tmp_path}", ci_value=None, **env)
    assert relaxed.returncode == 0 and "3 skipped" in relaxed.stdout.splitlines()[-1], relaxed.stdout
