"""Step types.  ``KINDS`` maps the ``kind`` a recipe or a JSON plan names to its class."""
from __future__ import annotations

from typing import Any, Dict, Optional, Type

from ..core import Step
from .apt import AptAuth, AptInstall, AptKey, AptPin, AptSources, AptUpdate
from .clean import PurgeLeftover, RemovePath
from .coresdk import Alternative, AptRemove
from .dnf import DnfInstall
from .docker import DockerCheck, DockerPull, DockerRunScript
from .files import Command, FileContent, RebootFlag
from .rpmcommon import RpmKey
from .rpmremove import RpmRemove
from .repo_package import AptKeyCheck
from .python import EnvPersist, PipCheck, PipGuard, PipInstall, PipRestore, PipUninstall, Venv, VenvLink
from .system import SecureBootKey, UserGroups
from .wsl import LibrocdxgBuild, WslHsaRemove
from .zypper import ZypperInstall, ZypperKey, ZypperRefresh, ZypperRepos

KINDS: Dict[str, Type[Step]] = {cls.kind: cls for cls in (
    AptAuth, AptKey, AptSources, AptPin, AptUpdate, AptInstall, AptRemove, Alternative,
    FileContent, Command, RebootFlag, UserGroups, SecureBootKey,
    Venv, VenvLink, PipUninstall, PipInstall, PipRestore, EnvPersist, PipCheck, PipGuard,
    DockerCheck, DockerPull, DockerRunScript, RemovePath, WslHsaRemove, LibrocdxgBuild, PurgeLeftover,
    ZypperKey, ZypperRepos, ZypperRefresh, ZypperInstall,
    RpmKey, DnfInstall,
    AptKeyCheck,
    RpmRemove,
)}


def make_step(kind: str, id: str, title: str, params: Dict[str, Any], why: Optional[str] = None) -> Step:
    cls = KINDS.get(kind)
    if cls is None:
        raise ValueError(f"unknown step kind {kind!r} (known: {', '.join(sorted(KINDS))})")
    step = cls(id, title, **params)
    if why is not None and not isinstance(why, str):
        raise ValueError(f"step {id}: why must be text")
    step.why = why or None
    return step


__all__ = ["KINDS", "make_step"] + [c.__name__ for c in KINDS.values()]
