"""The verify report as text for a terminal (Rich; only human output imports this module)."""
from __future__ import annotations

import io
from typing import List

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from ..termsafe import clean, clean_line
from .report import CheckResult, Report

_STATUS_STYLE = {"pass": ("PASS", "green"), "fail": ("FAIL", "bold red"), "skip": ("skip", "dim")}


def _gib(n) -> str:
    return f"{n / 2**30:.1f} GiB" if isinstance(n, int) and n > 0 else "?"


def _header(report: Report) -> Text:
    t = report.target
    where = {"docker": f"image {t.image}", "venv": f"venv {t.venv}"}.get(t.kind, t.python or "?")
    text = Text("rocm-wizard verify", style="bold")
    text.append(f"  {clean_line(where)}")
    torch = report.torch
    if torch.get("version"):
        runtime = {"rocm": f"ROCm/HIP {torch.get('hip')}", "cuda": f"CUDA {torch.get('cuda')}",
                   "cpu": "CPU-only"}.get(torch.get("build"), torch.get("build") or "?")
        text.append(f"  torch {torch['version']} ({runtime})")
    if report.duration_s is not None:
        text.append(f"  {report.duration_s:.1f}s")
    return text


def _devices(report: Report) -> List[Text]:
    lines = []
    for d in report.devices:
        line = Text(f"GPU {d.index}: ", style="bold")
        line.append(d.name or "?")
        parts = [d.gcn_arch_name or d.arch or "?", _gib(d.total_memory_bytes)]
        if d.multi_processor_count:
            parts.append(f"{d.multi_processor_count} CUs/SMs")
        if d.covered_by_wheel is True:
            parts.append("the wheel has its kernels")
        elif d.covered_by_wheel is False:
            parts.append("NO kernels in the wheel")
        line.append("  " + " · ".join(parts), style="dim" if d.covered_by_wheel is not False else "red")
        lines.append(line)
    return lines


def _checks(report: Report, verbose: bool) -> Table:
    table = Table(show_header=False, box=None, padding=(0, 1), expand=False)
    table.add_column(width=4)
    table.add_column(no_wrap=True)
    table.add_column(justify="right", no_wrap=True)
    table.add_column(overflow="fold")
    for c in report.checks:
        word, style = _STATUS_STYLE.get(c.status, ("?", ""))
        secs = f"{c.seconds:.2f}s" if c.status != "skip" else ""
        reason = Text(c.reason or "")
        if c.status == "fail" and (verbose or c.details.get("timed_out") or c.details.get("signal")):
            tail = _tail(c)
            if tail:
                reason.append("\n" + tail, style="dim")
        table.add_row(Text(word, style=style), Text(c.name + c.where), secs, reason)
    return table


def _tail(c: CheckResult, lines: int = 6) -> str:
    text = c.stderr_tail or c.details.get("traceback") or ""
    if not isinstance(text, str):
        return ""
    return "\n".join(text.strip().splitlines()[-lines:])


def _figures(report: Report) -> Table:
    table = Table(show_header=False, box=None, padding=(0, 1))
    for _ in range(4):
        table.add_column()
    for f in report.figures:
        label = f"{f.name} {f.dtype}" if f.dtype else f.name
        value = f"{f.value:,.1f} {f.unit}" if f.value < 100 else f"{f.value:,.0f} {f.unit}"
        if f.peak is not None and f.fraction is not None:
            note = Text(f"{f.fraction * 100:.0f}% of the {f.peak:,.0f} peak ({f.peak_key}, {f.peak_status})",
                        style="bold yellow" if f.flagged else "dim")
            if f.flagged:
                note.append("  far below peak")
        else:
            note = Text("no peak on record for this card", style="dim")
        table.add_row(Text(label), Text(f"device {f.device}"), value, note)  # (Text: no markup from the report)
    return table


def _facts(rows) -> Table:
    """Label/value lines, indented; long values wrap under their value column."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=3)
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for label, value, style in rows:
        if value:
            grid.add_row("", Text(label, style=style), Text(value, style=style))
    return grid


def _verdict(report: Report) -> list:
    out: list = []
    if report.error is not None:
        out.append(Text(f"ERROR  the smoke test could not run: {clean_line(report.error)}", style="bold red"))
        if report.stderr_tail:
            out.append(Text(clean(report.stderr_tail).strip(), style="dim"))
        return out
    counts = {s: sum(1 for c in report.checks if c.status == s) for s in ("pass", "fail", "skip")}
    if report.status == "ok":
        line = Text("OK", style="bold green")
        line.append(f"  every applicable check passed ({counts['pass']} passed, {counts['skip']} skipped)")
        out.append(line)
    else:
        line = Text("FAILED", style="bold red")
        line.append(f"  {report.headline}", style="bold")
        out.append(line)
        out.append(Text(f"        {counts['fail']} failed, {counts['pass']} passed, {counts['skip']} skipped"))
    for i, d in enumerate(report.errors):
        if i:  # the first one is the headline above
            out.append(Text(f"  also {d.headline}", style="red"))
        issue = (f"{d.doctor_rule}  (rocm-wizard doctor explains it)" if d.doctor_rule
                 else f"{d.rule_id}  (no doctor rule)")
        out.append(_facts([("known issue:", issue, "cyan"),
                           ("seen in:", ", ".join(d.checks), "dim"), ("fix:", d.advice, ""),
                           ("source:", d.source, "dim")]))
    for d in report.warnings:
        out.append(Text(f"WARNING  {d.headline}", style="bold yellow"))
        out.append(_facts([("known issue:", d.doctor_rule or d.rule_id, "yellow"), ("fix:", d.advice, "yellow")]))
    if report.interrupted:
        out.append(Text("(interrupted: not every check ran)", style="yellow"))
    return out


def renderable(report: Report, verbose: bool = False) -> Group:
    parts: list = [_header(report)]
    parts.extend(_devices(report))
    if report.checks:
        parts.append(_checks(report, verbose))
    if report.figures:
        parts.append(Text("figures", style="bold"))
        parts.append(_figures(report))
    if report.env:
        shown = {k: v for k, v in report.env.items() if k not in ("LD_LIBRARY_PATH", "VIRTUAL_ENV")}
        if shown:
            parts.append(Text("environment: " + "  ".join(f"{k}={v}" for k, v in shown.items()), style="dim"))
    parts.extend(_verdict(report))
    return Group(*parts)


def render(report: Report, *, color: bool = False, width: int = 100, verbose: bool = False) -> str:
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=color, no_color=not color, width=width, highlight=False,
                      emoji=False, soft_wrap=False, color_system="standard" if color else None)
    console.print(renderable(report, verbose=verbose))
    return "\n".join(line.rstrip() for line in buf.getvalue().splitlines()) + "\n"
