"""Run the standalone smoke script with the interpreter under test and read its report.

The script (``smoke.py`` beside this file) runs as a file with the target interpreter: a venv's
python, any python, or ``python3`` inside a Docker image started with the GPU device flags.
Nothing of rocm_wizard is imported on the other side.
"""
from __future__ import annotations

import collections
import os
import shutil
import subprocess
import sys
import threading
import time
from typing import Callable, Deque, Dict, Iterable, List, Optional, Sequence, Tuple

from .. import limits, termsafe
from .report import Report, Target, from_smoke

SMOKE_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "smoke.py")
REAPER_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reaper.py")
DEFAULT_TIMEOUT = 60.0
CONTAINER_SCRIPT = "/tmp/rocm-wizard-smoke.py"

# variables that change ROCm / PyTorch behaviour: forwarded into a container when set here
FORWARD_ENV_PREFIXES = ("HSA_OVERRIDE_GFX_VERSION",)
FORWARD_ENV_NAMES = ("TORCH_BLAS_PREFER_HIPBLASLT", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                     "CUDA_VISIBLE_DEVICES", "HSA_ENABLE_SDMA", "AMD_LOG_LEVEL", "ROC_ENABLE_PRE_VEGA")


class TargetError(Exception):
    """The target cannot be run at all (no such interpreter, no docker)."""


def _is_exe(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def venv_python(venv: str) -> str:
    """The interpreter of a virtual environment (or conda env) directory."""
    root = os.path.abspath(os.path.expanduser(venv))
    if not os.path.isdir(root):
        raise TargetError(f"no such directory: {venv}")
    for rel in ("bin/python", "bin/python3", "Scripts/python.exe"):
        cand = os.path.join(root, rel)
        if _is_exe(cand):
            return cand
    raise TargetError(f"{venv} is not a Python environment: no bin/python or bin/python3 in it")


def resolve_python(python: str) -> str:
    """An interpreter given as a path or as a name on PATH."""
    expanded = os.path.expanduser(python)
    if os.sep in expanded:
        if os.path.isdir(expanded):
            raise TargetError(f"{python} is a directory (use --venv for an environment)")
        if not os.path.exists(expanded):
            raise TargetError(f"no such interpreter: {python}")
        if not _is_exe(expanded):
            raise TargetError(f"{python} is not executable")
        return os.path.abspath(expanded)
    found = shutil.which(expanded)
    if not found:
        raise TargetError(f"no interpreter named {python!r} on PATH")
    return found


def default_python() -> str:
    """The active virtual environment's interpreter, else ``python3`` on PATH."""
    venv = os.environ.get("VIRTUAL_ENV")
    if venv:
        try:
            return venv_python(venv)
        except TargetError:
            pass
    found = shutil.which("python3") or shutil.which("python")
    if not found:
        raise TargetError("no python3 on PATH; name one with --python or --venv")
    return found


def docker_device_args(root: str = "/") -> List[str]:
    """Device flags that give a container the host's AMD GPUs (only for nodes that exist here):
    the ones AMD documents for rocm/pytorch, plus the numeric groups owning the nodes (the image's
    group names and numbers differ from the host's)."""
    args: List[str] = []
    kfd = os.path.join(root, "dev/kfd")
    dri = os.path.join(root, "dev/dri")
    gids = set()
    if os.path.exists(kfd):
        args.append("--device=/dev/kfd")
        try:
            gids.add(os.stat(kfd).st_gid)
        except OSError:
            pass
    if os.path.isdir(dri):
        args.append("--device=/dev/dri")
        try:
            for name in os.listdir(dri):
                if name.startswith("renderD"):
                    gids.add(os.stat(os.path.join(dri, name)).st_gid)
        except OSError:
            pass
    dxg = os.path.join(root, "dev/dxg")
    if not os.path.exists(kfd) and os.path.exists(dxg):  # WSL 2: AMD's WSL container flags (librocdxg README)
        args.append("--device=/dev/dxg")
        for host, inside in (("usr/lib/wsl/lib/libdxcore.so", "/usr/lib/libdxcore.so"),
                             ("opt/rocm/lib/librocdxg.so", "/usr/lib/librocdxg.so")):
            if os.path.exists(os.path.join(root, host)):
                args += ["-v", "/%s:%s:ro" % (host, inside)]
        args += ["-e", "HSA_ENABLE_DXG_DETECTION=1"]
    args += ["--group-add", "video"]
    for gid in sorted(g for g in gids if g != 0):
        args += ["--group-add", str(gid)]
    args += ["--ipc=host", "--security-opt", "seccomp=unconfined"]
    return args


def forwarded_env(environ: Optional[Dict[str, str]] = None) -> List[str]:
    env = os.environ if environ is None else environ
    names = sorted(n for n in env if n in FORWARD_ENV_NAMES or n.startswith(FORWARD_ENV_PREFIXES))
    out: List[str] = []
    for n in names:
        out += ["-e", n]
    return out


def docker_command(image: str, script_args: Sequence[str], *, docker: str = "docker",
                   python: str = "python3", script: str = SMOKE_PATH) -> List[str]:
    return ([docker, "run", "--rm", "-i"] + docker_device_args() + forwarded_env()
            + ["-v", f"{script}:{CONTAINER_SCRIPT}:ro", "--entrypoint", python, image, CONTAINER_SCRIPT]
            + list(script_args))


def build_command(python: Optional[str] = None, venv: Optional[str] = None, docker_image: Optional[str] = None,
                  script_args: Sequence[str] = ()) -> tuple:
    """(Target, argv) for one of the three kinds of target; raises TargetError."""
    given = [x for x in (python, venv, docker_image) if x]
    if len(given) > 1:
        raise TargetError("name only one of python, venv and docker_image")
    if docker_image:
        if not docker_image.strip() or docker_image.startswith("-"):
            raise TargetError(f"not a Docker image name: {docker_image!r}")
        exe = shutil.which("docker")
        if not exe:
            raise TargetError("docker is not installed (or not on PATH)")
        argv = docker_command(docker_image, script_args, docker=exe)
        return Target(kind="docker", image=docker_image, command=argv), argv
    if venv:
        exe = venv_python(venv)
        target = Target(kind="venv", venv=os.path.abspath(os.path.expanduser(venv)), python=exe)
    else:
        exe = resolve_python(python) if python else default_python()
        target = Target(kind="python", python=exe)
    argv = [exe, SMOKE_PATH] + list(script_args)
    target.command = argv
    return target, argv


def _parse_json(text: str):
    """The report: the whole text, else the last few ``{`` that start a line (the script prints
    its document last; something may come before it, such as a container's banner).  A bounded
    number of tries, each linear: junk full of braces costs no more than one parse per try."""
    text = text.strip()
    if not text:
        return None
    starts = [0]
    pos = len(text)
    while len(starts) < 16:
        i = text.rfind("\n{", 0, pos)
        if i < 0:
            break
        starts.append(i + 1)
        pos = i
    first = text.find("{")
    if first > 0:
        starts.append(first)
    for start in starts:
        try:
            return limits.loads_json(text[start:], "the smoke test's report")
        except (ValueError, limits.LimitError):
            continue
    return None


def run_verify(python: Optional[str] = None, venv: Optional[str] = None, docker_image: Optional[str] = None,
               timeout: float = DEFAULT_TIMEOUT, *, only: Iterable[str] = (),
               on_progress: Optional[Callable[[str], None]] = None, annotate: bool = True,
               env: Optional[Dict[str, str]] = None, deadline: Optional[float] = None) -> Report:
    """Run the smoke test against a venv, an interpreter or a Docker image and return its Report.

    ``timeout`` is per check (the script allows 3x for import and torch.compile); ``deadline`` is
    the whole run's wall-clock bound (default :func:`default_deadline`), however much progress the
    script reports.  A target that
    cannot run at all gives a report with ``error`` set (exit code 1); failed checks give exit
    code 2 with ``diagnoses`` naming the failing layer.  Never raises for a bad target.
    """
    if not (isinstance(timeout, (int, float)) and timeout > 0):
        return Report(error=f"the timeout must be a positive number of seconds, not {timeout!r}")
    if deadline is not None and not (isinstance(deadline, (int, float)) and 0 < deadline < float("inf")):
        return Report(error=f"the deadline must be a positive number of seconds, not {deadline!r}")
    args = ["--json", "--progress", "--timeout", f"{float(timeout):g}"]
    only = [c for c in only if c]
    if only:
        args += ["--only", ",".join(only)]
    try:
        target, argv = build_command(python, venv, docker_image, args)
    except TargetError as exc:
        return Report(target=Target(kind="docker" if docker_image else "venv" if venv else "python",
                                    python=python, venv=venv, image=docker_image), error=str(exc))
    try:
        user, held = judged(target)
    except TargetError as exc:
        return Report(target=target, error=str(exc))
    if deadline is None:
        deadline = default_deadline(timeout, target)
    if user:
        report = _run_as_user(user, target, argv, timeout, on_progress, env, deadline)
    elif held is not None:  # root runs it: through the venv the rule judged, whatever is at its path now
        fd, rel, venv_dir = held
        try:
            prefix = held_prefix(fd)
            report = _run(target, [prefix + "/" + rel] + argv[1:], timeout, on_progress, env, deadline,
                          names=(prefix, venv_dir))
        finally:
            os.close(fd)
    else:
        report = _run(target, argv, timeout, on_progress, env, deadline)
    if report.error is None:
        if annotate:
            from .peaks import annotate as _annotate
            try:
                _annotate(report)
            except (OSError, ValueError, KeyError) as exc:  # a broken data file: figures stay bare
                report.stderr_tail += f"\n(peak figures unavailable: {exc})"
        from .layers import diagnose
        report.diagnoses = diagnose(report)
    return report


def run_as(target: Target) -> Optional[str]:
    """The account a root process runs the target's interpreter as: its owner (the rules of
    :mod:`rocm_wizard.runas`), so that root never runs a venv's code and the test sees the GPU
    access of the user who works there.  None: run it as this process (not root, a Docker image,
    or root's own interpreter).  Raises TargetError for one a root run must not run."""
    user, held = judged(target)
    if held is not None:
        os.close(held[0])
    return user


def judged(target: Target) -> Tuple[Optional[str], Optional[Tuple[int, str, str]]]:
    """:func:`run_as`, and when root runs a venv's interpreter, the venv the rule judged, held
    (issue 27, finding 2: run what was checked): (fd of the venv directory, the interpreter's path
    inside it, the venv's path).  The caller starts the interpreter through :func:`held_prefix`
    and closes the fd."""
    if target.kind == "docker" or not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None, None
    from ..runas import OwnerError, hold_interpreter, hold_venv, system_name_of

    try:
        if target.kind == "venv" and target.venv:
            user, fd = hold_venv(target.venv, system_name_of)
            rel = os.path.relpath(target.python, target.venv) if target.python else "bin/python"
            venv_dir = target.venv
        else:
            python = target.python or ""
            user, fd, rel = hold_interpreter(python, system_name_of)
            venv_dir = os.path.abspath(python)[:-len(rel) - 1] if fd is not None and rel else ""
    except OwnerError as exc:
        raise TargetError(str(exc)) from None
    if user == "root":
        if fd is not None and (rel.startswith("..") or os.path.isabs(rel)):  # not inside it: by path
            os.close(fd)
            fd = None
        return None, (fd, rel, venv_dir) if fd is not None else None
    if fd is not None:
        os.close(fd)
    return user, None


def held_prefix(fd: int) -> str:
    """How this process's held directory ``fd`` is named to the processes it starts (root's):
    ``/proc/<this pid>/fd/<fd>``, which the interpreter's own children resolve too."""
    from ..runas import held_path

    return held_path(fd)


def _unheld(value, prefix: str, real: str):
    """``value`` (the smoke test's report) with the held prefix named by the venv's path again."""
    if isinstance(value, str):
        return real + value[len(prefix):] if value.startswith(prefix) else value.replace(prefix, real)
    if isinstance(value, list):
        return [_unheld(v, prefix, real) for v in value]
    if isinstance(value, dict):
        return {k: _unheld(v, prefix, real) for k, v in value.items()}
    return value


def default_deadline(timeout: float, target: Optional[Target] = None) -> float:
    """The whole run's bound when none is given: :data:`~rocm_wizard.limits.VERIFY_DEADLINE_FACTOR`
    times the per-check timeout (30 minutes at the default 60 s), plus the time a Docker image may
    take to be pulled."""
    extra = limits.VERIFY_DOCKER_START_S if target is not None and target.kind == "docker" else 0.0
    return float(timeout) * limits.VERIFY_DEADLINE_FACTOR + extra


def _run_as_user(user: str, target: Target, argv: List[str], timeout: float, on_progress, env,
                 deadline: float) -> Report:
    """The smoke script from a root-owned copy the user can read (rocm_wizard may be installed
    where only root can read), run as ``user``."""
    import tempfile

    from ..runas import as_user, owner_env

    env = owner_env(os.environ if env is None else env)  # root's secrets stay root's
    with tempfile.TemporaryDirectory(prefix="rocm-wizard-smoke.") as tmp:
        os.chmod(tmp, 0o755)
        script = os.path.join(tmp, "smoke.py")
        shutil.copyfile(SMOKE_PATH, script)
        os.chmod(script, 0o644)
        argv = as_user([script if a == SMOKE_PATH else a for a in argv], user)
        return _run(target, argv, timeout, on_progress, env, deadline)


def analyse(doc, target: Optional[Target] = None) -> Report:
    """Report from an already parsed smoke document (a recorded run, a file): peaks + diagnoses."""
    from .layers import diagnose
    from .peaks import annotate as _annotate

    report = from_smoke(doc, target)
    if report.error is None:
        _annotate(report)
        report.diagnoses = diagnose(report)
    return report


def kept(argv: List[str]) -> List[str]:
    """``argv`` under the keeper (:mod:`rocm_wizard.verify.reaper`), run by this process's own
    interpreter with no site directories: it kills every process the smoke test leaves, those that
    left its session included."""
    if not sys.executable or not sys.platform.startswith("linux"):
        return list(argv)
    return [sys.executable, "-I", "-S", REAPER_PATH] + list(argv)


def _run(target: Target, argv: List[str], timeout: float, on_progress, env,
         deadline: Optional[float] = None, names: Optional[Tuple[str, str]] = None) -> Report:
    if deadline is None:
        deadline = default_deadline(timeout, target)
    try:
        proc = subprocess.Popen(kept(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env, start_new_session=True)
    except OSError as exc:
        return Report(target=target, error=f"cannot start {argv[0]}: {exc.strerror or exc}")
    t0 = time.monotonic()
    capture = _Capture(proc, on_progress)
    try:
        hung = capture.wait(_start_limit(target, timeout), _silence_limit(timeout), t0 + deadline, deadline)
    except KeyboardInterrupt:
        _kill_session(proc)
        raise
    _kill_session(proc)  # what it started must not outlive it
    capture.join()
    tail = capture.stderr_tail()
    if hung:
        return Report(target=target, error=hung, stderr_tail=tail)
    stdout, cut = capture.stdout()
    doc = _parse_json(stdout)
    if names is not None:  # started through a held directory: name the venv as the user gave it
        doc = _unheld(doc, *names)
        tail = tail.replace(names[0], names[1])
    if doc is None:
        hint = f"exit status {proc.returncode}"
        if proc.returncode == 127 or "not found" in tail:
            hint += ", interpreter not found"
        if cut:
            hint += f"; {cut} bytes of its output were cut"
        head = capture.stdout_head()
        if head:
            tail = (tail + "\n" if tail else "") + "stdout began with:\n" + head
        return Report(target=target, error=f"the smoke test produced no report ({hint})", stderr_tail=tail)
    report = from_smoke(doc, target)
    report.stderr_tail = tail
    if cut:
        report.stderr_tail = (tail + "\n" if tail else "") + (
            f"(the smoke test printed {cut} bytes more than the {limits.mib(limits.VERIFY_STDOUT_BYTES)} "
            "kept on stdout; the middle was cut)")
    if report.duration_s is None:
        report.duration_s = time.monotonic() - t0
    return report


def _start_limit(target: Target, timeout: float) -> float:
    """Seconds the interpreter gets to start the script (it says ``smoke: start``): a pull of a
    Docker image may take long; a Python interpreter that needs more than a check's time hangs."""
    return limits.VERIFY_DOCKER_START_S if target.kind == "docker" else float(timeout) + limits.VERIFY_START_S


def _silence_limit(timeout: float) -> float:
    """The longest the script stays silent between two progress lines: a fresh worker's import
    (3x) and one check (1x), plus the time it takes to kill a hung worker."""
    from .smoke import TIMEOUT_FACTOR

    return float(timeout) * (max(TIMEOUT_FACTOR.values()) + 1) + limits.VERIFY_GRACE_S


class _Capture:
    """The smoke test's stdout and stderr, read by two threads within fixed bounds: stdout keeps
    its head and tail (:data:`~rocm_wizard.limits.VERIFY_STDOUT_BYTES`), stderr its last lines,
    each cut to :data:`~rocm_wizard.limits.VERIFY_LINE_CHARS`, all without terminal sequences.
    ``smoke: `` lines are progress: handed to ``on_progress`` and timed by :meth:`wait`."""

    def __init__(self, proc: subprocess.Popen, on_progress) -> None:
        self.proc = proc
        self.on_progress = on_progress
        half = limits.VERIFY_STDOUT_BYTES // 2
        self.head = bytearray()
        self.tail: Deque[bytes] = collections.deque()
        self.tail_len = 0
        self.half = half
        self.cut = 0
        self.err: Deque[str] = collections.deque(maxlen=limits.VERIFY_STDERR_LINES)
        self.started = False
        self.progress_lines = 0
        self.last_progress = time.monotonic()
        self.threads = [threading.Thread(target=self._read_out, daemon=True),
                        threading.Thread(target=self._read_err, daemon=True)]
        for t in self.threads:
            t.start()

    def _read_out(self) -> None:
        for chunk in iter(lambda: self.proc.stdout.read1(65536), b""):
            room = self.half - len(self.head)
            if room > 0:
                self.head += chunk[:room]
                chunk = chunk[room:]
            if chunk:
                self.tail.append(chunk)
                self.tail_len += len(chunk)
                while self.tail_len - len(self.tail[0]) >= self.half:
                    dropped = self.tail.popleft()
                    self.tail_len -= len(dropped)
                    self.cut += len(dropped)

    def _read_err(self) -> None:
        line = bytearray()
        dropped = 0
        for chunk in iter(lambda: self.proc.stderr.read1(65536), b""):
            while chunk:
                nl = chunk.find(b"\n")
                part = chunk if nl < 0 else chunk[:nl]
                room = limits.VERIFY_LINE_CHARS - len(line)
                line += part[:max(room, 0)]
                dropped += max(len(part) - max(room, 0), 0)
                if nl < 0:
                    break
                self._line(bytes(line), dropped)
                line, dropped = bytearray(), 0
                chunk = chunk[nl + 1:]
        if line or dropped:
            self._line(bytes(line), dropped)

    def _line(self, raw: bytes, dropped: int) -> None:
        text = termsafe.clean_line(raw.decode("utf-8", "replace")).rstrip()
        if dropped:
            text += f" [... {dropped} bytes cut]"
        if text.startswith("smoke: ") and self.progress_lines < limits.VERIFY_PROGRESS_LINES:
            self.progress_lines += 1
            self.last_progress = time.monotonic()
            what = text[len("smoke: "):]
            if what == "start":
                self.started = True
            elif self.on_progress is not None:
                try:
                    self.on_progress(what)
                except Exception:  # a UI callback must not break the run
                    pass
        else:
            self.err.append(text)

    def wait(self, start_limit: float, silence_limit: float, end: float = float("inf"),
             deadline: float = 0.0) -> Optional[str]:
        """Wait for the process; None when it ended, else why it was stopped (it hung, or it ran
        past ``end``, the monotonic time of its overall ``deadline``)."""
        while True:
            limit = silence_limit if self.started else start_limit
            now = time.monotonic()
            left = min(self.last_progress + limit, end) - now
            if now >= end:
                return (f"the smoke test ran past its overall deadline of {deadline:.0f}s and was stopped "
                        "(--deadline; progress does not extend it)")
            if left <= 0:
                if self.started:
                    return f"the smoke test stopped answering: no progress for {limit:.0f}s (a hung GPU or library)"
                return f"the interpreter did not start the smoke test within {limit:.0f}s (it hangs)"
            try:
                self.proc.wait(timeout=min(left, 1.0))
                return None
            except subprocess.TimeoutExpired:
                pass

    def join(self) -> None:
        for t in self.threads:
            t.join(timeout=5)

    def stdout(self) -> Tuple[str, int]:
        """The whole output, or its tail when the middle was cut (the report is printed last:
        the tail holds it, if anything does), and how many bytes were cut."""
        data = b"".join(self.tail) if self.cut else bytes(self.head) + b"".join(self.tail)
        return data.decode("utf-8", "replace"), self.cut

    def stdout_head(self, lines: int = 5) -> str:
        """The first lines of stdout, for a report that could not be read."""
        text = bytes(self.head[:lines * limits.VERIFY_LINE_CHARS]).decode("utf-8", "replace")
        return "\n".join(termsafe.clean_line(l)[:limits.VERIFY_LINE_CHARS] for l in text.splitlines()[:lines])

    def stderr_tail(self) -> str:
        return "\n".join(list(self.err)[-30:])


def _kill_session(proc: subprocess.Popen) -> None:
    """Kill the smoke test and everything it started: first its keeper is asked (SIGTERM) to kill
    every descendant, those that left the session included; then, in case the keeper could not,
    everything in the session (it was started as a session leader: workers, compile helpers, a
    process that left the process group), then reap it."""
    if proc.poll() is None:
        try:
            proc.terminate()
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass
    sid = proc.pid
    for _ in range(5):
        pids = _session_members(sid)
        try:
            os.killpg(sid, 9)
        except OSError:
            pass
        for pid in pids:
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        if proc.poll() is None:
            try:
                proc.kill()
            except OSError:
                pass
        if not pids:
            break
        time.sleep(0.05)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def _session_members(sid: int) -> List[int]:
    """Processes whose session id is ``sid`` (from /proc; empty where there is none)."""
    out = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # after the name: state ppid pgrp session ...; a zombie is dead already
        if len(fields) > 3 and fields[3] == str(sid).encode() and fields[0] != b"Z":
            out.append(int(name))
    return out


def progress_printer(stream=None) -> Callable[[str], None]:
    out = stream or sys.stderr

    def show(line: str) -> None:
        out.write("  " + termsafe.clean_line(line) + "\n")
        out.flush()
    return show
