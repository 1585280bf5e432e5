"""The resolver's plain data: a check of one constraint, a way out with its proof, a resolution.
Standard library only; no UI, no I/O."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

SATISFIED, VIOLATED, UNKNOWN = "satisfied", "violated", "unknown"


@dataclass(frozen=True)
class Check:
    """One constraint checked for one candidate: the verdict, what it was decided on, the sources."""

    constraint: str  # compat.toml [[constraint]] id
    verdict: str  # satisfied | violated | unknown
    detail: str  # the facts, in words
    sources: Tuple[str, ...] = ()
    on_unknown: str = "allow"  # allow | reject (from the constraint)

    def to_dict(self) -> Dict[str, Any]:
        return {"constraint": self.constraint, "verdict": self.verdict, "detail": self.detail,
                "sources": list(self.sources)}


@dataclass
class WayOut:
    """A candidate target of one path (``key`` is the single vocabulary: ``2.8.0+rocm6.4``,
    ``6.4.4``, an image tag) with its proof."""

    path: str  # torch-reinstall | docker | rocm-upgrade
    key: str
    checks: Tuple[Check, ...]
    rank: Tuple[Any, ...] = ()
    subject: Any = field(default=None, compare=False, repr=False)  # the catalog object(s)

    @property
    def violated(self) -> List[Check]:
        return [c for c in self.checks if c.verdict == VIOLATED]

    @property
    def unknown(self) -> List[Check]:
        return [c for c in self.checks if c.verdict == UNKNOWN]

    @property
    def eligible(self) -> bool:
        """No constraint violated, and no unknown on a constraint that rejects what it cannot check."""
        return not self.violated and not any(c.on_unknown == "reject" for c in self.unknown)

    @property
    def proven(self) -> bool:
        return all(c.verdict == SATISFIED for c in self.checks)

    def check(self, constraint: str) -> Optional[Check]:
        for c in self.checks:
            if c.constraint == constraint:
                return c
        return None

    def proof(self) -> List[Dict[str, Any]]:
        return [c.to_dict() for c in self.checks]


@dataclass
class Resolution:
    """Every candidate of one path: eligible ones best first, the rest with the checks that failed."""

    path: str
    offered: List[WayOut]
    rejected: List[WayOut]
    reason: str = ""  # why nothing is offered (empty when something is)

    @property
    def best(self) -> Optional[WayOut]:
        return self.offered[0] if self.offered else None

    def find(self, key: str) -> Optional[WayOut]:
        for w in self.offered + self.rejected:
            if w.key == key:
                return w
        return None
