"""5. Plan review: every step with its check state (ok / will change / unknown), what it changes
(package versions, file diffs), the full shell script, and export (script, Ansible playbook,
answers file).  Execution starts from here after a confirmation."""
from __future__ import annotations

import os
from typing import Dict, Iterable

from rich.text import Text
from textual import on, work
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Button, Static, TabbedContent, TabPane, TextArea

from ...termsafe import clean
from ..messages import PlanReady
from ..text import SSH_NOTICE, ssh_without_multiplexer
from ..widgets.steps import StepChecks, description_text
from .base import WizardScreen

EXPORTS = {
    "script": ("shell script", "shell", "rocm-wizard-plan.sh", 0o755),
    "playbook": ("Ansible playbook", "ansible", "rocm-wizard-playbook.yml", 0o644),
    "answers": ("answers file", "answers", "rocm-wizard-answers.toml", 0o600),
}


class ReviewScreen(WizardScreen):
    STEP = 5
    NAME = "Plan review"
    HELP = ("The plan, checked against this system without changing anything: each step is ok "
            "(already done), will change, or unknown (cannot be checked before earlier steps run). "
            "Tabs: Steps, Changes (package versions and file diffs), Script (the same plan as a bash "
            "script you can run yourself; it scrolls sideways, lines are never wrapped). 1, 2 and 3 "
            "switch tabs; the tab's content has the focus (marked by a bar on its left), so the arrows, "
            "PageUp/PageDown and Home/End scroll it at once. s saves the script to a file, p an Ansible "
            "playbook, a the answers file for `--yes` replay (an existing file is replaced only after a "
            "second Save). x runs the plan after a confirmation.")

    BINDINGS = [
        Binding("x", "execute", "Run"),
        Binding("1", "tab('tab-steps')", "Tabs", key_display="1/2/3", tooltip="Steps tab"),
        Binding("2", "tab('tab-changes')", "Changes tab", show=False),
        Binding("3", "tab('tab-script')", "Script tab", show=False),
        Binding("s", "export('script')", "Save", key_display="s/p/a", tooltip="Save the script"),
        Binding("p", "export('playbook')", "Save playbook", show=False),
        Binding("a", "export('answers')", "Save answers", show=False),
    ]
    #: the widget of each tab that takes the focus when the tab is shown
    CONTENT = {"tab-steps": "#steps-scroll", "tab-changes": "#changes-scroll", "tab-script": "#script"}

    def __init__(self, path: str, values: Dict) -> None:
        super().__init__()
        self.path = path
        self.values = values
        self.plan = None
        self.reports = []
        self.script = ""
        self.error = None
        self.run_when_ready = False  # the plan is built again after a yes to one of its questions

    def body(self) -> Iterable:
        yield Static("Building the plan and checking it against the system…", id="review-head", markup=False)
        with TabbedContent(id="review-tabs"):
            with TabPane("Steps", id="tab-steps"):
                with VerticalScroll(id="steps-scroll", classes="tab-content"):
                    yield StepChecks(id="checks")
            with TabPane("Changes", id="tab-changes"):
                with VerticalScroll(id="changes-scroll", classes="tab-content"):
                    yield Static("", id="changes")
            with TabPane("Script", id="tab-script"):
                yield Button("Save to file… (s)", id="save-script", compact=True)
                # soft_wrap off: a copied line is the script's line (long ones scroll sideways)
                yield TextArea("", id="script", classes="tab-content", read_only=True, show_line_numbers=False,
                               soft_wrap=False)

    def on_mount(self) -> None:
        if not self.wizard.animate:
            self.query_one("#script", TextArea).cursor_blink = False
        self.focus_content()
        self.build()

    def focus_content(self) -> None:
        """Give the shown tab's content the focus (keys scroll it at once, not the tab row)."""
        tab = self.query_one(TabbedContent).active or "tab-steps"
        self.query_one(self.CONTENT.get(tab, "#steps-scroll")).focus()

    @on(TabbedContent.TabActivated)
    def _tab_shown(self, event: TabbedContent.TabActivated) -> None:
        self.call_after_refresh(self.focus_content)

    @on(Button.Pressed, "#save-script")
    def _save_pressed(self) -> None:
        self.action_export("script")

    @work(thread=True, exclusive=True, group="plan", exit_on_error=False)
    def build(self) -> None:
        core = self.wizard.core
        try:
            plan = core.build_plan(self.wizard.system, self.path, self.values)
            reports = core.evaluate(plan, self.wizard.system)
            script = core.render(plan, "shell")
            self.post_message(PlanReady(plan, reports, script))
        except Exception as exc:
            self.post_message(PlanReady(None, [], "", f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc)))

    @on(PlanReady)
    def _ready(self, msg: PlanReady) -> None:
        head = self.query_one("#review-head", Static)
        if msg.error:
            self.error = msg.error
            self.run_when_ready = False
            head.update(Text(f"Cannot build the plan: {clean(self._as_fields(msg.error))}\nPress Escape to change "
                             f"the options.", style="bold red"))
            self.refresh_bindings()  # no plan: the footer stops offering Run and the exports
            return
        self.plan, self.reports, self.script = msg.plan, msg.reports, msg.script
        self.wizard.plan = msg.plan
        self.wizard.reports = msg.reports
        counts = {"ok": 0, "change": 0, "unknown": 0}
        for r in msg.reports:
            counts[r.check.status] = counts.get(r.check.status, 0) + 1
        text = Text(f"{getattr(msg.plan, 'title', 'Plan')}: {len(msg.reports)} steps, ", style="bold")
        text.append(f"{counts['change']} will change", style="yellow")
        text.append(", ")
        text.append(f"{counts['ok']} ok", style="green")
        text.append(", ")
        text.append(f"{counts['unknown']} unknown", style="magenta")
        text.append(".  x runs it, s/p/a export.")
        head.update(text)
        self.query_one(StepChecks).set_reports(msg.reports)
        changes = Text()
        # the columns the Changes tab gives its text (the screen less its borders, padding, scrollbar)
        width = max(40, (self.app.size.width or 80) - 6)
        for r in msg.reports:
            changes.append_text(description_text(r, width))
            changes.append("\n")
        for note in getattr(msg.plan, "notes", []) or []:
            changes.append(f"note: {clean(note)}\n", style="dim")
        self.query_one("#changes", Static).update(changes)
        self.query_one("#script", TextArea).load_text(msg.script)
        if self.run_when_ready:
            self.run_when_ready = False
            self._run()

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab
        self.call_after_refresh(self.focus_content)

    # -- export ----------------------------------------------------------------------------------
    def action_export(self, kind: str) -> None:
        if self.plan is None:
            self.notify("There is no plan to export yet.", severity="warning")
            return
        what, _fmt, name, _mode = EXPORTS[kind]
        from ..widgets.modals import ExportModal

        default = os.path.join(os.getcwd(), name)
        self.app.push_screen(ExportModal(what, default), lambda p, k=kind: self._export_to(k, p))

    def _export_to(self, kind: str, path) -> None:
        if not path:
            return
        what, fmt, _name, mode = EXPORTS[kind]
        from ..core import write_atomic

        try:
            if kind == "answers":
                text = self.wizard.core.answers_text(self.plan)
            elif fmt == "shell":
                text = self.script
            else:
                text = self.wizard.core.render(self.plan, fmt, self.reports)
            write_atomic(path, text, mode)
        except Exception as exc:
            self.notify(f"Could not save the {what}: {exc}", severity="error")
            return
        self.wizard.exports[kind] = path
        self.notify(f"Saved the {what} to {path}")

    # -- run ---------------------------------------------------------------------------------------
    def check_action(self, action: str, parameters) -> "bool | None":
        """Run and the exports are not offered when the plan could not be built (while it is being
        built, x still asks to run it once it is ready)."""
        if action in ("execute", "export") and self.plan is None and self.error is not None:
            return False  # hidden from the footer
        return True

    def _as_fields(self, message: str) -> str:
        """The plan engine speaks of command-line options and the answers file; on this screen the
        same choices are fields of the form: name the field (its label) instead."""
        import re

        try:
            fields = self.wizard.core.fields(self.wizard.system, self.wizard.diagnosis, self.path)
        except Exception:
            return message
        labels = {f.name: f.label for f in fields}
        out = re.sub(r"\s*\(answers file: [a-z_]+\)", "", message)

        def field(m: "re.Match[str]") -> str:
            name = m.group(1).replace("-", "_")
            return f"the field '{labels[name]}'" if name in labels else m.group(0)

        return re.sub(r"--([a-z][a-z-]*)", field, out)

    def action_execute(self) -> None:
        if self.plan is None:
            self.notify("There is no plan to run.", severity="warning")
            return
        pending = sum(1 for r in self.reports if r.check.status != "ok")
        if pending == 0:
            self.notify("Every step is already done: nothing to run.", severity="information")
        from ..widgets.modals import ConfirmModal

        if self.wizard.core.demo:
            question = f"Run the {len(self.reports)} steps? (Demo: simulated, nothing is changed.)"
        else:
            question = f"Run the {len(self.reports)} steps on this machine now?"
        note = SSH_NOTICE if ssh_without_multiplexer(self.wizard.environ) else ""
        self.app.push_screen(ConfirmModal(question, "Run", "Not now", note=note), self._confirmed)

    def _confirmed(self, yes) -> None:
        if not yes:
            return
        self._ask(list(self.wizard.core.confirmations(self.plan)), {})

    def _ask(self, questions, answered: Dict) -> None:
        """The plan's open yes/no questions (apt removing packages that are not ROCm's...), one
        modal each; a yes is a choice (``key``), so the plan is built again with it before it runs."""
        if questions:
            from ..widgets.modals import ConfirmModal

            q, rest = questions[0], questions[1:]
            self.app.push_screen(ConfirmModal(q["question"], "Yes", "No", note=f"Unattended runs (--yes) take it from {q.get('flag') or q['key']}."),
                                 lambda yes: self._ask(rest, {**answered, q["key"]: bool(yes)}))
            return
        chosen = {k: True for k, v in answered.items() if v}
        if chosen:
            self.values.update(chosen)
            self.wizard.values = dict(self.values)
            self.run_when_ready = True
            self.query_one("#review-head", Static).update("Building the plan again with your answers…")
            self.build()
            return
        self._run()

    def _run(self) -> None:
        from .execute import ExecuteScreen

        self.app.push_screen(ExecuteScreen(self.plan, self.reports))
