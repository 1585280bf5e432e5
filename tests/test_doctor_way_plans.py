"""One renderer for a way out (issue 30): what ``doctor`` shows a way out does is the plan
``--plan-only --path WAY`` makes for the same snapshot -- its title and step lines, verbatim in the
script -- or the plan engine's own refusal; the doctor has no recipe of its own left (the Core SDK
recipe used to show legacy repo.radeon.com lines while the plan was right)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rwtest import ci

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src" / "rocm_wizard"
REAL = ci.REAL
CASES = [
    str(REAL / "019-gfx1150-radeon890m-rocm7.2.0-ubuntu24.04"),  # Ryzen APU, legacy 7.2.4, no dkms
    str(REAL / "111-gfx1151-strix-halo-dkms-ubuntu26.04-kernel7.0"),  # Core SDK on 26.04; torch needs --venv
    str(REAL / "218-gfx1151-ubuntu24.04.4-mainline6.18.14-amdgpu-dkms-fails"),
    str(REAL / "017-gfx90a-4xmi210-rocm6.2.4-ubuntu22.04"),  # torch-reinstall only, which needs --venv
    str(REPO / "src" / "rocm_wizard" / "demo" / "system"),  # all three ways: venv, Docker, Ubuntu
    str(REPO / "tests" / "plan" / "systems" / "seed-rx7900xt-jammy-rocm6.2.json"),
]


def _run(args):
    import contextlib
    import io

    from rocm_wizard.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(list(args))
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 1
    return rc, out.getvalue(), err.getvalue()


def _snapshot(case: str) -> str:
    assert Path(case).exists(), case
    return case


@pytest.mark.parametrize("case", CASES, ids=lambda c: Path(c).name[:40])
def test_every_line_doctor_shows_for_a_way_is_in_its_plan(case):
    snap = _snapshot(case)
    rc, out, err = _run(["doctor", "--snapshot", snap, "--json"])
    assert rc in (0, 2), err
    doc = json.loads(out)
    planned = 0
    for rec in doc["recommendations"]:
        if not rec["applies"]:
            assert rec["plan"] is None
            continue
        wp = rec["plan"]
        assert wp["path"] == rec["path"] and rec["steps"] == wp["steps"]
        code, script, perr = _run(["--plan-only", "--path", rec["path"], "--snapshot", snap])
        if wp["error"]:
            # the same refusal, with the same exit status, from --plan-only
            assert code == wp["exit_code"] and wp["error"] in perr and wp["steps"] == [] and script == ""
            assert "--path " + rec["path"] in wp["command"]
            continue
        planned += 1
        assert code in (0, 2), perr
        assert f"# rocm-wizard plan: {wp['title']}\n" in script
        assert wp["steps"] and len(wp["steps"]) == len(re.findall(r"^step_\d+_\w+\(\) \{$", script, re.M))
        for line in wp["steps"]:
            assert f"#   {line}\n" in script, line
        assert wp["command"] == f"rocm-wizard --plan-only --path {rec['path']} --snapshot {snap}"
    assert planned or any(r["applies"] and r["plan"]["error"] for r in doc["recommendations"])


@pytest.mark.parametrize("case", CASES, ids=lambda c: Path(c).name[:40])
def test_the_text_report_prints_the_plan_lines(case):
    snap = _snapshot(case)
    rc, out, err = _run(["doctor", "--snapshot", snap])
    ways = out.split("Ways out", 1)[1]
    blocks = re.findall(r"^\s+plan: (.*)\n((?:\s+ ?\d+\. .*\n)*)\s+the whole plan:\n\s+rocm-wizard --plan-only "
                        r"--path (\S+)", ways, re.M)
    for title, body, path in blocks:
        code, script, _e = _run(["--plan-only", "--path", path, "--snapshot", snap])
        assert f"# rocm-wizard plan: {title}\n" in script
        for line in body.splitlines():
            index, step = line.strip().split(". ", 1)
            assert f"#   {int(index):2d}. {step}\n" in script
    if Path(case).name == "system":  # the demo: all three ways are planned
        assert len(blocks) == 3
    refused = re.findall(r"^\s+plan: not made as it is: (.*)$", ways, re.M)
    assert len(blocks) + len(refused) == len(re.findall(r"^  \d+\. ", ways, re.M))


def test_core_sdk_way_shows_no_legacy_repository():
    snap = _snapshot(CASES[1])
    rc, out, err = _run(["doctor", "--snapshot", snap, "--json"])
    up = next(r for r in json.loads(out)["recommendations"] if r["path"] == "rocm-upgrade")
    assert up["target"]["stream"] == "core-sdk"
    text = json.dumps(up["plan"]) + json.dumps(up["target"])
    assert "repo.radeon.com/rocm/apt" not in text and "Core SDK" in up["plan"]["title"]
    rc, out, err = _run(["doctor", "--snapshot", snap])
    assert "repo.radeon.com/rocm/apt" not in out


def test_no_second_renderer_is_left():
    recommend = (SRC / "doctor" / "recommend.py").read_text()
    doctor = (SRC / "commands" / "doctor.py").read_text()
    for text in (recommend, doctor):
        for old in ("pip install", "deb [", "apt install", "docker pull", "apt_lines(", "run_argv(",
                    "amdgpu_install_url(", "_target_lines", "_torch_steps"):
            assert old not in text, old
    assert "from ..plan.outline import attach" in doctor
    assert "from .outline import step_lines" in (SRC / "plan" / "shell.py").read_text()
