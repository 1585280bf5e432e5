"""A local mirror of the sources ``catalog refresh`` reads, on a loopback address.

It serves ``refresh_data/`` (see its README for where each file comes from) laid out like the real
sites, each below its own prefix so that one server stands for all of them:

    /whl/...            download.pytorch.org/whl
    /amd/whl-next/...   stable.repo.amd.com/rocm/whl-next
    /radeon/rocm/apt/...  repo.radeon.com/rocm/apt
    /hub/v2/repositories/rocm/pytorch/tags?page=N   hub.docker.com (docker/tags-pageN.json)

Directories answer with their ``index.html``; files answer HTTP range requests (206) like the
real CDNs.  ``extra`` adds files (the wheels a test builds); ``routes`` maps a path to a function
that answers instead (hostile pages).  Every request and the bytes sent per path are recorded.
"""
from __future__ import annotations

import http.server
import os
import re
import threading
import urllib.parse
from typing import Callable, Dict, List, Optional

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "refresh_data")
PREFIXES = {"/whl/": "pytorch/whl/", "/amd/": "amd/", "/radeon/": "apt/"}


class _Handler(http.server.BaseHTTPRequestHandler):
    server_version = "refresh-mirror"
    sys_version = ""

    def log_message(self, *args) -> None:
        pass

    def _send(self, code: int, body: bytes, ctype: str = "text/html", headers: Optional[Dict[str, str]] = None,
              length: Optional[int] = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        owner: Mirror = self.server.owner  # type: ignore[attr-defined]
        key = urllib.parse.unquote(self.path.split("?")[0])
        with owner.lock:
            owner.sent[key] = owner.sent.get(key, 0) + len(body)

    def do_GET(self) -> None:  # noqa: N802
        owner: Mirror = self.server.owner  # type: ignore[attr-defined]
        with owner.lock:
            owner.requests.append(self.path)
        parts = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(parts.path)
        if path in owner.routes:
            owner.routes[path](self)
            return
        body = owner.lookup(path, urllib.parse.parse_qs(parts.query))
        if body is None:
            self._send(404, b"<html><body>404 Not Found</body></html>")
            return
        ctype = "application/json" if path.startswith("/hub/") else (
            "text/html" if path.endswith("/") else "application/octet-stream")
        rng = self.headers.get("Range")
        m = re.fullmatch(r"bytes=(\d*)-(\d*)", rng or "")
        if m and path not in owner.ignore_range and not path.endswith("/"):
            if m.group(1) == "":
                start = max(0, len(body) - int(m.group(2)))
                end = len(body) - 1
            else:
                start = int(m.group(1))
                end = min(len(body) - 1, int(m.group(2))) if m.group(2) else len(body) - 1
            self._send(206, body[start:end + 1], ctype, {"Content-Range": f"bytes {start}-{end}/{len(body)}"})
            return
        self._send(200, body, ctype)


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class Mirror:
    def __init__(self, host: str = "127.0.0.1", extra: Optional[Dict[str, bytes]] = None) -> None:
        self.host = host
        self.extra = dict(extra or {})
        self.routes: Dict[str, Callable[[_Handler], None]] = {}
        self.requests: List[str] = []
        self.sent: Dict[str, int] = {}
        self.ignore_range: set = set()  # paths answered whole (200) even when a range is asked
        self.lock = threading.Lock()
        self._server: Optional[_Server] = None

    def lookup(self, path: str, query: Dict[str, List[str]]) -> Optional[bytes]:
        if path in self.extra:
            return self.extra[path]
        if path.rstrip("/") == "/hub/v2/repositories/rocm/pytorch/tags":
            page = (query.get("page") or ["1"])[0]
            rel = f"docker/tags-page{int(page) if page.isdigit() else 0}.json"
        else:
            rel = None
            for prefix, local in PREFIXES.items():
                if path.startswith(prefix):
                    rel = local + path[len(prefix):]
            if rel is None or ".." in rel.split("/"):
                return None
            if rel.endswith("/"):
                rel += "index.html"
        full = os.path.join(DATA, rel)
        if not os.path.isfile(full):
            return None
        with open(full, "rb") as fh:
            return fh.read()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://{self.host}:{self._server.server_address[1]}"

    def start(self) -> "Mirror":
        self._server = _Server((self.host, 0), _Handler)
        self._server.owner = self  # type: ignore[attr-defined]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
