"""write_atomic in a directory another user can write: the temporary file is swapped for a link
to a root-owned file (a stand-in for /etc/shadow) between its writing and its chmod/chown; the
window is made deterministic by doing the swap in the fsync that precedes them.  The stand-in's
mode and owner must not change, and the target must not become the link."""
from __future__ import annotations

import os

import pytest

from rocm_wizard import fsutil

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root")


def _shadow_and_userdir(tmp_path):
    """A root-owned stand-in for /etc/shadow, and a directory of another user (uid 4242)."""
    shadow = tmp_path / "shadow"
    shadow.write_text("root:$6$secret:19000::::::\n")
    shadow.chmod(0o640)
    userdir = tmp_path / "home"
    userdir.mkdir()
    os.chown(userdir, 4242, 4242)
    return shadow, userdir


def _swap_temporaries(userdir, shadow):
    """The other user's move: each of root's temporary files becomes a link to the stand-in."""
    for name in os.listdir(userdir):
        if name.startswith(".rocm-wizard."):
            os.unlink(userdir / name)
            os.symlink(shadow, userdir / name)


def test_a_swapped_temporary_file_changes_nothing_it_points_at(tmp_path, monkeypatch):
    shadow, userdir = _shadow_and_userdir(tmp_path)
    target = userdir / "activate"
    target.write_text("old\n")
    real_fsync = os.fsync

    def swap(fd):
        real_fsync(fd)
        _swap_temporaries(userdir, shadow)

    monkeypatch.setattr(os, "fsync", swap)
    try:
        fsutil.write_atomic(str(target), b"new\n", 0o666, chown=(4242, 4242))
        refused = False
    except OSError:
        refused = True
    monkeypatch.undo()
    st = os.stat(shadow)
    assert (st.st_mode & 0o7777, st.st_uid, st.st_gid) == (0o640, 0, 0)
    assert refused
    assert not os.path.islink(target) and target.read_text() == "old\n"
    assert [n for n in os.listdir(userdir) if n.startswith(".rocm-wizard.")] == []


def test_write_atomic_still_sets_mode_owner_and_content(tmp_path):
    target = tmp_path / "f"
    fsutil.write_atomic(str(target), "hello\n", 0o640, chown=(4242, 4243))
    st = os.stat(target)
    assert (st.st_mode & 0o7777, st.st_uid, st.st_gid) == (0o640, 4242, 4243)
    assert target.read_text() == "hello\n"
    src = tmp_path / "src"
    src.write_text("x")
    os.utime(src, (1000000000, 1000000000))
    fsutil.copy_atomic(str(src), str(tmp_path / "copy"))
    assert os.stat(tmp_path / "copy").st_mtime == 1000000000


def test_a_swap_between_the_check_and_the_rename_is_taken_back_and_refused(tmp_path, monkeypatch):
    """The later window: the temporary file passes its check, then is swapped for the other user's
    link just before the rename (seen once in the integration tier's 200-round race on a loaded
    Debian 13 root: the rename published alice's link at the target and the write counted as
    done).  Made deterministic by doing the swap inside ``os.replace``."""
    shadow, userdir = _shadow_and_userdir(tmp_path)
    target = userdir / "out.bin"
    real_replace = os.replace

    def swap_then_replace(src, dst, *, src_dir_fd=None, dst_dir_fd=None):
        _swap_temporaries(userdir, shadow)
        return real_replace(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)

    monkeypatch.setattr(os, "replace", swap_then_replace)
    with pytest.raises(OSError, match="replaced by someone else"):
        fsutil.write_atomic(str(target), b"new\n", 0o644)
    monkeypatch.undo()
    st = os.stat(shadow)
    assert (st.st_mode & 0o7777, st.st_uid, st.st_gid) == (0o640, 0, 0)
    assert not os.path.lexists(target)  # what the rename published (the link) was taken back
    assert shadow.read_text() == "root:$6$secret:19000::::::\n"
