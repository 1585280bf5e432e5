"""Root runs the way people start them (issue 22): under sudo, pkexec or doas the venv search looks
in the invoking user's home (from the password database, not root's HOME) and in the working
directory, listing it as that user (runuser), and says so.  The Debian-root test with a second user
is ``tests/integration/test_invoker_root.py``."""
from __future__ import annotations

import os
import subprocess
from collections import namedtuple

import pytest

from rocm_wizard import invoker
from rocm_wizard.detect import invoker_venvs

Pw = namedtuple("Pw", "pw_name pw_uid pw_dir")


def fake_pwd(home):
    users = {"alice": Pw("alice", 1000, str(home)), "root": Pw("root", 0, "/root"),
             "bob": Pw("bob", 1001, "/")}
    return (lambda name: users.get(name)), (lambda uid: next((u for u in users.values() if u.pw_uid == uid), None))


@pytest.mark.parametrize("env,who,via", [
    ({"SUDO_USER": "alice", "HOME": "/root"}, "alice", "SUDO_USER"),
    ({"PKEXEC_UID": "1000"}, "alice", "PKEXEC_UID"),
    ({"DOAS_USER": "alice"}, "alice", "DOAS_USER"),
    ({"SUDO_USER": "root"}, None, None),  # root is nobody's invoker
    ({"SUDO_USER": "mallory"}, None, None),  # no such account
    ({"SUDO_USER": "bob"}, None, None),  # an account whose home is /
    ({"PKEXEC_UID": "1000x"}, None, None),
    ({}, None, None),
])
def test_the_invoking_user_comes_from_the_variable_and_the_password_database(tmp_path, env, who, via):
    by_name, by_uid = fake_pwd(tmp_path / "home" / "alice")
    inv = invoker.invoking_user(env, 0, by_name, by_uid)
    if who is None:
        assert inv is None
        return
    assert (inv.name, inv.uid, inv.via) == (who, 1000, via)
    assert inv.home == str(tmp_path / "home" / "alice")  # never root's HOME from the environment
    # not root: nothing to look for on someone else's behalf
    assert invoker.invoking_user(env, 1000, by_name, by_uid) is None


def _venv(path, conda=False):
    path.mkdir(parents=True)
    if conda:
        (path / "conda-meta").mkdir()
    else:
        (path / "pyvenv.cfg").write_text("home = /usr/bin\n")


def _run_here(user, script, *args):  # the script itself, as this user (the test's stand-in for runuser)
    return subprocess.run(["sh", "-c", script, "sh", *args], capture_output=True, check=True).stdout


def test_the_venvs_of_the_invoking_users_home_and_working_directory_are_found(tmp_path):
    home = tmp_path / "home" / "alice"
    for rel in (".venv", "venv-ml", "proj/venv", "proj2/.venv", ".virtualenvs/sd", ".pyenv/versions/3.11.9"):
        _venv(home / rel)
    _venv(home / "miniconda3" / "envs" / "rocm", conda=True)
    (home / "notavenv" / "venv").mkdir(parents=True)  # no pyvenv.cfg: not a venv
    work = tmp_path / "work"
    _venv(work / ".venv")
    by_name, by_uid = fake_pwd(home)
    found, note = invoker_venvs({"SUDO_USER": "alice", "HOME": "/root"}, 0, str(work), _run_here, by_name, by_uid)
    expect = {str(home / r) for r in (".venv", "venv-ml", "proj/venv", "proj2/.venv", ".virtualenvs/sd",
                                      ".pyenv/versions/3.11.9", "miniconda3/envs/rocm")} | {str(work / ".venv")}
    assert set(found) == expect
    assert f"looked for venvs in {home}" in note and "read as alice" in note and "sudo" in note
    # nothing to do for a root login, or a user's own run
    assert invoker_venvs({"HOME": "/root"}, 0, str(work), _run_here, by_name, by_uid) == ([], None)
    assert invoker_venvs({"SUDO_USER": "alice"}, 1000, str(work), _run_here, by_name, by_uid) == ([], None)


def test_the_listing_runs_as_the_invoking_user(tmp_path, monkeypatch):
    """Root never walks the user's home itself: the listing is ``runuser -u alice`` (so a link alice
    planted leads only where alice can read; the Debian-root test shows it with a real link)."""
    seen = []

    def fake_run(argv, **kw):
        seen.append((argv, kw.get("env")))
        return subprocess.CompletedProcess(argv, 0, b"/home/alice/.venv\0", b"")

    monkeypatch.setattr(subprocess, "run", fake_run)
    inv = invoker.Invoker("alice", 1000, "/home/alice", "SUDO_USER")
    assert invoker.find_venvs(inv, "/srv/work") == ["/home/alice/.venv"]
    argv, env = seen[0]
    assert argv[:4] == ["runuser", "-u", "alice", "--"] and argv[4:6] == ["sh", "-c"]
    assert argv[-3:] == ["/home/alice", "/srv/work", str(invoker.MAX_VENVS)]
    assert set(env) == {"PATH", "LC_ALL"}  # root's environment stays root's


def test_a_listing_that_fails_finds_nothing(tmp_path):
    def broken(*a):
        raise OSError("runuser: user alice does not exist")

    inv = invoker.Invoker("alice", 1000, str(tmp_path), "SUDO_USER")
    assert invoker.find_venvs(inv, None, broken) == []
    assert "found none" in invoker.note(inv, [])


def test_the_root_command_names_this_program_by_its_absolute_path(tmp_path):
    tool = tmp_path / "bin dir" / "rocm-wizard"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    # sudo's secure_path does not hold ~/.local/bin: the absolute path, quoted for the shell
    assert invoker.root_command("rocm-wizard", {"PATH": str(tool.parent)}) == f"sudo '{tool}'"
    assert invoker.root_command(str(tool), {}) == f"sudo '{tool}'"
    assert invoker.root_command("rocm-wizard", {"PATH": str(tmp_path / "nowhere")}) == 'sudo "$(command -v rocm-wizard)"'


def test_the_first_screen_says_what_root_is_needed_for(tmp_path):
    tool = tmp_path / "rocm-wizard"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    by_name, by_uid = fake_pwd(tmp_path / "home" / "alice")
    as_user = invoker.first_screen_notice({"PATH": str(tmp_path)}, 1, "rocm-wizard")
    assert "Run changes the system and needs root" in as_user and f"sudo {tool}" in as_user
    as_root = invoker.first_screen_notice({"SUDO_USER": "alice"}, 0, "rocm-wizard", by_name, by_uid)
    assert "Running as root for alice (sudo)" in as_root and "read as alice" in as_root
    assert invoker.first_screen_notice({}, 0, "rocm-wizard", by_name, by_uid) is None

