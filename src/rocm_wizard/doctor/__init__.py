"""Diagnosis: the known-issue registry and the ranked ways out.

Public API::

    from rocm_wizard.doctor import diagnose
    d = diagnose(system, error_text=None)      # system: model.System (or its to_dict() form)
    d.findings          # [Finding] root cause first: id, severity, title, explanation, evidence, fix,
                        #   path (the way out that fixes it), sources, community
    d.recommendations   # [Recommendation] applicable ones by rank (1 = best), then the others
                        #   with applies=False and `why` saying why not
    d.to_dict()         # JSON-ready

Rule metadata (title, severity, explanation, fix, sources, error patterns) is data in
``doctor/rules.toml``; each rule's matching logic is a small function in ``doctor/matchers.py``
registered under the same id.  Recommendations are built in ``doctor/recommend.py`` from the
catalog (``rocm_wizard.catalog``).
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from .model import PATHS, PROBLEM_SEVERITIES, SEVERITIES, Diagnosis, Finding, Recommendation

__all__ = ["diagnose", "Diagnosis", "Finding", "Recommendation", "SEVERITIES", "PROBLEM_SEVERITIES", "PATHS"]


def diagnose(system: Any, error_text: Optional[str] = None, *, skip: Iterable[str] = (),
             repo_base: Optional[str] = None, index_base: Optional[str] = None) -> Diagnosis:
    from .engine import diagnose as _diagnose

    return _diagnose(system, error_text, skip=skip, repo_base=repo_base, index_base=index_base)
