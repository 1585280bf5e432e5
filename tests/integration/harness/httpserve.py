"""A static HTTP server on a loopback address in a thread, with fault switches.

Each site gets its own loopback address (127.0.0.1, 127.0.0.2...), not just its own port: apt's
http method remembers a failing *host* and then fails every other repository on it, so two
repositories that are different hosts in real life must be different hosts here too.

``mode`` is ``"ok"`` (serve files, list directories), ``"404"`` (answer every request with 404) or
``"500"``; :meth:`LocalServer.stop` closes the socket so connections are refused (the "repository
unreachable" case) and :meth:`LocalServer.start` opens it again on the same port.  With
:attr:`LocalServer.credentials` set to (login, password), a request without those HTTP basic
credentials gets 401 (a mirror that needs a login).  Every request
path is kept in :attr:`LocalServer.requests` so a test can prove what was (not) fetched.

Every answer says ``Cache-Control: no-store``: a client's HTTP cache (pip's, under a HOME that
outlives one server) never answers for a later server on the same address and port, whose files
may differ.  A file that is there but cannot be opened (the test process out of file descriptors,
say) is answered 500 with the reason, and kept in :attr:`LocalServer.errors`, where
``http.server`` answers 404 "File not found" for any ``open`` error: pip then reports a file its
index page lists as missing, or a project as having no versions.
"""
from __future__ import annotations

import functools
import http.server
import os
import socket
import threading
from typing import List, Optional, Tuple


class _Handler(http.server.SimpleHTTPRequestHandler):
    server_version = "rocm-wizard-test"
    sys_version = ""

    def _fault(self) -> bool:
        owner: "LocalServer" = self.server.owner  # type: ignore[attr-defined]
        with owner._lock:
            owner.requests.append(self.path)
            mode = owner.mode
            cred = owner.credentials
        if cred is not None:
            import base64

            want = "Basic " + base64.b64encode(f"{cred[0]}:{cred[1]}".encode()).decode()
            if self.headers.get("Authorization") != want:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="test"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return True
        if mode == "ok":
            return False
        code = 404 if mode == "404" else 500
        self.send_error(code)
        return True

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def send_error(self, code: int, message: Optional[str] = None, explain: Optional[str] = None) -> None:
        if code == 404:
            reason = self._unopenable()
            if reason is not None:
                owner: "LocalServer" = self.server.owner  # type: ignore[attr-defined]
                with owner._lock:
                    owner.errors.append(f"{self.path}: {reason}")
                code, message = 500, f"cannot open a file that is there: {reason}"
        super().send_error(code, message, explain)

    def _unopenable(self) -> Optional[str]:
        """Why the file the request names (a directory's index.html) cannot be opened, when it is
        there; None when it is not there (a real 404) or opens now."""
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
        if not os.path.isfile(path):
            return None
        try:
            with open(path, "rb"):
                return None
        except OSError as exc:
            return f"{exc.strerror or exc} ({path})"

    def do_GET(self) -> None:  # noqa: N802
        if not self._fault():
            super().do_GET()

    def do_HEAD(self) -> None:  # noqa: N802
        if not self._fault():
            super().do_HEAD()

    def log_message(self, format: str, *args) -> None:  # silence per-request stderr lines
        pass


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class LocalServer:
    def __init__(self, directory: str, name: str = "site", host: str = "127.0.0.1") -> None:
        self.directory = os.path.abspath(directory)
        self.host = host
        self.name = name
        self.mode = "ok"
        self.credentials: Optional[Tuple[str, str]] = None
        self.requests: List[str] = []
        self.errors: List[str] = []  # files that were there but could not be opened (answered 500)
        self.port: Optional[int] = None
        self._lock = threading.Lock()
        self._httpd: Optional[_Server] = None
        self._thread: Optional[threading.Thread] = None

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError(f"{self.name}: server was never started")
        return f"http://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._httpd is not None

    def start(self) -> "LocalServer":
        if self._httpd is not None:
            return self
        handler = functools.partial(_Handler, directory=self.directory)
        httpd = _Server((self.host, self.port or 0), handler)
        httpd.owner = self  # type: ignore[attr-defined]
        self.port = httpd.server_address[1]
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.1},
                                        name=f"http-{self.name}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def reset(self) -> None:
        """Back to normal service (used between tests)."""
        with self._lock:
            self.mode = "ok"
            self.credentials = None
            self.requests.clear()
        if self._httpd is None:
            self.start()

    def fetched(self, fragment: str) -> List[str]:
        with self._lock:
            return [p for p in self.requests if fragment in p]

    def is_reachable(self) -> bool:
        if self.port is None:
            return False
        try:
            with socket.create_connection((self.host, self.port), timeout=1):
                return True
        except OSError:
            return False
