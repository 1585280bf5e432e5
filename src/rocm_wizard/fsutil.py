"""Writing files whole: a temporary file in the same directory, fsync, then a rename, so a reader
(or a crash) sees the old content or the new one, never half of it.  The one implementation used
by the plan steps, the executor's journal and logs, snapshots and the TUI's exports."""
from __future__ import annotations

import os
import shutil
import tempfile
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
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".rocm-wizard.", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fill(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        if chown is not None:
            os.chown(tmp, chown[0], chown[1])
        if times is not None:
            os.utime(tmp, times)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
