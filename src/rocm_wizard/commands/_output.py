"""The Rich console the human reports print through (imported only by those reports)."""
from __future__ import annotations

from typing import Any


def console(**kwargs: Any) -> Any:
    """A Rich Console that lets a closed pipe ('rocm-wizard doctor | head') surface as
    BrokenPipeError, which ``rocm_wizard.cli.main`` turns into exit status 0; Rich's own handling
    exits with 1."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError()

    return _Console(**kwargs)
