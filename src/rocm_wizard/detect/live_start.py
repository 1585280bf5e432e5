"""Starting a live detection's commands at once, before its probes are even imported.

Every live detection of the running system asks the same few tools whatever it finds (the GPU and
ROCm tools, ``dkms status``, the kernel log, Docker's client).  Run when a probe asks, each waits
behind the probes' imports and work, and one probe's tools wait on each other.  Started here,
all together and first, they run while Python imports and reads files; the probes then collect
what they printed (:meth:`rocm_wizard.detect.sources.LiveSource.run`), and a detection's wall time
comes close to the slowest tool alone or its own CPU time, whichever is longer.

This module imports nothing else of the package (``docker_api`` aside), so ``rocm-wizard detect``
starts the commands before it loads the probes and their parsers (the ``detect`` package itself,
with the model, is loaded first: it holds this module).  A command is started only as the probe
would start it (same command line, same environment, same timeout counted from its start); one
that no probe asks for after all is killed with its process group when the detection ends.
Commands a probe runs only on what it found (``apt-cache policy``, ``docker images``, ``id``,
``mokutil``) still start when asked.
"""
from __future__ import annotations

import os
import time

# The command lines of sources.KIND_COMMANDS that a live detection of "/" always runs (tests check
# they are the same): the gpus probe's tools, the rocm probe's ``amd-smi version`` and ``dkms``, and
# the errors probe's kernel log.
ALWAYS = (
    ("amd-smi", "static", "--asic", "--bus", "--vram", "--driver"),
    ("rocminfo",),
    ("rocm-smi", "--showproductname", "--showhw"),
    ("lspci", "-nn", "-D"),
    ("amd-smi", "version"),
    ("dkms", "status"),
    ("dmesg",),
)
# Docker's client version (LiveSource._docker_version) where the CLI would ask the default socket,
# else the ``docker version`` command line the probe runs instead
DOCKER_CLIENT = ("docker", "--version")
DOCKER_VERSION = ("docker", "version", "--format", "{{.Client.Version}} {{.Server.Version}}")


class Started:
    """One command started ahead: its process (None when it could not start: ``error`` says why)."""

    __slots__ = ("argv", "proc", "start", "error", "took")

    def __init__(self, argv, proc, start: float, error=None, took: float = 0.0) -> None:
        self.argv = tuple(argv)
        self.proc = proc
        self.start = start
        self.error = error
        self.took = took  # (a command that could not start: how long trying took)


def command_env(environ) -> dict:
    """The environment a live source runs its commands with (messages in English)."""
    env = dict(environ)
    env["LC_ALL"] = "C"
    return env


def start(argv, env) -> Started:
    """Start ``argv`` now, as :func:`rocm_wizard.detect.sources.run_command` does: a missing tool
    gives ``error='TOOL: not installed'`` and no process."""
    import subprocess  # (here: a snapshot runs no command)

    begin = time.monotonic()
    exe = argv[0]
    if os.sep not in exe and which(exe, (env or os.environ).get("PATH")) is None:
        return Started(argv, None, begin, f"{exe}: not installed")
    try:
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,  # so a timeout can kill the whole process group
        )
    except OSError as exc:
        return Started(argv, None, begin, f"{exe}: {exc.strerror or exc}", time.monotonic() - begin)
    return Started(argv, proc, begin)


def which(cmd: str, path=None):
    """``shutil.which(cmd, path=path)`` on POSIX for a bare command name (the first of ``path``'s
    directories, each once, holding an executable ``cmd`` that is not a directory; ``path`` None:
    ``PATH``, else the system's default), without importing ``shutil`` (with ``bz2``, ``lzma`` and
    ``fnmatch``) for it.  ``tests/detect/test_live_start.py`` holds it to ``shutil.which``."""
    if path is None:
        path = os.environ.get("PATH", None)
        if path is None:
            try:
                path = os.confstr("CS_PATH")
            except (AttributeError, ValueError):
                path = os.defpath
    if not path:
        return None
    seen = set()
    for folder in os.fsdecode(path).split(os.pathsep):
        if folder in seen:
            continue
        seen.add(folder)
        name = os.path.join(folder, cmd)
        if os.path.exists(name) and os.access(name, os.F_OK | os.X_OK) and not os.path.isdir(name):
            return name
    return None


def collect(started: Started, timeout: float, max_bytes: int):
    """(stdout, stderr, exit status, error, seconds) of a started command, given ``timeout``
    seconds from its start (what is left of them now; none left: what it printed so far)."""
    import subprocess

    proc = started.proc
    if proc is None:
        return "", "", None, started.error, started.took
    try:
        out, err = proc.communicate(timeout=max(0.0, started.start + timeout - time.monotonic()))
    except subprocess.TimeoutExpired:
        kill_group(proc)
        try:
            out, err = proc.communicate(timeout=2)
        except subprocess.TimeoutExpired:  # stuck in the kernel (D state): give up on it
            out, err = b"", b""
        return (decode(out[:max_bytes]), decode(err[:max_bytes]), None,
                f"{started.argv[0]}: timed out after {timeout:g}s", time.monotonic() - started.start)
    return decode(out[:max_bytes]), decode(err[:max_bytes]), proc.returncode, None, time.monotonic() - started.start


def decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def kill_group(proc) -> None:
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        try:
            proc.kill()
        except OSError:
            pass


def stop(started: Started) -> None:
    """End a started command nobody collected (its whole process group) and reap it."""
    proc = started.proc
    if proc is None:
        return
    if proc.poll() is None:
        kill_group(proc)
    try:
        proc.communicate(timeout=2)
    except Exception:  # a process stuck in the kernel: leave it
        pass


# -- started by ``rocm-wizard detect`` before it imports detection ----------------------------------------

_early = None  # (the environment they run with, {argv: Started})


def docker_argv(environ) -> tuple:
    """Which of Docker's two command lines a live detection asks for first (docker_api.same_daemon)."""
    from .docker_api import read_small_file, same_daemon

    return DOCKER_CLIENT if same_daemon(environ, read_small_file) else DOCKER_VERSION


def commands_for(environ) -> tuple:
    """The command lines a live detection of "/" with this environment always runs."""
    return ALWAYS + (docker_argv(environ),)


def start_early(environ=None) -> None:
    """Start :func:`commands_for` now, for the live detection this process is about to run (it
    takes them with :func:`take`)."""
    global _early
    if _early is not None:
        return
    environ = dict(os.environ if environ is None else environ)
    env = command_env(environ)
    _early = (env, {argv: start(argv, env) for argv in commands_for(environ)})


def take(env) -> dict:
    """The commands :func:`start_early` started, when they ran with ``env``; else (none started, or
    with another environment: those are ended) an empty dict."""
    global _early
    early, _early = _early, None
    if early is None:
        return {}
    if early[0] != env:
        for s in early[1].values():
            stop(s)
        return {}
    return early[1]
