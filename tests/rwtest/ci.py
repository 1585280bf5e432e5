"""Prerequisites of the test suite: skipped on a developer's machine, a failure under ``CI=true``.

Call :func:`missing` (or :func:`tool`, :func:`shared_dir`) instead of ``pytest.skip`` when a test
cannot run because something it needs is absent.  The skip reason starts with :data:`MISSING`; the
root conftest turns such skips -- and pytest's "got empty parameter set" skips, which is how a
test parametrised over ``../shared`` disappears -- into failures when ``CI`` is set, so CI names
what is missing instead of going green with tests skipped.  Skips that say a case does not apply
(a field only in an issue's text...) stay skips and are listed by ``-rs``.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import NoReturn, Optional

import pytest

MISSING = "missing prerequisite: "
EMPTY_PARAMETER_SET = "got empty parameter set"

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent

# Tools the suite needs and how to get each (scripts/setup.sh installs all of them).
TOOLS = {
    "shellcheck": "apt-get install shellcheck",
    "tmux": "apt-get install tmux",
    "gpg": "apt-get install gnupg",
    "gpgconf": "apt-get install gnupg",
    "bwrap": "apt-get install bubblewrap",
    "mmdebstrap": "apt-get install mmdebstrap",
    "dpkg-deb": "apt-get install dpkg",
    "apt-ftparchive": "apt-get install apt-utils",
    "sshd": "apt-get install openssh-server",
    "ssh": "apt-get install openssh-client",
    "ssh-keygen": "apt-get install openssh-client",
    "ansible-playbook": "pip install ansible-core (scripts/setup.sh)",
    "ansible-lint": "pip install ansible-lint (scripts/setup.sh)",
    "rocm-wizard": "pip install -e . (scripts/setup.sh)",
}


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing(what: str) -> NoReturn:
    """This test cannot run here because ``what`` is absent (a skip; a failure under CI=true)."""
    pytest.skip(MISSING + what)


def _bare(reason: str) -> str:
    return reason[len("Skipped: "):] if reason.startswith("Skipped: ") else reason


def is_missing_reason(reason: str) -> bool:
    return _bare(reason).startswith((MISSING, EMPTY_PARAMETER_SET))


def which(name: str) -> Optional[str]:
    """An external tool: on PATH, in ROCM_WIZARD_TOOLS_DIR, or beside this interpreter (a venv's bin)."""
    extra = os.environ.get("ROCM_WIZARD_TOOLS_DIR")
    if extra and os.access(os.path.join(extra, name), os.X_OK):
        return os.path.join(extra, name)
    found = shutil.which(name)
    if found:
        return found
    import sys

    beside = os.path.join(os.path.dirname(sys.executable), name)
    return beside if os.access(beside, os.X_OK) else None


def tool(name: str, hint: Optional[str] = None) -> str:
    """The path of ``name``, or :func:`missing` naming it and how to install it."""
    path = which(name)
    if path is None:
        missing(f"{name} is not installed ({hint or TOOLS.get(name, 'see scripts/setup.sh')})")
    return path


def shared_path() -> Path:
    """Where ``../shared`` (field data and real outputs) is expected: ROCM_WIZARD_SHARED or beside the checkout."""
    return Path(os.environ.get("ROCM_WIZARD_SHARED") or (REPO / ".." / "shared")).resolve()


def shared_dir(sub: str = "") -> Path:
    """``../shared`` (or a folder in it), or :func:`missing` naming the path."""
    path = shared_path() / sub if sub else shared_path()
    if not path.is_dir():
        missing(f"{path} is not present (the project's shared field data; set ROCM_WIZARD_SHARED)")
    return path


def strict_report(rep) -> None:
    """Under CI=true, turn a skip for a missing prerequisite into a failure that names it."""
    if not in_ci() or not rep.skipped or hasattr(rep, "wasxfail"):
        return
    longrepr = rep.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr or "")
    if is_missing_reason(reason):
        rep.outcome = "failed"
        rep.longrepr = f"CI=true, so this is a failure, not a skip: {_bare(reason)}"
