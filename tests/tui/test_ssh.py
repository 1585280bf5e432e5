"""The installed ``rocm-wizard --demo`` over a real SSH session: a private ``sshd`` on loopback
(own config, host key, client key and pid file, all under a temporary directory), the ``ssh``
client running inside tmux at 80x24 with TERM=xterm-256color, keys typed with ``send-keys`` and
the screen read with ``capture-pane``.  On the remote side sshd sets SSH_CONNECTION/SSH_TTY and
passes no TMUX, so the wizard must show its "SSH without tmux or screen" notice."""
from __future__ import annotations

import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from rwtest import ci

REPO = Path(__file__).resolve().parents[2]
SSHD = "/usr/sbin/sshd"  # sshd re-executes itself and insists on an absolute path
SSH = shutil.which("ssh")
SSH_KEYGEN = shutil.which("ssh-keygen")
TMUX = shutil.which("tmux")
WAIT = 20.0  # the longest any single wait in this file may take, in seconds


def _installed_wizard():
    """The absolute path of the installed console script.  sshd passes no environment, so the
    remote shell must not depend on PATH; a version-manager shim (pyenv) needs its own
    environment, so the script next to this interpreter wins when it exists."""
    beside = Path(sys.executable).parent / "rocm-wizard"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("rocm-wizard")
    return str(Path(found).resolve()) if found else None


WIZARD = _installed_wizard()


def _why_skip():
    if not (os.path.isfile(SSHD) and os.access(SSHD, os.X_OK)):
        return f"{SSHD} is missing (apt-get install openssh-server)"
    if SSH is None or SSH_KEYGEN is None:
        return "ssh/ssh-keygen are missing (apt-get install openssh-client)"
    if TMUX is None:
        return "tmux is not installed"
    if WIZARD is None:
        return "rocm-wizard is not installed (pip install -e .)"
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "needs root: sshd on loopback logs in as root"
    return None


pytestmark = pytest.mark.skipif(_why_skip() is not None, reason=ci.MISSING + (_why_skip() or ""))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            # an sshd answers with its version line first
            s.settimeout(2)
            return s.recv(4).startswith(b"SSH-")
    except OSError:
        return False


def _descendants(root: int):
    """Every living process below ``root`` (sshd renames its session processes, so walk the tree)."""
    children = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        for kid in children.get(todo.pop(), []):
            found.append(kid)
            todo.append(kid)
    return [p for p in found if _alive(p)]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie still answers kill(0); it is gone for our purposes
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


class Sshd:
    """A private sshd on 127.0.0.1 that knows one client key."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.host_key = root / "host_ed25519"
        self.client_key = root / "client_ed25519"
        self.authorized = root / "authorized_keys"
        self.pid_file = root / "sshd.pid"
        self.config = root / "sshd_config"
        self.log = root / "sshd.log"
        self.proc = None
        self.port = 0
        self.made_privsep_dir = False
        self.listener = 0
        self.left_behind = []

    def start(self) -> None:
        for key in (self.host_key, self.client_key):
            subprocess.run([SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", "rocm-wizard-test", "-f", str(key)],
                           check=True, capture_output=True, timeout=WAIT)
        self.authorized.write_text(Path(f"{self.client_key}.pub").read_text())
        self.authorized.chmod(0o600)
        # sshd refuses to start without its privilege separation directory (compiled in as
        # /run/sshd on Debian); make it only when absent and remove it again in stop()
        privsep = Path("/run/sshd")
        if not privsep.exists():
            privsep.mkdir(mode=0o755, parents=True)
            self.made_privsep_dir = True
        last_error = ""
        for _attempt in range(3):  # a free port can be taken between probing and binding
            self.port = _free_port()
            self.config.write_text("\n".join([
                f"Port {self.port}",
                "ListenAddress 127.0.0.1",
                f"HostKey {self.host_key}",
                f"PidFile {self.pid_file}",
                f"AuthorizedKeysFile {self.authorized}",
                "UsePAM no",
                "StrictModes no",
                "PermitRootLogin yes",
                "PubkeyAuthentication yes",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "PermitUserEnvironment no",
                "UseDNS no",
                "PrintMotd no",
                "PrintLastLog no",
                "X11Forwarding no",
                "LogLevel VERBOSE",
                "",
            ]))
            check = subprocess.run([SSHD, "-t", "-f", str(self.config)], capture_output=True, text=True,
                                   timeout=WAIT)
            if check.returncode != 0:
                raise RuntimeError(f"sshd -t rejected the test config: {check.stderr.strip()}")
            with open(self.log, "ab") as log:
                self.proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(self.config)], stdin=subprocess.DEVNULL,
                                             stdout=log, stderr=subprocess.STDOUT)
            end = time.monotonic() + WAIT
            while time.monotonic() < end and self.proc.poll() is None:
                if _port_open(self.port):
                    return
                time.sleep(0.1)
            last_error = self.log.read_text(errors="replace")
            self.stop()
        raise RuntimeError(f"sshd never accepted connections on 127.0.0.1; its log:\n{last_error}")

    def ssh_command(self, remote: str) -> str:
        return " ".join(shlex.quote(a) for a in [
            SSH, "-tt", "-F", "/dev/null", "-i", str(self.client_key),
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes",
            "-o", "LogLevel=ERROR", "-o", f"ConnectTimeout={int(WAIT)}",
            "-p", str(self.port), "root@127.0.0.1", remote])

    def session_pids(self):
        """Processes serving a connection: everything below the listening sshd."""
        return _descendants(self.proc.pid) if self.proc else []

    def stop(self) -> None:
        if self.proc is None:
            return
        sessions = self.session_pids()  # before the listener goes: they would be re-parented
        pid = None
        try:
            pid = int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            pass
        for target in {pid, self.proc.pid} - {None}:
            try:
                os.kill(target, signal.SIGTERM)
            except ProcessLookupError:
                pass
        try:
            self.proc.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=WAIT)
        # connections outlive the listener: end any that are left
        for p in sessions:
            try:
                os.kill(p, signal.SIGTERM)
            except ProcessLookupError:
                pass
        end = time.monotonic() + WAIT
        while time.monotonic() < end and any(_alive(p) for p in sessions):
            time.sleep(0.1)
        self.left_behind = [p for p in sessions if _alive(p)]
        for p in self.left_behind:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.listener = self.proc.pid
        self.proc = None

    def cleanup(self) -> None:
        """Stop the server and remove the privilege separation directory if this test made it."""
        self.stop()
        if self.made_privsep_dir:
            try:
                Path("/run/sshd").rmdir()
            except OSError:
                pass
            self.made_privsep_dir = False


@pytest.fixture(scope="session")
def sshd(tmp_path_factory):
    server = Sshd(tmp_path_factory.mktemp("sshd"))
    try:
        server.start()
    except Exception:
        server.cleanup()
        raise
    yield server
    server.cleanup()
    assert not _alive(server.listener), f"sshd (pid {server.listener}) did not stop"
    assert not server.left_behind, f"sshd session processes did not stop: {server.left_behind}"


class Pane:
    """One private tmux server with one 80x24 pane running ``command``; its exit status lands in a file."""

    def __init__(self, tmp_path: Path, command: str, width: int = 80, height: int = 24) -> None:
        self.sock = f"rocmwiz-ssh-{uuid.uuid4().hex[:8]}"
        self.exit_file = tmp_path / "ssh-exit-status"
        script = f"{command}; echo $? > {shlex.quote(str(self.exit_file))}; sleep 60"
        # the local side is scrubbed too, so only sshd can tell the wizard it is over SSH
        full = f"env -u TMUX -u STY -u SSH_CONNECTION -u SSH_TTY -u SSH_CLIENT bash -c {shlex.quote(script)}"
        subprocess.run([TMUX, "-L", self.sock, "-f", "/dev/null", "new-session", "-d", "-s", "w",
                        "-x", str(width), "-y", str(height), full], check=True, timeout=WAIT)

    def tmux(self, *args) -> str:
        return subprocess.run([TMUX, "-L", self.sock, *args], check=True, capture_output=True, text=True,
                              timeout=WAIT).stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "w")

    def wait(self, *phrases: str, timeout: float = WAIT) -> str:
        end = time.monotonic() + timeout
        text = ""
        while time.monotonic() < end:
            text = self.screen()
            flat = " ".join(text.split())
            if all(" ".join(p.split()) in flat for p in phrases):
                return text
            time.sleep(0.1)
        raise AssertionError(f"never saw {phrases!r}; the screen was:\n{text}")

    def keys(self, *keys: str) -> None:
        for k in keys:
            self.tmux("send-keys", "-t", "w", k)
            time.sleep(0.15)

    def exit_status(self, timeout: float = WAIT) -> int:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.exit_file.exists() and self.exit_file.read_text().strip():
                return int(self.exit_file.read_text().strip())
            time.sleep(0.1)
        raise AssertionError("the ssh session did not end; the screen was:\n" + self.screen())

    def close(self) -> None:
        subprocess.run([TMUX, "-L", self.sock, "kill-server"], capture_output=True, timeout=WAIT)


@pytest.fixture
def pane(tmp_path):
    made = []

    def start(command: str) -> Pane:
        p = Pane(tmp_path, command)
        made.append(p)
        return p

    yield start
    for p in made:
        p.close()


def _remote(*parts: str) -> str:
    return f"cd {shlex.quote(str(REPO))} && " + " ".join(parts)


def test_sshd_sets_ssh_connection_and_no_tmux(sshd, tmp_path):
    """What the wizard decides on: sshd sets SSH_CONNECTION and SSH_TTY; TMUX does not travel."""
    res = subprocess.run(shlex.split(sshd.ssh_command("env")), stdin=subprocess.DEVNULL, capture_output=True,
                         text=True, timeout=WAIT, env={**os.environ, "TMUX": "/tmp/fake,1,0"})
    assert res.returncode == 0, res.stderr
    remote = dict(line.split("=", 1) for line in res.stdout.replace("\r", "").splitlines() if "=" in line)
    assert remote.get("SSH_CONNECTION", "").startswith("127.0.0.1 ")
    assert remote["SSH_CONNECTION"].split()[-1] == str(sshd.port)
    assert "TMUX" not in remote and "STY" not in remote


def test_demo_over_real_ssh_at_80x24(sshd, pane):
    t = pane(sshd.ssh_command(_remote("TERM=xterm-256color", "ROCM_WIZARD_DEMO_SPEED=0",
                                      shlex.quote(WIZARD), "--demo")))
    screen = t.wait("rocm-wizard 1/8 Detect", "DEMO", "2 problems found")
    # the notice is there because sshd set SSH_CONNECTION/SSH_TTY and TMUX did not travel
    screen = t.wait("SSH without tmux or screen", "re-attach")
    assert max(len(line) for line in screen.splitlines()) <= 80
    assert len(screen.splitlines()) <= 24
    assert sshd.session_pids(), "no sshd process serves the session"
    t.keys("n")
    t.wait("2/8 Findings", "The kernel driver is outside")
    t.keys("n")
    t.wait("3/8 Way out", "Reinstall PyTorch in the venv (recommended)")
    t.keys("Enter")
    t.wait("4/8 Options", "Virtual environment", "/home/demo/trainer/venv")
    t.keys("C-n")
    t.wait("5/8 Plan", "will change", "x Run")
    # asking to run repeats the SSH warning in the confirmation; say no, nothing runs
    t.keys("x")
    t.wait("Run the", "simulated, nothing is changed", "SSH without tmux or screen")
    t.keys("n")
    t.wait("5/8 Plan", "x Run")
    t.keys("q")
    status = t.exit_status()
    assert status == 0, t.screen()
    # the remote side is gone too: no sshd process serves a connection any more
    end = time.monotonic() + WAIT
    while time.monotonic() < end and sshd.session_pids():
        time.sleep(0.1)
    assert not sshd.session_pids(), f"sshd session processes left: {sshd.session_pids()}"
