"""Failure-layer logic: recorded real reports (H100, CPU wheel) and hand-made ROCm failures."""
from __future__ import annotations

import re

import pytest

from rocm_wizard.verify import layers
from rocm_wizard.verify.report import CheckResult, Report, from_smoke
from rocm_wizard.verify.runner import analyse

from _verify_helpers import fixture_doc

# hand-made ROCm failure -> (layer, rule id, words of the summary, checks the diagnosis names)
HANDMADE = {
    "rocm-kfd-not-accessible": ("driver", "kfd-not-accessible", "/dev/kfd not accessible", ["kfd"]),
    "rocm-gfx1101-no-kernels": ("wheel", "wheel-missing-gfx", "no kernels for gfx1101",
                                ["arch[0]", "elementwise[0]", "matmul[0]", "linear[0]", "linear_alt_blas[0]",
                                 "triton[0]", "compile[0]", "throughput[0]", "bandwidth[0]"]),
    "rocm-gfx1031-no-binary-abort": ("wheel", "wheel-missing-gfx", "no kernels for gfx1031", ["arch[0]", "alloc[0]"]),
    "rocm-hipblaslt-fails-hipblas-works": ("BLAS", "hipblaslt-path", "hipBLASLt path fails, hipBLAS works",
                                           ["matmul[0]", "linear[0]", "throughput[0]"]),
    "rocm-hipblas-alloc-failed": ("BLAS", "hipblas-alloc-failed", "HIPBLAS_STATUS_ALLOC_FAILED",
                                  ["matmul[0]", "linear[0]", "linear_alt_blas[0]", "throughput[0]"]),
    "rocm-triton-language-missing": ("triton", "triton-shadowed", "module 'triton' has no attribute 'language'",
                                     ["triton[0]", "compile[0]"]),
    "rocm-gpu-hang": ("runtime", "gpu-hang", "elementwise[0] hung: no answer within 60s", ["elementwise[0]"]),
    "rocm-compile-segfault": ("compile", "gpu-crash", "compile[0] crashed the process (SIGSEGV)", ["compile[0]"]),
    "rocm-hsa-out-of-resources": ("runtime", "hsa-out-of-resources", "ran out of resources", ["alloc[0]"]),
}


@pytest.mark.parametrize("name", sorted(HANDMADE))
def test_handmade_rocm_failures_name_their_layer(name):
    layer, rule_id, words, checks = HANDMADE[name]
    report = analyse(fixture_doc(f"handmade/{name}.json"))
    assert report.status == "failed" and report.exit_code == 2
    first = report.errors[0]
    assert (first.layer, first.rule_id) == (layer, rule_id)
    assert words in first.summary
    assert first.checks == checks
    assert report.headline == f"{layer}: {first.summary}"
    assert first.advice and first.source


def test_kfd_failure_comes_before_its_consequence():
    report = analyse(fixture_doc("handmade/rocm-kfd-not-accessible.json"))
    assert [d.layer for d in report.errors] == ["driver", "runtime"]
    assert report.errors[1].rule_id == "no-gpu-visible"


def test_gpu_hang_names_both_hung_checks_in_their_layers():
    report = analyse(fixture_doc("handmade/rocm-gpu-hang.json"))
    assert [(d.layer, d.checks) for d in report.errors] == [("runtime", ["elementwise[0]"]), ("BLAS", ["matmul[0]"])]


def test_healthy_rocm_report_and_the_card_far_below_peak():
    ok = analyse(fixture_doc("handmade/rocm-healthy-7900xtx.json"))
    assert ok.status == "ok" and ok.exit_code == 0 and ok.diagnoses == []
    assert {f.peak_key for f in ok.figures} == {"amd-rx-7900-xtx"}
    slow = analyse(fixture_doc("handmade/rocm-below-peak.json"))
    assert slow.status == "ok" and slow.exit_code == 0  # a warning, not a failure
    assert [d.rule_id for d in slow.warnings] == ["below-peak"] * 3
    assert all(f.flagged for f in slow.figures)
    assert "bandwidth on device 0 at 32% of the card's peak (310 of 960 GB/s)" in [d.summary for d in slow.warnings]


def test_recorded_h100_reports_pass_with_figures_against_the_peak():
    for rel in ("real/h100-smoke-cold.json", "real/h100-smoke-warm.json"):
        doc = fixture_doc(rel)
        report = analyse(doc)
        assert report.status == "ok" and report.exit_code == 0, rel
        assert report.diagnoses == []
        assert report.devices[0].name == "NVIDIA H100 80GB HBM3" and report.devices[0].covered_by_wheel is True
        statuses = {c.name: c.status for c in report.checks}
        assert statuses["kfd"] == "skip" and statuses["multi_gpu"] == "skip"
        applicable = [c for c in report.checks if c.name not in ("kfd", "multi_gpu")]
        assert all(c.status == "pass" for c in applicable)
        figures = {(f.name, f.dtype): f for f in report.figures}
        assert set(figures) == {("matmul", "bfloat16"), ("matmul", "float16"), ("bandwidth", None)}
        for f in figures.values():
            assert f.peak_key == "nvidia-h100-sxm" and not f.flagged
            assert f.fraction == pytest.approx(f.value / f.peak)
            assert 0.25 < f.fraction < 1.0  # a real measurement under the datasheet peak


def test_recorded_h100_runner_output_is_the_same_report():
    saved = fixture_doc("real/h100-verify.json")
    assert saved["status"] == "ok" and saved["exit_code"] == 0 and saved["diagnoses"] == []
    again = analyse(saved["smoke"])
    assert again.status == "ok"
    assert [(f["name"], f["dtype"], f["peak"]) for f in saved["figures"]] == \
        [(f.name, f.dtype, f.peak) for f in again.figures]


def test_recorded_h100_isolation_run_hang_and_segfault():
    report = analyse(fixture_doc("real/h100-smoke-isolation.json"))
    by_check = {c: d for d in report.errors for c in d.checks}
    assert by_check["matmul[0]"].rule_id == "gpu-hang" and by_check["matmul[0]"].layer == "BLAS"
    assert by_check["linear[0]"].rule_id == "gpu-crash" and "SIGSEGV" in by_check["linear[0]"].summary
    assert report.check("throughput", 0).status == "pass"  # ran after the hang and the crash


def test_recorded_h100_with_every_gpu_hidden():
    report = analyse(fixture_doc("real/h100-smoke-hidden.json"))
    assert report.errors[0].rule_id == "visible-devices-hide-all"
    assert report.headline == "runtime: CUDA_VISIBLE_DEVICES='' hides every GPU"


def test_recorded_cpu_wheel_report():
    report = analyse(fixture_doc("real/cpu-torch-2.13.0-smoke.json"))
    assert report.exit_code == 2
    assert [d.rule_id for d in report.errors] == ["torch-cpu-wheel"]
    assert re.match(r"wheel: no GPU: torch 2\.13\.0\+cpu is a CPU-only build$", report.headline)


def _report(*checks, build="rocm"):
    r = Report(checks=list(checks))
    r.torch = {"build": build, "version": "2.5.1+rocm6.2"}
    return r


def test_a_crashed_linear_check_takes_the_other_backend_of_its_sibling():
    crashed = CheckResult("linear", 0, "fail", "the check's process was killed by SIGSEGV", details={"signal": "SIGSEGV"})
    alt = CheckResult("linear_alt_blas", 0, "pass", "", details={"blas": "hipblas", "env": {"TORCH_BLAS_PREFER_HIPBLASLT": "0"}})
    diags = layers.diagnose(_report(crashed, alt))
    assert [(d.rule_id, d.summary) for d in diags] == [("hipblaslt-path", "hipBLASLt path fails, hipBLAS works")]


def test_the_alt_path_failing_alone_on_rocm():
    ok = CheckResult("linear", 0, "pass", "", details={"blas": "hipblaslt"})
    bad = CheckResult("linear_alt_blas", 0, "fail", "the check's process was killed by SIGSEGV",
                      details={"signal": "SIGSEGV", "env": {"TORCH_BLAS_PREFER_HIPBLASLT": "0"}})
    assert [d.rule_id for d in layers.diagnose(_report(ok, bad))] == ["hipblas-path"]


def test_only_the_same_device_counts_for_a_combination():
    bad = CheckResult("linear", 0, "fail", "RuntimeError: boom", details={"blas": "hipblaslt"})
    other_gpu = CheckResult("linear_alt_blas", 1, "pass", "", details={"blas": "hipblas"})
    assert [d.rule_id for d in layers.diagnose(_report(bad, other_gpu))] == ["smoke-check-failed"]


def test_cuda_counterpart_of_the_blas_rule():
    bad = CheckResult("linear_alt_blas", 0, "fail", "RuntimeError: CUBLAS_STATUS_NOT_SUPPORTED",
                      details={"blas": "cublaslt"})
    ok = CheckResult("linear", 0, "pass", "", details={"blas": "cublas"})
    assert [d.summary for d in layers.diagnose(_report(ok, bad, build="cuda"))] == ["cuBLASLt path fails, cuBLAS works"]


def test_the_rule_table_is_complete_data():
    data = layers.rules()
    order = layers.layer_order()
    for rule in data["rule"]:
        assert set(rule) >= {"id", "layer", "when", "summary", "advice", "source"}, rule.get("id")
        assert rule["layer"] == "*" or rule["layer"] in order, rule["id"]
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule["id"])
    assert set(data["check_layers"].values()) <= set(order)
    # the known-issue ids the doctor's rules are named after
    assert {"kfd-not-accessible", "wheel-missing-gfx", "hipblaslt-path", "triton-shadowed"} <= set(layers.rule_ids())
    assert data["rule"][-1]["when"] == {}  # the fallback matches anything, so every failure gets a layer


def test_garbage_documents_are_an_error_not_a_traceback():
    for doc in (None, [], "x", {}, {"schema": "other/1"}, {"schema": 3}):
        report = from_smoke(doc)
        assert report.error and report.exit_code == 1
    odd = from_smoke({"schema": "rocm-wizard/smoke/1", "checks": [None, {"name": 3}, {"name": "alloc", "status": "?",
                      "details": [], "seconds": "x", "device": True}], "devices": "no", "figures": [{"value": "NaN"}]})
    assert [(c.name, c.status, c.device, c.details) for c in odd.checks] == [("alloc", "fail", None, {})]
    assert odd.devices == [] and odd.figures == []


def test_a_cpu_torch_in_a_guarded_venv_names_the_pin_and_the_way_back(tmp_path):
    """issue "Keep it ROCm": verify on a venv rocm-wizard guarded whose torch became a CPU build."""
    from rocm_wizard.verify.report import Target

    venv = tmp_path / "venv"
    venv.mkdir()
    doc = fixture_doc("real/cpu-torch-2.13.0-smoke.json")
    plain = analyse(doc, Target(kind="venv", venv=str(venv)))
    assert "guard" not in plain.errors[0].advice
    (venv / "rocm-wizard-guard.txt").write_text("# rocm-wizard\ntorch==2.13.0+rocm7.2\ntorchvision==0.28.0+rocm7.2\n")
    report = analyse(doc, Target(kind="venv", venv=str(venv)))
    d = report.errors[0]
    assert d.rule_id == "torch-cpu-wheel"
    assert "pins torch==2.13.0+rocm7.2" in d.advice
    assert f"rocm-wizard --path torch-reinstall --venv {venv} --torch 2.13.0+rocm7.2" in d.advice
    # a link planted as the guard file is not followed (verify may run as root)
    (venv / "rocm-wizard-guard.txt").unlink()
    secret = tmp_path / "secret"
    secret.write_text("torch==9.9.9\n")
    (venv / "rocm-wizard-guard.txt").symlink_to(secret)
    assert "guard" not in analyse(doc, Target(kind="venv", venv=str(venv))).errors[0].advice
