"""4. Options of the chosen path, validated as the user types: a choice offers only values the
catalog says work for this GPU and OS; text fields show their error under them; Next is refused
while any field is invalid."""
from __future__ import annotations

from typing import Any, Dict, Iterable

from textual import on, work
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Checkbox, Input, Label, Select, SelectionList, Static

from .. import fields as F
from .base import WizardScreen
from .paths import PATH_TITLES


class OptionsScreen(WizardScreen):
    STEP = 4
    NAME = "Options"
    HELP = ("The options of the way out you chose. Tab moves between fields. A list (Enter opens it) "
            "offers only versions that are known to work with this GPU and OS; a text field is checked "
            "as you type and says what is wrong under it. Press ctrl+n (or n outside a text field) to "
            "build the plan; nothing is changed yet.")

    BINDINGS = [Binding("ctrl+n", "next", "Next: plan"), Binding("n", "next", "Next", show=False)]

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        self.fields = []
        self.error = None

    def body(self) -> Iterable:
        try:
            self.fields = self.wizard.core.fields(self.wizard.system, self.wizard.diagnosis, self.path)
        except Exception as exc:
            self.fields = []
            self.error = f"{type(exc).__name__}: {exc}"
        with VerticalScroll(id="options"):
            yield Static(f"{PATH_TITLES.get(self.path, self.path)}: options", id="options-head", markup=False)
            yield Static(self.wizard.core.catalog_date(), id="catalog-date", classes="field-help", markup=False)
            if self.error:
                yield Static(f"Cannot offer options: {self.error}", classes="error", markup=False)
            for f in self.fields:
                with Vertical(classes="field", id=f"field-{f.name}"):
                    if f.kind == F.FLAG:
                        yield Checkbox(f.label, bool(f.value), id=f"in-{f.name}")
                    elif f.kind == F.CHECKLIST:
                        yield Label(f.label, classes="field-label")
                        yield SelectionList(*[(label, value, value in (f.value or [])) for value, label in f.choices],
                                            id=f"in-{f.name}", classes="checklist")
                        yield Static(self._total(f), id=f"total-{f.name}", classes="field-total", markup=False)
                        yield Static(self._why(f, 0), id=f"why-{f.name}", classes="field-help", markup=False)
                        if f.notes:  # in use: shown, not tickable
                            yield Static("\n".join(f.notes), id=f"held-{f.name}", classes="field-held", markup=False)
                    else:
                        yield Label(f.label, classes="field-label")
                        if f.kind == F.CHOICE:
                            if f.choices:
                                yield Select([(label, value) for value, label in f.choices], value=f.value,
                                             allow_blank=False, id=f"in-{f.name}", compact=True)
                            else:
                                yield Static("no valid value for this system", classes="error")
                        else:
                            yield Input(str(f.value or ""), placeholder=f.placeholder, id=f"in-{f.name}",
                                        compact=True)
                    yield Static(f.help, classes="field-help", markup=False)
                    yield Label(f.error() or "", classes="error field-error", id=f"err-{f.name}", markup=False)

    def _core_fields(self, release: Any) -> None:
        """The Core SDK's mirror and key fields only while a Core SDK release is chosen (the legacy
        ones stay: repo.radeon.com also serves a Core SDK plan's kernel driver)."""
        show = F.is_core_release(release)
        for name in F.CORE_ONLY_FIELDS:
            for box in self.query(f"#field-{name}"):
                box.display = show

    def on_mount(self) -> None:
        rel = next((f.value for f in self.fields if f.name == "rocm"), None)
        if rel is not None:
            self._core_fields(rel)
        if any(f.kind == F.CHECKLIST for f in self.fields) and self.wizard.core.sizes_pending():
            self.count_sizes()
        if not self.wizard.animate:
            for w in self.query(Input):
                w.cursor_blink = False
        first = self.query("Select, Input, Checkbox, SelectionList")
        if first:
            first.first().focus()

    def _field(self, widget_id: str):
        name = (widget_id or "")[3:]
        return next((f for f in self.fields if f.name == name), None)

    def _update(self, widget_id: str, value) -> None:
        f = self._field(widget_id)
        if f is None:
            return
        f.value = value
        self.query_one(f"#err-{f.name}", Label).update(f.error() or "")

    @on(Input.Changed)
    def _input(self, event: Input.Changed) -> None:
        self._update(event.input.id or "", event.value)

    @on(Select.Changed)
    def _select(self, event: Select.Changed) -> None:
        if event.value is not Select.BLANK:
            self._update(event.select.id or "", event.value)
            if event.select.id == "in-rocm":
                self._core_fields(event.value)
        if event.select.id == "in-torch" and self.query("#in-torch_index_url"):
            # the index field's example follows the chosen build's index (rocm6.2.4, rocm7.0...)
            self.query_one("#in-torch_index_url", Input).placeholder = F.index_placeholder(event.value)

    @work(thread=True, exclusive=True, group="clean-sizes", exit_on_error=False)
    def count_sizes(self) -> None:
        """Count the clean list's sizes off the screen's thread, then redraw the checklist."""
        self.wizard.core.count_sizes()
        self.app.call_from_thread(self._sizes_counted)

    def _sizes_counted(self) -> None:
        items = {i.id: i for i in self.wizard.core.clean_items_cached()}
        for f in self.fields:
            if f.kind != F.CHECKLIST:
                continue
            f.choices = [(v, F.clean_label(items[v]) if v in items else label) for v, label in f.choices]
            sl = self.query_one(f"#in-{f.name}", SelectionList)
            picked, at = set(sl.selected), sl.highlighted
            sl.clear_options()
            sl.add_options([(label, v, v in picked) for v, label in f.choices])
            if at is not None:
                sl.highlighted = at
            self.query_one(f"#total-{f.name}", Static).update(self._total(f))

    def _total(self, f) -> str:
        if not f.choices:
            return "nothing can go"
        core = self.wizard.core
        items = core.clean_items_cached()
        if core.sizes_pending():
            return f"{len(f.value or [])} of {len(f.choices)} picked (counting the sizes...)"
        return F.size_total(items, f.value or []) if items else f"{len(f.value or [])} of {len(f.choices)} picked"

    def _why(self, f, index) -> str:
        items = {i.id: i for i in self.wizard.core.clean_items_cached()}
        if index is None or not (0 <= index < len(f.choices)):
            return ""
        it = items.get(f.choices[index][0])
        return f"Why: {it.why}" if it is not None else ""

    @on(SelectionList.SelectionHighlighted)
    def _checklist_highlight(self, event: SelectionList.SelectionHighlighted) -> None:
        f = self._field(event.selection_list.id or "")
        if f is not None:
            self.query_one(f"#why-{f.name}", Static).update(self._why(f, event.selection_index))

    @on(SelectionList.SelectedChanged)
    def _checked(self, event: SelectionList.SelectedChanged) -> None:
        sl = event.selection_list
        self._update(sl.id or "", list(sl.selected))
        f = self._field(sl.id or "")
        if f is not None:
            self.query_one(f"#total-{f.name}", Static).update(self._total(f))

    @on(Checkbox.Changed)
    def _checkbox(self, event: Checkbox.Changed) -> None:
        self._update(event.checkbox.id or "", event.value)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.focus_next()

    def errors(self) -> Dict[str, str]:
        return F.errors(self.fields)

    def action_next(self) -> None:
        if self.error or not self.fields:
            self.notify("There are no options to build a plan from.", severity="error")
            return
        errs = self.errors()
        if errs:
            name, msg = next(iter(errs.items()))
            label = next((f.label for f in self.fields if f.name == name), name)
            self.notify(f"{label}: {msg}", severity="error", title="Fix the options first")
            return
        self.wizard.values = F.values(self.fields)
        from .review import ReviewScreen

        self.app.push_screen(ReviewScreen(self.path, dict(self.wizard.values)))
