"""``wheels.split_target`` keeps its answers for string targets (the diagnosis asks it of the same
few targets thousands of times): a kept answer is the one worked out, and anything else is worked
out every time."""
from __future__ import annotations

from rocm_wizard.catalog import wheels


TARGETS = ["gfx90a:sramecc+:xnack-", "GFX1100", "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "gfx906", "", " gfx1030 ",
           "gfx90a:XNACK+", "gfx90a:foo", "gfx000", "not a target", "gfx1151:xnack+:sramecc-", "x" * 300 + "gfx90a"]


def test_kept_answers_are_the_worked_out_ones():
    for t in TARGETS:
        want = wheels._split_target(t)
        assert wheels.split_target(t) == want
        assert wheels.split_target(t) == want  # (asked again: kept)
    assert wheels.split_target("gfx90a:sramecc+:xnack-") == ("gfx90a", frozenset({"sramecc+", "xnack-"}))


def test_other_values_are_worked_out():
    assert wheels.split_target(None) == ("", frozenset())
    assert wheels.split_target(b"gfx90a") == wheels._split_target(b"gfx90a")
    assert wheels.split_target(906) == wheels._split_target(906)
