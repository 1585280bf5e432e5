"""Limits on what rocm-wizard reads from outside, in one place.

rocm-wizard runs as root and reads snapshot bundles, pasted text, JSON reports and a smoke test's
output that anyone may have made.  Every reader takes its bounds from here, and an exceeded bound
is a :class:`LimitError` whose message is meant for the user (the commands turn it into exit
status 1, ``exitcodes.ERROR``), never a traceback, an unbounded allocation or a hang.

A real snapshot bundle is a few hundred files and a few MiB; a real paste is a few hundred KiB.
The limits are far above that and far below what would hurt the machine.
"""
from __future__ import annotations

import io
import json
import os
import stat
from typing import Iterable, Optional

MiB = 1024 * 1024

# -- snapshot bundles and pastes ------------------------------------------------------------------
MAX_FILE_BYTES = 32 * MiB  # one file, tar member or pasted file
MAX_UNPACKED_BYTES = 256 * MiB  # a tarball after decompression (gzip/bz2/xz output), headers included
MAX_MEMBERS = 20_000  # entries of a tarball
MAX_NAME_CHARS = 1024  # a member's path
MAX_NAME_DEPTH = 32  # components of a member's path
MAX_TAR_META_BYTES = 64 * 1024  # the data of a GNU long-name/long-link or pax header
MAX_PASTE_FILES = 2000  # loose files read as pastes
MAX_PASTE_BYTES = 64 * MiB  # all pasted texts together
MAX_WALK = 50_000  # directory entries looked at in a paste folder
MAX_WALK_DEPTH = 8  # folder depth looked at in a paste folder
MAX_JSON_DEPTH = 64  # nesting of a JSON document (a bundle's manifest, a report, a pasted --json)
# kernel pseudo-filesystems: their files claim size 0, block on read (/proc/kmsg) or never end
PSEUDO_FS = ("/proc", "/sys")

# -- the smoke test's output (rocm-wizard verify) -------------------------------------------------
VERIFY_STDOUT_BYTES = 8 * MiB  # stdout kept (its report); beyond it the head and tail are kept
VERIFY_STDERR_LINES = 200  # stderr lines kept (the last ones)
VERIFY_LINE_CHARS = 2000  # one stderr line as kept
VERIFY_PROGRESS_LINES = 1000  # progress lines shown and counted as progress (a real run has ~15 per GPU)
VERIFY_START_S = 10.0  # added to --timeout: an interpreter that has not started the script by then hangs
VERIFY_DOCKER_START_S = 1800.0  # docker run may pull the image first
VERIFY_DEADLINE_FACTOR = 30  # a whole verify run: 30x --timeout (30 min at 60 s), progress or not
VERIFY_GRACE_S = 15.0  # added to the longest silence the script allows between two checks


class LimitError(Exception):
    """Input beyond one of the limits above; the message says which and is meant for the user."""


def mib(n: int) -> str:
    return "%d MiB" % (n // MiB) if n >= MiB else "%d KiB" % (n // 1024) if n >= 1024 else "%d bytes" % n


# -- files --------------------------------------------------------------------------------------------

def pseudo_fs(path: str) -> Optional[str]:
    """The kernel pseudo-filesystem (``/proc``, ``/sys``) that ``path`` is on or under, else None
    (by its real path, and by device number for one mounted elsewhere)."""
    real = os.path.realpath(path)
    try:
        dev = os.stat(real).st_dev
    except OSError:
        dev = None
    for root in PSEUDO_FS:
        if real == root or real.startswith(root + "/"):
            return root
        try:
            # by device only where it is a file system of its own: in a chroot or a container
            # without /sys mounted, /sys is a plain directory on the root's own device
            if dev is not None and os.stat(root).st_dev == dev and os.stat(root).st_dev != os.stat("/").st_dev:
                return root
        except OSError:
            pass
    return None


def read_regular(path: str, max_bytes: int) -> Optional[bytes]:
    """Up to ``max_bytes`` bytes of ``path`` when it is a regular file, else None.

    Never blocks on a FIFO or a device (opened non-blocking, checked with fstat) and never reads
    more than the file's size says (a pseudo file that claims 0 bytes gives b"")."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        want = min(max_bytes, st.st_size)
        chunks = []
        while want > 0:
            chunk = os.read(fd, min(want, MiB))
            if not chunk:
                break
            chunks.append(chunk)
            want -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


class CappedReader(io.RawIOBase):
    """A read-only stream over ``raw`` (a decompressor such as ``gzip.GzipFile``) that raises
    :class:`LimitError` once more than ``cap`` bytes came out of it: a decompression bomb stops
    there, each read is bounded, and nothing is held."""

    def __init__(self, raw, cap: int, what: str) -> None:
        super().__init__()
        self._raw = raw
        self._cap = cap
        self._what = what
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:
        n = min(len(buf), MiB)
        data = self._raw.read(n)
        self.count += len(data)
        if self.count > self._cap:
            raise LimitError("%s: more than %s uncompressed; not a snapshot bundle" % (self._what, mib(self._cap)))
        buf[:len(data)] = data
        return len(data)


def check_name(name: str, what: str) -> None:
    """A tar member's (or a bundle file's) path within :data:`MAX_NAME_CHARS` and :data:`MAX_NAME_DEPTH`."""
    if len(name) > MAX_NAME_CHARS:
        raise LimitError("%s: a member name longer than %d characters; not a snapshot bundle" % (what, MAX_NAME_CHARS))
    if name.count("/") >= MAX_NAME_DEPTH:
        raise LimitError("%s: a member path deeper than %d folders; not a snapshot bundle" % (what, MAX_NAME_DEPTH))


# -- JSON ---------------------------------------------------------------------------------------------

def loads_json(text, what: str = "the document"):
    """``json.loads`` with the nesting limited to :data:`MAX_JSON_DEPTH`: a :class:`LimitError`
    beyond it (also where Python's own recursion limit would have raised), ``ValueError`` for
    text that is not JSON."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise LimitError("%s is nested more than %d levels deep" % (what, MAX_JSON_DEPTH)) from None
    if json_depth(value) > MAX_JSON_DEPTH:
        raise LimitError("%s is nested more than %d levels deep" % (what, MAX_JSON_DEPTH))
    return value


def json_depth(value) -> int:
    """Nesting depth of a parsed JSON value (a scalar is 0), iteratively."""
    depth = 0
    level: Iterable = [value]
    while True:
        nxt = []
        for v in level:
            if isinstance(v, dict):
                nxt.extend(v.values())
            elif isinstance(v, list):
                nxt.extend(v)
        if not nxt and not any(isinstance(v, (dict, list)) for v in level):
            return depth
        depth += 1
        if depth > MAX_JSON_DEPTH:
            return depth
        level = nxt
