"""Prerequisites of the test suite: skipped on a developer's machine, a failure under ``CI=true``.

Call :func:`missing` (or :func:`tool`) instead of ``pytest.skip`` when a test
cannot run because something it needs is absent.  The skip reason starts with :data:`MISSING`; the
root conftest turns such skips -- and pytest's "got empty parameter set" skips, which is how a
test parametrised over ``../shared`` disappears -- into failures when ``CI`` is set, so CI names
what is missing instead of going green with tests skipped.  The suite's data is in the repository
(:data:`REAL`): a test never reads ``../shared``.  Skips that say a case does not apply
(a field only in an issue's text...) stay skips and are listed by ``-rs``.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import List, NoReturn, Optional

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


# The suite's own data: every fixture a test reads is in the repository (nothing outside it is read).
DATA = TESTS / "data"
REAL = DATA / "real"  # real outputs users pasted, one folder per system, labels.toml with its source


def real_fixtures(labelled: bool = False) -> List[Path]:
    """Every folder of ``tests/data/real`` (only those with ``labels.toml`` when ``labelled``), in number order."""
    return sorted((p for p in REAL.iterdir() if p.is_dir() and (not labelled or (p / "labels.toml").is_file())),
                  key=lambda p: (len(fixture_number(p)), p.name))


def fixture_number(folder: Path) -> str:
    """A real fixture's number, the part of its name before the first ``-`` (``773``, ``1004``): its test id."""
    return folder.name.split("-", 1)[0]


def field_fixtures() -> List[Path]:
    """The labelled folders ``001``-``099``: the field-data set (once read from ``../shared``), whose
    labels follow one schema that ``tests/detect/test_bundle.py`` checks in full."""
    return [p for p in real_fixtures(labelled=True) if fixture_number(p).isdigit() and int(fixture_number(p)) < 100]


def real_fixture(prefix: str) -> Path:
    """The folder of ``tests/data/real`` whose name starts with ``prefix`` (``"021"`` or ``"021-"``)."""
    prefix = prefix if prefix.endswith("-") or len(prefix) > 4 else prefix + "-"
    found = [p for p in REAL.iterdir() if p.is_dir() and p.name.startswith(prefix)]
    if len(found) != 1:
        raise LookupError(f"{len(found)} folders of {REAL} start with {prefix!r}")
    return found[0]


# Skips that say a case does not apply here; under CI=true every other skip is a failure.  Each is
# a regular expression matched at the start of the reason: add one (with why) rather than skip
# silently.
NAMED_SKIPS = (
    # tests/detect/test_real_fixtures.py, test_bundle.py: a label the pasted outputs cannot show
    r"the GPU name comes from the issue text", r"no labelled GPU name appears in the outputs",
    r"rocm_version comes from .*, which no output shows",
    r"(torch|HIP|triton|python) version only in the issue text",
    r"(distribution|distribution version|operating system|kernel|CPU) only in the issue text",
    r"the label names no known error signature",
    # tests/doctor/test_fixtures.py: an assertion waiting on a detection feature, said so
    r"detection does not report the host ROCm release from an? \w+ listing yet",
    # which user runs the suite: root (CI, scripts/test.sh as root) or a developer's account
    r"root reads everything", r"needs root to give the file another owner", r"chown needs root",
    r"the trust checks apply to root",
    # tests/integration/test_exec_cli.py: setuid sudo cannot work inside bwrap (no_new_privs)
    r"bwrap sets no_new_privs",
    # tests/test_readme_commands.py: README's --yes commands run in the Debian root tier, not here
    r"--yes changes the machine it runs on",
    # tests/detect/test_node_scraper_dmesg.py: the live comparison runs where AMD's amd-node-scraper
    # happens to be installed (not a dependency); the copy of its regexes is tested everywhere
    r"could not import 'nodescraper",
    # tests/doctor/test_layer_order.py: a real paste doctor misses on purpose, each with its reason
    # (tests/doctor/test_known_failure.py holds them as strict xfails, so a fix is noticed there)
    r"a documented miss: ",
    # tests/verify/test_smoke_script.py: where torch brings triton (PyPI's CUDA build), a directory
    # without __init__.py cannot shadow it
    r"does not apply: this torch has triton installed",
)


def is_named_skip(reason: str) -> bool:
    import re

    bare = _bare(reason)
    return not is_missing_reason(bare) and any(re.match(p, bare) for p in NAMED_SKIPS)


def strict_report(rep) -> None:
    """Under CI=true, turn a skip for a missing prerequisite -- or any skip whose reason is not in
    :data:`NAMED_SKIPS` -- into a failure that names it."""
    if not in_ci() or not rep.skipped or hasattr(rep, "wasxfail"):
        return
    longrepr = rep.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr or "")
    if is_missing_reason(reason):
        rep.outcome = "failed"
        rep.longrepr = f"CI=true, so this is a failure, not a skip: {_bare(reason)}"
    elif not is_named_skip(reason):
        rep.outcome = "failed"
        rep.longrepr = (f"CI=true, so this is a failure, not a skip: its reason is not one of "
                        f"tests/rwtest/ci.py's NAMED_SKIPS: {_bare(reason)!r}")
