"""GPU smoke test: ``rocm-wizard verify`` and the executor's last step.

* ``smoke.py`` — the standalone script (standard library + torch) run with the target interpreter;
* :func:`run_verify` — run it against a venv, an interpreter or a Docker image -> :class:`Report`;
* :func:`render` — the report as text for a terminal (Rich, imported only here);
* :func:`analyse` — a Report from a smoke document that was recorded earlier.

Importing this package loads nothing heavy: the functions import their modules when called.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .report import Report

__all__ = ["run_verify", "render", "analyse", "SMOKE_PATH"]


def __getattr__(name: str) -> Any:
    if name == "SMOKE_PATH":
        from .runner import SMOKE_PATH
        return SMOKE_PATH
    raise AttributeError(name)


def run_verify(python=None, venv=None, docker_image=None, timeout=60.0, **kwargs) -> "Report":
    from .runner import run_verify as _run

    return _run(python=python, venv=venv, docker_image=docker_image, timeout=timeout, **kwargs)


def analyse(doc, target=None) -> "Report":
    from .runner import analyse as _analyse

    return _analyse(doc, target)


def render(report: "Report", *, color: bool = False, width: int = 100, verbose: bool = False) -> str:
    from .render import render as _render

    return _render(report, color=color, width=width, verbose=verbose)
