"""The wizard app: ``rocm-wizard`` with no mode flag (or ``--demo``) lands in :func:`run`.

The app holds the state of the walk (system, diagnosis, choices, plan, outcome, verify report);
the screens read and set it, and every long piece of work runs in a worker that posts messages.
"""
from __future__ import annotations

import os
import sys
import time
from typing import Any, Callable, Dict, Mapping, Optional

from textual.app import App
from textual.binding import Binding

from .. import exitcodes
from ..termsafe import clean
from .core import Core, make_core

CSS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wizard.tcss")


class WizardApp(App[int]):
    CSS_PATH = CSS_FILE
    TITLE = "rocm-wizard"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [Binding("ctrl+c", "request_quit", "Quit", show=False, priority=True),
                Binding("ctrl+q", "request_quit", "Quit", show=False, priority=True)]

    def __init__(self, core: Core, *, environ: Optional[Mapping[str, str]] = None, animate: bool = True,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.core = core
        self.environ: Mapping[str, str] = dict(os.environ if environ is None else environ)
        self.animate = animate  # False: spinners and cursors stand still (tests, snapshots)
        self.clock = clock  # durations shown on screen
        # the walk's state
        self.system: Any = None
        self.diagnosis: Any = None
        self.path: Optional[str] = None
        self.values: Dict[str, Any] = {}
        self.plan: Any = None
        self.reports: list = []
        self.outcome: Any = None
        self.verify_report: Any = None
        self.answers_path: Optional[str] = None
        self.answers_error: Optional[str] = None
        self.exports: Dict[str, str] = {}

    @property
    def mode_label(self) -> str:
        if self.core.demo:
            return "DEMO"
        if getattr(self.core, "snapshot", None):
            return "snapshot"
        return ""

    def on_mount(self) -> None:
        from .screens.detection import DetectionScreen

        self.push_screen(DetectionScreen())

    # -- leaving ---------------------------------------------------------------------------------
    def exit_status(self) -> int:
        o = self.outcome
        if o is None:
            return exitcodes.OK
        if o.status == "cancelled":
            return exitcodes.INTERRUPTED
        if o.status == "failed":
            return exitcodes.ERROR
        r = self.verify_report
        if r is not None and getattr(r, "status", "ok") != "ok":
            return exitcodes.PENDING
        return exitcodes.OK

    def _running_screen(self):
        from .screens.execute import ExecuteScreen

        for s in self.screen_stack:
            if isinstance(s, ExecuteScreen) and s.running:
                return s
        return None

    def request_quit(self) -> None:
        from .widgets.modals import ConfirmModal

        running = self._running_screen()
        if running is not None:
            self.push_screen(ConfirmModal("A run is in progress. Stop it after the current step and quit?",
                                          "Stop and quit", "Keep running"),
                             lambda yes: self._stop_and_quit(running) if yes else None)
            return
        self._leave()

    def farewell(self) -> Optional[str]:
        """What to print on leaving after a run that did not finish: how to continue it."""
        o = self.outcome
        if o is None or o.status not in ("cancelled", "failed"):
            return None
        what = "stopped at a safe point" if o.status == "cancelled" else "stopped at a failed step"
        if self.core.demo:
            return (f"rocm-wizard: the run {what} (demo: simulated, nothing to resume; on a real machine "
                    "`sudo \"$(command -v rocm-wizard)\" resume` continues it)")
        from ..invoker import root_command
        from ..plan.shellquote import q

        # the runs are root's (/var/log/rocm-wizard): the commands root can find, whole, one a line
        me = root_command(sys.argv[0] if sys.argv else None)
        run = q(o.run_dir) if o.run_dir else ""
        text = f"rocm-wizard: the run {what}; continue it with:\n    {me} resume {run}".rstrip()
        if o.status == "failed":
            text += f"\nor restore what it replaced with:\n    {me} rollback {run}".rstrip()
        if o.log_path:
            text += f"\nlog: {o.log_path}"
        return text

    def _leave(self) -> None:
        code = self.exit_status()
        self.exit(result=code, return_code=code)

    def action_request_quit(self) -> None:
        self.request_quit()

    def _stop_and_quit(self, screen) -> None:
        screen.cancel_requested = True
        screen.control.cancel()
        self.set_interval(0.2, self._maybe_exit)

    def _maybe_exit(self) -> None:
        if self._running_screen() is None:
            self._leave()


def _forget_stale_size() -> None:
    """An exported COLUMNS / LINES pins the size Textual reads, so a resized terminal would keep
    the old layout; drop them when the terminal itself can tell its size (a serial console that
    cannot keeps them)."""
    try:
        size = os.get_terminal_size(sys.stdout.fileno())
    except (OSError, ValueError):
        return
    if size.columns > 0 and size.lines > 0:
        os.environ.pop("COLUMNS", None)
        os.environ.pop("LINES", None)


def run(args) -> int:
    """Entry point of the TUI (``rocm-wizard`` / ``rocm-wizard --demo``); returns the exit status."""
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        print("rocm-wizard: the interactive wizard needs a terminal; use --plan-only or --yes "
              "for scripts and pipes", file=sys.stderr)
        return exitcodes.USAGE
    _forget_stale_size()
    try:
        core = make_core(args)
    except Exception as exc:
        print(f"rocm-wizard: {exc}", file=sys.stderr)
        return exitcodes.ERROR
    return run_app(WizardApp(core))


def run_app(app: WizardApp) -> int:
    """Run the wizard, then say how to continue a run it left unfinished; what the core made for
    itself (the demo's temporary directory) is removed, also when the app fails."""
    try:
        app.run()
    finally:
        app.core.cleanup()
    message = app.farewell()
    if message:
        print(clean(message), file=sys.stderr)
    return int(app.return_code or 0)
