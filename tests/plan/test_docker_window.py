"""The docker way checks the image's ROCm against the host's amdgpu kernel driver (AMD's
user/kernel window, catalog/data/compat.toml): the seed host runs driver train 6.2, whose window
is ROCm 6.0-7.0 user space."""
from __future__ import annotations

from plan_helpers import SYSTEMS, run_cli

SEED = str(SYSTEMS / "seed-rx7900xt-jammy-rocm6.2.json")
OUTSIDE = "rocm7.2_ubuntu24.04_py3.12_pytorch_release_2.9.1"


def _plan(*args):
    return run_cli(["--plan-only", "--format", "json", "--snapshot", SEED, "--path", "docker", *args])


def test_an_image_outside_the_drivers_window_is_refused_with_one_inside():
    rc, out, err = _plan("--image", OUTSIDE)
    assert rc == 64 and out == ""
    assert "brings ROCm 7.2 user space; the host's amdgpu driver train 6.2" in err and "supports 6.0-7.0" in err
    assert "An image within it: --image rocm7.0_" in err or "An image within it: --image rocm6." in err, err


def test_asking_for_a_rocm_release_picks_its_image_or_says_the_driver_is_too_old():
    rc, out, err = _plan("--rocm", "7.2")
    assert rc == 64 and "outside AMD's window" in err, err  # not the diagnosis' image in its place
    rc, out, err = _plan("--rocm", "6.4")
    assert rc == 2, err
    import json

    assert json.loads(out)["facts"]["docker"]["tag"]["rocm"].startswith("6.4")


def test_the_default_image_is_within_the_window():
    import json

    rc, out, err = _plan()
    assert rc == 2, err
    from rocm_wizard.catalog import compat

    rocm = json.loads(out)["facts"]["docker"]["tag"]["rocm"]
    assert compat.in_window("6.2", rocm)[0] is True, rocm
