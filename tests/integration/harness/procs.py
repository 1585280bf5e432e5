"""Subprocess helpers and the prerequisites of the integration tier."""
from __future__ import annotations

import os
import shutil
import subprocess
from typing import Dict, List, Optional, Sequence

# Tools the tier needs on the host, and the Debian package that provides each (for messages).
REQUIRED_TOOLS = {
    "mmdebstrap": "mmdebstrap",
    "dpkg-deb": "dpkg",
    "apt-ftparchive": "apt-utils",
    "gpg": "gnupg",
    "gpgconf": "gnupg",
    "chroot": "coreutils",
    "tar": "tar",
}


def missing_prerequisites() -> List[str]:
    """Plain-language reasons why this machine cannot run the tier (empty when it can)."""
    reasons = []
    if os.name != "posix" or not hasattr(os, "geteuid"):
        return ["not a POSIX system"]
    if os.geteuid() != 0:
        reasons.append("needs root (chroot, mounts, dpkg inside the test root)")
    for tool, package in REQUIRED_TOOLS.items():
        if shutil.which(tool) is None:
            reasons.append(f"{tool} not installed (apt-get install {package})")
    return reasons


class CommandFailed(RuntimeError):
    def __init__(self, argv: Sequence[str], proc: subprocess.CompletedProcess) -> None:
        self.argv = list(argv)
        self.proc = proc
        super().__init__(
            f"command failed with exit status {proc.returncode}: {' '.join(map(str, argv))}\n"
            f"--- stdout ---\n{_tail(proc.stdout)}\n--- stderr ---\n{_tail(proc.stderr)}"
        )


def _tail(text, limit: int = 4000) -> str:
    if text is None:
        return ""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return text[-limit:]


def run(argv: Sequence[str], *, check: bool = True, env: Optional[Dict[str, str]] = None,
        cwd: Optional[str] = None, input: Optional[str] = None, timeout: float = 300,
        stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    """Run a host command, text mode, output captured; raise :class:`CommandFailed` on failure."""
    proc = subprocess.run([str(a) for a in argv], env=env, cwd=cwd, input=input, text=True,
                          stdout=stdout, stderr=subprocess.PIPE, timeout=timeout)
    if check and proc.returncode != 0:
        raise CommandFailed(argv, proc)
    return proc


def clean_env(extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    """A minimal, predictable environment (no host proxies, pip config or locale surprises)."""
    env = {
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "LC_ALL": "C.UTF-8",
        "LANG": "C.UTF-8",
        "HOME": "/root",
        "DEBIAN_FRONTEND": "noninteractive",
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_NO_INPUT": "1",
    }
    if extra:
        env.update(extra)
    return env
