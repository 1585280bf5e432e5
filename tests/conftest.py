"""What every test gets: the host guard, CI strictness about missing prerequisites, gpg-agents
stopped after the test, one Hypothesis profile under CI, and ``rwtest`` (tests/rwtest: helpers
shared by every test directory) on the path."""
from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rwtest import bytecode, ci, cputime, guard, hoststate, leaks, sandbox  # noqa: E402

_CPU = cputime.Totals()


def pytest_configure(config):
    bytecode.keep_rewritten_tests()
    guard.install()
    leaks.install()
    hoststate.install()
    config.addinivalue_line("markers", "reads_host: the test's subject is this machine's own state "
                            "(rwtest/hoststate.py's guard lets it read it)")
    try:
        from hypothesis import HealthCheck, settings
    except ImportError:  # pragma: no cover - hypothesis is a test extra
        return
    # CI: the same examples on every run (a failure reproduces), no deadline on a loaded machine
    settings.register_profile("ci", derandomize=True, deadline=None, database=None, print_blob=True,
                              suppress_health_check=[HealthCheck.too_slow])
    if ci.in_ci():
        settings.load_profile("ci")


def pytest_collection_finish(session):
    bytecode.collection_done()  # the tests run with the environment's flag (rwtest/bytecode.py)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """``src`` byte-compiled once before the tests (and pytest-xdist's workers) start: every
    ``python3 -m rocm_wizard`` the tests start then loads it instead of compiling it again
    (rwtest/bytecode.py)."""
    if bytecode.wanted(session.config):
        bytecode.compile_sources()


_GUARD_START = pytest.StashKey[int]()


@pytest.fixture(autouse=True)
def host_guard(request):
    """Fail the test if it tried to run ``--yes``/``resume``/``rollback`` or a plan script on the
    host (see rwtest/guard.py), even where the code under test swallowed the error."""
    start = request.node.stash[_GUARD_START] = len(guard.violations)
    yield
    new = guard.violations[start:]
    if new:
        pytest.fail("host guard: " + "; ".join(new), pytrace=False)


@pytest.fixture(scope="session")
def host_state_dirs(tmp_path_factory):
    """The folder of the tests' own ``host_state`` folders (``host/0``, ``host/1``...), one per process.
    They were numbered folders of pytest's base directory itself (``host0``, ``host1``...), which is
    never emptied during a run: every later ``mktemp``/``tmp_path`` there lists it to find the next
    number, so making a folder cost time in proportion to the tests run before (rwtest/hoststate.py)."""
    return hoststate.Folders(str(tmp_path_factory.mktemp("host", numbered=False)))


@pytest.fixture(autouse=True)
def host_state(request, monkeypatch, host_state_dirs):
    """The one place tests are made blind to the host's state (rwtest/hoststate.py): the catalog
    overlay, XDG cache/state/config, the log root and VIRTUAL_ENV point at this test's own folder;
    a test that opens rocm-wizard's state or /etc/apt on the host fails, naming the path."""
    hoststate.redirect(monkeypatch, host_state_dirs.new())
    start = len(hoststate.opened)
    hoststate.watch(request.node.get_closest_marker("reads_host") is None)
    yield
    hoststate.watch(False)
    new = hoststate.opened[start:]
    del hoststate.opened[start:]
    if new:
        pytest.fail("opened the host's state (point it at the test's folder, or mark the test reads_host): "
                    + "; ".join(dict.fromkeys(new)), pytrace=False)


@pytest.fixture(scope="session", autouse=True)
def session_tempdir(tmp_path_factory):
    """tempfile's directory, for this process, inside pytest's own temporary directory and removed
    at the end: code under test that makes a temporary directory of its own (the demo's state
    directory...) leaves nothing in /tmp.  Child processes keep the real TMPDIR."""
    old = tempfile.tempdir
    sandbox.readable.append(str(tmp_path_factory.getbasetemp()))  # seen read-only in rwtest.sandbox
    tempfile.tempdir = str(tmp_path_factory.mktemp("tempfile"))
    yield
    shutil.rmtree(tempfile.tempdir, ignore_errors=True)
    tempfile.tempdir = old


@pytest.fixture(autouse=True)
def gpg_agents():
    """Stop the gpg-agents of the GNUPGHOMEs the test used (rwtest/leaks.py)."""
    start = len(leaks.homes)
    yield
    leaks.stop_agents(start)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    cputime.start(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    cputime.stamp(item, rep)
    if call.when == "call" and call.excinfo is not None and call.excinfo.errisinstance(guard.HostGuardError):
        del guard.violations[item.stash.get(_GUARD_START, len(guard.violations)):]  # reported once, here
    ci.strict_report(rep)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    ci.strict_report(outcome.get_result())


def pytest_runtest_logreport(report):
    _CPU.add(report)


def pytest_terminal_summary(terminalreporter, config):
    """With ``--durations``: the CPU seconds per test file and per ansible-core (rwtest/cputime.py)."""
    if getattr(config.option, "durations", None) is not None:
        _CPU.write(terminalreporter, config.option.durations)
