"""A CPU architecture no AMD repository, wheel or image serves is refused (exit 3) with the reason,
for every way out; aarch64 is named as arm64 too (catalog cpu_arches.toml)."""
from __future__ import annotations

import dataclasses

import pytest

from rocm_wizard.plan import Choices, PlanError, build_plan


def _on(seed, arch):
    return dataclasses.replace(seed, os=dataclasses.replace(seed.os, arch=arch))


@pytest.mark.parametrize("path, extra", [("rocm-upgrade", {"rocm": "6.4.3"}), ("torch-reinstall", {"torch": "2.4.1"}),
                                         ("docker", {})])
def test_aarch64_is_refused_with_the_reason(seed_system, path, extra):
    seed = seed_system("seed-rx7900xt-jammy-rocm6.2")
    with pytest.raises(PlanError) as err:
        build_plan(_on(seed, "aarch64"), Choices(path=path, **extra))
    assert err.value.exit_code == 3
    assert "this system's CPU is aarch64 (arm64)" in err.value.message
    assert "legacy-rocm-build/issues/1529" in err.value.message


def test_ppc64le_is_refused_and_x86_64_is_planned(seed_system):
    seed = seed_system("seed-rx7900xt-jammy-rocm6.2")
    with pytest.raises(PlanError) as err:
        build_plan(_on(seed, "ppc64le"), Choices(path="rocm-upgrade", rocm="6.4.3"))
    assert err.value.exit_code == 3 and "ppc64le" in err.value.message
    assert build_plan(_on(seed, "x86_64"), Choices(path="rocm-upgrade", rocm="6.4.3")).steps
    assert build_plan(_on(seed, None), Choices(path="rocm-upgrade", rocm="6.4.3")).steps  # not known: not refused


def test_the_default_path_on_aarch64_is_an_error_not_a_plan(seed_system):
    seed = seed_system("seed-rx7900xt-jammy-rocm6.2")
    with pytest.raises(PlanError) as err:
        build_plan(_on(seed, "aarch64"), Choices())
    # not applicable to this system, default path or not (exitcodes.refusal, README's table)
    assert err.value.exit_code == 3 and "aarch64" in err.value.message


def test_an_aarch64_snapshot_gets_exit_3_from_plan_only(tmp_path):
    import json

    from plan_helpers import SYSTEMS, run_cli

    data = json.loads((SYSTEMS / "seed-rx7900xt-jammy-rocm6.2.json").read_text())
    data["os"]["arch"] = "aarch64"
    snap = tmp_path / "arm.json"
    snap.write_text(json.dumps(data))
    rc, out, err = run_cli(["--plan-only", "--snapshot", str(snap), "--path", "rocm-upgrade", "--rocm", "6.4.3"])
    assert rc == 3 and out == "", err
    assert "this system's CPU is aarch64 (arm64)" in err
