"""A way out as its plan: the one renderer of what a way out does (issue 30).

``doctor`` (text and ``--json``) and the TUI's list of ways show, for each way out the diagnosis
offers, the plan ``--plan-only --path WAY`` would make for the same system: its title and its steps
as the plan's header lists them (:func:`step_lines`, also used by the script's and the playbook's
header), or the plan engine's own refusal when that way cannot be planned without a further choice
(a venv, a fingerprint...).  No second description of the commands exists: what doctor prints for a
way is what the plan would do.
"""
from __future__ import annotations

import shlex
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional


def step_lines(plan) -> List[str]:
    """The plan's steps, one line each (``" 1. title"``), as the script's header lists them."""
    return [f"{step.index:2d}. {step.title}" for step in plan.steps]


@dataclass
class WayPlan:
    path: str
    title: str = ""  # the plan's title
    steps: List[str] = field(default_factory=list)  # step_lines(plan)
    notes: List[str] = field(default_factory=list)  # the plan's notes
    command: str = ""  # the command that prints the whole plan
    error: Optional[str] = None  # the plan engine's refusal when this way cannot be planned as it is
    exit_code: int = 0  # the refusal's exit status (64: a choice is needed, 1/3: it does not apply)

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


def plan_command(path: str, snapshot: Optional[str] = None, rocm_mirror: Optional[str] = None,
                 pytorch_mirror: Optional[str] = None, extra: Optional[List[str]] = None) -> str:
    argv = ["rocm-wizard", "--plan-only", "--path", path]
    if snapshot:
        argv += ["--snapshot", snapshot]
    if rocm_mirror:
        argv += ["--rocm-mirror", rocm_mirror]
    if pytorch_mirror:
        argv += ["--pytorch-mirror", pytorch_mirror]
    argv += list(extra or [])
    return " ".join(shlex.quote(a) for a in argv)


def way_plan(system, diagnosis, path: str, *, snapshot: Optional[str] = None, rocm_mirror: Optional[str] = None,
             pytorch_mirror: Optional[str] = None) -> WayPlan:
    """The plan of way ``path`` for ``system``, as ``--plan-only --path PATH`` makes it from the
    same diagnosis (its target: the resolver's choice the diagnosis words)."""
    from .build import Choices, PlanError, build_plan

    cmd = plan_command(path, snapshot, rocm_mirror, pytorch_mirror)
    try:
        plan = build_plan(system, Choices(path=path, rocm_mirror=rocm_mirror, pytorch_mirror=pytorch_mirror,
                                          dkms=None), diagnosis=diagnosis)
    except PlanError as exc:
        extra = ["--venv", "PATH"] if "--venv PATH" in exc.message else []
        return WayPlan(path, command=plan_command(path, snapshot, rocm_mirror, pytorch_mirror, extra),
                       error=exc.message, exit_code=exc.exit_code)
    return WayPlan(path, plan.title, step_lines(plan), list(plan.notes), cmd)


def attach(system, diagnosis, **kw: Any) -> Dict[str, WayPlan]:
    """Plan every way out the diagnosis offers; each applying recommendation's ``steps`` become its
    plan's step lines (empty when it cannot be planned as it is).  Returns path -> WayPlan."""
    out: Dict[str, WayPlan] = {}
    for rec in getattr(diagnosis, "recommendations", []) or []:
        if not rec.applies:
            continue
        wp = way_plan(system, diagnosis, rec.path, **kw)
        rec.steps = list(wp.steps)
        out[rec.path] = wp
    return out
