"""Held-out set FV (tests/data/real/2770-2773, HELDOUT.md): a second theme-neutral sample of PyTorch's ROCm issues of
2025-2026.  None of the four pastes holds a program's error line (a reproducer's print, a timing printout, a bisect
list of nightly installs, collect_env's first lines); the failures are told in the threads' prose, so no row was
added and the four are in tests/doctor/test_known_failure.py's MISSES.  These tests hold what doctor says of them
now, so that a later change that starts reading them is seen, and that nothing of the stack is invented from them:
no problem finding at all on the three without a told failure in their text, the told-failure finding (of no layer)
on 2772, whose title tells it; and the detection fields the pastes do show."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot
from rwtest import realrun
from rwtest.heldout import fixture as _fixture, PROBLEM


def _problems(num):
    diag = realrun.diagnosis(_fixture(num))
    return [(f.id, f.layer) for f in diag.findings if f.severity in PROBLEM]


@pytest.mark.parametrize("num", ["2770", "2771", "2773"])
def test_the_pastes_without_an_error_line_raise_no_problem(num):
    # a script's print, a timing printout, a collect_env head: nothing of the stack fails in them
    assert _problems(num) == []


def test_the_bisect_list_is_read_only_as_a_told_failure_of_no_layer():
    # the title tells the failure ('wrong output'); the AOTriton cause is only in the thread's comments
    assert _problems("2772") == [("failure-told-not-shown", None)]


def test_the_pastes_name_the_wheels():
    # collect_env's head: the wheel's version; the bisect list: the wheels' device extra (not a GPU seen)
    torch = detect_snapshot(str(_fixture("2773"))).torch
    assert "2.12.0+rocm7.15.0a20260718" in [t.version for t in torch]
    torch = detect_snapshot(str(_fixture("2772"))).torch
    assert {g for t in torch for g in t.device_gfx} == {"gfx1151"}
