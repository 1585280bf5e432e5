"""Writing files whole: a temporary file in the same directory, fsync, then a rename, so a reader
(or a crash) sees the old content or the new one, never half of it.  The one implementation used
by the plan steps, the executor's journal and logs, snapshots and the TUI's exports."""
from __future__ import annotations

import os
import shutil
from typing import Optional, Tuple, Union


def write_atomic(path: str, data: Union[bytes, str], mode: int, chown: Optional[Tuple[int, int]] = None) -> None:
    """Replace ``path`` with ``data`` (str is written as UTF-8) with permissions ``mode``; with
    ``chown=(uid, gid)`` the new file gets that owner before it appears.  Raises OSError."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    _replace(path, mode, chown, lambda fh: fh.write(data))


def copy_atomic(src: str, dest: str) -> None:
    """Replace ``dest`` with a copy of ``src``, keeping ``src``'s permissions and times."""
    st = os.stat(src)

    def fill(fh) -> None:
        with open(src, "rb") as inp:
            shutil.copyfileobj(inp, fh)

    _replace(dest, st.st_mode & 0o7777, None, fill, times=(st.st_atime, st.st_mtime))


def _replace(path, mode, chown, fill, times=None) -> None:
    """The temporary file is created with O_EXCL|O_NOFOLLOW relative to a descriptor of the
    directory, its mode, owner and times are set on its descriptor (never by name: in a directory
    another user can write, the name may have been swapped for a link to root's files), and it is
    renamed in place only while the name is still that file -- and checked again after the rename,
    which takes back what it placed if the name was swapped in between."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    base = os.path.basename(path)
    dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        for _ in range(100):
            tmp = ".rocm-wizard." + os.urandom(6).hex()
            try:
                fd = os.open(tmp, flags, 0o600, dir_fd=dfd)
                break
            except FileExistsError:
                continue
        else:
            raise FileExistsError(f"cannot make a temporary file in {directory}")
        try:
            with os.fdopen(fd, "wb") as fh:
                fill(fh)
                fh.flush()
                os.fsync(fh.fileno())
                os.fchmod(fh.fileno(), mode)
                if chown is not None:
                    os.fchown(fh.fileno(), chown[0], chown[1])
                if times is not None:
                    os.utime(fh.fileno(), times)
                mine = os.fstat(fh.fileno())
                now = os.stat(tmp, dir_fd=dfd, follow_symlinks=False)
                if (now.st_dev, now.st_ino) != (mine.st_dev, mine.st_ino):
                    raise OSError(f"the temporary file for {path} was replaced by someone else; not writing it")
                os.replace(tmp, base, src_dir_fd=dfd, dst_dir_fd=dfd)
                # the name may have been swapped between that check and the rename (the rename then
                # put the other user's link or file at ``path``): what root published is taken back
                # and the write refused, never reported as done.  (Checked while the file is still
                # open: a closed, unlinked file's inode number may be given at once to the link.)
                placed = os.stat(base, dir_fd=dfd, follow_symlinks=False)
                if (placed.st_dev, placed.st_ino) != (mine.st_dev, mine.st_ino):
                    try:
                        os.unlink(base, dir_fd=dfd)
                    except OSError:
                        pass
                    raise OSError(f"the temporary file for {path} was replaced by someone else while it was "
                                  f"renamed; not written")
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=dfd)
            except OSError:
                pass
            raise
    finally:
        os.close(dfd)
