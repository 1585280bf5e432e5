"""`rocm-wizard verify`: targets, exit statuses, output; run_verify() as the executor calls it."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

from rocm_wizard.verify import run_verify
from rocm_wizard.verify.runner import docker_command, docker_device_args, forwarded_env

from _verify_helpers import FIXTURES, REPO, NoGpu


def verify(*args, env_extra=None, timeout=300):
    env = dict(os.environ)
    env.pop("VIRTUAL_ENV", None)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "rocm_wizard.commands.verify", *args], capture_output=True,
                          text=True, env=env, timeout=timeout, cwd=REPO)


@pytest.mark.parametrize("args, code, needle", [
    (["--python", "/nonexistent/python3"], 1, "no such interpreter: /nonexistent/python3"),
    (["--python", "no-such-python-anywhere"], 1, "no interpreter named 'no-such-python-anywhere' on PATH"),
    (["--venv", "/nonexistent/venv"], 1, "no such directory: /nonexistent/venv"),
    (["--python", "x", "--venv", "y"], 64, "not allowed with argument"),
    (["--timeout", "-1"], 64, "must be a positive number of seconds"),
    (["--only", "alloc,nope"], 64, "unknown check(s) nope"),
    (["--from-file", "/nonexistent.json"], 1, "cannot read /nonexistent.json"),
])
def test_targets_that_cannot_run(args, code, needle):
    proc = verify(*args)
    assert proc.returncode == code, proc.stderr
    assert needle in proc.stderr + proc.stdout
    assert "Traceback" not in proc.stderr


def test_usage_errors_through_the_real_cli_are_64():
    from rocm_wizard.cli import main
    with pytest.raises(SystemExit) as exc:
        main(["verify", "--python", "x", "--venv", "y"])
    assert exc.value.code == 64


def test_a_venv_without_python(tmp_path):
    proc = verify("--venv", str(tmp_path))
    assert proc.returncode == 1
    assert "is not a Python environment" in proc.stderr


def test_an_interpreter_that_prints_no_report(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'Python 2.7 says hello'\nexit 0\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    proc = verify("--python", str(fake), "--json")
    assert proc.returncode == 1
    out = json.loads(proc.stdout)
    assert out["status"] == "error" and out["exit_code"] == 1
    assert out["error"] == "the smoke test produced no report (exit status 0)"


def test_docker_without_docker(tmp_path):
    proc = verify("--docker", "rocm/pytorch:latest", env_extra={"PATH": str(tmp_path)})  # no docker on PATH
    assert proc.returncode == 1 and "docker is not installed" in proc.stderr


def test_from_file_renders_and_exits_like_the_run():
    proc = verify("--from-file", str(FIXTURES / "handmade/rocm-kfd-not-accessible.json"))
    assert proc.returncode == 2
    assert "FAILED  driver: /dev/kfd not accessible" in proc.stdout
    ok = verify("--from-file", str(FIXTURES / "real/h100-verify.json"), "--json")  # a saved `verify --json`
    assert ok.returncode == 0 and json.loads(ok.stdout)["status"] == "ok"


def test_end_to_end_with_the_cpu_wheel(torch_python):
    proc = verify("--python", torch_python, "--json", env_extra={"ROCM_WIZARD_PROGRESS": "1"})
    assert proc.returncode == 2, proc.stderr
    out = json.loads(proc.stdout)
    assert out["status"] == "failed"
    expect = NoGpu(torch_python)
    assert out["headline"].startswith(f"{expect.layer}: no GPU: torch") or expect.rule_id == "torch-cuda-wheel"
    assert expect.headline in out["headline"]
    assert out["diagnoses"][0]["rule_id"] == expect.rule_id
    assert out["target"]["kind"] == "python" and out["target"]["python"]
    assert "device           fail" in proc.stderr  # progress lines went to stderr, stdout is only JSON


def test_run_verify_api_with_progress(torch_python, tmp_path):
    seen = []
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    # a wrapper, not a symlink: a symlink to a venv's python outside that venv loses its site-packages
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec "{torch_python}" "$@"\n')
    (bin_dir / "python").chmod(0o755)
    report = run_verify(venv=str(tmp_path / "venv"), timeout=60, only=["alloc"], on_progress=seen.append)
    assert report.target.kind == "venv" and report.target.python == str(bin_dir / "python")
    assert report.exit_code == 2 and report.errors[0].rule_id == NoGpu(torch_python).rule_id
    assert [line.split()[0] for line in seen] == ["import", "device", "alloc"]
    assert run_verify(python=torch_python, timeout=0).error.startswith("the timeout must be a positive")
    assert run_verify(python="a", venv="b").error == "name only one of python, venv and docker_image"


def test_docker_command_has_the_device_flags(tmp_path):
    (tmp_path / "dev" / "dri").mkdir(parents=True)
    (tmp_path / "dev" / "kfd").write_text("")
    (tmp_path / "dev" / "dri" / "renderD128").write_text("")
    args = docker_device_args(str(tmp_path))
    assert args[:2] == ["--device=/dev/kfd", "--device=/dev/dri"]
    assert ["--group-add", "video"] == args[2:4] and "--ipc=host" in args
    assert docker_device_args(str(tmp_path / "nothing"))[:2] == ["--group-add", "video"]  # no nodes, no --device
    assert forwarded_env({"HSA_OVERRIDE_GFX_VERSION": "11.0.0", "HOME": "/x", "TORCH_BLAS_PREFER_HIPBLASLT": "0"}) == \
        ["-e", "HSA_OVERRIDE_GFX_VERSION", "-e", "TORCH_BLAS_PREFER_HIPBLASLT"]
    cmd = docker_command("rocm/pytorch:latest", ["--json"], docker="docker")
    assert cmd[:4] == ["docker", "run", "--rm", "-i"]
    i = cmd.index("rocm/pytorch:latest")
    assert cmd[i - 2:i] == ["--entrypoint", "python3"] and cmd[i + 1:] == ["/tmp/rocm-wizard-smoke.py", "--json"]
    assert any(x.endswith("smoke.py:/tmp/rocm-wizard-smoke.py:ro") for x in cmd)


def test_verify_json_through_the_cli_loads_neither_rich_nor_torch(torch_python):
    """The wizard's own process never imports torch (the smoke script does, in its workers), and
    the JSON path never imports Rich or Textual."""
    code = ("import io, sys, json, contextlib; from rocm_wizard.cli import main\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            "    rc = main(['verify', '--python', sys.argv[1], '--json', '--only', 'device'])\n"
            "bad = sorted({m.split('.')[0] for m in sys.modules} & {'rich', 'textual', 'torch'})\n"
            "sys.__stdout__.write(json.dumps({'rc': rc, 'bad': bad, 'status': json.loads(out.getvalue())['status']}))\n")
    proc = subprocess.run([sys.executable, "-c", code, torch_python], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"rc": 2, "bad": [], "status": "failed"}
