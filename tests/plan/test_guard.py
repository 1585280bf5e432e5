"""The guard (issue "Keep it ROCm and keep it clean"): torch plans write a constraints file that
pins the torch family and name it in the venv's pip.conf, before the install, so that a later
``pip install`` of an app cannot swap the ROCm torch for a CUDA or CPU build.  pip.conf is edited by
one rule in three renderings (the executor's Python, the script's bash, the playbook's tasks):
these tests hold the Python and bash ones to the same output, and pip itself to the file's meaning."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from plan_helpers import SYSTEMS, run_cli
from rocm_wizard.plan.shell import PRELUDE
from rocm_wizard.plan.steps.python import GuardError, PipGuard, guarded_pip_conf

SEED = str(SYSTEMS / "seed-rx7900xt-jammy-rocm6.2.json")
LINE = "constraint = /srv/venv/rocm-wizard-guard.txt"

CONFS = [
    None,
    "",
    "[global]\nindex-url = https://example.invalid/simple\n",
    "[install]\nno-cache-dir = true\n",
    "# comment\n  [global]  \ntimeout = 60\n[global]\nx = 1\n",
    "[global]\ntimeout = 60",  # no newline at the end
    "[global]\r\ntimeout = 60\r\n",  # CRLF: bash's read and the rule both keep the CR
    f"[global]\n{LINE}\n",
    "[global]\ntimeout = 60\f\n",  # a form feed is not a line break for pip's configparser or bash
]


@pytest.mark.parametrize("text", CONFS)
def test_the_line_goes_under_global_once(text):
    out = guarded_pip_conf(text, LINE)
    assert out.split("\n").count(LINE) == 1
    assert guarded_pip_conf(out, LINE) == out  # idempotent
    lines = out.split("\n")
    head = [i for i, ln in enumerate(lines) if ln.strip() == "[global]"]
    assert head and lines[head[0] + 1] == LINE
    for ln in (text or "").split("\n"):  # nothing of the user's file is lost
        assert ln in lines


@pytest.mark.parametrize("text", ["[global]\nconstraint = /other.txt\n", "[install]\nconstraints: /x\n"])
def test_a_file_naming_other_constraints_is_refused(text):
    with pytest.raises(GuardError):
        guarded_pip_conf(text, LINE)


def _bash_guard(tmp_path, text):
    conf = tmp_path / "pip.conf"
    if conf.exists():
        conf.unlink()
    if text is not None:
        conf.write_bytes(text.encode())
    script = PRELUDE + '\nrw_guard_conf "$1" "$2" ""\nprintf %s "$RW_NEW"\n'
    return subprocess.run(["bash", "-c", script, "guard", str(conf), LINE], capture_output=True, timeout=60)


@pytest.mark.parametrize("text", CONFS)
def test_the_script_edits_pip_conf_as_the_executor_does(text, tmp_path):
    res = _bash_guard(tmp_path, text)
    assert res.returncode == 0, res.stderr
    assert res.stdout.decode() == guarded_pip_conf(text, LINE)


def test_the_script_refuses_what_the_executor_refuses(tmp_path):
    res = _bash_guard(tmp_path, "[global]\nconstraint = /other.txt\n")
    assert res.returncode != 0
    assert b"already names constraint files" in res.stderr


def _pip_env(tmp_path):
    # pip reads no configuration of this machine's: only the venv's own pip.conf
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE="", XDG_CONFIG_HOME=str(tmp_path / "xdg"), HOME=str(tmp_path / "home"),
               PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INDEX="1")
    return env


def test_pip_refuses_a_swap_through_the_venv_pip_conf(tmp_path):
    """Not a mock: the stand-in wheels, a real venv, the real pip reading what the rule wrote."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
    from harness.wheels import WheelSpec, build_wheel

    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for v in ("2.4.1+rocm6.1", "2.4.1+cpu", "2.5.0"):  # 2.5.0: PyPI's build (CUDA on x86_64)
        build_wheel(WheelSpec("torch", v, files={"torch/__init__.py": f"__version__ = {v!r}\n"}), str(wheels))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    # the project's pip run for the venv's interpreter (--python): pip runs inside the venv, so it
    # reads the venv's pip.conf as a pip installed there would
    py = str(venv / "bin" / "python")
    env = _pip_env(tmp_path)
    pip = [sys.executable, "-m", "pip", "--python", py]
    res = subprocess.run(pip + ["install", "--find-links", str(wheels), "torch==2.4.1+rocm6.1"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    step = PipGuard("torch-guard", "guard", venv=str(venv), constraints=["torch==2.4.1+rocm6.1"],
                    guard_file=str(venv / "rocm-wizard-guard.txt"))
    (venv / "rocm-wizard-guard.txt").write_text(step.content)
    (venv / "pip.conf").write_text(guarded_pip_conf(None, step.line))
    for want in (["torch==2.4.1+cpu"], ["torch==2.5.0"], ["--force-reinstall", "torch==2.5.0"]):
        res = subprocess.run(pip + ["install", "--find-links", str(wheels)] + want,
                             capture_output=True, text=True, env=env, timeout=300)
        assert res.returncode != 0, (want, res.stdout)
        assert "constraint" in (res.stdout + res.stderr), res.stderr
    for want in (["--upgrade", "torch"], ["torch==2.4.1"], ["torch>=2.0"]):
        ok = subprocess.run(pip + ["install", "--find-links", str(wheels)] + want, capture_output=True, text=True,
                            env=env, timeout=300)
        assert ok.returncode == 0, ok.stderr  # what the pins allow keeps the ROCm build
    listed = subprocess.run([py, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True,
                            env=env, timeout=60)
    assert listed.stdout.strip() == "2.4.1+rocm6.1"


def _plan(args):
    rc, out, err = run_cli(["--plan-only", "--format", "json", "--snapshot", SEED, "--path", "torch-reinstall",
                            "--venv", "/srv/venv", "--venv-mode", "existing"] + args)
    assert rc in (0, 2), err
    import json

    return json.loads(out), err


def test_torch_plans_guard_the_venv_before_the_install_and_no_guard_leaves_it_out():
    plan, err = _plan([])
    ids = [s["id"] for s in plan["steps"]]
    assert "torch-guard" in ids and ids.index("torch-guard") < ids.index("torch")
    guard = next(s for s in plan["steps"] if s["id"] == "torch-guard")
    torch = next(s for s in plan["steps"] if s["id"] == "torch")
    pins = {r.split("[")[0].split("==")[0] + "==" + r.split("==")[1] for r in torch["params"]["requirements"]}
    assert set(guard["params"]["constraints"]) == pins
    env = next(s for s in plan["steps"] if s["id"] == "torch-env")["params"]["env"]
    assert env["UV_CONSTRAINT"] == guard["params"]["guard_file"]
    assert "the venv is guarded" in err and "--no-guard" in err and "torch==2.6.0" in err
    bare, err2 = _plan(["--no-guard"])
    assert "torch-guard" not in [s["id"] for s in bare["steps"]]
    assert all("UV_CONSTRAINT" not in (s["params"].get("env") or {}) for s in bare["steps"])
    assert "the venv is guarded" not in err2


def test_the_guard_way_pins_what_the_venv_has_and_refuses_a_cuda_torch(tmp_path):
    import json

    rc, out, err = run_cli(["--plan-only", "--format", "json", "--snapshot", SEED, "--path", "guard"])
    assert rc == 2, err
    plan = json.loads(out)
    (step,) = plan["steps"]
    assert step["kind"] == "pip-guard"
    assert step["params"]["constraints"][:3] == ["torch==2.5.1+rocm6.2", "torchvision==0.20.1+rocm6.2",
                                                 "torchaudio==2.5.1+rocm6.2"]
    assert "export UV_CONSTRAINT=" in err
    rc, out, err = run_cli(["--plan-only", "--format", "ansible", "--snapshot", SEED, "--path", "guard"])
    assert rc == 2 and "pip.conf names the pins" in out, err
    # a CUDA torch is not what a guard keeps: exit 3 with the way that puts a ROCm one in
    seed = json.loads(open(SEED).read())
    system = seed.get("system", seed)
    system["torch"][0]["version"], system["torch"][0]["build"] = "2.5.1+cu121", "cuda"
    system["torch"][0]["hip"] = None
    cuda = tmp_path / "cuda.json"
    cuda.write_text(json.dumps(system))
    rc, out, err = run_cli(["--plan-only", "--snapshot", str(cuda), "--path", "guard"])
    assert rc == 3 and "CUDA build" in err and "--path torch-reinstall" in err, err
