"""Step lists: the plan review's check states and the execution's per-step progress."""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from rich.text import Text
from textual.widgets import Static

from ...termsafe import clean, clean_line
from ..text import CHECK_LABEL, CHECK_MARK, STEP_MARK, short
from .chrome import spinner_frame

CHECK_STYLE = {"ok": "green", "change": "yellow", "unknown": "magenta"}
STEP_STYLE = {"pending": "dim", "running": "bold cyan", "ok": "green", "changed": "bold green",
              "skipped": "yellow", "failed": "bold red", "cancelled": "dim"}


def description_text(report, width: Optional[int] = None) -> Text:
    """A step's dry-run description with its diffs coloured (+ green, - red).  With ``width`` (the
    columns the text gets), a diff line longer than that is cut into pieces that each keep the
    line's marker (``+``/``-``/space) under the indent, instead of wrapping to column 0 without it."""
    desc = report.description
    out = Text()
    out.append(f"{report.step.index}. {clean_line(desc.title)}", style="bold")
    check = report.check.status
    out.append(f"   [{CHECK_LABEL.get(check, check)}]", style=CHECK_STYLE.get(check, ""))
    if report.check.detail:
        out.append(f"\n   {clean(report.check.detail)}", style="dim")
    out.append("\n")
    for a in desc.actions:
        out.append(f"  - {clean(a)}\n")
    for p in desc.packages:
        out.append(f"  package {p.name}: {p.before or '(not installed)'} -> {p.after or '(removed)'}"
                   + (f"  [{p.note}]" if p.note else "") + "\n")
    for argv in desc.commands:
        out.append("  $ " + clean_line(" ".join(str(a) for a in argv)) + "\n", style="cyan")
    for f in desc.files:
        out.append(clean_line(f"  {f.action} {f.path}" + (f"  [{f.note}]" if f.note else "")) + "\n")
        for line in clean(f.diff or "").rstrip("\n").splitlines():  # (a file's content on this system)
            style = ""
            if line.startswith("+") and not line.startswith("+++"):
                style = "green"
            elif line.startswith("-") and not line.startswith("---"):
                style = "red"
            elif line.startswith("@@"):
                style = "cyan"
            room = (width - 4) if width else 0
            if room > 8 and len(line) > room:
                mark, body = (line[0], line[1:]) if line[:1] in "+- " else (" ", line)
                piece = room - 1
                for i in range(0, len(body), piece):
                    out.append(f"    {mark}{body[i:i + piece]}\n", style=style)
            else:
                out.append(f"    {line}\n", style=style)
    return out


class StepChecks(Static):
    """One line per plan step: ✓ ok / ~ will change / ? unknown."""

    def __init__(self, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.reports: List = []

    def set_reports(self, reports: List) -> None:
        self.reports = list(reports)
        self.refresh(layout=True)

    def render(self) -> Text:
        width = max(40, self.size.width or 80)
        out = Text()
        for i, r in enumerate(self.reports):
            st = r.check.status
            out.append(f" {CHECK_MARK.get(st, '?')} ", style=CHECK_STYLE.get(st, ""))
            out.append(f"{r.step.index:>2}. ")
            label = CHECK_LABEL.get(st, st)
            out.append(short(r.step.title, width - 22))
            pad = max(1, width - 6 - len(short(r.step.title, width - 22)) - len(label) - 2)
            out.append(" " * pad)
            out.append(label, style=CHECK_STYLE.get(st, ""))
            if i < len(self.reports) - 1:
                out.append("\n")
        return out


class StepProgress(Static):
    """One line per step during execution, with a spinner on the running one."""

    def __init__(self, steps: List[Tuple[str, str]], **kwargs) -> None:
        super().__init__("", **kwargs)
        self.steps = list(steps)  # (id, title)
        self.states: Dict[str, str] = {sid: "pending" for sid, _ in self.steps}
        self.tick = 0

    def set_state(self, step_id: Optional[str], state: str) -> None:
        if step_id in self.states:
            self.states[step_id] = state
            self.refresh()

    def advance(self) -> None:
        self.tick += 1
        if "running" in self.states.values():
            self.refresh()

    def count(self, *states: str) -> int:
        return sum(1 for s in self.states.values() if s in states)

    def render(self) -> Text:
        width = max(40, self.size.width or 80)
        out = Text()
        for i, (sid, title) in enumerate(self.steps):
            st = self.states.get(sid, "pending")
            mark = spinner_frame(self.tick) if st == "running" else STEP_MARK.get(st, "·")
            out.append(f" {mark} ", style=STEP_STYLE.get(st, ""))
            out.append(f"{i + 1:>2}. {short(title, width - 20)}", style="bold" if st == "running" else "")
            if st not in ("pending", "running"):
                out.append(f"  {st}", style=STEP_STYLE.get(st, ""))
            if i < len(self.steps) - 1:
                out.append("\n")
        return out
