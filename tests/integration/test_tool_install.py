"""README's install lines on a fresh Debian 12 root (issue 22): a user installs the project from a
checkout with ``uv tool install`` (PEP 668 refuses ``pip install .`` there), runs
``rocm-wizard --version`` and the demo, and root runs the same program by its absolute path, the way
README says (``sudo "$(command -v rocm-wizard)"``: sudo's secure_path has no ``~/.local/bin``) --
and, run for alice, finds alice's venv.  Offline inside the root: the build backend and the
dependencies are wheels downloaded once with the host's pip into the test cache."""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from harness import fetched, uvtool
from harness.debroot import cache_dir
from test_invoker_root import fake_torch_venv

REPO = Path(__file__).resolve().parents[2]
WHEELS_INSIDE = "/opt/rw-wheels"
SRC_INSIDE = "/opt/rw-src"
DEPS = ["hatchling>=1.21", "textual==8.2.8", "rich>=13", "packaging>=23", "distro>=1.8", "sh>=2.0"]


def readme_install_lines():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = text.split("\n## Install", 1)[1].split("\n## ", 1)[0]
    return [ln.split("#", 1)[0].strip() for ln in re.findall(r"```sh\n(.*?)```", block, re.S)[0].splitlines()
            if ln.strip() and not ln.startswith("#")]


def ensure_wheels() -> Path:
    return fetched.wheels(cache_dir() / "wheels-rw-tool", DEPS, "textual-*.whl", platform="manylinux2014_x86_64",
                          timeout=900)


@pytest.fixture(scope="session")
def tool_wheels(tier_ready):
    return fetched.or_missing("wheels from PyPI (downloaded once with pip)",
                              lambda: (ensure_wheels(), uvtool.ensure_wheel()))


def checkout_copy(dest: Path) -> Path:
    """This checkout as a clone has it: no venv, no caches, no .git."""
    skip = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.pyc", ".pytest_cache", ".hypothesis",
                                  ".devnotes-progress.md")
    shutil.copytree(REPO, dest, ignore=skip, symlinks=True)
    return dest


def uv_root(root, tool_wheels, tmp_path):
    """``root`` with uv in /usr/local/bin, the wheels at WHEELS_INSIDE, a copy of this checkout at
    SRC_INSIDE, and a user alice."""
    deps, uv = tool_wheels
    uvtool.install(root, uv)
    root.bind(str(deps), WHEELS_INSIDE)
    root.bind(str(checkout_copy(tmp_path / "src")), SRC_INSIDE)
    root.add_user("alice")
    return root


def test_readme_install_lines_as_a_user_then_root_runs_it_by_its_path(debroot, tool_wheels, tmp_path):
    root = uv_root(debroot, tool_wheels, tmp_path)
    lines = readme_install_lines()
    install = next(ln for ln in lines if ln.startswith("uv tool install"))
    assert install.split()[:4] == ["uv", "tool", "install", "."], lines
    offline = {"UV_OFFLINE": "1", "UV_NO_INDEX": "1", "UV_FIND_LINKS": WHEELS_INSIDE, "UV_PYTHON_DOWNLOADS": "never",
               "PATH": "/home/alice/.local/bin:/usr/local/bin:/usr/bin:/bin"}
    root.run(["cp", "-r", SRC_INSIDE, "/home/alice/rocm-wizard"], user="alice", check=True)
    res = root.run(["sh", "-c", install], user="alice", cwd="/home/alice/rocm-wizard", env=offline, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    tool = "/home/alice/.local/bin/rocm-wizard"
    version = root.run(["sh", "-c", "rocm-wizard --version"], user="alice", env=offline)
    assert version.returncode == 0 and version.stdout.startswith("rocm-wizard "), version.stderr
    demo = root.run(["sh", "-c", "rocm-wizard --demo doctor"], user="alice", env=offline)
    assert demo.returncode == 2 and "Ways out" in demo.stdout, demo.stderr
    # root, as README says: not on sudo's secure_path, so by the absolute path
    secure = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    assert root.run(["sh", "-c", "command -v rocm-wizard"], env={"PATH": secure}).returncode != 0
    fake_torch_venv(root, "/home/alice/train/.venv", "alice")
    as_root = root.run([tool, "detect", "--json"], cwd="/home/alice",
                       env={"PATH": secure, "SUDO_USER": "alice", "HOME": "/root"})
    assert as_root.returncode == 0, as_root.stderr
    import json

    assert "/home/alice/train/.venv" in [t["path"] for t in json.loads(as_root.stdout)["torch"]]
    assert root.run([tool, "--version"], env={"PATH": secure}).returncode == 0


def readme_root_lines():
    """README's root install block: the one that installs into /usr/local/bin."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = text.split("\n## Install", 1)[1].split("\n## ", 1)[0]
    (code,) = [c for c in re.findall(r"```sh\n(.*?)```", block, re.S) if "UV_TOOL_BIN_DIR" in c]
    return [ln.strip() for ln in code.splitlines() if ln.strip() and not ln.startswith("#")]


# uv's system-wide configuration file: sudo resets the environment, so the test's offline settings
# reach the README's unchanged `sudo env ... uv tool install .` line through uv's own /etc/uv/uv.toml
UV_OFFLINE_TOML = f'offline = true\nno-index = true\nfind-links = ["{WHEELS_INSIDE}"]\npython-downloads = "never"\n'


def test_readme_root_install_lines_put_the_command_on_sudos_path(debroot, tool_wheels, tmp_path):
    import json

    root = uv_root(debroot, tool_wheels, tmp_path)
    root.run(["mkdir", "-p", "/etc/uv"], check=True)
    root.run(["sh", "-c", f"cat > /etc/uv/uv.toml <<'X'\n{UV_OFFLINE_TOML}X"], check=True)
    clone, install, use = readme_root_lines()
    # the clone lands in a root-owned folder (the test copies the checkout there instead of cloning)
    assert clone.startswith("sudo git clone ") and "/usr/local/src/rocm-wizard" in clone, clone
    root.run(["cp", "-r", SRC_INSIDE, "/usr/local/src/rocm-wizard"], check=True)
    assert install.startswith("sudo env ") and install.endswith("tool install ."), install
    res = root.run(["sh", "-c", install], cwd="/usr/local/src/rocm-wizard", timeout=900,
                   env={"PATH": "/usr/local/bin:/usr/bin:/bin"})
    assert res.returncode == 0, res.stdout + res.stderr
    # on sudo's secure_path now, and nothing of it writable by another user
    secure = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    found = root.run(["sh", "-c", "command -v rocm-wizard"], env={"PATH": secure})
    assert found.returncode == 0 and found.stdout.strip() == "/usr/local/bin/rocm-wizard", found
    writable = root.run(["find", "/opt/rocm-wizard-tool", "/usr/local/bin/rocm-wizard", "(", "-perm", "-o+w",
                         "-o", "-perm", "-g+w", "-o", "!", "-uid", "0", ")", "!", "-type", "l", "-print"])
    # uv makes its lock files world-writable on purpose (any user may take the lock): an empty file that
    # is never read or run; everything else, code included, is root's alone
    assert writable.returncode == 0, writable.stderr
    others = [p for p in writable.stdout.splitlines() if os.path.basename(p) != ".lock"]
    assert others == [], others
    # README's last line, the way alice types it: sudo finds the command by its bare name, and the
    # root run looks for venvs in alice's home
    fake_torch_venv(root, "/home/alice/train/.venv", "alice")
    root.run(["sh", "-c", "echo 'alice ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/alice && chmod 440 /etc/sudoers.d/alice"],
             check=True)
    assert use == "sudo rocm-wizard detect", use
    res = root.run(["sh", "-c", use + " --json"], user="alice", cwd="/home/alice",
                   env={"PATH": "/usr/local/bin:/usr/bin:/bin"})
    assert res.returncode == 0, res.stdout + res.stderr
    assert "/home/alice/train/.venv" in [t["path"] for t in json.loads(res.stdout)["torch"]]


# ------------------------------------------------------------------------------ pipx
PIPX_INSIDE = "/opt/rw-pipx"
# pipx itself with what it installs into every venv it makes (pip: its shared libraries are
# reinstalled from the index; setuptools and wheel: older pipx asked for them too)
PIPX_DEPS = ["pipx>=1.5", "pip", "setuptools", "wheel"]


def ensure_pipx_wheels() -> Path:
    return fetched.wheels(cache_dir() / "wheels-pipx", PIPX_DEPS, "pipx-*.whl", platform="manylinux2014_x86_64",
                          timeout=900)


@pytest.fixture(scope="session")
def pipx_wheels(tool_wheels):
    return fetched.or_missing("pipx's wheels from PyPI (downloaded once with pip)", ensure_pipx_wheels)


def readme_pipx_lines():
    """README's two pipx lines: the user's (``pipx install .``) and root's (``sudo pipx install --global .``)."""
    block = (REPO / "README.md").read_text(encoding="utf-8").split("\n## Install", 1)[1].split("\n## ", 1)[0]
    user = re.findall(r"`(pipx install [^`]+)`", block)
    root = re.findall(r"`(sudo pipx install --global [^`]+)`", block)
    assert len(user) == 1 and len(root) == 1, (user, root)
    return user[0], root[0]


def test_readme_pipx_lines_as_a_user_and_as_root(debroot, tool_wheels, pipx_wheels, tmp_path):
    """README's pipx lines (issue 22) in a fresh Debian 12 root, offline (pip's /etc/pip.conf names the
    local wheels, which reaches pip through sudo as well): alice's ``pipx install .`` puts the command
    in ~/.local/bin and runs the demo; root's ``sudo pipx install --global .`` from a checkout root
    owns puts it in /usr/local/bin, on sudo's secure_path, nothing of it writable by another user,
    and alice's ``sudo rocm-wizard detect`` finds her venv.  pipx is PyPI's (``--global`` needs 1.5
    or newer; Debian 12's package is 1.1), installed into its own venv in the root."""
    import json

    root = debroot
    deps, _uv = tool_wheels
    root.bind(str(deps), WHEELS_INSIDE)
    root.bind(str(pipx_wheels), PIPX_INSIDE)
    root.bind(str(checkout_copy(tmp_path / "src")), SRC_INSIDE)
    root.add_user("alice")
    root.run(["sh", "-c", f"printf '[global]\\nno-index = true\\nfind-links =\\n    {WHEELS_INSIDE}\\n    {PIPX_INSIDE}\\n'"
              " > /etc/pip.conf"], check=True)
    conf = {"PIP_CONFIG_FILE": "/etc/pip.conf"}  # the harness points pip at /dev/null; sudo drops it anyway
    res = root.run(["sh", "-c", "python3 -m venv /opt/pipx-itself && /opt/pipx-itself/bin/pip install -q pipx && "
                    "ln -s /opt/pipx-itself/bin/pipx /usr/local/bin/pipx && pipx --version"], timeout=600, env=conf)
    assert res.returncode == 0, res.stdout + res.stderr
    version = tuple(int(x) for x in res.stdout.strip().split(".")[:2])
    assert version >= (1, 5), res.stdout
    user_line, root_line = readme_pipx_lines()
    assert user_line == "pipx install .", user_line

    # as alice, from her clone
    path = "/home/alice/.local/bin:/usr/local/bin:/usr/bin:/bin"
    root.run(["cp", "-r", SRC_INSIDE, "/home/alice/rocm-wizard"], check=True)
    root.run(["chown", "-R", "alice:alice", "/home/alice/rocm-wizard"], check=True)
    res = root.run(["sh", "-c", user_line], user="alice", cwd="/home/alice/rocm-wizard", env={"PATH": path, **conf},
                   timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    got = root.run(["sh", "-c", "command -v rocm-wizard && rocm-wizard --version"], user="alice", env={"PATH": path})
    assert got.returncode == 0 and got.stdout.splitlines()[0] == "/home/alice/.local/bin/rocm-wizard", got
    assert got.stdout.splitlines()[1].startswith("rocm-wizard "), got.stdout
    demo = root.run(["sh", "-c", "rocm-wizard --demo doctor"], user="alice", env={"PATH": path})
    assert demo.returncode == 2 and "Ways out" in demo.stdout, demo.stderr

    # as root, from a checkout root owns, through sudo as README writes it
    root.run(["cp", "-r", SRC_INSIDE, "/usr/local/src/rocm-wizard"], check=True)
    secure = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    res = root.run(["sh", "-c", root_line], cwd="/usr/local/src/rocm-wizard", env={"PATH": secure}, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    found = root.run(["sh", "-c", "command -v rocm-wizard"], env={"PATH": secure})
    assert found.returncode == 0 and found.stdout.strip() == "/usr/local/bin/rocm-wizard", found
    writable = root.run(["find", "/opt/pipx", "/usr/local/bin/rocm-wizard", "(", "-perm", "-o+w", "-o", "-perm",
                         "-g+w", "-o", "!", "-uid", "0", ")", "!", "-type", "l", "-print"])
    assert writable.returncode == 0 and writable.stdout == "", writable.stdout + writable.stderr
    fake_torch_venv(root, "/home/alice/train/.venv", "alice")
    root.run(["sh", "-c", "echo 'alice ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/alice && chmod 440 /etc/sudoers.d/alice"],
             check=True)
    res = root.run(["sh", "-c", "sudo rocm-wizard detect --json"], user="alice", cwd="/home/alice",
                   env={"PATH": "/usr/bin:/bin"})
    assert res.returncode == 0, res.stdout + res.stderr
    assert "/home/alice/train/.venv" in [t["path"] for t in json.loads(res.stdout)["torch"]]
