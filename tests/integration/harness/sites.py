"""The served test world: the radeon-like site, the distribution archive and the package index,
each on its own 127.0.0.1 port, plus helpers that point a :class:`DebRoot` at them."""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from typing import Callable, Dict, Optional, Sequence

from . import aptrepo, wheels
from .aptrepo import AptSite, RocmRelease
from .debroot import DebRoot
from .gpgkeys import TestKey
from .httpserve import LocalServer
from .procs import run

ROCM_KEYRING = "/etc/apt/keyrings/rocm.gpg"
DISTRO_KEYRING = "/etc/apt/trusted.gpg.d/ubuntu-stand-in.gpg"


@dataclass
class AptWorld:
    site: AptSite
    radeon: LocalServer
    distro: LocalServer
    rogue_key: TestKey  # a key nobody signed anything with (the "wrong key" case)

    @property
    def radeon_url(self) -> str:
        return self.radeon.url

    @property
    def distro_url(self) -> str:
        return self.distro.url

    @property
    def old(self) -> RocmRelease:
        return aptrepo.OLD

    @property
    def new(self) -> RocmRelease:
        return aptrepo.NEW

    def reset(self) -> None:
        self.radeon.reset()
        self.distro.reset()

    # --- pointing a root at the servers ------------------------------------------------------
    def add_distro(self, root: DebRoot) -> None:
        """The root's own "distribution" archive (like Ubuntu's), trusted the way Ubuntu's is."""
        self.site.distro_key.write_keyring(root.host_path(DISTRO_KEYRING))
        root.write("/etc/apt/sources.list", aptrepo.distro_list(self.distro_url, self.site.codename))

    def add_rocm(self, root: DebRoot, release: RocmRelease, *, pin: bool = True, amdgpu: bool = True,
                 key: Optional[TestKey] = None, base: Optional[str] = None) -> None:
        """What a 6.x install per AMD's docs leaves behind: keyring, rocm.list, amdgpu.list, pin
        (``base``: the site the lists name, the radeon stand-in unless given)."""
        base = base or self.radeon_url
        (key or self.site.radeon_key).write_keyring(root.host_path(ROCM_KEYRING))
        root.write("/etc/apt/sources.list.d/rocm.list",
                   aptrepo.rocm_list(base, release, self.site.codename, ROCM_KEYRING))
        if amdgpu:
            root.write("/etc/apt/sources.list.d/amdgpu.list",
                       aptrepo.amdgpu_list(base, release, self.site.codename, ROCM_KEYRING))
        if pin:
            root.write("/etc/apt/preferences.d/rocm-pin-600", aptrepo.PIN_600)

    def install_rocm(self, root: DebRoot, release: RocmRelease, dkms: bool = True) -> None:
        """A machine that already runs ``release`` (the starting point of upgrade scenarios)."""
        self.add_distro(root)
        self.add_rocm(root, release)
        root.apt("update", check=True)
        pkgs = ["rocm"] + (["amdgpu-dkms"] if dkms else [])
        root.apt("install", *pkgs, check=True)


def add_core_site(world: AptWorld) -> AptWorld:
    """``world`` with the Core SDK layout added to the radeon-like tree (its own signing key kept as
    ``world.core_key``; the kernel-driver directories are signed with the radeon key)."""
    core_key = TestKey("AMD ROCm Core SDK stand-in <rocm-core-test@invalid>")
    aptrepo.build_core_site(world.site.radeon_root, core_key, world.site.radeon_key)
    world.core_key = core_key  # type: ignore[attr-defined]
    return world


def site_mirror(world: AptWorld, base: str) -> LocalServer:
    """One mirror host serving both the distribution archive (``/ubuntu``) and AMD's repositories
    (``/rocm``, ``/amdgpu``), as an air-gapped site's single internal mirror does (127.0.0.4; the
    caller stops it)."""
    top = os.path.join(base, "site-mirror")
    os.makedirs(top, exist_ok=True)
    for name, target in (("rocm", os.path.join(world.site.radeon_root, "rocm")),
                         ("amdgpu", os.path.join(world.site.radeon_root, "amdgpu")),
                         ("ubuntu", os.path.join(world.site.distro_root, "ubuntu"))):
        if not os.path.lexists(os.path.join(top, name)):
            os.symlink(target, os.path.join(top, name))
    return LocalServer(top, "site-mirror", host="127.0.0.4").start()


@dataclass
class PyIndex:
    server: LocalServer
    indexes: Dict[str, str]  # rocm6.2 -> /whl/rocm6.2, pypi -> /simple
    scratch: Optional[str] = None  # where :meth:`made_once` keeps its copies (session-scoped)
    _trees: Dict[tuple, str] = field(default_factory=dict)

    def url(self, name: str) -> str:
        return self.server.url + self.indexes[name]

    def reset(self) -> None:
        self.server.reset()

    def made_once(self, root: DebRoot, key: tuple, paths: Sequence[str], build: Callable[[], None]) -> None:
        """``build()`` makes the directories ``paths`` in ``root`` (a venv filled from this index and
        pip's cache, say).  The first time per session (per ``key``, ``paths``, the root's Python,
        its accounts and its pip configuration) it runs, and what it made under ``paths`` is kept
        as a tar file; later roots get that copy unpacked -- the same files, owners, modes and
        times as a ``build()`` of their own (the index and the image are the session's) -- without
        running it again.  A path already there makes ``build()`` run, and so does a new top
        directory other than the first root's."""
        tops = []
        for inside in paths:
            parts = [p for p in inside.split("/") if p]
            top = next(("/" + "/".join(parts[:i + 1]) for i in range(len(parts))
                        if not os.path.lexists(root.host_path("/" + "/".join(parts[:i + 1])))), None)
            if top is None:
                build()
                return
            tops.append(top)
        if self.scratch is None:
            build()
            return
        digest = hashlib.sha256()
        for conf in ("/etc/passwd", "/etc/group", "/etc/pip.conf", "/etc/xdg/pip/pip.conf"):
            path = root.host_path(conf)
            if os.path.isfile(path):
                with open(path, "rb") as fh:
                    digest.update(conf.encode() + b"\0" + fh.read() + b"\0")
        full = (key, tuple(paths), tuple(tops), root.resolve("/usr/bin/python3"), digest.hexdigest())
        tar = self._trees.get(full)
        if tar is not None:
            run(["tar", "--numeric-owner", "-xpf", tar, "-C", root.path], timeout=300)
            return
        build()
        present = ["." + t for t in tops if os.path.lexists(root.host_path(t))]
        os.makedirs(self.scratch, exist_ok=True)
        tar = os.path.join(self.scratch, f"tree{len(self._trees)}.tar")
        run(["tar", "--numeric-owner", "-cpf", tar + ".tmp", "-C", root.path, "--", *present], timeout=300)
        os.replace(tar + ".tmp", tar)
        self._trees[full] = tar


def build_apt_world(base: str, kernel: str) -> AptWorld:
    radeon_key = TestKey("repo.radeon.com stand-in <rocm-test@invalid>")
    distro_key = TestKey("Ubuntu Archive stand-in <ubuntu-test@invalid>")
    rogue_key = TestKey("Nobody in particular <rogue-test@invalid>")
    site = aptrepo.build_sites(os.path.join(base, "apt"), radeon_key, distro_key, kernel)
    radeon = LocalServer(site.radeon_root, "radeon").start()
    distro = LocalServer(site.distro_root, "distro", host="127.0.0.2").start()
    return AptWorld(site, radeon, distro, rogue_key)


def build_py_index(base: str) -> PyIndex:
    root = os.path.join(base, "pyindex")
    indexes = wheels.build_index(root)
    return PyIndex(LocalServer(root, "pyindex", host="127.0.0.3").start(), indexes,
                   scratch=os.path.join(base, "made-once"))
