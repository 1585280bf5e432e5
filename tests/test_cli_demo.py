"""``--demo`` with every headless command (issue 17): ``detect``, ``doctor``, ``--plan-only`` and
``--dry-run`` describe the bundled demo system, never this machine; ``--yes`` and the commands that
would act on this machine are refused; the wizard's demo leaves no temporary directory behind.
Run as ``python -m rocm_wizard`` in a read-only view of the host (bwrap) with its own /tmp."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from rwtest import sandbox

DEMO_LINE = "demo: the bundled demo system"


def wizard(tmp_path, *args):
    env = {**os.environ, "ROCM_WIZARD_LOG_DIR": str(tmp_path / "logs"), "TMPDIR": str(tmp_path)}
    cmd = sandbox.argv([sys.executable, "-m", "rocm_wizard", *args], writable=[tmp_path])
    return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, env=env)


def test_demo_detect_describes_the_demo_system(tmp_path):
    res = wizard(tmp_path, "--demo", "detect", "--json")
    assert res.returncode == 0, res.stderr
    system = json.loads(res.stdout)
    assert [g["gfx_target"] for g in system["gpus"]] == ["gfx1100"]
    assert system["rocm"]["version"] == "6.2.0"
    assert [t["path"] for t in system["torch"]] == ["/home/demo/trainer/venv"]
    assert DEMO_LINE in res.stderr
    human = wizard(tmp_path, "--demo", "detect")
    assert human.returncode == 0 and "RX 7900 XT" in human.stdout and "/home/demo/trainer/venv" in human.stdout


def test_demo_doctor_finds_the_demo_problem(tmp_path):
    res = wizard(tmp_path, "--demo", "doctor")
    assert res.returncode == 2, res.stderr  # problems found
    assert "HIPBLAS_STATUS_ALLOC_FAILED" in res.stdout and DEMO_LINE in res.stderr
    as_json = json.loads(wizard(tmp_path, "--demo", "doctor", "--json").stdout)
    assert as_json["findings"]


@pytest.mark.parametrize("fmt, start", [("shell", "#!/usr/bin/env bash"), ("json", "{"), ("ansible", "---")])
def test_demo_plan_only(tmp_path, fmt, start):
    res = wizard(tmp_path, "--demo", "--plan-only", "--format", fmt)
    assert res.returncode == 2, res.stderr  # changes pending on the demo system
    assert res.stdout.lstrip().startswith(start)
    assert "/home/demo/trainer/venv" in res.stdout and DEMO_LINE in res.stderr


def test_demo_dry_run_checks_against_the_demo_system(tmp_path):
    res = wizard(tmp_path, "--demo", "--dry-run", "--path", "rocm-upgrade")
    assert res.returncode == 2, res.stderr
    assert "dry run: nothing is changed" in res.stdout and "Upgrade ROCm" in res.stdout
    assert "dry run:" in res.stderr and DEMO_LINE in res.stderr
    assert not (tmp_path / "logs").exists()  # a dry run starts no run


@pytest.mark.parametrize("args, word", [(["--yes"], "--yes"), (["--yes", "--dry-run"], "--yes"),
                                        (["verify"], "verify"), (["snapshot", "-o", "x.tar.gz"], "snapshot"),
                                        (["resume"], "resume")])
def test_demo_refuses_what_would_act_on_this_machine(tmp_path, args, word):
    res = wizard(tmp_path, "--demo", *args)
    assert res.returncode == 64 and res.stdout == ""
    assert f"not with {word}: it works on this machine, not on the demo system" in res.stderr


@pytest.mark.parametrize("args", [["detect", "--snapshot", "/nonexistent"], ["--plan-only", "--root", "/"]])
def test_demo_is_not_combined_with_another_system(tmp_path, args):
    res = wizard(tmp_path, "--demo", *args)
    assert res.returncode == 64 and "cannot be combined with --snapshot or --root" in res.stderr


def test_demo_core_removes_only_its_own_temporary_directory(tmp_path, monkeypatch):
    import tempfile

    from rocm_wizard.demo import DemoCore

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where mkdtemp puts it
    core = DemoCore(speed=0, fail={})
    made = core.state_dir()
    assert os.path.basename(made).startswith("rocm-wizard-demo-") and os.path.dirname(made) == str(tmp_path)
    with open(os.path.join(made, "answers.toml"), "w") as fh:
        fh.write("x")
    core.cleanup()
    assert not os.path.exists(made)
    given = tmp_path / "given"
    given.mkdir()
    other = DemoCore(speed=0, fail={}, state_dir=str(given))
    other.state_dir()
    other.cleanup()
    assert given.is_dir()  # a directory it was given is not its to remove


def test_readme_describes_the_demo_system_as_it_is(tmp_path):
    """README's "Try it" names the demo's GPU, ROCm and venv torch as detect reports them (issue 22:
    the demo became a skew case; a stale version there tells a newcomer another story)."""
    from pathlib import Path

    res = wizard(tmp_path, "--demo", "detect", "--json")
    assert res.returncode == 0, res.stderr
    system = json.loads(res.stdout)
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    para = readme.split("## Try it", 1)[1].split("\n## ", 1)[0].split("with a simulated executor", 1)[0]
    para = " ".join(para.split())
    assert [t["version"] for t in system["torch"]] and all(f"torch {t['version']}" in para for t in system["torch"]), para
    assert "ROCm " + ".".join(system["rocm"]["version"].split(".")[:2]) in para, para
    assert "RX 7900 XT" in para
    assert len(set(re.findall(r"torch (\d+\.\d+\.\d+\+\w+)", para))) == len(system["torch"]), para


def test_demo_never_reads_this_machines_catalog_overlay(tmp_path):
    """Issue 22: ``--demo`` reads the bundled catalog alone.  With a valid overlay in place, the same
    bundle read as ``--snapshot`` reports the overlay's date; ``--demo`` does not."""
    from rocm_wizard.catalog.overlay import ENV, SCHEMA
    from rocm_wizard.commands.main import demo_bundle

    overlay = tmp_path / "overlay.json"
    overlay.write_text(json.dumps({"schema": SCHEMA, "created": "2099-01-02T00:00:00Z", "torch": [],
                                   "docker_tags": [], "rocm_releases": []}), encoding="utf-8")

    def catalog(*args):
        env = {**os.environ, ENV: str(overlay), "ROCM_WIZARD_LOG_DIR": str(tmp_path / "logs"), "TMPDIR": str(tmp_path)}
        cmd = sandbox.argv([sys.executable, "-m", "rocm_wizard", *args, "--json"], writable=[tmp_path])
        res = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, env=env)
        assert res.returncode == 2, res.stderr
        return json.loads(res.stdout)["catalog"]

    assert catalog("doctor", "--snapshot", demo_bundle())["overlay"] == "2099-01-02"  # the overlay is read...
    assert catalog("--demo", "doctor")["overlay"] is None  # ...but never by the demo
