"""What ``--path clean`` may remove: old ROCm trees no package owns and nothing points at, venvs a
torch plan left behind (the versioned venvs and the moved-aside ones its link no longer names), and
the caches the stack fills (pip, uv, Triton, MIOpen, TorchInductor) of the GPU user.  Found here,
listed with sizes and reasons, removed only when picked (``--clean ID``, answers ``clean_items``).

Never a candidate: the ROCm tree ``/opt/rocm`` or ``/opt/rocm/core`` points at, the venv a link
names, anything reached through a link, anything on another file system than its parent."""
from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from typing import Iterable, List, Optional, Tuple

CACHES = (  # (id, path under the home or absolute with {user}, what it holds); sources: each tool's docs
    ("pip", "~/.cache/pip", "pip's download and wheel cache (pip cache dir)"),
    ("uv", "~/.cache/uv", "uv's cache (uv cache dir)"),
    ("triton", "~/.triton/cache", "Triton's compiled kernels (TRITON_CACHE_DIR default)"),
    ("miopen", "~/.cache/miopen", "MIOpen's compiled kernel cache (MIOPEN_CUSTOM_CACHE_DIR default)"),
    ("miopen-db", "~/.config/miopen", "MIOpen's user performance database (find results)"),
    ("inductor", "/tmp/torchinductor_{user}", "TorchInductor's generated code and kernels"),
)
WALK_LIMIT = 500_000  # entries counted per item before the size is given as "at least"


@dataclass
class Item:
    id: str  # what --clean takes: cache:pip, venv:/home/u/venv-torch2.4.1-rocm6.1, rocm:/opt/rocm-6.2.0
    path: str
    kind: str  # cache | venv | rocm-tree
    why: str
    owner: Optional[str] = None  # the account that removes it (a user's home: that user; None: root)
    size: Optional[int] = None
    exact: bool = True  # False: the walk stopped at WALK_LIMIT entries

    @property
    def size_text(self) -> str:
        if self.size is None:
            return "size unknown"
        n = float(self.size)
        for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
            if n < 1024 or unit == "TiB":
                text = f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
                return text if self.exact else "at least " + text
            n /= 1024
        return ""


def _p(root: str, path: str) -> str:
    return path if root in ("", "/") else os.path.join(root, path.lstrip("/"))


def size_of(path: str) -> Tuple[int, bool]:
    """Bytes allocated under ``path`` (no link followed, one file system); (bytes, exact)."""
    total, seen = 0, 0
    try:
        top = os.lstat(path)
    except OSError:
        return 0, True
    stack = [path]
    while stack:
        d = stack.pop()
        try:
            with os.scandir(d) as it:
                for e in it:
                    seen += 1
                    if seen > WALK_LIMIT:
                        return total, False
                    try:
                        st = e.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    total += st.st_blocks * 512
                    if stat.S_ISDIR(st.st_mode) and st.st_dev == top.st_dev:
                        stack.append(e.path)
        except OSError:
            continue
    return total + top.st_blocks * 512, True


def _is_real_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _home(user: str, root: str) -> Optional[str]:
    try:
        with open(_p(root, "/etc/passwd"), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                f = line.rstrip("\n").split(":")
                if len(f) >= 6 and f[0] == user:
                    return f[5] or None
    except OSError:
        return None
    return None


def _owner_name(path: str, root: str) -> Optional[str]:
    try:
        uid = os.lstat(path).st_uid
    except OSError:
        return None
    if uid == 0:
        return None
    try:
        with open(_p(root, "/etc/passwd"), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                f = line.split(":")
                if len(f) >= 3 and f[2] == str(uid):
                    return f[0]
    except OSError:
        pass
    return None


def _active_trees(system, root: Optional[str]) -> List[str]:
    rocm = getattr(system, "rocm", None)
    out = []
    for t in (getattr(rocm, "opt_rocm_target", None), getattr(rocm, "core_target", None)):
        if t:
            out.append(os.path.normpath(t if t.startswith("/") else os.path.join("/opt", t)))
    for link in ("/opt/rocm", "/opt/rocm/core"):
        if root is None:
            break
        real = os.path.realpath(_p(root, link))
        if root not in ("", "/") and real.startswith(root.rstrip("/") + "/"):
            real = real[len(root.rstrip("/")):]
        out.append(os.path.normpath(real))
    for inst in getattr(rocm, "installs", []) or []:
        if inst.active and inst.path:
            out.append(os.path.normpath(inst.path))
    return out


def rocm_trees(system, root: Optional[str] = "/") -> List[Item]:
    """Old ROCm trees; ``root`` None: from the System alone (a snapshot), no file looked at."""
    active = set(_active_trees(system, root))
    paths = {os.path.normpath(i.path) for i in getattr(getattr(system, "rocm", None), "installs", []) or []
             if i.path and re.match(r"^/opt/rocm-\d", i.path)}
    if root is not None:
        try:
            paths |= {"/opt/" + n for n in os.listdir(_p(root, "/opt")) if re.match(r"^rocm-\d[\w.+-]*$", n)}
        except OSError:
            pass
    out = []
    for path in sorted(paths):
        if path in active or any(a.startswith(path + "/") for a in active):
            continue
        if root is not None and not _is_real_dir(_p(root, path)):
            continue
        out.append(Item(f"rocm:{path}", path, "rocm-tree",
                        "a ROCm tree /opt/rocm does not point at (removed only if no package owns it: "
                        "a packaged tree goes with apt-get purge of its packages)"))
    return out


def superseded_venvs(system, root: str = "/") -> List[Item]:
    """Venvs a torch plan left beside a link it made: ``P-torch...`` and ``P-previous...`` next to
    the link ``P``, other than the one ``P`` names (``plan/build.py``: the new venv and the one moved
    aside)."""
    out, seen = [], set()
    for env in getattr(system, "torch", []) or []:
        link = os.path.normpath(env.path) if env.path else None
        if not link or link in seen:
            continue
        seen.add(link)
        if not os.path.islink(_p(root, link)):
            continue
        target = os.path.normpath(os.path.join(os.path.dirname(link), os.readlink(_p(root, link))))
        parent, base = os.path.dirname(link), os.path.basename(link)
        try:
            names = sorted(os.listdir(_p(root, parent)))
        except OSError:
            continue
        for n in names:
            path = os.path.join(parent, n)
            if not (n.startswith(base + "-torch") or n.startswith(base + "-previous")) or path == target:
                continue
            if not _is_real_dir(_p(root, path)) or not os.path.isfile(_p(root, path + "/pyvenv.cfg")):
                continue
            out.append(Item(f"venv:{path}", path, "venv",
                            f"a venv a torch plan left beside {link}, which now names {target}",
                            owner=_owner_name(_p(root, path), root)))
    return out


def caches(user: Optional[str], root: str = "/") -> List[Item]:
    if not user or not re.fullmatch(r"[a-z_][a-z0-9_.-]*\$?", user):
        return []
    home = _home(user, root)
    out = []
    for cid, spec, what in CACHES:
        if spec.startswith("~/"):
            if not home:
                continue
            path = os.path.normpath(os.path.join(home, spec[2:]))
        else:
            path = spec.format(user=user)
        if not _is_real_dir(_p(root, path)):
            continue
        out.append(Item(f"cache:{cid}", path, "cache", what + " (rebuilt on demand)",
                        owner=_owner_name(_p(root, path), root)))
    return out


def candidates(system, user: Optional[str], root: str = "/", sizes: bool = True) -> List[Item]:
    items = rocm_trees(system, root) + superseded_venvs(system, root) + caches(user, root)
    if sizes:
        for it in items:
            it.size, it.exact = size_of(_p(root, it.path))
    return items


def pick(items: Iterable[Item], wanted: Iterable[str]) -> Tuple[List[Item], List[str]]:
    """The items ``wanted`` names (an id, a path, or ``all``); and the names that match nothing."""
    items = list(items)
    wanted = [w for w in wanted if w]
    if "all" in wanted:
        return items, [w for w in wanted if w != "all" and not any(w in (i.id, i.path) for i in items)]
    chosen = [i for i in items if i.id in wanted or i.path in wanted]
    unknown = [w for w in wanted if not any(w in (i.id, i.path) for i in items)]
    return chosen, unknown
