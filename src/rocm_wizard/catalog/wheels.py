"""PyTorch ROCm wheels on download.pytorch.org and AMD's pip indexes (``data/torch_wheels.toml``).

API (stable; the plan engine builds on it)::

    wheels.indexes() -> [WheelIndex]                  # oldest ROCm first
    wheels.index("rocm6.2") -> WheelIndex | None
    wheels.index_url("rocm6.2", base=None) -> "https://download.pytorch.org/whl/rocm6.2"
    wheels.torch_releases() -> [TorchRelease]         # oldest first
    wheels.torch_release("2.5.1+rocm6.2") -> TorchRelease | None   # local label ignored
    wheels.indexes_for("2.4.1") -> [WheelIndex]       # best first: documented, newest ROCm
    wheels.wheel_gfx("2.5.1", "rocm6.1") -> GfxSet | None  # targets of that build (per release, per index)
    wheels.wheel_has_gfx("2.5.1", "rocm6.1", "gfx1101") -> False   (None when the list is unknown/inferred)
    wheels.libraries_lacking("2.8.0", "rocm6.4", "gfx906") -> [LibraryGap rocBLAS]  # per-library coverage
    wheels.wheel_for_python("2.4.1", "3.13") -> False    (None when unknown)
    wheels.index_has_gfx("rocm6.1", "gfx1101") -> True   # some torch release on the index carries it
    wheels.best_index("2.5.1", ["gfx1100"]) -> WheelIndex | None   # carries it and has every gfx
    wheels.triton_requirement("2.5.1") -> "pytorch-triton-rocm==3.1.0" | None
    wheels.triton_dist("2.10.0") -> "triton-rocm"
    wheels.index_of_version("2.5.1+rocm6.2") -> "rocm6.2" | None  (the local label = the index)
    wheels.build_of_version("2.5.1+cu121") -> "rocm" | "cuda" | "cpu" | None
    wheels.install_requirements(torch_version, index) -> ["torch==2.5.1", "torchvision==0.20.1", ...]
    wheels.pairings(gfx_targets) -> [(TorchRelease, WheelIndex)]  # every documented pairing that covers the targets
    wheels.bundles_userspace() -> True   # a wheel carries its own ROCm user space
    wheels.requirements(rel, idx, gfx_targets) -> ["torch[device-gfx1100]==2.12.0+rocm7.14.0", ...]
    wheels.policy_series() -> "7.2"      # the index series proposed when the host decides nothing

``base`` arguments take a mirror of https://download.pytorch.org/whl.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from ._data import join_url, load, pairs, tup

FILE = "torch_wheels.toml"
TRITON_DISTS = ("pytorch-triton-rocm", "triton-rocm", "triton", "pytorch-triton")


#: statuses of a gfx list or Python list that prove support; "inferred" and "unknown" do not
PROVEN = ("documented", "observed", "third-party")


@dataclass(frozen=True)
class GfxSet:
    """The gfx targets compiled into a build's wheels (its PYTORCH_ROCM_ARCH)."""

    name: str
    gfx: Tuple[str, ...]
    status: str
    sources: Tuple[str, ...]
    note: str = ""
    inferred: Tuple[str, ...] = ()  # members known only by inference (e.g. from PR dates)

    @property
    def proven(self) -> bool:
        return self.status in PROVEN and bool(self.gfx)

    def has(self, gfx: Optional[str]) -> Optional[bool]:
        """True/False from a proven list; what an inferred list (or member) holds answers None
        (never offer on a guess), what a known list lacks answers False; None for an unknown list."""
        if not gfx or not self.gfx:
            return None
        if gfx not in self.gfx:
            return False if self.status != "unknown" else None
        return True if self.proven and gfx not in self.inferred else None


@dataclass(frozen=True)
class WheelIndex:
    name: str  # "rocm6.2.4"
    rocm: str  # "6.2.4"
    status: str
    sources: Tuple[str, ...]
    note: str = ""
    userspace: str = "bundled"  # bundled (in torch/lib) | rocm-pip (the rocm pip wheels)
    kind: str = "pytorch"  # pytorch (download.pytorch.org/whl/<name>) | amd (AMD's own index at `home`)
    home: str = ""  # an AMD index's URL
    label: str = ""  # local version label of its wheels ("rocm7.14.0"); the name for PyTorch's
    rocm_pin: str = ""  # AMD: the rocm[libraries,device-*] release its torch needs

    @property
    def amd(self) -> bool:
        return self.kind == "amd"

    def url(self, base: Optional[str] = None) -> str:
        """The index URL; ``base`` is a mirror of download.pytorch.org/whl (not used for AMD's)."""
        return self.home.rstrip("/") if self.amd else index_url(self.name, base)


@dataclass(frozen=True)
class TorchRelease:
    version: str
    torchvision: Optional[str]
    torchaudio: Optional[str]
    indexes: Tuple[str, ...]  # in data order (official first)
    index_status: Tuple[Tuple[str, str], ...]
    triton_dist: Optional[str]
    triton_version: Optional[str]
    triton_status: str
    status: str
    sources: Tuple[str, ...]
    note: str = ""
    gfx_set: str = ""
    gfx_set_on: Tuple[Tuple[str, str], ...] = ()
    python: Tuple[str, ...] = ()
    python_status: str = "unknown"
    torchaudio_on: Tuple[Tuple[str, str], ...] = ()  # index -> torchaudio there, where it differs
    python_on: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()  # index -> Python versions ((): unknown)
    torchvision_on: Tuple[Tuple[str, str], ...] = ()  # index -> torchvision there, where it differs

    @property
    def installable(self) -> bool:
        """Whether the catalog knows enough to install it: an index and the exact pair."""
        return bool(self.indexes) and bool(self.torchvision) and bool(self.torchaudio) and self.status != "preview"

    @property
    def triton_requirement(self) -> Optional[str]:
        if self.triton_dist and self.triton_version:
            return f"{self.triton_dist}=={self.triton_version}"
        return None

    def status_on(self, index_name: str) -> Optional[str]:
        return dict(self.index_status).get(index_name)

    def torchaudio_for(self, index_name: str) -> Optional[str]:
        return dict(self.torchaudio_on).get(index_name, self.torchaudio)

    def torchvision_for(self, index_name: str) -> Optional[str]:
        return dict(self.torchvision_on).get(str(index_name or ""), self.torchvision)

    def python_for(self, index_name: Optional[str]) -> Tuple[str, ...]:
        return dict(self.python_on).get(str(index_name or ""), self.python)


@functools.lru_cache(maxsize=1024)  # (a Version is immutable: the catalog's few versions, asked for every torch seen)
def _v(text: str):
    from packaging.version import Version

    return Version(text)


def _parse(text: object):
    from packaging.version import InvalidVersion, Version

    try:
        return Version(str(text).strip())
    except (InvalidVersion, TypeError):
        return None


@functools.lru_cache(maxsize=None)
def _indexes() -> Tuple[WheelIndex, ...]:
    out = []
    for name, e in load(FILE).get("indexes", {}).items():
        default = "bundled" if load(FILE)["index"].get("bundles_userspace", True) else "rocm-pip"
        out.append(WheelIndex(name=name, rocm=str(e["rocm"]), status=e.get("status", "unknown"),
                              sources=tup(e.get("sources")), note=e.get("note", ""),
                              userspace=e.get("userspace", default), kind=e.get("kind", "pytorch"),
                              home=e.get("url", ""), label=e.get("label", name), rocm_pin=e.get("rocm_pin", "")))
    out.sort(key=lambda i: _v(i.rocm))
    return tuple(out)


@functools.lru_cache(maxsize=None)
def _torch() -> Tuple[TorchRelease, ...]:
    out = []
    for e in load(FILE).get("torch", []):
        out.append(TorchRelease(
            version=e["version"], torchvision=e.get("torchvision"), torchaudio=e.get("torchaudio"),
            indexes=tup(e.get("indexes")), index_status=pairs(e.get("index_status", {})),
            triton_dist=e.get("triton_dist"), triton_version=e.get("triton_version"),
            triton_status=e.get("triton_status", "unknown"), status=e.get("status", "unknown"),
            sources=tup(e.get("sources")), note=e.get("note", ""), gfx_set=e.get("gfx_set", ""),
            gfx_set_on=pairs(e.get("gfx_set_on", {})), python=tup(e.get("python")),
            python_status=e.get("python_status", "unknown"), torchaudio_on=pairs(e.get("torchaudio_on", {})),
            python_on=tuple((k, tup(v)) for k, v in sorted(e.get("python_on", {}).items())),
            torchvision_on=pairs(e.get("torchvision_on", {}))))
    out.sort(key=lambda t: _v(t.version))
    return tuple(out)


@functools.lru_cache(maxsize=None)
def _gfx_sets() -> Dict[str, GfxSet]:
    return {name: GfxSet(name=name, gfx=tup(e.get("gfx")), status=e.get("status", "unknown"),
                         sources=tup(e.get("sources")), note=e.get("note", ""), inferred=tup(e.get("inferred")))
            for name, e in load(FILE).get("gfx_sets", {}).items()}


def gfx_sets() -> Dict[str, GfxSet]:
    return dict(_gfx_sets())


@dataclass(frozen=True)
class LibraryGap:
    """Targets one bundled library of a wheel has no kernels for although torch's own arch list
    names them (``[[library]]`` of torch_wheels.toml).  A wheel's coverage is its arch list
    intersected with what every library ships: a gap here takes the target out."""

    library: str  # "rocBLAS"
    part: str  # "Tensile kernels (torch/lib/rocblas/library/TensileLibrary_*)"
    indexes: Tuple[str, ...]
    torch: Tuple[str, ...]  # torch releases it applies to (empty: every release on those indexes)
    lacks: Tuple[str, ...]  # "gfx906", or an exact target with features: "gfx90a:xnack+"
    status: str
    sources: Tuple[str, ...]
    note: str = ""
    # ROCm series whose own packages of the library lack the targets (AMD's rocm/pytorch images of
    # those releases carry them: the Docker way is checked against it as the wheels are)
    rocm: Tuple[str, ...] = ()

    def applies(self, t: "TorchRelease", index_name: str) -> bool:
        return index_name in self.indexes and (not self.torch or t.version in self.torch)

    def applies_to_rocm(self, rocm_version: object) -> bool:
        from . import releases

        series = releases.series_of(str(rocm_version or ""))
        return bool(series) and series in self.rocm

    def lacks_target(self, target: str) -> bool:
        """Whether ``target`` (bare ``gfx906`` or exact ``gfx90a:sramecc+:xnack-``) is one this
        library lacks: an entry without features matches every variant of its gfx; one with
        features matches a target whose features include them (a target whose features are not
        known matches a featured entry too: the wheel may not load on it)."""
        base, feats = split_target(target)
        for entry in self.lacks:
            ebase, efeats = split_target(entry)
            if ebase != base:
                continue
            if not efeats or not feats or efeats <= feats:
                return True
        return False


def split_target(target: object) -> Tuple[str, frozenset]:
    """``gfx90a:sramecc+:xnack-`` (or ``amdgcn-amd-amdhsa--gfx90a:...``) -> ("gfx90a", {sramecc+, xnack-})."""
    if isinstance(target, str) and len(target) <= 200:
        return _split_target_str(target)  # (the diagnosis asks it of the same few targets thousands of times)
    return _split_target(target)


@functools.lru_cache(maxsize=1024)
def _split_target_str(target: str) -> Tuple[str, frozenset]:
    return _split_target(target)


def _split_target(target: object) -> Tuple[str, frozenset]:
    from .support import normalize_gfx

    text = str(target or "").strip()
    base = normalize_gfx(text) or ""
    feats = frozenset(f.strip().lower() for f in text.split(":")[1:] if re.match(r"^[a-z]+[+-]$", f.strip().lower()))
    return base, feats


@functools.lru_cache(maxsize=None)
def _library_gaps() -> Tuple[LibraryGap, ...]:
    return tuple(LibraryGap(library=e["library"], part=e.get("part", ""), indexes=tup(e.get("indexes")),
                            torch=tup(e.get("torch")), lacks=tup(e.get("lacks")), status=e.get("status", "unknown"),
                            sources=tup(e.get("sources")), note=e.get("note", ""), rocm=tup(e.get("rocm")))
                 for e in load(FILE).get("library", []))


def library_gaps() -> List[LibraryGap]:
    return list(_library_gaps())


def libraries_lacking(torch_version: object, index_name: object, target: str) -> List[LibraryGap]:
    """The bundled libraries of ``torch_version``'s wheels on ``index_name`` with no kernels for
    ``target`` (bare gfx or exact target), per ``[[library]]``."""
    t = torch_version if isinstance(torch_version, TorchRelease) else torch_release(torch_version)
    if t is None:
        return []
    name = index_name.name if isinstance(index_name, WheelIndex) else str(index_name or "")
    return [g for g in _library_gaps() if g.applies(t, name) and g.lacks_target(target)]


def rocm_libraries_lacking(rocm_version: object, target: str) -> List[LibraryGap]:
    """The libraries of ROCm ``rocm_version``'s own packages (and so of AMD's images built on it)
    with no kernels for ``target``, per ``[[library]]`` ``rocm``."""
    return [g for g in _library_gaps() if g.applies_to_rocm(rocm_version) and g.lacks_target(target)]


def wheel_gfx(torch_version: object, index_name: object) -> Optional[GfxSet]:
    """The gfx targets of ``torch_version``'s wheels on ``index_name`` (None: release unknown)."""
    t = torch_version if isinstance(torch_version, TorchRelease) else torch_release(torch_version)
    if t is None:
        return None
    name = index_name.name if isinstance(index_name, WheelIndex) else str(index_name or "")
    key = dict(t.gfx_set_on).get(name, t.gfx_set)
    return _gfx_sets().get(key)


def wheel_has_gfx(torch_version: object, index_name: object, gfx: str) -> Optional[bool]:
    """Whether that build carries kernels for ``gfx`` (None: unknown, or only inferred): torch's arch
    list intersected with what each bundled library ships (``[[library]]``); ``gfx`` may be an exact
    target with features (``gfx90a:sramecc+:xnack-``).  A proven library gap answers False, an
    inferred one None."""
    from .support import normalize_gfx

    t = torch_version if isinstance(torch_version, TorchRelease) else torch_release(torch_version)
    if t is None:
        return None
    name = index_name.name if isinstance(index_name, WheelIndex) else str(index_name or "")
    # (the answer depends on the release, the index and the target alone, through the catalog's gfx sets and
    # library gaps, each read once: the doctor and the resolver ask the same triple thousands of times; an answer is
    # kept with the very objects it was worked out from, so other sets or gaps -- a test's -- are asked anew)
    key = (id(t), name, gfx)
    gaps, sets = _library_gaps(), _gfx_sets()
    got = _HAS_GFX.get(key)
    if got is not None and got[0] is t and got[1] is gaps and got[2] is sets:
        return got[3]
    s = wheel_gfx(t, name)
    answer = s.has(normalize_gfx(gfx)) if s is not None else None
    if answer is not False:
        gaps = libraries_lacking(t, name, gfx)
        if any(g.status in PROVEN for g in gaps):
            answer = False
        elif gaps:
            answer = None
    if len(_HAS_GFX) >= 4096:
        _HAS_GFX.clear()
    _HAS_GFX[key] = (t, gaps, sets, answer)  # (the release kept with its answer: its id is not reused while it is here)
    return answer


_HAS_GFX: Dict[Tuple[int, str, str], Tuple[TorchRelease, object, object, Optional[bool]]] = {}


def wheel_for_python(torch_version: object, python: object, index_name: object = None) -> Optional[bool]:
    """Whether ``torch_version`` has wheels for Python ``X.Y`` (on ``index_name`` when given; None:
    unknown; an inferred list answers False for what it lacks and None for what it holds)."""
    t = torch_version if isinstance(torch_version, TorchRelease) else torch_release(torch_version)
    m = re.match(r"^(\d+)\.(\d+)", str(python or ""))
    name = index_name.name if isinstance(index_name, WheelIndex) else index_name
    listed = t.python_for(name) if t is not None else ()
    if t is None or m is None or not (listed or t.python):
        return None
    if not listed:  # not known on that index: the release's own range still excludes what it lacks
        return False if f"{m.group(1)}.{m.group(2)}" not in t.python else None
    if f"{m.group(1)}.{m.group(2)}" not in listed:
        return False
    return True if t.python_status in PROVEN else None


def indexes() -> List[WheelIndex]:
    return list(_indexes())


def index(name: object) -> Optional[WheelIndex]:
    key = str(name or "").strip().rstrip("/").split("/")[-1].lower()
    for idx in _indexes():
        if idx.name == key:
            return idx
    return None


def base_url(base: Optional[str] = None) -> str:
    return (base or load(FILE)["index"]["base_url"]).rstrip("/")


def index_url(name: str, base: Optional[str] = None) -> str:
    """download.pytorch.org/whl/<name> (or ``base``/<name>); an AMD index's own URL."""
    idx = index(name)
    if idx is not None and idx.amd:
        return idx.url()
    return join_url(base_url(base), name)


def bundles_userspace() -> bool:
    return bool(load(FILE)["index"].get("bundles_userspace", True))


def bundles_sources() -> Tuple[str, ...]:
    return tup(load(FILE)["index"].get("bundles_sources"))


def torch_releases() -> List[TorchRelease]:
    return list(_torch())


def public_version(version: object) -> Optional[str]:
    """``2.5.1+rocm6.2`` -> ``2.5.1``; ``2.9.0.dev20250706+rocm6.4`` -> ``2.9.0.dev20250706``."""
    v = _parse(version)
    return v.public if v is not None else None


def torch_release(version: object) -> Optional[TorchRelease]:
    """The catalog entry of a torch version (local label ignored; pre-releases are not matched)."""
    v = _parse(version)
    if v is None:
        return None
    for t in _torch():
        if _v(t.version) == _v(v.public):
            return t
    return None


def index_of_version(version: object) -> Optional[str]:
    """The download.pytorch.org index named by a wheel's local label (``+rocm6.2`` -> ``rocm6.2``).

    AMD builds (``+rocm6.4.1.git1ded221d``) and nightly/TheRock labels give the label's ROCm part
    only when it names a known index; otherwise None."""
    v = _parse(version)
    if v is None or not v.local:
        return None
    label = v.local.replace("_", ".").lower()
    m = re.match(r"^(rocm\d+(?:\.\d+){1,2})$", label)
    if m:
        found = [i for i in _indexes() if i.label == m.group(1) and i.status != "preview"]
        if found:
            return found[0].name
    return None


def rocm_of_version(version: object) -> Optional[str]:
    """ROCm version in a torch version's local label, for any build (``+rocm6.4.1.git...`` -> 6.4.1,
    ``+rocm7.9.0rc20251007`` -> 7.9.0)."""
    m = re.search(r"\+rocm(\d+(?:\.\d+){0,2})", str(version or ""), re.I)
    return m.group(1) if m else None


def build_of_version(version: object) -> Optional[str]:
    """Build flavour from a torch version label: rocm, cuda or cpu (None when there is no label)."""
    text = str(version or "").lower()
    if "+" not in text:
        return None
    label = text.split("+", 1)[1]
    if label.startswith("rocm"):
        return "rocm"
    if label.startswith("cu"):
        return "cuda"
    if label.startswith("cpu"):
        return "cpu"
    return None


def indexes_for(torch_version: object) -> List[WheelIndex]:
    """Indexes that carry ``torch_version``: documented ones first, then newest ROCm first."""
    t = torch_release(torch_version)
    if t is None:
        return []
    found = [index(n) for n in t.indexes]
    found = [i for i in found if i is not None]
    rank = {"documented": 0, "observed": 1, "third-party": 2}
    return sorted(found, key=lambda i: (rank.get(t.status_on(i.name) or "", 3), -_index_order(i)))


def _index_order(idx: WheelIndex) -> int:
    return list(_indexes()).index(idx)


def releases_on(index_name: object) -> List[TorchRelease]:
    name = index_name.name if isinstance(index_name, WheelIndex) else str(index_name or "")
    return [t for t in _torch() if name in t.indexes]


def index_has_gfx(index_name: object, gfx: str) -> Optional[bool]:
    """Whether some torch release on the index carries kernels for ``gfx`` (None: unknown)."""
    answers = [wheel_has_gfx(t, index_name, gfx) for t in releases_on(index_name)]
    if any(a is True for a in answers):
        return True
    if answers and all(a is False for a in answers):
        return False
    return None


def best_index(torch_version: object, gfx_targets: Sequence[str]) -> Optional[WheelIndex]:
    """The best index carrying ``torch_version`` whose wheels have kernels for every target."""
    for idx in indexes_for(torch_version):
        if all(wheel_has_gfx(torch_version, idx, g) for g in gfx_targets):
            return idx
    return None


def triton_requirement(torch_version: object) -> Optional[str]:
    t = torch_release(torch_version)
    return t.triton_requirement if t else None


def triton_dist(torch_version: object) -> Optional[str]:
    t = torch_release(torch_version)
    return t.triton_dist if t else None


def policy_series() -> str:
    return str(load(FILE).get("policy", {}).get("series", ""))


def policy_torch() -> str:
    """The torch release the policy means to propose (offered only where its kernels are proven)."""
    return str(load(FILE).get("policy", {}).get("torch", ""))


def policy_sources() -> Tuple[str, ...]:
    return tup(load(FILE).get("policy", {}).get("sources"))


def requirements(t: TorchRelease, idx: WheelIndex, gfx_targets: Sequence[str] = ()) -> List[str]:
    """Exact pins of ``t`` on ``idx``: torch, torchvision, torchaudio with the index's local label
    and the Triton build torch's metadata requires; on AMD's indexes torch and torchvision with the
    GPUs' ``device-gfxNNNN`` extras (``device-all`` with no GPU known) and ``rocm[libraries,
    device-...]`` pinned to the index's release, no Triton pin (not read there)."""
    label = f"+{idx.label}" if idx.label else ""
    extras = ""
    if idx.amd:
        extras = "[" + ",".join(f"device-{g}" for g in dict.fromkeys(gfx_targets) or ["all"]) + "]"
    out = [f"torch{extras}=={t.version}{label}"]
    vision = t.torchvision_for(idx.name)
    if vision:
        out.append(f"torchvision{extras}=={vision}{label}")
    audio = t.torchaudio_for(idx.name)
    if audio:
        out.append(f"torchaudio=={audio}{label}")
    if idx.amd and idx.rocm_pin:
        out.append(f"rocm[libraries,{extras[1:-1]}]=={idx.rocm_pin}")
    elif t.triton_requirement:
        out.append(t.triton_requirement)
    return out


def install_requirements(torch_version: object, with_triton: bool = True) -> List[str]:
    """Exact requirement strings for torch + torchvision + torchaudio (+ triton) of a release."""
    t = torch_release(torch_version)
    if t is None:
        return []
    reqs = [f"torch=={t.version}"]
    if t.torchvision:
        reqs.append(f"torchvision=={t.torchvision}")
    if t.torchaudio:
        reqs.append(f"torchaudio=={t.torchaudio}")
    if with_triton and t.triton_requirement:
        reqs.append(t.triton_requirement)
    return reqs


def pairings(gfx_targets: Sequence[str], documented_only: bool = False) -> List[Tuple[TorchRelease, WheelIndex]]:
    """Every (torch release, index) whose wheels cover all ``gfx_targets``, newest torch first."""
    out = []
    for t in reversed(_torch()):
        for idx in indexes_for(t.version):
            if documented_only and t.status_on(idx.name) != "documented":
                continue
            if t.installable and all(wheel_has_gfx(t, idx, g) for g in gfx_targets):
                out.append((t, idx))
    return out


def indexes_with_gfx(gfx: str) -> List[WheelIndex]:
    return [i for i in _indexes() if index_has_gfx(i, gfx)]
