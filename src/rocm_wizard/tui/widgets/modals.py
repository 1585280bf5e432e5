"""Modal dialogs: yes/no confirmation, export to a file, and what to do after a failed step."""
from __future__ import annotations

import os
from typing import List, Optional, Tuple

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from ...termsafe import clean, clean_line


class ConfirmModal(ModalScreen[bool]):
    """A question with two answers; ``y``/``n`` work too.  Dismisses with True for yes."""

    BINDINGS = [Binding("y", "answer(True)", "Yes", show=False), Binding("n", "answer(False)", "No", show=False),
                Binding("escape", "answer(False)", "Cancel")]

    def __init__(self, question: str, yes: str = "Yes", no: str = "No", note: str = "") -> None:
        super().__init__()
        self.question = question
        self.yes = yes
        self.no = no
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question, classes="question")
            if self.note:
                yield Static(self.note, classes="note")
            with Horizontal(classes="buttons"):
                yield Button(self.yes, id="yes", variant="primary")
                yield Button(self.no, id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


def check_export_path(text: str) -> Optional[str]:
    """Why ``text`` cannot be written as an export file, or None."""
    t = (text or "").strip()
    if not t:
        return "a file name is required"
    if "\0" in t:
        return "the name contains a NUL character"
    p = os.path.abspath(os.path.expanduser(t))
    if os.path.isdir(p):
        return "that is a directory: add a file name"
    parent = os.path.dirname(p)
    probe = parent
    while probe and not os.path.exists(probe):
        probe = os.path.dirname(probe)
    if probe and not os.path.isdir(probe):
        return f"{probe} is not a directory"
    if probe and not os.access(probe, os.W_OK):
        return f"no permission to write in {probe}"
    return None


class ExportModal(ModalScreen[Optional[str]]):
    """Asks where to save; validates as the user types; dismisses with the path or None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, what: str, default_path: str) -> None:
        super().__init__()
        self.what = what
        self.default_path = default_path
        self.replace_confirmed: Optional[str] = None  # the existing file the user agreed to replace

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(f"Save the {self.what} to:", classes="question")
            yield Input(self.default_path, id="path")
            yield Static("", id="path-error", classes="error", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Save", id="save", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        field = self.query_one(Input)
        field.cursor_blink = bool(getattr(self.app, "animate", True))
        field.focus()
        self._check(self.default_path)

    def _check(self, value: str) -> bool:
        err = check_export_path(value)
        self.query_one("#path-error", Static).update(err or "")
        self.query_one("#save", Button).disabled = err is not None
        return err is None

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self.replace_confirmed = None
        self._check(event.value)

    def _accept(self, value: str) -> None:
        """Save to ``value``; an existing file is replaced only when Save is pressed a second time
        for the same path (never silently)."""
        if not self._check(value):
            return
        path = os.path.abspath(os.path.expanduser(value.strip()))
        if os.path.lexists(path) and self.replace_confirmed != path:
            self.replace_confirmed = path
            self.query_one("#path-error", Static).update(
                f"{path} already exists: press Save (or Enter) again to replace it, or change the name")
            return
        self.dismiss(path)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self._accept(event.value)

    @on(Button.Pressed, "#save")
    def _save(self) -> None:
        self._accept(self.query_one(Input).value)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class FailureModal(ModalScreen[str]):
    """A step failed: show its error; answer ``retry``, ``skip`` (only when safe) or ``stop``."""

    BINDINGS = [Binding("r", "choose('retry')", "Retry"), Binding("s", "choose('skip')", "Skip"),
                Binding("t", "choose('stop')", "Stop")]

    def __init__(self, title: str, error: str, can_skip: bool, why_not_skip: str = "") -> None:
        super().__init__()
        self.step_title = title
        self.error = error
        self.can_skip = can_skip
        self.why_not_skip = why_not_skip

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog failure"):
            yield Static(f"Step failed: {clean_line(self.step_title)}", classes="question", markup=False)
            with VerticalScroll(classes="error-box"):
                yield Static(clean(self.error) or "(no error text)", classes="error", markup=False)
            if not self.can_skip:
                yield Static(self.why_not_skip or "Skipping is not safe here: later steps depend on this one.",
                             classes="note")
            with Horizontal(classes="buttons"):
                yield Button("Retry", id="retry", variant="primary")
                yield Button("Skip", id="skip", disabled=not self.can_skip)
                yield Button("Stop", id="stop", variant="error")

    def on_mount(self) -> None:
        self.query_one("#retry", Button).focus()

    def action_choose(self, choice: str) -> None:
        if choice == "skip" and not self.can_skip:
            self.notify("This step cannot be skipped safely.", severity="warning")
            return
        self.dismiss(choice)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.action_choose(event.button.id or "stop")


class HelpModal(ModalScreen[None]):
    """Keys of the wizard and what the current screen is for."""

    BINDINGS = [Binding("escape,question_mark,q", "close", "Close")]

    def __init__(self, screen_title: str, screen_help: str, keys: List[Tuple[str, str]]) -> None:
        super().__init__()
        self.screen_title = screen_title
        self.screen_help = screen_help
        self.keys = keys

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog help"):
            # how to close it first: at 80x24 the end of the help is below the fold
            yield Static(f"Help: {self.screen_title}  (Escape or ? closes)", classes="question")
            yield Static(self.screen_help, classes="help-text", markup=False)
            lines = "\n".join(f"  {k:<18} {d}" for k, d in self.keys)
            yield Static("Keys\n" + lines, classes="help-keys", markup=False)
            yield Static("Everything works with the keyboard alone; no mouse is needed. "
                         "Press Escape or ? to close this help.", classes="note")

    def action_close(self) -> None:
        self.dismiss(None)
