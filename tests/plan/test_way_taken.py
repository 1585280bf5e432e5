"""A way never changes silently (issue 30): with no ``--path``, a plan whose way is not the
diagnosis' recommended one says which way was taken and why -- on stderr, in the script's and the
playbook's header and in the JSON plan's ``way`` -- on real pastes where the recommended way
cannot be planned."""
from __future__ import annotations

import json

from plan_helpers import FIXTURES, run_cli

# an MI210 paste (rocminfo only): the diagnosis recommends torch-reinstall, which cannot be planned
# without a venv; the default rule then takes docker, which the diagnosis says does not apply here
MI210 = str(FIXTURES / "017-gfx90a-4xmi210-rocm6.2.4-ubuntu22.04")
# Strix Halo on Ubuntu 26.04: torch-reinstall first (no venv), then the diagnosis' next way, rocm-upgrade
STRIX = str(FIXTURES / "111-gfx1151-strix-halo-dkms-ubuntu26.04-kernel7.0")


def _docker_checked_absent(tmp_path) -> str:
    """The MI210 paste as detect's JSON, with Docker looked at and not installed (what a recorded
    snapshot holds when `docker version` found no docker)."""
    code, out, err = run_cli(["detect", "--snapshot", MI210, "--json"])
    assert code == 0, err
    data = json.loads(out)
    assert data["docker"]["notes"] == [] and not data["docker"]["sources"]  # the paste shows no Docker
    data["docker"]["notes"] = ["docker is not installed"]
    path = tmp_path / "mi210-no-docker.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_default_rule_way_is_said_on_stderr_and_in_every_format(tmp_path):
    snap = _docker_checked_absent(tmp_path)
    code, out, err = run_cli(["--plan-only", "--snapshot", snap])
    assert code == 2, err
    assert "WAY CHANGED: the recommended way torch-reinstall cannot be planned" in err
    assert "give --venv PATH" in err  # why it could not be planned
    assert "so docker was taken instead (the default rule)" in err
    assert "The diagnosis says docker does not apply: Docker was not detected in the snapshot" in err
    head = out.split("\n\n", 1)[0]
    assert "# Note: WAY CHANGED: the recommended way torch-reinstall" in head
    code, out, err = run_cli(["--plan-only", "--snapshot", snap, "--format", "ansible"])
    assert code == 2 and "WAY CHANGED: the recommended way torch-reinstall" in out.split("\n- ", 1)[0]
    code, out, err = run_cli(["--plan-only", "--snapshot", snap, "--format", "json"])
    way = json.loads(out)["way"]
    assert way["recommended"] == "torch-reinstall" and way["taken"] == "docker" and way["changed"] is True
    assert way["by"] == "default rule" and "no venv with torch was found" in way["why"]


def test_a_paste_without_docker_output_is_not_docker_absent():
    # issue 30: the rocminfo-only paste shows nothing of Docker. That is no evidence that Docker is
    # absent: the doctor's docker way applies (its plan's first step installs or checks Docker), so
    # the plan takes it as the diagnosis' next way, never "against" a diagnosis saying it does not apply
    code, out, err = run_cli(["doctor", "--snapshot", MI210, "--json"])
    rec = next(r for r in json.loads(out)["recommendations"] if r["path"] == "docker")
    assert rec["applies"] is True, rec["why"]
    assert "The snapshot does not show whether Docker is installed" in rec["why"]
    assert "not detected" not in rec["why"]
    code, out, err = run_cli(["--plan-only", "--snapshot", MI210, "--format", "json"])
    assert code == 2, err
    plan = json.loads(out)
    assert plan["path"] == "docker"
    assert plan["way"] == {**plan["way"], "recommended": "torch-reinstall", "taken": "docker", "changed": True,
                           "by": "diagnosis"}
    assert "does not apply" not in plan["way"]["why"] and "not detected" not in err


def test_the_diagnosis_next_way_is_said_too():
    code, out, err = run_cli(["--plan-only", "--snapshot", STRIX, "--format", "json"])
    assert code == 2, err
    plan = json.loads(out)
    assert plan["path"] == "rocm-upgrade"
    assert plan["way"] == {**plan["way"], "recommended": "torch-reinstall", "taken": "rocm-upgrade",
                           "changed": True, "by": "diagnosis"}
    assert plan["notes"][0].startswith("WAY CHANGED: the recommended way torch-reinstall cannot be planned")
    assert "the diagnosis' next way out" in err


def test_recommended_way_taken_is_not_called_a_change():
    # with a venv, the recommended torch-reinstall is planned: the JSON says so, no WAY CHANGED
    code, out, err = run_cli(["--plan-only", "--snapshot", MI210, "--venv", "/opt/ml/venv", "--format", "json"])
    assert code == 2, err
    plan = json.loads(out)
    assert plan["path"] == "torch-reinstall"
    assert plan["way"]["changed"] is False and plan["way"]["taken"] == "torch-reinstall"
    assert "WAY CHANGED" not in err and not any("WAY CHANGED" in n for n in plan["notes"])


def test_an_explicit_path_has_no_way_record():
    code, out, err = run_cli(["--plan-only", "--snapshot", MI210, "--path", "docker", "--format", "json"])
    assert code == 2, err
    assert "way" not in json.loads(out) and "WAY CHANGED" not in err

