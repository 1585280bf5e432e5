"""Ansible inside a test root: Debian's own ``ansible-core`` (and ``python3-apt``, which the apt
module needs), installed from .debs fetched once from Debian's archive and cached beside the root
image (``debs-ansible-<hash>/``), so each test installs them offline with ``dpkg -i``.

The playbook then runs in the root with ``ansible-playbook -c local``: modules, facts and apt act on
the root, never on the machine running the tests.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
from pathlib import Path
from typing import Dict, List, Optional

from .debroot import DEFAULT_MIRROR, RECIPE, BaseTree, DebRoot, cache_dir, recipe_key

PACKAGES = ["ansible-core", "python3-apt"]
APT_OPTS = ["--no-install-recommends"]
INSIDE = "/opt/rw-ansible-debs"


def debs_dir(recipe: dict = RECIPE) -> Path:
    key = hashlib.sha256(json.dumps([recipe_key(recipe), PACKAGES, APT_OPTS], sort_keys=True).encode()).hexdigest()[:16]
    return cache_dir() / f"debs-ansible-{key}"


def ensure_debs(base: BaseTree, recipe: dict = RECIPE, mirror: Optional[str] = None) -> Path:
    """The cached .debs of :data:`PACKAGES` for a root of ``recipe`` (downloaded in a scratch root
    pointed at Debian's archive when missing; atomic, locked)."""
    target = debs_dir(recipe)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(str(target) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.is_dir() and any(target.glob("ansible-core_*.deb")):
            return target
        mirror = mirror or os.environ.get("ROCM_WIZARD_TEST_MIRROR") or DEFAULT_MIRROR
        scratch = base.new_root()
        try:
            scratch.write("/etc/apt/sources.list", f"deb {mirror} {recipe['suite']} main\n")
            scratch.write("/etc/resolv.conf", open("/etc/resolv.conf").read())
            scratch.apt("update", check=True, timeout=900)
            scratch.apt("install", "--download-only", *APT_OPTS, *PACKAGES, check=True, timeout=900)
            cache = scratch.host_path("/var/cache/apt/archives")
            tmp = Path(str(target) + f".tmp{os.getpid()}")
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir()
            for name in sorted(os.listdir(cache)):
                if name.endswith(".deb"):
                    shutil.copy2(os.path.join(cache, name), tmp / name)
            os.replace(tmp, target)
        finally:
            scratch.close()
        return target


def install(root: DebRoot, debs: Path) -> None:
    """dpkg -i the cached .debs inside ``root`` (offline)."""
    root.bind(str(debs), INSIDE)
    root.run(f"dpkg -i {INSIDE}/*.deb", check=True, timeout=600)


def env(extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    out = {"LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "HOME": "/root", "ANSIBLE_NOCOLOR": "1",
           "ANSIBLE_FORCE_COLOR": "0", "ANSIBLE_RETRY_FILES_ENABLED": "0", "ANSIBLE_PYTHON_INTERPRETER": "/usr/bin/python3",
           "ANSIBLE_LOCALHOST_WARNING": "0", "ANSIBLE_INVENTORY_UNPARSED_WARNING": "0"}
    if extra:
        out.update(extra)
    return out


def playbook(root: DebRoot, path: str, *args: str, extra_env: Optional[Dict[str, str]] = None, timeout: float = 900):
    """``ansible-playbook -i localhost, -c local PATH ARGS`` inside ``root``."""
    return root.run(["ansible-playbook", "-i", "localhost,", "-c", "local", path, *args], env=env(extra_env),
                    timeout=timeout)


_RECAP = re.compile(r"^(\S+)\s*:\s*((?:\w+=\d+\s*)+)$", re.M)


def recap(stdout: str) -> Dict[str, int]:
    """The PLAY RECAP counters of the one host (``ok``, ``changed``, ``failed``...)."""
    found: List[Dict[str, int]] = []
    for m in _RECAP.finditer(stdout.split("PLAY RECAP", 1)[-1]):
        found.append({k: int(v) for k, v in (kv.split("=") for kv in m.group(2).split())})
    assert len(found) == 1, stdout[-3000:]
    return found[0]


def changed_tasks(stdout: str) -> List[str]:
    """The names of the tasks that reported a change (``changed:`` lines follow ``TASK [name]``)."""
    out: List[str] = []
    task = ""
    for line in stdout.splitlines():
        m = re.match(r"^(?:TASK|RUNNING HANDLER) \[(.*)\]", line)
        if m:
            task = m.group(1)
        elif line.startswith("changed:") and task not in out:
            out.append(task)
    return out

