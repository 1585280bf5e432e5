"""``rocm-wizard catalog refresh|status``: keep the catalog's release knowledge current.

    rocm-wizard catalog refresh [--pytorch-mirror URL] [--amd-index URL] [--rocm-mirror URL]
                                [--rocm-core-mirror URL] [--docker-hub URL] [--no-wheel-reads]
    rocm-wizard catalog status [--json]

``refresh`` reads the sources (all of them at their public addresses when no source option is
given; only the named ones when some are — an air-gapped site names its mirrors) and replaces the
local overlay atomically (``--overlay PATH`` or see :mod:`rocm_wizard.catalog.overlay`).  On any
failure it exits 1 with one line naming what failed and leaves the previous overlay untouched.
``status`` shows the bundled catalog's date, the overlay's date and sources, what the overlay
added and warnings (``--json`` for scripts).  Neither imports Rich or Textual.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List, Optional

from ..exitcodes import ERROR, OK, USAGE

PROG = "rocm-wizard catalog"
_SOURCE_OPTIONS = (("pytorch_mirror", "pytorch", "pytorch"), ("amd_index", "amd-index", "amd_index"),
                   ("rocm_mirror", "apt", "rocm"), ("rocm_core_mirror", "apt-core", "rocm_core"),
                   ("docker_hub", "docker", "docker_hub"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="catalog_action", metavar="ACTION", parser_class=type(parser))
    r = sub.add_parser("refresh", help="learn new releases from PyTorch's and AMD's indexes and Docker Hub",
                       description="Read the release sources and write the local catalog overlay.  With no "
                                   "source option every source is read at its public address; with some, "
                                   "only those.")
    r.add_argument("--pytorch-mirror", metavar="URL", help="mirror of https://download.pytorch.org/whl (same layout)")
    r.add_argument("--amd-index", metavar="URL", help="AMD's pip index (default https://stable.repo.amd.com/rocm/whl-next)")
    r.add_argument("--rocm-mirror", metavar="URL", help="mirror of https://repo.radeon.com (legacy apt layout)")
    r.add_argument("--rocm-core-mirror", metavar="URL",
                   help="base URL of a mirror of AMD's Core SDK host, as when planning (default "
                        "https://stable.repo.amd.com; its apt packages are read at rocm/core/packages below it)")
    r.add_argument("--docker-hub", metavar="URL", help="stands for https://hub.docker.com (tags API)")
    r.add_argument("--no-wheel-reads", action="store_true",
                   help="do not list wheels' zip directories (range requests) for gfx targets; infer them")
    r.add_argument("--timeout", type=float, default=20.0, metavar="SECONDS", help="per request (default 20)")
    r.add_argument("--overlay", metavar="PATH", help="overlay file to write (default: see 'catalog status')")
    s = sub.add_parser("status", help="what the catalog knows, from where, and how old it is")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.add_argument("--overlay", metavar="PATH", help="overlay file to read")


def _err(msg: str) -> None:
    print(f"{PROG}: {msg}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    action = getattr(args, "catalog_action", None)
    if getattr(args, "overlay", None):
        os.environ["ROCM_WIZARD_CATALOG_OVERLAY"] = os.path.abspath(args.overlay)
    if action == "refresh":
        return refresh(args)
    if action == "status":
        return status(args)
    _err("give an action: refresh or status")
    return USAGE


def refresh(args: argparse.Namespace) -> int:
    from ..catalog import overlay
    from ..catalog.refresh import Options, RefreshError
    from ..catalog.refresh import refresh as do_refresh
    from ..catalog.refresh_net import Fetcher
    from ..plan.steps._util import check_url

    opts = Options(read_wheels=not args.no_wheel_reads)
    chosen = []
    try:
        for attr, source, field in _SOURCE_OPTIONS:
            value = getattr(args, attr, None)
            if value:
                option = "--" + attr.replace("_", "-")
                if not str(value).startswith(("http://", "https://")):
                    raise ValueError(f"{option} must be an http or https URL")
                url = check_url(value, option).rstrip("/")
                if attr == "rocm_core_mirror":
                    # the same meaning as when planning: a mirror of AMD's Core SDK host, with AMD's paths
                    # below it; the packages are at rocm/core/packages there
                    url += "/rocm/core/packages"
                setattr(opts, field, url)
                chosen.append(source)
    except ValueError as exc:
        _err(str(exc))
        return USAGE
    if chosen:
        opts.sources = tuple(chosen)
    if not args.timeout > 0:
        _err("--timeout must be positive")
        return USAGE
    target = overlay.path()
    try:
        new = do_refresh(opts, previous=overlay.read(), fetcher=Fetcher(timeout=args.timeout),
                         progress=lambda m: print(f"{PROG} refresh: {m}", file=sys.stderr))
    except RefreshError as exc:
        _err(f"refresh failed, nothing changed: {exc}")
        return ERROR
    try:
        overlay.save(new, target)
    except OSError as exc:
        _err(f"refresh failed, nothing changed: cannot write {target}: {exc.strerror or exc}")
        return ERROR
    added = _added(new)
    _err(f"overlay written to {target}: {len(added['torch'])} torch builds, {len(added['indexes'])} wheel indexes, "
         f"{len(added['docker_tags'])} image tags, {len(added['rocm_releases'])} ROCm releases")
    for w in new.get("warnings", []):
        _err(f"warning: {w}")
    return OK


def _added(ov: Optional[Dict[str, Any]]) -> Dict[str, List[Any]]:
    """What the overlay adds to the bundled catalog as shipped now (an upgrade may know it already)."""
    from ..catalog.refresh import _bundled

    out: Dict[str, List[Any]] = {"torch": [], "indexes": [], "docker_tags": [], "rocm_releases": [],
                                 "amd_index": []}
    if not ov:
        return out
    wheels = _bundled("torch_wheels.toml")
    known = {(str(t["version"]), i) for t in wheels.get("torch", []) for i in t.get("indexes", [])}
    out["torch"] = [t for t in ov.get("torch", []) if (t.get("version"), t.get("index")) not in known]
    out["indexes"] = [dict(e, name=k) for k, e in sorted(ov.get("torch_indexes", {}).items())
                      if k not in wheels.get("indexes", {})]
    tags = {str(t["tag"]) for t in _bundled("docker.toml")["pytorch"].get("tag", [])}
    out["docker_tags"] = [t for t in ov.get("docker_tags", []) if t.get("tag") not in tags]
    out["rocm_releases"] = list(ov.get("rocm_releases", [])) + list(ov.get("core_releases", []))
    if ov.get("amd_index"):
        out["amd_index"] = [ov["amd_index"]]
    return out


def _gfx_text(e: Dict[str, Any]) -> str:
    method = e.get("gfx_method")
    if method == "wheel-directory":
        return f"gfx read from the wheel's zip directory: {', '.join(e.get('gfx', []))}"
    if method == "inferred":
        return f"gfx INFERRED ({e.get('gfx_note', '')}): {', '.join(e.get('gfx', []))}"
    return "gfx unknown"


def status(args: argparse.Namespace) -> int:
    from ..catalog import overlay

    ov = overlay.read()
    added = _added(ov)
    warn = overlay.stale_warning()
    warnings = overlay.problems() + (list(ov.get("warnings", [])) if ov else []) + ([warn] if warn else [])
    data = {
        "bundled": {"date": overlay.bundled_date()},
        "overlay": {"path": overlay.path(), "present": ov is not None,
                    "created": ov.get("created") if ov else None,
                    "sources": ov.get("sources", {}) if ov else {},
                    "gfx_method": ov.get("gfx_method", []) if ov else []},
        "knowledge_date": overlay.knowledge_date().isoformat(),
        "stale": warn is not None,
        "added": added,
        "warnings": warnings,
        "refresh": "rocm-wizard catalog refresh",
    }
    if args.json:
        print(json.dumps(data, indent=2, sort_keys=True))
        return OK
    out = [f"bundled catalog: {data['bundled']['date']}"]
    if ov is None:
        out.append(f"overlay: none ({data['overlay']['path']}); run 'rocm-wizard catalog refresh'")
    else:
        out.append(f"overlay: {data['overlay']['path']} ({ov.get('created')})")
        for name, src in sorted(data["overlay"]["sources"].items()):
            out.append(f"  {name:9} {src.get('url')}  read {src.get('read_at')}")
    out.append(f"knowledge as of: {data['knowledge_date']}")
    if any(added.values()):
        out.append("added by the overlay:")
    for t in added["torch"]:
        pin = f"{t['triton_dist']}=={t['triton_version']}" if t.get("triton_version") else "no triton pin"
        out.append(f"  torch {t['version']}+{t['index']}: torchvision {t.get('torchvision', '?')}, torchaudio "
                   f"{t.get('torchaudio', '?')}, {pin}, Python {' '.join(t.get('python_tags', []))} "
                   f"(from {t.get('metadata_source') or t.get('source')})")
    for e in added["indexes"]:
        out.append(f"  index {e['name']} (ROCm {e.get('rocm')}): {_gfx_text(e)}")
    for t in added["docker_tags"]:
        out.append(f"  image rocm/pytorch:{t['tag']} (from {t.get('source')})")
    for r in added["rocm_releases"]:
        suites = ", ".join(s.get("Codename") or s.get("Suite", "?") for s in r.get("suites", []))
        out.append(f"  ROCm {r.get('version') or r.get('directory')} ({r.get('layout')} apt; {suites or 'no Release file'})"
                   " - listed only: Release files do not say which GPUs or kernels it supports")
    for a in added["amd_index"]:
        out.append(f"  AMD pip index {a.get('source')}: torch {', '.join(t['version'] for t in a.get('torch', [])) or '-'};"
                   f" device packages for {', '.join(a.get('device_gfx', [])) or '-'}")
    for w in warnings:
        out.append(f"warning: {w}")
    from ..termsafe import clean_line

    # every line carries what a refresh read from the network (a learnt Python tag from a wheel's
    # file name, an index name): no terminal control sequence reaches the terminal
    print("\n".join(clean_line(line) for line in out))
    return OK
