"""ROCm on SLES with real zypper and rpm (issue 26): a Debian root posing as SLES 15 SP6, with
Debian's zypper and rpm in it, and signed repositories laid out like AMD's SLES ones on 127.0.0.1
(harness/zypperlab.py).  ``--yes``, the plan's script and its playbook upgrade ROCm 6.2.4 -> 6.4.3;
a second run changes nothing; ``DRY_RUN=1`` changes nothing; a key that is not the expected one is
refused before ``rpm --import``; SUSE's newer ``rocm`` does not win; rollback takes the repository
files back."""
from __future__ import annotations

import os

import pytest
from rwtest import ci

from harness import ansible, checks, wizard, zypperlab as zl


@pytest.fixture(scope="session")
def zypper_debs(root_base):
    from harness.procs import CommandFailed

    try:
        return zl.ensure_debs(root_base)
    except CommandFailed as exc:
        ci.missing(f"Debian's zypper and rpm (fetched once from Debian's archive): {exc}")


@pytest.fixture(scope="session")
def zypper_world(tier_ready, tmp_path_factory):
    for tool in ("rpmbuild", "rpmsign", "createrepo_c"):
        ci.tool(tool)
    world = zl.build_world(str(tmp_path_factory.mktemp("zypperworld")))
    yield world
    world.radeon.stop()
    world.suse.stop()
    for key in (world.radeon_key, world.suse_key, world.rogue_key, world.core_key):
        if key is not None:
            key.close()


@pytest.fixture
def zworld(zypper_world):
    zypper_world.reset()
    yield zypper_world
    zypper_world.reset()


@pytest.fixture
def sles_old(request, root_base, zypper_debs, zworld):
    """SLES 15 SP6 (stand-in) with ROCm 6.2.4 from AMD's zypper repository, an AMD GPU (sysfs of a
    Radeon RX 7900 XTX), a user alice, and the wizard bind-mounted.  zypper, rpm, ROCm 6.2.4 and
    alice are set up once per session (a layer: ``BaseTree.root_from``); each test gets its own
    copy-on-write root on it, as if it had made them itself."""

    def build(root):
        zl.make_sles(root, zypper_debs)
        zl.make_rocm_old(root, zworld)
        root.add_user("alice")

    with ansible.gpu_root_from(request, root_base, "sles-old-" + zypper_debs.name, build) as root:
        yield root


def upgrade_args(world, fingerprint=None):
    return ["--path", "rocm-upgrade", "--rocm", zl.NEW, "--rocm-mirror", world.radeon_url, "--allow-http-mirror",
            "--rocm-key-fingerprint", fingerprint or world.radeon_key.fingerprint, "--user", "alice"]


def assert_upgraded(root):
    full = zl.libpatch(zl.NEW)
    assert zl.rpm_version(root, "rocm") == f"{full}-sles156"
    # AMD's rocm-core, not "SUSE's" newer 6.5.0: the repository priority and --from decide
    assert zl.rpm_version(root, "rocm-core") == f"{full}-sles156"
    assert zl.rpm_version(root, "amdgpu-dkms") == f"{zl.NEW}.99-sles156"
    assert zl.rpm_version(root, "kernel-default-devel")
    assert root.read(f"/opt/rocm-{zl.NEW}/.info/version") == f"{zl.NEW}-AMD\n"
    repo = root.read("/etc/zypp/repos.d/rocm.repo")
    assert f"[ROCm-{zl.NEW}]" in repo and f"/rocm/zyp/{zl.NEW}/main" in repo
    assert "gpgcheck=1" in repo and "pkg_gpgcheck=1" in repo and "priority=50" in repo
    assert "[amdgpu]" in root.read("/etc/zypp/repos.d/amdgpu.repo")


def test_yes_upgrades_6_2_to_6_4_then_a_second_run_is_all_ok(sles_old, zworld):
    root = sles_old
    assert zl.rpm_version(root, "rocm").startswith(zl.libpatch(zl.OLD))
    res = wizard.run(root, "--yes", "--no-verify", *upgrade_args(zworld))
    assert res.returncode == 0, res.stderr
    assert_upgraded(root)
    groups = root.run(["id", "-nG", "alice"]).stdout.split()
    assert "render" in groups and "video" in groups
    # the key went into the rpm database only through rpm --import of the checked copy
    assert root.run(["rpm", "-q", "gpg-pubkey-" + zworld.radeon_key.fingerprint[-8:].lower()]).returncode == 0
    ev = checks.events(root, checks.latest_run(root))
    argvs = [e["argv"] for e in ev if e["event"] == "command"]
    assert any(a[:2] == ["rpm", "--import"] for a in argvs)
    assert not any("--gpg-auto-import-keys" in a or "--no-gpg-checks" in a for a in argvs)
    dry = [a for a in argvs if a[:3] == ["zypper", "--non-interactive", "install"] and "--dry-run" in a]
    assert dry, "the removals are read from a dry run first"

    again = wizard.run(root, "--yes", "--no-verify", *upgrade_args(zworld))
    assert again.returncode == 0, again.stderr
    words = checks.step_lines(again.stderr)
    assert set(words.values()) == {"ok"}, again.stderr
    assert_upgraded(root)


def test_dry_run_changes_nothing(sles_old, zworld):
    root = sles_old
    before = zl.state(root)
    res = wizard.run(root, "--dry-run", *upgrade_args(zworld))
    assert res.returncode == 2, res.stderr
    assert f"/rocm/zyp/{zl.NEW}/main" in res.stdout
    assert zl.state(root) == before


def test_a_key_that_is_not_the_expected_one_is_refused_before_rpm_import(sles_old, zworld):
    root = sles_old
    before = zl.state(root)
    wrong = zworld.rogue_key.fingerprint
    res = wizard.run(root, "--yes", "--no-verify", *upgrade_args(zworld, fingerprint=wrong))
    assert res.returncode == 1
    assert wrong in res.stderr and "nothing was written or imported" in res.stderr
    assert zl.state(root) == before
    ev = checks.events(root, checks.latest_run(root))
    assert not any(e["argv"][:2] == ["rpm", "--import"] for e in ev if e["event"] == "command")


def test_rollback_takes_the_repository_files_back(sles_old, zworld):
    root = sles_old
    old_repo = root.read("/etc/zypp/repos.d/rocm.repo")
    res = wizard.run(root, "--yes", "--no-verify", *upgrade_args(zworld))
    assert res.returncode == 0, res.stderr
    assert root.exists("/etc/zypp/repos.d/amdgpu.repo")
    back = wizard.run(root, "rollback")
    assert back.returncode == 0, back.stderr + back.stdout
    assert "restored /etc/zypp/repos.d/rocm.repo" in back.stdout
    assert "removed /etc/zypp/repos.d/amdgpu.repo (it did not exist before)" in back.stdout
    assert root.read("/etc/zypp/repos.d/rocm.repo") == old_repo
    assert not root.exists("/etc/zypp/repos.d/amdgpu.repo")
    # the rpm packages the run changed (rpm -qa before and after), in the journal and in rollback's
    # account, with zypper's commands; run as printed they take ROCm back to 6.2.4 from the restored
    # repository, and take out what the run added
    old, new = f"{zl.libpatch(zl.OLD)}-sles156", f"{zl.libpatch(zl.NEW)}-sles156"
    changes = {c["name"]: (c["before"], c["after"]) for c in checks.journal(root)["packages"]}
    assert changes["rocm"] == (old, new) and changes["rocm-core"] == (old, new), changes
    assert changes["amdgpu-dkms"][0] is None and changes["kernel-default-devel"][0] is None
    assert not any(n.startswith("suse-hpc") for n in changes), changes
    out = back.stdout
    assert f"  rocm: {old} -> {new}" in out and "apt-get" not in out and "dnf" not in out, out
    lines = [ln.strip() for ln in out.splitlines() if ln.strip().startswith("sudo zypper ")]
    assert lines == ["sudo zypper refresh", f"sudo zypper install --oldpackage rocm={old} rocm-core={old}",
                     "sudo zypper remove amdgpu-dkms kernel-default-devel"], out
    for line in lines:
        res = root.run(["zypper", "--non-interactive"] + line.split()[2:], timeout=600)
        assert res.returncode == 0, line + "\n" + res.stdout + res.stderr
    assert zl.rpm_version(root, "rocm") == old and zl.rpm_version(root, "rocm-core") == old
    assert zl.rpm_version(root, "amdgpu-dkms") is None and zl.rpm_version(root, "suse-hpc-tool")


def test_suses_newer_rocm_does_not_win_over_amds(sles_old, zworld):
    """"SUSE's" repository offers rocm and rocm-core 6.5.0, newer than AMD's 6.4.3, at the default
    priority: after the plan, a plain `zypper update` keeps AMD's (priority=50 in the .repo file);
    the control, the same file without its priority, lets zypper take SUSE's."""
    root = sles_old
    res = wizard.run(root, "--yes", "--no-verify", *upgrade_args(zworld))
    assert res.returncode == 0, res.stderr
    up = root.run(["zypper", "--non-interactive", "update"], timeout=600)
    assert up.returncode == 0, up.stdout + up.stderr
    assert_upgraded(root)
    root.run(["sed", "-i", "/^priority=/d", "/etc/zypp/repos.d/rocm.repo"], check=True)
    control = root.run(["zypper", "--non-interactive", "update", "--dry-run"], timeout=600)
    assert "rocm rocm-core" in control.stdout and "going to be upgraded" in control.stdout, control.stdout


def make_script(root, *args, name="/root/plan.sh"):
    res = wizard.run(root, "--plan-only", *args)
    assert res.returncode in (0, 2), res.stderr
    assert res.stdout.startswith("#!/usr/bin/env bash")
    root.write(name, res.stdout, mode=0o755)
    return name


def test_script_upgrades_dry_run_changes_nothing_and_a_second_run_changes_nothing(sles_old, zworld):
    root = sles_old
    script = make_script(root, *upgrade_args(zworld))
    code = "\n".join(ln for ln in root.read(script).splitlines() if not ln.lstrip().startswith("#"))
    assert "zypper" in code and "--gpg-auto-import-keys" not in code and "--no-gpg-checks" not in code
    before = zl.state(root)
    dry = root.run(["bash", script], env={"DRY_RUN": "1"})
    assert dry.returncode == 2, dry.stderr
    assert zl.state(root) == before
    res = root.run(["bash", script], timeout=900)
    assert res.returncode == 0, res.stderr
    assert_upgraded(root)
    assert "rpm --import" in res.stderr
    again = root.run(["bash", script], timeout=900)
    assert again.returncode == 0, again.stderr
    assert "done: 0 step(s) changed the system" in again.stderr
    after = zl.state(root)
    dry2 = root.run(["bash", script], env={"DRY_RUN": "1"})
    assert dry2.returncode == 0, dry2.stderr
    assert zl.state(root) == after


def test_script_refuses_a_key_that_is_not_the_expected_one(sles_old, zworld):
    root = sles_old
    script = make_script(root, *upgrade_args(zworld, fingerprint=zworld.rogue_key.fingerprint))
    before = zl.state(root)
    res = root.run(["bash", script], timeout=600)
    assert res.returncode == 1
    assert "nothing was written or imported" in res.stderr
    assert "rpm --import" not in res.stderr.replace("then rpm --import it", "")
    assert zl.state(root) == before


def test_playbook_check_changes_nothing_the_run_converges_and_a_second_run_changes_nothing(sles_old, zworld,
                                                                                           ansible_in):
    """The playbook (``command`` tasks for zypper: ansible-core ships no zypper module, and
    community.general is not a dependency; ``ansible.builtin.rpm_key`` for the checked key) run for
    real in the root under Debian's ansible-core (2.14), the newest from PyPI the root's Python 3.11
    can run (2.19.x), and the newest on PyPI (2.20+, from the Debian 13 controller root through the
    tests' chroot connection; a deprecation warning fails it)."""
    from harness import ansible

    root = sles_old
    ansible_in(root)
    res = wizard.run(root, "--plan-only", "--format", "ansible", *upgrade_args(zworld))
    assert res.returncode in (0, 2), res.stderr
    tasks = "\n".join(ln for ln in res.stdout.splitlines() if not ln.lstrip().startswith("#"))
    assert "community.general" not in tasks and "--gpg-auto-import-keys" not in tasks
    root.write("/root/site.yml", res.stdout)
    users = ["-e", '{"rocm_wizard_gpu_users": ["alice"]}']
    before = zl.state(root)
    check = ansible.playbook(root, "/root/site.yml", "--check", "--diff", *users)
    assert check.returncode == 0, check.stdout[-6000:] + check.stderr[-3000:]
    assert zl.state(root) == before
    run = ansible.playbook(root, "/root/site.yml", *users)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert_upgraded(root)
    again = ansible.playbook(root, "/root/site.yml", *users)
    assert again.returncode == 0, again.stdout[-6000:] + again.stderr[-3000:]
    assert ansible.recap(again.stdout)["changed"] == 0, ansible.changed_tasks(again.stdout)


@pytest.mark.parametrize("index", [3, 6])
def test_script_killed_before_a_step_finishes_when_run_again(sles_old, zworld, index):
    """kill -9 of the script right before step N (3: the refresh after the key and repository
    files changed; 6: ROCm's packages), then the same script again: it converges."""
    root = sles_old
    script = make_script(root, *upgrade_args(zworld))
    root.write("/root/kill.bash", "set -T\n"
               f"trap '[[ $BASH_COMMAND == step_{index:02d}_* ]] && kill -9 $$' DEBUG\n")
    killed = root.run(["bash", script], env={"BASH_ENV": "/root/kill.bash"}, timeout=900)
    assert killed.returncode == -9 or killed.returncode == 137, killed.stderr
    assert zl.rpm_version(root, "rocm").startswith(zl.libpatch(zl.OLD))
    res = root.run(["bash", script], timeout=900)
    assert res.returncode == 0, res.stderr
    assert_upgraded(root)


@pytest.mark.parametrize("step", ["rocm-key", "zypper-refresh", "kernel-driver"])
def test_yes_killed_after_a_step_then_resume_converges(sles_old, zworld, step):
    import signal

    root = sles_old
    res = wizard.run(root, "--yes", "--no-verify", *upgrade_args(zworld),
                     extra_env={"ROCM_WIZARD_FAULT": f"kill-after:{step}"})
    assert res.returncode == -signal.SIGKILL, res.stderr
    assert checks.journal(root)["state"] == "running"
    resumed = wizard.run(root, "resume", "--no-verify")
    assert resumed.returncode == 0, resumed.stderr
    assert "skipped: done before the interruption" in resumed.stderr
    assert checks.journal(root)["state"] == "finished"
    assert_upgraded(root)
    again = wizard.run(root, "--yes", "--no-verify", *upgrade_args(zworld))
    assert again.returncode == 0 and set(checks.step_lines(again.stderr).values()) == {"ok"}, again.stderr


# ------------------------------------------------------------------ the Core SDK (issue 26)
CORE_REPO = "/etc/zypp/repos.d/amdrocm-stable.repo"
CORE_STEPS = ["rocm-core-key", "rocm-repos", "zypper-refresh", "legacy-remove", "rocm-packages", "core-alternative",
              "gpu-groups"]


@pytest.fixture
def core_world(zworld):
    return zworld.core()


def core_args(world, fingerprint=None):
    return ["--path", "rocm-upgrade", "--rocm", "10.0", "--rocm-core-mirror", world.radeon_url, "--allow-http-mirror",
            "--rocm-core-key-fingerprint", fingerprint or world.core_key.fingerprint, "--user", "alice"]


def core_state(root):
    out = zl.state(root)
    out["/opt/rocm/core"] = root.run(["readlink", "-f", "/opt/rocm/core"]).stdout.strip()
    return out


def assert_core_installed(root, world):
    from harness import rpmlab

    assert zl.rpm_version(root, "amdrocm-core-sdk10.0") == f"{rpmlab.CORE_VERSION}-{rpmlab.CORE_RELEASE}.sles15"
    assert zl.rpm_version(root, "amdrocm-base10.0")
    for legacy in ("rocm", "rocm-core"):
        assert zl.rpm_version(root, legacy) is None, f"legacy {legacy} removed first"
    assert zl.rpm_version(root, "suse-hpc-tool"), "nothing but the legacy ROCm packages is removed"
    assert root.run(["readlink", "-f", "/opt/rocm/core"]).stdout.strip() == rpmlab.CORE_ROOT
    repo = root.read(CORE_REPO)
    assert "[amdrocm-stable]" in repo and f"baseurl={world.radeon_url}/rocm/core/packages/sles15/x86_64\n" in repo
    assert "gpgcheck=1" in repo and "pkg_gpgcheck=1" in repo
    assert not root.exists("/etc/zypp/repos.d/rocm.repo"), "the legacy AMD repository file is taken out (backed up)"
    assert root.run(["rpm", "-q", "gpg-pubkey-" + world.core_key.fingerprint[-8:].lower()]).returncode == 0
    groups = root.run(["id", "-nG", "alice"]).stdout.split()
    assert "render" in groups and "video" in groups


def test_core_sdk_yes_from_6_2_converges_then_a_second_run_changes_nothing(sles_old, core_world):
    root = sles_old
    res = wizard.run(root, "--yes", "--no-verify", *core_args(core_world))
    assert res.returncode == 0, res.stderr
    assert "changed: removed rocm rocm-core" in res.stderr, res.stderr
    assert_core_installed(root, core_world)
    argvs = [e["argv"] for e in checks.events(root, checks.latest_run(root)) if e["event"] == "command"]
    assert not any("--gpg-auto-import-keys" in a or "--no-gpg-checks" in a for a in argvs)
    words = checks.step_lines(res.stderr)
    assert len(words) == len(CORE_STEPS) and set(words.values()) <= {"ok", "changed"}, res.stderr
    before = core_state(root)
    again = wizard.run(root, "--yes", "--no-verify", *core_args(core_world))
    assert again.returncode == 0, again.stderr
    assert set(checks.step_lines(again.stderr).values()) == {"ok"}, again.stderr
    assert core_state(root) == before


def test_core_sdk_wrong_key_changes_nothing(sles_old, core_world):
    root = sles_old
    before = core_state(root)
    core_world.rogue_key.write_armored(os.path.join(core_world.radeon_root, *zl.CORE_KEY_PATH))
    res = wizard.run(root, "--yes", "--no-verify", *core_args(core_world))
    assert res.returncode == 1, res.stderr
    assert "nothing was written or imported" in res.stderr, res.stderr
    assert core_state(root) == before


@pytest.mark.parametrize("step", ["legacy-remove", "rocm-packages"])
def test_core_sdk_sigkill_then_resume_converges(sles_old, core_world, step):
    import signal

    root = sles_old
    res = wizard.run(root, "--yes", "--no-verify", *core_args(core_world),
                     extra_env={"ROCM_WIZARD_FAULT": f"kill-after:{step}"})
    assert res.returncode == -signal.SIGKILL, res.stderr
    assert [s["id"] for s in checks.journal(root)["steps"] if s["status"] in ("ok", "changed")] == \
        CORE_STEPS[:CORE_STEPS.index(step) + 1]
    resumed = wizard.run(root, "resume", "--no-verify")
    assert resumed.returncode == 0, resumed.stderr
    assert checks.journal(root)["state"] == "finished"
    assert_core_installed(root, core_world)
    again = wizard.run(root, "--yes", "--no-verify", *core_args(core_world))
    assert again.returncode == 0 and set(checks.step_lines(again.stderr).values()) == {"ok"}, again.stderr


def test_core_sdk_script_converges_and_a_second_run_has_nothing_to_do(sles_old, core_world):
    root = sles_old
    plan = wizard.run(root, "--plan-only", "--format", "shell", *core_args(core_world))
    assert plan.returncode == 2, plan.stderr
    root.write("/root/plan.sh", plan.stdout, 0o700)
    before = core_state(root)
    dry = root.run(["bash", "/root/plan.sh"], env={"DRY_RUN": "1"}, timeout=600)
    assert dry.returncode == 2, dry.stderr
    assert core_state(root) == before
    run = root.run(["bash", "/root/plan.sh"], timeout=900)
    assert run.returncode == 0, run.stderr
    assert "removes: rocm rocm-core" in run.stderr, run.stderr
    assert_core_installed(root, core_world)
    second = root.run(["bash", "/root/plan.sh"], env={"DRY_RUN": "1"}, timeout=600)
    assert second.returncode == 0, second.stderr
    assert "    would:" not in second.stderr and "dry run: nothing to do" in second.stderr, second.stderr


def test_core_sdk_playbook_converges_then_changes_nothing(sles_old, core_world, ansible_in):
    from harness import ansible

    root = sles_old
    ansible_in(root)
    plan = wizard.run(root, "--plan-only", "--format", "ansible", *core_args(core_world))
    assert plan.returncode == 2, plan.stderr
    root.write("/root/site.yml", plan.stdout)
    before = core_state(root)
    check = ansible.playbook(root, "/root/site.yml", "--check")
    assert check.returncode == 0, check.stdout[-4000:] + check.stderr[-2000:]
    assert core_state(root) == before
    run = ansible.playbook(root, "/root/site.yml")
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert_core_installed(root, core_world)
    again = ansible.playbook(root, "/root/site.yml")
    assert again.returncode == 0, again.stdout[-4000:]
    assert ansible.recap(again.stdout)["changed"] == 0, ansible.changed_tasks(again.stdout)
