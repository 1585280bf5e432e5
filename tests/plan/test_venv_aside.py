"""--venv-mode new on a venv directory: the name it is moved aside to comes from the old torch's
version only when that is a plain version string (the venv's metadata is the user's)."""
from __future__ import annotations

import pytest

from rocm_wizard.plan.build import Choices, build_plan

SEED = "seed-rx7900xt-jammy-rocm6.2"


def _aside(system):
    plan = build_plan(system, Choices(path="torch-reinstall", torch="2.4.1", venv="/home/dev/train/.venv",
                                      venv_mode="new"))
    return next(s.params["aside"] for s in plan.steps if "aside" in s.params)


def test_a_plain_version_names_the_directory(seed_system):
    assert _aside(seed_system(SEED)) == "/home/dev/train/.venv-torch2.5.1-rocm6.2"


@pytest.mark.parametrize("version", ["2.5.1+../../../root/x", "2.5.1/evil", "..", "2.5.1 rm", "\x1b[2J"])
def test_a_version_that_is_not_plain_gives_a_fixed_name(seed_system, version):
    system = seed_system(SEED)
    system.torch[0].version = version
    assert _aside(system) == "/home/dev/train/.venv-previous"
