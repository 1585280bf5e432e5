"""Ansible inside a test root: Debian's own ``ansible-core`` (and ``python3-apt``, which the apt
module needs), installed from .debs fetched once from Debian's archive and cached beside the root
image (``debs-ansible-<hash>/``), so each test installs them offline with ``dpkg -i``.

Beside it, the newest ``ansible-core`` on PyPI that the root's Python can run (pip chooses it by
``Requires-Python``; 2.20 and later need Python 3.12, the root is Debian 12 with 3.11), downloaded
once as a wheel into the test cache (``wheels-ansible-pypi-py<ver>/``) and unpacked in the root
under ``/usr/local/rw-ansible-pypi`` (:func:`install_pypi`): its ``ansible-playbook`` comes first on the
``PATH`` of :func:`playbook` for that root; the libraries it needs are the ones Debian's package
brought (Jinja2 3.1, PyYAML, cryptography, resolvelib).

The playbook then runs in the root with ``ansible-playbook -c local``: modules, facts and apt act on
the root, never on the machine running the tests.

The newest ansible-core (2.20 and later need Python 3.12) cannot run on the Debian 12 root's Python
3.11, so it runs as an admin's controller does: in a Debian 13 root (Python 3.13; image cached like
the Debian 12 one) with ansible-core from PyPI in a venv there (wheels cached in
``wheels-ansible-newest-py313/``), reaching the target root -- mounted at ``/target`` in the
controller -- through the tests' ``rw_chroot`` connection (``ansible_plugins/rw_chroot.py``), as it
would reach a host through ssh: the modules run with the target's Python 3.11, the facts are the
target's (:class:`NewestController`, :func:`use_newest`).
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Dict, Iterator, List, Optional

from . import fetched
from .debroot import RECIPE, BaseTree, DebRoot, cache_dir, recipe_key

# python3-pkg-resources and python3-packaging: the pip module needs one of them on the host (2.14
# imports pkg_resources), as an admin's Ubuntu has them
PACKAGES = ["ansible-core", "python3-apt", "python3-pkg-resources", "python3-packaging"]
APT_OPTS = ["--no-install-recommends"]
INSIDE = "/opt/rw-ansible-debs"


def debs_dir(recipe: dict = RECIPE) -> Path:
    key = hashlib.sha256(json.dumps([recipe_key(recipe), PACKAGES, APT_OPTS], sort_keys=True).encode()).hexdigest()[:16]
    return cache_dir() / f"debs-ansible-{key}"


def ensure_debs(base: BaseTree, recipe: dict = RECIPE, mirror: Optional[str] = None) -> Path:
    """The cached .debs of :data:`PACKAGES` for a root of ``recipe`` (downloaded in a scratch root
    pointed at Debian's archive when missing; atomic, locked: :func:`.fetched.debs`)."""
    return fetched.debs(base, debs_dir(recipe), PACKAGES, "ansible-core_*.deb", recipe=recipe, mirror=mirror,
                        apt_opts=APT_OPTS)


# --- which ansible-cores a playbook test runs under (the ``ansible_in`` fixture's parameters) -----
# Every playbook test runs under Debian's ansible-core (2.14, "debian") and the newest on PyPI
# (2.20+, "newest"), as the developers' guide asks.  The newest PyPI release the Debian 12 root's
# Python 3.11 can run (2.19.x, "pypi") templates like the newest one (2.19 brought the data-tagging
# change both share), so it proves something of its own only where 2.19 itself was the subject: the
# re-typed values of issue 21 ("22.04", "26.04", GPU ids such as "7480" read as numbers) in the
# rocm-upgrade playbooks' host checks and refusals: those tests stop after their --check run under it
# (:func:`converges_under`).  (The owner-hardening tests name their cores
# themselves, 2.19 included: what they measured was 2.19's.)
CORES = ("debian", "pypi", "newest")
DEFAULT_CORES = ("debian", "newest")
MIDDLE_CORE_TESTS = frozenset({
    "test_ansible_playbook.py::test_check_changes_nothing_the_run_converges_and_a_second_run_changes_nothing",
    "test_ansible_playbook.py::test_hosts_with_other_gpus_or_missing_users_are_refused_and_nothing_changes",
    "test_ansible_paths.py::test_core_sdk_playbook_check_converge_and_changed_0",
})


def converges_under(request) -> bool:
    """Whether a test of :data:`MIDDLE_CORE_TESTS` goes on past its ``--check`` run under the core its
    ``ansible_in`` parameter names: not under 2.19 ("pypi").  What 2.19 alone can show there is how it
    types the host checks' values, and ``--check`` runs every host check and refusal; converging,
    changing nothing the second time and the rest are Debian's and the newest core's to show (the
    sixteenth session: 2.19's two converging runs cost about 60 CPU-s of a suite over its 20 minutes)."""
    callspec = getattr(request.node, "callspec", None)
    return (callspec.params.get("ansible_in") if callspec else None) != "pypi"


# The platform variants' playbook tests (WSL, SLES's zypper, the dnf hosts' Core SDK) run the same playbook tasks
# and modules as the apt hosts' tests above (test_ansible_playbook, test_ansible_paths: every path, both cores) on
# another host: each of them runs under one core, and each family's tests are split between the two, so that
# Debian's and the newest core each converge every family (WSL: two tests each, its Docker variant under Debian's;
# zypper: one each; dnf: ansible.builtin.dnf under both, the Core SDK playbook under Debian's; a uv venv's torch
# playbook, one test, keeps both) -- what one core templates or checks differently shows on the apt hosts' tests of
# the same tasks.  The eighteenth session, on a machine where the suite
# ran 23 minutes against its 20: a converging playbook test is 40-120 s of a worker, most of it the core's own work
# per task (README's "Last full run").
ONE_CORE_TESTS = {
    "test_wsl_librocdxg.py::test_wsl_rocm_72_playbook_builds_librocdxg_check_converge_and_changed_0": "debian",
    "test_wsl_rocm.py::test_wsl_rocm_playbook_check_converge_and_changed_0": "newest",
    "test_wsl_torch.py::test_wsl_613_torch_playbook_copies_the_runtime_in_check_converge_and_changed_0": "newest",
    "test_wsl_torch.py::test_wsl_torch_playbook_removes_the_runtime_check_converge_and_changed_0": "debian",
    "test_zypper_sles.py::test_playbook_check_changes_nothing_the_run_converges_and_a_second_run_changes_nothing":
        "debian",
    "test_zypper_sles.py::test_core_sdk_playbook_converges_then_changes_nothing": "newest",
    "test_exec_dnf.py::test_core_sdk_playbook_converges_then_changes_nothing": "debian",
    # the Docker path's playbook on a WSL host (its DXG flags): the Docker playbook itself runs under both
    "test_ansible_paths.py::test_docker_playbook_under_wsl_writes_dxg_flags_and_converges": "debian",
}


def cores_for(test: str) -> List[str]:
    """The ansible-cores a test (``file.py::function``) runs under: :data:`CORES` for the tests of
    :data:`MIDDLE_CORE_TESTS`, the one core :data:`ONE_CORE_TESTS` names for those, :data:`DEFAULT_CORES` for
    every other."""
    if test in ONE_CORE_TESTS:
        return [ONE_CORE_TESTS[test]]
    return list(CORES if test in MIDDLE_CORE_TESTS else DEFAULT_CORES)


PYPI_INSIDE = "/usr/local/rw-ansible-pypi"  # outside what the tests watch (/opt, /etc)
PYPI_WHEELS = ["ansible-core", "packaging"]


def pypi_wheels_dir(python: str) -> Path:
    return cache_dir() / f"wheels-ansible-pypi-py{python.replace('.', '')}"


def ensure_pypi_wheels(python: str = "3.11", with_deps: bool = False, target: Optional[Path] = None) -> Path:
    """The newest ``ansible-core`` wheel on PyPI whose ``Requires-Python`` admits ``python``
    (and ``packaging``; with ``with_deps``, every library it needs, as wheels for that Python),
    downloaded once with the host's pip into the test cache (atomic, locked: :func:`.fetched.wheels`)."""
    return fetched.wheels(target or pypi_wheels_dir(python), PYPI_WHEELS, "ansible_core-*.whl", python=python,
                          deps=with_deps)


_UNPACK = r"""
import glob, os, sys, zipfile
site = sys.argv[1] + "/site"
os.makedirs(site, exist_ok=True)
for whl in sorted(glob.glob(sys.argv[2] + "/*.whl")):
    zipfile.ZipFile(whl).extractall(site)
os.makedirs(sys.argv[1] + "/bin", exist_ok=True)
for name, mod in (("ansible-playbook", "playbook"), ("ansible", "adhoc")):
    with open(sys.argv[1] + "/bin/" + name, "w") as fh:
        fh.write("#!/usr/bin/python3\nimport sys\nsys.path.insert(0, %r)\nfrom ansible.cli.%s import main\nsys.exit(main())\n"
                 % (site, mod))
    os.chmod(sys.argv[1] + "/bin/" + name, 0o755)
"""


PYPI_PATH = f"{PYPI_INSIDE}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def install_pypi(root: DebRoot, debs: Path, wheels: Path) -> str:
    """Debian's packages (for python3-apt and the libraries), then the PyPI ansible-core unpacked
    under :data:`PYPI_INSIDE` and put first on this root's ``PATH`` for :func:`playbook`; returns
    the version ``ansible-playbook --version`` reports.  In a root made on :func:`pypi_layer` of
    the same wheels it is unpacked already (the same files; the version is the one the layer's
    ``ansible-playbook --version`` reported)."""
    install(root, debs)
    if getattr(root, "rw_ansible_pypi", None) == str(wheels):
        root.bind(str(wheels), "/opt/rw-ansible-wheels")
        root.rw_ansible_path = PYPI_PATH
        return root.rw_ansible_pypi_version
    return _unpack_pypi(root, wheels)


def _unpack_pypi(root: DebRoot, wheels: Path) -> str:
    import zipfile

    from packaging.specifiers import SpecifierSet

    (core,) = sorted(wheels.glob("ansible_core-*.whl"))
    with zipfile.ZipFile(core) as z:
        meta = next(z.read(n).decode() for n in z.namelist() if n.endswith(".dist-info/METADATA"))
    needs = re.search(r"^Requires-Python: (.+)$", meta, re.M)
    python = root.run(["python3", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"], check=True).stdout.strip()
    assert needs is None or python in SpecifierSet(needs.group(1).strip()), (core.name, needs.group(1), python)
    root.bind(str(wheels), "/opt/rw-ansible-wheels")
    root.run(["python3", "-c", _UNPACK, PYPI_INSIDE, "/opt/rw-ansible-wheels"], check=True, timeout=300)
    root.rw_ansible_path = PYPI_PATH
    res = root.run(["ansible-playbook", "--version"], env=env({"PATH": root.rw_ansible_path}), timeout=120)
    m = re.search(r"core ([0-9][^\]\s]*)\]", res.stdout)
    assert res.returncode == 0 and m, res.stdout + res.stderr
    return m.group(1)


_PYPI_VERSIONS: Dict[str, str] = {}


def pypi_layer(base: BaseTree, debs: Path, wheels: Path) -> Optional[List[str]]:
    """The PyPI ansible-core unpacked once per session (:func:`install_pypi`'s own steps, in a root
    of :func:`debs_layer`) into a layer above that one, byte-compiled as ``pip install`` leaves a
    package (each root's first ``ansible-playbook`` compiled what it imported, as root, into the
    same ``__pycache__`` directories); the layers, topmost first, for ``BaseTree.new_root``.
    ``None`` where overlayfs is not available."""
    lower = debs_layer(base, debs)
    if lower is None:
        return None
    name = "ansible-pypi-" + wheels.name

    def build(root: DebRoot) -> None:
        version = _unpack_pypi(root, wheels)
        root.run(["python3", "-m", "compileall", "-q", PYPI_INSIDE], check=True, timeout=600)
        _PYPI_VERSIONS[name] = version

    layer = base.layer(name, build, [lower])
    return None if layer is None else [layer, lower]


def new_root_with_pypi(base: BaseTree, debs: Path, wheels: Path) -> DebRoot:
    """A fresh root of ``base`` with the .debs installed and the PyPI ansible-core unpacked (from
    :func:`pypi_layer`; where there is none, :func:`new_root_with_debs`: :func:`install_pypi`
    unpacks it then)."""
    layers = pypi_layer(base, debs, wheels)
    if layers is None:
        return new_root_with_debs(base, debs)
    root = base.new_root(layers=layers)
    root.rw_ansible_debs = str(debs)
    root.rw_ansible_pypi = str(wheels)
    root.rw_ansible_pypi_version = _PYPI_VERSIONS["ansible-pypi-" + wheels.name]
    return root


def install(root: DebRoot, debs: Path) -> None:
    """dpkg -i the cached .debs inside ``root`` (offline); nothing to do in a root made on
    :func:`debs_layer` of the same .debs, where they are installed already."""
    root.bind(str(debs), INSIDE)
    if getattr(root, "rw_ansible_debs", None) == str(debs):
        return
    root.run(f"dpkg -i {INSIDE}/*.deb", check=True, timeout=600)


def debs_layer(base: BaseTree, debs: Path) -> Optional[str]:
    """The .debs ``dpkg -i``-ed once per session into a layer of ``base`` (``BaseTree.layer``), so
    that each test's root is made with them installed instead of installing them again (the same
    ``dpkg -i`` of the same files: the root is as :func:`install` leaves it); ``None`` where
    overlayfs is not available (then :func:`install` installs them in each root)."""
    return base.layer("ansible-debs-" + debs.name, lambda root: install(root, debs))


def new_root_with_debs(base: BaseTree, debs: Path) -> DebRoot:
    """A fresh root of ``base`` with the .debs installed (from :func:`debs_layer`; where there is
    none, a plain fresh root: :func:`install` installs them then)."""
    layer = debs_layer(base, debs)
    if layer is None:
        return base.new_root()
    root = base.new_root(layers=[layer])
    root.rw_ansible_debs = str(debs)
    return root


def root_from(request, base: BaseTree, name: str, build) -> DebRoot:
    """``base.root_from(name, build)`` (``build`` run once per session, a copy-on-write root per
    test) for the fixture ``request`` of a test; for a test that installs an ansible-core
    (``ansible_in``, ``ansible_debs``), made on :func:`debs_layer` -- as the integration tier's
    ``_fresh_root`` makes its roots -- so that :func:`install` has nothing left to do."""
    if "ansible_in" in request.fixturenames or "ansible_debs" in request.fixturenames:
        debs = request.getfixturevalue("ansible_debs")
        lower = debs_layer(base, debs)
        if lower is not None:
            root = base.root_from(name, build, [lower])
            root.rw_ansible_debs = str(debs)
            return root
    return base.root_from(name, build)


@contextlib.contextmanager
def gpu_root_from(request, base: BaseTree, name: str, build) -> Iterator[DebRoot]:
    """:func:`root_from`, then the wizard's mount and an AMD GPU (``wizard.prepare``,
    ``wizard.add_gpu``), as a fixture yields it; the root is closed afterwards."""
    from . import wizard

    root = root_from(request, base, name, build)
    try:
        wizard.prepare(root)
        wizard.add_gpu(root)
        yield root
    finally:
        root.close()


def env(extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    out = {"LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "HOME": "/root", "ANSIBLE_NOCOLOR": "1",
           "ANSIBLE_FORCE_COLOR": "0", "ANSIBLE_RETRY_FILES_ENABLED": "0", "ANSIBLE_PYTHON_INTERPRETER": "/usr/bin/python3",
           "ANSIBLE_LOCALHOST_WARNING": "0", "ANSIBLE_INVENTORY_UNPARSED_WARNING": "0"}
    if extra:
        out.update(extra)
    return out


# Pipelining (one process per task instead of a temporary directory, a copy, a chmod and a
# removal) for the two PyPI ansible-cores; Debian's 2.14 keeps Ansible's default (off), so every
# playbook test still runs once the way a default ansible.cfg does: modules copied into a temporary
# directory, which ``become_user`` to an unprivileged account must be able to read.
PIPELINING = "True"


# The tests' ansible.cfg (``ansible_cfg/ansible.cfg``: only ``internal_poll_interval``, 0.01 s instead
# of 0.001, which ansible-core reads from a file only), bound read-only into the root (or the
# controller) outside what the tests watch (/opt, /etc) and named by ANSIBLE_CONFIG.  Measured per
# second a task runs: 0.085 CPU-s of Debian's 2.14 (0.045 of the newest) polling for its result.
CFG_DIR = Path(__file__).resolve().parent / "ansible_cfg"
CFG_INSIDE = "/usr/local/rw-ansible-cfg"


def _bind_cfg(root: DebRoot, extra: Dict[str, str]) -> None:
    if not any(inside == CFG_INSIDE for _host, inside, _ro in root.binds):
        root.bind(str(CFG_DIR), CFG_INSIDE)
    extra.setdefault("ANSIBLE_CONFIG", CFG_INSIDE + "/ansible.cfg")


def playbook(root: DebRoot, path: str, *args: str, extra_env: Optional[Dict[str, str]] = None, timeout: float = 900):
    """``ansible-playbook -i localhost, -c local PATH ARGS`` inside ``root``."""
    extra = dict(extra_env or {})
    if getattr(root, "rw_controller", None):  # use_newest: from the Debian 13 controller root
        extra.setdefault("ANSIBLE_PIPELINING", PIPELINING)
        return _playbook_newest(root, path, args, extra, timeout)
    _bind_cfg(root, extra)
    if getattr(root, "rw_ansible_path", None):  # install_pypi: the PyPI ansible-core first
        extra.setdefault("PATH", root.rw_ansible_path)
        extra.setdefault("ANSIBLE_PIPELINING", PIPELINING)
    return root.run(["ansible-playbook", "-i", "localhost,", "-c", "local", path, *args], env=env(extra),
                    timeout=timeout)


_RECAP = re.compile(r"^(\S+)\s*:\s*((?:\w+=\d+\s*)+)$", re.M)


def recap(stdout: str) -> Dict[str, int]:
    """The PLAY RECAP counters of the one host (``ok``, ``changed``, ``failed``...)."""
    found: List[Dict[str, int]] = []
    for m in _RECAP.finditer(stdout.split("PLAY RECAP", 1)[-1]):
        found.append({k: int(v) for k, v in (kv.split("=") for kv in m.group(2).split())})
    assert len(found) == 1, stdout[-3000:]
    return found[0]


def changed_tasks(stdout: str) -> List[str]:
    """The names of the tasks that reported a change (``changed:`` lines follow ``TASK [name]``)."""
    out: List[str] = []
    task = ""
    for line in stdout.splitlines():
        m = re.match(r"^(?:TASK|RUNNING HANDLER) \[(.*)\]", line)
        if m:
            task = m.group(1)
        elif line.startswith("changed:") and task not in out:
            out.append(task)
    return out



# --- the newest ansible-core, from a Debian 13 controller root --------------------------------
NEWEST_PYTHON = "3.13"
NEWEST_VENV = "/opt/rw-ansible-newest"
PLUGINS = Path(__file__).resolve().parent / "ansible_plugins"


def ensure_newest_wheels() -> Path:
    """ansible-core and its libraries from PyPI, the newest for Debian 13's Python (cached)."""
    return ensure_pypi_wheels(NEWEST_PYTHON, with_deps=True,
                              target=cache_dir() / f"wheels-ansible-newest-py{NEWEST_PYTHON.replace('.', '')}")


class NewestController:
    """A Debian 13 tree (unpacked once per session) with the newest ansible-core from PyPI in a venv
    (installed offline from the cached wheels); each playbook run gets a fresh overlay root of it."""

    def __init__(self, image: Path, wheels: Path, workdir: str) -> None:
        self.base = BaseTree(image, workdir)
        tree = DebRoot(self.base.path)
        tree.bind(str(wheels), "/opt/rw-ansible-wheels")
        tree.run(["python3", "-m", "venv", NEWEST_VENV], check=True, timeout=300)
        tree.run([NEWEST_VENV + "/bin/python", "-m", "pip", "install", "-q", "--no-index", "--disable-pip-version-check",
                  "--find-links", "/opt/rw-ansible-wheels", "ansible-core"], check=True, timeout=600)
        res = tree.run([NEWEST_VENV + "/bin/ansible-playbook", "--version"], env=env(), check=True, timeout=120)
        m = re.search(r"core ([0-9][^\]\s]*)\]", res.stdout)
        assert m, res.stdout
        self.version = m.group(1)
        os.rmdir(os.path.join(self.base.path, "opt/rw-ansible-wheels"))

    def close(self) -> None:
        self.base.close()


def use_newest(root: DebRoot, debs: Path, controller: NewestController) -> str:
    """From now on :func:`playbook` runs ``root``'s playbooks from ``controller`` (the target keeps
    Debian's python3-apt, which the apt module needs on the host it manages); returns the version."""
    install(root, debs)
    root.rw_controller = controller
    return controller.version


def _playbook_newest(root: DebRoot, path: str, args, extra: Dict[str, str], timeout: float):
    ctl = root.rw_controller.base.new_root()
    try:
        # the target as the controller sees it: its tree, its bind mounts, a /proc for its modules
        ctl.bind(root.path, "/target", read_only=False)
        for host, inside, ro in root.binds:
            ctl.bind(host, "/target" + inside, read_only=ro)
        ctl.bind("/proc", "/target/proc", read_only=False)
        ctl.bind(str(PLUGINS), "/opt/rw-ansible-plugins")
        _bind_cfg(ctl, extra)
        extra = dict(extra)
        extra.pop("PATH", None)
        extra.update({"ANSIBLE_CONNECTION_PLUGINS": "/opt/rw-ansible-plugins",
                      "PATH": f"{NEWEST_VENV}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"})
        res = ctl.run([NEWEST_VENV + "/bin/ansible-playbook", "-i", "localhost,", "-c", "rw_chroot",
                       "-e", "ansible_host=/target", "/target" + path, *args], env=env(extra), timeout=timeout)
    finally:
        ctl.close()
    # what the newest ansible-core deprecates is what the next one removes: none may appear
    said = [ln for ln in (res.stdout + res.stderr).splitlines() if "DEPRECATION WARNING" in ln]
    assert not said, "ansible-core %s deprecates what the playbook uses:\n%s\n%s" % (
        root.rw_controller.version, "\n".join(said), (res.stdout + res.stderr)[-4000:])
    return res
