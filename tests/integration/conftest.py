"""Fixtures of the integration tier (real apt, dpkg and pip on 127.0.0.1).

Every test under ``tests/integration`` is marked ``integration``; run the tier alone with
``pytest tests/integration`` or leave it out with ``-m "not integration"``.  It needs root and
mmdebstrap, apt-utils, gnupg, dpkg-dev; without them each test is skipped with the reason.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from rwtest import ci

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import debroot as _debroot  # noqa: E402
from harness.procs import missing_prerequisites  # noqa: E402
from harness.sites import build_apt_world, build_py_index  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


# Files outside this tier with tests of 8-20 s (wall: timeouts waited out, a Debian root of their
# own), in the 25 slowest of CI's runs.  In collection order they come among the last hundred
# tests of the run (tests/verify sorts last), where one of them could leave a worker alone for its
# 19 s at the very end; they run right after this tier instead, while the other worker still has
# thousands of short tests to take.
# The three files of tests/verify added at the end (seventh session; 5-19 s tests measured with -n 2
# under load: an end-to-end verify with the CPU wheel, the progress API, Hypothesis on odd reports,
# the default-venv choice) were among the last 112 tests of the collection order too.
LONG_ELSEWHERE = ("tests/verify/test_bounded_run.py", "tests/verify/test_smoke_script.py",
                  "tests/plan/test_real_apt.py", "tests/verify/test_command.py", "tests/verify/test_render.py",
                  "tests/verify/test_verify_default_venv.py")


_LONG = frozenset(REPO / name for name in LONG_ELSEWHERE)
_WHERE: dict = {}


def _where(item) -> int:
    """1 for a test file of this tier, 2 for one of :data:`LONG_ELSEWHERE`, 3 for any other; worked
    out once per file (the ~14,700 tests come from ~280 files: a ``resolve`` per test cost about a
    second of each process's collection)."""
    name = str(item.fspath)
    where = _WHERE.get(name)
    if where is None:
        path = Path(name).resolve()
        where = _WHERE[name] = 1 if HERE in path.parents else 2 if path in _LONG else 3
    return where


def _slowness(item) -> int:
    """0 for the playbook tests (an ansible-core in a root: the longest of the suite, 30-50 s each),
    1 for the rest of this tier (a root, apt, dpkg: 5-40 s), 2 for the files of
    :data:`LONG_ELSEWHERE`, 3 for every other test (well under a second mostly)."""
    where = _where(item)
    if where != 1:
        return where
    return 0 if "ansible_in" in getattr(item, "fixturenames", ()) else 1


def pytest_collection_modifyitems(config, items):
    """Marks this tier ``integration``, and runs the longest tests first (a stable sort: the order
    within each group is collection order): under pytest-xdist the run then ends on short tests,
    with both workers busy to the end, instead of on one worker's minute-long playbook test.
    ``scripts/test.sh`` caps what a worker is handed at once (``--maxschedchunk 4``), so the slow
    tests are spread over the workers as they free up, not handed out in one contiguous chunk."""
    for item in items:
        if _where(item) == 1:
            item.add_marker(pytest.mark.integration)
    items.sort(key=_slowness)


@pytest.fixture(scope="session")
def tier_ready():
    reasons = missing_prerequisites()
    if reasons:
        ci.missing("integration tier unavailable: " + "; ".join(reasons))


@pytest.fixture(scope="session")
def kernel() -> str:
    return os.uname().release


@pytest.fixture(scope="session")
def apt_world(tier_ready, tmp_path_factory, kernel):
    world = build_apt_world(str(tmp_path_factory.mktemp("aptworld")), kernel)
    yield world
    world.radeon.stop()
    world.distro.stop()
    for key in (world.site.radeon_key, world.site.distro_key, world.rogue_key):
        key.close()


@pytest.fixture
def apt_site(apt_world):
    """The apt world, with both servers back to normal after the test (fault switches reset)."""
    apt_world.reset()
    yield apt_world
    apt_world.reset()


@pytest.fixture(scope="session")
def py_index(tmp_path_factory):
    index = build_py_index(str(tmp_path_factory.mktemp("pyindex")))
    yield index
    index.server.stop()


@pytest.fixture
def pyindex(py_index):
    py_index.reset()
    yield py_index
    py_index.reset()


@pytest.fixture(scope="session")
def root_base(tier_ready, tmp_path_factory):
    image = _debroot.ensure_image(log=lambda m: print(m, file=sys.stderr))
    base = _debroot.BaseTree(image, str(tmp_path_factory.mktemp("roots")))
    yield base
    base.close()


@pytest.fixture(scope="session")
def ansible_debs(root_base):
    """Debian's ansible-core and python3-apt .debs, fetched once from Debian's archive and cached
    (each test installs them offline into its root)."""
    from harness import ansible
    from harness.procs import CommandFailed

    try:
        return ansible.ensure_debs(root_base)
    except CommandFailed as exc:
        ci.missing(f"Debian's ansible-core and python3-apt (fetched once from Debian's archive): {exc}")


@pytest.fixture(scope="session")
def ansible_pypi_wheels(tier_ready):
    """The newest ansible-core on PyPI that the root's Python 3.11 (Debian 12) can run, as a wheel
    downloaded once into the test cache (harness.ansible.ensure_pypi_wheels)."""
    from harness import ansible
    from harness.procs import CommandFailed

    try:
        return ansible.ensure_pypi_wheels("3.11")
    except CommandFailed as exc:
        ci.missing(f"ansible-core from PyPI (downloaded once with pip): {exc}")


@pytest.fixture(scope="session")
def ansible_newest(tier_ready, tmp_path_factory):
    """The newest ansible-core on PyPI (2.20+ needs Python 3.12) in a venv of a Debian 13 controller
    root, which reaches the test's root through a chroot connection (harness.ansible.NewestController).
    Image and wheels are fetched once and cached."""
    from harness import ansible
    from harness.procs import CommandFailed

    try:
        image = _debroot.ensure_image(_debroot.RECIPE_TRIXIE, log=lambda m: print(m, file=sys.stderr))
        wheels = ansible.ensure_newest_wheels()
        controller = ansible.NewestController(image, wheels, str(tmp_path_factory.mktemp("ansible-newest")))
    except CommandFailed as exc:
        ci.missing(f"the newest ansible-core from PyPI in a Debian 13 root (mmdebstrap, pip download): {exc}")
    yield controller
    controller.close()


def pytest_generate_tests(metafunc):
    """``ansible_in``'s parameters: the ansible-cores ``harness.ansible.cores_for`` names for the test
    (one named set, its reasons beside it), unless the test names its own with
    ``@pytest.mark.parametrize("ansible_in", [...], indirect=True)``."""
    if "ansible_in" not in metafunc.fixturenames:
        return
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0] if mark.args else mark.kwargs.get("argnames", "")
        if "ansible_in" in ([n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)):
            return
    from harness import ansible

    test = f"{Path(metafunc.definition.fspath).name}::{metafunc.function.__name__}"
    metafunc.parametrize("ansible_in", ansible.cores_for(test), indirect=True)


@pytest.fixture
def ansible_in(request, ansible_debs):
    """Installs an ansible-core into a root: Debian's (2.14), the newest from PyPI the root can
    run (2.19 or later), or the newest on PyPI at all (2.20 or later, from a Debian 13 controller
    root); returns the version ``ansible-playbook --version`` reports.  Which of them a test gets:
    ``pytest_generate_tests`` above."""
    from harness import ansible

    if request.param == "newest":
        controller = request.getfixturevalue("ansible_newest")

        def setup_newest(root):
            version = ansible.use_newest(root, ansible_debs, controller)
            assert tuple(int(x) for x in version.split(".")[:2]) >= (2, 20), version
            return version
        return setup_newest
    if request.param == "debian":
        def setup(root):
            ansible.install(root, ansible_debs)
            return "debian"
        return setup
    wheels = request.getfixturevalue("ansible_pypi_wheels")

    def setup_pypi(root):
        version = ansible.install_pypi(root, ansible_debs, wheels)
        assert tuple(int(x) for x in version.split(".")[:2]) >= (2, 19), version
        return version
    return setup_pypi


def _fresh_root(request, root_base):
    """A fresh root; for a test that installs an ansible-core (``ansible_in``, ``ansible_debs``),
    made with Debian's ansible .debs already installed from a layer built once per session
    (harness.ansible.debs_layer) instead of ``dpkg -i`` in every root; for one that installs the
    PyPI ansible-core (``ansible_in`` "pypi", ``ansible_pypi_wheels``), with that one unpacked too
    (harness.ansible.pypi_layer)."""
    if "ansible_in" in request.fixturenames or "ansible_debs" in request.fixturenames:
        from harness import ansible

        debs = request.getfixturevalue("ansible_debs")
        spec = getattr(request.node, "callspec", None)
        if "ansible_pypi_wheels" in request.fixturenames or (spec and spec.params.get("ansible_in") == "pypi"):
            return ansible.new_root_with_pypi(root_base, debs, request.getfixturevalue("ansible_pypi_wheels"))
        return ansible.new_root_with_debs(root_base, debs)
    return root_base.new_root()


@pytest.fixture
def debroot(request, root_base):
    """A fresh Debian root that says it is Ubuntu 22.04 (jammy)."""
    root = _fresh_root(request, root_base)
    root.make_ubuntu("jammy", "22.04")
    try:
        yield root
    finally:
        root.close()


@pytest.fixture
def host_python() -> str:
    return sys.executable



@pytest.fixture
def wroot(debroot, apt_site):
    """A fresh Ubuntu-like root that can run rocm-wizard: the repository mounted, the sysfs entries
    of a Radeon RX 7900 XTX, and the distribution archive configured (nothing from AMD yet)."""
    from harness import wizard

    wizard.prepare(debroot)
    wizard.add_gpu(debroot)
    apt_site.add_distro(debroot)
    return debroot


@pytest.fixture(scope="session")
def core_world(apt_world):
    """The apt world with a Core SDK host's layout beside the radeon one (same server), signed by
    its own key (``core_world.core_key``)."""
    from harness.sites import add_core_site

    world = add_core_site(apt_world)
    yield world
    world.core_key.close()


@pytest.fixture
def core_site(core_world):
    core_world.reset()
    yield core_world
    core_world.reset()


@pytest.fixture
def resolute_root(request, root_base, core_site):
    """A fresh root that says it is Ubuntu 26.04 (resolute), with an RX 7900 XTX and the
    distribution archive configured: nothing from AMD yet."""
    from harness import wizard

    root = _fresh_root(request, root_base)
    root.make_ubuntu("resolute", "26.04", point="")
    try:
        wizard.prepare(root)
        wizard.add_gpu(root)
        core_site.add_distro(root)
        yield root
    finally:
        root.close()


@pytest.fixture
def rocm_old(request, root_base, apt_site):
    """A machine that runs ROCm 6.2.4 installed the documented way (keyring, lists, pin, rocm, dkms):
    ``wroot`` plus ``install_rocm``.  The Ubuntu look and the install are made once per session (a
    layer, on the ansible .debs' layer for a test that installs an ansible-core: ``_fresh_root``);
    each test gets its own copy-on-write root on it, then the wizard's mount and the GPU."""
    from harness.ansible import gpu_root_from

    def build(root):
        root.make_ubuntu("jammy", "22.04")
        apt_site.install_rocm(root, apt_site.old)

    with gpu_root_from(request, root_base, "rocm-old", build) as root:
        yield root
