"""The Docker probe's two answers on a live system without the daemon round trip of the CLI.

``docker version --format '{{.Client.Version}} {{.Server.Version}}'`` starts the Go client, which
asks the daemon and prints both versions (on a GPU machine's profile: 167 ms, the longest wait of a
live detection).  The same two facts come from ``docker --version`` (the client's own version; it
asks no daemon) and from the daemon's ``GET /version`` on its Unix socket (``Version``: what the CLI
prints as ``.Server.Version``).  ``docker images`` (only asked once the daemon answered) still runs
the CLI: its rows' order and untagged images are the CLI's to decide.

The answer is the text the command would print, so the probe and its parser do not change.  Only
where it is certain to be the same daemon the CLI would ask: no ``DOCKER_HOST``, ``DOCKER_CONTEXT``
or ``DOCKER_CONFIG`` in the environment, no context chosen in ``~/.docker/config.json``; then the
CLI asks ``/var/run/docker.sock``.  Anything else (one of those set, a config file that cannot be
read, a socket that does not answer within a second, an answer that is not a JSON object with a
version) returns None and the command runs as before.  A socket that is absent, refuses or is not
this user's gives the client's version alone, as the CLI does then.
"""
from __future__ import annotations

import json
import os
import re
from typing import Callable, Dict, Optional, Tuple

DEFAULT_SOCKET = "/var/run/docker.sock"  # the CLI's default host, unix:///var/run/docker.sock
TIMEOUT = 1.0
MAX_ANSWER = 16 * 1024 * 1024
# Docker version 27.3.1, build ce12230 (not podman-docker's "podman version 5.0.2": podman asks no daemon)
_CLIENT = re.compile(r"^Docker version (\S+?),?(?: build \S+)?\s*$")
_ENV_ELSEWHERE = ("DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG")

try:  # the C module alone: socket.py's enum conversions cost more than the whole question
    import _socket as _sock
except ImportError:  # pragma: no cover - an interpreter without it
    import socket as _sock


class NoAnswer(Exception):
    """The daemon could not be asked in a way that says what the CLI would say."""


def read_small_file(path):
    """A file's first MiB for :func:`same_daemon` (Docker's config and context files): None when it
    does not exist, ``b"unreadable"`` (not JSON, so the CLI is asked) when it cannot be read."""
    try:
        with open(path, "rb") as fh:
            return fh.read(1024 * 1024)
    except FileNotFoundError:
        return None
    except OSError:
        return b"unreadable"


def same_daemon(environ: Dict[str, str], read_file: Callable[[str], Optional[bytes]]) -> bool:
    """Whether the CLI would ask the default socket (see the module docstring)."""
    if any(environ.get(k) for k in _ENV_ELSEWHERE):
        return False
    home = environ.get("HOME")
    if not home:
        return False
    data = read_file(os.path.join(home, ".docker", "config.json"))
    if data is None:
        return True  # no config file: the default context
    try:
        config = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return False
    if not isinstance(config, dict):
        return False
    context = config.get("currentContext")
    return context in (None, "", "default")


def client_version(text: Optional[str]) -> Optional[str]:
    """``27.3.1`` from ``docker --version``'s ``Docker version 27.3.1, build ce12230``."""
    lines = (text or "").strip().splitlines()
    if len(lines) != 1:
        return None
    m = _CLIENT.match(lines[0].strip())
    return m.group(1) if m else None


def get(path: str, sock_path: str = DEFAULT_SOCKET, timeout: float = TIMEOUT) -> object:
    """The JSON body of the daemon's answer to ``GET path``.  Raises ``FileNotFoundError``,
    ``ConnectionRefusedError`` or ``PermissionError`` when the socket cannot be used (the CLI then
    reports no server), :class:`NoAnswer` for anything else."""
    s = _sock.socket(_sock.AF_UNIX, _sock.SOCK_STREAM)
    try:
        s.settimeout(timeout)
        try:
            s.connect(sock_path)
        except (FileNotFoundError, ConnectionRefusedError, PermissionError):
            raise
        except OSError as exc:
            raise NoAnswer(str(exc)) from exc
        try:
            s.sendall(b"GET %s HTTP/1.0\r\nHost: docker\r\nUser-Agent: rocm-wizard\r\n\r\n" % path.encode("ascii"))
            chunks = []
            size = 0
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if size > MAX_ANSWER:
                    raise NoAnswer("answer too long")
        except OSError as exc:  # a timeout included
            raise NoAnswer(str(exc)) from exc
    finally:
        s.close()
    head, sep, body = b"".join(chunks).partition(b"\r\n\r\n")
    status = head.split(b"\r\n", 1)[0].split()
    if not sep or len(status) < 2 or status[1] != b"200":
        raise NoAnswer("status %r" % (head[:80],))
    if b"chunked" in head.lower():
        raise NoAnswer("chunked answer")
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise NoAnswer("not JSON") from exc


def version_text(client_text: Optional[str], sock_path: str = DEFAULT_SOCKET,
                 timeout: float = TIMEOUT) -> Optional[Tuple[str, int]]:
    """(the text ``docker version --format '{{.Client.Version}} {{.Server.Version}}'`` prints, its
    exit status) from ``docker --version``'s output and the daemon's socket; None where unsure."""
    client = client_version(client_text)
    if client is None:
        return None
    try:
        answer = get("/version", sock_path, timeout)
    except (FileNotFoundError, ConnectionRefusedError, PermissionError):
        return "%s \n" % client, 1  # the CLI prints the client part and fails on the server's
    except NoAnswer:
        return None
    server = answer.get("Version") if isinstance(answer, dict) else None
    if not isinstance(server, str) or not server.strip() or any(c.isspace() for c in server):
        return None
    return "%s %s\n" % (client, server), 0

