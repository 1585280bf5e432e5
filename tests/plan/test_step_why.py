"""Every plan step says why it is there (issue 22): each ``[[step]]`` of every recipe has a ``why``,
instantiated like its title; the JSON plan carries it as ``"why"`` (and a plan saved without one
still reads, with the same id); the shell script has a ``# why:`` line at each step's function;
the playbook's header has it under each step; the clean way's steps give their item's reason."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from rwtest import sandbox

from rocm_wizard.plan import recipes


def _recipe_names():
    return sorted(f[:-5] for f in os.listdir(recipes.plans_dir()) if f.endswith(".toml"))


@pytest.mark.parametrize("name", _recipe_names())
def test_every_recipe_step_has_a_why(name):
    recipe = recipes.load_recipe(name)
    for spec in recipe.steps:
        assert isinstance(spec.why, str) and spec.why.strip(), f"{name}: step {spec.id} has no why"
        assert "\n" not in spec.why and spec.why != spec.title, f"{name}: step {spec.id}"
        # only the placeholders the recipe's titles and params may use (render raises on others)
        for ref in recipes._PLACEHOLDER.findall(spec.why.replace("{{", "").replace("}}", "")):
            assert ref.split(".")[0] in {"rocm", "os", "user", "data", "flags", "venv", "torch", "env", "guard",
                                          "docker", "wsl", "clean"}, f"{name}: {spec.id}: {{{ref}}}"


def test_the_recipes_have_steps():
    """The test above is not vacuous: the recipes with steps are read with them."""
    counts = {n: len(recipes.load_recipe(n).steps) for n in _recipe_names()}
    assert counts["rocm-upgrade"] >= 10 and counts["torch-reinstall"] >= 10 and counts["docker"] == 3


def _wizard(tmp_path, *args):
    env = {**os.environ, "ROCM_WIZARD_LOG_DIR": str(tmp_path / "logs"), "TMPDIR": str(tmp_path)}
    cmd = sandbox.argv([sys.executable, "-m", "rocm_wizard", *args], writable=[tmp_path])
    return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, env=env)


def test_the_demo_plan_shows_each_steps_why_in_json_and_in_the_script(tmp_path):
    res = _wizard(tmp_path, "--demo", "--plan-only", "--format", "json")
    assert res.stdout, res.stderr
    plan = json.loads(res.stdout)
    steps = plan["steps"]
    assert steps
    for step in steps:
        assert step.get("why", "").strip(), step["id"]
        assert "{" not in step["why"], step["why"]  # instantiated, no template left
    script = _wizard(tmp_path, "--demo", "--plan-only").stdout
    assert script.startswith("#!")
    for step in steps:
        fn = f"step_{step['index']:02d}_{step['id'].replace('-', '_')}() {{"
        assert f"# why: {step['why']}\n{fn}\n" in script, step["id"]
    assert script.count("\n# why: ") == len(steps)


def test_the_script_header_lists_each_step_with_its_why_and_doctors_lines_stay_whole(tmp_path):
    """Issue 22: the script's header step list (the lines doctor shows for the way, ``step_lines``)
    has each step's why on the line below it; doctor's own lines carry no why (they stay the plan's
    step lines, found whole in the header)."""
    from rocm_wizard.plan.outline import step_lines

    plan = json.loads(_wizard(tmp_path, "--demo", "--plan-only", "--format", "json").stdout)
    script = _wizard(tmp_path, "--demo", "--plan-only").stdout
    header = script.split("\n# Values are single-quoted", 1)[0]
    for step in plan["steps"]:
        assert f"\n#   {step['index']:2d}. {step['title']}\n#         why: {step['why']}\n" in header, step["id"]
    assert header.count("\n#         why: ") == len(plan["steps"])

    class _Step:
        def __init__(self, index, title):
            self.index, self.title, self.why = index, title, "a reason"

    class _Plan:
        steps = [_Step(1, "Flag the reboot")]

    assert step_lines(_Plan()) == [" 1. Flag the reboot"]  # what doctor prints: no why in it


def test_a_plan_saved_without_why_still_reads_with_the_same_id():
    from rocm_wizard.plan.jsonplan import plan_from_dict, plan_to_dict
    from rocm_wizard.plan.steps import make_step
    from rocm_wizard.plan.core import Fingerprint, Plan

    steps = [make_step("reboot-flag", "reboot-flag", "Flag the reboot", {"after": [], "reason": "r"},
                       "a new amdgpu kernel driver is used only after a reboot")]
    plan = Plan(path="rocm-upgrade", title="t", steps=steps, fingerprint=Fingerprint({"os": ["ubuntu 24.04"]}))
    data = plan_to_dict(plan)
    assert data["steps"][0]["why"] == "a new amdgpu kernel driver is used only after a reboot"
    again = plan_from_dict(json.loads(json.dumps(data)))
    assert again.steps[0].why == steps[0].why and again.plan_id == plan.plan_id
    del data["steps"][0]["why"]  # as a plan made before steps had a why
    old = plan_from_dict(data)
    assert old.steps[0].why is None and old.plan_id == plan.plan_id
    assert "why" not in plan_to_dict(old)["steps"][0]
    assert "# why:" not in old.steps[0].render_shell()
    data["steps"][0]["why"] = ["not", "text"]
    with pytest.raises(ValueError):
        plan_from_dict(data)


def test_a_why_cannot_break_out_of_its_comment():
    from rocm_wizard.plan.steps import make_step

    step = make_step("reboot-flag", "reboot-flag", "t", {"after": [], "reason": "r"}, "one\nrm -rf /\x1b[2J")
    text = step.render_shell()
    assert text.splitlines()[0].startswith("# why: one?rm -rf /")
    assert "\nrm -rf" not in text and "\x1b" not in text


def test_the_playbook_header_has_each_steps_why():
    from rocm_wizard.plan import render_ansible
    from rocm_wizard.plan.core import Fingerprint, Plan
    from rocm_wizard.plan.steps import make_step

    steps = [make_step("reboot-flag", "reboot-flag", "Flag the reboot", {"after": [], "reason": "r"},
                       "a new amdgpu kernel driver is used only after a reboot")]
    book = render_ansible(Plan(path="rocm-upgrade", title="t", steps=steps, fingerprint=Fingerprint({})))
    assert re.search(r"^# Step 1: Flag the reboot\n#   why: a new amdgpu kernel driver is used only after a reboot$",
                     book, re.M)


def test_clean_steps_give_the_reason_of_the_item_picked(tmp_path):
    from test_clean import _apt_tree, _key

    from rocm_wizard.model import System
    from rocm_wizard.plan.build import Choices, build_plan

    root = _apt_tree(tmp_path, _key(tmp_path))
    system = System()
    system.clean_root = str(root)
    picked = ["apt:/etc/apt/keyrings/rocm.gpg", "purge:amdgpu-install"]
    plan = build_plan(system, Choices(path="clean", clean_items=picked))
    reasons = {it["id"]: it["why"] for it in plan.facts["clean"]["items"]}
    assert [s.why for s in plan.steps] == [f"picked with --clean {i}: {reasons[i]}" for i in picked]
    assert all(reasons[i] for i in picked)
