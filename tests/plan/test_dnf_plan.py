"""Plans for dnf hosts (issue 26), without running dnf: the .repo writer, the key armour, the
transaction parser, step validation, and which OS releases are planned or refused with a reason.
The real-dnf runs are in tests/integration/test_exec_dnf.py."""
from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from rocm_wizard.plan.build import Choices, PlanError, build_plan
from rocm_wizard.plan.steps.dnf import DnfInstall, dnf_removals
from rocm_wizard.plan.steps.rpmcommon import RpmKey, armor_public_key, repo_ini, rpm_key_name

SEED = Path(__file__).parent / "systems" / "seed-rx7900xt-jammy-rocm6.2.json"


def _system(os_id, version, kernel="5.14.0-427.13.1.el9_4.x86_64", pretty=None):
    from rocm_wizard import model

    data = json.loads(SEED.read_text())
    data["os"].update(id=os_id, version_id=version, codename=None, pretty_name=pretty or f"{os_id} {version}",
                      kernel=kernel, hwe=None, kernel_flavour=None)
    return model.from_dict(model.System, copy.deepcopy(data))


def test_repo_ini_is_written_in_a_fixed_order_and_refuses_injected_lines():
    text = repo_ini([{"id": "rocm", "name": "ROCm 6.4.3", "baseurl": "https://repo.radeon.com/rocm/rhel9/6.4.3/main",
                      "enabled": True, "priority": 50, "gpgcheck": True, "repo_gpgcheck": False,
                      "gpgkey": "file:///etc/pki/rpm-gpg/K"}], "head line")
    assert text == ("# head line\n\n[rocm]\nname=ROCm 6.4.3\nbaseurl=https://repo.radeon.com/rocm/rhel9/6.4.3/main\n"
                    "enabled=1\npriority=50\ngpgcheck=1\nrepo_gpgcheck=0\ngpgkey=file:///etc/pki/rpm-gpg/K\n")
    with pytest.raises(ValueError):
        repo_ini([{"id": "rocm", "baseurl": "https://x/\ngpgcheck=0"}])
    with pytest.raises(ValueError):
        repo_ini([{"id": "a]b"}])


@pytest.mark.skipif(shutil.which("gpg") is None, reason="gpg is not installed")
def test_the_armour_holds_the_same_key(tmp_path):
    home = tmp_path / "g"
    home.mkdir(mode=0o700)
    env = {"GNUPGHOME": str(home), "PATH": "/usr/bin:/bin"}
    subprocess.run(["gpg", "--batch", "--passphrase", "", "--quick-gen-key", "t <t@example.invalid>", "ed25519",
                    "sign", "never"], env=env, check=True, capture_output=True)
    binary = subprocess.run(["gpg", "--batch", "--export"], env=env, check=True, capture_output=True).stdout
    fpr = [ln.split(":")[9] for ln in subprocess.run(["gpg", "--batch", "--with-colons", "--list-keys"], env=env,
           check=True, capture_output=True, text=True).stdout.splitlines() if ln.startswith("fpr:")][0]
    (tmp_path / "k.asc").write_bytes(armor_public_key(binary))
    shown = subprocess.run(["gpg", "--batch", "--with-colons", "--show-keys", str(tmp_path / "k.asc")], env=env,
                           capture_output=True, text=True)
    assert shown.returncode == 0 and fpr in shown.stdout
    assert rpm_key_name(fpr) == "gpg-pubkey-" + fpr[-8:].lower()


DNF_TABLE = """Dependencies resolved.
================================================================================
 Package              Architecture Version               Repository       Size
================================================================================
Installing:
 rocm                 noarch       6.4.3.60403-1.el9     rocm            6.1 k
Removing dependent packages:
 some-very-long-package-name-that-wraps
                      x86_64       1.0-1.el9             @System           0
 hipcc                x86_64       1.0-1.el9             @System           0

Transaction Summary
================================================================================
Install  1 Package
Remove   2 Packages
"""


def test_dnf_removals_reads_the_transaction_table():
    assert dnf_removals(DNF_TABLE) == ["some-very-long-package-name-that-wraps", "hipcc"]
    assert dnf_removals(DNF_TABLE.replace("Removing dependent packages:", "Upgrading:")) == []
    step = DnfInstall("p", "t", packages=[{"name": "rocm", "version": "6.4.3.60403-*"}], related=["hip*"])
    assert step._unrelated(dnf_removals(DNF_TABLE)) == ["some-very-long-package-name-that-wraps"]


@pytest.mark.parametrize("bad", [
    [{"name": "rocm;rm", "version": ""}], [{"name": "rocm", "version": "6.4.3"}],
    [{"provides": "kernel-devel-uname-r", "equals": "5.14 $(id)"}], [],
])
def test_dnf_install_refuses_bad_specs(bad):
    with pytest.raises(ValueError):
        DnfInstall("p", "t", packages=bad)


def test_rpm_key_needs_a_v4_fingerprint():
    with pytest.raises(ValueError):
        RpmKey("k", "t", url="https://x/k", fingerprint="ABCD", key_file="/etc/pki/rpm-gpg/K")


@pytest.mark.parametrize("os_id", ["rocky", "rhel", "almalinux", "ol"])
def test_el_hosts_get_amds_rpm_repositories(os_id):
    plan = build_plan(_system(os_id, "9.4"), Choices(path="rocm-upgrade", rocm="6.4.3"))
    kinds = [s.kind for s in plan.steps]
    assert kinds[:3] == ["rpm-key", "file", "file"] and "dnf-install" in kinds and "apt-key" not in kinds
    repo = plan.step("rocm-repo").params["content"]
    assert "baseurl=https://repo.radeon.com/rocm/rhel9/6.4.3/main\n" in repo
    assert "gpgcheck=1\n" in repo and "priority=50\n" in repo and "skip_if_unavailable=0\n" in repo
    assert "gpgkey=file:///etc/pki/rpm-gpg/RPM-GPG-KEY-rocm-wizard-amd\n" in repo
    assert "baseurl=https://repo.radeon.com/amdgpu/6.4.3/rhel/9.4/main/x86_64\n" in plan.step("amdgpu-repo").params["content"]
    kernel = plan.step("kernel-devel").params["packages"]
    assert kernel == [{"provides": "kernel-devel-uname-r", "equals": "5.14.0-427.13.1.el9_4.x86_64"}]
    assert [s.id for s in plan.steps].index("kernel-devel") < [s.id for s in plan.steps].index("kernel-driver")
    assert "epel" in [s.id for s in plan.steps] and "crb" in [s.id for s in plan.steps]
    assert plan.step("rocm-packages").params["packages"] == [{"name": "rocm", "version": "6.4.3.60403-*"}]


def test_an_os_release_amd_does_not_list_is_refused_with_its_list():
    with pytest.raises(PlanError) as exc:
        build_plan(_system("ol", "9.4"), Choices(path="rocm-upgrade", rocm="7.0.0", dkms=False))
    assert "does not list" in exc.value.message and "9.6" in exc.value.message


def test_7x_driver_is_not_installed_yet_so_dkms_is_refused_with_amds_way_and_no_dkms_plans():
    from rocm_wizard.catalog import releases

    assert releases.get("7.0.0").amdgpu_dir is None  # its driver directory is not known: --no-dkms only
    with pytest.raises(PlanError) as exc:
        build_plan(_system("rhel", "9.6"), Choices(path="rocm-upgrade", rocm="7.0.0"))
    assert "not in the catalog" in exc.value.message and "--no-dkms" in exc.value.message
    amdgpu_dir = releases.get("7.0.1").amdgpu_dir
    assert amdgpu_dir and amdgpu_dir.startswith("30.")
    with pytest.raises(PlanError) as exc:
        build_plan(_system("rhel", "9.6"), Choices(path="rocm-upgrade", rocm="7.0.1"))
    msg = exc.value.message
    # the guidance is AMD's driver page (ROCm/amdgpu-docs package-manager-rhel.rst): the 30.x train's
    # el/<point> repository, the installed amdgpu-dkms removed first; and --no-dkms
    assert f"https://repo.radeon.com/amdgpu/{amdgpu_dir}/el/9.6/main/x86_64" in msg, msg
    assert "removes the installed amdgpu-dkms" in msg and "priority=50" in msg and "--no-dkms" in msg
    assert "answered 404" in msg  # a point release the driver does not support has no directory
    plan = build_plan(_system("rhel", "9.6"), Choices(path="rocm-upgrade", rocm="7.0.0", dkms=False))
    assert "baseurl=https://repo.radeon.com/rocm/el9/7.0/main\n" in plan.step("rocm-repo").params["content"]
    assert "kernel-driver" not in [s.id for s in plan.steps]


@pytest.mark.parametrize("os_id,version,why", [
    ("rocky", "9", "point release"), ("centos", "9", "apt repositories"),
])
def test_other_rpm_hosts_are_refused_with_a_reason(os_id, version, why):
    with pytest.raises(PlanError) as exc:
        build_plan(_system(os_id, version), Choices(path="rocm-upgrade", rocm="6.4.3"))
    assert why in exc.value.message


def test_fedora_gets_its_own_packages_and_no_amd_repository():
    plan = build_plan(_system("fedora", "40", kernel="6.8.5-301.fc40.x86_64"), Choices(path="rocm-upgrade"))
    assert [s.kind for s in plan.steps] == ["dnf-install", "user-groups"]
    assert all("radeon" not in json.dumps(s.params) for s in plan.steps)
    with pytest.raises(PlanError):
        build_plan(_system("fedora", "40"), Choices(path="rocm-upgrade", rocm="6.4.3"))


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
def test_the_script_passes_shellcheck(tmp_path):
    from rocm_wizard.plan.shell import render_shell

    plan = build_plan(_system("rocky", "9.4"), Choices(path="rocm-upgrade", rocm="6.4.3"))
    path = tmp_path / "plan.sh"
    path.write_text(render_shell(plan))
    res = subprocess.run(["shellcheck", "-S", "warning", str(path)], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout


def test_without_rocm_the_newest_release_with_a_known_layout_and_os_list_is_taken():
    plan = build_plan(_system("almalinux", "9.4"), Choices(path="rocm-upgrade"))
    assert plan.inputs["rocm"] == "6.4.3"  # 7.x: the driver repository is not known
    assert any("the default on" in n or "chosen by the diagnosis" in n for n in plan.notes), plan.notes
    from rocm_wizard.plan.dnfplan import default_release

    assert default_release(True) == "6.4.3" and default_release(False) == "7.0.2"


def test_an_obsoleted_package_counts_as_a_removal():
    table = ("Installing:\n rocm-obsoleter  noarch  6.4.3.60403-1.el9  rocm  6 k\n"
             "     replacing  distro-tool.noarch 1.0-1.el9\n")
    assert dnf_removals(table) == ["distro-tool"]
