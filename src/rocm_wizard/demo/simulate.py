"""A simulated executor and smoke test for ``rocm-wizard --demo``: they walk a real
:class:`~rocm_wizard.plan.core.Plan` (built from the demo system by the real plan engine), produce
the records the real executor writes (its ``events.jsonl`` vocabulary), take a realistic time, and
change nothing on the system: no command is run.

The output shown for a step is what the step itself describes (its commands, package changes and
file diffs, from ``step.describe``), each line marked as simulated where it stands for a result.

Standard library only; no Textual.
"""
from __future__ import annotations

import os
import time
from typing import Any, Callable, Dict, Iterable, List, Optional

# Seconds a step of each kind takes in the demo at speed 1 (the order of magnitude of a real run,
# compressed so the whole demo takes well under a minute).
DURATION = {
    "apt-key": 1.2, "apt-sources": 0.6, "apt-pin": 0.4, "apt-update": 3.0, "apt-install": 9.0,
    "user-groups": 0.5, "reboot-flag": 0.2, "file": 0.4, "command": 1.5,
    "venv": 2.0, "venv-link": 0.3, "pip-uninstall": 2.5, "pip-install": 8.0, "pip-restore": 3.0,
    "env-persist": 0.4, "pip-check": 1.0,
    "docker-check": 0.8, "docker-pull": 10.0, "docker-run-script": 4.0,
}
DEFAULT_DURATION = 1.0
FAIL_ENV = "ROCM_WIZARD_DEMO_FAIL"  # step id (optionally "id:N" = fail N times) to show failure handling


def failures_from_env(environ: Optional[Dict[str, str]] = None) -> Dict[str, int]:
    """``ROCM_WIZARD_DEMO_FAIL=apt-install:1,pip-install`` -> {"apt-install": 1, "pip-install": 1}."""
    text = (os.environ if environ is None else environ).get(FAIL_ENV, "")
    out: Dict[str, int] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        name, _, n = part.partition(":")
        try:
            out[name.strip()] = max(1, int(n)) if n else 1
        except ValueError:
            out[name.strip()] = 1
    return out


def step_lines(step: Any, description: Any = None) -> List[str]:
    """What a step shows while it runs in the demo, from its own description."""
    from ..tui.text import diff_stat

    lines: List[str] = []
    desc = description
    if desc is None:
        try:
            desc = step.describe(_EmptyState())
        except Exception:
            desc = None
    if desc is not None:
        commands = [" ".join(str(a) for a in argv) for argv in getattr(desc, "commands", []) or []]
        lines += ["$ " + c for c in commands]
        for action in getattr(desc, "actions", []) or []:
            if str(action) not in commands:
                lines.append(str(action))
        for p in getattr(desc, "packages", []) or []:
            before = p.before or "(not installed)"
            after = p.after or "(removed)"
            lines.append(f"{p.name}: {before} -> {after}")
        for f in getattr(desc, "files", []) or []:
            add, rem = diff_stat(f.diff)
            lines.append(f"{f.action} {f.path}" + (f" (+{add} -{rem})" if f.diff else ""))
    if not lines:
        lines.append(getattr(step, "title", "") or getattr(step, "id", "step"))
    return lines


class _EmptyState:
    """Stands in for a PlanState when a step is described without a dry run (never used when the
    caller passes the dry run's description)."""

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(name)


class SimulatedExecutor:
    """Runs nothing; produces the records of a run of ``plan`` with realistic pacing.

    Records are the executor's own (``run-start``, ``step-start``, ``step-end``, ``run-end``, as in
    its ``events.jsonl``) and go to ``record``; what the steps would print goes to ``say`` (the
    executor's ``run.log``).  ``speed`` scales the pauses (0 = none, for tests); ``fail`` maps step
    ids to how many times that step fails before it succeeds (to show retry / skip / stop);
    ``decide(step_id) -> retry|skip|stop`` is asked after each failure.  A cancel (``cancelled()``)
    is honoured between steps only, never inside one, as the real executor does.
    """

    def __init__(self, speed: float = 1.0, fail: Optional[Dict[str, int]] = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.speed = max(0.0, float(speed))
        self.fail = dict(fail or {})
        self.sleep = sleep

    def _pause(self, seconds: float) -> None:
        if seconds * self.speed > 0:
            self.sleep(seconds * self.speed)

    def run(self, plan: Any, reports: Iterable[Any], record: Callable[[Dict[str, Any]], None],
            say: Callable[[str], None], decide: Callable[[str], str], cancelled: Callable[[], bool]) -> int:
        """Returns the exit status the real run would have: 0 done, 1 a step failed, 130 stopped."""
        by_id = {r.step.id: r for r in reports or [] if getattr(r, "step", None) is not None}
        fails = dict(self.fail)
        total = len(plan.steps)
        record({"event": "run-start", "path": getattr(plan, "path", ""), "plan_id": getattr(plan, "plan_id", "")})
        say(f"rocm-wizard: {getattr(plan, 'title', 'plan')} (simulated: nothing is run, nothing is changed)")
        code = 0
        for step in plan.steps:
            if cancelled():
                say("rocm-wizard: stopped at a safe point (between two steps)")
                code = 130
                break
            report = by_id.get(step.id)
            check = getattr(getattr(report, "check", None), "status", "change")
            while True:
                record({"event": "step-start", "step": step.id, "kind": step.kind, "title": step.title})
                say(f"[{step.index}/{total}] {step.title}")
                if check == "ok":
                    self._pause(0.2)
                    status, detail = "ok", "already done: nothing to change"
                else:
                    lines = step_lines(step, getattr(report, "description", None))
                    per = DURATION.get(step.kind, DEFAULT_DURATION) / max(1, len(lines))
                    for line in lines:
                        say("    " + line)
                        self._pause(per)
                    status, detail = "changed", "simulated: nothing was changed"
                    if fails.get(step.id, 0) > 0:
                        fails[step.id] -= 1
                        status = "failed"
                        detail = "simulated failure (ROCM_WIZARD_DEMO_FAIL): the command exited with status 100"
                record({"event": "step-end", "step": step.id, "status": status, "detail": detail,
                        "duration": round(DURATION.get(step.kind, DEFAULT_DURATION) * self.speed, 3)})
                say(f"        {status}: {detail}")
                if status != "failed":
                    break
                choice = decide(step.id)
                if choice == "retry":
                    say("rocm-wizard: retrying the failed step")
                    continue
                if choice == "skip":
                    record({"event": "step-end", "step": step.id, "status": "skipped", "detail": "skipped by the user"})
                    say("        skipped: skipped by the user")
                    break
                code = 1
                break
            if code:
                break
        record({"event": "run-end", "exit": code})
        return code


def smoke_document(plan: Any, system: Any) -> Dict[str, Any]:
    """A smoke-test document (the schema ``verify/smoke.py`` writes) for the demo GPU after the
    plan, every check passing.  Timings are typical, figures are left out: a simulation measures
    nothing."""
    from ..verify.smoke import CHECKS, SCHEMA

    inputs = getattr(plan, "inputs", {}) or {}
    version = str(inputs.get("torch") or "")
    if getattr(plan, "path", "") == "docker":
        tag = ((getattr(plan, "facts", {}) or {}).get("docker") or {}).get("tag") or {}
        version = str(tag.get("torch") or "the image's torch")
    elif not version:
        version = next((t.version for t in getattr(system, "torch", []) if t.version), "unknown")
    gpus = [g for g in getattr(system, "amd_gpus", [])]
    devices = [{"index": i, "name": g.name, "arch": g.gfx_target, "gcn_arch_name": g.gfx_target,
                "total_memory_bytes": g.vram_bytes, "covered_by_wheel": True} for i, g in enumerate(gpus)]
    checks = []
    seconds = {"import": 1.9, "kfd": 0.0, "device": 0.4, "arch": 0.0, "alloc": 0.3, "elementwise": 0.2,
               "matmul": 0.9, "linear": 0.5, "linear_alt_blas": 2.4, "triton": 6.1, "compile": 14.8}
    for name, scope, _what in CHECKS:
        if name in ("throughput", "bandwidth"):
            continue  # measured figures: nothing to simulate honestly
        if name == "multi_gpu":
            if len(gpus) > 1:
                checks.append({"name": name, "device": None, "status": "pass", "reason": "", "seconds": 0.6,
                               "details": {}})
            else:
                checks.append({"name": name, "device": None, "status": "skip", "reason": "one GPU", "seconds": 0.0,
                               "details": {}})
            continue
        devs = [None] if scope == "global" else list(range(len(gpus)))
        for d in devs:
            checks.append({"name": name, "device": d, "status": "pass", "reason": "", "details": {},
                           "seconds": seconds.get(name, 0.3)})
    return {
        "schema": SCHEMA, "script_version": "demo", "started": "demo", "duration_s": round(sum(
            c["seconds"] for c in checks), 1),
        "options": {"timeout": 60.0, "only": None, "cpu_fallback": False},
        "host": {"simulated": True}, "env": {}, "torch": {"version": version, "build": "rocm"},
        "devices": devices, "checks": checks, "figures": [],
        "summary": {"pass": sum(1 for c in checks if c["status"] == "pass"),
                    "fail": 0, "skip": sum(1 for c in checks if c["status"] == "skip"), "ok": True},
    }
