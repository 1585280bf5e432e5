"""The standalone smoke script, run for real with the interpreter that has torch (CPU wheel in CI)."""
from __future__ import annotations

import ast
import json
import subprocess
import os
import shutil
import sys

import pytest

from rocm_wizard.verify.runner import analyse

from _verify_helpers import SMOKE, NoGpu, checks_by_name, load_smoke_module, run_smoke

STDLIB = set(getattr(sys, "stdlib_module_names", ())) or None


def test_smoke_imports_nothing_from_rocm_wizard_and_only_stdlib_at_top_level():
    tree = ast.parse(SMOKE.read_text(encoding="utf-8"))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [(a.name, node) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names.append((node.module or "", node))
    assert names, "the parser found no imports at all"
    assert not [n for n, _ in names if n.split(".")[0] == "rocm_wizard" or n == ""], \
        "smoke.py must stay standalone (no relative or rocm_wizard imports)"
    top_level = [n for n, node in names if node in tree.body]
    if STDLIB:
        assert all(n.split(".")[0] in STDLIB for n in top_level), top_level
    third_party = {n.split(".")[0] for n, _ in names} - (STDLIB or set())
    assert third_party <= {"torch", "triton"}, third_party
    assert "__import__" not in {getattr(n.func, "id", None) for n in ast.walk(tree)
                                if isinstance(n, ast.Call) and "rocm_wizard" in ast.dump(n)}


def test_smoke_parses_as_python_38():
    # rocm/pytorch images and old venvs carry old interpreters: the script keeps to 3.8 syntax
    ast.parse(SMOKE.read_text(encoding="utf-8"), feature_version=(3, 8))


@pytest.mark.parametrize("argv, needle", [
    (["--timeout", "0"], "--timeout must be a positive"),
    (["--timeout", "nan"], "--timeout must be a positive"),
    (["--check-timeout", "elementwise=0"], "--check-timeout wants CHECK=SECONDS"),
    (["--check-timeout", "bogus=4"], "--check-timeout wants CHECK=SECONDS"),
    (["--check-timeout", "elementwise"], "--check-timeout wants CHECK=SECONDS"),
    (["--only", "alloc,bogus"], "unknown check(s): bogus"),
    (["--no-such-option"], "unrecognized arguments"),
])
def test_bad_command_line_is_a_usage_error(argv, needle):
    proc = run_smoke(sys.executable, *argv)
    assert proc.returncode == 64
    assert needle in proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_list_names_every_check():
    proc = run_smoke(sys.executable, "--list")
    assert proc.returncode == 0
    listed = [line.split()[0] for line in proc.stdout.splitlines()]
    assert listed == list(load_smoke_module().CHECK_NAMES)


def test_cpu_torch_reports_no_gpu_as_a_clear_failure(torch_python):
    proc = run_smoke(torch_python, "--json", env_extra={"HSA_OVERRIDE_GFX_VERSION": "11.0.0",
                                                        "TORCH_BLAS_PREFER_HIPBLASLT": "0"})
    assert proc.returncode == 2, proc.stderr
    doc = json.loads(proc.stdout)
    checks = checks_by_name(doc)
    assert checks[("import", None)]["status"] == "pass"
    expect = NoGpu(torch_python)
    assert doc["torch"]["version"] and doc["torch"]["build"] == expect.build
    device = checks[("device", None)]
    assert device["status"] == "fail"
    assert device["reason"].startswith("no GPU:") and expect.reason in device["reason"]
    assert doc["torch"]["version"] in device["reason"]
    assert checks[("kfd", None)]["status"] == "skip" and "ROCm only" in checks[("kfd", None)]["reason"]
    skipped = [c for c in doc["checks"] if c["name"] not in ("import", "kfd", "device")]
    assert skipped and all(c["status"] == "skip" and c["reason"] for c in skipped)
    # the variables that change behaviour travel with the result
    assert doc["env"]["HSA_OVERRIDE_GFX_VERSION"] == "11.0.0"
    assert doc["env"]["TORCH_BLAS_PREFER_HIPBLASLT"] == "0"
    assert doc["summary"] == {"pass": 1, "fail": 1, "skip": len(skipped) + 1, "ok": False}
    report = analyse(doc)
    assert report.exit_code == 2
    assert report.errors[0].rule_id == expect.rule_id
    assert report.headline.startswith(f"{expect.layer}: ") and expect.headline in report.headline


def test_text_output_without_json(torch_python):
    proc = run_smoke(torch_python, "--only", "device")
    assert proc.returncode == 2
    assert "FAIL  device" in proc.stdout and "no GPU" in proc.stdout
    assert proc.stdout.rstrip().splitlines()[-1].startswith("FAILED: 1 passed, 1 failed")


def _leftover_workers(script):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(script) in cmd and "--worker" in cmd:
            found.append(cmd)
    return found


def test_hang_and_crashes_are_failed_checks_and_the_rest_still_runs(torch_python, tmp_path):
    script = tmp_path / "smoke.py"  # a private copy: its workers are recognisable in /proc
    shutil.copy(SMOKE, script)
    hooks = "noise:alloc,hang:elementwise,segv:matmul,abort:linear"
    # the hung check sleeps forever, so its short timeout proves the hang on any machine; the
    # other checks (and the fresh workers' imports) get a timeout no loaded machine reaches
    proc = run_smoke(torch_python, "--json", "--cpu-fallback", "--timeout", "300", "--check-timeout", "elementwise=1",
                     "--only", "alloc,elementwise,matmul,linear,linear_alt_blas,bandwidth",
                     script=script, env_extra={"ROCM_WIZARD_SMOKE_HOOK": hooks}, timeout=1800)
    assert proc.returncode == 2, proc.stderr
    doc = json.loads(proc.stdout)  # library noise on stdout did not corrupt the document
    c = checks_by_name(doc)
    assert c[("alloc", "cpu")]["status"] == "pass"
    hang = c[("elementwise", "cpu")]
    assert hang["status"] == "fail" and hang["reason"].startswith("timed out after 1s")
    assert hang["details"] == {"timed_out": True, "timeout": 1.0}
    assert hang["seconds"] >= 1.0
    segv = c[("matmul", "cpu")]
    assert segv["status"] == "fail" and "SIGSEGV" in segv["reason"] and segv["details"]["signal"] == "SIGSEGV"
    assert "hook: segv in matmul" in segv["stderr_tail"]
    abort = c[("linear", "cpu")]
    assert abort["status"] == "fail" and "SIGABRT" in abort["reason"]
    # checks after the hang and the crashes still ran, in fresh workers
    assert c[("bandwidth", "cpu")]["status"] == "pass" and c[("bandwidth", "cpu")]["details"]["gbs"] > 0
    alt = c[("linear_alt_blas", "cpu")]
    assert alt["status"] == "pass" and alt["details"]["env"] == {"TORCH_BLAS_PREFER_CUBLASLT": "1"}
    assert [f["name"] for f in doc["figures"]] == ["bandwidth"]
    assert not _leftover_workers(script)
    report = analyse(doc)
    by_check = {c: d for d in report.errors for c in d.checks}
    assert by_check["elementwise[cpu]"].rule_id == "gpu-hang"
    assert by_check["elementwise[cpu]"].layer == "runtime"
    assert by_check["matmul[cpu]"].rule_id == by_check["linear[cpu]"].rule_id == "gpu-crash"
    # this machine has no GPU at all: a CPU wheel is named as such, a CUDA or ROCm build sees no GPU
    # (scripts/setup.sh installs PyPI's default build where PyTorch's CPU index cannot be reached)
    assert by_check["device"].rule_id == ("torch-cpu-wheel" if _torch_build(torch_python) == "cpu" else "no-gpu-visible")


def test_a_crash_in_import_still_gives_a_report():
    proc = run_smoke(sys.executable, "--json", env_extra={"ROCM_WIZARD_SMOKE_HOOK": "segv:import"})
    assert proc.returncode == 2
    doc = json.loads(proc.stdout)
    first = doc["checks"][0]
    assert first["name"] == "import" and first["status"] == "fail" and "SIGSEGV" in first["reason"]
    assert all(c["status"] == "skip" and c["reason"] == "torch did not import" for c in doc["checks"][1:])
    report = analyse(doc)
    assert report.errors[0].rule_id == "torch-import-broken" and report.errors[0].layer == "wheel"


def test_a_worker_that_exits_without_answering():
    proc = run_smoke(sys.executable, "--json", env_extra={"ROCM_WIZARD_SMOKE_HOOK": "exit:import"})
    doc = json.loads(proc.stdout)
    assert doc["checks"][0]["reason"] == "the check's process exited with status 3 without answering"


def test_missing_torch_is_named(tmp_path):
    # an interpreter without torch: python -I ignores PYTHONPATH and user site; a fresh venv has no torch
    venv = tmp_path / "venv"
    import venv as _venv
    _venv.EnvBuilder(with_pip=False).create(venv)
    proc = run_smoke(str(venv / "bin" / "python"), "--json")
    doc = json.loads(proc.stdout)
    assert "No module named 'torch'" in doc["checks"][0]["reason"]
    assert analyse(doc).errors[0].rule_id == "torch-not-installed"


def _torch_build(python: str) -> str:
    """'cpu', or the GPU toolkit version a torch build was made for (CUDA or HIP)."""
    out = subprocess.run([python, "-c", "import torch; print(torch.version.cuda or torch.version.hip or 'cpu')"],
                         capture_output=True, text=True, timeout=300)
    return out.stdout.strip() or "cpu"


def test_a_triton_directory_that_shadows_the_package(torch_python, tmp_path):
    found = subprocess.run([torch_python, "-c", "import importlib.util as u; print(bool(u.find_spec('triton')))"],
                           capture_output=True, text=True, timeout=120).stdout.strip()
    if found == "True":
        # Python's import system prefers an installed regular package to a namespace directory found
        # earlier on the path, so nothing is shadowed here (a CUDA build from PyPI brings triton)
        pytest.skip("does not apply: this torch has triton installed, which a directory without __init__.py "
                    "cannot shadow")
    (tmp_path / "triton").mkdir()  # no __init__.py: a namespace package named triton
    proc = run_smoke(torch_python, "--json", "--cpu-fallback", "--only", "triton",
                     env_extra={"PYTHONPATH": str(tmp_path)})
    doc = json.loads(proc.stdout)
    triton = checks_by_name(doc)[("triton", "cpu")]
    assert triton["status"] == "fail"
    assert "has no attribute 'language'" in triton["reason"] and str(tmp_path / "triton") in triton["reason"]
    report = analyse(doc)
    assert [d.rule_id for d in report.errors][-1] == "triton-shadowed"
    assert "triton: module 'triton' has no attribute 'language'" in [d.headline for d in report.errors]


@pytest.mark.slow
def test_every_check_on_the_cpu_fallback(torch_python):
    """The whole script against the CPU device (torch.compile included: tens of seconds)."""
    proc = run_smoke(torch_python, "--json", "--cpu-fallback", timeout=600)
    doc = json.loads(proc.stdout)
    c = checks_by_name(doc)
    for name in ("alloc", "elementwise", "matmul", "linear", "linear_alt_blas", "compile", "throughput", "bandwidth"):
        assert c[(name, "cpu")]["status"] == "pass", c[(name, "cpu")]
    assert c[("matmul", "cpu")]["details"]["dtypes"]["bfloat16"]["rel_err"] <= 2e-2
    assert c[("compile", "cpu")]["details"]["inductor_seconds"] >= 0


@pytest.mark.parametrize("arch, arch_list, covered", [
    ("gfx1100", ["gfx900", "gfx1030", "gfx1100"], True),
    ("gfx1101", ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100"], False),
    ("gfx90a:sramecc+:xnack-", ["gfx90a"], True),
    ("gfx90a", ["gfx90a:xnack-", "gfx942"], True),
    ("sm_90", ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"], True),
    ("sm_89", ["sm_80", "sm_86"], True),       # same major, lower minor: binary compatible
    ("sm_90", ["sm_80", "sm_86"], False),      # a newer major needs its own code or PTX
    ("sm_90", ["sm_80", "compute_80"], True),  # PTX is compiled for the GPU at load
    ("sm_90", ["sm_90a"], False),               # arch-specific code runs only on its exact target
    ("sm_100", ["sm_90a", "compute_90a"], False),
    ("sm_75", [], False),
])
def test_arch_coverage(arch, arch_list, covered):
    assert load_smoke_module().arch_covered(arch, arch_list)[0] is covered


def test_compile_names_inductor_when_only_inductor_breaks(torch_python, tmp_path):
    """The compile check runs inductor first (a pass proves dynamo too); when inductor fails, dynamo
    alone (eager backend) tells the layers apart.  Inductor's CPU backend needs a C++ compiler: one
    that always fails breaks inductor and leaves dynamo working."""
    broken = tmp_path / "bin"
    broken.mkdir()
    for name in ("g++", "c++", "gcc", "cc", "clang++"):
        tool = broken / name
        tool.write_text("#!/bin/sh\necho 'rocm-wizard test: this compiler always fails' >&2\nexit 1\n")
        tool.chmod(0o755)
    env = {"CXX": str(broken / "g++"), "CC": str(broken / "gcc"),
           "PATH": str(broken) + os.pathsep + os.environ.get("PATH", ""),
           "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "inductor"), "TORCHINDUCTOR_FX_GRAPH_CACHE": "0"}
    proc = run_smoke(torch_python, "--json", "--cpu-fallback", "--only", "compile", env_extra=env, timeout=600)
    c = checks_by_name(json.loads(proc.stdout))[("compile", "cpu")]
    assert c["status"] == "fail", c
    assert c["details"]["stage"] == "inductor" and c["reason"].startswith("inductor: "), c
