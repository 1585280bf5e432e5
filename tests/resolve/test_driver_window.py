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


def _v(text: str):
    from packaging.version import Version

    return Version(text.split("+")[0])


def test_a_torch_outside_the_drivers_window_steps_back_the_least():
    """A venv's torch 2.11.0+rocm7.2 on a ROCm 6.2 kernel driver (window 6.0-7.0): the first way is
    the newest torch not newer than the venv's that passes, not the newest torch of the host's own
    series index (torch 2.6.0+rocm6.2.4, five releases back)."""
    from rocm_wizard.resolve import resolver
    from rocm_wizard.resolve.facts import GpuFact

    f = Facts(gpus=[GpuFact("gfx1100", "Radeon RX 7900 XT", False)], python="3.10", torch="2.11.0+rocm7.2",
              torch_index="rocm7.2", host_rocm="6.2.0", driver_train="6.2", driver_source="test",
              os_id="ubuntu", os_version="22.04")
    res = resolver.torch_ways(f)
    assert res.find("2.11.0+rocm7.2") is not None and res.find("2.11.0+rocm7.2") not in res.offered
    best = res.best
    assert best is not None and best.check("driver-window").verdict == SATISFIED
    at_most = [w for w in res.offered if _v(w.subject[0].version) <= _v("2.11.0")]
    newest = max(_v(w.subject[0].version) for w in at_most)
    assert _v(best.subject[0].version) == newest, (best.key, [w.key for w in res.offered][:8])
    assert newest > _v("2.6.0")  # a closer torch than the host series' newest exists inside the window
