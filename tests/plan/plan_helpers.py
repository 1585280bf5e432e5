"""Shared helpers of the plan-engine tests."""
from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from rwtest import ci, leaks
from rwtest.ci import which as tool  # noqa: F401 - an external tool, or None (kept for the tests that import it)

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SYSTEMS = HERE / "systems"
GOLDEN = HERE / "golden"
FIXTURES = ci.REAL


def run_cli(args: List[str]) -> Tuple[int, str, str]:
    """Run ``rocm-wizard ARGS`` in this process; (exit status, stdout, stderr)."""
    from rocm_wizard.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(list(args))
        except SystemExit as exc:  # argparse errors
            rc = exc.code if isinstance(exc.code, int) else 1
    return rc, out.getvalue(), err.getvalue()


def tree_digest(root: Path) -> Dict[str, str]:
    """path -> sha256 (files), 'link:target' (symlinks), 'dir' (directories), with mode bits."""
    out: Dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, root)
            st = os.lstat(p)
            if os.path.islink(p):
                out[rel] = "link:" + os.readlink(p)
            elif os.path.isdir(p):
                out[rel] = f"dir:{oct(st.st_mode)}"
            else:
                with open(p, "rb") as fh:
                    out[rel] = hashlib.sha256(fh.read()).hexdigest() + f":{oct(st.st_mode)}"
    return out


def make_root(root: Path, *, os_id: str = "ubuntu", version: str = "22.04", kernel: str = "6.5.0-45-generic",
              gpus: Tuple[str, ...] = ("744c",), rocm: Optional[str] = "6.2.0-66",
              users: Tuple[Tuple[str, int], ...] = (("dev", 1000),),
              groups: Optional[Dict[str, Tuple[int, Tuple[str, ...]]]] = None) -> Path:
    """A small tree that looks like the system of the seed scenario to the generated script."""
    (root / "etc/apt/sources.list.d").mkdir(parents=True, exist_ok=True)
    (root / "etc/apt/preferences.d").mkdir(parents=True, exist_ok=True)
    (root / "proc/sys/kernel").mkdir(parents=True, exist_ok=True)
    (root / "etc/os-release").write_text(f'NAME="X"\nID={os_id}\nVERSION_ID="{version}"\n')
    (root / "proc/sys/kernel/osrelease").write_text(kernel + "\n")
    for i, dev in enumerate(gpus):
        d = root / f"sys/bus/pci/devices/0000:0{i + 3}:00.0"
        d.mkdir(parents=True, exist_ok=True)
        (d / "vendor").write_text("0x1002\n")
        (d / "class").write_text("0x030000\n")
        (d / "device").write_text(f"0x{dev}\n")
    audio = root / "sys/bus/pci/devices/0000:03:00.1"
    audio.mkdir(parents=True, exist_ok=True)
    (audio / "vendor").write_text("0x1002\n")
    (audio / "class").write_text("0x040300\n")
    (audio / "device").write_text("0xab30\n")
    if rocm:
        (root / "opt/rocm/.info").mkdir(parents=True, exist_ok=True)
        (root / "opt/rocm/.info/version").write_text(rocm + "\n")
    (root / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/bash\n"
                                     + "".join(f"{u}:x:{uid}:{uid}::/home/{u}:/bin/bash\n" for u, uid in users))
    groups = groups if groups is not None else {"video": (44, ()), "render": (110, ())}
    lines = ["root:x:0:"] + [f"{g}:x:{gid}:{','.join(m)}" for g, (gid, m) in groups.items()]
    lines += [f"{u}:x:{uid}:" for u, uid in users]
    (root / "etc/group").write_text("\n".join(lines) + "\n")
    return root


def run_script(script: str, root: Path, tmp: Path, env: Optional[Dict[str, str]] = None,
               dry: bool = True, network: bool = True) -> subprocess.CompletedProcess:
    """Run a generated plan script against the fake root ``root``, never against this machine: in
    the read-only root (rwtest.sandbox; only ``tmp`` and ``root`` writable) with
    recorders first on PATH in place of apt-get, usermod, docker, ldconfig... (their calls:
    ``rwtest.sandbox.recorded(tmp)``).  The network stays shared (servers on 127.0.0.1) unless
    ``network`` is false."""
    from rwtest import sandbox

    path = tmp / "plan.sh"
    path.write_text(script)
    recorders = sandbox.recorders(tmp)
    full = {"PATH": f"{recorders}:" + os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp), "LC_ALL": "C"}
    if dry:
        full["DRY_RUN"] = "1"
    full["RW_ROOT"] = str(root)
    full.update(env or {})
    argv = sandbox.argv(["bash", str(path)], writable=[tmp, root], network=network)
    return subprocess.run(argv, capture_output=True, text=True, env=full, timeout=120)


def needs_fixtures() -> None:
    if not FIXTURES.is_dir():
        ci.missing(f"shared fixtures not found at {FIXTURES}")


class TestKey:
    """An OpenPGP key made with gpg for the tests: ``armored`` text, ``fingerprint``."""

    def __init__(self, armored: bytes, fingerprint: str) -> None:
        self.armored = armored
        self.fingerprint = fingerprint


def make_gpg_key(tmp: Path, uid: str = "rocm-wizard test <test@example.invalid>", expired: bool = False) -> TestKey:
    """A fresh signing key; its GNUPGHOME (secret key included) is removed and its gpg-agent
    stopped before this returns -- only the public key and fingerprint are kept."""
    gpg = ci.tool("gpg")
    home = tmp / ("gnupg-" + hashlib.sha1(uid.encode()).hexdigest()[:8] + ("-x" if expired else ""))
    home.mkdir(mode=0o700, exist_ok=True)
    env = {"GNUPGHOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    extra = ["--faked-system-time", "20200101T000000!"] if expired else []
    try:
        subprocess.run([gpg, "--batch", "--pinentry-mode", "loopback", "--passphrase", "", *extra, "--quick-gen-key",
                        uid, "ed25519", "sign", "1d" if expired else "never"], env=env, check=True,
                       capture_output=True, timeout=60)
        out = subprocess.run([gpg, "--batch", "--with-colons", "--list-keys", uid], env=env, check=True,
                             capture_output=True, text=True).stdout
        fpr = next(line.split(":")[9] for line in out.splitlines() if line.startswith("fpr:"))
        armored = subprocess.run([gpg, "--batch", "--armor", "--export", fpr], env=env, check=True,
                                 capture_output=True).stdout
    finally:
        gpg_cleanup(home)
    return TestKey(armored, fpr)


def gpg_cleanup(home: Path) -> None:
    """Stop the gpg-agent of ``home`` and remove it."""
    subprocess.run(["gpgconf", "--kill", "all"], env={"GNUPGHOME": str(home), "PATH": os.environ.get("PATH", "")},
                   capture_output=True, timeout=60)
    leaks.wait_agents_gone(str(home))  # (gpgconf returns before the agent has exited)
    shutil.rmtree(home, ignore_errors=True)
