"""The Core SDK on rpm hosts (issue 26), without running dnf or zypper: which OS releases are planned
from rpm_repos.toml [coresdk] and which are refused with the reason, the repository file, the package
names, the key pin, and the legacy-removal step's own rules.  The real runs are in
tests/integration/test_exec_dnf.py and test_zypper_sles.py (their "core_sdk" tests)."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from rocm_wizard.plan.build import Choices, PlanError, build_plan
from rocm_wizard.plan.steps.rpmremove import RpmRemove, needed_by

SYSTEMS = Path(__file__).parent / "systems"
CORE_FPR = "D0F004A0025A1145C7807FCD0701EAC4D5E02107"


def _system(os_id, version, seed="seed-rx7900xt-rocky9.4-rocm6.2", gfx=None, name=None, device=None):
    from rocm_wizard import model

    data = json.loads((SYSTEMS / f"{seed}.json").read_text())
    data["os"].update(id=os_id, version_id=version, pretty_name=f"{os_id} {version}")
    if gfx:
        for g in data["gpus"]:
            g.update(gfx_target=gfx, name=name, device_id=device, pci_id=f"1002:{device}", chip_family=None,
                     segment=None)
    return model.from_dict(model.System, copy.deepcopy(data))


def _plan(os_id, version, rocm="10.0", **kw):
    return build_plan(_system(os_id, version, **kw), Choices(path="rocm-upgrade", rocm=rocm, dkms=None))


@pytest.mark.parametrize("os_id,version,profile", [("rocky", "9.4", "rhel9"), ("rhel", "9.6", "rhel9"),
                                                   ("ol", "8.10", "rhel8"), ("rhel", "10.0", "rhel10")])
def test_el_hosts_get_the_core_sdk_rpm_repository_of_their_profile(os_id, version, profile):
    plan = _plan(os_id, version)
    assert [s.id for s in plan.steps] == ["rocm-core-key", "rocm-repo", "repo-check", "legacy-remove",
                                          "rocm-packages", "core-alternative", "gpu-groups"]
    repo = plan.step("rocm-repo").params["content"]
    assert plan.step("rocm-repo").params["path"] == "/etc/yum.repos.d/amdrocm-stable.repo"
    assert f"baseurl=https://stable.repo.amd.com/rocm/core/packages/{profile}/x86_64\n" in repo
    assert "gpgcheck=1\n" in repo and "gpgkey=file:///etc/pki/rpm-gpg/RPM-GPG-KEY-amdrocm\n" in repo
    assert "priority=" not in repo  # AMD's 10.0 page writes none (rpm_repos.toml priority_note)
    key = plan.step("rocm-core-key").params
    assert key["fingerprint"] == CORE_FPR and key["url"] == "https://stable.repo.amd.com/rocm/gpg/packages.gpg"
    # the versioned per-gfx package of the one card, never the unversioned pointer
    assert plan.step("rocm-packages").params["packages"] == [{"name": "amdrocm-core-sdk10.0-gfx1100",
                                                               "version": "10.0.0-*"}]
    assert plan.step("legacy-remove").params["manager"] == "dnf"
    assert "rocm" in plan.step("legacy-remove").params["patterns"]
    assert plan.inputs["dkms"] is False
    assert any("planned, not promised" in n for n in plan.notes), plan.notes


def test_7_14_uses_its_own_repository_with_priority_50():
    plan = _plan("rocky", "9.4", rocm="7.14")
    repo = plan.step("rocm-repo").params["content"]
    assert plan.step("rocm-repo").params["path"] == "/etc/yum.repos.d/rocm.repo"
    assert "baseurl=https://repo.amd.com/rocm/packages-multi-arch/rhel9/x86_64\n" in repo and "priority=50\n" in repo


def test_10_1_is_planned_with_the_inferred_repository_said():
    plan = _plan("rocky", "9.4", rocm="10.1")
    assert "baseurl=https://stable.repo.amd.com/rocm/core/packages/rhel9/x86_64\n" in plan.step("rocm-repo").params[
        "content"]
    assert any("is inferred" in n and "guess" in n for n in plan.notes), plan.notes
    assert plan.facts["coresdk_rpm"]["status"] == "inferred"


@pytest.mark.parametrize("os_id,version,why", [
    ("almalinux", "9.4", "AlmaLinux is on no Core SDK install page"),
    ("rocky", "8.10", "list no repository for Rocky Linux 8"),
    ("sles", "12.5", "no repository"),
])
def test_what_the_catalog_does_not_know_is_refused_with_the_reason(os_id, version, why):
    seed = "seed-rx7900xt-sles15.7-rocm6.2" if os_id == "sles" else "seed-rx7900xt-rocky9.4-rocm6.2"
    with pytest.raises(PlanError) as exc:
        _plan(os_id, version, seed=seed)
    assert why in exc.value.message and "--rocm 6.4.3" in exc.value.message, exc.value.message


def test_the_kernel_driver_is_refused_with_no_dkms_named():
    with pytest.raises(PlanError) as exc:
        build_plan(_system("rocky", "9.4"), Choices(path="rocm-upgrade", rocm="10.0", dkms=True))
    assert "not in the catalog" in exc.value.message and "--no-dkms" in exc.value.message


def test_a_preview_is_refused_as_on_apt():
    with pytest.raises(PlanError) as exc:
        _plan("rocky", "9.4", rocm="7.12")
    assert "7.12" in exc.value.message


def test_sles_radeon_gets_the_full_suite_and_instinct_its_own_package():
    seed = "seed-rx7900xt-sles15.7-rocm6.2"
    plan = _plan("sles", "15.7", seed=seed)
    assert [s.kind for s in plan.steps][:5] == ["zypper-key", "zypper-repos", "zypper-refresh", "rpm-remove",
                                                "zypper-install"]
    assert plan.step("rocm-packages").params["packages"] == [{"name": "amdrocm-core-sdk10.0", "version": "10.0.0-"}]
    assert plan.step("rocm-packages").params["from_repo"] == "amdrocm-stable"
    (f,) = plan.step("rocm-repos").params["files"]
    assert f["path"] == "/etc/zypp/repos.d/amdrocm-stable.repo"
    assert "baseurl=https://stable.repo.amd.com/rocm/core/packages/sles15/x86_64\n" in f["content"]
    assert "pkg_gpgcheck=1" in f["content"]
    # the legacy AMD repository files are taken out: the markers name repo.radeon.com's zypper paths
    assert "//repo.radeon.com/rocm/zyp/" in plan.step("rocm-repos").params["markers"]
    inst = _plan("sles", "15.7", seed=seed, gfx="gfx90a", name="AMD Instinct MI250X",
                 device="740c")
    assert inst.step("rocm-packages").params["packages"][0]["name"] == "amdrocm-core-sdk10.0-gfx90a"


def test_a_mirror_keeps_amds_paths():
    system = _system("rocky", "9.4")
    plan = build_plan(system, Choices(path="rocm-upgrade", rocm="10.0", dkms=None,
                                      rocm_core_mirror="http://127.0.0.1:8081", allow_http_mirror=True,
                                      rocm_core_key_fingerprint="01" * 20))
    assert "baseurl=http://127.0.0.1:8081/rocm/core/packages/rhel9/x86_64\n" in plan.step("rocm-repo").params["content"]
    assert plan.step("rocm-core-key").params["url"] == "http://127.0.0.1:8081/rocm/gpg/packages.gpg"
    assert plan.step("rocm-core-key").params["fingerprint"] == "01" * 20
    with pytest.raises(PlanError):
        build_plan(system, Choices(path="rocm-upgrade", rocm="10.0", dkms=None, rocm_core_key_fingerprint="ABC"))


# ------------------------------------------------------------------ the rpm-remove step
def test_needed_by_reads_rpms_failed_dependencies():
    text = ("error: Failed dependencies:\n\trocm-core is needed by (installed) my-tool-1.0-1.el9.noarch\n"
            "\trocm-core >= 6 is needed by (installed) other-2-1.noarch\n"
            "\trocm is needed by (installed) my-tool-1.0-1.el9.noarch\n")
    assert needed_by(text) == ["my-tool-1.0-1.el9.noarch", "other-2-1.noarch"]
    assert needed_by("") == []


def test_rpm_remove_validates_its_params():
    with pytest.raises(ValueError):
        RpmRemove("x", "t", patterns=["rocm; rm -rf /"], manager="dnf")
    with pytest.raises(ValueError):
        RpmRemove("x", "t", patterns=["rocm"], manager="yum")
    with pytest.raises(ValueError):
        RpmRemove("x", "t", patterns=[], manager="zypper")


class _Ctx:
    """Answers rpm's queries from a list of installed names; records what would change."""
    commands = True
    filesystem = False

    def __init__(self, installed, test_rc=0, test_err=""):
        self.installed, self.test_rc, self.test_err, self.calls = list(installed), test_rc, test_err, []

    def run(self, argv, timeout=None):
        self.calls.append(argv)
        if argv[:2] == ["rpm", "-qa"]:
            return SimpleNamespace(rc=0, stdout="\n".join(self.installed) + "\n", stderr="", error=None)
        if argv[:3] == ["rpm", "-e", "--test"]:
            return SimpleNamespace(rc=self.test_rc, stdout="", stderr=self.test_err, error=None)
        raise AssertionError(f"unexpected command {argv}")

    def check_call(self, argv, timeout=None):
        self.calls.append(argv)
        gone = set(argv[4:]) if argv[0] == "dnf" else set(argv[3:])
        self.installed = [n for n in self.installed if n not in gone]


def test_rpm_remove_removes_exactly_the_matches_and_stops_when_something_needs_them():
    step = RpmRemove("legacy-remove", "t", patterns=["rocm", "rocm-*", "hip-*"], manager="dnf")
    ctx = _Ctx(["rocm", "rocm-core", "hip-runtime-amd", "amdrocm-base10.0", "bash", "rocminfo2"])
    res = step.apply(ctx)
    assert res.status == "changed", res.detail
    assert ["dnf", "-y", "remove", "--noautoremove", "hip-runtime-amd", "rocm", "rocm-core"] in ctx.calls
    assert sorted(ctx.installed) == ["amdrocm-base10.0", "bash", "rocminfo2"]
    assert step.apply(ctx).status == "ok"

    zyp = RpmRemove("legacy-remove", "t", patterns=["rocm", "rocm-*"], manager="zypper")
    blocked = _Ctx(["rocm", "rocm-core", "my-tool"], test_rc=1,
                   test_err="error: Failed dependencies:\n\trocm-core is needed by (installed) my-tool-1-1.noarch\n")
    res = zyp.apply(blocked)
    assert res.status == "failed" and "my-tool-1-1.noarch" in res.detail and "nothing was removed" in res.detail
    assert not any(c[0] in ("dnf", "zypper") for c in blocked.calls)
    assert blocked.installed == ["rocm", "rocm-core", "my-tool"]


def test_the_wizards_release_list_offers_the_core_sdk_where_its_rpm_repository_is_known():
    from rocm_wizard.plan.dnfplan import release_choices_dnf

    rocky = dict(release_choices_dnf(_system("rocky", "9.4")))
    assert "10.0.0" in rocky and "Core SDK" in rocky["10.0.0"] and "inferred" in rocky["10.1.0"]
    assert "6.4.3" in rocky  # the legacy releases stay
    alma = dict(release_choices_dnf(_system("almalinux", "9.4")))
    assert not any(v.startswith(("10.", "7.14")) for v in alma), alma  # AlmaLinux: on no Core SDK page


def test_zypper_refresh_takes_package_names_only():
    """A recipe that handed it package tables planned "could not check: unhashable type" and failed at
    run time with an internal error: now the plan itself is refused."""
    from rocm_wizard.plan.steps.zypper import ZypperRefresh

    ZypperRefresh("r", "t", aliases=["amdrocm-stable"], packages=["amdrocm-core-sdk10.0"])
    with pytest.raises(ValueError):
        ZypperRefresh("r", "t", aliases=["amdrocm-stable"], packages=[{"name": "amdrocm-core-sdk10.0"}])
