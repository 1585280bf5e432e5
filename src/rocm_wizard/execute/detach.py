"""Run detached from the terminal (for SSH sessions without tmux or screen): ``systemd-run`` as a
transient unit where systemd runs the machine, else ``setsid``.  The detached run writes its
console output to ``console.log`` in its run directory; ``rocm-wizard resume --follow`` (or
``tail -f``) follows it, from this session or a later one."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import List, Optional, Tuple

from . import paths
from .fsutil import write_json

PRESERVE_ENV = ("ROCM_WIZARD_LOG_DIR", "PYTHONPATH", "PATH", "HOME", "LANG", "LC_ALL", "http_proxy", "https_proxy",
                "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "SUDO_USER", "XDG_STATE_HOME", "VIRTUAL_ENV")


def strip_detach(argv: List[str]) -> List[str]:
    return [a for a in argv if a != "--detach"]


def systemd_available() -> bool:
    return os.path.isdir("/run/systemd/system") and shutil.which("systemd-run") is not None


def start(argv: List[str], run_id: str, log_root: str, prefer_systemd: bool = True) -> Tuple[str, str]:
    """Start ``rocm-wizard <argv>`` detached; returns (how, console log path)."""
    run_dir = paths.make_run_dir(run_id, log_root)
    console = os.path.join(run_dir, "console.log")
    env = {k: v for k, v in os.environ.items() if k in PRESERVE_ENV}
    env.update(ROCM_WIZARD_RUN_ID=run_id, ROCM_WIZARD_DETACHED="1", ROCM_WIZARD_LOG_DIR=log_root)
    cmd = [sys.executable, "-m", "rocm_wizard"] + strip_detach(argv)
    if prefer_systemd and systemd_available():
        unit = f"rocm-wizard-{run_id}"
        sd = ["systemd-run", "--quiet", "--collect", f"--unit={unit}", "--same-dir",
              f"--property=StandardOutput=append:{console}", f"--property=StandardError=append:{console}"]
        sd += [f"--setenv={k}={v}" for k, v in sorted(env.items())]
        proc = subprocess.run(sd + ["--"] + cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, timeout=60)
        if proc.returncode == 0:
            write_json(os.path.join(run_dir, "detached.json"), {"how": "systemd-run", "unit": unit, "pid": None})
            return f"systemd unit {unit}", console
    out = open(os.open(console, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o640), "ab")
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True, close_fds=True)
    finally:
        out.close()
    write_json(os.path.join(run_dir, "detached.json"), {"how": "setsid", "pid": proc.pid})
    return f"background process {proc.pid} (setsid)", console


def preset_run_id() -> Optional[str]:
    value = os.environ.get("ROCM_WIZARD_RUN_ID", "")
    return value if paths.is_run_id(value) else None
