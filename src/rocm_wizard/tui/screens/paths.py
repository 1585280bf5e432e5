"""3. Path choice: the ways out, recommended first, each with why; the ones that do not apply are
listed disabled with the reason."""
from __future__ import annotations

from typing import Iterable, List

from rich.text import Text
from textual import on
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from .base import WizardScreen

PATH_TITLES = {
    "torch-reinstall": "Reinstall PyTorch in the venv",
    "rocm-upgrade": "Upgrade ROCm from AMD's apt repository",
    "docker": "Use AMD's rocm/pytorch Docker image",
    "guard": "Guard this venv",
    "clean": "Clean up",
}


def target_line(rec) -> str:
    t = rec.target or {}
    if rec.path == "torch-reinstall" and t.get("torch"):
        return f"torch {t['torch']} from {t.get('index', '?')}" + (f" in {t['venv']}" if t.get("venv") else "")
    if rec.path == "rocm-upgrade" and t.get("rocm"):
        return f"ROCm {t['rocm']} on Ubuntu {t.get('ubuntu', '?')}"
    if rec.path == "docker" and t.get("image"):
        return t["image"]
    if rec.path == "guard" and t.get("venv"):
        return f"pin the ROCm torch in {t['venv']}"
    if rec.path == "clean" and t.get("items"):
        return f"{t['items']} things can go: pick from a checklist"
    return ""


def ordered(recs) -> List:
    """Applicable first by rank, then the others in their order."""
    ok = sorted([r for r in recs if r.applies], key=lambda r: (r.rank or 99))
    return ok + [r for r in recs if not r.applies]


class PathScreen(WizardScreen):
    STEP = 3
    NAME = "Way out"
    HELP = ("The ways out of the problem, best first for this system. Move with the arrow keys; the "
            "panel below says why a way is proposed (or why it does not apply here). Press Enter to "
            "choose one and set its options. Nothing is changed until you confirm the plan.")

    BINDINGS = [Binding("n", "choose", "Choose")]

    def body(self) -> Iterable:
        recs = list(getattr(self.wizard.diagnosis, "recommendations", []) or [])
        try:  # the guard and clean-up ways, after the diagnosis' own
            extra = [w for w in self.wizard.core.extra_ways(self.wizard.system) if w.path not in {r.path for r in recs}]
        except Exception:
            extra = []
        self.recs = ordered(recs) + [w for w in extra if w.applies]
        options = []
        for i, r in enumerate(self.recs):
            title = PATH_TITLES.get(r.path, r.path)
            prompt = Text()
            if r.applies:
                prompt.append(f"{i + 1}. {title}", style="bold")
                if r.rank == 1:
                    prompt.append("  (recommended)", style="bold green")
                line = target_line(r)
                if line:
                    prompt.append(f"\n   {line}", style="")
            else:
                prompt.append(f"–  {title}  (does not apply)")
                prompt.append(f"\n   {r.why.splitlines()[0] if r.why else ''}")
            options.append(Option(prompt, id=r.path, disabled=not r.applies))
        head = "Choose a way out:"
        if self.recs and not any(r.applies for r in self.recs) and not self.wizard.core.demo:
            head = "No way out applies on this machine (see why below); `rocm-wizard --demo` shows the whole walk."
        yield Static(head, id="paths-head", markup=False)
        yield OptionList(*options, id="paths")
        with VerticalScroll(id="path-detail"):
            yield Static("", id="path-why", markup=False)

    def on_mount(self) -> None:
        ol = self.query_one(OptionList)
        ol.focus()
        first = next((i for i, r in enumerate(self.recs) if r.applies), None)
        if first is not None:
            ol.highlighted = first
            self._show(first)
        elif self.recs:
            self._show(0)
        else:
            self.query_one("#path-why", Static).update("The diagnosis proposes no way out for this system.")

    def _show(self, index: int) -> None:
        if not (0 <= index < len(self.recs)):
            return
        r = self.recs[index]
        text = Text()
        if r.applies:
            text.append("Why: ", style="bold")
        else:
            text.append("Why not: ", style="bold red")
        text.append(r.why or "")
        if r.steps:
            text.append("\n\nWhat it does:\n", style="bold")
            for s in r.steps:
                text.append(f"  • {s}\n")
        self.query_one("#path-why", Static).update(text)

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show(event.option_index)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self._choose(event.option_index)

    def action_choose(self) -> None:
        idx = self.query_one(OptionList).highlighted
        if idx is None:
            return
        self._choose(idx)

    def _choose(self, index: int) -> None:
        r = self.recs[index]
        if not r.applies:
            self.notify(f"{PATH_TITLES.get(r.path, r.path)} does not apply here.", severity="warning")
            return
        self.wizard.path = r.path
        from .options import OptionsScreen

        self.app.push_screen(OptionsScreen(r.path))
