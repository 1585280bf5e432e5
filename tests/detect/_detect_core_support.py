"""Test support for the detection-core tests: a fake system tree and a Source over it.

``FakeSystem`` builds a directory tree that looks like a machine's files (os-release, /proc, a
home with virtual environments...) and :class:`FakeSource` reads it through the real
``LiveSource`` file code, answering commands from a table and optional stat overrides (device
nodes cannot be created without root).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, Optional, Sequence, Tuple

from rocm_wizard.detect.sources import LiveSource, Raw

REPO = Path(__file__).resolve().parents[2]
REAL_FIXTURES = REPO / "tests" / "data" / "real"  # = rwtest.ci.REAL


class FakeSource(LiveSource):
    kind = "live"

    def __init__(self, root: str, environ: Dict[str, str], commands: Optional[Dict[Tuple[str, ...], object]] = None,
                 stats: Optional[Dict[str, Optional[dict]]] = None) -> None:
        super().__init__(root=root, commands=False, environ=environ)
        self.table = dict(commands or {})
        self.stat_overrides = dict(stats or {})
        self.ran = []

    def run(self, argv: Sequence[str], timeout: Optional[float] = None) -> Raw:
        argv = tuple(argv)
        self.ran.append(argv)
        label = "cmd:" + " ".join(argv)
        if argv not in self.table:
            return Raw(None, label, "%s: not installed" % argv[0])
        ans = self.table[argv]
        if isinstance(ans, tuple):
            text, rc, err = ans
            return Raw(text, label, err, rc)
        return Raw(str(ans), label, None, 0)

    def stat(self, path: str):
        if path in self.stat_overrides:
            st = self.stat_overrides[path]
            return dict(st) if st is not None else None
        return super().stat(path)


class FakeSystem:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def p(self, path: str) -> Path:
        return self.root / path.lstrip("/")

    def write(self, path: str, text: str) -> "FakeSystem":
        f = self.p(path)
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text, encoding="utf-8")
        return self

    def mkdir(self, path: str) -> "FakeSystem":
        self.p(path).mkdir(parents=True, exist_ok=True)
        return self

    def link(self, path: str, target: str) -> "FakeSystem":
        f = self.p(path)
        f.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, f)
        return self

    # -- building blocks ---------------------------------------------------------------------------
    def ubuntu(self, version: str = "22.04", codename: str = "jammy", kernel: str = "6.8.0-45-generic") -> "FakeSystem":
        self.write("/etc/os-release", 'PRETTY_NAME="Ubuntu %s.5 LTS"\nNAME="Ubuntu"\nVERSION_ID="%s"\n'
                   'VERSION="%s.5 LTS (%s)"\nVERSION_CODENAME=%s\nID=ubuntu\nID_LIKE=debian\n'
                   'UBUNTU_CODENAME=%s\n' % (version, version, version, codename.title(), codename, codename))
        self.write("/proc/sys/kernel/osrelease", kernel + "\n")
        self.write("/proc/sys/kernel/arch", "x86_64\n")
        self.write("/proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD Ryzen 9 7950X 16-Core Processor\n")
        return self

    def venv(self, root: str, py: str = "3.12", torch: Optional[str] = None, hip: Optional[str] = None,
             cuda: Optional[str] = None, annotated: bool = True, triton: Optional[Dict[str, str]] = None,
             requires_triton: Optional[str] = None, extra: Optional[Dict[str, str]] = None, pyvenv: bool = True,
             triton_dir: str = "full") -> str:
        """A venv at ``root``; returns its site-packages path (as seen inside the fake system)."""
        if pyvenv:
            self.write(root + "/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = %s.3\n" % py)
        site = "%s/lib/python%s/site-packages" % (root, py)
        self.mkdir(site)
        if torch:
            if annotated:
                body = ("from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
                        "__version__ = '%s'\ndebug = False\ncuda: Optional[str] = %s\n"
                        "git_version = '55e93013211e3d9a52e259aee5df4f6198a3cdcc'\nhip: Optional[str] = %s\n"
                        % (torch, repr(cuda) if cuda else "None", repr(hip) if hip else "None"))
            else:
                body = "__version__ = '%s'\ndebug = False\ncuda = %s\nhip = %s\n" % (
                    torch, repr(cuda) if cuda else "None", repr(hip) if hip else "None")
            self.write(site + "/torch/version.py", body)
            self.write(site + "/torch/__init__.py", "")
            meta = "Metadata-Version: 2.1\nName: torch\nVersion: %s\n" % torch
            if requires_triton:
                meta += 'Requires-Dist: filelock\nRequires-Dist: %s ; platform_system == "Linux" and platform_machine == "x86_64"\n' % requires_triton
            meta += "\nPyTorch is a Python package\nRequires-Dist: fake-in-body==1\n"
            self.write(site + "/torch-%s.dist-info/METADATA" % torch, meta)
        for name, ver in (triton or {}).items():
            self.write(site + "/%s-%s.dist-info/METADATA" % (name.replace("-", "_"), ver), "Name: %s\nVersion: %s\n" % (name, ver))
        if triton:
            if triton_dir == "full":
                self.write(site + "/triton/__init__.py", "")
                self.write(site + "/triton/language/__init__.py", "")
            elif triton_dir == "no-init":
                self.write(site + "/triton/language/__init__.py", "")
            elif triton_dir == "no-language":
                self.write(site + "/triton/__init__.py", "")
        for name, ver in (extra or {}).items():
            self.write(site + "/%s-%s.dist-info/METADATA" % (name.replace("-", "_"), ver), "Name: %s\n" % name)
        return site
