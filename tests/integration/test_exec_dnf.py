"""The ROCm upgrade on a dnf host (issue 26), for real: a Debian root that says it is Rocky Linux
9.4, with Debian's dnf and rpm acting on the root's own rpm database; AMD-like rpm repositories
(stand-in rpms built with rpmbuild, signed with rpmsign, indexed with createrepo_c) and a
distribution repository whose rocm looks newer, both on 127.0.0.1.  ``--yes`` and the plan's shell
script upgrade ROCm 6.2.4 to 6.4.3; a second run changes nothing; DRY_RUN changes nothing; a forged
key is refused before ``rpm --import``; the distribution's rocm 99 never wins; a failed run removes
the .repo files it wrote."""
from __future__ import annotations

import os

import pytest
from rwtest import ci

from harness import ansible, checks, rpmlab, wizard

KEY_NAME = "/etc/pki/rpm-gpg/RPM-GPG-KEY-rocm-wizard-amd"


@pytest.fixture(scope="session")
def dnf_debs(root_base):
    from harness.procs import CommandFailed

    for tool in ("rpmbuild", "rpmsign", "createrepo_c"):
        if not any(os.access(os.path.join(d, tool), os.X_OK) for d in os.environ.get("PATH", "").split(os.pathsep)):
            ci.missing(f"{tool} is not installed (apt install rpm createrepo-c)")
    try:
        return rpmlab.ensure_debs(root_base)
    except CommandFailed as exc:
        ci.missing(f"Debian's dnf and rpm (fetched once from Debian's archive): {exc}")


@pytest.fixture(scope="session")
def rpm_world(tier_ready, tmp_path_factory):
    world = rpmlab.RpmWorld(str(tmp_path_factory.mktemp("rpmworld")))
    yield world
    world.close()


@pytest.fixture
def rpm_site(rpm_world):
    rpm_world.reset()
    yield rpm_world
    rpm_world.reset()


@pytest.fixture
def rocky_old(request, root_base, dnf_debs, rpm_site):
    """Rocky Linux 9.4 with an RX 7900 XTX, ROCm 6.2.4 installed, the distribution repository set.
    dnf, rpm, the distribution repository and ROCm 6.2.4 are set up once per session (a layer:
    ``BaseTree.root_from``); each test gets its own copy-on-write root on it."""

    def build(root):
        rpmlab.make_rocky(root, dnf_debs)
        rpm_site.add_distro(root)
        rpm_site.install_old(root)

    with ansible.gpu_root_from(request, root_base, "rocky-old-" + dnf_debs.name, build) as root:
        yield root


def args(site, fingerprint=None):
    return ["--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-mirror", site.radeon_url, "--allow-http-mirror",
            "--rocm-key-fingerprint", fingerprint or site.key.fingerprint, "--no-dkms"]


def rpm_q(root, *what):
    res = root.run(["rpm", "-q", "--qf", "%{NAME}-%{VERSION}\n", *what])
    return res.stdout.strip()


def state(root):
    """What a run could change: the rpm database's packages and keys, the repo and key files."""
    pkgs = root.run(["rpm", "-qa", "--qf", "%{NAME}-%{VERSION}-%{RELEASE}\n"]).stdout
    files = {p: root.read(p) if root.exists(p) else None
             for p in ("/etc/yum.repos.d/rocm.repo", "/etc/yum.repos.d/amdgpu.repo", KEY_NAME,
                       "/etc/ld.so.conf.d/rocm.conf")}
    return sorted(pkgs.split()), files


def test_yes_upgrades_then_a_second_run_is_all_ok(rocky_old, rpm_site):
    root = rocky_old
    assert rpm_q(root, "rocm") == "rocm-6.2.4.60204"
    res = wizard.run(root, "--yes", "--no-verify", *args(rpm_site))
    assert res.returncode == 0, res.stderr
    assert rpm_q(root, "rocm") == "rocm-6.4.3.60403", "AMD's 6.4.3, not the distribution's rocm 99"
    assert root.read("/opt/rocm/.info/version").startswith("6.4.3")
    repo = root.read("/etc/yum.repos.d/rocm.repo")
    assert f"baseurl={rpm_site.radeon_url}/rocm/rhel9/6.4.3/main\n" in repo
    assert "gpgcheck=1\n" in repo and "priority=50\n" in repo and f"gpgkey=file://{KEY_NAME}\n" in repo
    assert "skip_if_unavailable=0\n" in repo
    # the key went into rpm's database, checked: its rpm name is the fingerprint's last 8 digits
    assert rpm_q(root, "gpg-pubkey-" + rpm_site.key.fingerprint[-8:].lower()).startswith("gpg-pubkey-")
    words = checks.step_lines(res.stderr)
    assert set(words.values()) <= {"ok", "changed"}, res.stderr

    again = wizard.run(root, "--yes", "--no-verify", *args(rpm_site))
    assert again.returncode == 0, again.stderr
    words = checks.step_lines(again.stderr)
    assert words and set(words.values()) == {"ok"}, again.stderr

    # the distribution's newer-looking rocm never wins, not even for a plain `dnf upgrade`
    up = root.run(["dnf", "-y", "upgrade"], timeout=600)
    assert up.returncode == 0, up.stdout + up.stderr
    assert rpm_q(root, "rocm") == "rocm-6.4.3.60403"
    # control: with AMD's repository at the distribution's priority, the same upgrade takes rocm 99
    control = root.run(["dnf", "--assumeno", "--setopt=rocm.priority=99", "upgrade", "rocm"], timeout=600)
    assert "99.0.0" in control.stdout, control.stdout + control.stderr
    assert rpm_q(root, "rocm") == "rocm-6.4.3.60403"


def test_dry_run_changes_nothing(rocky_old, rpm_site):
    root = rocky_old
    before = state(root)
    res = wizard.run(root, "--dry-run", *args(rpm_site))
    assert res.returncode == 2, res.stderr
    assert "rocm.repo" in res.stdout and "rpm --import" in res.stdout
    assert state(root) == before


def test_forged_key_is_refused_before_rpm_import(rocky_old, rpm_site):
    root = rocky_old
    before = state(root)
    rpm_site.serve_rogue_key()
    res = wizard.run(root, "--yes", "--no-verify", *args(rpm_site))
    assert res.returncode == 1
    assert "nothing was written or imported" in res.stderr
    assert state(root) == before
    assert "gpg-pubkey-" + rpm_site.rogue_key.fingerprint[-8:].lower() not in root.run(["rpm", "-qa"]).stdout


def test_rollback_after_a_failed_run_removes_the_repo_files_it_wrote(rocky_old, rpm_site):
    root = rocky_old
    assert not root.exists("/etc/yum.repos.d/rocm.repo")
    # the repository's metadata is gone: dnf cannot resolve 6.4.3, the run fails and rolls back
    os.rename(os.path.join(rpm_site.site, "rocm", "rhel9", "6.4.3", "main", "repodata"),
              os.path.join(rpm_site.site, "rocm", "rhel9", "6.4.3", "main", "repodata.off"))
    try:
        res = wizard.run(root, "--yes", "--no-verify", *args(rpm_site))
    finally:
        os.rename(os.path.join(rpm_site.site, "rocm", "rhel9", "6.4.3", "main", "repodata.off"),
                  os.path.join(rpm_site.site, "rocm", "rhel9", "6.4.3", "main", "repodata"))
    assert res.returncode == 1, res.stderr
    assert "cannot resolve" in res.stderr and "rocm-wizard rollback" in res.stderr
    assert root.exists("/etc/yum.repos.d/rocm.repo")  # rpm's database changed (the key): no silent restore
    assert rpm_q(root, "rocm") == "rocm-6.2.4.60204"
    back = wizard.run(root, "rollback")
    assert back.returncode == 0, back.stdout + back.stderr
    assert not root.exists("/etc/yum.repos.d/rocm.repo"), back.stderr
    assert not root.exists(KEY_NAME), back.stderr
    assert rpm_q(root, "rocm") == "rocm-6.2.4.60204"


def test_rollback_names_the_rpm_packages_the_run_changed_and_its_commands_take_them_back(rocky_old, rpm_site):
    """The journal and ``rollback`` list what the run did to rpm's database (from ``rpm -qa`` before
    and after, like dpkg's status on the apt path): rocm and rocm-core upgraded, AMD's key imported.
    On a machine that had AMD's 6.2.4 repository, rollback puts that .repo file back, and the
    ``dnf downgrade`` line it prints, run as printed, takes ROCm back to 6.2.4."""
    root = rocky_old
    old_repo = (f"[ROCm-6.2.4]\nname=ROCm 6.2.4\nbaseurl={rpm_site.radeon_url}/rocm/rhel9/6.2.4/main\nenabled=1\n"
                f"priority=50\ngpgcheck=1\ngpgkey=file://{KEY_NAME}\n")
    root.write("/etc/yum.repos.d/rocm.repo", old_repo)
    res = wizard.run(root, "--yes", "--no-verify", *args(rpm_site))
    assert res.returncode == 0, res.stderr
    assert rpm_q(root, "rocm") == "rocm-6.4.3.60403"
    keyname = "gpg-pubkey-" + rpm_site.key.fingerprint[-8:].lower()
    changes = {c["name"]: (c["before"], c["after"]) for c in checks.journal(root)["packages"]}
    assert changes["rocm"] == ("6.2.4.60204-1.el9", "6.4.3.60403-1.el9")
    assert changes["rocm-core"] == ("6.2.4.60204-1.el9", "6.4.3.60403-1.el9")
    assert changes[keyname][0] is None and changes[keyname][1].startswith(keyname[11:] + "-")
    assert not any(n.startswith(("distro", "dpkg", "libc")) for n in changes), changes  # only what the run did

    dry = wizard.run(root, "rollback", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    back = wizard.run(root, "rollback")
    assert back.returncode == 0, back.stdout + back.stderr
    out = back.stdout
    tail = out[out.index("Packages are not changed back"):]
    assert tail in dry.stdout, dry.stdout
    assert "Packages are not changed back by rollback:" in out and "apt-get" not in out, out
    assert "  rocm: 6.2.4.60204-1.el9 -> 6.4.3.60403-1.el9" in out, out
    assert f"  signing key {keyname}: (not installed) -> " in out, out
    assert root.read("/etc/yum.repos.d/rocm.repo") == old_repo
    down = [ln.strip() for ln in out.splitlines() if ln.strip().startswith("sudo dnf --refresh downgrade ")]
    assert down == ["sudo dnf --refresh downgrade rocm-6.2.4.60204-1.el9 rocm-core-6.2.4.60204-1.el9"], out
    # the printed command, run as printed (root needs no sudo), takes ROCm back
    again = root.run(down[0].split()[1:] + ["-y"], timeout=600)
    assert again.returncode == 0, again.stdout + again.stderr
    assert rpm_q(root, "rocm") == "rocm-6.2.4.60204" and rpm_q(root, "rocm-core") == "rocm-core-6.2.4.60204"


def test_the_script_converges_and_dry_run_changes_nothing(rocky_old, rpm_site, tmp_path):
    root = rocky_old
    plan = wizard.run(root, "--plan-only", "--format", "shell", *args(rpm_site))
    assert plan.returncode == 2, plan.stderr  # 2: changes pending
    root.write("/root/plan.sh", plan.stdout, 0o700)
    before = state(root)
    dry = root.run(["bash", "/root/plan.sh"], env={"DRY_RUN": "1"}, timeout=600)
    assert dry.returncode == 2, dry.stderr
    assert state(root) == before
    run = root.run(["bash", "/root/plan.sh"], timeout=900)
    assert run.returncode == 0, run.stderr
    assert rpm_q(root, "rocm") == "rocm-6.4.3.60403"
    assert rpm_q(root, "gpg-pubkey-" + rpm_site.key.fingerprint[-8:].lower()).startswith("gpg-pubkey-")
    second = root.run(["bash", "/root/plan.sh"], env={"DRY_RUN": "1"}, timeout=600)
    assert second.returncode == 0, second.stderr
    assert "    would:" not in second.stderr and "dry run: nothing to do" in second.stderr, second.stderr


def test_the_script_refuses_a_forged_key_before_rpm_import(rocky_old, rpm_site):
    root = rocky_old
    plan = wizard.run(root, "--plan-only", "--format", "shell", *args(rpm_site))
    assert plan.returncode == 2, plan.stderr  # 2: changes pending
    root.write("/root/plan.sh", plan.stdout, 0o700)
    before = state(root)
    rpm_site.serve_rogue_key()
    run = root.run(["bash", "/root/plan.sh"], timeout=600)
    assert run.returncode != 0
    assert "nothing was written or imported" in run.stderr
    assert state(root) == before


def test_the_playbook_converges_with_ansible_builtin_dnf(rocky_old, rpm_site, ansible_in):
    """ansible-core's own dnf and rpm_key modules, run for real in the root under Debian's
    ansible-core (2.14), the newest from PyPI the root's Python 3.11 can run (2.19.x) and the newest
    on PyPI (2.20+, from the Debian 13 controller); the dnf module uses the root's python3-dnf."""
    from harness import ansible

    root = rocky_old
    ansible_in(root)
    plan = wizard.run(root, "--plan-only", "--format", "ansible", *args(rpm_site))
    assert plan.returncode == 2, plan.stderr
    root.write("/root/site.yml", plan.stdout)
    before = state(root)
    check = ansible.playbook(root, "/root/site.yml", "--check")
    assert check.returncode == 0, check.stdout[-4000:] + check.stderr[-2000:]
    assert state(root) == before
    run = ansible.playbook(root, "/root/site.yml")
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert rpm_q(root, "rocm") == "rocm-6.4.3.60403"
    assert rpm_q(root, "gpg-pubkey-" + rpm_site.key.fingerprint[-8:].lower()).startswith("gpg-pubkey-")
    assert "priority=50\n" in root.read("/etc/yum.repos.d/rocm.repo")
    again = ansible.playbook(root, "/root/site.yml")
    assert again.returncode == 0, again.stdout[-4000:]
    assert ansible.recap(again.stdout)["changed"] == 0, ansible.changed_tasks(again.stdout)


_APPLY = r"""
import json, sys
from rocm_wizard.plan.context import Context
from rocm_wizard.plan.core import OK, CHANGE
from rocm_wizard.plan.state import PlanState
from rocm_wizard.plan.steps.dnf import DnfInstall
step = DnfInstall("s", "t", **json.loads(sys.argv[1]))
ctx = Context()
res = step.apply(ctx)
print(json.dumps({"status": res.status, "detail": res.detail, "check": step.check(PlanState(ctx)).status}))
"""


def _apply(root, **params):
    import json

    res = root.run(["python3", "-c", _APPLY, json.dumps(params)], env=wizard.env(), timeout=600)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_kernel_devel_by_uname_the_driver_and_removals_asked_about_for_real(rocky_old, rpm_site):
    """The dnf-install step itself in the lab: kernel-devel found by ``kernel-devel-uname-r = $(uname
    -r)`` (the lab's kernel is the host's, so the step is given a RHEL 9.4 one), amdgpu-dkms from the
    driver repository, and a package of AMD's that obsoletes one of the distribution's: refused with
    the name before anything changes, installed once removals are allowed."""
    from rocm_wizard.plan.steps.rpmcommon import repo_ini

    root = rocky_old
    root.write(KEY_NAME, rpm_site.key.armored_public())
    root.run(["rpm", "--import", KEY_NAME], check=True)
    common = {"enabled": True, "priority": 50, "gpgcheck": True, "gpgkey": "file://" + KEY_NAME,
              "skip_if_unavailable": False}
    root.write("/etc/yum.repos.d/rocm.repo", repo_ini([
        {"id": "rocm", "name": "rocm", "baseurl": rpm_site.radeon_url + "/rocm/rhel9/6.4.3/main", **common},
        {"id": "amdgpu", "name": "amdgpu", "baseurl": rpm_site.radeon_url + "/amdgpu/6.4.3/rhel/9.4/main/x86_64",
         **common}]))
    kdev = [{"provides": "kernel-devel-uname-r", "equals": rpmlab.KERNEL}]
    first = _apply(root, packages=kdev)
    assert first["status"] == "changed" and first["check"] == "ok", first
    assert root.run(["rpm", "-q", "kernel-devel"]).stdout.startswith("kernel-devel-5.14.0-427.13.1.el9_4")
    assert _apply(root, packages=kdev)["status"] == "ok"

    drv = _apply(root, packages=[{"name": "amdgpu-dkms"}], related=["rocm*", "amdgpu*"])
    assert drv["status"] == "changed", drv
    assert rpm_q(root, "amdgpu-dkms") == "amdgpu-dkms-6.8.5.60403"

    root.write("/root/distro-tool.rpm", open(rpm_site.rpms["distro-tool"], "rb").read())
    root.run(["rpm", "-i", "--nosignature", "/root/distro-tool.rpm"], check=True)
    pkgs = [{"name": "rocm-obsoleter", "version": "6.4.3.60403-*"}]
    refused = _apply(root, packages=pkgs, related=["rocm*", "amdgpu*"])
    assert refused["status"] == "failed" and "would remove distro-tool" in refused["detail"], refused
    assert rpm_q(root, "distro-tool") == "distro-tool-1.0"
    assert root.run(["rpm", "-q", "rocm-obsoleter"]).returncode != 0
    allowed = _apply(root, packages=pkgs, related=["rocm*", "amdgpu*"], allow_removals=True)
    assert allowed["status"] == "changed" and "distro-tool" in allowed["detail"], allowed
    assert root.run(["rpm", "-q", "distro-tool"]).returncode != 0


DNF_STEPS = ["rocm-key", "rocm-repo", "rocm-packages", "ld-conf", "ldconfig", "gpu-groups"]


@pytest.mark.parametrize("step", ["rocm-key", "rocm-repo", "rocm-packages"])
def test_sigkill_after_a_step_then_resume_converges(rocky_old, rpm_site, step):
    import signal

    root = rocky_old
    res = wizard.run(root, "--yes", "--no-verify", *args(rpm_site), extra_env={"ROCM_WIZARD_FAULT": f"kill-after:{step}"})
    assert res.returncode == -signal.SIGKILL, res.stderr
    j = checks.journal(root)
    assert j["state"] == "running"
    done = [s["id"] for s in j["steps"] if s["status"] in ("ok", "changed")]
    assert done == DNF_STEPS[:DNF_STEPS.index(step) + 1]
    resumed = wizard.run(root, "resume", "--no-verify")
    assert resumed.returncode == 0, resumed.stderr
    assert checks.journal(root)["state"] == "finished"
    assert rpm_q(root, "rocm") == "rocm-6.4.3.60403"
    again = wizard.run(root, "--yes", "--no-verify", *args(rpm_site))
    assert again.returncode == 0 and set(checks.step_lines(again.stderr).values()) == {"ok"}, again.stderr


# ------------------------------------------------------------------ the Core SDK (issue 26)
CORE_REPO = "/etc/yum.repos.d/amdrocm-stable.repo"
CORE_KEY = "/etc/pki/rpm-gpg/RPM-GPG-KEY-amdrocm"
CORE_STEPS = ["rocm-core-key", "rocm-repo", "repo-check", "legacy-remove", "rocm-packages", "core-alternative",
              "gpu-groups"]


def core_args(site, fingerprint=None):
    return ["--path", "rocm-upgrade", "--rocm", "10.0", "--rocm-core-mirror", site.radeon_url, "--allow-http-mirror",
            "--rocm-core-key-fingerprint", fingerprint or site.core_key.fingerprint]


def core_state(root):
    pkgs = root.run(["rpm", "-qa", "--qf", "%{NAME}-%{VERSION}-%{RELEASE}\n"]).stdout
    files = {p: root.read(p) if root.exists(p) else None for p in (CORE_REPO, CORE_KEY, "/etc/yum.repos.d/rocm.repo")}
    return sorted(pkgs.split()), files, root.run(["readlink", "-f", "/opt/rocm/core"]).stdout.strip()


def assert_core_installed(root, site):
    sdk = f"amdrocm-core-sdk{rpmlab.CORE_SERIES}-gfx1100"
    assert rpm_q(root, sdk) == f"{sdk}-{rpmlab.CORE_VERSION}", "the per-gfx package of the versioned suite"
    assert root.run(["rpm", "-q", "amdrocm-core-sdk10.0"]).returncode != 0, "not the multi-GPU suite: one card"
    for legacy in ("rocm", "rocm-core"):
        assert root.run(["rpm", "-q", legacy]).returncode != 0, f"legacy {legacy} removed first"
    assert root.run(["readlink", "-f", "/opt/rocm/core"]).stdout.strip() == rpmlab.CORE_ROOT
    repo = root.read(CORE_REPO)
    assert f"baseurl={site.radeon_url}/rocm/core/packages/rhel9/x86_64\n" in repo, repo
    assert "gpgcheck=1\n" in repo and f"gpgkey=file://{CORE_KEY}\n" in repo and "priority=" not in repo, repo
    assert rpm_q(root, "gpg-pubkey-" + site.core_key.fingerprint[-8:].lower()).startswith("gpg-pubkey-")


@pytest.fixture
def core_site(rpm_site):
    return rpm_site.core()


def test_core_sdk_yes_from_6_2_converges_then_a_second_run_changes_nothing(rocky_old, core_site):
    root = rocky_old
    assert rpm_q(root, "rocm") == "rocm-6.2.4.60204"
    res = wizard.run(root, "--yes", "--no-verify", *core_args(core_site))
    assert res.returncode == 0, res.stderr
    assert "changed: removed rocm rocm-core" in res.stderr, res.stderr
    assert_core_installed(root, core_site)
    words = checks.step_lines(res.stderr)
    assert len(words) == len(CORE_STEPS) and set(words.values()) <= {"ok", "changed"}, res.stderr
    before = core_state(root)
    again = wizard.run(root, "--yes", "--no-verify", *core_args(core_site))
    assert again.returncode == 0, again.stderr
    words = checks.step_lines(again.stderr)
    assert len(words) == len(CORE_STEPS) and set(words.values()) == {"ok"}, again.stderr
    assert core_state(root) == before


def test_core_sdk_wrong_key_changes_nothing(rocky_old, core_site):
    root = rocky_old
    before = core_state(root)
    core_site.serve_rogue_core_key()
    res = wizard.run(root, "--yes", "--no-verify", *core_args(core_site))
    assert res.returncode == 1, res.stderr
    assert "nothing was written or imported" in res.stderr, res.stderr
    assert core_state(root) == before
    assert rpm_q(root, "rocm") == "rocm-6.2.4.60204"
    # and the right key under a wrong pinned fingerprint: refused the same way
    core_site.reset()
    res = wizard.run(root, "--yes", "--no-verify", *core_args(core_site, fingerprint=core_site.rogue_key.fingerprint))
    assert res.returncode == 1 and "nothing was written or imported" in res.stderr, res.stderr
    assert core_state(root) == before


@pytest.mark.parametrize("step", ["rocm-repo", "legacy-remove", "rocm-packages"])
def test_core_sdk_sigkill_then_resume_converges(rocky_old, core_site, step):
    """Killed after a step (after legacy-remove the machine has no ROCm at all: the plan's own
    in-between state), ``resume`` finishes, and a new run then changes nothing."""
    import signal

    root = rocky_old
    res = wizard.run(root, "--yes", "--no-verify", *core_args(core_site),
                     extra_env={"ROCM_WIZARD_FAULT": f"kill-after:{step}"})
    assert res.returncode == -signal.SIGKILL, res.stderr
    j = checks.journal(root)
    assert j["state"] == "running"
    assert [s["id"] for s in j["steps"] if s["status"] in ("ok", "changed")] == CORE_STEPS[:CORE_STEPS.index(step) + 1]
    resumed = wizard.run(root, "resume", "--no-verify")
    assert resumed.returncode == 0, resumed.stderr
    assert checks.journal(root)["state"] == "finished"
    assert_core_installed(root, core_site)
    again = wizard.run(root, "--yes", "--no-verify", *core_args(core_site))
    assert again.returncode == 0 and set(checks.step_lines(again.stderr).values()) == {"ok"}, again.stderr


def test_core_sdk_script_converges_and_a_second_run_has_nothing_to_do(rocky_old, core_site):
    root = rocky_old
    plan = wizard.run(root, "--plan-only", "--format", "shell", *core_args(core_site))
    assert plan.returncode == 2, plan.stderr
    root.write("/root/plan.sh", plan.stdout, 0o700)
    before = core_state(root)
    dry = root.run(["bash", "/root/plan.sh"], env={"DRY_RUN": "1"}, timeout=600)
    assert dry.returncode == 2, dry.stderr
    assert core_state(root) == before
    run = root.run(["bash", "/root/plan.sh"], timeout=900)
    assert run.returncode == 0, run.stderr
    assert "removes: rocm rocm-core" in run.stderr, run.stderr
    assert_core_installed(root, core_site)
    second = root.run(["bash", "/root/plan.sh"], env={"DRY_RUN": "1"}, timeout=600)
    assert second.returncode == 0, second.stderr
    assert "    would:" not in second.stderr and "dry run: nothing to do" in second.stderr, second.stderr


def test_core_sdk_script_refuses_a_wrong_key(rocky_old, core_site):
    root = rocky_old
    plan = wizard.run(root, "--plan-only", "--format", "shell", *core_args(core_site))
    root.write("/root/plan.sh", plan.stdout, 0o700)
    before = core_state(root)
    core_site.serve_rogue_core_key()
    run = root.run(["bash", "/root/plan.sh"], timeout=600)
    assert run.returncode != 0 and "nothing was written or imported" in run.stderr, run.stderr
    assert core_state(root) == before


def test_core_sdk_playbook_converges_then_changes_nothing(rocky_old, core_site, ansible_in):
    from harness import ansible

    root = rocky_old
    ansible_in(root)
    plan = wizard.run(root, "--plan-only", "--format", "ansible", *core_args(core_site))
    assert plan.returncode == 2, plan.stderr
    root.write("/root/site.yml", plan.stdout)
    before = core_state(root)
    check = ansible.playbook(root, "/root/site.yml", "--check")
    assert check.returncode == 0, check.stdout[-4000:] + check.stderr[-2000:]
    assert core_state(root) == before
    run = ansible.playbook(root, "/root/site.yml")
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert_core_installed(root, core_site)
    again = ansible.playbook(root, "/root/site.yml")
    assert again.returncode == 0, again.stdout[-4000:]
    assert ansible.recap(again.stdout)["changed"] == 0, ansible.changed_tasks(again.stdout)
