"""Virtual environments on the host python, installed into from the local index."""
from __future__ import annotations

import glob
import os
import subprocess
import sys
from typing import Dict, List, Optional

from .procs import clean_env, run


def make_venv(path: str, python: str = sys.executable) -> str:
    run([python, "-m", "venv", path], env=clean_env(), timeout=120)
    return path


def venv_python(venv: str) -> str:
    return os.path.join(venv, "bin", "python")


def site_packages(venv: str) -> str:
    found = glob.glob(os.path.join(glob.escape(venv), "lib", "python3*", "site-packages"))
    if not found:
        raise FileNotFoundError(f"no site-packages under {venv}")
    return found[0]


def pip(venv: str, *args: str, check: bool = True, env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
    return run([venv_python(venv), "-m", "pip", "--no-cache-dir", *args], check=check,
               env=clean_env(env), timeout=300)


def installed(venv: str) -> Dict[str, str]:
    """distribution name (lower case) -> version, from ``pip list`` (JSON)."""
    import json

    out = pip(venv, "list", "--format=json").stdout
    return {d["name"].lower(): d["version"] for d in json.loads(out)}


def dist_names(venv: str) -> List[str]:
    return sorted(installed(venv))
