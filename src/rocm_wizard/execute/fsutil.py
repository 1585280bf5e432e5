"""The executor's file helpers: JSON state files, written whole (see :mod:`rocm_wizard.fsutil`)."""
from __future__ import annotations

import json
from typing import Any

from ..fsutil import write_atomic as _write_atomic


def write_atomic(path: str, data: bytes, mode: int = 0o600) -> None:
    """Private by default: journals, plans and answers may name local paths and mirror URLs."""
    _write_atomic(path, data, mode)


def write_json(path: str, obj: Any, mode: int = 0o600) -> None:
    write_atomic(path, (json.dumps(obj, indent=1, sort_keys=False, default=str) + "\n").encode("utf-8"), mode)


def read_json(path: str) -> Any:
    """Parsed JSON, or raises ValueError with a plain message.  Never through a symbolic link: the
    run's state files are plain files root wrote."""
    import os

    try:
        with open(os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC), "r", encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        raise ValueError(f"{path} does not exist") from None
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ValueError(f"{path} is damaged (not JSON: {exc})") from None
    except RecursionError:
        raise ValueError(f"{path} is damaged (nested too deeply to be a rocm-wizard file)") from None
