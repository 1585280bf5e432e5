"""Rule metadata from ``rules.toml`` (what each rule means, its severity, fix and sources).

The matching logic lives in :mod:`rocm_wizard.doctor.matchers`; :func:`check` reports any rule id
present on one side only (the lint test calls it).
"""
from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Pattern, Tuple

from ..catalog._data import load_path
from .model import PATHS, SEVERITIES

# the layers of the stack a rule is about (issue 28; the same as detect/failure_lines.LAYERS)
LAYERS = ("firmware", "kernel", "runtime", "hip", "libraries", "framework", "packaging")
RULES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rules.toml")


@dataclass(frozen=True)
class RuleMeta:
    id: str
    title: str
    severity: str
    looks_at: Tuple[str, ...]
    explanation: str
    fix: str
    path: Optional[str]
    sources: Tuple[str, ...]
    error_patterns: Tuple[str, ...] = ()
    error_signatures: Tuple[str, ...] = ()
    params_items: Tuple[Tuple[str, object], ...] = ()
    layer: Optional[str] = None  # firmware | kernel | runtime | hip | libraries | framework | packaging

    @property
    def params(self) -> Dict[str, object]:
        return dict(self.params_items)

    @property
    def compiled(self) -> Tuple[Pattern[str], ...]:
        return _compiled(self.error_patterns)


@functools.lru_cache(maxsize=None)
def _compiled(patterns: Tuple[str, ...]) -> Tuple[Pattern[str], ...]:
    return tuple(re.compile(p, re.I) for p in patterns)


@functools.lru_cache(maxsize=None)
def rules() -> Dict[str, RuleMeta]:
    data = load_path(RULES_FILE)
    out: Dict[str, RuleMeta] = {}
    for e in data.get("rule", []):
        meta = RuleMeta(
            id=e["id"], title=e["title"], severity=e["severity"], looks_at=tuple(e.get("looks_at", ())),
            explanation=e["explanation"], fix=e.get("fix", ""), path=e.get("path"),
            sources=tuple(e.get("sources", ())), error_patterns=tuple(e.get("error_patterns", ())),
            error_signatures=tuple(e.get("error_signatures", ())),
            params_items=tuple(sorted((e.get("params") or {}).items())),
            layer=e.get("layer"),
        )
        out[meta.id] = meta
    return out


def rule_ids_in_file() -> List[str]:
    """Every id in file order, duplicates kept (for the lint test)."""
    return [e.get("id") for e in load_path(RULES_FILE).get("rule", [])]


def check() -> List[str]:
    """Problems with the registry: unknown severities/paths/sources, ids without a matcher or
    matchers without metadata, duplicate ids, patterns that do not compile."""
    from ..catalog import sources as catalog_sources
    from .matchers import MATCHERS

    problems = []
    ids = rule_ids_in_file()
    for rid in {i for i in ids if ids.count(i) > 1}:
        problems.append(f"duplicate rule id {rid}")
    metas = rules()
    for rid, meta in metas.items():
        if meta.severity not in SEVERITIES:
            problems.append(f"{rid}: unknown severity {meta.severity}")
        if meta.layer not in LAYERS:
            problems.append(f"{rid}: layer {meta.layer!r} is not one of {', '.join(LAYERS)}")
        if meta.path is not None and meta.path not in PATHS:
            problems.append(f"{rid}: unknown path {meta.path}")
        if not meta.sources:
            problems.append(f"{rid}: no sources")
        for tag in meta.sources:
            if catalog_sources.get(tag) is None:
                problems.append(f"{rid}: unknown source tag {tag}")
        if not meta.explanation.strip() or not meta.fix.strip() or not meta.title.strip():
            problems.append(f"{rid}: empty title, explanation or fix")
        try:
            meta.compiled
        except re.error as exc:
            problems.append(f"{rid}: bad error pattern: {exc}")
        if rid not in MATCHERS:
            problems.append(f"{rid}: no matcher in matchers.py")
    for rid in MATCHERS:
        if rid not in metas:
            problems.append(f"{rid}: matcher without metadata in rules.toml")
    return problems
