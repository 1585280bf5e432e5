"""The TUI's side of the real executor: its event stream translated for the screen, its journal read
back as an outcome, and a real ``rocm-wizard --yes`` child run followed (on this machine, with no
AMD GPU, the executor refuses the plan: the screen must say why)."""
from __future__ import annotations

import os

import pytest

from rocm_wizard.tui.execution import (OUTPUT, PLAN_END, PLAN_START, STEP_END, STEP_START, ChildRun, Control, Steps,
                                       log_line, records_of, translate)


@pytest.fixture(scope="module")
def plan():
    from rocm_wizard.demo import DemoCore
    from rocm_wizard.tui import fields as F

    core = DemoCore(speed=0, fail={})
    src = core.open_source()
    system = core.new_system(src)
    for name in core.probe_names():
        core.run_probe(name, src, system)
    d = core.finish(src, system)
    return core.build_plan(system, "rocm-upgrade", F.values(core.fields(system, d, "rocm-upgrade")))


def test_translate_what_the_executors_runlog_writes(plan, tmp_path):
    from rocm_wizard.execute.runlog import RunLog

    log = RunLog(str(tmp_path), console=open(os.devnull, "w"))
    log.event("run-start", run_id="x", plan_id=plan.plan_id, path=plan.path)
    log.event("step-start", step="apt-update", kind="apt-update", title="Refresh the package lists")
    log.step = "apt-update"
    log.command(["apt-get", "update"], 0, 2.5)
    log.event("step-end", step="apt-update", status="changed", detail="package lists refreshed", duration=2.5)
    log.say("[4/10] Refresh the package lists")
    log.event("run-end", exit=0, state="finished")
    log.close()
    records = records_of(open(tmp_path / "events.jsonl").read().splitlines())
    events = [translate(r, Steps(plan)) for r in records]
    kinds = [e.kind for e in events]
    assert kinds == [PLAN_START, STEP_START, OUTPUT, STEP_END, PLAN_END]
    start, cmd, end, fin = events[1], events[2], events[3], events[4]
    assert (start.step, start.index, start.total, start.title) == ("apt-update", 4, 10, "Refresh the package lists")
    assert cmd.line.startswith("$ apt-get update") and "exit 0" in cmd.line
    assert (end.status, end.detail) == ("changed", "package lists refreshed")
    assert fin.status == "done"
    logged = [log_line(ln) for ln in open(tmp_path / "run.log").read().splitlines()]
    assert "[4/10] Refresh the package lists" in logged


@pytest.mark.parametrize("rec", [None, "text", {}, {"event": "step-start"}, {"event": "unknown", "step": 1}])
def test_odd_records_are_dropped(plan, rec):
    assert translate(rec, Steps(plan)) is None


def test_a_run_end_without_a_number_is_a_failed_run(plan):
    ev = translate({"event": "run-end", "exit": "x"}, Steps(plan))
    assert (ev.kind, ev.status) == (PLAN_END, "failed")


def test_outcome_from_the_executors_journal(plan, tmp_path):
    from rocm_wizard.execute import journal as jr

    j = jr.Journal.create(str(tmp_path / "journal.json"), run_id="20250101-000000-1", plan=plan, argv=[], root="/",
                          backup_dir=str(tmp_path))
    for s in plan.steps:
        j.begin_step(s.id)
        j.end_step(s.id, jr.CHANGED, "done")
        if s.id == "reboot-flag":
            break
    j.set_state(jr.RUN_FINISHED, "all steps done")
    run = ChildRun(plan, str(tmp_path / "answers.toml"), lambda e: None, Control(), log_root=str(tmp_path))
    run.run_dir = str(tmp_path)
    out = run._outcome(0, run._journal())
    assert out.status == "done" and out.reboot is True and set(out.results) == {s.id for s in plan.steps}
    assert out.log_path == str(tmp_path / "run.log")
    j.step("ldconfig")["status"] = jr.FAILED
    j.step("ldconfig")["detail"] = "ldconfig: exit 1"
    j.set_state(jr.RUN_RESTORED, "step 8 (ldconfig) failed: put back")
    out = run._outcome(1, run._journal())
    assert out.status == "failed" and out.restored and "put back" in out.error


def test_a_refused_run_says_why(tmp_path, monkeypatch):
    """A real `rocm-wizard --yes` child that can change nothing on this machine: it runs in the
    read-only root (rwtest.sandbox: the host's / read-only, no network, only tmp_path writable),
    and the plan points at a closed mirror port, so it stops when it cannot be made here (no
    Ubuntu, no AMD GPU) or, at the latest, at its first step, which checks the key before anything
    is written."""
    import functools

    from rocm_wizard.tui import core as core_module
    from rwtest import sandbox

    from rocm_wizard.demo import DemoCore
    from rocm_wizard.tui import fields as F
    from rocm_wizard.tui.core import Core

    demo = DemoCore(speed=0, fail={})
    src = demo.open_source()
    system = demo.new_system(src)
    for name in demo.probe_names():
        demo.run_probe(name, src, system)
    values = F.values(demo.fields(system, demo.finish(src, system), "rocm-upgrade"))
    values["rocm_mirror"] = "https://127.0.0.1:9"  # the discard port: nothing answers there
    plan = demo.build_plan(system, "rocm-upgrade", values)

    python = sandbox.executable(tmp_path, writable=[tmp_path])
    monkeypatch.setattr(core_module, "ChildRun", functools.partial(ChildRun, python=python))
    core = Core(state_dir=str(tmp_path / "state"))
    events = []
    env_before = dict(os.environ)
    os.environ["ROCM_WIZARD_LOG_DIR"] = str(tmp_path / "logs")
    try:
        outcome = core.execute(plan, None, events.append, Control())
    finally:
        os.environ.clear()
        os.environ.update(env_before)
    assert outcome.status == "failed" and "rocm-wizard" in (outcome.error or "")
    assert outcome.answers_path and os.path.isfile(outcome.answers_path)
    assert events[0].kind == PLAN_START and events[-1].kind == PLAN_END and events[-1].status == "failed"
    assert not any(e.kind == STEP_END and e.status == "changed" for e in events)  # nothing was changed


def test_a_snapshot_plan_is_not_run_here(plan, tmp_path):
    from rocm_wizard.tui.core import Core, Unavailable

    with pytest.raises(Unavailable, match="snapshot of another machine"):
        Core(snapshot=str(tmp_path), state_dir=str(tmp_path)).execute(plan, None, lambda e: None, Control())
