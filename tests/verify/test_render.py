"""The human rendering and the JSON form of a verify report."""
from __future__ import annotations

import json
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocm_wizard.verify import render
from rocm_wizard.verify.report import from_smoke
from rocm_wizard.verify.runner import analyse

from _verify_helpers import fixture_doc


def test_render_healthy_h100():
    report = analyse(fixture_doc("real/h100-smoke-cold.json"))
    text = render(report, width=120)
    assert "GPU 0: NVIDIA H100 80GB HBM3" in text and "sm_90" in text
    assert "OK  every applicable check passed" in text
    for name in ("alloc[0]", "matmul[0]", "linear_alt_blas[0]", "triton[0]", "compile[0]"):
        line = next(line for line in text.splitlines() if f" {name} " in line)
        assert line.lstrip().startswith("PASS"), line
    assert "ROCm only" in text  # the kfd check says why it is skipped
    bf16 = next(f for f in report.figures if f.dtype == "bfloat16")
    assert f"{bf16.fraction * 100:.0f}% of the 989 peak (nvidia-h100-sxm" in text
    assert "\x1b[" not in text  # no colour codes unless asked


def test_render_names_the_failing_layer_and_the_known_issue():
    text = render(analyse(fixture_doc("handmade/rocm-hipblaslt-fails-hipblas-works.json")), width=200)
    assert "FAILED  BLAS: hipBLASLt path fails, hipBLAS works" in text
    assert "known issue: hipblas-not-supported" in text  # the doctor rule that explains it
    assert "TORCH_BLAS_PREFER_HIPBLASLT=0" in text
    text = render(analyse(fixture_doc("handmade/rocm-kfd-not-accessible.json")), width=200)
    assert "FAILED  driver: /dev/kfd not accessible" in text
    assert "also runtime: no GPU" in text
    text = render(analyse(fixture_doc("handmade/rocm-gfx1101-no-kernels.json")), width=200)
    assert "FAILED  wheel: no kernels for gfx1101" in text and "NO kernels in the wheel" in text


def test_render_shows_the_stderr_of_a_crash_and_colour_on_request():
    report = analyse(fixture_doc("real/h100-smoke-isolation.json"))
    text = render(report, width=160)
    assert "hook: segv in linear" in text  # the stderr tail of the crashed check
    assert "\x1b[" in render(report, color=True)


def test_render_of_a_report_that_could_not_run():
    text = render(from_smoke("nonsense"))
    assert text.startswith("rocm-wizard verify") and "ERROR  the smoke test could not run" in text


def test_json_form_is_complete_and_serialisable():
    report = analyse(fixture_doc("handmade/rocm-triton-language-missing.json"))
    data = json.loads(json.dumps(report.to_dict()))
    assert data["schema"] == "rocm-wizard/verify/1"
    assert data["status"] == "failed" and data["exit_code"] == 2
    assert data["headline"] == "triton: module 'triton' has no attribute 'language'"
    assert data["diagnoses"][0]["rule_id"] == "triton-shadowed"
    assert data["smoke"]["schema"] == "rocm-wizard/smoke/1"


def test_reading_a_report_does_not_import_rich():
    import subprocess
    code = ("import json, sys; from rocm_wizard.verify.runner import analyse; "
            "r = analyse(json.load(open(sys.argv[1]))); json.dumps(r.to_dict()); "
            "assert 'rich' not in sys.modules and 'textual' not in sys.modules, sorted(sys.modules)")
    from _verify_helpers import FIXTURES
    proc = subprocess.run([sys.executable, "-c", code, str(FIXTURES / "real/h100-smoke-cold.json")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                     max_leaves=20)
_check = st.fixed_dictionaries({"name": st.sampled_from(["import", "kfd", "device", "arch", "linear", "linear_alt_blas",
                                                         "compile", "triton", "bogus"]),
                                "status": st.sampled_from(["pass", "fail", "skip", "?"]),
                                "device": st.none() | st.integers(0, 2) | st.just("cpu"),
                                "reason": st.text(max_size=30), "details": st.dictionaries(
                                    st.sampled_from(["blas", "env", "signal", "timed_out", "stage", "timeout",
                                                     "traceback", "hiding_env", "arch"]), _json, max_size=4)})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(checks=st.lists(_check | _json, max_size=6), devices=_json, figures=_json, torch=_json)
def test_odd_documents_never_raise(checks, devices, figures, torch):
    doc = {"schema": "rocm-wizard/smoke/1", "checks": checks, "devices": devices, "figures": figures, "torch": torch}
    report = analyse(doc)
    render(report)
    json.dumps(report.to_dict())
    assert report.exit_code in (0, 1, 2)
