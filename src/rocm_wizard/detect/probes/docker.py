"""Docker probe: client version, whether the daemon answers, whether this user may use it, and the
``rocm/*`` images present (AMD's ``rocm/pytorch``, ``rocm/dev-ubuntu-*``...).

``docker version --format '{{.Client.Version}} {{.Server.Version}}'`` prints the client version
even when the daemon is down (then the server part is empty and the exit status is 1); the full
``docker version`` layout (``Client:`` / ``Server:`` sections) is accepted from pastes.
"""
from __future__ import annotations

import re
from typing import Optional, Tuple

from ...model import DockerInfo, System
from ..parsers._core_text import lazy
from ..sources import Source
from ._core_util import ok_outputs, stat

SOCKETS = ("/var/run/docker.sock", "/run/docker.sock")
_VERSION = lazy(r"^\d+\.\d+(?:\.\d+)?(?:[-+~][\w.~+-]*)?$")


def parse_version_output(text: str) -> Tuple[Optional[str], Optional[str]]:
    """(client version, server version) from the --format output or the full ``docker version``."""
    if not isinstance(text, str):
        return None, None
    s = text.strip()
    if not s:
        return None, None
    first = s.splitlines()[0].split()
    if first and _VERSION.match(first[0]) and len(s.splitlines()) <= 2:
        return first[0], (first[1] if len(first) > 1 and _VERSION.match(first[1]) else None)
    client = server = None
    section = None
    for line in s.splitlines():
        st = line.strip()
        if st.startswith("Client"):
            section = "client"
            continue
        if st.startswith("Server"):
            section = "server"
            continue
        m = re.match(r"^Version:\s*(\S+)", st)
        if m and section == "client" and client is None:
            client = m.group(1)
        elif m and section == "server" and server is None:
            server = m.group(1)
    return client, server


def probe(source: Source, system: System) -> None:
    d: DockerInfo = system.docker
    sock_src = None
    sock = None
    for path in SOCKETS:
        st = stat(source, path)
        if st is not None:
            sock, sock_src = st, "file:" + path
            break
    raws = source.outputs("docker-version")
    answered = False
    for raw in raws:
        if raw.text is None:
            if raw.error and "not installed" in raw.error:
                d.note("docker is not installed")
            continue
        client, server = parse_version_output(raw.text)
        d.put("client", client, raw.source)
        if server:
            d.put("daemon", True, raw.source)
        answered = True
    if answered and d.daemon is None:
        d.put("daemon", False, sock_src or "cmd:docker version")
        if sock is None:
            d.note("the Docker daemon is not running (no docker.sock)")
        elif sock.get("access_rw") is False:
            d.note("docker.sock exists but this user may not use it (not in the 'docker' group?)")
    if sock is not None and "access_rw" in sock:
        d.put("user_allowed", bool(sock["access_rw"]), sock_src)
    if d.daemon:
        for raw in ok_outputs(source, "docker-images"):
            for line in raw.text.splitlines():
                toks = line.split()
                if not toks:
                    continue
                ref = toks[0]
                if ":" not in ref and len(toks) >= 2:  # the table layout: REPOSITORY TAG IMAGE-ID ...
                    ref = "%s:%s" % (toks[0], toks[1])
                if ref.startswith("rocm/") and ref not in d.images:
                    d.images.append(ref)
            d.sources.setdefault("images", raw.source)
