"""Bounded HTTP reads for ``rocm-wizard catalog refresh`` (standard library only).

Every read has a size limit, a timeout and a redirect policy: a redirect may change the path but
never the scheme or host (an index that sends us elsewhere is a failure, not a new source), and at
most :data:`MAX_REDIRECTS` are followed.  A body larger than its limit, a short body (the server
closed early) or an HTTP error raises :class:`FetchError` with one line for the user; URLs in
messages and in the overlay are passed through :func:`redact` first.

API::

    Fetcher(timeout=20).get(url, accept=None, limit=PAGE_LIMIT) -> Response
    Fetcher().get_range(url, start, length, limit) -> bytes   # start < 0: the last -start bytes
    redact("https://user:pw@h/p?token=x&page=2") -> "https://h/p?token=REDACTED&page=2"
"""
from __future__ import annotations

import http.client
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Dict, Optional

PAGE_LIMIT = 16 * 1024 * 1024  # an index page: PyPI's /simple/boto3/ (4,318 files) is 1.1 MiB; ~55,000 files fit (benchmarks/README.md)
JSON_LIMIT = 4 * 1024 * 1024  # one Docker Hub tags page
META_LIMIT = 1024 * 1024  # a .metadata file, a Release file
MAX_REDIRECTS = 5
SLOW_FACTOR = 6  # a whole body may take this many per-request timeouts (a server trickling bytes)
USER_AGENT = "rocm-wizard-catalog-refresh"
_SECRET = re.compile(r"(token|key|sig|signature|secret|password|passwd|auth|credential)", re.I)


class FetchError(Exception):
    """A source could not be read; ``str()`` is one line naming the (redacted) URL and the cause."""


@dataclass
class Response:
    url: str  # the final URL (after same-host redirects)
    status: int
    content_type: str
    body: bytes
    headers: Dict[str, str]


def printable(text: str, limit: int = 200) -> str:
    """Server-supplied text made safe for a terminal line: control and non-printable characters
    escaped, cut at ``limit`` characters."""
    text = str(text)[:limit]
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def redact(url: str) -> str:
    """``url`` without user name/password and with secret-looking query values hidden; anything
    outside printable ASCII is percent-encoded (a hostile page cannot put escapes in our output)."""
    try:
        parts = urllib.parse.urlsplit(str(url))
    except ValueError:
        return "<unparsable URL>"
    netloc = parts.netloc.rsplit("@", 1)[-1]
    query = parts.query
    if query:
        pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
        query = urllib.parse.urlencode([(k, "REDACTED" if _SECRET.search(k) else v) for k, v in pairs])
    out = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, ""))
    return re.sub(r"[^\x21-\x7e]", lambda m: "".join(f"%{b:02X}" for b in m.group().encode("utf-8")), out)


def _origin(url: str):
    p = urllib.parse.urlsplit(url)
    return (p.scheme, (p.hostname or "").lower(), p.port)


class _SameHostRedirects(urllib.request.HTTPRedirectHandler):
    max_redirections = MAX_REDIRECTS

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        newurl = urllib.parse.urljoin(req.full_url, newurl)
        if _origin(newurl) != _origin(req.full_url):
            raise FetchError(f"{redact(req.full_url)}: redirected to another host or scheme "
                             f"({redact(newurl)}); not followed")
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None:  # keep Accept and Range across the redirect
            for name in ("Accept", "Range"):
                if req.has_header(name):
                    new.add_header(name, req.get_header(name))
        return new


class Fetcher:
    def __init__(self, timeout: float = 20.0) -> None:
        self.timeout = timeout
        # no FileHandler, FTPHandler or DataHandler: only http(s) is ever read
        self._opener = urllib.request.OpenerDirector()
        for handler in (urllib.request.ProxyHandler(), urllib.request.HTTPHandler(),
                        urllib.request.HTTPSHandler(), urllib.request.HTTPDefaultErrorHandler(),
                        _SameHostRedirects(), urllib.request.HTTPErrorProcessor()):
            self._opener.add_handler(handler)
        self.requests = 0

    def _open(self, url: str, headers: Dict[str, str]):
        if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
            raise FetchError(f"{redact(url)}: only http and https are read")
        req = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, **headers})
        self.requests += 1
        try:
            return self._opener.open(req, timeout=self.timeout)
        except FetchError:
            raise
        except urllib.error.HTTPError as exc:
            exc.close()
            raise FetchError(f"{redact(url)}: HTTP {exc.code} {printable(exc.reason, 80)}") from None
        except urllib.error.URLError as exc:
            raise FetchError(f"{redact(url)}: cannot connect ({printable(exc.reason)})") from None
        except (OSError, ValueError, http.client.HTTPException) as exc:  # timeouts, bad URLs, protocol errors
            raise FetchError(f"{redact(url)}: {exc.__class__.__name__}: {printable(exc)}") from None

    def _read(self, resp, url: str, limit: int) -> bytes:
        length = resp.headers.get("Content-Length")
        if length is not None and length.strip().isdigit() and int(length) > limit:
            raise FetchError(f"{redact(url)}: {int(length)} bytes, more than the {limit} allowed")
        chunks, total = [], 0
        deadline = time.monotonic() + SLOW_FACTOR * self.timeout
        try:
            while True:
                if time.monotonic() > deadline:
                    raise FetchError(f"{redact(url)}: the body took longer than {SLOW_FACTOR * self.timeout:.0f} s")
                chunk = resp.read(min(65536, limit + 1 - total))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
                if total > limit:
                    raise FetchError(f"{redact(url)}: more than the {limit} bytes allowed")
        except FetchError:
            raise
        except Exception as exc:  # IncompleteRead, timeouts, resets: a truncated download
            raise FetchError(f"{redact(url)}: download cut short ({exc.__class__.__name__})") from None
        body = b"".join(chunks)
        if length is not None and length.strip().isdigit() and len(body) != int(length):
            raise FetchError(f"{redact(url)}: download cut short ({len(body)} of {length} bytes)")
        return body

    def get(self, url: str, accept: Optional[str] = None, limit: int = PAGE_LIMIT) -> Response:
        headers = {"Accept": accept} if accept else {}
        resp = self._open(url, headers)
        with resp:
            body = self._read(resp, url, limit)
            return Response(resp.geturl(), resp.status, resp.headers.get("Content-Type", "") or "", body,
                            {k.lower(): v for k, v in resp.headers.items()})

    def get_range(self, url: str, start: int, length: int, limit: int) -> bytes:
        """``length`` bytes from ``start`` (``start < 0``: the file's last ``-start`` bytes, then
        ``length`` is ignored).  A server that ignores Range (answers 200) is a failure: reading the
        whole wheel is exactly what this avoids."""
        rng = f"bytes={start}" if start < 0 else f"bytes={start}-{start + length - 1}"
        if (length if start >= 0 else -start) > limit:
            raise FetchError(f"{redact(url)}: a range of more than {limit} bytes was asked for")
        resp = self._open(url, {"Range": rng})
        with resp:
            if resp.status != 206:
                raise FetchError(f"{redact(url)}: the server does not answer range requests (HTTP {resp.status})")
            return self._read(resp, url, limit)
