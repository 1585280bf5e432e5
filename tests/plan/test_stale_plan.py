"""``--yes`` and ``resume`` refuse a plan whose system fingerprint no longer matches this system,
by the rule the plan script uses (``rw_check_fingerprint``); the crash-and-resume case runs for
real in tests/integration/test_exec_resume.py."""
from __future__ import annotations

import argparse

from plan_helpers import make_root

from rocm_wizard import exitcodes
from rocm_wizard.plan import Choices, build_plan
from rocm_wizard.plan.context import Context
from rocm_wizard.plan.core import stale_plan_message


def _plan(seed_system):
    return build_plan(seed_system("seed-rx7900xt-jammy-rocm6.2"), Choices(path="rocm-upgrade", rocm="6.4.3"))


def test_stale_message_names_every_changed_field(tmp_path, seed_system):
    plan = _plan(seed_system)
    root = make_root(tmp_path / "root")
    ctx = Context(root=str(root), env={}, commands=False)
    assert stale_plan_message(plan, ctx, "resume") is None
    make_root(root, gpus=("73bf",), rocm="5.7.1-1")
    msg = stale_plan_message(plan, ctx, "resume")
    assert msg.startswith("refusing to resume: this plan was made for another system")
    assert plan.fingerprint.digest in msg
    assert "gpus: this system has '73bf,744c'" in msg or "gpus: this system has '73bf'" in msg
    assert "rocm: this system has '5.7.1'" in msg


def _apply_in(monkeypatch, root, plan):
    """``commands.apply._apply`` with its system at ``root``; anything past the fingerprint check fails."""
    from rocm_wizard.commands import apply as apply_cmd
    import rocm_wizard.plan.context as context_mod

    real = context_mod.Context
    monkeypatch.setattr(context_mod, "Context", lambda root="/", **kw: real(root=str(root_dir), **kw))
    root_dir = root

    def past(*_a, **_k):
        raise AssertionError("the run went past the fingerprint check")

    monkeypatch.setattr(apply_cmd, "_root_check", past)
    return apply_cmd._apply(argparse.Namespace(), plan, ["--yes"])


def test_yes_refuses_when_the_system_changed_after_detection(tmp_path, seed_system, monkeypatch, capsys):
    plan = _plan(seed_system)
    root = make_root(tmp_path / "root", kernel="6.8.0-99-generic")
    assert _apply_in(monkeypatch, root, plan) == exitcodes.ERROR
    err = capsys.readouterr().err
    assert "refusing to apply it" in err and "kernel: this system has '6.8.0-99-generic'" in err
    assert "Nothing was changed" in err
