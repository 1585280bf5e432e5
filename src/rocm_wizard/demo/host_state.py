"""The demo machine's disk for ``--path clean`` (``host_state.toml``): written as a small file tree
into the demo's own temporary directory, where the clean list reads it like a machine's ``/``
(old ROCm tree, a venv left behind, caches, a stale key and pin).  Stdlib only; nothing outside the
given directory is written."""
from __future__ import annotations

import base64
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = os.path.join(HERE, "host_state.toml")


def _load() -> dict:
    from ..catalog._data import parse_toml_file

    return parse_toml_file(SPEC)


def _inside(root: str, path: str) -> str:
    if not path.startswith("/") or "/../" in path + "/" or "\0" in path:
        raise ValueError(f"host_state.toml: {path!r} is not a plain absolute path")
    return os.path.join(root, path.lstrip("/"))


def materialize(root: str) -> str:
    """Write the tree under ``root`` (once: a tree already there is kept); returns ``root``."""
    done = os.path.join(root, ".host-state-complete")
    if os.path.exists(done):
        return root
    spec = _load()
    for f in spec.get("file", []):
        dest = _inside(root, f["path"])
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if "base64" in f:
            data = base64.b64decode(f["base64"])
        elif "bytes" in f:
            data = b"\0" * int(f["bytes"])
        else:
            data = f["text"].encode("utf-8")
        with open(dest, "wb") as fh:
            fh.write(data)
    for link in spec.get("link", []):
        dest = _inside(root, link["path"])
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if not os.path.lexists(dest):
            os.symlink(link["target"], dest)
    with open(done, "w", encoding="utf-8") as fh:
        fh.write("ok\n")
    return root
