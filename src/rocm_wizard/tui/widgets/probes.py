"""Detection widgets: one row per probe (spinner while it runs, then ✓/✗ and what it found), and
the system summary."""
from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

from rich.text import Text
from textual.widgets import Static

from ..text import PROBE_LABELS, short
from .chrome import spinner_frame

RUNNING, OK, FAILED = "running", "ok", "failed"


class ProbeList(Static):
    """Rows of ``(state, result text, seconds)`` per probe name."""

    def __init__(self, names: Sequence[str], **kwargs) -> None:
        super().__init__(**kwargs)
        self.names = list(names)
        self.rows: Dict[str, Tuple[str, str, float]] = {n: (RUNNING, "", 0.0) for n in self.names}
        self.tick = 0

    def set_row(self, name: str, state: str, text: str, seconds: float) -> None:
        self.rows[name] = (state, text, seconds)
        self.refresh(layout=True)

    def advance(self) -> None:
        self.tick += 1
        if any(s == RUNNING for s, _, _ in self.rows.values()):
            self.refresh()

    @property
    def done(self) -> bool:
        return all(s != RUNNING for s, _, _ in self.rows.values())

    def render(self) -> Text:
        width = max(40, self.size.width or 80)
        out = Text()
        for i, name in enumerate(self.names):
            state, text, secs = self.rows[name]
            label = PROBE_LABELS.get(name, name)
            if state == RUNNING:
                out.append(f" {spinner_frame(self.tick + i)} ", style="bold cyan")
                out.append(f"{label:<30}", style="")
                out.append("…", style="dim")
            else:
                mark, style = ("✓", "bold green") if state == OK else ("✗", "bold red")
                out.append(f" {mark} ", style=style)
                out.append(f"{label:<30}")
                out.append(short(text, width - 42), style="" if state == OK else "red")
                out.append(f" {secs:4.1f}s", style="dim")
            if i < len(self.names) - 1:
                out.append("\n")
        return out


class SummaryTable(Static):
    """``label  value`` rows of the detected system."""

    def __init__(self, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.rows: List[Tuple[str, str]] = []

    def set_rows(self, rows: List[Tuple[str, str]]) -> None:
        self.rows = list(rows)
        self.refresh(layout=True)

    def render(self) -> Text:
        width = max(40, self.size.width or 80)
        out = Text()
        for i, (label, value) in enumerate(self.rows):
            out.append(f" {label:<8}", style="bold")
            out.append(short(value, width - 10))
            if i < len(self.rows) - 1:
                out.append("\n")
        return out
