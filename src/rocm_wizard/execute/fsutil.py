"""Small file helpers: atomic writes (temporary file in the same directory, fsync, rename)."""
from __future__ import annotations

import json
import os
import tempfile
from typing import Any


def write_atomic(path: str, data: bytes, mode: int = 0o600) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_json(path: str, obj: Any, mode: int = 0o600) -> None:
    write_atomic(path, (json.dumps(obj, indent=1, sort_keys=False, default=str) + "\n").encode("utf-8"), mode)


def read_json(path: str) -> Any:
    """Parsed JSON, or raises ValueError with a plain message."""
    try:
        with open(path, "r", encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        raise ValueError(f"{path} does not exist") from None
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ValueError(f"{path} is damaged (not JSON: {exc})") from None
