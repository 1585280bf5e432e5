"""The frame every screen shares: a one-line title bar with the step of the wizard, and a small
spinner that the screens tick from one timer (so a frozen app draws a still frame)."""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

STEPS = ("Detect", "Findings", "Way out", "Options", "Plan", "Run", "Verify", "Done")
FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class TitleBar(Static):
    """``rocm-wizard  3/8 Way out ·········· DEMO``."""

    DEFAULT_CSS = """
    TitleBar { height: 1; background: $primary; color: $text; text-style: bold; }
    """

    def __init__(self, step: int, mode: str = "", **kwargs) -> None:
        super().__init__(**kwargs)
        self.step = step
        self.mode = mode

    def render(self) -> Text:
        name = STEPS[self.step - 1] if 1 <= self.step <= len(STEPS) else ""
        left = Text(" rocm-wizard ", style="bold")
        if name:
            left.append(f" {self.step}/{len(STEPS)} {name}")
        right = Text(f"{self.mode} " if self.mode else "")
        width = max(0, self.size.width - left.cell_len - right.cell_len)
        return left + Text(" " * width) + right


def spinner_frame(tick: int) -> str:
    return FRAMES[tick % len(FRAMES)]
