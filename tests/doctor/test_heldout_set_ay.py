"""Held-out set AY (tests/data/real/1300-1308, HELDOUT.md): Python packaging of ROCm in 2026.
Every fixture was heard and led at its layer before the fixes; the fixes name the installer lines doctor heard
without a name (``unrecognised-failure``), each from the program that prints them: pip's report of a failed
subprocess step and its long conflict line (pypa/pip exceptions.py, resolvelib/factory.py), uv's resolution report
(astral-sh/uv availability.rs, pubgrub/report.rs), Python's import system (cpython importlib/_bootstrap.py).
Each row is tested on the fixture, on other wordings of the same source and on a near-miss."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer
from rwtest import realrun

PROBLEM = ("warning", "error", "critical")


def _problems(num: str):
    diag = realrun.diagnosis(_fixture(num))
    return [(f.id, f.layer) for f in diag.findings if f.severity in PROBLEM]


# -- the fixtures: named, led at their layer, nothing left unnamed ------------------------------------
@pytest.mark.parametrize("num,row,layer", [
    ("1300", "s13ay_pip_subprocess_exited_with_error", "packaging"),
    ("1302", "pkg_pip_resolution_impossible", "packaging"),
    ("1306", "s13ay_python_no_module_named_torch", "packaging"),
    ("1308", "s13ay_uv_package_not_found_in_registry", "packaging"),
    ("1308", "s13ay_uv_report_term_cannot_be_used", "packaging"),
])
def test_the_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


@pytest.mark.parametrize("num", ["1300", "1302", "1306", "1308"])
def test_no_line_of_the_fixture_is_left_unnamed(num):
    assert ("unrecognised-failure", "packaging") not in _problems(num)
    assert ("unrecognised-failure", "framework") not in _problems(num)
    assert _lead_layer(_fixture(num)) == "packaging"


# -- pip's conflict line joins every requirement (1302) ------------------------------------------------
def test_a_conflict_line_of_many_requirements_is_pips_conflict():
    pins = ", ".join("torch==2.13.0.dev202605%02d+rocm7.2" % d for d in range(1, 30))
    line = ("ERROR: Cannot install %s and torchvision==0.28.0.dev20260530+rocm7.2 because these package versions have "
            "conflicting dependencies." % pins)
    assert len(line) > 1000
    assert "pkg_pip_resolution_impossible" in _ids(line)
    # the short form of the same message stays named
    assert "pkg_pip_resolution_impossible" in _ids(
        "ERROR: Cannot install -r requirements.txt (line 4) and torch==2.5.1 because these package versions have "
        "conflicting dependencies.")
    # near-miss: pip's uninstall refusal is another message
    assert "pkg_pip_resolution_impossible" not in _ids("error: uninstall-distutils-installed-package\n"
                                                       "× Cannot uninstall numpy 1.21.5")


# -- pip's report of a failed subprocess step (1300) -----------------------------------------------------
@pytest.mark.parametrize("line", [
    # the fixture's lines
    "error: subprocess-exited-with-error",
    "  × pip subprocess to install build dependencies did not run successfully.",
    "note: This error originates from a subprocess, and is likely not a problem with pip.",
    "  Installing build dependencies ... error",
    # the other steps pip runs in a subprocess (operations/build/*.py, wheel_builder.py), interactive and not
    "  × Getting requirements to build wheel did not run successfully.",
    "  × Preparing metadata (pyproject.toml) did not run successfully.",
    "  × python setup.py egg_info did not run successfully.",
    "  × Building wheel for flash-attn (pyproject.toml) did not run successfully.",
    "  Getting requirements to build wheel: finished with status 'error'",
    "  Preparing metadata (pyproject.toml) ... error",
    "  Building wheel for bitsandbytes (pyproject.toml) ... error",
    # MetadataGenerationFailed
    "error: metadata-generation-failed",
    "× Encountered error while generating package metadata.",
])
def test_pips_subprocess_report_is_named(line):
    assert "s13ay_pip_subprocess_exited_with_error" in _ids(line), line


@pytest.mark.parametrize("line", [
    "  Installing build dependencies ... done",
    "  Getting requirements to build wheel: finished with status 'done'",
    "  Preparing metadata (pyproject.toml) ... done",
    "Building wheels for collected packages: rocm",
    "  Building wheel for rocm (pyproject.toml) ... done",
])
def test_pips_steps_that_worked_are_not_it(line):
    assert "s13ay_pip_subprocess_exited_with_error" not in _ids(line), line


def test_pips_self_version_check_is_no_failure_line():
    text = ("ERROR: No matching distribution found for setuptools>=70.2.0\n"
            "WARNING: There was an error checking the latest version of pip.\n")
    shown = failure_lines.scan([(text, None, "paste:pip.txt")], known=["ERROR: No matching distribution found for "
                                                                       "setuptools>=70.2.0"])
    assert not [line for line, _layer, _label in shown if "latest version of pip" in line], shown
    # the benign pattern is pip's own sentence only: another failed check is still a failure line
    other = failure_lines.scan([("ERROR: There was an error checking the hash of torch-2.9.1.whl\n", None, "paste:x")])
    assert other


# -- uv's resolution report (1308, and 373's clause) ----------------------------------------------------
@pytest.mark.parametrize("line", [
    # the fixture's line
    "  ╰─▶ Because filelock was not found in the package registry and torch==2.9.0+rocm7.10.0a20251117 depends on "
    "filelock, we can conclude that",
    # uv's own test output (crates/uv/tests: an index needing credentials) and a bounded requirement
    "      ╰─▶ Because anyio was not found in the package registry and your project depends on anyio, we can conclude "
    "that your project's requirements are unsatisfiable.",
    "  ╰─▶ Because wfp-oidc-client>=5.0 was not found in the package registry and you require wfp-oidc-client>=5.0, we "
    "can conclude that the requirements are unsatisfiable.",
    # --no-index / --find-links (UnavailablePackage::NoIndex)
    "  ╰─▶ Because rocm-sdk-core was not found in the provided package locations and you require rocm-sdk-core, we can "
    "conclude that your requirements are unsatisfiable.",
])
def test_uvs_package_not_found_is_named(line):
    assert "s13ay_uv_package_not_found_in_registry" in _ids(line), line


def test_uvs_other_clauses_are_not_the_not_found_row():
    # no version of a name the index has: another clause (uv_no_solution / uv_requirements_unsatisfiable)
    line = ("  ╰─▶ Because there is no version of torch==2.3.1 and you require torch==2.3.1, we can conclude that your "
            "requirements are unsatisfiable.")
    assert "s13ay_uv_package_not_found_in_registry" not in _ids(line)
    assert "s13ay_uv_package_not_found_in_registry" not in _ids("error: package 'torch' not found in the cache")


@pytest.mark.parametrize("line", [
    "      torch==2.9.0+rocm7.10.0a20251117 cannot be used.",  # 1308, the wrapped clause
    "      we can conclude that torch<2.13.0a0+rocm7.13.0a20260514 cannot be used.",  # 373
    "  ╰─▶ Because only torchvision<=0.24.0 is available and you require torchvision>0.24.0, we can conclude that "
    "torchvision>0.24.0 cannot be used.",
])
def test_uvs_cannot_be_used_clause(line):
    assert "s13ay_uv_report_term_cannot_be_used" in _ids(line), line


@pytest.mark.parametrize("line", [
    "Device cannot be used.",
    "The GPU cannot be used.",
    "Warning: HSA_OVERRIDE_GFX_VERSION cannot be used with this GPU.",
])
def test_prose_that_cannot_be_used_is_not_uvs(line):
    assert "s13ay_uv_report_term_cannot_be_used" not in _ids(line)


# -- torch not installed in the interpreter that ran (1306) -------------------------------------------
@pytest.mark.parametrize("line", [
    "20:17:08-273495 ERROR    Torch cannot load: No module named 'torch'",  # SD.Next's wrapper, the fixture
    "ModuleNotFoundError: No module named 'torch'",
    "ModuleNotFoundError: No module named 'torchvision'",
    'ModuleNotFoundError: No module named "torchaudio"',
    "ImportError: No module named torch",  # Python 2's wording
])
def test_no_module_named_torch_is_named(line):
    assert "s13ay_python_no_module_named_torch" in _ids(line), line


@pytest.mark.parametrize("line", [
    "ModuleNotFoundError: No module named 'torch._C'",  # torch is there, its extension is not
    "ModuleNotFoundError: No module named 'torchvision.transforms.functional_tensor'",  # API removed, not missing
    "ModuleNotFoundError: No module named 'torch_directml'",
    "ModuleNotFoundError: No module named 'triton'",
    "ImportError: No module named torch.nn",
])
def test_submodules_and_other_packages_are_not_it(line):
    assert "s13ay_python_no_module_named_torch" not in _ids(line), line


def test_the_rows_sit_at_packaging():
    for row in ("s13ay_pip_subprocess_exited_with_error", "s13ay_uv_package_not_found_in_registry",
                "s13ay_uv_report_term_cannot_be_used", "s13ay_python_no_module_named_torch"):
        assert error_signatures.failure_layer(row) == "packaging", row
