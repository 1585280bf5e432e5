"""Assertions shared by the scenario tests: is the root converged and consistent?"""
from __future__ import annotations

import json
import os
import time
from typing import Dict, List, Optional

from .debroot import DebRoot

APT_FILES = ["/etc/apt/sources.list", "/etc/apt/sources.list.d", "/etc/apt/preferences.d", "/etc/apt/keyrings",
             "/etc/apt/trusted.gpg.d", "/etc/ld.so.conf.d"]


def apt_state(root: DebRoot) -> Dict[str, Optional[str]]:
    snap = root.snapshot(APT_FILES)
    snap["dpkg"] = root.read("/var/lib/dpkg/status")
    return snap


def active_lines(text: str) -> List[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def assert_no_duplicate_lines(root: DebRoot, paths: List[str]) -> None:
    for p in paths:
        if not root.exists(p):
            continue
        lines = active_lines(root.read(p))
        dups = sorted({ln for ln in lines if lines.count(ln) > 1})
        assert not dups, f"{p} has duplicated lines: {dups}"


def assert_dpkg_healthy(root: DebRoot) -> None:
    audit = root.dpkg_audit()
    assert audit == "", f"dpkg --audit is not empty:\n{audit}"
    check = root.run(["apt-get", "check"])
    assert check.returncode == 0, check.stdout + check.stderr


def assert_rocm_upgraded(root: DebRoot, release) -> None:
    assert root.installed_version("rocm") == release.deb_version("jammy")
    assert root.installed_version("rocm-core") == release.deb_version("jammy")
    assert root.installed_version("amdgpu-dkms") == release.dkms_version("jammy")
    assert root.resolve("/opt/rocm") == f"/opt/rocm-{release.version}"
    assert root.read("/opt/rocm/.info/version") == release.info_version + "\n"
    lists = root.read("/etc/apt/sources.list.d/rocm.list") + root.read("/etc/apt/sources.list.d/amdgpu.list")
    active = active_lines(lists)
    assert active and all(f"/{release.dir}" in ln for ln in active), active
    assert_no_duplicate_lines(root, ["/etc/apt/sources.list.d/rocm.list", "/etc/apt/sources.list.d/amdgpu.list",
                                     "/etc/apt/preferences.d/rocm-pin-600", "/etc/ld.so.conf.d/rocm.conf"])


def latest_run(root: DebRoot) -> str:
    return root.resolve("/var/log/rocm-wizard/latest")


def journal(root: DebRoot, run_dir: Optional[str] = None) -> dict:
    run_dir = run_dir or latest_run(root)
    return json.loads(root.read(os.path.join(run_dir, "journal.json")))


def events(root: DebRoot, run_dir: Optional[str] = None) -> List[dict]:
    run_dir = run_dir or latest_run(root)
    return [json.loads(ln) for ln in root.read(os.path.join(run_dir, "events.jsonl")).splitlines() if ln.strip()]


def step_lines(stderr: str) -> Dict[str, str]:
    """step number -> result word ('ok', 'changed', 'failed', 'skipped') from the console output."""
    out: Dict[str, str] = {}
    current = None
    for line in stderr.splitlines():
        s = line.strip()
        if s.startswith("[") and "/" in s.split("]")[0]:
            current = s[1:].split("/")[0]
        elif current and s.split(":")[0] in ("ok", "changed", "failed", "skipped"):
            out[current] = s.split(":")[0]
            current = None
    return out


def wait_for(root: DebRoot, path: str, timeout: float = 120.0) -> None:
    """Until ``path`` exists in ``root`` (a step's marker): an event, not a fixed sleep."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if root.exists(path):
            return
        time.sleep(0.1)
    raise AssertionError(f"{path} did not appear within {timeout}s")
