"""``diagnose``: run every rule over a system, then rank the ways out."""
from __future__ import annotations

import copy
import dataclasses
from typing import Any, Iterable, List, Optional

from ..catalog import sources as catalog_sources
from ..model import (GPU, WorkloadSighting, AccessInfo, AptPin, AptSource, DeviceNode, DockerInfo, ErrorSighting, OSInfo, RocmInfo,
                     ReleaseChange, RocmInstall, System, TorchEnv, from_dict)
from .context import Context
from .matchers import MATCHERS
from .model import SEVERITIES, Diagnosis, Finding
from .recommend import recommend, sort_findings
from .registry import rules
from . import windows_next


_RUN_LAST = ("known-failure",)


def _coerce(system: Any) -> System:
    if isinstance(system, dict):
        try:
            system = from_dict(System, system)
        except Exception:  # unusable structure: diagnose an empty system rather than fail
            return System()
    if not isinstance(system, System):
        return System()
    try:
        return _sanitize(copy.deepcopy(system))
    except Exception:
        return System()


# record-typed fields and list-of-record fields, per class; anything else in them is dropped
_RECORDS = {
    System: {"os": OSInfo, "rocm": RocmInfo, "docker": DockerInfo, "access": AccessInfo},
    AccessInfo: {"kfd": DeviceNode},
}
_LISTS = {
    System: {"gpus": GPU, "torch": TorchEnv, "errors": ErrorSighting, "workloads": WorkloadSighting,
             "changes": ReleaseChange},
    RocmInfo: {"installs": RocmInstall, "apt_sources": AptSource, "apt_pins": AptPin},
    AccessInfo: {"render_nodes": DeviceNode},
}


def _sanitize(rec: Any) -> Any:
    """Make every record field hold its declared kind (a record, a list of records, a dict or a
    list) so that matchers can rely on the shapes; values inside stay as they are."""
    for name, cls in _RECORDS.get(type(rec), {}).items():
        value = getattr(rec, name, None)
        if not isinstance(value, cls):
            value = None if (cls is DeviceNode) else cls()
            setattr(rec, name, value)
        if value is not None:
            _sanitize(value)
    for name, cls in _LISTS.get(type(rec), {}).items():
        value = getattr(rec, name, None)
        items = [v for v in value if isinstance(v, cls)] if isinstance(value, (list, tuple)) else []
        setattr(rec, name, items)
        for v in items:
            _sanitize(v)
    for f in dataclasses.fields(rec):
        value = getattr(rec, f.name)
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else None  # type: ignore[misc]
        if isinstance(default, dict) and not isinstance(value, dict):
            setattr(rec, f.name, {})
        elif isinstance(default, list) and not isinstance(value, list) and f.name not in _LISTS.get(type(rec), {}):
            setattr(rec, f.name, list(value) if isinstance(value, tuple) else [])
    return rec


def diagnose(system: Any, error_text: Optional[str] = None, *, skip: Iterable[str] = (),
             repo_base: Optional[str] = None, index_base: Optional[str] = None) -> Diagnosis:
    """Findings (the root cause's layer first, ``model.lead_key``) and ranked recommendations for ``system``.

    ``error_text``: a traceback or log pasted by the user.  ``skip``: rule ids not to run.
    ``repo_base`` / ``index_base``: mirrors of repo.radeon.com / download.pytorch.org/whl used
    in the URLs of the recommendations.  Never raises on odd input: a rule that cannot be
    evaluated is skipped with a note.
    """
    diag = Diagnosis()
    system = _coerce(system)
    if error_text is not None and not isinstance(error_text, str):
        try:
            error_text = error_text.decode("utf-8", "replace") if isinstance(error_text, bytes) else str(error_text)
        except Exception:
            error_text = None
    try:
        ctx = Context(system, error_text)
    except Exception as exc:  # pragma: no cover - Context is defensive; this is the last guard
        diag.notes.append(f"the system description could not be read ({type(exc).__name__}); diagnosing without it")
        ctx = Context(System(), error_text)
    skip = set(skip or ())
    findings = []
    # the catch-all rules run last and see what the others reported (ctx.reported): a known failure
    # line no finding quotes is reported by known-failure, never passed over in silence
    last = [r for r in _RUN_LAST if r in rules()]
    ordered = [(rid, meta) for rid, meta in rules().items() if rid not in last] + [(r, rules()[r]) for r in last]
    for rid, meta in ordered:
        if rid in last:
            ctx.reported = [e for f in findings if f.severity in ("warning", "error", "critical") for e in f.evidence]
        if rid in skip:
            continue
        matcher = MATCHERS.get(rid)
        if matcher is None:
            continue
        try:
            m = matcher(ctx, meta)
        except Exception as exc:
            diag.notes.append(f"rule {rid} could not be evaluated ({type(exc).__name__}: {exc})")
            continue
        if m is None:
            continue
        for m in (m if isinstance(m, list) else [m]):  # a matcher may report one finding per layer
            severity = m.severity if m.severity in SEVERITIES else meta.severity
            findings.append(Finding(
                id=rid, severity=severity, title=m.data.get("title") or meta.title,
                explanation=m.data.get("explanation") or meta.explanation,
                evidence=[str(e) for e in m.evidence], fix=m.fix or meta.fix,
                path=m.data["path"] if "path" in m.data else meta.path,  # (a matcher may say "no way out": None)
                sources=catalog_sources.describe(meta.sources), source_tags=list(meta.sources),
                looks_at=list(meta.looks_at), community=m.community,
                layer=m.data["layer"] if "layer" in m.data else meta.layer,
                next_commands=list(m.data.get("next_commands") or []),
            ))
    if windows_next.windows_host(system):  # the catalogue's commands are Linux ones: say what runs there
        for f in findings:
            if f.next_commands:
                f.next_commands = windows_next.adapt(f.next_commands, f.layer or "")
    diag.findings = sort_findings(findings)
    try:
        diag.recommendations = recommend(ctx, diag.findings, repo_base=repo_base, index_base=index_base)
    except Exception as exc:
        diag.notes.append(f"ways out could not be computed ({type(exc).__name__}: {exc})")
    # a finding points at a way out only when that way out applies here (no fake upgrades)
    usable = {r.path for r in diag.recommendations if r.applies}
    for f in diag.findings:
        if f.path and f.path not in usable:
            f.path = None
    diag.notes.extend(_catalog_notes())
    return diag


def _catalog_notes() -> List[str]:
    """How old the release knowledge is (and how to refresh it), and an overlay that was ignored."""
    from ..catalog import overlay

    try:
        stale = overlay.stale_warning()
        return overlay.problems() + ([stale] if stale else [])
    except Exception as exc:  # the catalog is packaged data; never let it break a diagnosis
        return [f"the catalog's date could not be read ({type(exc).__name__})"]
