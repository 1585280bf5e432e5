"""2. Findings: the diagnosis, worst first; each finding expands (Enter) to its evidence, the
explanation, the fix and the sources."""
from __future__ import annotations

from typing import Iterable

from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Collapsible, Static

from ...termsafe import clean, clean_line
from ..text import severity_key, severity_mark
from .base import WizardScreen

SEVERITY_STYLE = {"critical": "bold red", "error": "bold red", "warning": "bold yellow", "info": "bold blue"}


def finding_body(f) -> Text:
    out = Text()
    if f.evidence:
        out.append("Evidence\n", style="bold")
        for e in f.evidence:
            out.append(f"  • {clean(e)}\n")
    if f.explanation:
        out.append("Why\n", style="bold")
        out.append(f"  {clean(f.explanation)}\n")
    if f.fix:
        out.append("Fix\n", style="bold")
        out.append(f"  {clean(f.fix)}\n")
    if getattr(f, "path", None):
        out.append("Way out: ", style="bold")
        out.append(f"{f.path}\n")
    if getattr(f, "community", False):
        out.append("  (a community setting, not supported by AMD)\n", style="italic")
    if f.sources:
        out.append("Sources\n", style="bold")
        for s in f.sources:
            out.append(f"  - {clean(s)}\n", style="dim")
    return out


class FindingsScreen(WizardScreen):
    STEP = 2
    NAME = "Findings"
    HELP = ("What the diagnosis found, worst first. Move between findings with Tab / Shift+Tab and "
            "press Enter to expand one: its evidence (what detection saw), why it matters, the fix, "
            "and the sources the knowledge comes from. Press n to choose a way out.")

    BINDINGS = [Binding("n", "next", "Next")]

    def _nothing_to_diagnose(self, d) -> bool:
        from ...commands.doctor import status

        try:
            return status(d, self.wizard.system) == "not-applicable"
        except Exception:  # a diagnosis is never lost to its headline
            return False

    def body(self) -> Iterable:
        d = self.wizard.diagnosis
        findings = sorted(getattr(d, "findings", []) or [], key=lambda f: severity_key(f.severity))
        counts = {}
        for f in findings:
            counts[f.severity] = counts.get(f.severity, 0) + 1
        if findings:
            head = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items())
            head = f"{head}. Enter expands a finding; n chooses a way out."
        else:
            head = "No known problem found. You can still choose a way out (n), for example to upgrade."
        if d is not None and self._nothing_to_diagnose(d):
            # doctor's own verdict for such a system (exit 3), not "no known problem"
            head = ("Nothing to diagnose: this system has no AMD GPU and no ROCm. rocm-wizard diagnoses AMD GPU "
                    "systems; `rocm-wizard --demo` shows the whole walk, and `--snapshot` reads another machine's "
                    "outputs.")
        with VerticalScroll(id="findings"):
            yield Static(head, id="findings-head", markup=False)
            for i, f in enumerate(findings):
                title = Text(f"{severity_mark(f.severity)} {f.severity.upper():<8} ", style=SEVERITY_STYLE.get(
                    f.severity, "bold")) + Text(clean_line(f.title))
                with Collapsible(title=title.plain, collapsed=i > 0, id=f"finding-{i}"):
                    yield Static(finding_body(f), classes="finding-body")
            for note in getattr(d, "notes", []) or []:
                yield Static(f"note: {clean(note)}", classes="note", markup=False)

    def on_mount(self) -> None:
        coll = self.query(Collapsible)
        if coll:
            coll.first().query_one("CollapsibleTitle").focus()

    def action_next(self) -> None:
        from .paths import PathScreen

        self.app.push_screen(PathScreen())
