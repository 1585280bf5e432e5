"""The Core SDK branch of rocm-upgrade: what the plan holds and what it refuses (the real apt runs
are in tests/integration/test_exec_coresdk.py)."""
from __future__ import annotations

import pytest

from rocm_wizard import resolve
from rocm_wizard.execute import answers
from rocm_wizard.plan.build import Choices, PlanError, build_plan
from rocm_wizard.plan.state import PlanState

FPR = "0123456789ABCDEF0123456789ABCDEF01234567"
FRESH = "seed-rx7900xt-resolute-fresh"
LEGACY = "seed-rx7900xt-jammy-rocm6.2"


def _plan(system, **kw):
    return build_plan(system, Choices(path="rocm-upgrade", rocm_core_key_fingerprint=FPR, **kw))


def test_ubuntu_2604_gets_the_core_sdk_by_the_policy(seed_system):
    plan = _plan(seed_system(FRESH))
    ids = [s.id for s in plan.steps]
    assert ids == ["rocm-core-key", "radeon-key", "rocm-repos", "rocm-pin", "apt-update", "legacy-remove",
                   "kernel-driver", "rocm-packages", "core-alternative", "gpu-groups", "reboot-flag"]
    assert plan.inputs["rocm"] == "10.0.0" and plan.facts["rocm_release"]["stream"] == "core-sdk"
    step = {s.id: s for s in plan.steps}
    assert step["rocm-core-key"].params["url"] == "https://stable.repo.amd.com/rocm/gpg/packages.gpg"
    assert step["rocm-core-key"].params["fingerprint"] == FPR
    assert step["rocm-core-key"].params["keyring"] == "/etc/apt/keyrings/amdrocm.gpg"
    files = {f["path"]: f["content"] for f in step["rocm-repos"].params["files"]}
    src = files["/etc/apt/sources.list.d/amdrocm-stable.sources"]
    assert "URIs: https://stable.repo.amd.com/rocm/core/packages/ubuntu2604/\n" in src and "Suites: stable\n" in src
    assert "https://repo.radeon.com/amdgpu/31.50/ubuntu resolute main" in files["/etc/apt/sources.list.d/amdgpu.list"]
    assert 'Pin: origin "stable.repo.amd.com"' in step["rocm-pin"].params["content"]
    assert step["rocm-packages"].params["packages"] == [{"name": "amdrocm-core-sdk10.0-gfx1100", "version": "10.0.0-*"}]
    assert step["core-alternative"].params["path"] == "/opt/rocm/core-10.0"


def test_the_fingerprint_defaults_to_the_one_amds_code_pins(seed_system):
    """Issue 30: ROCm/TheRock build_repo_package.py (PR #7269) pins D0F004A0...; no plan is refused for
    want of a user fingerprint; a malformed one given is still refused."""
    plan = build_plan(seed_system(FRESH), Choices(path="rocm-upgrade"))
    step = {s.id: s for s in plan.steps}["rocm-core-key"]
    assert step.params["fingerprint"] == "D0F004A0025A1145C7807FCD0701EAC4D5E02107"
    assert plan.facts["key"]["status"] == "observed" and plan.facts["key"]["given"] is False
    with pytest.raises(PlanError, match="not a 40-digit"):
        build_plan(seed_system(FRESH), Choices(path="rocm-upgrade", rocm_core_key_fingerprint="abc"))


def test_714_is_a_one_line_list_on_repo_amd_com_and_a_mirror_replaces_the_host(seed_system):
    plan = _plan(seed_system(FRESH), rocm="7.14", rocm_core_mirror="https://mirror.example/amd",
                 rocm_mirror="https://mirror.example/radeon", rocm_key_fingerprint=FPR)
    step = {s.id: s for s in plan.steps}
    files = {f["path"]: f["content"] for f in step["rocm-repos"].params["files"]}
    assert ("deb [arch=amd64 signed-by=/etc/apt/keyrings/amdrocm.gpg] "
            "https://mirror.example/amd/rocm/packages-multi-arch/ubuntu2604 stable main") in files[
        "/etc/apt/sources.list.d/rocm.list"]
    assert "https://mirror.example/radeon/amdgpu/31.40.1/ubuntu resolute main" in files[
        "/etc/apt/sources.list.d/amdgpu.list"]
    assert step["rocm-core-key"].params["url"] == "https://mirror.example/amd/rocm/packages-multi-arch/gpg/rocm.gpg"
    assert step["rocm-packages"].params["packages"][0]["name"] == "amdrocm-core-sdk7.14-gfx1100"
    # AMD lines are told by AMD's repository paths under the mirror, never by its host alone
    markers = step["rocm-repos"].params["markers"]
    assert "//mirror.example/amd/rocm/packages-multi-arch/" in markers and "//mirror.example/amd" not in markers


def test_legacy_host_removal_named_in_the_description(seed_system):
    system = seed_system(LEGACY)
    plan = _plan(system, rocm="10.1", dkms=False)
    remove = plan.step("legacy-remove")
    desc = remove.describe(PlanState(system=system))
    assert [p.name for p in desc.packages] == ["rocm", "rocm-core", "rocminfo"]
    assert all(p.after is None for p in desc.packages)
    assert desc.commands == [["apt-get", "remove", "-y", "rocm", "rocm-core", "rocminfo"]]
    assert "amdgpu-dkms" not in " ".join(desc.actions)  # the kernel driver is not legacy user space
    assert plan.facts["legacy_removed"] == ["rocm", "rocm-core", "rocminfo"]
    with pytest.raises(PlanError, match="driver repository paired with ROCm 10.1.0 is not known"):
        _plan(system, rocm="10.1")


def test_previews_and_cross_stream_downgrades_are_refused(seed_system):
    with pytest.raises(PlanError, match="technology preview"):
        _plan(seed_system(LEGACY), rocm="7.12")
    with pytest.raises(PlanError, match="in development"):
        _plan(seed_system(LEGACY), rocm="10.2")
    system = seed_system(LEGACY)
    system.rocm.version = "10.0.0"
    with pytest.raises(PlanError, match="downgrade across streams"):
        _plan(system, rocm="7.2.3")


def test_the_resolver_never_offers_a_downgrade_across_streams(seed_system):
    system = seed_system(LEGACY)
    system.rocm.version = "10.0.0"
    res = resolve.rocm_ways(resolve.from_system(system))
    offered = [w.subject.version for w in res.offered]
    assert offered and all(w.subject.stream == "core-sdk" for w in res.offered), offered
    legacy = next(w for w in res.rejected if w.subject.version == "7.2.3")
    assert legacy.check("no-cross-stream-downgrade").verdict == "violated"
    assert res.best.subject.stream == "core-sdk"


def test_a_legacy_host_stays_in_its_stream_by_default(seed_system):
    best = resolve.rocm_ways(resolve.from_system(seed_system(LEGACY))).best
    assert best.subject.stream == "legacy"


def test_answers_carry_the_core_mirror_and_fingerprint():
    got = answers.validate({"rocm_core_mirror": "https://m/amd", "rocm_core_key_fingerprint": FPR})
    assert got == {"rocm_core_mirror": "https://m/amd", "rocm_core_key_fingerprint": FPR}


def test_debian_12_instinct_only_and_the_installed_driver(seed_system):
    system = seed_system(FRESH)
    system.os.id, system.os.version_id, system.os.pretty_name = "debian", "12", "Debian GNU/Linux 12 (bookworm)"
    with pytest.raises(PlanError, match="does not list gfx1100 .* on Debian 12"):
        _plan(system, rocm="10.0", dkms=False)
    # an MI210 (1002:740f): the chip's PCI id, not only the reported target, says gfx90a
    system.gpus[0].gfx_target, system.gpus[0].device_id, system.gpus[0].revision = "gfx90a", "740f", None
    with pytest.raises(PlanError, match="--no-dkms"):
        _plan(system, rocm="10.0")
    plan = _plan(system, rocm="10.0", dkms=False)
    files = {f["path"]: f["content"] for f in plan.step("rocm-repos").params["files"]}
    assert list(files) == ["/etc/apt/sources.list.d/amdrocm-stable.sources"]
    assert "/rocm/core/packages/debian12/" in files["/etc/apt/sources.list.d/amdrocm-stable.sources"]
    assert plan.step("rocm-packages").params["packages"][0]["name"] == "amdrocm-core-sdk10.0-gfx90a"


def test_the_core_sdk_plan_has_the_legacy_plans_apt_safety(seed_system):
    """Secure Boot on: the MOK step comes before the driver; apt removals of unrelated packages are
    refused unless allowed, exactly as on the legacy branch."""
    system = seed_system(FRESH)
    system.os.secure_boot = True
    plan = _plan(system)
    ids = [s.id for s in plan.steps]
    assert ids.index("secure-boot") == ids.index("kernel-driver") - 1
    step = {s.id: s for s in plan.steps}
    assert "/var/lib/shim-signed/mok/MOK.der" in step["secure-boot"].params["keys"]
    for sid in ("kernel-driver", "rocm-packages"):
        assert "amdrocm*" in step[sid].params["related"] and step[sid].params["allow_removals"] is False
    allowed = _plan(seed_system(FRESH), allow_apt_removals=True)
    assert {s.id: s for s in allowed.steps}["rocm-packages"].params["allow_removals"] is True
    assert "secure-boot" not in [s.id for s in _plan(seed_system(FRESH), dkms=False).steps]


def test_a_714_plan_says_the_bare_repo_path_is_announced_to_move_but_keeps_it(seed_system):
    """Draft RFC (preview): repo.amd.com/rocm/ to move to archives.repo.amd.com; the plan keeps the
    path that serves today and says so; 10.x (stable.repo.amd.com) is not concerned."""
    from rocm_wizard.plan import Choices, build_plan

    fpr = "0123456789ABCDEF0123456789ABCDEF01234567"
    seed = seed_system("seed-rx7900xt-jammy-rocm6.2")
    plan = build_plan(seed, Choices(path="rocm-upgrade", rocm="7.14", rocm_core_key_fingerprint=fpr))
    note = next(n for n in plan.notes if "archives.repo.amd.com" in n)
    assert "preview, not in effect" in note and "draft" in note and "serves today" in note
    assert all("archives.repo.amd.com" not in str(s.params) for s in plan.steps)
