"""Run detached from the terminal (for SSH sessions without tmux or screen): ``systemd-run`` as a
transient unit where systemd runs the machine, else ``setsid``.  The detached run writes its
console output to ``console.log`` in its run directory; ``rocm-wizard resume --follow`` (or
``tail -f``) follows it, from this session or a later one.

Nothing secret goes on ``systemd-run``'s command line or into the unit's environment (both are
readable by every user: ``ps``, ``systemctl show``): the command line of the run (a mirror URL may
carry a password) and the environment it keeps (proxy variables may carry credentials) are written
to ``launch.json`` in the run directory (root's, mode 0600), which the detached process reads and
removes first thing (:func:`take_launch`); its own command line names only that file."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import Dict, List, Optional, Tuple

from . import paths
from .fsutil import write_json

PRESERVE_ENV = ("ROCM_WIZARD_LOG_DIR", "PYTHONPATH", "PATH", "HOME", "LANG", "LC_ALL", "http_proxy", "https_proxy",
                "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "SUDO_USER", "XDG_STATE_HOME", "VIRTUAL_ENV")


def strip_detach(argv: List[str]) -> List[str]:
    return [a for a in argv if a != "--detach"]


def systemd_available() -> bool:
    return os.path.isdir("/run/systemd/system") and shutil.which("systemd-run") is not None


LAUNCH_ENV = "ROCM_WIZARD_LAUNCH"
# what the detached process needs before it has read its launch file (no secret in these)
PLAIN_ENV = ("PYTHONPATH", "ROCM_WIZARD_LOG_DIR")


def take_launch(path: str) -> Tuple[List[str], Dict[str, str]]:
    """The argv and environment a detached run was started with, from its launch file, which is
    then removed.  Only a regular file of this user's, readable by no one else, is believed."""
    import json
    import stat

    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077:
        raise ValueError(f"{path} is not a private file of this user's: not used")
    with open(path, "r", encoding="utf-8") as fh:
        data = json.load(fh)
    os.unlink(path)
    argv, env = data.get("argv"), data.get("env")
    if not isinstance(argv, list) or not isinstance(env, dict):
        raise ValueError(f"{path} is damaged")
    return [str(a) for a in argv], {str(k): str(v) for k, v in env.items()}


def prepare(argv: List[str], run_id: str, log_root: str) -> Tuple[str, List[str], Dict[str, str], List[str]]:
    """Write the launch file; returns (console log path, the detached command, its environment,
    the systemd-run command line that starts it): none of the last three holds anything secret."""
    run_dir = paths.make_run_dir(run_id, log_root)
    console = os.path.join(run_dir, "console.log")
    kept = {k: v for k, v in os.environ.items() if k in PRESERVE_ENV}
    kept.update(ROCM_WIZARD_RUN_ID=run_id, ROCM_WIZARD_DETACHED="1", ROCM_WIZARD_LOG_DIR=log_root)
    launch = os.path.join(run_dir, "launch.json")
    write_json(launch, {"argv": strip_detach(argv), "env": kept})  # mode 0600
    env = {k: v for k, v in kept.items() if k in PLAIN_ENV}
    env.update(ROCM_WIZARD_RUN_ID=run_id, ROCM_WIZARD_DETACHED="1", **{LAUNCH_ENV: launch})
    cmd = [sys.executable, "-m", "rocm_wizard"]
    sd = ["systemd-run", "--quiet", "--collect", f"--unit=rocm-wizard-{run_id}", "--same-dir",
          f"--property=StandardOutput=append:{console}", f"--property=StandardError=append:{console}"]
    sd += [f"--setenv={k}={v}" for k, v in sorted(env.items())]
    return console, cmd, env, sd + ["--"] + cmd


def start(argv: List[str], run_id: str, log_root: str, prefer_systemd: bool = True) -> Tuple[str, str]:
    """Start ``rocm-wizard <argv>`` detached; returns (how, console log path)."""
    console, cmd, env, sd = prepare(argv, run_id, log_root)
    run_dir = os.path.dirname(console)
    if prefer_systemd and systemd_available():
        unit = f"rocm-wizard-{run_id}"
        proc = subprocess.run(sd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
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
