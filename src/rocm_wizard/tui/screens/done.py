"""8. Done: what changed, whether a reboot is needed, where the log is, and the answers file
written for a ``--yes`` replay."""
from __future__ import annotations

import re
from typing import Iterable, Optional, Tuple

from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...plan import after
from ...termsafe import clean_line
from ..text import replay_command
from .base import WizardScreen


def docker_start(plan) -> Optional[Tuple[str, str]]:
    """How to start the container the Docker way set up: (its run script, the compose command), or
    None for a plan without a run script."""
    from ...plan.shellquote import q

    step = next((s for s in getattr(plan, "steps", []) if s.kind == "docker-run-script"), None)
    if step is None:
        return None
    d = step.params["dir"].rstrip("/")
    return (q(f"{d}/{step.params['script']}"),
            f"cd {q(d)} && docker compose run --rm pytorch")


def fit(text: Text, commands: set, width: int) -> Text:
    """``text`` with each prose line wrapped to ``width`` between words, never inside a command it
    quotes (``commands/_output.wrap_prose``), and each line of ``commands`` left whole on its own line
    (the screen scrolls sideways rather than wrap one: a command is copied as a line).  The Static
    showing it does not wrap (``text-wrap: nowrap``)."""
    from ...commands._output import wrap_prose

    out = Text()
    lines = text.split("\n", allow_blank=True)
    for k, line in enumerate(lines):
        plain = line.plain
        if plain in commands or len(plain) <= width or not plain.strip():
            out.append_text(line)
        else:
            indent = len(plain) - len(plain.lstrip(" "))
            words = [m.span() for m in re.finditer(r"\S+", plain)]
            pieces = wrap_prose(plain.strip(), width - indent - 2, first_width=width - indent)
            at = 0
            for n, piece in enumerate(pieces):
                count = len(piece.split())  # a piece is whole words of the line, in order
                if n:
                    out.append("\n" + " " * (indent + 2))
                start, end = words[at][0], words[at + count - 1][1]
                out.append_text(line[start if n else 0:end])  # the words as they were, with their styles
                at += count
        if k < len(lines) - 1:
            out.append("\n")
    return out


class DoneScreen(WizardScreen):
    STEP = 8
    NAME = "Done"
    BACK = False
    HELP = ("The summary of the run: what changed, whether a reboot is needed, where the log is, and "
            "the answers file that replays the same choices unattended with --yes. q or Enter quits.")

    BINDINGS = [Binding("enter", "quit_wizard", "Quit", show=False)]

    def body(self) -> Iterable:
        with VerticalScroll(id="done"):
            yield Static(self.summary(), id="done-text")

    def on_resize(self, event) -> None:
        # prose is wrapped to the width here (commands never are): again at a new width
        if self.query("#done-text"):
            self.query_one("#done-text", Static).update(self.summary())

    def on_mount(self) -> None:
        w = self.wizard
        if w.answers_path is None and getattr(w.outcome, "answers_path", None):
            w.answers_path = w.outcome.answers_path
        if w.plan is not None and w.answers_path is None:
            try:
                w.answers_path = w.core.write_answers(w.plan)
            except Exception as exc:
                w.answers_error = str(exc)
        self.query_one("#done-text", Static).update(self.summary())

    def summary(self) -> Text:
        w = self.wizard
        out = Text()
        cmds: set = set()  # lines that are commands: shown whole, never wrapped
        o = w.outcome
        status = getattr(o, "status", None)
        headline = {"done": ("The plan ran to the end.", "bold green"),
                    "failed": ("The run stopped at a failed step.", "bold red"),
                    "cancelled": ("The run was cancelled at a safe point.", "bold yellow")}.get(
            status, ("Nothing was run.", "bold"))
        out.append(headline[0], style=headline[1])
        if getattr(o, "simulated", False):
            out.append("  Demo: simulated, nothing on this machine was changed.", style="italic")
        out.append("\n\n")
        reboot = bool(getattr(o, "reboot", False))
        out.append("Reboot: ", style="bold")
        out.append("needed (a new kernel driver was installed)\n" if reboot else "not needed\n")
        r = w.verify_report
        if r is not None and not reboot:
            out.append("Smoke test: ", style="bold")
            out.append(r.headline + "\n", style="green" if r.status == "ok" else "red")
        elif reboot and status == "done":
            out.append("Smoke test: ", style="bold")
            out.append("not run yet: the new kernel driver is used only after the reboot\n", style="yellow")
        kept = after.kept_venv(w.plan)
        if kept.get("venv") and status == "done":
            out.append(f"Your venv {clean_line(kept['venv'])} is untouched: it still has torch "
                       f"{clean_line(kept.get('torch_now') or '?')}.\n")
        steps = w.core.next_steps(w.plan, o, w.system)
        if steps:
            out.append("After the reboot, run:\n" if reboot else "Next, run:\n", style="bold")
            for n, line in enumerate(steps, 1):
                cmds.add(f"  {n}. {clean_line(line)}")
                out.append(f"  {n}. {clean_line(line)}\n")
        titles = {s.id: s.title for s in getattr(w.plan, "steps", [])}
        results = getattr(o, "results", {}) or {}
        changed = [sid for sid, st in results.items() if st == "changed"]
        out.append("\nWhat changed\n", style="bold")
        if changed:
            for sid in changed:
                out.append(f"  ✓ {titles.get(sid, sid)}\n")
        else:
            out.append("  nothing\n")
        others = [(sid, st) for sid, st in results.items() if st in ("skipped", "failed")]
        for sid, st in others:
            out.append(f"  {'✗' if st == 'failed' else '-'} {titles.get(sid, sid)}: {st}\n",
                       style="red" if st == "failed" else "yellow")
        if getattr(o, "error", None):
            out.append(f"  error: {o.error}\n", style="red")
        out.append("\n")
        if getattr(o, "log_path", None):
            out.append("Log: ", style="bold")
            out.append(f"{o.log_path}\n")
        if w.core.demo:  # its answers name the demo machine's venv and go when the demo quits: never offered
            out.append("Answers file: ", style="bold")
            out.append("none kept: the demo's choices are for the demo machine, and its files go when you quit\n")
            out.append("Replay unattended ", style="bold")
            out.append("(on your machine, as root, with the answers file your own run writes):\n")
            cmds.add(f"  {replay_command('FILE')}")
            out.append(f"  {replay_command('FILE')}\n")
        elif w.answers_path:
            out.append("Answers file: ", style="bold")
            out.append(f"{w.answers_path}\n")
            out.append("Replay unattended: ", style="bold")
            cmds.add(f"Replay unattended: {replay_command(w.answers_path)}")  # a whole line
            out.append(replay_command(w.answers_path) + "\n")
        elif w.answers_error:
            out.append(f"The answers file could not be written: {w.answers_error}\n", style="red")
        start = docker_start(w.plan)
        if start and status == "done":
            out.append("Start the container: ", style="bold")
            cmds.update({f"Start the container: {start[0]}", f"  or: {start[1]}"})  # whole lines
            out.append(f"{start[0]}\n")
            out.append(f"  or: {start[1]}\n")
        for kind, path in sorted(w.exports.items()):
            out.append(f"Saved {kind}: {path}\n")
        if status == "done":
            import sys

            from ...invoker import root_command

            me = root_command(sys.argv[0] if sys.argv else None) if not w.core.demo else None
            lines = after.reminders(w.plan, changed, me) if me else after.reminders(w.plan, changed)
            if lines:  # the same rule as --yes (a command is a line of its own, indented)
                cmds.update(ln for ln in lines if ln.startswith("    "))
                out.append("\n" + "\n".join(lines) + "\n")
        if status in ("failed", "cancelled") and not w.core.demo:
            import sys

            from ...invoker import root_command

            me = root_command(sys.argv[0] if sys.argv else None)
            out.append("\nContinue the run (as root):\n", style="bold")
            cmds.update({f"  {me} resume", f"  {me} rollback"})
            out.append(f"  {me} resume\n")
            out.append("or restore what it replaced:\n", style="bold")
            out.append(f"  {me} rollback\n")
        if w.core.demo:
            out.append("\nThe demo's simulated run log is removed when you quit.", style="dim")
        out.append("\nq quits.", style="dim")
        return fit(out, cmds, self._width())

    def _width(self) -> int:
        """The text's width: the screen's, less the padding, the scrollbar's two columns and one between (kept
        whether it shows or not, so that a line never reflows when it comes)."""
        return max(20, (self.app.size.width or 80) - 5)
