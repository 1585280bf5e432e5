"""1. Detection: every probe runs in its own thread worker; rows turn from a spinner into a result
as each finishes; then the merge pass and the diagnosis run, and a summary of the system shows."""
from __future__ import annotations

from typing import Iterable

from textual import on, work
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...termsafe import clean
from ..messages import DetectionDone, ProbeFinished
from ..text import SSH_NOTICE, probe_result_text, ssh_without_multiplexer, summary_rows
from ..widgets.probes import FAILED, OK, ProbeList, SummaryTable
from .base import WizardScreen


class DetectionScreen(WizardScreen):
    STEP = 1
    NAME = "Detection"
    BACK = False
    HELP = ("rocm-wizard first looks at this system: the OS and kernel, the GPUs and their gfx targets, "
            "ROCm and the amdgpu driver, Python environments with PyTorch, Docker, and whether you may "
            "use the GPU. It only reads files and runs read-only tools; nothing is changed. Each line "
            "turns from a spinner into a result as its probe finishes. When all are done, press n "
            "(or Enter) to see what is wrong.")

    BINDINGS = [
        Binding("n", "next", "Next"),
        Binding("enter", "next", "Next", show=False),
        Binding("r", "rerun", "Detect again"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.started = 0.0
        self.pending = 0
        self.system = None
        self.source = None
        self.done = False

    def body(self) -> Iterable:
        names = list(self.wizard.core.probe_names())
        with VerticalScroll(id="detect-body"):
            yield Static(self._intro(), id="detect-intro", markup=False)
            notice = self._root_notice()
            if notice:
                yield Static(notice, id="root-notice", classes="notice", markup=False)
            if ssh_without_multiplexer(self.wizard.environ):
                yield Static(SSH_NOTICE, id="ssh-notice", classes="notice", markup=False)
            yield ProbeList(names, id="probes")
            yield Static("", id="detect-status", markup=False)
            yield SummaryTable(id="summary")

    def _root_notice(self):
        """Root, said on the first screen (not when Run fails): only where Run would change this machine."""
        core = self.wizard.core
        live = getattr(core, "changes_this_machine", None)
        if not (live() if callable(live) else not (core.demo or getattr(core, "snapshot", None))):
            return None
        import os
        import sys

        from ...invoker import first_screen_notice

        euid = getattr(self.wizard, "euid", None)
        if euid is None:
            euid = os.geteuid() if hasattr(os, "geteuid") else 0
        return first_screen_notice(dict(self.wizard.environ), euid, sys.argv[0] if sys.argv else None)

    def _intro(self) -> str:
        if self.wizard.core.demo:
            return "Demo system: RX 7900 XT, Ubuntu 22.04, ROCm 6.2. Nothing here is changed."
        if getattr(self.wizard.core, "snapshot", None):
            return f"Reading the snapshot {self.wizard.core.snapshot}"
        return "Looking at this system (read-only)…"

    def on_mount(self) -> None:
        self.set_interval(0.1, self._tick, pause=not self.wizard.animate)
        self.start()

    def _tick(self) -> None:
        self.query_one(ProbeList).advance()

    def start(self) -> None:
        core = self.wizard.core
        self.done = False
        self.started = self.wizard.clock()
        probes = self.query_one(ProbeList)
        for name in probes.names:
            probes.set_row(name, "running", "", 0.0)
        self.query_one("#summary", SummaryTable).set_rows([])
        self.query_one("#detect-status", Static).update("")
        try:
            self.source = core.open_source()
        except Exception as exc:  # an unreadable snapshot: say so, never a traceback
            self.query_one("#detect-status", Static).update(f"Cannot read the system: {clean(exc)}")
            for name in probes.names:
                probes.set_row(name, FAILED, "not run", 0.0)
            return
        self.system = core.new_system(self.source)
        self.pending = len(probes.names)
        for name in probes.names:
            self.run_probe(name)

    @work(thread=True, group="probes", exit_on_error=False)
    def run_probe(self, name: str) -> None:
        t0 = self.wizard.clock()
        try:
            self.wizard.core.run_probe(name, self.source, self.system)
            ok, text = True, probe_result_text(name, self.system)
        except Exception as exc:
            from ...detect import probe_failed

            ok, text = False, f"{type(exc).__name__}: {exc}"
            probe_failed(self.system, name, exc)
        self.post_message(ProbeFinished(name, ok, text, self.wizard.clock() - t0))

    @on(ProbeFinished)
    def _probe_finished(self, msg: ProbeFinished) -> None:
        self.query_one(ProbeList).set_row(msg.name, OK if msg.ok else FAILED, msg.text, msg.seconds)
        self.pending -= 1
        if self.pending == 0:
            self.query_one("#detect-status", Static).update("Diagnosing…")
            self.finish()

    @work(thread=True, group="detect-finish", exit_on_error=False)
    def finish(self) -> None:
        try:
            diagnosis = self.wizard.core.finish(self.source, self.system)
            self.post_message(DetectionDone(self.system, diagnosis))
        except Exception as exc:
            self.post_message(DetectionDone(self.system, None, f"{type(exc).__name__}: {exc}"))

    @on(DetectionDone)
    def _done(self, msg: DetectionDone) -> None:
        self.done = True
        self.wizard.system = msg.system
        self.wizard.diagnosis = msg.diagnosis
        self.query_one("#summary", SummaryTable).set_rows(summary_rows(msg.system))
        took = self.wizard.clock() - self.started
        if msg.error or msg.diagnosis is None:
            status = f"Detected in {took:.1f}s, but the diagnosis failed: {msg.error}"
        else:
            problems = len(getattr(msg.diagnosis, "problems", []))
            what = f"{problems} problem{'s' if problems != 1 else ''} found" if problems else "no known problem found"
            status = f"Detected in {took:.1f}s: {what}. Press n for the findings."
        self.query_one("#detect-status", Static).update(status)

    def action_next(self) -> None:
        if not self.done:
            self.notify("Detection is still running.", severity="warning")
            return
        if self.wizard.diagnosis is None:
            self.notify("Without a diagnosis there is nothing to choose from; press r to try again.",
                        severity="error")
            return
        from .findings import FindingsScreen

        self.app.push_screen(FindingsScreen())

    def action_rerun(self) -> None:
        if self.done or self.pending <= 0:
            self.start()
