"""CPU seconds per test (user + system, of the test's process and of the children it waited for:
apt, dpkg, ansible-playbook, the wizard in a root), summed per test file and per ansible-core
parameter and printed after pytest's ``--durations`` list.  Wall times on a shared machine are
noise; CPU seconds are what a change to the suite's cost can be compared by.  Under pytest-xdist
each worker measures its own tests and the figure travels to the controller on the teardown report.
A lower bound where a test's processes are reaped outside its chain of waits: a command under
``rwtest.sandbox`` (bwrap with its own PID namespace) is not counted; the integration tier's roots
(``unshare`` + ``chroot``, no PID namespace) are.  ``time`` around the whole run gives the total.
"""
from __future__ import annotations

import os
import re
from collections import defaultdict
from typing import Dict

import pytest

KEY = "rw_cpu_s"
_START = pytest.StashKey[float]()
CORE = re.compile(r"\[(?:.*-)?(debian|pypi|newest)(?:-.*)?\]$")


def now() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def start(item) -> None:
    item.stash[_START] = now()


def stamp(item, report) -> None:
    """On the teardown report: the CPU seconds of setup, call and teardown together."""
    begun = item.stash.get(_START, None)
    if report.when == "teardown" and begun is not None:
        report.user_properties.append((KEY, round(now() - begun, 3)))


class Totals:
    def __init__(self) -> None:
        self.per_file: Dict[str, float] = defaultdict(float)
        self.per_core: Dict[str, float] = defaultdict(float)
        self.tests = 0

    def add(self, report) -> None:
        if report.when != "teardown":
            return
        for key, value in report.user_properties:
            if key == KEY:
                self.tests += 1
                self.per_file[report.nodeid.split("::", 1)[0]] += value
                m = CORE.search(report.nodeid)
                self.per_core[m.group(1) if m else "-"] += value

    def write(self, terminalreporter, most: int) -> None:
        if not self.tests:
            return
        tr = terminalreporter
        total = sum(self.per_file.values())
        tr.write_sep("=", f"CPU seconds per test file (user+sys with children; {self.tests} tests, {total:.0f} s)")
        rows = sorted(self.per_file.items(), key=lambda kv: -kv[1])
        for path, secs in rows[:most] if most else rows:
            tr.write_line(f"{secs:9.1f}s  {path}")
        tr.write_sep("-", "CPU seconds per ansible-core parameter ('-': tests without one)")
        for core, secs in sorted(self.per_core.items(), key=lambda kv: -kv[1]):
            tr.write_line(f"{secs:9.1f}s  {core}")
