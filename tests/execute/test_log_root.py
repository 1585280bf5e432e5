"""Issue 27, round two, item 2: the rule for the wizard's log/state root, run as root.

Above the log root: root's directories that others cannot write, a sticky one (/tmp), or one a
system group no person holds can write (Ubuntu's /var/log is root:syslog 0775; syslog's only
member is the syslog service account).  The log root and run directories: made 0700 by root with
mkdir relative to the held fd of their parent, opened without following links; a pre-existing one
that is a link or another user's is refused with the fix.  Everything happens under tmp_path (the
test's own root), never under the host's /var/log.  Who holds a group is the test's own table here
(``human_holders`` patched); the Debian-root test reads real account databases."""
from __future__ import annotations

import os
import stat

import pytest

from rocm_wizard.execute import paths

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the trust checks apply to root; these tests need root")
SYSLOG, ALICE_GID = 110, 4242  # Ubuntu's syslog group is a system one; 4242 is above SYS_GID_MAX


@pytest.fixture
def people(monkeypatch):
    table = {SYSLOG: []}
    monkeypatch.setattr(paths, "human_holders", lambda gid: table.get(gid), raising=False)
    return table


def ubuntu_var_log(tmp_path):
    var_log = tmp_path / "var" / "log"
    var_log.mkdir(parents=True)
    os.chown(var_log, 0, SYSLOG)
    var_log.chmod(0o775)
    return var_log


def test_ubuntus_var_log_is_accepted_and_the_log_root_made_0700(tmp_path, people):
    var_log = ubuntu_var_log(tmp_path)
    old = os.umask(0)  # the mode is set on the fd, whatever the umask
    try:
        root = str(var_log / "rocm-wizard")
        assert paths.take_run_lock(root) is None  # what a run does first: the lock in the log root
        run = paths.make_run_dir("20260101-000000-1", root)
    finally:
        os.umask(old)
    for d in (root, run):
        st = os.lstat(d)
        assert stat.S_ISDIR(st.st_mode) and st.st_uid == 0 and stat.S_IMODE(st.st_mode) == 0o700, (d, oct(st.st_mode))


def test_a_group_a_person_holds_above_the_log_root_is_refused(tmp_path, people):
    var_log = ubuntu_var_log(tmp_path)
    people[SYSLOG] = ["alice"]
    with pytest.raises(paths.UntrustedPath, match=r"log is writable by alice \(in its group .*chmod g-w .*gpasswd -d"):
        paths.ensure_dir(str(var_log / "rocm-wizard"), 0o700)
    assert not (var_log / "rocm-wizard").exists()  # nothing made under it


def test_a_group_outside_the_system_range_is_refused_even_with_no_members(tmp_path, people):
    var_log = ubuntu_var_log(tmp_path)
    os.chown(var_log, 0, ALICE_GID)
    people[ALICE_GID] = []
    with pytest.raises(paths.UntrustedPath, match=r"not a system group.*chmod g-w"):
        paths.ensure_dir(str(var_log / "rocm-wizard"), 0o700)


def test_unreadable_membership_is_refused(tmp_path, people):
    var_log = ubuntu_var_log(tmp_path)
    os.chown(var_log, 0, 111)  # a system gid the table does not know: members unknown
    with pytest.raises(paths.UntrustedPath, match=r"whose members cannot be read"):
        paths.ensure_dir(str(var_log / "rocm-wizard"), 0o700)


@pytest.mark.parametrize("how", ["link", "user-dir", "file"])
def test_a_planted_log_root_is_refused_with_the_fix(tmp_path, people, how):
    var_log = ubuntu_var_log(tmp_path)
    target = tmp_path / "alice-logs"
    target.mkdir()
    os.chown(target, 4242, 4242)
    planted = var_log / "rocm-wizard"
    if how == "link":
        planted.symlink_to(target)
        said = "is a symbolic link; refusing to follow it"
    elif how == "user-dir":
        planted.mkdir()
        os.chown(planted, 4242, 4242)
        said = "belongs to uid 4242"
    else:
        planted.write_text("")
        said = "is not a directory"
    with pytest.raises(paths.UntrustedPath, match=said + r".*sudo chown root:root"):
        paths.ensure_dir(str(planted), 0o700)
    assert paths.take_run_lock(str(planted)) is not None
    assert os.listdir(target) == []  # root wrote nothing through the link


def test_missing_directories_above_are_made_root_0755_from_held_fds(tmp_path, people):
    base = tmp_path / "deep"
    base.mkdir()
    root = paths.ensure_dir(str(base / "a" / "b" / "rocm-wizard"), 0o700)
    assert stat.S_IMODE(os.lstat(base / "a").st_mode) == 0o755 and os.lstat(base / "a").st_uid == 0
    assert stat.S_IMODE(os.lstat(root).st_mode) == 0o700


def test_links_above_are_walked_to_their_targets_and_judged(tmp_path, people):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "via").symlink_to("real")  # relative, in a root-only directory: root's own link
    root = paths.ensure_dir(str(tmp_path / "via" / "rocm-wizard"), 0o700)
    assert os.path.isdir(real / "rocm-wizard") and root.endswith("via/rocm-wizard")
    open_to_all = tmp_path / "open"
    open_to_all.mkdir()
    open_to_all.chmod(0o777)
    (tmp_path / "via2").symlink_to(open_to_all)
    with pytest.raises(paths.UntrustedPath, match=r"open is writable by others"):
        paths.ensure_dir(str(tmp_path / "via2" / "rocm-wizard"), 0o700)
