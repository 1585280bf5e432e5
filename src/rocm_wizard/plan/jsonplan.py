"""The plan as data (``--format json``), versioned, and back.

Shape (``format_version`` 1)::

    {"format": "rocm-wizard-plan", "format_version": 1, "tool_version": "...", "plan_id": "...",
     "path": "rocm-upgrade", "title": "...", "inputs": {...choices, defaults materialised...},
     "system": {"summary": "...", "origin": "live|snapshot",
                "fingerprint": {"digest": "sha256:...", "fields": {name: [accepted...]}, "unchecked": [...],
                                "venv": null}},
     "facts": {...catalog facts used, with sources...}, "notes": [...],
     "steps": [{"index": 1, "id": "rocm-key", "kind": "apt-key", "title": "...",
                "why": "...",                                  # absent when the step has none
                "params": {...},
                "check": {"status": "ok|change|unknown", "detail": "..."},       # with an evaluation
                "description": {"actions": [...], "files": [...], "packages": [...], "commands": [...]}}],
     "confirmations": [{"step": "...", "key": "allow_apt_removals", "flag": "--allow-apt-removals",
                        "question": "..."}],                          # open yes/no questions
     "summary": {"ok": n, "change": n, "unknown": n}}   # with an evaluation

:func:`plan_from_dict` rebuilds a runnable :class:`~rocm_wizard.plan.core.Plan` from it (the
evaluation parts are ignored), so a saved plan can be applied later.
"""
from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence

from ..termsafe import json_c1
from .core import PLAN_FORMAT, PLAN_FORMAT_VERSION, Fingerprint, Plan, StepReport, summary


def plan_to_dict(plan: Plan, reports: Optional[Sequence[StepReport]] = None) -> Dict[str, Any]:
    by_id = {r.step.id: r for r in reports or []}
    steps: List[Dict[str, Any]] = []
    for step in plan.steps:
        d = step.to_dict()
        rep = by_id.get(step.id)
        if rep is not None:
            d["check"] = rep.check.to_dict()
            desc = rep.description.to_dict()
            desc.pop("title", None)
            d["description"] = desc
        steps.append(d)
    out: Dict[str, Any] = {
        "format": PLAN_FORMAT,
        "format_version": plan.version,
        "tool_version": plan.tool_version,
        "plan_id": plan.plan_id,
        "path": plan.path,
        "title": plan.title,
        "inputs": plan.inputs,
        "system": {**plan.system, "fingerprint": plan.fingerprint.to_dict()},
        "facts": plan.facts,
        "notes": list(plan.notes),
        "steps": steps,
        "confirmations": plan.confirmations(),
    }
    if plan.way:  # made without --path: which way was taken and why
        out["way"] = dict(plan.way)
    if reports is not None:
        out["summary"] = summary(reports)
    return out


def render_json(plan: Plan, reports: Optional[Sequence[StepReport]] = None) -> str:
    return json_c1(json.dumps(plan_to_dict(plan, reports), indent=2, sort_keys=False, ensure_ascii=False)) + "\n"


class PlanFormatError(ValueError):
    """A JSON plan this version cannot read."""


def plan_from_dict(data: Any) -> Plan:
    from .steps import make_step

    if not isinstance(data, dict) or data.get("format") != PLAN_FORMAT:
        raise PlanFormatError("not a rocm-wizard plan")
    if data.get("format_version") != PLAN_FORMAT_VERSION:
        raise PlanFormatError(f"plan format {data.get('format_version')!r} is not {PLAN_FORMAT_VERSION}")
    try:
        steps = [make_step(s["kind"], s["id"], s["title"], s.get("params", {}), s.get("why")) for s in data["steps"]]
        fpd = data["system"]["fingerprint"]
        fp = Fingerprint({k: list(v) for k, v in fpd.get("fields", {}).items()}, list(fpd.get("unchecked", [])),
                         fpd.get("venv"))
        system = {k: v for k, v in data["system"].items() if k != "fingerprint"}
        plan = Plan(path=data["path"], title=data["title"], steps=steps, fingerprint=fp,
                    inputs=dict(data.get("inputs", {})), facts=dict(data.get("facts", {})),
                    notes=list(data.get("notes", [])), system=system, tool_version=data.get("tool_version", ""),
                    way=dict(data.get("way") or {}))
    except (KeyError, TypeError, ValueError) as exc:
        raise PlanFormatError(f"damaged plan: {exc}") from exc
    if data.get("plan_id") and plan.plan_id != data["plan_id"]:
        raise PlanFormatError("the plan's content does not match its id (edited or damaged)")
    return plan
