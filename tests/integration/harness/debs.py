"""Stand-in Debian packages, built for real with ``dpkg-deb``.

A :class:`DebSpec` names a package, its version, dependencies, the files it owns and optional
maintainer scripts.  :func:`build_deb` writes ``<name>_<version-without-epoch>_<arch>.deb``.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Union

from .procs import run


@dataclass
class DebSpec:
    name: str
    version: str
    arch: str = "amd64"
    depends: List[str] = field(default_factory=list)
    files: Dict[str, Union[str, bytes]] = field(default_factory=dict)  # absolute path -> content
    modes: Dict[str, int] = field(default_factory=dict)  # absolute path -> mode (default 0644)
    postinst: Optional[str] = None
    conffiles: List[str] = field(default_factory=list)  # DEBIAN/conffiles (dpkg keeps a changed one)
    prerm: Optional[str] = None
    postrm: Optional[str] = None
    section: str = "devel"
    maintainer: str = "rocm-wizard tests <tests@invalid>"
    description: str = "stand-in package for rocm-wizard's integration tests"
    conffiles: List[str] = field(default_factory=list)  # paths dpkg keeps as configuration files

    @property
    def filename(self) -> str:
        upstream = self.version.split(":", 1)[-1]
        return f"{self.name}_{upstream}_{self.arch}.deb"


def build_deb(spec: DebSpec, out_dir: str) -> str:
    """Build ``spec`` into ``out_dir`` and return the .deb path."""
    os.makedirs(out_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="rw-deb-")
    try:
        debian = os.path.join(work, "DEBIAN")
        os.makedirs(debian)
        for path, content in spec.files.items():
            dest = os.path.join(work, path.lstrip("/"))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as fh:
                fh.write(content if isinstance(content, bytes) else content.encode("utf-8"))
            os.chmod(dest, spec.modes.get(path, 0o644))
        control = [
            f"Package: {spec.name}",
            f"Version: {spec.version}",
            f"Architecture: {spec.arch}",
            f"Maintainer: {spec.maintainer}",
            f"Section: {spec.section}",
            "Priority: optional",
        ]
        if spec.depends:
            control.append("Depends: " + ", ".join(spec.depends))
        control.append(f"Description: {spec.description}")
        with open(os.path.join(debian, "control"), "w", encoding="utf-8") as fh:
            fh.write("\n".join(control) + "\n")
        if spec.conffiles:
            with open(os.path.join(debian, "conffiles"), "w", encoding="utf-8") as fh:
                fh.write("".join(c + "\n" for c in spec.conffiles))
        for script in ("postinst", "prerm", "postrm"):
            body = getattr(spec, script)
            if body:
                path = os.path.join(debian, script)
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(body if body.startswith("#!") else "#!/bin/sh\nset -e\n" + body)
                os.chmod(path, 0o755)
        out = os.path.join(out_dir, spec.filename)
        run(["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", work, out])
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)
