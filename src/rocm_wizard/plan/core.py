"""The step contract and the plan.

Every step type (``rocm_wizard.plan.steps``) implements:

* ``check(state) -> CheckResult``: ``ok`` (already done), ``change`` (would change) or ``unknown``,
  judged against a :class:`~rocm_wizard.plan.state.PlanState` that already holds what the earlier
  steps of the same plan will have done;
* ``project(state)``: record in that state what this step will have done (files, packages...);
* ``describe(state) -> Description``: what it would do, with a unified diff for every file it writes
  and before -> after for every package;
* ``apply(ctx) -> Result``: do it (``changed``), or nothing when already done (``ok``), or ``failed``;
* ``render_shell() -> str``: a bash function whose guard skips it when already done;
* ``render_ansible() -> [task]`` (+ ``ansible_handlers()``): the same as Ansible tasks.

The dry run, the idempotence, the script and the playbook all come from that one contract.
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Dict, List, Optional, Sequence, Tuple

OK = "ok"
CHANGE = "change"
UNKNOWN = "unknown"

CHANGED = "changed"
FAILED = "failed"

PLAN_FORMAT = "rocm-wizard-plan"
PLAN_FORMAT_VERSION = 1


@dataclass
class CheckResult:
    status: str  # ok | change | unknown
    detail: str = ""

    @property
    def pending(self) -> bool:
        return self.status != OK

    def to_dict(self) -> Dict[str, Any]:
        return {"status": self.status, "detail": self.detail}


@dataclass
class Result:
    status: str  # changed | ok | failed
    detail: str = ""

    def to_dict(self) -> Dict[str, Any]:
        return {"status": self.status, "detail": self.detail}


@dataclass
class FileChange:
    path: str
    action: str  # write | remove | edit | backup
    diff: str = ""  # unified diff (empty when unknown or no change)
    note: str = ""

    def to_dict(self) -> Dict[str, Any]:
        return {"path": self.path, "action": self.action, "diff": self.diff, "note": self.note}


@dataclass
class PackageChange:
    name: str
    before: Optional[str]  # installed version; None = not installed
    after: Optional[str]  # None = removed
    note: str = ""

    def to_dict(self) -> Dict[str, Any]:
        return {"name": self.name, "before": self.before, "after": self.after, "note": self.note}


@dataclass
class Description:
    title: str
    actions: List[str] = field(default_factory=list)  # plain-language lines
    files: List[FileChange] = field(default_factory=list)
    packages: List[PackageChange] = field(default_factory=list)
    commands: List[List[str]] = field(default_factory=list)

    def to_dict(self) -> Dict[str, Any]:
        return {"title": self.title, "actions": list(self.actions), "files": [f.to_dict() for f in self.files],
                "packages": [p.to_dict() for p in self.packages], "commands": [list(c) for c in self.commands]}

    def text(self) -> str:
        out = [self.title]
        out += [f"  - {a}" for a in self.actions]
        for p in self.packages:
            out.append(f"  package {p.name}: {p.before or '(not installed)'} -> {p.after or '(removed)'}"
                       + (f"  [{p.note}]" if p.note else ""))
        for f in self.files:
            out.append(f"  {f.action} {f.path}" + (f"  [{f.note}]" if f.note else ""))
            if f.diff:
                out += ["    " + line for line in f.diff.rstrip("\n").splitlines()]
        return "\n".join(out)


def unified_diff(path: str, before: Optional[bytes], after: Optional[bytes]) -> str:
    a = [] if before is None else before.decode("utf-8", errors="replace").splitlines(keepends=True)
    b = [] if after is None else after.decode("utf-8", errors="replace").splitlines(keepends=True)
    fromfile = path if before is not None else "/dev/null"
    tofile = path if after is not None else "/dev/null"
    import difflib  # lazily: only plans that write files need it

    lines = list(difflib.unified_diff(a, b, fromfile, tofile))
    fixed = [ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in lines]
    return "".join(fixed)


_ID_RE = re.compile(r"^[a-z][a-z0-9-]{0,40}$")


class Step:
    """Base of every step type.  ``params`` holds plain JSON-able values only, so a plan survives a
    round trip through JSON (the executor can run a saved plan)."""

    kind: ClassVar[str] = ""
    # installs packages with dpkg (the script then finishes an install a killed run left, first)
    uses_dpkg: ClassVar[bool] = False
    defaults: ClassVar[Dict[str, Any]] = {}
    required: ClassVar[Tuple[str, ...]] = ()

    def __init__(self, id: str, title: str, **params: Any) -> None:
        if not _ID_RE.match(id or ""):
            raise ValueError(f"step id {id!r} must be lower-case letters, digits and dashes")
        unknown = sorted(set(params) - set(self.defaults) - set(self.required))
        if unknown:
            raise ValueError(f"step {id} ({self.kind}): unknown parameter(s) {', '.join(unknown)}")
        missing = [k for k in self.required if params.get(k) in (None, "")]
        if missing:
            raise ValueError(f"step {id} ({self.kind}): missing parameter(s) {', '.join(missing)}")
        self.id = id
        self.title = title
        self.params: Dict[str, Any] = copy.deepcopy(dict(self.defaults))
        self.params.update(copy.deepcopy(params))
        self.index = 0
        # one sentence: why the plan has this step (the recipe's ``why``); None for steps made without one
        self.why: Optional[str] = None
        self.validate()

    # ------------------------------------------------------------ to override
    def validate(self) -> None:
        """Raise ValueError when the parameters do not make sense."""

    def check(self, state) -> CheckResult:
        raise NotImplementedError

    def project(self, state) -> None:
        """Record in ``state`` what this step will have done."""

    def describe(self, state) -> Description:
        return Description(self.title)

    def apply(self, ctx) -> Result:
        raise NotImplementedError

    def render_shell_body(self) -> List[str]:
        raise NotImplementedError

    def render_ansible(self) -> List[Dict[str, Any]]:
        raise NotImplementedError

    def ansible_handlers(self) -> List[Dict[str, Any]]:
        return []

    def confirmations(self) -> List[Dict[str, str]]:
        """Yes/no questions the user must answer before this step runs unattended (``step``, ``key``:
        the Choices field and answers-file key that answers yes, ``flag``: the command-line option,
        ``question``); none by default."""
        return []

    # ------------------------------------------------------------ shared
    @property
    def fn(self) -> str:
        return f"step_{self.index:02d}_{self.id.replace('-', '_')}"

    def render_shell(self) -> str:
        from .shellquote import q

        from .shellquote import comment

        lines = [f"# why: {comment(self.why)}"] if self.why else []
        lines += [f"{self.fn}() {{", f"  rw_begin {self.index} {q(self.id)} {q(self.title)}"]
        lines += ["  " + ln if ln else "" for ln in self.render_shell_body()]
        lines.append("}")
        return "\n".join(lines) + "\n"

    def var(self, name: str) -> str:
        """Name of the Ansible variable that carries parameter ``name`` of this step."""
        return f"rw_{self.id.replace('-', '_')}_{name}"

    def ansible_vars(self) -> Dict[str, Any]:
        """Values the Ansible tasks reference (emitted as ``!unsafe`` play vars, so nothing in
        them is ever templated)."""
        return {}

    def to_dict(self) -> Dict[str, Any]:
        out = {"index": self.index, "id": self.id, "kind": self.kind, "title": self.title}
        if self.why:  # absent, not null, without one: plans saved before ``why`` keep their plan id
            out["why"] = self.why
        out["params"] = copy.deepcopy(self.params)
        return out

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"<{type(self).__name__} {self.index}:{self.id}>"


@dataclass
class Fingerprint:
    """What the plan assumed about the system, re-checked by the script before it acts.

    ``fields``: name -> accepted values; the first is the value detected when the plan was made,
    the others are values this plan itself produces (a second run after success must pass).
    """

    fields: Dict[str, List[str]] = field(default_factory=dict)
    unchecked: List[str] = field(default_factory=list)  # fields the snapshot could not tell
    venv: Optional[str] = None  # the venv whose torch version is the "torch" field

    @property
    def digest(self) -> str:
        import json

        detected = {k: v[0] for k, v in sorted(self.fields.items())}
        return "sha256:" + _sha256()(json.dumps(detected, sort_keys=True).encode()).hexdigest()[:32]

    def to_dict(self) -> Dict[str, Any]:
        return {"digest": self.digest, "fields": {k: list(v) for k, v in sorted(self.fields.items())},
                "unchecked": list(self.unchecked), "venv": self.venv}


@dataclass
class Plan:
    path: str  # rocm-upgrade | torch-reinstall | docker
    title: str
    steps: List[Step]
    fingerprint: Fingerprint
    inputs: Dict[str, Any] = field(default_factory=dict)  # the resolved choices
    facts: Dict[str, Any] = field(default_factory=dict)  # catalog facts used, with sources
    notes: List[str] = field(default_factory=list)
    system: Dict[str, Any] = field(default_factory=dict)  # a short summary of the detected system
    # made without --path: {"recommended", "taken", "changed", "by", "why"} (build_plan._way_taken)
    way: Dict[str, Any] = field(default_factory=dict)
    version: int = PLAN_FORMAT_VERSION
    tool_version: str = ""

    def __post_init__(self) -> None:
        seen = set()
        for i, step in enumerate(self.steps, 1):
            if step.id in seen:
                raise ValueError(f"duplicate step id {step.id}")
            seen.add(step.id)
            step.index = i
        if not self.tool_version:
            from .. import __version__

            self.tool_version = __version__

    def step(self, step_id: str) -> Step:
        for s in self.steps:
            if s.id == step_id:
                return s
        raise KeyError(step_id)

    def confirmations(self) -> List[Dict[str, str]]:
        """Every step's open yes/no questions (:meth:`Step.confirmations`): a frontend asks them
        before it runs the plan; answering yes is setting ``key`` in the Choices and planning again."""
        return [c for s in self.steps for c in s.confirmations()]

    @staticmethod
    def _id_dict(step: Step) -> Dict[str, Any]:
        d = step.to_dict()
        d.pop("why", None)  # a reason explains a step; the id names what the plan does
        return d

    @property
    def plan_id(self) -> str:
        import json

        body = json.dumps({"path": self.path, "inputs": self.inputs, "fp": self.fingerprint.digest,
                           "steps": [self._id_dict(s) for s in self.steps]}, sort_keys=True, default=str)
        return _sha256()(body.encode()).hexdigest()[:12]


def _sha256():
    """SHA-256 from the interpreter's built-in module where it has one (the same digest as
    ``hashlib.sha256``; importing hashlib loads OpenSSL's bindings, a few ms of a plan's start)."""
    try:
        from _sha2 import sha256  # Python 3.12+
    except ImportError:
        try:
            from _sha256 import sha256  # Python 3.10, 3.11
        except ImportError:  # pragma: no cover - an interpreter built without its own hashes
            from hashlib import sha256
    return sha256


@dataclass
class StepReport:
    step: Step
    check: CheckResult
    description: Description

    def to_dict(self) -> Dict[str, Any]:
        return {"id": self.step.id, "check": self.check.to_dict(), "description": self.description.to_dict()}


def evaluate(plan: Plan, ctx=None, system=None) -> List[StepReport]:
    """Dry run: check and describe every step in order, each against the state the earlier steps
    will have produced.  Never changes anything; a step whose check raises is reported unknown."""
    from .context import Context
    from .state import PlanState

    state = PlanState(ctx or Context.snapshot(), system)
    reports = []
    for step in plan.steps:
        try:
            result = step.check(state)
        except Exception as exc:  # a check must never break the dry run
            result = CheckResult(UNKNOWN, f"could not check: {exc}")
        try:
            desc = step.describe(state)
        except Exception as exc:
            desc = Description(step.title, [f"(could not describe: {exc})"])
        state.record(step.id, result.status)
        if result.status != OK:
            try:
                step.project(state)
            except Exception as exc:
                state.notes.append(f"{step.id}: {exc}")
        reports.append(StepReport(step, result, desc))
    return reports


def summary(reports: Sequence[StepReport]) -> Dict[str, int]:
    out = {OK: 0, CHANGE: 0, UNKNOWN: 0}
    for r in reports:
        out[r.check.status] = out.get(r.check.status, 0) + 1
    return out


def pending(reports: Sequence[StepReport]) -> bool:
    return any(r.check.status != OK for r in reports)


def apply_plan(plan: Plan, ctx, stop_on_failure: bool = True) -> List[Tuple[Step, Result]]:
    """Apply every step in order with ``ctx`` (the executor adds journaling, logging and resume
    around this; this is the plain loop)."""
    results = []
    for step in plan.steps:
        try:
            res = step.apply(ctx)
        except Exception as exc:
            res = Result(FAILED, str(exc))
        if res.status == CHANGED:
            ctx.changed.add(step.id)
        results.append((step, res))
        if res.status == FAILED and stop_on_failure:
            break
    return results


def system_fingerprint_mismatches(plan: Plan, ctx) -> List[str]:
    """What differs between the system behind ``ctx`` and the one the plan was made for (the
    Python twin of the script's ``rw_check_fingerprint``; the executor refuses to run when this
    is not empty)."""
    import glob as _glob
    import os as _os
    import re as _re

    def os_value() -> str:
        ident = ver = ""
        for line in (ctx.read_text("/etc/os-release") or "").splitlines():
            if line.startswith("ID="):
                ident = line[3:]
            elif line.startswith("VERSION_ID="):
                ver = line[11:]
        return f"{ident.strip(chr(34) + chr(39))} {ver.strip(chr(34) + chr(39))}"

    def kernel_value() -> str:
        return (ctx.read_text("/proc/sys/kernel/osrelease") or "").strip()

    def gpus_value() -> str:
        ids = set()
        for d in ctx.listdir("/sys/bus/pci/devices"):
            base = "/sys/bus/pci/devices/" + d
            vendor = (ctx.read_text(base + "/vendor") or "").strip()
            klass = (ctx.read_text(base + "/class") or "").strip()
            if vendor == "0x1002" and klass.startswith(("0x03", "0x12")):
                dev = (ctx.read_text(base + "/device") or "").strip()
                ids.add(dev[2:] if dev.startswith("0x") else dev)
        return ",".join(sorted(ids))

    def rocm_value() -> str:
        text = (ctx.read_text("/opt/rocm/.info/version") or "").strip()
        if not text:
            from .state import dpkg_unpacked_version

            text = dpkg_unpacked_version(ctx, "rocm-core") or ""
        if not text:  # the Core SDK: /opt/rocm is a directory, the release behind the "core" alternative
            text = (ctx.read_text("/opt/rocm/core/.info/version") or "").strip()
        m = _re.match(r"^(\d+\.\d+\.\d+)", text)
        return m.group(1) if m else "none"

    def torch_value() -> str:
        base = ctx.p(plan.fingerprint.venv or "/nonexistent")
        for d in sorted(_glob.glob(_os.path.join(_glob.escape(base), "lib", "python*", "site-packages",
                                                 "torch-*.dist-info"))):
            return _os.path.basename(d)[len("torch-"):-len(".dist-info")]
        return "none"

    getters = {"os": os_value, "kernel": kernel_value, "gpus": gpus_value, "rocm": rocm_value, "torch": torch_value}
    out = []
    for name, accepted in sorted(plan.fingerprint.fields.items()):
        getter = getters.get(name)
        if getter is None:
            continue
        value = getter()
        if value not in accepted:
            out.append(f"{name}: this system has {value!r}, the plan was made for {accepted[0]!r}")
    return out


def stale_plan_message(plan: Plan, ctx, what: str) -> Optional[str]:
    """The refusal ``--yes`` and ``resume`` give when the system behind ``ctx`` no longer matches
    the plan's fingerprint (the script's rule, ``rw_check_fingerprint``); None when it matches."""
    problems = system_fingerprint_mismatches(plan, ctx)
    if not problems:
        return None
    return (f"refusing to {what}: this plan was made for another system, or the system changed since "
            f"(fingerprint {plan.fingerprint.digest}): " + "; ".join(problems))
