"""The ROCm upgrade's safety steps as planned: Secure Boot before amdgpu-dkms, apt removals asked
about, the chosen user in the groups; in every rendering (describe, JSON, script, playbook)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocm_wizard import model
from rocm_wizard.plan.build import Choices, PlanError, build_plan
from rocm_wizard.plan.core import evaluate

SYSTEMS = Path(__file__).resolve().parent / "systems"


def seed(name="seed-rx7900xt-jammy-rocm6.2", **os_fields):
    data = json.loads((SYSTEMS / f"{name}.json").read_text())
    system = model.from_dict(model.System, data.get("system", data))
    system.origin = "snapshot"
    for k, v in os_fields.items():
        setattr(system.os, k, v)
    return system


def upgrade(system, **kw):
    return build_plan(system, Choices(path="rocm-upgrade", rocm="6.4.3", **kw))


def test_a_secure_boot_snapshot_gets_the_mok_steps_before_the_driver():
    plan = upgrade(seed(secure_boot=True))
    ids = [s.id for s in plan.steps]
    assert ids.index("secure-boot") == ids.index("kernel-driver") - 1
    assert any("Secure Boot is on" in n and "--no-dkms" in n for n in plan.notes)
    report = {r.step.id: r for r in evaluate(plan, system=seed(secure_boot=True))}
    sb = report["secure-boot"]
    assert sb.check.status == "change"
    text = "\n".join(sb.description.actions)
    assert "sudo mokutil --import /var/lib/shim-signed/mok/MOK.der" in text and "Enroll MOK" in text
    assert "--no-dkms" in text
    from rocm_wizard.plan.ansible import render_ansible
    from rocm_wizard.plan.shell import render_shell

    script = render_shell(plan)
    assert "mokutil --test-key" in script and "no key DKMS signs with is enrolled" in script
    assert "mokutil" in render_ansible(plan)


@pytest.mark.parametrize("state", [False, None])
def test_no_mok_step_when_secure_boot_is_off_or_not_known(state):
    assert "secure-boot" not in [s.id for s in upgrade(seed(secure_boot=state)).steps]


def test_no_dkms_is_the_other_way_on_with_secure_boot():
    plan = upgrade(seed(secure_boot=True), dkms=False)
    assert not {"secure-boot", "kernel-driver"} & {s.id for s in plan.steps}


def test_the_secure_boot_step_passes_when_secure_boot_is_off_on_this_machine(tmp_path):
    """A live root booted without UEFI (no /sys/firmware/efi): the step is ok and runs nothing."""
    from rocm_wizard.plan.context import Context
    from rocm_wizard.plan.steps import SecureBootKey

    (tmp_path / "sys/bus").mkdir(parents=True)
    calls = []
    ctx = Context(root=str(tmp_path), runner=lambda argv, **kw: calls.append(argv), env={})
    step = SecureBootKey("secure-boot", "t", keys=["/var/lib/shim-signed/mok/MOK.der"])
    assert step.apply(ctx).status == "ok" and calls == []
    var = tmp_path / "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
    var.parent.mkdir(parents=True)
    var.write_bytes(b"\x06\x00\x00\x00\x01")
    from rocm_wizard.detect.sources import CommandResult

    def runner(argv, input=None, env=None, timeout=None):
        calls.append(list(argv))
        return CommandResult(tuple(argv), "", "", 0, None, 0.0)
    res = step.apply(Context(root=str(tmp_path), runner=runner, env={}))
    assert res.status == "failed" and "Secure Boot is on" in res.detail and "mokutil --import" in res.detail


def test_old_rocm_trees_are_named_and_left():
    system = seed()
    from rocm_wizard.model import RocmInstall

    system.rocm.installs += [RocmInstall(path="/opt/rocm-5.7.1", version="5.7.1"),
                             RocmInstall(path="/opt/rocm-6.4.3", version="6.4.3")]
    plan = upgrade(system)
    text = "\n".join(plan.notes)
    assert "/opt/rocm-6.2.0 (ROCm 6.2.0) belongs to the installed rocm-core 6.2.0" in text
    assert "other ROCm trees stay as they are: /opt/rocm-5.7.1 (ROCm 5.7.1)" in text
    assert "/opt/rocm-6.4.3 (" not in text  # the target's own tree is not "old"
    assert "removes nothing under /opt" in text


def test_an_amdgpu_install_setup_keeps_i386_and_is_told_what_changes():
    from rocm_wizard.model import AptSource

    system = seed()
    system.rocm.packages["amdgpu-install"] = "6.2.60200-2009582.22.04"
    system.rocm.apt_sources = [AptSource(
        file="/etc/apt/sources.list.d/amdgpu.list", radeon=True, repo_kind="amdgpu", release="6.2",
        line="deb [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/amdgpu/6.2/ubuntu "
             "jammy main")]
    plan = upgrade(system)
    files = {f["path"]: f["content"] for f in plan.step("rocm-repos").params["files"]}
    assert "deb [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/amdgpu/6.4.3/ubuntu" \
        in files["/etc/apt/sources.list.d/amdgpu.list"]
    assert "arch=amd64 signed-by" in files["/etc/apt/sources.list.d/rocm.list"]  # ROCm itself has no i386
    note = next(n for n in plan.notes if n.startswith("amdgpu-install 6.2.60200"))
    assert "keeps the driver repository's i386" in note and "apt-get remove amdgpu-install" in note
    assert "amdgpu-install/6.4.3/ubuntu/jammy/" in note  # where the new release's installer is
    # the seed itself: an amdgpu.list for amd64,i386 without the installer package: i386 kept, said
    kept = upgrade(seed())
    assert "the installed amdgpu.list names arch=amd64,i386: the new driver line keeps i386" in kept.notes
    # without amdgpu-install and without i386: nothing said, amd64 only
    bare = seed()
    bare.rocm.apt_sources = []
    plain = upgrade(bare)
    assert not any("amdgpu-install" in n or "i386" in n for n in plain.notes)
    assert "i386" not in plain.step("rocm-repos").params["files"][-1]["content"]
