"""AMD's Docker images (``data/docker.toml``).

API (stable)::

    docker.tags() -> [DockerTag]                 # known rocm/pytorch tags, newest ROCm first
    docker.parse_tag("rocm6.4.3_ubuntu24.04_py3.12_pytorch_release_2.6.0") -> DockerTag | None
    docker.pick_tag(rocm="6.4", ubuntu="24.04", python="3.12", torch="2.6") -> DockerTag | None
    docker.image(tag) -> "rocm/pytorch:<tag>"
    docker.run_flags() -> ("--cap-add=SYS_PTRACE", ...)   # AMD's documented flags
    docker.run_argv(image, extra=()) -> ["docker", "run", "-it", ...flags, image]
    docker.dev_images() -> DevImages (rocm/dev-ubuntu-*: repositories, tags, flags)
    docker.vllm_tags() -> [DockerTag]            # rocm/vllm tags: the docker way for a vLLM workload only
    docker.vllm_gpus() -> VllmGpus               # vLLM's own ROCm targets and the ROCm each needs
    docker.host_requirement() -> str

A filter given as a series (``rocm="6.4"``) matches any tag of that series; a full version matches
exactly.  Documented tags beat third-party ones, then newer ROCm, then newer torch.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Callable, Iterable, List, Optional, Tuple

from ._data import load, tup

FILE = "docker.toml"


@dataclass(frozen=True)
class DockerTag:
    tag: str
    rocm: str
    ubuntu: str
    python: str
    torch: str
    status: str = "unknown"
    sources: Tuple[str, ...] = ()
    gfx_observed: Tuple[str, ...] = ()
    note: str = ""
    gfx: Tuple[str, ...] = ()  # the image's GPUs where its ROCm is no apt release of the catalog (Core SDK)
    arch: str = ""  # rdna | cdna (rocm/vllm)
    vllm: str = ""
    repo: str = ""  # the repository when not rocm/pytorch (rocm/vllm)
    gfx_modules: Tuple[str, ...] = ()  # rocm/vllm: the only targets its prebuilt modules carry (observed)

    @property
    def image(self) -> str:
        return f"{self.repo or repository()}:{self.tag}"


@dataclass(frozen=True)
class DevImages:
    repositories: Tuple[str, ...]
    tags: Tuple[str, ...]
    run_flags: Tuple[str, ...]
    tags_status: str
    sources: Tuple[str, ...]
    note: str


def _pt() -> dict:
    return load(FILE)["pytorch"]


def repository() -> str:
    return str(_pt()["repository"])


def parse_tag(tag: object, status: str = "unknown", sources: Iterable[str] = (),
              gfx_observed: Iterable[str] = (), note: str = "", gfx: Iterable[str] = ()) -> Optional[DockerTag]:
    """A tag of the grammar (``rocm10.1.0_...``, ``_rdna``/``_cdna``, ``_vllm_X``); a ``_preview``
    tag is a preview whatever else is said."""
    text = str(tag or "").strip()
    if ":" in text:
        text = text.rsplit(":", 1)[1]
    m = re.match(_pt()["tag_pattern"], text)
    if not m:
        return None
    return DockerTag(text, m.group("rocm"), m.group("ubuntu"), m.group("python"), m.group("torch"),
                     "preview" if m.group("preview") else status, tup(sources), tup(gfx_observed), note,
                     tup(gfx), m.group("arch") or "", m.group("vllm") or "")


def _entries(section: dict, repo: str = "") -> List[DockerTag]:
    import dataclasses

    sets = load(FILE).get("gfx_sets", {})
    out = []
    for e in section.get("tag", []):
        t = parse_tag(e["tag"], e.get("status", "unknown"), e.get("sources", ()), e.get("gfx_observed", ()),
                      e.get("note", ""), sets.get(e.get("gfx_set", ""), {}).get("gfx", ()))
        if t is not None:
            if repo or e.get("gfx_modules"):
                t = dataclasses.replace(t, repo=repo, gfx_modules=tup(e.get("gfx_modules")))
            out.append(t)
    return out


def _key(t: DockerTag):
    from packaging.version import Version

    return (t.status == "documented", Version(t.rocm), Version(t.torch), Version(t.ubuntu))


@functools.lru_cache(maxsize=None)
def _tags() -> Tuple[DockerTag, ...]:
    out = _entries(_pt())
    from packaging.version import Version

    out.sort(key=lambda t: (Version(t.rocm), Version(t.torch)), reverse=True)
    return tuple(out)


def tags() -> List[DockerTag]:
    return list(_tags())


def _match(value: str, want: Optional[str]) -> bool:
    if want is None or want == "":
        return True
    want = str(want).strip().lower()
    for prefix in ("rocm", "py", "ubuntu"):
        if want.startswith(prefix):
            want = want[len(prefix):]
    a = value.split(".")
    b = want.split(".")
    if len(b) < len(a):
        return a[: len(b)] == b
    # "6.4.0" asked, tag says "6.4" (no trailing .0)
    return a + ["0"] * (len(b) - len(a)) == b


def pick_tag(rocm: Optional[str] = None, ubuntu: Optional[str] = None, python: Optional[str] = None,
             torch: Optional[str] = None, documented_only: bool = False,
             fits: Optional[Callable[[DockerTag], bool]] = None) -> Optional[DockerTag]:
    """Best known rocm/pytorch tag matching every filter given (None when none does); ``fits``: a
    further test of the host (its kernel driver's window)."""
    cands = [t for t in _tags()
             if _match(t.rocm, rocm) and _match(t.ubuntu, ubuntu) and _match(t.python, python)
             and _match(t.torch, torch) and (not documented_only or t.status == "documented")
             and t.status != "preview" and (fits is None or fits(t))]
    if not cands:
        return None
    return max(cands, key=_key)


def vllm_tags() -> List[DockerTag]:
    """rocm/vllm tags, newest ROCm first (each with ``repo`` "rocm/vllm")."""
    sec = load(FILE).get("vllm", {})
    out = _entries(sec, str(sec.get("repository", "rocm/vllm")))
    from packaging.version import Version

    out.sort(key=lambda t: (Version(t.rocm), Version(t.vllm or "0")), reverse=True)
    return out


def vllm_repository() -> str:
    return str(load(FILE).get("vllm", {}).get("repository", "rocm/vllm"))


@dataclass(frozen=True)
class VllmGpus:
    """vLLM's own ROCm targets (its install page) and what its images' tags say."""

    gpus: Tuple[str, ...]
    rocm_min: Tuple[Tuple[str, str], ...]
    status: str
    sources: Tuple[str, ...]
    arch_families: Tuple[Tuple[str, Tuple[str, ...]], ...]
    torch_note: str

    def min_rocm(self, gfx: str) -> Optional[str]:
        return dict(self.rocm_min).get(gfx)

    def arch_allows(self, arch: str, gfx: str) -> Optional[bool]:
        """Whether an image tagged ``_<arch>`` is for ``gfx`` (None: the tag names no arch)."""
        fams = dict(self.arch_families).get(arch)
        if not arch or fams is None:
            return None
        return gfx[:-2] in fams  # the generation: gfx942 -> gfx9, gfx1201 -> gfx12


def vllm_gpus() -> VllmGpus:
    sec = load(FILE).get("vllm", {})
    fams = tuple((str(k), tup(v)) for k, v in dict(sec.get("arch_families") or {}).items())
    return VllmGpus(tup(sec.get("gpus")), tuple((str(k), str(v)) for k, v in dict(sec.get("gpus_rocm_min") or {}).items()),
                    str(sec.get("gpus_status", "unknown")), tup(sec.get("gpus_sources")), fams,
                    str(sec.get("torch_note", "")))


def image(tag: object) -> str:
    if isinstance(tag, DockerTag):
        return tag.image
    t = str(tag)
    return t if "/" in t.split(":")[0] else f"{repository()}:{t}"


def run_flags() -> Tuple[str, ...]:
    return tup(_pt()["run_flags"])


def run_flags_sources() -> Tuple[str, ...]:
    return tup(_pt().get("run_flags_sources"))


def run_argv(image_ref: str, extra: Iterable[str] = (), wsl: bool = False) -> List[str]:
    return ["docker", "run", "-it", *(wsl_run_flags() if wsl else run_flags()), *list(extra), image(image_ref)]


def wsl_run_flags() -> Tuple[str, ...]:
    """AMD's container flags under WSL 2: /dev/dxg, DXCore and librocdxg instead of /dev/kfd and /dev/dri."""
    return tup(load(FILE)["wsl"]["run_flags"])


def wsl_run_flags_sources() -> Tuple[str, ...]:
    return tup(load(FILE)["wsl"].get("run_flags_sources"))


def wsl_host_requirement() -> str:
    return str(load(FILE)["wsl"]["requirement"])


def moving_tags() -> Tuple[str, ...]:
    return tup(_pt().get("moving_tags"))


def tag_sources() -> Tuple[str, ...]:
    return tup(_pt().get("sources"))


def host_requirement() -> str:
    return str(load(FILE)["host"]["requirement"])


def host_sources() -> Tuple[str, ...]:
    return tup(load(FILE)["host"].get("sources"))


@functools.lru_cache(maxsize=None)
def dev_images() -> DevImages:
    d = load(FILE)["dev"]
    return DevImages(tup(d["repositories"]), tup(d.get("tags")), tup(d.get("run_flags")),
                     d.get("tags_status", "unknown"), tup(d.get("sources")), d.get("complete_note", ""))
