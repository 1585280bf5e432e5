"""The live Docker answer without the CLI's daemon round trip (detect/docker_api.py): the same text as
``docker version --format '{{.Client.Version}} {{.Server.Version}}'`` where it is certain to be the
same, else the command (a stand-in ``docker`` on a PATH of the test's own and a daemon socket in a
temporary directory: nothing of this machine is read)."""
from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import tempfile
import threading

import pytest

from rocm_wizard.detect import docker_api
from rocm_wizard.detect.probes import docker as p_docker
from rocm_wizard.detect.sources import LiveSource

VERSION_JSON = {"Platform": {"Name": "Docker Engine - Community"}, "Version": "27.3.1", "ApiVersion": "1.47",
                "Os": "linux", "Arch": "amd64"}


class Daemon:
    """A Unix socket that answers each connection with ``answer`` (bytes), or never (``None``)."""

    def __init__(self, path: str, answer) -> None:
        self.path = path
        self.answer = answer
        self.requests = []
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(4)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                self.requests.append(data)
                if self.answer is None:
                    conn.recv(1)  # until the client gives up
                    continue
                conn.sendall(self.answer)

    def close(self) -> None:
        self.sock.close()


def http(body: bytes, status: str = "200 OK", extra: str = "") -> bytes:
    return ("HTTP/1.0 %s\r\nContent-Type: application/json\r\n%s\r\n" % (status, extra)).encode() + body


@pytest.fixture
def sock_path():
    # a short directory of its own: a Unix socket's path may not be longer than about 100 bytes
    d = tempfile.mkdtemp(prefix="rw-sock-")
    yield os.path.join(d, "docker.sock")
    shutil.rmtree(d, ignore_errors=True)


def test_daemon_answers(sock_path):
    daemon = Daemon(sock_path, http(json.dumps(VERSION_JSON).encode()))
    try:
        assert docker_api.version_text("Docker version 27.3.1, build ce12230\n", sock_path) == ("27.3.1 27.3.1\n", 0)
        assert daemon.requests[0].startswith(b"GET /version HTTP/1.0\r\n")
    finally:
        daemon.close()
    assert p_docker.parse_version_output("27.3.1 27.3.1\n") == ("27.3.1", "27.3.1")


def test_no_daemon_gives_the_client_alone(sock_path, tmp_path):
    # no socket at all, and a socket file nobody listens on: the CLI prints the client part, exit 1
    assert docker_api.version_text("Docker version 28.2.2, build e6534b4", sock_path) == ("28.2.2 \n", 1)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(sock_path)
    s.close()
    assert docker_api.version_text("Docker version 28.2.2, build e6534b4", sock_path) == ("28.2.2 \n", 1)
    assert p_docker.parse_version_output("28.2.2 \n") == ("28.2.2", None)


@pytest.mark.parametrize("answer", [
    http(b"{}"),  # no version
    http(b"not json"),
    http(b'{"Version": "27.3.1"}', "404 Not Found"),
    http(b'{"Version": "27 3"}'),
    http(b'["27.3.1"]'),
    http(b'1c\r\n{"Version": "27.3.1"}\r\n0\r\n\r\n', extra="Transfer-Encoding: chunked\r\n"),
    b"garbage",
    None,  # the daemon never answers: the command (with its own timeout) decides
])
def test_unsure_answers_leave_it_to_the_command(sock_path, answer):
    daemon = Daemon(sock_path, answer)
    try:
        assert docker_api.version_text("Docker version 27.3.1, build ce12230", sock_path, timeout=0.3) is None
    finally:
        daemon.close()


@pytest.mark.parametrize("text,version", [
    ("Docker version 27.3.1, build ce12230\n", "27.3.1"),
    ("Docker version 20.10.21+dfsg1, build baeda1f", "20.10.21+dfsg1"),
    ("Docker version 28.0.0-rc.1, build 1234567", "28.0.0-rc.1"),
    ("podman version 5.0.2", None),  # podman-docker: podman asks no daemon, its CLI decides
    ("Docker version 27.3.1, build ce12230\nwarning: something", None),
    ("", None),
    (None, None),
])
def test_client_version(text, version):
    assert docker_api.client_version(text) == version


def test_same_daemon(tmp_path):
    home = tmp_path / "home"
    (home / ".docker").mkdir(parents=True)
    config = home / ".docker" / "config.json"

    def read(path):
        try:
            with open(path, "rb") as fh:
                return fh.read()
        except FileNotFoundError:
            return None

    env = {"HOME": str(home)}
    assert docker_api.same_daemon(env, read)  # no config file
    config.write_text('{"auths": {}, "currentContext": "default"}')
    assert docker_api.same_daemon(env, read)
    config.write_text('{"currentContext": "remote-box"}')
    assert not docker_api.same_daemon(env, read)
    config.write_text('{not json')
    assert not docker_api.same_daemon(env, read)
    config.write_text('{}')
    for var in ("DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG"):
        assert not docker_api.same_daemon(dict(env, **{var: "x"}), read)
    assert not docker_api.same_daemon({}, read)  # no HOME: the CLI's config is unknown


FAKE_DOCKER = """#!/bin/sh
echo "$*" >> "%(log)s"
case "$1" in
  --version) echo "Docker version 27.3.1, build ce12230" ;;
  version) echo "27.3.1 %(server)s" ;;
esac
"""


def _live(tmp_path, monkeypatch, sock_path, server="27.3.1"):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "ran.log"
    exe = bin_dir / "docker"
    exe.write_text(FAKE_DOCKER % {"log": log, "server": server})
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setattr(docker_api, "DEFAULT_SOCKET", sock_path)
    src = LiveSource(root="/", commands=True, environ={"PATH": str(bin_dir), "HOME": str(home)})
    return src, log


def test_live_source_asks_the_socket_not_the_cli(tmp_path, monkeypatch, sock_path):
    daemon = Daemon(sock_path, http(json.dumps(VERSION_JSON).encode()))
    try:
        src, log = _live(tmp_path, monkeypatch, sock_path)
        (raw,) = src.outputs("docker-version")
    finally:
        daemon.close()
    assert (raw.text, raw.rc, raw.error) == ("27.3.1 27.3.1\n", 0, None)
    assert raw.source == "cmd:docker --version + %s GET /version" % sock_path
    assert log.read_text().splitlines() == ["--version"]


def test_live_source_falls_back_to_the_command(tmp_path, monkeypatch, sock_path):
    daemon = Daemon(sock_path, http(b"{}"))
    try:
        src, log = _live(tmp_path, monkeypatch, sock_path, server="26.1.0")
        (raw,) = src.outputs("docker-version")
    finally:
        daemon.close()
    assert raw.text == "27.3.1 26.1.0\n" and raw.source.startswith("cmd:docker version --format")
    assert log.read_text().splitlines() == ["--version", "version --format {{.Client.Version}} {{.Server.Version}}"]


def test_live_source_other_context_runs_the_command(tmp_path, monkeypatch, sock_path):
    src, log = _live(tmp_path, monkeypatch, sock_path)
    src._environ["DOCKER_HOST"] = "tcp://10.0.0.1:2376"
    (raw,) = src.outputs("docker-version")
    assert raw.source.startswith("cmd:docker version --format")
    assert log.read_text().splitlines() == ["version --format {{.Client.Version}} {{.Server.Version}}"]


def test_live_source_under_another_root_runs_nothing(tmp_path):
    src = LiveSource(root=str(tmp_path), commands=False, environ={"PATH": os.defpath})
    (raw,) = src.outputs("docker-version")
    assert raw.text is None and "disabled" in raw.error
