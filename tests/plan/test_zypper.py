"""SLES with zypper (issue 26), the fast tier: real os-release files planned or refused with a
reason, the facts the plan takes from catalog/data/zypper.toml, zypper's removals read from real
dry-run output (Python and the playbook's filter agree), the armoured key rpm reads, and the key
step refusing a wrong key before anything reaches ``rpm --import``.  The real zypper/rpm runs are in
tests/integration/test_zypper_sles.py."""
from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest

from rocm_wizard.catalog import zypper as zyp
from rocm_wizard.detect.sources import CommandResult
from rocm_wizard.plan import Choices, PlanError, build_plan
from rocm_wizard.plan.context import Context
from rocm_wizard.plan.shell import render_shell
from rocm_wizard.plan.state import PlanState
from rocm_wizard.plan.steps.rpmcommon import RpmKey, armor_public_key, rpm_key_name
from rocm_wizard.plan.steps.zypper import REMOVALS_SH, ZypperInstall, ZypperKey, ZypperRepos, repo_file, zypper_removals

from plan_helpers import make_gpg_key
from test_derivatives import detected_os, on

DATA = Path(__file__).resolve().parents[1] / "data"


def sles(seed_system, tmp_path, name="sles-15.7"):
    return on(seed_system("seed-rx7900xt-jammy-rocm6.2"), detected_os(tmp_path, name))


def test_sles_15_7_gets_amds_zypper_repositories_of_a_release_listed_for_it(seed_system, tmp_path):
    system = sles(seed_system, tmp_path)
    assert (system.os.id, system.os.version_id) == ("sles", "15.7")
    plan = build_plan(system, Choices(path="rocm-upgrade"))
    assert plan.inputs["rocm"] == "7.2.3"  # the newest release AMD documents for SLES 15.7
    assert [s.kind for s in plan.steps][:3] == ["zypper-key", "zypper-repos", "zypper-refresh"]
    files = {f["path"]: f["content"] for f in plan.step("rocm-repos").params["files"]}
    rocm, amdgpu = files["/etc/zypp/repos.d/rocm.repo"], files["/etc/zypp/repos.d/amdgpu.repo"]
    assert "baseurl=https://repo.radeon.com/rocm/zyp/7.2.3/main\n" in rocm and "[ROCm-7.2.3]" in rocm
    assert "baseurl=https://repo.radeon.com/amdgpu/30.30.3/sle/15.7/main/x86_64\n" in amdgpu
    for text in (rocm, amdgpu):
        assert "gpgcheck=1\n" in text and "pkg_gpgcheck=1\n" in text and "priority=50\n" in text
    assert plan.step("rocm-packages").params["from_repo"] == "ROCm-7.2.3"
    assert plan.step("rocm-packages").params["packages"] == [{"name": "rocm", "version": "7.2.3.70203"}]
    assert plan.facts["zypper"]["status"] == "documented"
    assert plan.fingerprint.fields["os"] == ["sles 15.7"]
    script = render_shell(plan)
    code = [ln for ln in script.splitlines() if not ln.lstrip().startswith("#")]
    assert not any("--gpg-auto-import-keys" in ln or "--no-gpg-checks" in ln for ln in code)
    assert subprocess.run(["bash", "-n"], input=script, text=True).returncode == 0
    from rwtest import ci

    sc = subprocess.run([ci.tool("shellcheck"), "-"], input=script, capture_output=True, text=True)
    assert sc.returncode == 0, sc.stdout


def test_a_release_for_another_service_pack_or_unknown_for_sles_is_refused(seed_system, tmp_path):
    system = sles(seed_system, tmp_path)
    with pytest.raises(PlanError, match=r"ROCm 6\.4\.3 is for SLES 15\.6, not SLES 15\.7") as exc:
        build_plan(system, Choices(path="rocm-upgrade", rocm="6.4.3"))
    assert exc.value.exit_code == 3
    with pytest.raises(PlanError, match=r"whether AMD's zypper repositories serve ROCm 6\.3\.0 on SLES 15\.7 is not known"):
        build_plan(system, Choices(path="rocm-upgrade", rocm="6.3.0"))


def test_an_inferred_service_pack_is_planned_with_a_note(seed_system, tmp_path):
    text = (DATA / "os-release" / "sles-15.7").read_text().replace("15-SP7", "15-SP6").replace("15.7", "15.6")
    system = on(seed_system("seed-rx7900xt-jammy-rocm6.2"), detected_os(tmp_path, "sles-sp6", text))
    plan = build_plan(system, Choices(path="rocm-upgrade", rocm="6.4.3"))
    assert any("SLES 15.6 for ROCm 6.4.3 is inferred" in n for n in plan.notes)
    # without --rocm, the documented release wins over the inferred one
    assert build_plan(system, Choices(path="rocm-upgrade")).inputs["rocm"] == "6.2.4"


@pytest.mark.parametrize("name", ["opensuse-leap-15.6", "opensuse-tumbleweed"])
def test_opensuse_is_refused_as_unknown_never_supported(seed_system, tmp_path, name):
    system = sles(seed_system, tmp_path, name)
    with pytest.raises(PlanError, match=r"status unknown") as exc:
        build_plan(system, Choices(path="rocm-upgrade"))
    assert exc.value.exit_code == 3 and "torch-reinstall" in exc.value.message


def test_service_pack_from_version_id():
    assert zyp.service_pack("15.6") == "15.6" and zyp.service_pack("15-SP6") == "15.6"
    assert zyp.service_pack("15") == "15.0" and zyp.service_pack("twenty") is None
    assert zyp.sles_support("7.2.3", "15.7") is True and zyp.sles_support("7.2.3", "15.6") is False
    assert zyp.sles_support("6.1.3", "15.6") is None


def test_removals_from_real_zypper_dry_runs_in_python_and_in_the_playbooks_filter():
    obsoletes = (DATA / "zypper" / "dry-run-obsoletes.txt").read_text()
    conflict = (DATA / "zypper" / "dry-run-conflict.txt").read_text()
    assert zypper_removals(obsoletes) == ["suse-hpc-tool"]
    assert zypper_removals(conflict) == []  # a conflict: zypper cancels (exit 4), nothing removed
    for text, want in ((obsoletes, ["suse-hpc-tool"]), (conflict, [])):
        res = subprocess.run(["sh", "-c", REMOVALS_SH, "sh", "cat"], input=text, capture_output=True, text=True)
        assert res.returncode == 0 and res.stdout.split() == want
    failing = subprocess.run(["sh", "-c", REMOVALS_SH, "sh", "sh", "-c", "echo no repo; exit 4"],
                             capture_output=True, text=True)
    assert failing.returncode == 1 and "no repo" in failing.stderr


def test_install_refuses_removals_that_are_not_rocms_before_installing():
    calls = []
    obsoletes = (DATA / "zypper" / "dry-run-obsoletes.txt").read_text()

    def runner(argv, input=None, env=None, timeout=None):
        calls.append(list(argv))
        if argv[:2] == ["rpm", "-q"]:
            return CommandResult(tuple(argv), "package rocm-core is not installed\n", "", 1, None, 0.0)
        return CommandResult(tuple(argv), obsoletes, "", 0, None, 0.0)

    step = ZypperInstall("rocm-packages", "install", packages=[{"name": "rocm-core", "version": "6.4.3"}],
                         from_repo="ROCm-6.4.3", related=["rocm*"])
    res = step.apply(Context(root="/nonexistent", runner=runner, env={}))
    assert res.status == "failed" and "suse-hpc-tool" in res.detail and "nothing was installed" in res.detail
    zyp_calls = [c for c in calls if c[0] == "zypper"]
    assert len(zyp_calls) == 1 and "--dry-run" in zyp_calls[0]


def test_repo_files_must_check_signatures():
    good = repo_file("ROCm-6.4.3", "ROCm", "https://x.invalid/rocm/zyp/6.4.3/main", "/etc/pki/k", 50, None)
    ZypperRepos("r", "r", files=[{"path": "/etc/zypp/repos.d/rocm.repo", "content": good}], markers=["//x.invalid/rocm/zyp/"])
    for bad in (good.replace("gpgcheck=1", "gpgcheck=0"), good.replace("pkg_gpgcheck=1", "pkg_gpgcheck=0")):
        with pytest.raises(ValueError, match="must check signatures"):
            ZypperRepos("r", "r", files=[{"path": "/etc/zypp/repos.d/rocm.repo", "content": bad}], markers=[])
    with pytest.raises(ValueError, match="live in /etc/zypp/repos.d"):
        ZypperRepos("r", "r", files=[{"path": "/etc/yum.repos.d/rocm.repo", "content": good}], markers=[])


def test_armoured_key_is_what_gpg_exports(tmp_path):
    from rocm_wizard.plan.openpgp import dearmor

    key = make_gpg_key(tmp_path)
    binary = dearmor(key.armored)
    ours = armor_public_key(binary)
    body = [ln for ln in key.armored.decode().splitlines() if ln and not ln.startswith(("-----", "Comment:"))]
    assert [ln for ln in ours.decode().splitlines() if ln and not ln.startswith("-----")] == body
    assert dearmor(ours) == binary
    assert rpm_key_name(key.fingerprint) == "gpg-pubkey-" + key.fingerprint[-8:].lower()


@pytest.mark.parametrize("cls", [ZypperKey, RpmKey])
def test_a_wrong_key_is_refused_before_rpm_import(tmp_path, cls):
    good, rogue = make_gpg_key(tmp_path, "good <g@example.invalid>"), make_gpg_key(tmp_path, "rogue <r@example.invalid>")
    calls = []

    def runner(argv, input=None, env=None, timeout=None):
        calls.append(list(argv))
        imported = ["rpm", "--import", "/etc/pki/rpm-gpg/RPM-GPG-KEY-rocm-wizard-rocm"] in calls
        rc = 0 if argv[1] == "--import" or imported else 1
        return CommandResult(tuple(argv), "", "", rc, None, 0.0)

    root = tmp_path / "root"
    root.mkdir()
    ctx = Context(root=str(root), runner=runner, env={}, fetcher=lambda url, **kw: rogue.armored)
    step = cls("rocm-key", "key", url="http://127.0.0.1:9/rocm.gpg.key", fingerprint=good.fingerprint,
               key_file="/etc/pki/rpm-gpg/RPM-GPG-KEY-rocm-wizard-rocm")
    assert step.check(PlanState(ctx)).status == "change"
    res = step.apply(ctx)
    assert res.status == "failed" and "nothing was written or imported" in res.detail
    assert not (root / "etc/pki").exists()
    assert not any(c[:2] == ["rpm", "--import"] for c in calls)
    # the right key: written armoured, then imported; then the check says done
    ctx.fetcher = lambda url, **kw: good.armored
    assert step.apply(ctx).status == "changed"
    assert (root / "etc/pki/rpm-gpg/RPM-GPG-KEY-rocm-wizard-rocm").read_bytes().startswith(
        b"-----BEGIN PGP PUBLIC KEY BLOCK-----")
    assert ["rpm", "--import", "/etc/pki/rpm-gpg/RPM-GPG-KEY-rocm-wizard-rocm"] in calls
    assert step.check(PlanState(ctx)).status == "ok"
    assert step.apply(ctx).status == "ok" and calls.count(["rpm", "--import", "/etc/pki/rpm-gpg/RPM-GPG-KEY-rocm-wizard-rocm"]) == 1


def test_one_key_step_for_dnf_and_zypper():
    """zypper's key step is the dnf hosts' step under the kind zypper plans name: the same check,
    shell and Ansible; only describe's word on the package manager differs."""
    kw = dict(url="https://repo.radeon.com/rocm/rocm.gpg.key", fingerprint="CA8BB4727A47B4D09B4EE8969386B48A1A693C5C",
              key_file="/etc/pki/rpm-gpg/RPM-GPG-KEY-rocm-wizard-amd")
    z, d = ZypperKey("rocm-key", "k", **kw), RpmKey("rocm-key", "k", **kw)
    assert isinstance(z, RpmKey) and (z.kind, d.kind) == ("zypper-key", "rpm-key")
    assert z.render_shell_body() == d.render_shell_body()
    assert z.render_ansible() == d.render_ansible() and z.ansible_vars() == d.ansible_vars()
    body = "\n".join(d.render_shell_body())
    # rpm --import only after the key file holds the checked key, and then rpm's database must hold it
    assert body.index("rw_key_is \"$RW_TMP/key.asc\"") < body.index("rw_run rpm --import")
    assert "does not hold $rpmname" in body
    flat = [u for t in d.render_ansible() for u in ([t] if "block" not in t else t["block"] + t["always"])]
    tasks = [next(k for k in t if k.startswith("ansible.builtin.")) for t in flat]
    assert tasks.index("ansible.builtin.assert") < tasks.index("ansible.builtin.copy") < tasks.index("ansible.builtin.rpm_key")


def test_doctor_offers_the_zypper_way_on_sles_and_says_why_not_on_opensuse(seed_system, tmp_path):
    from rocm_wizard.doctor import diagnose

    rec = next(r for r in diagnose(sles(seed_system, tmp_path)).recommendations if r.path == "rocm-upgrade")
    assert rec.applies and rec.target["rocm"] == "7.2.3" and rec.target["stream"] == "zypper"
    assert "zypper repository (rocm/zyp/7.2.3/main" in rec.why and "apt" not in rec.why
    assert "amd-native-sles" in rec.sources
    plan = build_plan(sles(seed_system, tmp_path / "b"), Choices(path="rocm-upgrade"))
    assert plan.inputs["rocm"] == rec.target["rocm"] and plan.steps[0].kind == "zypper-key"
    leap = next(r for r in diagnose(sles(seed_system, tmp_path / "c", "opensuse-leap-15.6")).recommendations
                if r.path == "rocm-upgrade")
    assert not leap.applies and "openSUSE Leap (status unknown)" in leap.why
