"""Parsers for what ``catalog refresh`` reads: pure functions over bytes, no network.

* :func:`simple_links` — a PEP 503 HTML page or a PEP 691 JSON page -> [Link]
* :func:`wheel_info` — a wheel file name -> (project, version, python tag, platform)
* :func:`core_metadata` — a wheel's METADATA text -> Requires-Python, Requires-Dist
* :func:`exact_pin` — the ``name==version`` a Requires-Dist list pins for one of some names
* :func:`zip_tail_directory` / :func:`zip_entries` — a zip's central directory from its last bytes
  (zip64 aware), for listing a wheel's members with HTTP range requests
* :func:`gfx_from_members` — gfx targets named by a ROCm torch wheel's per-arch kernel files
* :func:`tags_page` — one page of Docker Hub's ``/v2/repositories/<repo>/tags`` JSON
* :func:`release_file` — an apt ``Release`` file's fields
* :func:`release_dirs` — version-named directories of an HTML directory listing

Every parser is bounded: it raises :class:`ParseError` (one line) on input that is too big, too
deep or not of its format, never anything else.
"""
from __future__ import annotations

import html
import json
import re
import struct
import urllib.parse
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

MAX_LINKS = 200_000
MAX_JSON_DEPTH = 32
MAX_ZIP_ENTRIES = 200_000


class ParseError(Exception):
    """Input that does not parse; ``str()`` is one line."""


@dataclass(frozen=True)
class Link:
    filename: str
    url: str  # absolute, without the #fragment
    requires_python: Optional[str] = None
    core_metadata: Optional[str] = None  # PEP 658/714: <url>.metadata is served ("sha256=<hex>" or "")
    yanked: bool = False


# ------------------------------------------------------------------------------ PEP 503 / 691
# A tag's name, which ends where whitespace, "/" or ">" follows (a shorter name cannot be followed
# by one of those: giving characters back fails at once); a comment; a declaration.
_OPEN = re.compile(r"""<(?:(!--)|([!?])|([A-Za-z][^\s/>"'<]*)(?=[\s/>]))""")
_TAG_STOP = re.compile(r"""[>"']""")  # one character class: a search that never backtracks
# An attribute within a closed tag: a name, then maybe "=" and a value; a quoted value's closing
# quote is optional, so no attempt fails after a long scan (nothing to backtrack into).
_ATTR = re.compile(r"""([^\s"'>/=]+)(?:\s*=\s*("[^"]*"?|'[^']*'?|[^\s"'>]*))?""")
_MAX_TEXT = 4096  # an anchor's text as kept


class _Anchors:
    """The anchors of an HTML page in one forward pass, linear in the page's length whatever it
    holds (unclosed tags, comments or quotes, ``<a`` repeated), which ``html.parser`` is not on
    CPython without the fix of CVE-2025-6069 (issue 27).  A cursor that never moves back; each step
    is a ``str.find`` or a search of :data:`_OPEN` or :data:`_TAG_STOP` from the cursor, and the
    cursor moves past what the step looked at, or the scan ends.  What it reads is what PEP 503 pages and directory
    listings are: ``<a`` tags with quoted or bare attributes, and their text up to the next tag;
    comments (``<!-- -->``), declarations and other tags are skipped; a tag, comment or quoted value
    left open runs to the end of the page and ends the scan.  ``examined`` adds up the characters
    each step looked at (an :data:`_OPEN` search counts twice: a "<" that starts no tag is looked
    at again up to the next "<")."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.examined = 0
        self.steps = 0
        self.anchors: List[Tuple[Dict[str, Optional[str]], List[str]]] = []

    def _find(self, what: str, pos: int) -> int:
        self.steps += 1
        i = self.text.find(what, pos)
        self.examined += (len(self.text) if i < 0 else i + len(what)) - pos
        return i

    def _tag_end(self, pos: int) -> int:
        """The index after the ``>`` that closes the tag going on at ``pos`` (a ``>`` inside a
        quoted value does not), -1 when the tag or a quoted value is open to the end of the page."""
        text = self.text
        while True:
            self.steps += 1
            m = _TAG_STOP.search(text, pos)
            if m is None:
                self.examined += len(text) - pos
                return -1
            self.examined += m.end() - pos
            if m.group() == ">":
                return m.end()
            close = self._find(m.group(), m.end())
            if close < 0:
                return -1
            pos = close + 1

    @staticmethod
    def _attrs(raw: str) -> Dict[str, Optional[str]]:
        attrs: Dict[str, Optional[str]] = {}
        for m in _ATTR.finditer(raw):
            value = m.group(2)
            if value is not None:
                if value[:1] in ("\"", "'"):
                    value = value[1:-1] if len(value) > 1 and value[-1] == value[0] else value[1:]
                value = html.unescape(value)
            attrs.setdefault(m.group(1).lower(), value)
        return attrs

    def scan(self) -> "_Anchors":
        text, n, pos = self.text, len(self.text), 0
        while pos < n:
            # the next comment, declaration or tag name: each "<" that starts none of them (text,
            # an end tag, "<" followed by letters and another "<") is passed over by the engine
            # after the few characters up to its next "<", so the search looks at each character
            # at most twice
            self.steps += 1
            m = _OPEN.search(text, pos)
            if m is None:
                self.examined += 2 * (n - pos)
                break
            self.examined += 2 * (m.end() - pos)
            if m.group(1) or m.group(2):
                close = self._find("-->" if m.group(1) else ">", m.end())
                if close < 0:
                    break  # open to the end of the page
                pos = close + (3 if m.group(1) else 1)
                continue
            end = self._tag_end(m.end())
            if end < 0:  # no ">" outside quotes before the end of the page
                break
            pos = end
            if m.group(3).lower() != "a":
                continue
            if len(self.anchors) >= MAX_LINKS:
                raise ParseError(f"more than {MAX_LINKS} links on one page")
            stop = self._find("<", pos)
            stop = n if stop < 0 else stop
            self.anchors.append((self._attrs(text[m.end():end - 1]), [html.unescape(text[pos:min(stop, pos + _MAX_TEXT)])]))
            pos = stop
        return self


def _json(body: bytes) -> Any:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ParseError("JSON is not UTF-8") from None
    # nesting is counted before parsing: json.loads recurses once per level
    depth = peak = 0
    in_str = esc = False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise ParseError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
        elif ch in "]}":
            depth -= 1
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ParseError(f"not valid JSON ({str(exc).splitlines()[0][:120]})") from None


def _filename_of(url: str) -> str:
    return urllib.parse.unquote(urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1])


def simple_links(body: bytes, content_type: str, page_url: str) -> List[Link]:
    """The files of a PEP 503 (HTML) or PEP 691 (JSON) project page; relative URLs are resolved
    against ``page_url``."""
    if "json" in (content_type or "").lower():
        data = _json(body)
        files = data.get("files") if isinstance(data, dict) else None
        if not isinstance(files, list):
            raise ParseError("PEP 691 page without a files list")
        out = []
        for f in files[:MAX_LINKS]:
            if not isinstance(f, dict) or not isinstance(f.get("url"), str) or not isinstance(f.get("filename"), str):
                continue
            meta = f.get("core-metadata", f.get("dist-info-metadata", False))
            if isinstance(meta, dict):
                meta = "sha256=" + str(meta["sha256"]) if isinstance(meta.get("sha256"), str) else ""
            rp = f.get("requires-python")
            out.append(Link(f["filename"], urllib.parse.urljoin(page_url, f["url"]).split("#", 1)[0],
                            rp if isinstance(rp, str) else None, (meta if isinstance(meta, str) else "") if meta else None,
                            bool(f.get("yanked", False))))
        return out
    parser = _Anchors(body.decode("utf-8", errors="replace")).scan()
    out = []
    for attrs, text in parser.anchors:
        href = attrs.get("href")
        if not href:
            continue
        url = urllib.parse.urljoin(page_url, href).split("#", 1)[0]
        name = "".join(text).strip() or _filename_of(url)
        meta = attrs.get("data-core-metadata", attrs.get("data-dist-info-metadata"))
        out.append(Link(name, url, attrs.get("data-requires-python"),
                        None if meta is None or meta == "false" else (meta if meta.startswith("sha256=") else ""),
                        "data-yanked" in attrs))
    return out


def hrefs(body: bytes, page_url: str) -> List[str]:
    """Every link of an HTML page (a directory listing), absolute."""
    return [link.url for link in simple_links(body, "text/html", page_url)]


# ------------------------------------------------------------------------------ wheels
@dataclass(frozen=True)
class WheelName:
    project: str  # normalized: torch, torchvision, triton-rocm
    version: str  # with its local label: 2.16.0+rocm10.1
    public: str  # 2.16.0
    local: Optional[str]  # rocm10.1
    python: str  # cp312, cp313t
    platform: str


def wheel_info(filename: str) -> Optional[WheelName]:
    """A wheel's name parts, or None for anything that is not a valid wheel file name."""
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename

    try:
        name, version, _build, tags = parse_wheel_filename(filename)
    except (InvalidWheelFilename, ValueError):
        return None
    tag = sorted(tags, key=str)[0]
    return WheelName(str(name), str(version), version.public, version.local, tag.interpreter, tag.platform)


def core_metadata(text: str) -> Dict[str, Any]:
    """``{"name", "version", "requires_python", "requires_dist": [...]}`` of METADATA text."""
    from email.parser import HeaderParser

    if len(text) > 4 * 1024 * 1024:
        raise ParseError("METADATA larger than 4 MiB")
    msg = HeaderParser().parsestr(text)
    if not msg.get("Name") or not msg.get("Version"):
        raise ParseError("METADATA without Name or Version")
    return {"name": str(msg.get("Name")).strip(), "version": str(msg.get("Version")).strip(),
            "requires_python": (str(msg.get("Requires-Python")).strip() if msg.get("Requires-Python") else None),
            "requires_dist": [str(v).strip() for v in msg.get_all("Requires-Dist") or []]}


def exact_pin(requires_dist: Sequence[str], names: Sequence[str]) -> Optional[Tuple[str, str]]:
    """(dist, version) of the first ``name==version`` requirement (an exact, normalized version: no
    ``.*``, no ``===``) for one of ``names`` whose marker (if any) holds on Linux x86_64; None when
    there is none."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    wanted = [canonicalize_name(n) for n in names]
    env = {"platform_system": "Linux", "sys_platform": "linux", "platform_machine": "x86_64",
           "os_name": "posix", "extra": ""}
    for line in requires_dist:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(req.name) not in wanted:
            continue
        if req.marker is not None:
            try:
                if not req.marker.evaluate(env):
                    continue
            except Exception:
                continue
        specs = list(req.specifier)
        if len(specs) == 1 and specs[0].operator == "==" and _exact(specs[0].version):
            return canonicalize_name(req.name), specs[0].version
    return None


def _exact(version: str) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        return "*" not in version and str(Version(version)) == version
    except InvalidVersion:
        return False


def valid_specifier(text: Optional[str]) -> Optional[str]:
    """``text`` when it is a valid version specifier (``>=3.10``), else None."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return str(SpecifierSet(text)) if text else None
    except InvalidSpecifier:
        return None


def requirement_spec(requires_dist: Sequence[str], name: str):
    """The SpecifierSet that ``requires_dist`` puts on ``name`` (None when it names it not)."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    for line in requires_dist:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(req.name) == canonicalize_name(name):
            return req.specifier
    return None


# ------------------------------------------------------------------------------ zip
_EOCD = b"PK\x05\x06"
_EOCD64_LOC = b"PK\x06\x07"
_EOCD64 = b"PK\x06\x06"
_CDH = b"PK\x01\x02"


def zip_tail_directory(tail: bytes, file_size: Optional[int] = None) -> Tuple[int, int]:
    """(offset, size) of the central directory, from the last bytes of a zip file (at least the
    end-of-central-directory record, 22 bytes + comment; for zip64 also its locator and record)."""
    pos = tail.rfind(_EOCD)
    if pos < 0 or len(tail) - pos < 22:
        raise ParseError("no zip end-of-central-directory record in the file's last bytes")
    _sig, _d, _dcd, _n_disk, n_total, cd_size, cd_offset, _clen = struct.unpack("<4sHHHHIIH", tail[pos:pos + 22])
    if 0xFFFFFFFF in (cd_size, cd_offset) or n_total == 0xFFFF:
        loc = pos - 20
        if loc < 0 or tail[loc:loc + 4] != _EOCD64_LOC:
            raise ParseError("zip64 archive without its end-of-central-directory locator")
        _s, _disk, rec_offset, _ndisks = struct.unpack("<4sIQI", tail[loc:loc + 20])
        # the zip64 record sits right before the locator in every wheel writer; find it in the tail
        rec = tail.rfind(_EOCD64, 0, loc)
        if rec < 0 or loc - rec < 56:
            raise ParseError("zip64 end-of-central-directory record not in the file's last bytes")
        fields = struct.unpack("<4sQHHIIQQQQ", tail[rec:rec + 56])
        cd_size, cd_offset = fields[8], fields[9]
    if file_size is not None and cd_offset + cd_size > file_size:
        raise ParseError("zip central directory points past the end of the file")
    return cd_offset, cd_size


@dataclass(frozen=True)
class ZipEntry:
    name: str
    method: int
    compressed: int
    size: int
    header_offset: int


def zip_entries(directory: bytes) -> List[ZipEntry]:
    """The members of a zip central directory (zip64 extra fields honoured)."""
    out, pos = [], 0
    while pos + 46 <= len(directory) and directory[pos:pos + 4] == _CDH:
        if len(out) >= MAX_ZIP_ENTRIES:
            raise ParseError(f"more than {MAX_ZIP_ENTRIES} zip members")
        (_sig, _vm, _vn, _flags, method, _t, _d, _crc, csize, usize, nlen, xlen, clen,
         _disk, _ia, _ea, offset) = struct.unpack("<4sHHHHHHIIIHHHHHII", directory[pos:pos + 46])
        name = directory[pos + 46:pos + 46 + nlen].decode("utf-8", errors="replace")
        extra = directory[pos + 46 + nlen:pos + 46 + nlen + xlen]
        if 0xFFFFFFFF in (csize, usize, offset):
            values = [usize, csize, offset]
            i = 0
            while i + 4 <= len(extra):
                tag, length = struct.unpack("<HH", extra[i:i + 4])
                if tag == 1:
                    data, j = extra[i + 4:i + 4 + length], 0
                    for k in range(3):
                        if values[k] == 0xFFFFFFFF and j + 8 <= len(data):
                            values[k] = struct.unpack("<Q", data[j:j + 8])[0]
                            j += 8
                    break
                i += 4 + length
            usize, csize, offset = values
        out.append(ZipEntry(name, method, csize, usize, offset))
        pos += 46 + nlen + xlen + clen
    if not out:
        raise ParseError("empty or damaged zip central directory")
    return out


def zip_member_data(local: bytes, entry: ZipEntry, limit: int = 4 * 1024 * 1024) -> bytes:
    """A member's bytes from its local header onwards (``local`` starts at ``entry.header_offset``)."""
    import zlib

    if local[:4] != b"PK\x03\x04" or len(local) < 30:
        raise ParseError("zip local header not where the central directory says")
    nlen, xlen = struct.unpack("<HH", local[26:30])
    data = local[30 + nlen + xlen:30 + nlen + xlen + entry.compressed]
    if len(data) < entry.compressed:
        raise ParseError("zip member cut short")
    if entry.method == 0:
        return data[:limit]
    if entry.method == 8:
        d = zlib.decompressobj(-15)
        try:
            out = d.decompress(data, limit + 1)
        except zlib.error as exc:
            raise ParseError(f"zip member does not inflate ({exc})") from None
        if len(out) > limit:
            raise ParseError(f"zip member larger than {limit} bytes")
        return out
    raise ParseError(f"zip compression method {entry.method} is not supported")


_GFX_DIRS = ("/rocblas/library/", "/hipblaslt/library/", "/hipsparselt/library/", "/miopen/db/")
# gfx9xx and older: three characters after "gfx" (gfx906, gfx90a, gfx942); gfx1xxx: four (gfx1100):
# MIOpen's database names run on into the CU count (gfx942130.kdb, gfx90a6e.kdb)
_GFX = re.compile(r"gfx(?:1[0-9]{2}[0-9a-f]|[6-9][0-9][0-9a-f])")


def gfx_from_members(names: Sequence[str]) -> List[str]:
    """gfx targets of the per-arch kernel files a ROCm torch wheel carries
    (``torch/lib/rocblas/library/TensileLibrary_..._gfx1100.co`` and the like)."""
    found = set()
    for name in names:
        low = name.lower()
        if any(d in low for d in _GFX_DIRS):
            for m in _GFX.findall(low.rsplit("/", 1)[-1]):
                found.add(m)
    return sorted(found)


# the libraries a ROCm torch wheel bundles with per-target kernel files, by the directory that holds
# them; "required": a target it lacks fails at the first use (rocBLAS: the first GEMM aborts,
# pytorch/pytorch#179865), so the wheel does not cover it; the others have fallbacks (hipBLASLt ->
# rocBLAS, MIOpen's databases -> compiling at run time, AOTriton -> the math attention) and are
# reported, not subtracted
LIBRARY_DIRS = (
    ("rocBLAS", "/rocblas/library/", True),
    ("hipBLASLt", "/hipblaslt/library/", False),
    ("hipSPARSELt", "/hipsparselt/library/", False),
    ("MIOpen", "/miopen/db/", False),
    ("AOTriton", "aotriton.images/", False),
)
_TARGET = re.compile(r"gfx(?:1[0-9]{2}[0-9a-f]|[6-9][0-9][0-9a-f])((?:[-_:](?:xnack|sramecc)[+-])*)")


def wheel_libraries(names: Sequence[str]) -> Dict[str, List[str]]:
    """Per bundled library, the targets its kernel files name (``gfx906``; an exact target with
    features where the file name carries them: ``gfx90a:xnack-``), read from the wheel's zip
    directory member names.  A library with no files is absent from the result."""
    out: Dict[str, set] = {}
    for name in names:
        low = name.lower()
        for lib, marker, _req in LIBRARY_DIRS:
            at = low.find(marker)
            if at < 0:
                continue
            tail = low[at + len(marker):]
            for m in _TARGET.finditer(tail):
                base = _GFX.match(m.group(0)).group(0)
                feats = re.findall(r"(xnack|sramecc)([+-])", m.group(1) or "")
                out.setdefault(lib, set()).add(":".join([base] + sorted(f"{a}{b}" for a, b in feats)))
            break
    return {lib: sorted(v) for lib, v in out.items()}


def library_gaps(names: Sequence[str]) -> Dict[str, List[str]]:
    """Per required library present in the wheel, the gfx targets other libraries of the wheel
    name but it has no kernels for (the wheel then does not run on them): the intersection the
    catalog's ``[[library]]`` entries state, read from one wheel."""
    libs = wheel_libraries(names)
    every = {t.split(":")[0] for targets in libs.values() for t in targets}
    out: Dict[str, List[str]] = {}
    for lib, _marker, required in LIBRARY_DIRS:
        if not required or lib not in libs:
            continue
        have = {t.split(":")[0] for t in libs[lib]}
        lacking = sorted(every - have)
        if lacking:
            out[lib] = lacking
    return out


# ------------------------------------------------------------------------------ Docker Hub
def tags_page(body: bytes) -> Tuple[List[Dict[str, Any]], Optional[str]]:
    """([{"name", "last_updated", "digest"}], next page URL or None) of one tags page."""
    data = _json(body)
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise ParseError("Docker Hub tags page without a results list")
    out = []
    for r in data["results"]:
        if isinstance(r, dict) and isinstance(r.get("name"), str) and len(r["name"]) <= 128:
            out.append({"name": r["name"],
                        "last_updated": r.get("last_updated") if isinstance(r.get("last_updated"), str) else None,
                        "digest": r.get("digest") if isinstance(r.get("digest"), str) else None})
    nxt = data.get("next")
    return out, nxt if isinstance(nxt, str) and nxt else None


# ------------------------------------------------------------------------------ apt
_RELEASE_KEYS = ("Origin", "Label", "Suite", "Codename", "Version", "Date", "Architectures", "Components",
                 "Description")


def release_file(text: str) -> Dict[str, str]:
    """The single-line fields of an apt ``Release`` file (checksum lists are skipped).  An
    ``InRelease`` file's clear-signed wrapper is tolerated; its signature is not checked here —
    apt checks it when the plan installs."""
    if len(text) > 1024 * 1024:
        raise ParseError("Release file larger than 1 MiB")
    out: Dict[str, str] = {}
    for line in text.splitlines():
        if not line or line[0] in " \t" or ":" not in line:
            continue
        key, _, value = line.partition(":")
        value = "".join(c for c in value.strip() if c.isprintable())[:500]
        if key in _RELEASE_KEYS and value:
            out[key] = value
    if "Suite" not in out and "Codename" not in out:
        raise ParseError("not an apt Release file (no Suite or Codename)")
    return out


_VERSION_DIR = re.compile(r"^(\d+(?:\.\d+){0,3})/?$")


def release_dirs(body: bytes, page_url: str) -> List[str]:
    """Version-named subdirectories (``6.4.3``, ``7.2``) of an HTML directory listing."""
    base = urllib.parse.urlsplit(page_url)
    out = set()
    for url in hrefs(body, page_url):
        u = urllib.parse.urlsplit(url)
        if (u.scheme, u.netloc) != (base.scheme, base.netloc) or not u.path.startswith(base.path.rstrip("/") + "/"):
            continue
        rest = u.path[len(base.path.rstrip("/")) + 1:]
        m = _VERSION_DIR.match(rest)
        if m:
            out.add(m.group(1))
    return sorted(out, key=lambda v: tuple(int(x) for x in v.split(".")))
