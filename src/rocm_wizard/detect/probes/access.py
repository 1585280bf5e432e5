"""Access probe: who runs this, in which groups, whether ``/dev/kfd`` and ``/dev/dri/renderD*``
exist and are usable, the GPU-related environment, and whether ``/opt/rocm/bin`` is on PATH.

Groups come from ``id`` (the groups of this *session*) and ``id USER`` (the group database); when
they differ, the user was added to a group after logging in and must log in again.  Without
``id``, ``/proc/self/status`` (``Groups:``) and ``/etc/group`` are read instead.
"""
from __future__ import annotations

import os
import re
import stat as _stat
from typing import Dict, List, Optional, Tuple

from ...model import AccessInfo, DeviceNode, System
from ..parsers._core_text import lazy, line_spans_with
from ..sources import LiveSource, Raw, Source
from ._core_util import env, listdir, read_text, run, stat

# environment names that describe the session, not the GPU stack: used by other probes, not
# listed in access.env
CONTEXT_ENV = ("PATH", "HOME", "USER", "SUDO_USER", "SSH_CONNECTION", "TMUX", "STY", "WSL_DISTRO_NAME", "PWD",
               "VIRTUAL_ENV", "CONDA_PREFIX")
_ROCM_BIN = lazy(r"^/opt/rocm(?:-\d+(?:\.\d+)*)?/bin/?$")
_ID_GROUP = lazy(r"(\d+)\(([^)]*)\)")


def parse_id(text: str) -> Tuple[Optional[str], Optional[int], List[Tuple[int, str]]]:
    """``uid=1000(ann) gid=1000(ann) groups=1000(ann),44(video),992(render)`` ->
    ("ann", 1000, [(1000, "ann"), (44, "video"), (992, "render")])."""
    user = uid = None
    groups: List[Tuple[int, str]] = []
    if not isinstance(text, str):
        return None, None, []
    m = re.search(r"uid=(\d+)\(([^)]*)\)", text)
    if m:
        uid, user = int(m.group(1)), m.group(2)
    gm = re.search(r"groups=(\S+)", text)
    if gm:
        groups = [(int(g), n) for g, n in _ID_GROUP.findall(gm.group(1))]
    else:
        pm = re.search(r"gid=(\d+)\(([^)]*)\)", text)
        if pm:
            groups = [(int(pm.group(1)), pm.group(2))]
    return user, uid, groups


def parse_group_file(text: str) -> Dict[int, Tuple[str, List[str]]]:
    """/etc/group -> gid -> (name, members)."""
    out: Dict[int, Tuple[str, List[str]]] = {}
    for line in (text or "").splitlines():
        parts = line.strip().split(":")
        if len(parts) < 3 or not parts[2].isdigit():
            continue
        members = [m for m in (parts[3].split(",") if len(parts) > 3 else []) if m]
        out.setdefault(int(parts[2]), (parts[0], members))
    return out


class _Groups:
    """Lazy gid -> name lookup: ``id`` output first, /etc/group when needed."""

    def __init__(self, source: Source, known: Dict[int, str]) -> None:
        self.source = source
        self.known = dict(known)
        self._file: Optional[Dict[int, Tuple[str, List[str]]]] = None
        self.file_source: Optional[str] = None

    def table(self) -> Dict[int, Tuple[str, List[str]]]:
        if self._file is None:
            raw = read_text(self.source, "/etc/group", 512 * 1024)
            self._file = parse_group_file(raw.text) if raw is not None else {}
            self.file_source = raw.source if raw is not None else None
        return self._file

    def name(self, gid: int) -> Optional[str]:
        if gid in self.known:
            return self.known[gid]
        entry = self.table().get(gid)
        return entry[0] if entry else None


# an override the user shows setting: "export HSA_OVERRIDE_GFX_VERSION=12.0.1" (a profile line),
# "HSA_OVERRIDE_GFX_VERSION=10.3.0 ./ollama serve", Environment="HSA_OVERRIDE_GFX_VERSION=11.0.0"
# (a systemd unit), Ollama's "server config env=map[... HSA_OVERRIDE_GFX_VERSION:11.0.0 ...]"
_OVERRIDE_SET = lazy(r"^(?:[$#]\s+)?(?:export\s+|Environment=\"?)?(?P<k>HSA_OVERRIDE_GFX_VERSION(?:_\d+)?)=[\"']?(?P<v>\d+\.\d+\.\d+)[\"']?(?:\s|$)")
# anywhere in a line: "-e HSA_OVERRIDE_GFX_VERSION=10.3.0" (docker run), "ENV HSA_OVERRIDE_GFX_VERSION=11.0.0"
# (a Dockerfile), "HSA_OVERRIDE_GFX_VERSION: \"10.3.0\"" (compose), os.environ["HSA_OVERRIDE_GFX_VERSION"] =
# "10.3.0" (Python, a notebook), $Env:HSA_OVERRIDE_GFX_VERSION = "10.1.0" (PowerShell), "running comfyui with
# HSA_OVERRIDE_GFX_VERSION=12.0.1" (a sentence): the variable's exact name and a major.minor.stepping value
_OVERRIDE_ANY = lazy(r"(?<![\w])(?P<k>HSA_OVERRIDE_GFX_VERSION(?:_\d+)?)[\"'\]]*\s*[=:]\s*[\"']?(?P<v>\d+\.\d+\.\d+)(?![\d.]*\d)")
_OVERRIDE_OLLAMA = lazy(r"\bserver config env=\\?\"?map\[.*?\b(?P<k>HSA_OVERRIDE_GFX_VERSION(?:_\d+)?):(?P<v>\d+\.\d+\.\d+)[ \]]")


def _pasted_overrides(source: Source, a: AccessInfo) -> None:
    """HSA_OVERRIDE_GFX_VERSION[_<n>] as a paste shows it set, when the environment read has none."""
    if any(k.startswith("HSA_OVERRIDE_GFX_VERSION") for k in a.env):
        return
    from ._core_util import paste_label, pastes

    for name, text in pastes(source):
        if "HSA_OVERRIDE_GFX_VERSION" not in text:
            continue
        t = text.replace("\r", "\n")
        for start, end in line_spans_with(t, ("HSA_OVERRIDE_GFX_VERSION",)):  # (the lines that hold it, in order)
            raw = t[start:end]
            if len(raw) > 4000:
                continue
            line = raw.strip(" \t`>")
            m = (_OVERRIDE_SET.match(line) or (_OVERRIDE_OLLAMA.search(line) if "server config" in line else None)
                 or _OVERRIDE_ANY.search(line))
            if m and m.group("k") not in a.env:
                a.env[m.group("k")] = m.group("v")
                a.sources.setdefault("env", paste_label(name) + " ('%s')" % line[:120])
                a.note("%s=%s is taken from %s; it is what the user set, not this session's environment"
                       % (m.group("k"), m.group("v"), paste_label(name)))


# s9-helds: the visible-device masks the user shows setting, read like the override above.  ROCr applies
# ROCR_VISIBLE_DEVICES first and HIP numbers what is left for HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES
# (ROCm's "GPU isolation techniques"; torch/cuda/__init__.py _parse_visible_devices), so doctor needs both as set.
# Forms: "export ROCR_VISIBLE_DEVICES=1", "ROCR_VISIBLE_DEVICES=0 ./llama-server", Environment="HIP_VISIBLE_DEVICES=1"
# (a systemd unit), "-e HIP_VISIBLE_DEVICES=1" (docker run), "ENV ROCR_VISIBLE_DEVICES=0", os.environ["..."] = "1",
# "HIP_VISIBLE_DEVICES:1" / "ROCR_VISIBLE_DEVICES: \"0\"" (a deployment's env list, compose), and Ollama's
# "server config env=map[... ROCR_VISIBLE_DEVICES:1,0 ...]" (what the server was started with).  Not read: a
# commented-out line (#Environment=..., "# REMOVED ... ROCR_VISIBLE_DEVICES=..."), and the masks Ollama sets itself
# for its discovery runners (extraEnvs=map[...], extra_envs=..., msg=subprocess ...): they are not the user's.
_VISIBLE_KEYS = ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL")
# (s14-heldcf) an index may be negative: "CUDA_VISIBLE_DEVICES=-1" is the usual way to hide every GPU of a
# process, and HIP reads it too (HIP's environment-variable reference: "HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES")
_VISIBLE_VALUE = r"(?P<v>(?:-?\d+|GPU-[0-9A-Za-z-]+)(?:\s*,\s*(?:-?\d+|GPU-[0-9A-Za-z-]+))*)"
_VISIBLE_SET = lazy(r"^(?:\$\s+)?(?:-\s+)?(?:export\s+|set\s+|Environment=\"?|ENV\s+)?(?P<k>(?:ROCR|HIP|CUDA)_VISIBLE_DEVICES|GPU_DEVICE_ORDINAL)"
                    r"[\"']?\s*(?:=|:\s*)[\"']?" + _VISIBLE_VALUE + r"[\"']?(?:\s|$)")
_VISIBLE_ANY = lazy(r"(?:(?<![\w-])(?:-e|--env)\s+|os\.environ\[[\"']|\$Env:)(?P<k>(?:ROCR|HIP|CUDA)_VISIBLE_DEVICES|GPU_DEVICE_ORDINAL)"
                    r"[\"'\]]*\s*=\s*[\"']?" + _VISIBLE_VALUE)
_VISIBLE_OLLAMA = lazy(r"(?<![\w])(?P<k>(?:ROCR|HIP|CUDA)_VISIBLE_DEVICES|GPU_DEVICE_ORDINAL):" + _VISIBLE_VALUE + r"[ \]]")
_NOT_USERS = ("extraenvs=", "extra_envs=", "msg=subprocess", "starting runner")


def _pasted_visible(source: Source, a: AccessInfo) -> None:
    """ROCR_/HIP_/CUDA_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL as a paste shows them set, when the environment
    read has none of them."""
    if any(k in a.env for k in _VISIBLE_KEYS):
        return
    from ._core_util import paste_label, pastes

    found: Dict[str, Tuple[str, str]] = {}
    for name, text in pastes(source):
        if "VISIBLE_DEVICES" not in text and "GPU_DEVICE_ORDINAL" not in text:
            continue
        t = text.replace("\r", "\n")
        size = len(t)
        # (only the lines that hold a key or Ollama's map start can give one: found by str.find, in order)
        for start, end in line_spans_with(t, ("server config", "VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL")):
            raw = t[start:end]
            if "server config" in raw and "map[" in raw and not raw.rstrip().endswith(("]\"", "]")):
                # Ollama's one-line env map wrapped by a terminal or a copy: its continuation lines belong to it
                # (the next three lines, as far as there are any)
                for _ in range(3):
                    if end >= size:
                        break
                    nxt = t.find("\n", end + 1)
                    nxt = size if nxt < 0 else nxt
                    more = t[end + 1:nxt]
                    end = nxt
                    raw += more
                    if more.rstrip().endswith(("]\"", "]")):
                        break
            if ("VISIBLE_DEVICES" not in raw and "GPU_DEVICE_ORDINAL" not in raw) or len(raw) > 8000:
                continue
            line = raw.strip(" \t`>")
            low = line.lower()
            if line.startswith("#") and not line.startswith("# export "):
                continue  # a comment (or a root prompt without export: too close to a comment to tell)
            if "server config" in line:
                # the map lists every key once (empty when unset): take each set one
                hits = list(_VISIBLE_OLLAMA.finditer(line.split("map[", 1)[1])) if "map[" in line else []
            elif any(w in low for w in _NOT_USERS):
                continue
            else:
                m = _VISIBLE_SET.match(line) or _VISIBLE_ANY.search(line)
                hits = [m] if m else []
            for m in hits:
                k, v = m.group("k"), re.sub(r"\s+", "", m.group("v"))
                if k not in found:
                    found[k] = (v, paste_label(name) + " ('%s')" % line[:120])
    for k, (v, where) in found.items():
        a.env[k] = v
        a.sources.setdefault("visible_devices", where)
        a.note("%s=%s is taken from %s; it is what the user set, not this session's environment" % (k, v, where))


def probe(source: Source, system: System) -> None:
    a: AccessInfo = system.access
    e = env(source)
    a.env = {k: v for k, v in sorted(e.items()) if k not in CONTEXT_ENV}
    if a.env:
        a.sources["env"] = "env"
    _pasted_overrides(source, a)
    _pasted_visible(source, a)
    path = e.get("PATH")
    if path is not None:
        a.put("path_has_rocm_bin", any(_ROCM_BIN.match(p) for p in path.split(":")), "env:PATH")

    raw = _session_id(source) or run(source, ["id"])
    user, uid, groups = parse_id(raw.text) if raw.ok else (None, None, [])
    session_src = raw.source if raw.ok else None
    if not groups:
        groups, session_src, uid = _groups_from_proc(source, uid)
    lookup = _Groups(source, {g: n for g, n in groups if n})
    if user is None:
        user = e.get("USER") or None
        a.put("user", user, "env:USER")
    else:
        a.put("user", user, raw.source)
    names = [lookup.name(g) or str(g) for g, _ in groups]
    if groups:
        a.groups = names
        a.sources["groups"] = session_src or "cmd:id"
        a.put("in_render", "render" in names, a.sources["groups"])
        a.put("in_video", "video" in names, a.sources["groups"])
    _database_groups(source, a, user, uid, names, lookup)
    if uid == 0:
        a.note("running as root")
    elif e.get("SUDO_USER"):
        a.note("running through sudo for %s" % e["SUDO_USER"])

    if session_src is None:
        # neither ``id`` nor /proc answered: this is a set of pastes, not a view of the system, so
        # the device nodes are unknown rather than missing
        return
    a.kfd = _node(source, "/dev/kfd", lookup, uid, [g for g, _ in groups])
    if not a.kfd.exists:
        a.kfd.note("/dev/kfd is missing: the amdgpu driver's compute interface (KFD) is not available here")
    for name in listdir(source, "/dev/dri"):
        if name.startswith("renderD"):
            a.render_nodes.append(_node(source, "/dev/dri/" + name, lookup, uid, [g for g, _ in groups]))


def _session_id(source: Source) -> Optional[Raw]:
    """What ``id`` prints for this process, from the process's own credentials (``getgroups`` and
    the user and group databases, as ``id`` reads them), on the live system only and only where
    real and effective ids agree (else ``id`` runs): one process fewer on detection's timeline.
    coreutils' ``print_group_list``: the gid first, then each supplementary group other than it;
    a group without a name is printed as its number alone."""
    if type(source) is not LiveSource or source.root not in ("", "/") or not source.commands:
        return None
    try:
        import grp
        import pwd

        uid, gid = os.getuid(), os.getgid()
        if uid != os.geteuid() or gid != os.getegid():
            return None
        extra = [g for g in os.getgroups() if g != gid]
    except (ImportError, OSError, AttributeError):
        return None

    def named(n: int, lookup) -> str:
        try:
            return "%d(%s)" % (n, lookup(n)[0])
        except (KeyError, OverflowError):
            return str(n)

    text = "uid=%s gid=%s groups=%s\n" % (named(uid, pwd.getpwuid), named(gid, grp.getgrgid),
                                         ",".join(named(g, grp.getgrgid) for g in [gid] + extra))
    return Raw(text, "proc:self (the process's ids and groups, as id prints them)")


def _groups_from_proc(source: Source, uid: Optional[int]):
    raw = read_text(source, "/proc/self/status", 64 * 1024)
    if raw is None:
        return [], None, uid
    groups: List[Tuple[int, str]] = []
    for line in raw.text.splitlines():
        if line.startswith("Groups:"):
            groups = [(int(g), "") for g in line.split(":", 1)[1].split() if g.isdigit()]
        elif line.startswith("Uid:") and uid is None:
            parts = line.split(":", 1)[1].split()
            if parts and parts[0].isdigit():
                uid = int(parts[0])
    return groups, raw.source, uid


def _database_groups(source: Source, a: AccessInfo, user: Optional[str], uid: Optional[int], session: List[str],
                     lookup: _Groups) -> None:
    """Groups the user is in by the group database but not in this session -> a re-login note."""
    if not user or uid == 0:
        return
    raw = run(source, ["id", user])
    db: List[str] = []
    if raw.ok:
        _u, _uid, groups = parse_id(raw.text)
        db = [n for _g, n in groups if n]
    else:
        for _gid, (name, members) in lookup.table().items():
            if user in members:
                db.append(name)
    missing = [g for g in ("render", "video") if g in db and g not in session]
    if missing:
        a.note("%s is in the %s group(s) by the group database but not in this login session: "
               "log out and back in (or reboot)" % (user, ", ".join(missing)))


def _node(source: Source, path: str, lookup: _Groups, uid: Optional[int], gids: List[int]) -> DeviceNode:
    node = DeviceNode(path=path)
    st = stat(source, path)
    if st is None:
        node.exists = False
        node.sources["exists"] = "stat:" + path
        return node
    node.exists = True
    node.sources["exists"] = "stat:" + path
    try:
        mode = int(st.get("mode", 0))
    except (TypeError, ValueError):
        mode = 0
    if mode:
        node.put("mode", _stat.filemode(mode), "stat:" + path)
    gid = st.get("gid")
    if isinstance(gid, int):
        node.put("group", lookup.name(gid) or str(gid), "stat:" + path)
    if "access_rw" in st and st["access_rw"] is not None:
        node.put("accessible", bool(st["access_rw"]), "stat:" + path)
    elif mode and uid is not None:
        node.put("accessible", _may_rw(mode, uid, st.get("uid"), gid, gids), "stat:" + path)
    return node


def _may_rw(mode: int, uid: int, owner: object, gid: object, gids: List[int]) -> bool:
    if uid == 0:
        return True
    if owner == uid:
        return bool(mode & _stat.S_IRUSR and mode & _stat.S_IWUSR)
    if isinstance(gid, int) and gid in gids:
        return bool(mode & _stat.S_IRGRP and mode & _stat.S_IWGRP)
    return bool(mode & _stat.S_IROTH and mode & _stat.S_IWOTH)
