"""Who may run it, answers files, detached runs, machines without a GPU, SSH without tmux."""
from __future__ import annotations

import json

import pytest

from harness import checks, wizard


def upgrade_args(world):
    return ["--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-mirror", world.radeon_url, "--allow-http-mirror",
            "--rocm-key-fingerprint", world.site.radeon_key.fingerprint]


def test_not_root_and_no_sudo_gets_a_clear_message(rocm_old, apt_site):
    root = rocm_old
    root.add_user("alice")
    root.remove("/usr/bin/sudo")
    before = checks.apt_state(root)
    res = wizard.run(root, "--yes", "--no-verify", *upgrade_args(apt_site), user="alice")
    assert res.returncode == 1
    err = res.stderr
    assert "need root" in err and "this is user alice (sudo is not installed)" in err
    assert "2 (rocm-repos)" in err and "6 (rocm-packages)" in err
    # the command root can find (sudo's secure_path): this program by its absolute path
    assert "sudo /usr/bin/python3 -m rocm_wizard --yes --no-verify --path rocm-upgrade" in err
    assert "Nothing was changed" in err
    assert checks.apt_state(root) == before
    assert not root.exists("/home/alice/.local/state/rocm-wizard")


def test_not_root_where_sudo_wants_a_password(rocm_old, apt_site):
    root = rocm_old
    root.add_user("alice")
    res = wizard.run(root, "--yes", "--no-verify", *upgrade_args(apt_site), user="alice")
    assert res.returncode == 1
    assert "sudo asks for a password, which an unattended run cannot type" in res.stderr


def test_not_root_with_passwordless_sudo_runs_through_sudo(rocm_old, apt_site):
    root = rocm_old
    if root.enter == "bwrap":
        pytest.skip("bwrap sets no_new_privs, so setuid sudo cannot raise privileges inside it")
    root.add_user("alice")
    root.write("/etc/sudoers.d/alice", "alice ALL=(ALL) NOPASSWD: ALL\n", mode=0o440)
    res = wizard.run(root, "--yes", "--no-verify", *upgrade_args(apt_site), user="alice")
    assert res.returncode == 0, res.stderr
    assert "running the same command through sudo" in res.stderr
    checks.assert_rocm_upgraded(root, apt_site.new)
    assert root.exists("/var/log/rocm-wizard/latest/journal.json")  # root's log directory
    # run through sudo, the GPU user is the one who called sudo
    assert "alice" in [ln.split(":")[3] for ln in root.read("/etc/group").splitlines() if ln.startswith("video:")][0]


def test_answers_file_round_trip(rocm_old, apt_site):
    root = rocm_old
    cli = wizard.run(root, "--dry-run", "--format", "json", *upgrade_args(apt_site))
    assert cli.returncode == 2, cli.stderr
    res = wizard.run(root, "--yes", "--no-verify", *upgrade_args(apt_site),
                     extra_env={"SSH_CONNECTION": "10.0.0.2 50000 10.0.0.1 22"})
    assert res.returncode == 0, res.stderr
    assert "runs over SSH without tmux or screen" in res.stderr and "--detach" in res.stderr
    run = checks.latest_run(root)
    assert checks.journal(root, run)["plan_id"] == json.loads(cli.stdout)["plan_id"]
    answers = root.read(run + "/answers.toml")
    assert 'path = "rocm-upgrade"' in answers and 'rocm = "6.4.3"' in answers
    root.write("/root/answers.toml", answers)
    # replaying the answers file alone: the same choices, so a converged machine has nothing to do
    replay = wizard.run(root, "--yes", "--no-verify", "--answers", "/root/answers.toml",
                        extra_env={"TMUX": "/tmp/tmux-0/default,1,0", "SSH_CONNECTION": "10.0.0.2 1 10.0.0.1 22"})
    assert replay.returncode == 0, replay.stderr
    assert "SSH without tmux" not in replay.stderr
    assert set(checks.step_lines(replay.stderr).values()) == {"ok"}
    a = wizard.run(root, "--dry-run", "--format", "json", "--answers", "/root/answers.toml")
    b = wizard.run(root, "--dry-run", "--format", "json", *upgrade_args(apt_site))
    assert a.returncode == b.returncode == 0
    assert json.loads(a.stdout)["plan_id"] == json.loads(b.stdout)["plan_id"]


def test_detached_run_can_be_followed(rocm_old, apt_site):
    root = rocm_old
    res = wizard.run(root, "--yes", "--no-verify", "--detach", *upgrade_args(apt_site))
    assert res.returncode == 0, res.stderr
    run_id = res.stdout.strip()
    assert "rocm-wizard resume --follow " + run_id in res.stderr and "(setsid)" in res.stderr
    follow = wizard.run(root, "resume", "--follow", run_id)
    assert follow.returncode == 0, follow.stderr
    assert "summary: 10 steps" in follow.stdout
    checks.assert_rocm_upgraded(root, apt_site.new)
    assert checks.journal(root)["state"] == "finished"


def test_a_missing_answer_without_a_default_names_the_option(wroot):
    res = wizard.run(wroot, "--yes", "--path", "torch-reinstall")
    assert res.returncode in (1, 64)
    assert "--venv PATH" in res.stderr and "Traceback" not in res.stderr


def test_no_gpu_and_no_path_explains_and_stops(debroot, apt_site):
    wizard.prepare(debroot)
    res = wizard.run(debroot, "--yes")
    assert res.returncode == 3  # the system is outside what was asked (README's exit table)
    assert "no AMD GPU was found" in res.stderr and "--path rocm-upgrade" in res.stderr
    assert "Traceback" not in res.stderr


def test_explicit_path_without_a_gpu_provisions_with_a_warning(debroot, apt_site):
    wizard.prepare(debroot)
    apt_site.add_distro(debroot)
    res = wizard.run(debroot, "--yes", "--no-verify", "--no-dkms", *upgrade_args(apt_site))
    assert "warning: no AMD GPU was found" in res.stderr
    assert res.returncode == 0, res.stderr
