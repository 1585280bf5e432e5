"""A real Debian root made with mmdebstrap, cached as a tarball, entered with chroot or bwrap.

* The image recipe (suite, variant, packages, dpkg options) is hashed into the cache file name
  ``${XDG_CACHE_HOME:-~/.cache}/rocm-wizard-tests/debroot-<hash>.tar``; a missing file is built
  again (about a minute, needs Debian's archive), a present one is reused.  Set
  ``ROCM_WIZARD_TEST_CACHE`` to move the cache, ``ROCM_WIZARD_TEST_MIRROR`` to use another mirror.
* A session unpacks the tarball once (:class:`BaseTree`); each test gets a fresh root as an overlay
  mount on top of it (or, where overlayfs is not available, its own unpacked copy).
* Commands enter the root through ``unshare --mount`` + ``chroot`` (default), so /proc and the bind
  mounts live in a private mount namespace and vanish with the command; ``bwrap`` is used instead
  when ``ROCM_WIZARD_TEST_ENTER=bwrap``.  Network is shared, so 127.0.0.1 servers are reachable.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple, Union

from .procs import CommandFailed, clean_env, run

RECIPE = {
    "format": 1,
    "suite": "bookworm",
    "variant": "apt",
    # python3 so the wizard itself can run inside the root; gpg/wget/curl for generated scripts;
    # sudo for the "through sudo" cases (a test user gets a sudoers entry where a test needs one)
    "include": ["python3", "python3-venv", "python3-packaging", "python3-distro", "gpg", "wget", "curl", "sudo"],
    "aptopts": ['APT::Install-Recommends "false"'],
    "dpkgopts": ["path-exclude=/usr/share/doc/*", "path-exclude=/usr/share/man/*",
                 "path-exclude=/usr/share/locale/*", "path-exclude=/usr/share/info/*"],
}

DEFAULT_MIRROR = "http://deb.debian.org/debian"


def recipe_key(recipe: dict = RECIPE) -> str:
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:16]


def cache_dir() -> Path:
    explicit = os.environ.get("ROCM_WIZARD_TEST_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(xdg) / "rocm-wizard-tests"


# The controller root of the newest ansible-core (test_ansible_newest.py): Debian 13's Python 3.13,
# which ansible-core 2.20 and later need (Debian 12 has 3.11); the package itself comes from PyPI
# into a venv in that root (harness.ansible.ensure_newest_wheels)
RECIPE_TRIXIE = {
    "format": 1,
    "suite": "trixie",
    "variant": "apt",
    "include": ["python3", "python3-venv"],
    "aptopts": RECIPE["aptopts"],
    "dpkgopts": RECIPE["dpkgopts"],
}


def _image_prefix(recipe: dict) -> str:
    # bookworm keeps its historical name (a cached image stays valid); other suites carry theirs
    return "debroot-" if recipe["suite"] == "bookworm" else f"debroot-{recipe['suite']}-"


def image_path(recipe: dict = RECIPE) -> Path:
    return cache_dir() / f"{_image_prefix(recipe)}{recipe_key(recipe)}.tar"


def ensure_image(recipe: dict = RECIPE, mirror: Optional[str] = None, log=None) -> Path:
    """The cached tarball of ``recipe``, built with mmdebstrap when missing (atomic, locked)."""
    target = image_path(recipe)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(str(target) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.exists() and _tar_ok(target):
            return target
        mirror = mirror or os.environ.get("ROCM_WIZARD_TEST_MIRROR") or DEFAULT_MIRROR
        tmp = target.with_name(target.name + f".tmp{os.getpid()}")
        argv = ["mmdebstrap", "--quiet", f"--variant={recipe['variant']}", "--mode=root", "--format=tar",
                "--include=" + ",".join(recipe["include"])]
        argv += [f"--aptopt={o}" for o in recipe["aptopts"]]
        argv += [f"--dpkgopt={o}" for o in recipe["dpkgopts"]]
        argv += [recipe["suite"], str(tmp), mirror]
        if log:
            log(f"building the Debian test root with mmdebstrap into {target} (once; cached)")
        try:
            run(argv, timeout=1200)
            os.replace(tmp, target)
            prefix = _image_prefix(recipe)
            for old in target.parent.glob(prefix + "*.tar"):  # images of older recipes of this suite
                key = old.name[len(prefix):-len(".tar")]
                if old != target and len(key) == 16 and all(c in "0123456789abcdef" for c in key):
                    with contextlib.suppress(OSError):
                        old.unlink()
                        Path(str(old) + ".lock").unlink()
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        return target


def _tar_ok(path: Path) -> bool:
    try:
        with tarfile.open(path) as tf:
            return tf.next() is not None
    except (tarfile.TarError, OSError):
        return False


def _can_overlay(scratch: str) -> bool:
    probe = tempfile.mkdtemp(prefix="ovl-", dir=scratch)
    dirs = [os.path.join(probe, d) for d in ("l", "u", "w", "m")]
    for d in dirs:
        os.mkdir(d)
    try:
        ok = subprocess.run(["mount", "-t", "overlay", "overlay", "-o",
                             f"lowerdir={dirs[0]},upperdir={dirs[1]},workdir={dirs[2]}", dirs[3]],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
        if ok:
            subprocess.run(["umount", dirs[3]], check=False)
        return ok
    finally:
        shutil.rmtree(probe, ignore_errors=True)


class BaseTree:
    """The image unpacked once per session; fresh roots are overlays on it."""

    def __init__(self, tarball: Path, workdir: str) -> None:
        self.tarball = tarball
        self.workdir = workdir
        self.path = os.path.join(workdir, "base")
        os.makedirs(self.path)
        run(["tar", "--numeric-owner", "-xpf", str(tarball), "-C", self.path], timeout=600)
        self._prepare()
        self.overlay = _can_overlay(workdir)
        self._count = 0
        self._layers: Dict[str, str] = {}

    def _prepare(self) -> None:
        # no Debian mirror inside the root: tests add the sources they need (offline, fast)
        for name in ("etc/apt/sources.list", "etc/apt/apt.conf.d/99mmdebstrap"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(self.path, name))
        # a policy-rc.d so no package script tries to start a service inside the test root
        p = os.path.join(self.path, "usr/sbin/policy-rc.d")
        with open(p, "w") as fh:
            fh.write("#!/bin/sh\nexit 101\n")
        os.chmod(p, 0o755)

    def new_root(self, enter: Optional[str] = None, layers: Sequence[str] = ()) -> "DebRoot":
        """A fresh root; ``layers`` (directories made by :meth:`layer`, topmost first) lie between
        the image and the root's own changes (overlay only)."""
        if layers and not self.overlay:
            raise RuntimeError("layers need overlayfs")
        self._count += 1
        slot = os.path.join(self.workdir, f"root{self._count}")
        os.makedirs(slot)
        merged = os.path.join(slot, "merged")
        os.mkdir(merged)
        if self.overlay:
            upper, work = os.path.join(slot, "upper"), os.path.join(slot, "work")
            os.mkdir(upper)
            os.mkdir(work)
            lower = ":".join([*layers, self.path])
            run(["mount", "-t", "overlay", "overlay", "-o",
                 f"lowerdir={lower},upperdir={upper},workdir={work}", merged])
            return DebRoot(merged, enter=enter, mounted=True, slot=slot)
        run(["tar", "--numeric-owner", "-xpf", str(self.tarball), "-C", merged], timeout=600)
        root = DebRoot(merged, enter=enter, mounted=False, slot=slot)
        for name in ("etc/apt/sources.list", "etc/apt/apt.conf.d/99mmdebstrap"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(merged, name))
        shutil.copy2(os.path.join(self.path, "usr/sbin/policy-rc.d"), os.path.join(merged, "usr/sbin/policy-rc.d"))
        return root

    def layer(self, name: str, build, lowers: Sequence[str] = ()) -> Optional[str]:
        """A directory of changes made once per session by ``build(root)`` in a fresh root (say,
        packages installed), for :meth:`new_root`'s ``layers``: every root made on it starts with
        those changes instead of making them again.  ``None`` where overlayfs is not available.
        With ``lowers`` (layers, topmost first) the fresh root is made on them, and the layer is
        only valid above them: ``layers=[layer, *lowers]``."""
        if not self.overlay:
            return None
        name = "+".join([name, *(os.path.basename(p) for p in lowers)])
        if name in self._layers:
            return self._layers[name]
        root = self.new_root(layers=lowers)
        try:
            build(root)
            root.stop_processes()
            if subprocess.run(["umount", root.path], stderr=subprocess.DEVNULL).returncode != 0:
                raise RuntimeError(f"cannot unmount the root that builds layer {name}")
            root._mounted = False
            dest = os.path.join(self.workdir, f"layer-{name}")
            os.replace(os.path.join(root._slot, "upper"), dest)
        finally:
            root.close()
        self._layers[name] = dest
        return dest

    def root_from(self, name: str, build, lowers: Sequence[str] = ()) -> "DebRoot":
        """A fresh root that starts as ``build(root)`` leaves a fresh root: ``build`` runs once per
        session into a layer (:meth:`layer`, keyed by ``name``) and every root asked for by that name
        is its own copy-on-write overlay on it (what one test changes, no other sees); where
        overlayfs is not available, ``build`` runs in each root.  ``build`` must depend only on what
        stays the same for the session (the image, cached .debs, session-scoped servers), never on
        the asking test.  ``lowers``: as for :meth:`layer` (none where overlayfs is not available)."""
        layer = self.layer(name, build, lowers)
        if layer is not None:
            return self.new_root(layers=[layer, *lowers])
        root = self.new_root()
        try:
            build(root)
        except BaseException:
            root.close()
            raise
        return root

    def close(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        for path in self._layers.values():
            shutil.rmtree(path, ignore_errors=True)


Argv = Union[str, Sequence[str]]


class DebRoot:
    """One fresh root.  Paths given to its methods are paths *inside* the root."""

    def __init__(self, path: str, enter: Optional[str] = None, mounted: bool = False, slot: Optional[str] = None) -> None:
        self.path = path
        self.enter = enter or os.environ.get("ROCM_WIZARD_TEST_ENTER", "chroot")
        if self.enter == "bwrap" and shutil.which("bwrap") is None:
            raise RuntimeError("ROCM_WIZARD_TEST_ENTER=bwrap but bwrap is not installed")
        self._mounted = mounted
        self._slot = slot
        self.binds: List[Tuple[str, str, bool]] = []  # (host path, inside path, read-only)
        self._procs: List[subprocess.Popen] = []

    # --- files -------------------------------------------------------------------------------
    def host_path(self, inside: str) -> str:
        """Host path of ``inside``; links in its parent directories are followed inside the root
        (so ``/opt/rocm/.info/version`` works when /opt/rocm is an absolute link), the last
        component is not."""
        parent, name = os.path.split("/" + inside.lstrip("/"))
        if parent not in ("", "/"):
            parent = self.resolve(parent)
        return os.path.join(self.path, parent.lstrip("/"), name)

    def write(self, inside: str, content: Union[str, bytes], mode: int = 0o644) -> str:
        dest = self.host_path(inside)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if os.path.islink(dest):
            os.unlink(dest)
        with open(dest, "wb" if isinstance(content, bytes) else "w") as fh:
            fh.write(content)
        os.chmod(dest, mode)
        return dest

    def read(self, inside: str) -> str:
        with open(self.host_path(self.resolve(inside)), encoding="utf-8", errors="replace") as fh:
            return fh.read()

    def exists(self, inside: str) -> bool:
        return os.path.lexists(self.host_path(inside))

    def resolve(self, inside: str) -> str:
        """Follow symbolic links the way a process inside the root would; returns an inside path."""
        parts = [p for p in inside.split("/") if p]
        done: List[str] = []
        hops = 0
        while parts:
            part = parts.pop(0)
            if part == ".":
                continue
            if part == "..":
                if done:
                    done.pop()
                continue
            candidate = "/" + "/".join(done + [part])
            host = os.path.join(self.path, candidate.lstrip("/"))
            if os.path.islink(host):
                hops += 1
                if hops > 40:
                    raise OSError(f"too many links under {inside}")
                target = os.readlink(host)
                if target.startswith("/"):
                    done = []
                parts = [p for p in target.split("/") if p] + parts
                continue
            done.append(part)
        return "/" + "/".join(done)

    def remove(self, inside: str) -> None:
        p = self.host_path(inside)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p)
        elif os.path.lexists(p):
            os.unlink(p)

    def bind(self, host: str, inside: str, read_only: bool = True) -> None:
        """Make host directory ``host`` appear at ``inside`` for every later command."""
        os.makedirs(self.host_path(inside), exist_ok=True)
        self.binds.append((os.path.abspath(host), inside, read_only))

    def snapshot(self, paths: Sequence[str]) -> Dict[str, Optional[str]]:
        """Content of files / listing of directories (sorted, with contents), for before/after checks."""
        out: Dict[str, Optional[str]] = {}
        for inside in paths:
            p = self.host_path(inside)
            if os.path.isdir(p):
                for dirpath, _dirs, files in os.walk(p):
                    for name in sorted(files):
                        full = os.path.join(dirpath, name)
                        rel = "/" + os.path.relpath(full, self.path)
                        out[rel] = _read_or_link(full)
                out[inside + "/"] = "<dir>"
            else:
                out[inside] = _read_or_link(p) if os.path.lexists(p) else None
        return out

    # --- identity ----------------------------------------------------------------------------
    def make_ubuntu(self, codename: str = "jammy", version_id: str = "22.04", point: str = ".5") -> None:
        pretty = f"Ubuntu {version_id}{point} LTS"
        osrel = (f'PRETTY_NAME="{pretty}"\nNAME="Ubuntu"\nVERSION_ID="{version_id}"\n'
                 f'VERSION="{version_id}{point} LTS ({codename.capitalize()} stand-in)"\n'
                 f"VERSION_CODENAME={codename}\nID=ubuntu\nID_LIKE=debian\n"
                 f"UBUNTU_CODENAME={codename}\n")
        self.write("/usr/lib/os-release", osrel)
        self.write("/etc/os-release", osrel)
        self.write("/etc/lsb-release", f"DISTRIB_ID=Ubuntu\nDISTRIB_RELEASE={version_id}\n"
                                       f"DISTRIB_CODENAME={codename}\nDISTRIB_DESCRIPTION=\"{pretty}\"\n")

    def add_user(self, name: str = "alice", uid: int = 1000) -> None:
        self.run(["useradd", "--create-home", "--uid", str(uid), "--shell", "/bin/bash", name], check=True)

    # --- commands ----------------------------------------------------------------------------
    def _wrap(self, argv: Argv, env: Dict[str, str], user: Optional[str], cwd: str) -> List[str]:
        if isinstance(argv, str):
            argv = ["/bin/sh", "-c", argv]
        envargs = ["/usr/bin/env", "-i", *[f"{k}={v}" for k, v in env.items()]]
        if self.enter == "bwrap":
            cmd = ["bwrap", "--bind", self.path, "/", "--proc", "/proc", "--dev", "/dev", "--chdir", cwd]
            for host, inside, ro in self.binds:
                cmd += ["--ro-bind" if ro else "--bind", host, inside]
            drop: List[str] = []
            if user:  # bwrap's own --uid needs a user namespace; setpriv (util-linux) does it inside
                uid, gid = self._ids(user)
                drop = ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--init-groups", "--"]
            return cmd + ["--", *drop, *envargs, *argv]
        script = ["set -e", f"mount -t proc proc {shlex.quote(self.host_path('/proc'))}"]
        for host, inside, ro in self.binds:
            dest = shlex.quote(self.host_path(inside))
            script.append(f"mount --bind {shlex.quote(host)} {dest}")
            if ro:
                script.append(f"mount -o remount,bind,ro {dest}")
        spec = ""
        if user:
            uid, gid = self._ids(user)
            spec = f"--userspec={uid}:{gid} "
        inner = " ".join(shlex.quote(a) for a in [*envargs, "/bin/sh", "-c", 'cd "$0" && exec "$@"', cwd, *argv])
        script.append(f"exec chroot {spec}{shlex.quote(self.path)} {inner}")
        return ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", "\n".join(script)]

    def _ids(self, user: str) -> Tuple[int, int]:
        with open(self.host_path("/etc/passwd")) as fh:
            for line in fh:
                parts = line.split(":")
                if parts[0] == user:
                    return int(parts[2]), int(parts[3])
        raise KeyError(f"no user {user!r} in the test root")

    def env(self, extra: Optional[Dict[str, str]] = None, user: Optional[str] = None) -> Dict[str, str]:
        env = clean_env()
        if user:
            env["HOME"] = f"/home/{user}"
            env["USER"] = env["LOGNAME"] = user
        if extra:
            env.update(extra)
        return env

    def run(self, argv: Argv, *, check: bool = False, env: Optional[Dict[str, str]] = None,
            user: Optional[str] = None, cwd: str = "/", input: Optional[str] = None,
            timeout: float = 300) -> subprocess.CompletedProcess:
        """Run a command inside the root; ``env`` adds to a clean environment."""
        wrapped = self._wrap(argv, self.env(env, user), user, cwd)
        proc = subprocess.run(wrapped, input=input, text=True, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=timeout)
        if check and proc.returncode != 0:
            raise CommandFailed(argv if not isinstance(argv, str) else [argv], proc)
        return proc

    def popen(self, argv: Argv, *, env: Optional[Dict[str, str]] = None, user: Optional[str] = None,
              cwd: str = "/", **kwargs) -> subprocess.Popen:
        """Start a command inside the root in its own process group (so a test can SIGKILL the lot)."""
        wrapped = self._wrap(argv, self.env(env, user), user, cwd)
        kwargs.setdefault("stdout", subprocess.PIPE)
        kwargs.setdefault("stderr", subprocess.PIPE)
        kwargs.setdefault("text", True)
        proc = subprocess.Popen(wrapped, start_new_session=True, **kwargs)
        self._procs.append(proc)
        return proc

    @staticmethod
    def kill_group(proc: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)

    # --- apt conveniences --------------------------------------------------------------------
    def apt(self, *args: str, check: bool = False, timeout: float = 300) -> subprocess.CompletedProcess:
        return self.run(["apt-get", "-q", "-y", *args], check=check, timeout=timeout)

    def installed_version(self, package: str) -> Optional[str]:
        res = self.run(["dpkg-query", "-W", "-f=${db:Status-Abbrev}\t${Version}", package])
        if res.returncode != 0:
            return None
        status, _, version = res.stdout.partition("\t")
        return version if status.startswith("ii") else None

    def candidate(self, package: str) -> Optional[str]:
        res = self.run(["apt-cache", "policy", package])
        for line in res.stdout.splitlines():
            if line.strip().startswith("Candidate:"):
                value = line.split(":", 1)[1].strip()
                return None if value == "(none)" else value
        return None

    def dpkg_audit(self) -> str:
        return self.run(["dpkg", "--audit"]).stdout

    def main_pid(self, proc: subprocess.Popen, timeout: float = 10.0) -> int:
        """The PID of the command itself, inside the root: the Popen's own PID with chroot (the
        wrapper execs into it); with bwrap, bwrap's first descendant that lives in the root."""
        if self.enter != "bwrap":
            return proc.pid
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            inside = set(self._pids_inside())
            parents = {}
            for pid in inside:
                try:
                    with open(f"/proc/{pid}/stat") as fh:
                        stat = fh.read()
                    parents[pid] = int(stat[stat.rfind(")") + 2:].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
            for pid, ppid in parents.items():
                if ppid not in inside and self._descends(ppid, proc.pid):
                    return pid
            time.sleep(0.05)
        raise RuntimeError("the command did not start inside the root")

    @staticmethod
    def _descends(pid: int, ancestor: int) -> bool:
        for _ in range(10):
            if pid == ancestor:
                return True
            try:
                with open(f"/proc/{pid}/stat") as fh:
                    stat = fh.read()
                pid = int(stat[stat.rfind(")") + 2:].split()[1])
            except (OSError, ValueError, IndexError):
                return False
            if pid <= 1:
                return False
        return False

    def signal(self, proc: subprocess.Popen, sig: int) -> None:
        """Send ``sig`` to the command itself (not to a wrapper around it)."""
        os.kill(self.main_pid(proc), sig)

    def kill_all(self) -> int:
        """SIGKILL every process running inside the root at once (a power cut, as far as the
        root's processes can tell); returns how many were killed."""
        killed = 0
        for _ in range(20):
            pids = self._pids_inside()
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
                    killed += 1
            time.sleep(0.05)
        for proc in self._procs:
            with contextlib.suppress(Exception):
                proc.wait(timeout=5)
        return killed

    # --- teardown ----------------------------------------------------------------------------
    def _pids_inside(self) -> List[int]:
        """Processes whose root directory is this root (chroot or bwrap alike: the kernel resolves
        /proc/PID/root to the directory itself, so device and inode identify it)."""
        try:
            me = os.stat(self.path)
        except OSError:
            return []
        want = (me.st_dev, me.st_ino)
        pids = []
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) == os.getpid():
                continue
            try:
                st = os.stat(f"/proc/{name}/root")
            except OSError:
                continue
            if (st.st_dev, st.st_ino) == want:
                pids.append(int(name))
        return pids

    def stop_processes(self) -> None:
        """SIGKILL anything still running inside (started by the tests' commands)."""
        for _ in range(20):
            pids = self._pids_inside()
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.1)

    def close(self) -> None:
        for proc in self._procs:
            if proc.poll() is None:
                self.kill_group(proc)
            with contextlib.suppress(Exception):
                proc.wait(timeout=10)
            for stream in (proc.stdout, proc.stderr, proc.stdin):
                if stream:
                    with contextlib.suppress(Exception):
                        stream.close()
        self.stop_processes()
        if self._mounted:
            if subprocess.run(["umount", self.path], stderr=subprocess.DEVNULL).returncode != 0:
                subprocess.run(["umount", "-l", self.path], stderr=subprocess.DEVNULL)
        if self._slot:
            shutil.rmtree(self._slot, ignore_errors=True)


def _read_or_link(path: str) -> Optional[str]:
    if os.path.islink(path):
        return "-> " + os.readlink(path)
    try:
        with open(path, "rb") as fh:
            return fh.read().decode("utf-8", "replace")
    except OSError as exc:
        return f"<unreadable: {exc.strerror}>"
