"""The answers file (``--answers FILE``, TOML): the choices of a run, so another run (or another
machine) can replay them with no prompt.

    # rocm-wizard answers
    format = 1
    path = "torch-reinstall"          # rocm-upgrade | torch-reinstall | docker
    torch = "2.4.1+rocm6.1"
    venv = "/home/alice/venv"
    venv_mode = "existing"
    torch_index_url = "https://download.pytorch.org/whl/rocm6.1"
    user = "alice"
    [env]
    TORCH_BLAS_PREFER_HIPBLASLT = "0"

Keys: path, rocm, torch, venv, venv_mode, image, workspace, dkms, rocm_mirror,
allow_http_mirror (true: accept an http:// rocm_mirror), allow_apt_removals (true: apt may remove
packages unrelated to ROCm while installing it), guard (false: no constraints file pinning the torch
build in the venv), clean_items (--path clean: the ids or paths to remove), rocm_key_fingerprint, rocm_core_mirror (stands for
AMD's Core SDK hosts), rocm_core_key_fingerprint, torch_index_url, pytorch_mirror, user,
librocdxg_repo (stands for ROCm/librocdxg's git repository), env.  Every run writes the answers it used
(``answers.toml`` in its log directory); replaying that file gives the same plan.
"""
from __future__ import annotations

import sys
from typing import Any, Dict, Optional

from .fsutil import write_atomic


class _LazyToml:
    """``tomllib`` (``tomli`` on 3.10), imported when an answers file is read: a plan without
    ``--answers`` needs no TOML parser."""

    def __getattr__(self, name: str) -> Any:
        if sys.version_info >= (3, 11):
            import tomllib as mod  # novermin
        else:  # pragma: no cover - Python 3.10
            import tomli as mod
        return getattr(mod, name)


_toml: Any = _LazyToml()

FORMAT = 1
STRING_KEYS = ("path", "rocm", "torch", "venv", "venv_mode", "image", "workspace", "rocm_mirror",
               "rocm_key_fingerprint", "rocm_core_mirror", "rocm_core_key_fingerprint", "torch_index_url",
               "pytorch_mirror", "user", "librocdxg_repo")
BOOL_KEYS = ("dkms", "allow_http_mirror", "allow_apt_removals", "guard")
LIST_KEYS = ("clean_items",)
KEYS = ("format",) + STRING_KEYS + BOOL_KEYS + LIST_KEYS + ("env",)


class AnswersError(ValueError):
    pass


MAX_BYTES = 1 << 20


def load(path: str) -> Dict[str, Any]:
    """The answers in ``path`` as Choices keyword arguments; AnswersError with a plain message."""
    import os
    import stat

    try:
        # Never blocks on a FIFO (O_NONBLOCK), never follows on into a device: a regular file only,
        # and no more than MAX_BYTES of it (an answers file is a few hundred bytes).
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with open(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise AnswersError(f"answers file {path} is not a regular file")
            raw = fh.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            raise AnswersError(f"answers file {path} is larger than {MAX_BYTES} bytes")
        data = _toml.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise AnswersError(f"answers file {path} does not exist") from None
    except OSError as exc:
        raise AnswersError(f"cannot read answers file {path}: {exc.strerror or exc}") from None
    except (_toml.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise AnswersError(f"answers file {path} is not valid TOML: {exc}") from None
    return validate(data, path)


def validate(data: Any, where: str = "answers") -> Dict[str, Any]:
    if not isinstance(data, dict):
        raise AnswersError(f"{where}: expected a TOML table")
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise AnswersError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(KEYS)}")
    if "format" in data and data["format"] != FORMAT:
        raise AnswersError(f"{where}: format {data['format']!r} is not {FORMAT}")
    out: Dict[str, Any] = {}
    for key in STRING_KEYS:
        if key in data:
            value = data[key]
            if not isinstance(value, str) or "\x00" in value:
                raise AnswersError(f"{where}: {key} must be a string")
            out[key] = value
    for key in BOOL_KEYS:
        if key in data:
            if not isinstance(data[key], bool):
                raise AnswersError(f"{where}: {key} must be true or false")
            out[key] = data[key]
    for key in LIST_KEYS:
        if key in data:
            value = data[key]
            if not isinstance(value, list) or not all(isinstance(v, str) and "\x00" not in v for v in value):
                raise AnswersError(f"{where}: {key} must be a list of strings")
            out[key] = list(value)
    if "env" in data:
        env = data["env"]
        if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
            raise AnswersError(f"{where}: env must be a table of NAME = \"value\" strings")
        out["env"] = dict(env)
    return out


def _q(value: str) -> str:
    out = ['"']
    for ch in value:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _key(name: str) -> str:
    if name and all(c.isalnum() or c in "_-" for c in name):
        return name
    return _q(name)


def dumps(choices: Dict[str, Any], comment: str = "") -> str:
    lines = ["# rocm-wizard answers: replay with  rocm-wizard --yes --answers THIS-FILE"]
    if comment:
        lines += ["# " + ln for ln in comment.splitlines()]
    lines.append(f"format = {FORMAT}")
    for key in STRING_KEYS:
        v = choices.get(key)
        if isinstance(v, str) and v != "":
            lines.append(f"{key} = {_q(v)}")
    for key in BOOL_KEYS:
        v = choices.get(key)
        if isinstance(v, bool):
            lines.append(f"{key} = {'true' if v else 'false'}")
    for key in LIST_KEYS:
        v = choices.get(key)
        if isinstance(v, list) and v:
            lines.append(f"{key} = [" + ", ".join(_q(str(x)) for x in v) + "]")
    env = choices.get("env") or {}
    lines.append("")
    lines.append("[env]")
    for k in sorted(env):
        lines.append(f"{_key(k)} = {_q(str(env[k]))}")
    return "\n".join(lines) + "\n"


def write(path: str, choices: Dict[str, Any], comment: str = "", mode: int = 0o600) -> None:
    """Write the answers atomically (mode 0600: URLs may carry credentials)."""
    write_atomic(path, dumps(choices, comment).encode("utf-8"), mode)


def from_plan_inputs(inputs: Dict[str, Any]) -> Dict[str, Any]:
    """The answers that reproduce a plan: its resolved inputs, minus what is not an answer."""
    out: Dict[str, Any] = {}
    for key in STRING_KEYS:
        v = inputs.get(key)
        if isinstance(v, str) and v:
            out[key] = v
    for key in BOOL_KEYS:
        if isinstance(inputs.get(key), bool):
            out[key] = inputs[key]
    env = inputs.get("env")
    if isinstance(env, dict):
        out["env"] = {str(k): str(v) for k, v in env.items()}
    return out


def merge(answers: Optional[Dict[str, Any]], cli: Dict[str, Any]) -> Dict[str, Any]:
    """Command-line values win over the file; ``None`` on the command line means "not given"."""
    out = dict(answers or {})
    for k, v in cli.items():
        if v is None:
            continue
        if k == "env":
            if v:
                env = dict(out.get("env") or {})
                env.update(v)
                out["env"] = env
            continue
        out[k] = v
    return out
