"""``rocm-wizard catalog refresh``: learn new releases from the live sources (or mirrors of them)
and write the local overlay (:mod:`rocm_wizard.catalog.overlay`).

Sources (research notes ``rocm-2026.md`` §5), each read only when selected:

* ``pytorch`` — PyTorch's wheel indexes (``https://download.pytorch.org/whl``; a mirror has the same
  layout below it).  ``<base>/torch/`` lists every build; its ``+rocmX.Y`` files name the ROCm
  indexes.  For each torch release the bundled catalog does not know on an index, the index's
  ``torch/``, ``torchvision/``, ``torchaudio/`` pages give Python tags and ``Requires-Python``; the
  wheel's core metadata (PEP 658 ``.metadata`` where the page announces it, else a ranged read of
  the wheel's ``METADATA``) gives the exact triton pin; torchvision's and torchaudio's metadata
  pair them with torch.  The gfx targets of a new index are read from the torch wheel's zip
  directory with range requests (``gfx_method = "wheel-directory"``) or, where that fails or is
  switched off, inferred from the newest bundled index (``"inferred"``: the resolver treats it as
  unknown).
* ``amd-index`` — AMD's pip index (``https://stable.repo.amd.com/rocm/whl-next``): torch builds and
  the ``amd-torch-device-gfxNNNN`` packages (their names are the gfx list).
* ``apt`` — AMD's legacy apt repository (``<rocm-mirror>/rocm/apt/``: release directories and their
  ``dists/<codename>/Release``); ``apt-core`` — the Core SDK layout
  (``<core>/<profile>/dists/stable/Release``, profiles :data:`CORE_PROFILES`).
* ``docker`` — Docker Hub's tags API for rocm/pytorch, every page (``next``), same host only.

Any failure of a selected source fails the whole refresh (:class:`RefreshError`, one line) and
the previous overlay stays; facts from sources not read this time are carried over from it.
"""
from __future__ import annotations

import datetime as _dt
import re
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from ._data import data_path, join_url, parse_toml_file
from .overlay import SCHEMA
from .refresh_net import JSON_LIMIT, META_LIMIT, FetchError, Fetcher, redact
from .refresh_parse import (Link, ParseError, core_metadata, exact_pin, gfx_from_members, library_gaps, release_dirs,
                            release_file, requirement_spec, simple_links, tags_page, valid_specifier, wheel_info,
                            zip_entries, zip_member_data, zip_tail_directory)

SOURCES = ("pytorch", "amd-index", "apt", "apt-core", "docker")
# the PyTorch and repo.radeon.com defaults are the bundled catalog's own base URLs
DEFAULTS = {
    "amd_index": "https://stable.repo.amd.com/rocm/whl-next",
    "rocm_core": "https://stable.repo.amd.com/rocm/core/packages",
    "docker_hub": "https://hub.docker.com",
}
CORE_PROFILES = ("ubuntu2204", "ubuntu2404", "ubuntu2604", "debian12", "debian13")
PEP691 = "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.5, text/html;q=0.1"
TRITON_DISTS = ("triton-rocm", "pytorch-triton-rocm", "triton", "pytorch-triton")
MAX_NEW_RELEASES = 40  # torch (version, index) pairs examined in one refresh
MAX_COMPANION_READS = 6  # metadata files read to pair torchvision/torchaudio with one torch release
MAX_TAG_PAGES = 30
MAX_APT_DIRS = 20
TAIL_BYTES = 65536 + 22
CD_LIMIT = 32 * 1024 * 1024


class RefreshError(Exception):
    """The refresh failed; ``str()`` is the one line to show."""


@dataclass
class Options:
    pytorch: Optional[str] = None  # None: torch_wheels.toml's [index] base_url
    amd_index: str = DEFAULTS["amd_index"]
    rocm: Optional[str] = None  # None: rocm_releases.toml's [repo] base_url
    rocm_core: str = DEFAULTS["rocm_core"]
    docker_hub: str = DEFAULTS["docker_hub"]
    sources: Tuple[str, ...] = SOURCES
    read_wheels: bool = True  # gfx targets from the wheels' zip directories (range requests)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _bundled(name: str) -> Dict[str, Any]:
    """A bundled data file as shipped (without the overlay): what counts as already known."""
    return parse_toml_file(data_path(name))


def _vkey(text: str):
    from packaging.version import InvalidVersion, Version

    try:
        return (1, Version(text))
    except InvalidVersion:
        return (0, Version("0"))


@dataclass
class _Run:
    opts: Options
    fetch: Fetcher
    now: str
    warnings: List[str] = field(default_factory=list)
    _meta: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    _members: Dict[str, List[Any]] = field(default_factory=dict)

    # -------------------------------------------------------------------- helpers
    def page(self, url: str) -> List[Link]:
        url = url.rstrip("/") + "/"
        resp = self.fetch.get(url, accept=PEP691)
        try:
            return simple_links(resp.body, resp.content_type, resp.url)
        except ParseError as exc:
            raise RefreshError(f"{redact(url)}: {exc}") from None

    def optional_page(self, url: str) -> List[Link]:
        try:
            return self.page(url)
        except FetchError as exc:
            if " HTTP 404" in str(exc) or " HTTP 403" in str(exc):  # AMD answers 403 for a missing project
                return []
            raise

    def members(self, url: str) -> Tuple[List[Any], int]:
        """The zip members of a remote wheel, read with two range requests (once per wheel)."""
        if url in self._members:
            return self._members[url], 0
        tail = self.fetch.get_range(url, -TAIL_BYTES, 0, TAIL_BYTES)
        try:
            offset, size = zip_tail_directory(tail)
        except ParseError as exc:
            raise FetchError(f"{redact(url)}: {exc}") from None
        if size > CD_LIMIT:
            raise FetchError(f"{redact(url)}: zip directory of {size} bytes, more than {CD_LIMIT} allowed")
        directory = self.fetch.get_range(url, offset, size, CD_LIMIT)
        try:
            self._members[url] = zip_entries(directory)
        except ParseError as exc:
            raise FetchError(f"{redact(url)}: {exc}") from None
        return self._members[url], offset

    def metadata(self, link: Link) -> Dict[str, Any]:
        """Core metadata of a wheel: ``<url>.metadata`` (PEP 658) or a ranged read of METADATA."""
        if link.url in self._meta:
            return self._meta[link.url]
        if link.core_metadata is not None:
            import hashlib

            src = link.url + ".metadata"
            body = self.fetch.get(src, limit=META_LIMIT).body
            want = link.core_metadata[len("sha256="):].lower()
            if want and hashlib.sha256(body).hexdigest() != want:
                raise RefreshError(f"{redact(src)}: sha256 differs from the one the index page announces")
            text = body.decode("utf-8", errors="replace")
        else:
            src = link.url
            entries, _ = self.members(link.url)
            meta = [e for e in entries if re.match(r"^[^/]+\.dist-info/METADATA$", e.name)]
            if len(meta) != 1 or meta[0].compressed > META_LIMIT:
                raise FetchError(f"{redact(link.url)}: no single .dist-info/METADATA of a sane size in the wheel")
            e = meta[0]
            local = self.fetch.get_range(link.url, e.header_offset, 30 + 1024 + e.compressed, META_LIMIT + 2048)
            try:
                text = zip_member_data(local, e, META_LIMIT).decode("utf-8", errors="replace")
            except ParseError as exc:
                raise FetchError(f"{redact(link.url)}: {exc}") from None
        try:
            data = core_metadata(text)
        except ParseError as exc:
            raise RefreshError(f"{redact(src)}: {exc}") from None
        data["source"] = redact(src)
        self._meta[link.url] = data
        return data

    # -------------------------------------------------------------------- PyTorch
    def pytorch(self) -> Dict[str, Any]:
        base = self.opts.pytorch
        bundled = _bundled("torch_wheels.toml")
        known_idx = bundled.get("indexes", {})
        known = {(str(t["version"]), i) for t in bundled.get("torch", []) for i in t.get("indexes", [])}
        pairs = set()
        for link in self.page(join_url(base, "torch")):
            w = wheel_info(link.filename)
            if w is None or not w.local or not re.fullmatch(r"rocm\d+(?:\.\d+){1,2}", w.local):
                continue
            if _vkey(w.public)[1].is_prerelease or (w.public, w.local) in known:
                continue
            pairs.add((w.public, w.local))
        ordered = sorted(pairs, key=lambda p: (_vkey(p[0]), _vkey(p[1][4:])), reverse=True)
        if len(ordered) > MAX_NEW_RELEASES:
            self.warnings.append(f"{len(ordered)} new torch builds on {redact(base)}; the newest "
                                 f"{MAX_NEW_RELEASES} were examined (run refresh again for more)")
            ordered = ordered[:MAX_NEW_RELEASES]
        by_index: Dict[str, List[str]] = {}
        for version, idx in ordered:
            by_index.setdefault(idx, []).append(version)
        releases, indexes = [], {}
        for idx, versions in sorted(by_index.items()):
            rel, gfx = self._index(base, idx, versions)
            releases.extend(rel)
            if idx not in known_idx:
                indexes[idx] = self._index_entry(base, idx, gfx, bundled)
        return {"torch": releases, "torch_indexes": indexes}

    def _index_entry(self, base: str, idx: str, gfx: Optional[Tuple[List[str], str]],
                     bundled: Dict[str, Any]) -> Dict[str, Any]:
        entry = {"rocm": idx[4:], "source": redact(join_url(base, idx) + "/"), "learnt_at": self.now}
        if gfx:
            entry.update(gfx=gfx[0], gfx_status="observed", gfx_method="wheel-directory", gfx_source=gfx[1])
            return entry
        # the newest bundled torch release whose gfx list is sourced (PYTORCH_ROCM_ARCH only grows)
        sets = bundled.get("gfx_sets", {})
        known = []
        for t in bundled.get("torch", []):
            for i in t.get("indexes", []):
                g = sets.get(dict(t.get("gfx_set_on", {})).get(i, t.get("gfx_set", "")), {})
                if g.get("gfx") and g.get("status") in ("documented", "observed"):
                    known.append((_vkey(str(t["version"])), str(t["version"]), i, list(g["gfx"])))
        if known:
            _, version, i, targets = max(known)
            entry.update(gfx=targets, gfx_status="inferred", gfx_method="inferred",
                         gfx_note=f"carried over from torch {version}+{i} (PYTORCH_ROCM_ARCH only grows); "
                                  "not read from a wheel, treated as unknown when planning")
        else:
            entry.update(gfx=[], gfx_status="unknown", gfx_method="none")
        return entry

    @staticmethod
    def _pick(links: Iterable[Link], version: str, local: str) -> Tuple[List[Link], List[str]]:
        """The linux x86_64 wheels of ``version+local`` (best first) and every Python tag."""
        mine, tags = [], set()
        for link in links:
            w = wheel_info(link.filename)
            if w and w.public == version and w.local == local and not link.yanked:
                tags.add(w.python)
                if "x86_64" in w.platform and "linux" in w.platform:
                    mine.append((w.python, link))
        # a wheel with a PEP 658 metadata file first (one small read), then the newest CPython
        mine.sort(key=lambda p: (p[1].core_metadata is None, p[0].endswith("t"), -int(re.sub(r"\D", "", p[0]) or 0)))
        return [link for _, link in mine], sorted(tags, key=lambda t: (int(re.sub(r"\D", "", t) or 0), t))

    def _index(self, base: str, idx: str, versions: Sequence[str]):
        torch_links = self.page(join_url(base, idx, "torch"))
        companions = {d: self.optional_page(join_url(base, idx, d)) for d in ("torchvision", "torchaudio")}
        out, gfx = [], None
        for version in versions:
            wheels, pytags = self._pick(torch_links, version, idx)
            if not wheels:
                self.warnings.append(f"torch {version}+{idx} is listed on {redact(join_url(base, 'torch'))}/ "
                                     f"but has no linux x86_64 wheel on {redact(join_url(base, idx, 'torch'))}/")
                continue
            wheel = wheels[0]
            meta = self.metadata(wheel)
            pin = exact_pin(meta["requires_dist"], TRITON_DISTS)
            entry: Dict[str, Any] = {
                "version": version, "index": idx, "python_tags": pytags,
                "requires_python": valid_specifier(wheel.requires_python or meta["requires_python"]),
                "source": redact(wheel.url), "metadata_source": meta["source"], "learnt_at": self.now}
            if pin:
                entry.update(triton_dist=pin[0], triton_version=pin[1], triton_source=meta["source"])
                self._triton(base, idx, pin)
            else:
                self.warnings.append(f"torch {version}+{idx}: its metadata pins no triton build")
            for dist, links in companions.items():
                paired = self._companion(links, dist, version, idx)
                if paired:
                    entry[dist] = paired
            if self.opts.read_wheels:  # per release: PYTORCH_ROCM_ARCH changes between releases
                found = self._gfx(wheel)
                if found:
                    entry.update(gfx=found[0], gfx_method="wheel-directory")
                    if found[2]:  # per library: the targets a required library lacks
                        entry["library_gaps"] = found[2]
                    gfx = gfx or found  # versions come newest first: the index gets the newest list
            out.append(entry)
        return out, gfx

    def _gfx(self, wheel: Link) -> Optional[Tuple[List[str], str, Dict[str, List[str]]]]:
        try:
            entries, _ = self.members(wheel.url)
        except FetchError as exc:
            self.warnings.append(f"gfx targets not read from the wheel ({exc}); inferred instead")
            return None
        names = [e.name for e in entries]
        found = gfx_from_members(names)
        if not found:
            self.warnings.append(f"{redact(wheel.url)}: no per-gfx kernel files in the wheel; gfx targets inferred")
            return None
        return found, redact(wheel.url), library_gaps(names)

    def _companion(self, links: List[Link], dist: str, version: str, idx: str) -> Optional[str]:
        cands = {}
        for link in links:
            w = wheel_info(link.filename)
            if w and w.local == idx and not _vkey(w.public)[1].is_prerelease:
                cands.setdefault(w.public, link)
        for cv in sorted(cands, key=_vkey, reverse=True)[:MAX_COMPANION_READS]:
            wheels, _ = self._pick(links, cv, idx)
            if not wheels:
                continue
            spec = requirement_spec(self.metadata(wheels[0])["requires_dist"], "torch")
            if spec is not None and spec.contains(version, prereleases=False):
                return cv
        if cands:
            self.warnings.append(f"no {dist} on {idx} names torch {version} in its requirements")
        return None

    def _triton(self, base: str, idx: str, pin: Tuple[str, str]) -> None:
        dist, version = pin
        for url in (join_url(base, idx, dist), join_url(base, dist)):
            links = self.optional_page(url)
            if any((w := wheel_info(link.filename)) and w.version == version for link in links):
                return
        self.warnings.append(f"{dist}=={version} (pinned by torch on {idx}) was not found on {redact(base)}")

    # -------------------------------------------------------------------- AMD pip index
    def amd_index(self) -> Dict[str, Any]:
        base = self.opts.amd_index
        builds: Dict[str, set] = {}
        for link in self.page(join_url(base, "torch")):
            w = wheel_info(link.filename)
            if w and w.local and w.local.startswith("rocm"):
                builds.setdefault(w.version, set()).add(w.python)
        root = self.page(base)
        gfx = sorted({m.group(1) for link in root
                      for m in [re.match(r"^amd[-_]torch[-_]device[-_](gfx[0-9a-z-]+)$", link.filename.strip("/"))]
                      if m})
        return {"amd_index": {"source": redact(base + "/"), "learnt_at": self.now,
                              "torch": [{"version": v, "python_tags": sorted(t)}
                                        for v, t in sorted(builds.items(), key=lambda kv: _vkey(kv[0]))],
                              "device_gfx": gfx}}

    # -------------------------------------------------------------------- apt
    def apt(self) -> Dict[str, Any]:
        rel_data = _bundled("rocm_releases.toml")
        known = set()
        for r in rel_data.get("release", []):
            v = str(r.get("version", ""))
            known.add(re.sub(r"\.0$", "", v) if v.count(".") == 2 else v)
        from .ubuntu import codename

        versions = {str(u) for s in rel_data.get("series", {}).values() for u in s.get("ubuntu", [])}
        codenames = sorted({c for c in (codename(v) for v in versions) if c})
        listing = join_url(self.opts.rocm, "rocm", "apt") + "/"
        resp = self.fetch.get(listing)
        try:
            dirs = release_dirs(resp.body, resp.url)
        except ParseError as exc:
            raise RefreshError(f"{redact(listing)}: {exc}") from None
        new = [d for d in dirs if d not in known]
        if len(new) > MAX_APT_DIRS:
            self.warnings.append(f"{len(new)} unknown release directories on {redact(listing)}; the newest "
                                 f"{MAX_APT_DIRS} were read")
            new = new[-MAX_APT_DIRS:]
        return {"rocm_releases": [self._release_entry("legacy", d, [join_url(listing, d, "dists", c, "Release")
                                                                   for c in codenames]) for d in new]}

    def apt_core(self) -> Dict[str, Any]:
        out = []
        for profile in CORE_PROFILES:
            entry = self._release_entry("core-sdk", profile,
                                        [join_url(self.opts.rocm_core, profile, "dists", "stable", "Release")])
            if entry["suites"]:
                out.append(entry)
        if not out:
            raise RefreshError(f"{redact(self.opts.rocm_core)}: no Release file under any of "
                               + ", ".join(CORE_PROFILES))
        return {"core_releases": out}

    def _release_entry(self, layout: str, name: str, urls: Sequence[str]) -> Dict[str, Any]:
        suites = []
        for url in urls:
            try:
                text = self.fetch.get(url, limit=META_LIMIT).body.decode("utf-8", errors="replace")
            except FetchError as exc:
                if " HTTP 404" in str(exc) or " HTTP 403" in str(exc):
                    continue
                raise
            try:
                fields = release_file(text)
            except ParseError as exc:
                raise RefreshError(f"{redact(url)}: {exc}") from None
            suites.append({**fields, "source": redact(url)})
        version = next((s["Version"] for s in suites if s.get("Version")), name if layout == "legacy" else None)
        return {"layout": layout, "directory": name, "version": version, "suites": suites, "learnt_at": self.now}

    # -------------------------------------------------------------------- Docker Hub
    def docker(self) -> Dict[str, Any]:
        from . import docker as dk

        hub = self.opts.docker_hub
        repo = str(_bundled("docker.toml")["pytorch"]["repository"])
        known = {str(t["tag"]) for t in _bundled("docker.toml")["pytorch"].get("tag", [])}
        url: Optional[str] = join_url(hub, "v2", "repositories", repo, "tags") + "?page_size=100&ordering=last_updated"
        found, other, pages = [], 0, 0
        while url:
            if pages >= MAX_TAG_PAGES:
                self.warnings.append(f"Docker Hub: stopped after {MAX_TAG_PAGES} pages of tags")
                break
            resp = self.fetch.get(url, accept="application/json", limit=JSON_LIMIT)
            try:
                results, nxt = tags_page(resp.body)
            except ParseError as exc:
                raise RefreshError(f"{redact(url)}: {exc}") from None
            pages += 1
            for r in results:
                if r["name"] in known or dk.parse_tag(r["name"]) is None:
                    other += r["name"] not in known and r["name"] not in dk.moving_tags()
                    continue
                known.add(r["name"])
                found.append({"tag": r["name"], "last_updated": r["last_updated"], "digest": r["digest"],
                              "source": redact(url), "learnt_at": self.now})
            url = _on_base(nxt, hub) if nxt else None
        if other:
            self.warnings.append(f"Docker Hub: {other} {repo} tags do not follow the catalog's tag pattern and were skipped")
        return {"docker_tags": found}


def _on_base(url: str, base: str) -> str:
    """``url``'s path and query on the configured base: Docker Hub's ``next`` names
    hub.docker.com even when a mirror answered; the refresh never leaves the host it was given."""
    p, b = urllib.parse.urlsplit(url), urllib.parse.urlsplit(base)
    prefix = b.path.rstrip("/")
    path = p.path if p.path.startswith(prefix + "/") else prefix + p.path
    return urllib.parse.urlunsplit((b.scheme, b.netloc, path, p.query, ""))


_SECTIONS = {"pytorch": ("torch", "torch_indexes"), "amd-index": ("amd_index",), "apt": ("rocm_releases",),
             "apt-core": ("core_releases",), "docker": ("docker_tags",)}
_OPTION = {"pytorch": "pytorch", "amd-index": "amd_index", "apt": "rocm", "apt-core": "rocm_core",
           "docker": "docker_hub"}


def refresh(opts: Options, previous: Optional[Dict[str, Any]] = None, fetcher: Optional[Fetcher] = None,
            progress: Optional[Callable[[str], None]] = None) -> Dict[str, Any]:
    """A new overlay: the selected sources read now, the others carried over from ``previous``.
    Raises :class:`RefreshError` naming the source that failed."""
    opts.pytorch = (opts.pytorch or str(_bundled("torch_wheels.toml")["index"]["base_url"])).rstrip("/")
    opts.rocm = (opts.rocm or str(_bundled("rocm_releases.toml")["repo"]["base_url"])).rstrip("/")
    run = _Run(opts, fetcher or Fetcher(), _now())
    previous = previous or {}
    out: Dict[str, Any] = {"schema": SCHEMA, "created": run.now, "sources": {}, "torch": [], "torch_indexes": {},
                           "docker_tags": [], "rocm_releases": [], "core_releases": [], "amd_index": None}
    for name in SOURCES:
        if name not in opts.sources:
            if name in previous.get("sources", {}):
                out["sources"][name] = previous["sources"][name]
                for key in _SECTIONS[name]:
                    out[key] = previous.get(key, out[key])
            continue
        if progress:
            progress(f"reading {name}: {redact(getattr(opts, _OPTION[name]))}")
        before = run.fetch.requests
        try:
            section = getattr(run, name.replace("-", "_"))()
        except FetchError as exc:
            raise RefreshError(f"{name}: {exc}") from None
        except RefreshError as exc:
            raise RefreshError(f"{name}: {exc}") from None
        out.update(section)
        out["sources"][name] = {"url": redact(getattr(opts, _OPTION[name])), "read_at": run.now,
                                "requests": run.fetch.requests - before}
    idx = out.get("torch_indexes") or {}
    out["gfx_method"] = sorted({e.get("gfx_method", "none") for e in idx.values()}) if idx else []
    out["warnings"] = run.warnings
    return out
