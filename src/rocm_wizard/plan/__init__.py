"""The plan engine: a detected :class:`~rocm_wizard.model.System` plus the user's choices become a
:class:`Plan` of idempotent steps that can be checked (dry run), applied, described (diffs) and
rendered as a bash script, an Ansible playbook or JSON.

Public API (imported lazily so that ``import rocm_wizard.plan`` costs nothing)::

    build_plan(system, choices) -> Plan            # raises PlanError (with an exit status)
    evaluate(plan, ctx, system=None) -> [StepReport]   # check + describe every step in order
    render_shell(plan) / render_ansible(plan) / render_json(plan, reports=None) -> str
    plan_from_dict(data) -> Plan                   # the inverse of the JSON rendering
    Context(root="/", runner=None, ...)            # where steps read, write and run commands
    Choices(...)                                   # what the user chose (path, versions, venv...)

Step types live in :mod:`rocm_wizard.plan.steps`, recipes in ``plans/*.toml``.
"""
from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "build_plan": "rocm_wizard.plan.build",
    "Choices": "rocm_wizard.plan.build",
    "PlanError": "rocm_wizard.plan.build",
    "Plan": "rocm_wizard.plan.core",
    "StepReport": "rocm_wizard.plan.core",
    "evaluate": "rocm_wizard.plan.core",
    "CheckResult": "rocm_wizard.plan.core",
    "Result": "rocm_wizard.plan.core",
    "Description": "rocm_wizard.plan.core",
    "Context": "rocm_wizard.plan.context",
    "PlanState": "rocm_wizard.plan.state",
    "render_shell": "rocm_wizard.plan.shell",
    "render_ansible": "rocm_wizard.plan.ansible",
    "render_json": "rocm_wizard.plan.jsonplan",
    "plan_to_dict": "rocm_wizard.plan.jsonplan",
    "plan_from_dict": "rocm_wizard.plan.jsonplan",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rocm_wizard.plan' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
