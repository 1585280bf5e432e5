"""Run the standalone smoke script with the interpreter under test and read its report.

The script (``smoke.py`` beside this file) runs as a file with the target interpreter: a venv's
python, any python, or ``python3`` inside a Docker image started with the GPU device flags.
Nothing of rocm_wizard is imported on the other side.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from typing import Callable, Dict, Iterable, List, Optional, Sequence

from .report import Report, Target, from_smoke

SMOKE_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "smoke.py")
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
    text = text.strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        pass
    start = text.find("{")  # something printed before the document (a container's banner)
    while start != -1:
        try:
            return json.loads(text[start:])
        except ValueError:
            start = text.find("\n{", start + 1)
            start = start + 1 if start != -1 else -1
    return None


def run_verify(python: Optional[str] = None, venv: Optional[str] = None, docker_image: Optional[str] = None,
               timeout: float = DEFAULT_TIMEOUT, *, only: Iterable[str] = (),
               on_progress: Optional[Callable[[str], None]] = None, annotate: bool = True,
               env: Optional[Dict[str, str]] = None) -> Report:
    """Run the smoke test against a venv, an interpreter or a Docker image and return its Report.

    ``timeout`` is per check (the script allows 3x for import and torch.compile).  A target that
    cannot run at all gives a report with ``error`` set (exit code 1); failed checks give exit
    code 2 with ``diagnoses`` naming the failing layer.  Never raises for a bad target.
    """
    if not (isinstance(timeout, (int, float)) and timeout > 0):
        return Report(error=f"the timeout must be a positive number of seconds, not {timeout!r}")
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
        user = run_as(target)
    except TargetError as exc:
        return Report(target=target, error=str(exc))
    if user:
        report = _run_as_user(user, target, argv, timeout, on_progress, env)
    else:
        report = _run(target, argv, timeout, on_progress, env)
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
    if target.kind == "docker" or not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    from ..runas import OwnerError, interpreter_owner, system_name_of, venv_owner

    try:
        if target.kind == "venv" and target.venv:
            user = venv_owner(target.venv, system_name_of)
        else:
            user = interpreter_owner(target.python or "", system_name_of)
    except OwnerError as exc:
        raise TargetError(str(exc)) from None
    return None if user == "root" else user


def _run_as_user(user: str, target: Target, argv: List[str], timeout: float, on_progress, env) -> Report:
    """The smoke script from a root-owned copy the user can read (rocm_wizard may be installed
    where only root can read), run as ``user``."""
    import tempfile

    from ..runas import as_user

    with tempfile.TemporaryDirectory(prefix="rocm-wizard-smoke.") as tmp:
        os.chmod(tmp, 0o755)
        script = os.path.join(tmp, "smoke.py")
        shutil.copyfile(SMOKE_PATH, script)
        os.chmod(script, 0o644)
        argv = as_user([script if a == SMOKE_PATH else a for a in argv], user)
        return _run(target, argv, timeout, on_progress, env)


def analyse(doc, target: Optional[Target] = None) -> Report:
    """Report from an already parsed smoke document (a recorded run, a file): peaks + diagnoses."""
    from .layers import diagnose
    from .peaks import annotate as _annotate

    report = from_smoke(doc, target)
    if report.error is None:
        _annotate(report)
        report.diagnoses = diagnose(report)
    return report


def _run(target: Target, argv: List[str], timeout: float, on_progress, env) -> Report:
    # a safety net only: the script enforces its own per-check timeouts
    overall = float(timeout) * 40 + 120
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env, start_new_session=True)
    except OSError as exc:
        return Report(target=target, error=f"cannot start {argv[0]}: {exc.strerror or exc}")
    out_chunks: List[bytes] = []
    err_lines: List[str] = []

    def read_out() -> None:
        for chunk in iter(lambda: proc.stdout.read(65536), b""):
            out_chunks.append(chunk)

    def read_err() -> None:
        for raw in iter(proc.stderr.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line.startswith("smoke: "):
                if on_progress is not None:
                    try:
                        on_progress(line[len("smoke: "):])
                    except Exception:  # a UI callback must not break the run
                        pass
            else:
                err_lines.append(line)
                if len(err_lines) > 200:
                    del err_lines[:100]

    threads = [threading.Thread(target=read_out, daemon=True), threading.Thread(target=read_err, daemon=True)]
    for t in threads:
        t.start()
    t0 = time.monotonic()
    try:
        proc.wait(timeout=overall)
    except subprocess.TimeoutExpired:
        _kill(proc)
        return Report(target=target, error=f"the smoke test did not finish within {overall:.0f}s",
                      stderr_tail="\n".join(err_lines[-30:]))
    except KeyboardInterrupt:
        _kill(proc)
        raise
    for t in threads:
        t.join(timeout=5)
    stdout = b"".join(out_chunks).decode("utf-8", "replace")
    tail = "\n".join(err_lines[-30:])
    doc = _parse_json(stdout)
    if doc is None:
        hint = f"exit status {proc.returncode}"
        if proc.returncode == 127 or "not found" in tail:
            hint += ", interpreter not found"
        return Report(target=target, error=f"the smoke test produced no report ({hint})", stderr_tail=tail)
    report = from_smoke(doc, target)
    report.stderr_tail = tail
    if report.duration_s is None:
        report.duration_s = time.monotonic() - t0
    return report


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, 9)
    except OSError:
        try:
            proc.kill()
        except OSError:
            pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def progress_printer(stream=None) -> Callable[[str], None]:
    out = stream or sys.stderr

    def show(line: str) -> None:
        out.write("  " + line + "\n")
        out.flush()
    return show
