"""The demo: the bundled system reads as the seed scenario through the normal snapshot path, the
real diagnosis and plans work on it, and the simulated executor / smoke test change nothing."""
from __future__ import annotations

import json
import os

import pytest

from rocm_wizard.demo import DemoCore, bundle_path
from rocm_wizard.demo.simulate import SimulatedExecutor, failures_from_env, smoke_document, step_lines
from rocm_wizard.tui.execution import Control


@pytest.fixture(scope="module")
def demo():
    """(core, system, diagnosis) detected through the core, probe by probe, as the TUI does."""
    core = DemoCore(speed=0, fail={})
    src = core.open_source()
    system = core.new_system(src)
    for name in core.probe_names():
        core.run_probe(name, src, system)
    return core, system, core.finish(src, system)


def test_bundle_is_a_snapshot_inside_the_package():
    import rocm_wizard

    path = bundle_path()
    assert os.path.isfile(os.path.join(path, "manifest.json"))
    assert os.path.commonpath([path, os.path.dirname(rocm_wizard.__file__)]) == os.path.dirname(rocm_wizard.__file__)
    assert os.path.isfile(os.path.join(os.path.dirname(path), "README.md"))
    # the bundle holds nothing but the system: a loose text file there would be read as a paste
    assert sorted(n for n in os.listdir(path) if not os.path.isdir(os.path.join(path, n))) == [
        "dirs.json", "env.json", "links.json", "manifest.json", "stats.json", "train-error.log"]


def test_demo_system_is_the_seed_scenario(demo):
    _core, s, _d = demo
    assert (s.os.id, s.os.version_id, s.os.codename) == ("ubuntu", "22.04", "jammy")
    assert [(g.name, g.gfx_target, g.pci_id, g.revision) for g in s.amd_gpus] == [
        ("AMD Radeon RX 7900 XT", "gfx1100", "1002:744c", "cc")]
    assert s.rocm.version == "6.2.0" and s.rocm.amdgpu_version == "6.8.5" and s.rocm.amdgpu_loaded is True
    [env] = s.torch
    assert (env.path, env.version, env.build, env.hip) == (
        "/home/demo/trainer/venv", "2.11.0+rocm7.2", "rocm", "7.2.26015")
    assert env.triton == {"triton-rocm": "3.6.0"} and env.triton_required == "triton-rocm==3.6.0"
    assert env.triton_shadow is None
    assert [e.signature for e in s.errors] == ["hipblas_status"]
    assert "HIPBLAS_STATUS_ALLOC_FAILED" in s.errors[0].text
    assert s.access.in_render and s.access.in_video and s.access.kfd.accessible
    assert s.docker.daemon is True and s.docker.user_allowed is True


def test_every_value_comes_from_the_bundle(demo):
    _core, s, _d = demo
    assert s.origin == "snapshot"
    assert s.gpus[0].sources["gfx_target"].startswith("file:/sys/class/kfd/")
    assert s.rocm.sources["version"] == "file:/opt/rocm-6.2.0/.info/version"
    assert s.errors[0].sources["text"] == "paste:train-error.log"


def test_diagnosis_finds_the_error_and_offers_three_ways_out(demo):
    _core, _s, d = demo
    # the skew leads (kernel layer, the root cause), the allocation failure it shows as comes next
    assert [f.id for f in d.findings[:2]] == ["driver-outside-window", "hipblas-alloc-failed"]
    assert all(f.severity == "error" for f in d.findings[:2])
    assert sorted(r.path for r in d.recommendations if r.applies) == ["docker", "rocm-upgrade", "torch-reinstall"]


@pytest.mark.parametrize("path", ["torch-reinstall", "docker", "rocm-upgrade"])
def test_each_path_plans_on_the_demo_system(demo, path):
    from rocm_wizard.tui import fields as F

    core, s, d = demo
    form = core.fields(s, d, path)
    assert F.errors(form) == {}
    plan = core.build_plan(s, path, F.values(form))
    assert plan.path == path and plan.steps
    reports = core.evaluate(plan, s)
    assert len(reports) == len(plan.steps)
    assert core.render(plan, "shell").startswith("#!/usr/bin/env bash")


def _run(plan, reports, fail=None, answers=(), cancel_after=None):
    """The simulated run's exit status, records and log lines."""
    records, lines = [], []
    pending = list(answers)
    state = {"cancel": False}

    def record(rec):
        records.append(rec)
        if cancel_after and rec["event"] == "step-start" and rec["step"] == cancel_after:
            state["cancel"] = True

    code = SimulatedExecutor(speed=0, fail=fail).run(plan, reports, record, lines.append,
                                                      lambda _sid: pending.pop(0), lambda: state["cancel"])
    return code, records, lines


def _ends(records, step=None):
    return [(r["step"], r["status"]) for r in records if r["event"] == "step-end" and (step is None or r["step"] == step)]


@pytest.fixture(scope="module")
def upgrade(demo):
    from rocm_wizard.tui import fields as F

    core, s, d = demo
    plan = core.build_plan(s, "rocm-upgrade", F.values(core.fields(s, d, "rocm-upgrade")))
    return plan, core.evaluate(plan, s)


def test_simulated_run_walks_every_step_in_order(upgrade):
    plan, reports = upgrade
    code, records, lines = _run(plan, reports)
    assert code == 0
    assert [r["step"] for r in records if r["event"] == "step-start"] == [s.id for s in plan.steps]
    assert records[0]["event"] == "run-start" and records[-1] == {"event": "run-end", "exit": 0}
    ok = {r.step.id for r in reports if r.check.status == "ok"}
    assert {sid for sid, st in _ends(records) if st == "ok"} == ok
    assert "[1/10] Fetch AMD's signing key and check its fingerprint" in lines


def test_simulated_records_read_like_the_real_executors(upgrade):
    """The records are the executor's: the screen translates both with the same function."""
    from rocm_wizard.tui.execution import STEP_END, STEP_START, Steps, translate

    plan, reports = upgrade
    _code, records, _lines = _run(plan, reports)
    steps = Steps(plan)
    events = [translate(r, steps) for r in records]
    starts = [e for e in events if e is not None and e.kind == STEP_START]
    assert [(e.step, e.index, e.total) for e in starts] == [(s.id, s.index, 10) for s in plan.steps]
    assert all(e.title for e in starts)
    assert {e.status for e in events if e is not None and e.kind == STEP_END} <= {"ok", "changed"}


def test_simulated_output_comes_from_the_steps_description(upgrade):
    plan, reports = upgrade
    r = next(r for r in reports if r.step.id == "rocm-packages")
    lines = step_lines(r.step, r.description)
    assert any("rocm" in ln for ln in lines), lines
    assert len(lines) == len(set(lines))  # a command is not repeated as an action


def test_failure_retry_then_success(upgrade):
    plan, reports = upgrade
    code, records, _ = _run(plan, reports, fail={"apt-update": 1}, answers=["retry"])
    assert code == 0 and _ends(records, "apt-update") == [("apt-update", "failed"), ("apt-update", "changed")]


def test_failure_skip_and_stop(upgrade):
    plan, reports = upgrade
    code, records, _ = _run(plan, reports, fail={"ldconfig": 1}, answers=["skip"])
    assert code == 0 and _ends(records, "ldconfig") == [("ldconfig", "failed"), ("ldconfig", "skipped")]
    code, records, _ = _run(plan, reports, fail={"apt-update": 1}, answers=["stop"])
    assert code == 1 and records[-1] == {"event": "run-end", "exit": 1}
    assert [r["step"] for r in records if r["event"] == "step-start"][-1] == "apt-update"  # nothing after it ran


def test_a_step_that_is_already_done_cannot_fail(upgrade):
    plan, reports = upgrade
    assert next(r for r in reports if r.step.id == "gpu-groups").check.status == "ok"
    code, records, _ = _run(plan, reports, fail={"gpu-groups": 5})
    assert code == 0 and _ends(records, "gpu-groups") == [("gpu-groups", "ok")]


def test_cancel_stops_at_a_safe_point(upgrade):
    plan, reports = upgrade
    code, records, lines = _run(plan, reports, cancel_after="apt-update")
    assert code == 130
    assert _ends(records)[-1] == ("apt-update", "changed")  # the running step finished...
    assert "kernel-driver" not in [r["step"] for r in records if r["event"] == "step-start"]  # ...the next never began
    assert "stopped at a safe point" in lines[-1]


def test_failures_from_env():
    assert failures_from_env({"ROCM_WIZARD_DEMO_FAIL": "apt-update:2, torch"}) == {"apt-update": 2, "torch": 1}
    assert failures_from_env({"ROCM_WIZARD_DEMO_FAIL": "x:notanumber"}) == {"x": 1}
    assert failures_from_env({}) == {}


def test_demo_core_changes_nothing_outside_its_own_directory(demo, tmp_path):
    from rocm_wizard.tui import fields as F

    core0, s, d = demo
    core = DemoCore(speed=0, fail={}, state_dir=str(tmp_path / "state"))
    plan = core.build_plan(s, "torch-reinstall", F.values(core0.fields(s, d, "torch-reinstall")))
    before = sorted(os.listdir(bundle_path()))
    events = []
    outcome = core.execute(plan, s, events.append, Control(), reports=core.evaluate(plan, s))
    assert outcome.status == "done" and outcome.simulated
    assert set(outcome.results) == {st.id for st in plan.steps}
    assert outcome.log_path == str(tmp_path / "state" / "run" / "run.log")
    assert "nothing is changed" in open(outcome.log_path).read()
    recs = [json.loads(ln) for ln in open(tmp_path / "state" / "run" / "events.jsonl")]
    assert [r["event"] for r in recs][0] == "run-start" and recs[-1]["event"] == "run-end"
    assert outcome.answers_path == str(tmp_path / "state" / "answers.toml")
    assert sorted(os.listdir(tmp_path / "state")) == ["answers.toml", "run"]
    assert sorted(os.listdir(bundle_path())) == before
    assert [e.kind for e in events][0] == "plan-start" and events[-1].kind == "plan-end"


def test_answers_file_replays_through_the_executors_reader(demo, tmp_path):
    """The answers the wizard writes are the executor's format: its reader gives back the plan."""
    from rocm_wizard.execute import answers
    from rocm_wizard.tui import fields as F

    core0, s, d = demo
    core = DemoCore(speed=0, fail={}, state_dir=str(tmp_path))
    for path in ("torch-reinstall", "docker", "rocm-upgrade"):
        plan = core.build_plan(s, path, F.values(core0.fields(s, d, path)))
        written = core.write_answers(plan)
        assert oct(os.stat(written).st_mode & 0o777) == "0o600"
        loaded = answers.load(written)
        from rocm_wizard.plan.build import Choices, build_plan

        again = build_plan(s, Choices(**loaded))
        assert again.plan_id == plan.plan_id, path


def test_simulated_smoke_test_reads_as_a_passing_report(demo):
    from rocm_wizard.tui import fields as F

    core, s, d = demo
    plan = core.build_plan(s, "docker", F.values(core.fields(s, d, "docker")))
    doc = smoke_document(plan, s)
    assert doc["figures"] == [] and all(c["name"] not in ("throughput", "bandwidth") for c in doc["checks"])
    lines = []
    report = core.verify(plan, s, lines.append)
    assert report.status == "ok" and report.error is None
    assert report.target.kind == "docker" and report.target.image.startswith("rocm/pytorch:rocm")
    assert lines and all(ln.endswith("(simulated)") for ln in lines)
    assert report.torch["version"] == "2.8.0"


def test_demo_speed_from_env(monkeypatch):
    from rocm_wizard.demo import _speed

    assert _speed({"ROCM_WIZARD_DEMO_SPEED": "0.5"}) == 0.5
    assert _speed({"ROCM_WIZARD_DEMO_SPEED": "-1"}) == 1.0
    assert _speed({"ROCM_WIZARD_DEMO_SPEED": "fast"}) == 1.0
    assert _speed({}) == 1.0
