"""7. Verify: the GPU smoke test of the result (the venv, or the image), shown by layer of the
stack (driver, runtime, wheel, BLAS, triton, compile...)."""
from __future__ import annotations

from typing import Iterable, List, Tuple

from rich.text import Text
from textual import on, work
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Log, Static

from ...termsafe import clean
from ..messages import VerifyDone, VerifyProgress
from .base import WizardScreen

STATUS_STYLE = {"pass": "green", "fail": "bold red", "skip": "yellow"}


def checks_by_layer(report) -> List[Tuple[str, List]]:
    """[(layer, [CheckResult])] in the stack's order (lowest layer first)."""
    try:
        from ...verify.layers import layer_order, rules

        order = layer_order()
        names = dict(rules().get("check_layers", {}))
    except Exception:
        order, names = [], {}
    groups = {}
    for c in report.checks:
        groups.setdefault(names.get(c.name, "other"), []).append(c)
    keys = [k for k in order if k in groups] + [k for k in groups if k not in order]
    return [(k, groups[k]) for k in keys]


def report_text(report, simulated: bool = False) -> Text:
    out = Text()
    head_style = "bold green" if report.status == "ok" else "bold red"
    out.append(report.headline + ("  (simulated)" if simulated else ""), style=head_style)
    out.append("\n")
    for d in report.devices:
        out.append(f"  GPU {d.index}: {d.name or '?'} ({d.arch or '?'})\n", style="dim")
    for layer, checks in checks_by_layer(report):
        marks = Text()
        for c in checks:
            marks.append(f" {c.name}{c.where} ", style=STATUS_STYLE.get(c.status, ""))
            marks.append("✓" if c.status == "pass" else ("✗" if c.status == "fail" else "-"),
                         style=STATUS_STYLE.get(c.status, ""))
        worst = "fail" if any(c.status == "fail" for c in checks) else (
            "pass" if any(c.status == "pass" for c in checks) else "skip")
        out.append(f" {layer:<11}", style="bold " + STATUS_STYLE.get(worst, ""))
        out.append_text(marks)
        out.append("\n")
        for c in checks:
            if c.status == "fail" and c.reason:
                out.append(f"     {c.name}{c.where}: {c.reason}\n", style="red")
    for f in report.figures:
        out.append(f"  {f.name}[{f.device}] {f.value:.1f} {f.unit}" + (f" ({f.fraction:.0%} of peak)" if f.fraction else "")
                   + "\n")
    for d in report.diagnoses:
        out.append(f"  {d.severity}: {d.headline}\n", style="red" if d.severity == "error" else "yellow")
        if d.advice:
            out.append(f"    {d.advice}\n")
    if report.error:
        out.append(f"  {clean(report.error)}\n", style="red")
    return out


class VerifyScreen(WizardScreen):
    STEP = 7
    NAME = "Verify"
    BACK = False
    HELP = ("The GPU smoke test runs in a separate process against the result: import torch, device "
            "access, allocation, elementwise ops, matrix products on both BLAS paths, Triton and "
            "torch.compile. Results are grouped by the layer of the stack a failure would point at. "
            "r runs it again, n shows the summary.")

    BINDINGS = [Binding("n", "next", "Next"), Binding("r", "rerun", "Run again")]

    def __init__(self) -> None:
        super().__init__()
        self.report = None
        self.running = False

    def body(self) -> Iterable:
        yield Static("Running the GPU smoke test…", id="verify-head", markup=False)
        with VerticalScroll(id="verify-body"):
            yield Static("", id="verify-result")
        yield Log(id="verify-log", max_lines=2000)

    def on_mount(self) -> None:
        self.start()

    def start(self) -> None:
        self.running = True
        self.report = None
        self.query_one(Log).clear()
        self.query_one("#verify-result", Static).update("")
        self.query_one("#verify-head", Static).update("Running the GPU smoke test…")
        self.smoke()

    @work(thread=True, exclusive=True, group="verify", exit_on_error=False)
    def smoke(self) -> None:
        try:
            report = self.wizard.core.verify(self.wizard.plan, self.wizard.system,
                                             lambda line: self.post_message(VerifyProgress(line)))
            self.post_message(VerifyDone(report))
        except Exception as exc:
            self.post_message(VerifyDone(None, f"{type(exc).__name__}: {exc}"))

    @on(VerifyProgress)
    def _progress(self, msg: VerifyProgress) -> None:
        self.query_one(Log).write_line(msg.line)

    @on(VerifyDone)
    def _done(self, msg: VerifyDone) -> None:
        self.running = False
        self.report = msg.report
        self.wizard.verify_report = msg.report
        head = self.query_one("#verify-head", Static)
        if msg.report is None:
            head.update(Text(f"The smoke test could not run: {clean(msg.error)}", style="bold red"))
            return
        head.update(Text("Smoke test finished. n shows the summary.", style="bold"))
        self.query_one("#verify-result", Static).update(report_text(msg.report, self.wizard.core.simulated))
        self.refresh_bindings()

    def check_action(self, action: str, parameters):
        if action in ("next", "rerun"):
            return None if self.running else True
        return super().check_action(action, parameters)

    def action_rerun(self) -> None:
        if not self.running:
            self.start()

    def action_next(self) -> None:
        if self.running:
            return
        from .done import DoneScreen

        self.app.push_screen(DoneScreen())
