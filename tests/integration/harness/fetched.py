"""What the tests fetch once from Debian's archive or PyPI and keep in the test cache: Debian .debs
(downloaded in a scratch root, ``apt-get install --download-only``) and wheels (the host's
``pip download``).  Both are made the same way: under a lock beside the target (parallel workers
wait for the first), into a temporary folder renamed into place when complete (a failed download
leaves nothing a later run would take for done)."""
from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable, Optional, Sequence

from .debroot import DEFAULT_MIRROR, RECIPE, BaseTree


def cached(target: Path, marker: str, make: Callable[[Path], None]) -> Path:
    """``target`` once a file matching ``marker`` is in it; else ``make(tmp)`` fills a temporary
    folder that replaces it (locked, atomic).  ``make`` raises to leave nothing behind."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(str(target) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.is_dir() and any(target.glob(marker)):
            return target
        tmp = Path(str(target) + f".tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        try:
            make(tmp)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        os.replace(tmp, target)
        return target


def debs(base: BaseTree, target: Path, packages: Sequence[str], marker: str, *, recipe: dict = RECIPE,
         mirror: Optional[str] = None, apt_opts: Sequence[str] = ("--no-install-recommends",),
         timeout: int = 900) -> Path:
    """The .debs of ``packages`` and what they need beyond a root of ``recipe``, downloaded in a
    scratch root pointed at Debian's archive (``mirror``, ``$ROCM_WIZARD_TEST_MIRROR`` or Debian's
    own) when ``target`` has no ``marker`` yet."""
    def make(tmp: Path) -> None:
        archive = mirror or os.environ.get("ROCM_WIZARD_TEST_MIRROR") or DEFAULT_MIRROR
        scratch = base.new_root()
        try:
            scratch.write("/etc/apt/sources.list", f"deb {archive} {recipe['suite']} main\n")
            scratch.write("/etc/resolv.conf", open("/etc/resolv.conf").read())
            scratch.apt("update", check=True, timeout=900)
            scratch.apt("install", "--download-only", *apt_opts, *packages, check=True, timeout=timeout)
            cache = scratch.host_path("/var/cache/apt/archives")
            for name in sorted(os.listdir(cache)):
                if name.endswith(".deb"):
                    shutil.copy2(os.path.join(cache, name), tmp / name)
        finally:
            scratch.close()

    return cached(target, marker, make)


def wheels(target: Path, requirements: Sequence[str], marker: str, *, python: str = "3.11",
           platform: Optional[str] = None, deps: bool = True, timeout: int = 600) -> Path:
    """Wheels of ``requirements`` (with their dependencies unless ``deps`` is false) for CPython
    ``python`` (and ``platform``, e.g. ``manylinux2014_x86_64``), downloaded with the host's pip when
    ``target`` has no ``marker`` yet; a download that fails or brings no ``marker`` raises
    :class:`~.procs.CommandFailed`."""
    def make(tmp: Path) -> None:
        res = subprocess.run([sys.executable, "-m", "pip", "download", *([] if deps else ["--no-deps"]),
                              "--only-binary=:all:", *(["--platform", platform] if platform else []),
                              "--python-version", python, "--disable-pip-version-check", "-q", "-d", str(tmp),
                              *requirements], capture_output=True, text=True, timeout=timeout)
        if res.returncode != 0 or not any(tmp.glob(marker)):
            from .procs import CommandFailed

            raise CommandFailed(["pip", "download", *requirements], res)

    return cached(target, marker, make)


def or_missing(what: str, fetch: Callable[[], object]):
    """``fetch()``; a download that fails is a missing prerequisite named ``what`` (skipped, or
    failed under CI: ``rwtest.ci.missing``)."""
    from rwtest import ci

    from .procs import CommandFailed

    try:
        return fetch()
    except CommandFailed as exc:
        ci.missing(f"{what}: {exc}")
