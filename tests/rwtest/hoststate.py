"""Tests are blind to the host's state: what rocm-wizard keeps or reads on a machine is pointed at
the test's own directories, and a test that opens it on the host anyway fails.

* :func:`redirect` (the root conftest's autouse ``host_state`` fixture) sets, for each test, the
  catalog overlay (``ROCM_WIZARD_CATALOG_OVERLAY``), ``XDG_CACHE_HOME``/``XDG_STATE_HOME``/
  ``XDG_CONFIG_HOME`` and the log root (``ROCM_WIZARD_LOG_DIR``) to folders of a temporary directory,
  and drops ``VIRTUAL_ENV`` (the user's venv).  The integration tier's image cache keeps its place
  (``ROCM_WIZARD_TEST_CACHE``, resolved once from the environment the suite started with).
* :func:`install` adds an audit hook (``sys.addaudithook``) that records every ``open``,
  ``os.listdir`` or ``os.scandir`` of :data:`PREFIXES` by the test process while a test runs; the
  root conftest fails the test with the path.  A test whose subject *is* the host marks itself
  ``@pytest.mark.reads_host``.  Sandboxed commands (:mod:`rwtest.sandbox`) get an empty tmpfs over
  the folders of :data:`MASKED` that exist.
"""
from __future__ import annotations

import itertools
import os
import sys
from typing import Dict, List, Optional

HOME = os.path.expanduser("~")
_CACHE = os.environ.get("XDG_CACHE_HOME") or os.path.join(HOME, ".cache")
# Where rocm-wizard keeps or reads its state on a machine (catalog/overlay.py, execute/paths.py,
# plan/shell.py) and the host's apt configuration (detection's live source reads it).
PREFIXES = ("/var/lib/rocm-wizard", "/var/log/rocm-wizard", os.path.join(_CACHE, "rocm-wizard"),
            os.path.join(HOME, ".local", "state", "rocm-wizard"), "/etc/apt")
MASKED = ("/var/lib/rocm-wizard", "/var/log/rocm-wizard", os.path.join(_CACHE, "rocm-wizard"))


def test_cache() -> str:
    """The integration tier's image cache, as the suite's own environment names it."""
    explicit = os.environ.get("ROCM_WIZARD_TEST_CACHE")
    return explicit or os.path.join(_CACHE, "rocm-wizard-tests")


TEST_CACHE = test_cache()

opened: List[str] = []
_active = False
_installed = False


def _hit(path) -> Optional[str]:
    if isinstance(path, int) or path is None:
        return None
    try:
        p = os.fsdecode(path)
    except TypeError:
        return None
    if not p.startswith("/"):
        return None
    p = os.path.normpath(p)
    for prefix in PREFIXES:
        if p == prefix or p.startswith(prefix + os.sep):
            return p
    return None


def _hook(event: str, args) -> None:
    if not _active or event not in ("open", "os.listdir", "os.scandir") or not args:
        return
    p = _hit(args[0])
    if p is not None:
        opened.append(f"{event} {p}")


def install() -> None:
    global _installed
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True


def watch(on: bool) -> None:
    global _active
    _active = on


class Folders:
    """A new empty folder per test under ``parent`` (``0``, ``1``...), made in constant time: the
    next number is counted here, not found by listing ``parent`` as pytest's numbered folders are."""

    def __init__(self, parent: str) -> None:
        self.parent = parent
        self._next = itertools.count()

    def new(self) -> str:
        while True:
            path = os.path.join(self.parent, str(next(self._next)))
            try:
                os.mkdir(path, 0o700)
            except FileExistsError:
                continue
            return path


def environment(directory: str) -> Dict[str, str]:
    """The variables :func:`redirect` sets, with their folders under ``directory``."""
    return {
        "ROCM_WIZARD_CATALOG_OVERLAY": os.path.join(directory, "catalog-overlay.json"),
        "XDG_CACHE_HOME": os.path.join(directory, "cache"),
        "XDG_STATE_HOME": os.path.join(directory, "state"),
        "XDG_CONFIG_HOME": os.path.join(directory, "config"),
        "ROCM_WIZARD_LOG_DIR": os.path.join(directory, "log"),
        "ROCM_WIZARD_TEST_CACHE": TEST_CACHE,
    }


def redirect(monkeypatch, directory: str) -> None:
    for name, value in environment(directory).items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    # a suite started with sudo/pkexec/doas: the invoking user's home is not searched for venvs
    # (rocm_wizard.invoker) by tests that detect this machine
    for name in ("SUDO_USER", "PKEXEC_UID", "DOAS_USER"):
        monkeypatch.delenv(name, raising=False)
    from rocm_wizard.catalog import overlay

    overlay.read.cache_clear()  # an overlay read before (another test's) is not this test's
