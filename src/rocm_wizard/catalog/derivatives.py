"""Ubuntu derivatives planned as their Ubuntu base (``data/derivatives.toml``).

:func:`ubuntu_base` answers, for a detected OS, whether it is a known derivative whose
``UBUNTU_CODENAME`` names an Ubuntu release the catalog knows, and why not otherwise."""
from __future__ import annotations

import functools
from typing import Dict, NamedTuple, Optional, Tuple

from . import data_path


class Base(NamedTuple):
    version: Optional[str]  # the Ubuntu release ("24.04"); None: refused
    codename: Optional[str]
    name: str  # the derivative's name
    why: str  # the refusal's reason, or where the fact comes from


@functools.lru_cache(maxsize=None)
def _known() -> Dict[str, Dict[str, str]]:
    from ._data import load_path

    data = load_path(data_path("derivatives.toml"))
    return {d["id"]: d for d in data.get("derivative", [])}


def _likes_ubuntu(id_like: Optional[str]) -> bool:
    return "ubuntu" in (id_like or "").lower().split()


def is_ubuntu_like(osi) -> bool:
    """An OS other than Ubuntu that names Ubuntu in ``ID_LIKE`` (or gives an ``UBUNTU_CODENAME``)."""
    return bool(osi is not None and (osi.id or "") != "ubuntu"
                and (_likes_ubuntu(getattr(osi, "id_like", None)) or getattr(osi, "ubuntu_codename", None)))


def ubuntu_base(osi) -> Optional[Base]:
    """None for a system that is not an Ubuntu derivative; else its Ubuntu base, or the reason
    it cannot be planned as one (``version`` None)."""
    if not is_ubuntu_like(osi):
        return None
    from . import ubuntu

    ident = (osi.id or "").lower()
    known = _known().get(ident)
    label = (getattr(osi, "pretty_name", None) or f"{osi.id} {osi.version_id or ''}").strip()
    code = (getattr(osi, "ubuntu_codename", None) or "").lower() or None
    if known is None:
        return Base(None, code, label, f"{label} (ID={osi.id}) says it is like Ubuntu (ID_LIKE), but rocm-wizard does "
                    "not know whether it installs Ubuntu's own packages unchanged, so AMD's Ubuntu repositories may "
                    "not fit it; known Ubuntu derivatives: " + ", ".join(d["name"] for d in _known().values()))
    if not code:
        return Base(None, None, known["name"], f"{label} gives no UBUNTU_CODENAME in /etc/os-release, so its Ubuntu "
                    "base is not known (an edition not built on Ubuntu, such as Linux Mint's Debian edition?)")
    version = ubuntu.version_of(code)
    if version is None:
        return Base(None, code, known["name"], f"{label} is based on Ubuntu '{code}', a release the catalog does not "
                    "know")
    return Base(version, code, known["name"], known.get("source", ""))


def names() -> Tuple[str, ...]:
    return tuple(d["name"] for d in _known().values())
