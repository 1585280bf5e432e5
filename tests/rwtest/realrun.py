"""``detect_snapshot`` and ``diagnose`` of a folder of pastes, worked out once per test process and
shared by every test file that asks for the same folder: the real fixtures (tests/data/real) are read
by the doctor tier's fixture-wide files (test_fixtures, test_no_silent_failure, test_layer_order,
test_known_failure, test_real_failures), the detect tier's test_real_fixtures and the held-out sets'
tests, which each worked out the same ~460 folders again in their own cache.

The key is the folder's resolved path and the content of every file under it (names and bytes), so
a folder whose files changed is worked out again.  What is kept is the pickled pair (system,
diagnosis) of one fresh ``detect_snapshot`` + ``diagnose``; each call unpickles its own copy, so a
test that changed what it was given changes nothing another test sees (tests/test_realrun.py checks
that a copy equals a fresh computation, field for field).
"""
from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path
from typing import Dict, Tuple, Union

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.doctor import diagnose

_MEMO: Dict[Tuple[str, str], bytes] = {}
stats = {"computed": 0, "reused": 0}


def key(folder: Union[str, Path]) -> Tuple[str, str]:
    """The folder's resolved path and a digest of the names and bytes of every file under it."""
    top = os.path.realpath(str(folder))
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            h.update(os.path.relpath(path, top).encode("utf-8", "surrogateescape") + b"\0")
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError as exc:  # unreadable: its error is part of what detect sees
                data = repr(exc).encode()
            h.update(len(data).to_bytes(8, "little") + data)
    return top, h.hexdigest()


def run(folder: Union[str, Path]):
    """``(system, diagnosis)``: ``detect_snapshot(folder)`` and ``diagnose`` of it, a copy of what
    the first call in this process worked out for the same folder and content."""
    k = key(folder)
    blob = _MEMO.get(k)
    if blob is None:
        system = detect_snapshot(str(folder))
        blob = _MEMO[k] = pickle.dumps((system, diagnose(system)), protocol=pickle.HIGHEST_PROTOCOL)
        stats["computed"] += 1
    else:
        stats["reused"] += 1
    return pickle.loads(blob)


def snapshot(folder: Union[str, Path]):
    """``detect_snapshot(folder)`` (a copy, as :func:`run`)."""
    return run(folder)[0]


def diagnosis(folder: Union[str, Path]):
    """``diagnose(detect_snapshot(folder))`` (a copy, as :func:`run`)."""
    return run(folder)[1]
