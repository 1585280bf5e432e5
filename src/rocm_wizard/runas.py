"""Whom a root run trusts to run a venv's interpreter: the venv's owner, never root in its place.

Running ``<venv>/bin/python`` runs code its owner controls (a ``.pth`` file in site-packages runs
at every start), so everything rocm-wizard runs with a venv's interpreter -- pip, uv, the
package checks, the GPU smoke test -- and every file it writes inside a venv is run or written as
the venv's owner when rocm-wizard runs as root.  The rule is :mod:`rocm_wizard.ownerrule`, one
function used by the executor and the smoke-test launcher, and run as it is (its source) by the
shell script's ``rw_venv_user`` and by the Ansible export on each host.

Switching user is ``runuser -u USER --`` (util-linux, on every Debian and Ubuntu): it sets the
user's groups, HOME, USER and LOGNAME.
"""
from __future__ import annotations

import os
from typing import Callable, Dict, List, Optional, Tuple

# A file written as another user: the same temporary-file-and-rename as rocm_wizard.fsutil, done by
# a shell running as that user, so that every path on the way is resolved with that user's rights
# (a symbolic link they planted leads only where they could write anyway), and no directory made on
# the way belongs to root.  Arguments: PATH MODE; the content on stdin.
WRITE_AS_SH = ('set -e; d=$(dirname -- "$1"); mkdir -p -- "$d"; t=$(mktemp -- "$d/.rocm-wizard.XXXXXX"); '
               'trap \'rm -f -- "$t"\' EXIT; cat >"$t"; chmod -- "$2" "$t"; mv -f -- "$t" "$1"; trap - EXIT')


# The most root reads of a file of a venv owner's for them (bin/activate, the env file, pip.conf):
# one byte more is read, to tell a larger file, which is refused (a 1 GiB bin/activate of hers would
# otherwise sit whole in root's memory).  The script's rw_with_block/rw_guard_conf use the same bound.
OWNER_FILE_BYTES = 1 << 20

# What is at a path, seen by the user running it (no link followed by root): "absent", "other",
# "link\n" + target, or "file MODE\n" + content (at most OWNER_FILE_BYTES + 1 bytes).  Argument: PATH.
STATE_AS_SH = ('if [ -L "$1" ]; then printf "link\\n"; readlink -- "$1"; '
               'elif [ -f "$1" ]; then printf "file %s\\n" "$(stat -c %a -- "$1")"; '
               f'head -c {OWNER_FILE_BYTES + 1} -- "$1"; '
               'elif [ -e "$1" ]; then printf other; else printf absent; fi')
# Remove PATH (a file or a link, never a directory) / point the link PATH at TARGET, as that user.
REMOVE_AS_SH = 'if [ -d "$1" ] && [ ! -L "$1" ]; then exit 3; fi; rm -f -- "$1"'
LINK_AS_SH = 'ln -sfn -- "$2" "$1.rocm-wizard-rollback" && mv -Tf -- "$1.rocm-wizard-rollback" "$1"'
# Rename the directory PATH to NEW (which must not exist), as that user.  Arguments: PATH NEW.
MOVE_AS_SH = 'if [ -e "$2" ] || [ -L "$2" ]; then exit 3; fi; mv -T -- "$1" "$2"'


# What a process run as a venv's owner gets of root's environment: what pip, uv and the GPU stack
# need, nothing else (root's HF_TOKEN, cloud keys, RW_MIRROR_PASSWORD stay root's).  Index
# credentials reach pip/uv the way they already do: in the command's own environment or input.
OWNER_ENV_NAMES = frozenset({
    "PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TERM",
    "http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "all_proxy",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "PIP_CERT", "UV_NATIVE_TLS",
    "TORCH_BLAS_PREFER_HIPBLASLT", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES",
    "HSA_ENABLE_SDMA", "HSA_OVERRIDE_GFX_VERSION", "AMD_LOG_LEVEL", "ROC_ENABLE_PRE_VEGA",
})
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def owner_env(environ: Dict[str, str], extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    """The environment of a process run as another user by a root run: the names of
    :data:`OWNER_ENV_NAMES` from ``environ`` (a proxy URL with credentials in it is left out), then
    ``extra`` (what the command itself needs, set by rocm-wizard)."""
    out = {}
    for k, v in environ.items():
        if k in OWNER_ENV_NAMES and not (k.lower().endswith("_proxy") and "@" in v):
            out[k] = v
    out.setdefault("PATH", DEFAULT_PATH)
    out.update(extra or {})
    return out


from .ownerrule import RuleError as OwnerError  # noqa: E402  (the rule's own error: one rule, one error)


def as_user(argv: List[str], user: Optional[str]) -> List[str]:
    """``argv`` run as ``user`` by a root process (unchanged for root or no user)."""
    if user and user != "root":
        return ["runuser", "-u", user, "--"] + list(argv)
    return list(argv)


def write_as_argv(path: str, mode: int) -> List[str]:
    """The command that writes stdin to ``path`` whole (to be run as the owner, see :func:`as_user`)."""
    return ["sh", "-c", WRITE_AS_SH, "sh", path, format(mode, "o")]


def run_as(user: Optional[str], script: str, *args: str, input: bytes = b"") -> bytes:
    """Run the shell ``script`` with ``args`` as ``user`` (see :func:`as_user`); its stdout, as bytes.
    Raises OSError when it fails."""
    import subprocess

    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"}
    try:
        proc = subprocess.run(as_user(["sh", "-c", script, "sh"] + list(args), user), input=input, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120, check=False,
                              start_new_session=True)  # no controlling terminal: root's is not lent
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise OSError(f"cannot run as {user}: {exc}") from None
    if proc.returncode != 0:
        why = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
        raise OSError(proc.returncode, f"as {user}: {why[0]}")
    return proc.stdout


def state_as(user: Optional[str], path: str) -> Tuple[str, Optional[int], bytes]:
    """What ``path`` is, as ``user`` sees it: ("absent" | "other" | "link" | "file", the file's mode,
    the link's target or the file's content)."""
    out = run_as(user, STATE_AS_SH, path)
    head, _, rest = out.partition(b"\n")
    kind, _, mode = head.decode("ascii", "replace").partition(" ")
    if kind == "link":
        return kind, None, rest[:-1] if rest.endswith(b"\n") else rest
    if kind == "file":
        if len(rest) > OWNER_FILE_BYTES:
            import errno

            raise OSError(errno.EFBIG, f"{path} is larger than {OWNER_FILE_BYTES >> 20} MiB: not a file rocm-wizard edits")
        return kind, int(mode, 8), rest
    return kind, None, b""


def venv_owner(venv: str, name_of: Callable[[int], Optional[str]], shown: Optional[str] = None) -> str:
    """The account that runs the interpreter of the venv at ``venv`` (a path on this machine;
    ``shown`` is how messages name it) under a root run, by the one rule of
    :mod:`rocm_wizard.ownerrule`.  ``name_of(uid)`` is the account name of a user id, None when
    there is none.  Raises :class:`OwnerError`."""
    from .ownerrule import judge_venv

    return judge_venv(venv, name_of, shown)


def interpreter_owner(python: str, name_of: Callable[[int], Optional[str]]) -> str:
    """The account that runs ``python`` under a root run, judged by the path as given (what
    CPython itself looks at) and any ``pyvenv.cfg`` it would read (:mod:`rocm_wizard.ownerrule`)."""
    from .ownerrule import judge_interpreter

    return judge_interpreter(python, name_of)


def hold_venv(venv: str, name_of: Callable[[int], Optional[str]], shown: Optional[str] = None) -> Tuple[str, Optional[int]]:
    """:func:`venv_owner`, and when the verdict is root, the venv directory the rule judged, held:
    (account, fd or None; close-on-exec).  Root then starts the interpreter through that fd
    (:func:`held_path`), so a venv swapped in at the same path after the judgement is never what
    runs: CPython takes ``pyvenv.cfg``, ``sys.prefix`` and site-packages from the path it was
    started as, which names the held directory.  The caller closes the fd once the interpreter and
    everything it started have ended (issue 27, finding 2)."""
    from .ownerrule import RuleError, collect_venv, verdict

    shown = shown or venv
    try:
        w, vst = collect_venv(venv)
    except OSError as exc:
        raise RuleError(f"cannot read the owner of the venv {shown}: {exc.strerror or exc}") from None
    try:
        name = verdict(w.items, vst.st_uid, name_of, shown)
        return name, (os.dup(w.venv_fd) if name == "root" else None)  # os.dup: not inheritable
    finally:
        w.close()


def hold_interpreter(python: str, name_of: Callable[[int], Optional[str]]) -> Tuple[str, Optional[int], Optional[str]]:
    """:func:`interpreter_owner`, and when ``python`` is the interpreter of a venv root runs, that
    venv held (see :func:`hold_venv`): (account, fd or None, the interpreter's path inside it)."""
    from .ownerrule import judge_interpreter

    held: List[Tuple[int, str]] = []
    name = judge_interpreter(python, name_of, held=held)
    return (name,) + held[0] if held else (name, None, None)


def held_path(fd: int, rel: str = "", pid: Optional[int] = None) -> str:
    """The path naming ``rel`` in the directory that process ``pid`` (this one by default) holds as
    ``fd``: ``/proc/PID/fd/FD/REL``.  Any root process resolves it while ``pid`` holds the fd -- the
    interpreter's own children too (they close what they inherit), unlike ``/proc/self/fd``."""
    base = f"/proc/{os.getpid() if pid is None else pid}/fd/{fd}"
    return base + "/" + rel.lstrip("/") if rel else base


def system_name_of(uid: int) -> Optional[str]:
    """The account name of ``uid`` on this machine (None when there is none)."""
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return None
