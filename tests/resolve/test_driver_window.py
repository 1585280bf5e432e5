"""Driver window: a window AMD documents decides; an inferred one is "unknown", never "satisfied" (#21)."""
from __future__ import annotations

from rocm_wizard.resolve.facts import Facts
from rocm_wizard.resolve.model import SATISFIED, UNKNOWN, VIOLATED
from rocm_wizard.resolve.resolver import check_driver_window


def _facts(train: str) -> Facts:
    return Facts(driver_train=train, driver_source="test")


def test_documented_window_satisfied():
    # compat.toml: train 5.7 supports 5.5-6.1, documented
    assert check_driver_window(_facts("5.7"), "6.0", "x").verdict == SATISFIED


def test_documented_window_violated():
    assert check_driver_window(_facts("5.7"), "6.4", "x").verdict == VIOLATED


def test_inferred_window_is_unknown_not_satisfied(monkeypatch):
    # every window of compat.toml is documented today (the errata of 2026-11-26 corrected 5.3-5.6):
    # a window only inferred -- as a catalog refresh or a new train may bring -- must not satisfy
    from rocm_wizard.catalog import compat

    real = compat.in_window
    monkeypatch.setattr(compat, "in_window",
                        lambda train, user: (real(train, user)[0], "inferred") if train == "5.6" else real(train, user))
    assert compat.in_window("5.6", "5.5") == (True, "inferred")
    c = check_driver_window(_facts("5.6"), "5.5", "x")
    assert c.verdict == UNKNOWN
    assert "inferred" in c.detail
    assert check_driver_window(_facts("5.7"), "6.0", "x").verdict == SATISFIED  # a documented one still decides


def test_older_train_than_table_is_outside_for_newer_user_space():
    # a 4.x/5.x driver is older than the oldest documented train (5.7, up to 6.1): 7.2 is outside
    for train in ("4.5", "5.0"):
        assert check_driver_window(_facts(train), "7.2", "x").verdict == VIOLATED
    # inside the range the older documented trains cover, it stays unknown
    assert check_driver_window(_facts("5.0"), "5.2", "x").verdict == UNKNOWN
