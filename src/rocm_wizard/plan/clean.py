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
from typing import Any, Dict, Iterable, List, Optional, Tuple

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
    kind: str  # cache | venv | rocm-tree | apt-file | apt-key | apt-pin | package-leftover
    why: str
    owner: Optional[str] = None  # the account that removes it (a user's home: that user; None: root)
    size: Optional[int] = None
    exact: bool = True  # False: the walk stopped at WALK_LIMIT entries
    extra: Optional[dict] = None  # apt items: the content's sha256 and what would make it in use

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


def size_of(path: str, apparent: bool = False) -> Tuple[int, bool]:
    """Bytes allocated under ``path`` (no link followed, one file system); (bytes, exact).
    ``apparent``: the files' lengths instead (the same on every file system: the demo's tree)."""
    total, seen = 0, 0
    try:
        top = os.lstat(path)
    except OSError:
        return 0, True
    if not stat.S_ISDIR(top.st_mode):
        return top.st_size, True
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
                    if not apparent:
                        total += st.st_blocks * 512
                    elif stat.S_ISREG(st.st_mode):
                        total += st.st_size
                    if stat.S_ISDIR(st.st_mode) and st.st_dev == top.st_dev:
                        stack.append(e.path)
        except OSError:
            continue
    return total + (0 if apparent else top.st_blocks * 512), True


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


PROC_LIMIT = 4096  # processes looked at
MAPS_LIMIT = 1 << 20  # bytes of one process's maps read
MAPS_TOTAL = 64 << 20  # bytes of maps read in all


def processes_using(root: str = "/") -> Dict[str, int]:
    """Paths running processes use -> a process id: each process's executable, working directory and
    mapped files (``/proc/PID/exe``, ``cwd``, ``maps``), so that a ROCm tree a program has loaded
    libraries from, or a venv whose Python runs (an activated shell's working directory, a service),
    is never offered.  Processes another user owns are seen as far as root sees them; bounded."""
    out: Dict[str, int] = {}
    proc = _p(root, "/proc")
    try:
        pids = [n for n in os.listdir(proc) if n.isdigit()][:PROC_LIMIT]
    except OSError:
        return out
    budget = MAPS_TOTAL
    for pid in pids:
        base = os.path.join(proc, pid)
        for link in ("exe", "cwd"):
            try:
                out.setdefault(os.path.normpath(os.readlink(os.path.join(base, link))), int(pid))
            except OSError:
                pass
        if budget <= 0:
            continue
        try:
            with open(os.path.join(base, "maps"), "rb") as fh:
                data = fh.read(min(MAPS_LIMIT, budget))
        except OSError:
            continue
        budget -= len(data)
        for line in data.decode("utf-8", "replace").splitlines():
            parts = line.split(None, 5)
            if len(parts) == 6 and parts[5].startswith("/"):
                out.setdefault(os.path.normpath(parts[5].replace(" (deleted)", "")), int(pid))
    return out


SNAPSHOT_CANNOT = ("from a snapshot clean cannot judge, so it offers none of them: caches (a snapshot records "
                   "no cache or size), which venv a link names (it records the venvs, not the links), whether an "
                   "apt file is rocm-wizard's own or amdgpu-install's (it records entries, not whole files), and "
                   "what is in use (running programs, systemd units, shell start-up files); run `rocm-wizard "
                   "--path clean` on the machine itself for those. The trees listed are re-checked there when "
                   "the plan runs")


def snapshot_seen(system) -> List[str]:
    """What a snapshot shows that clean would judge on the machine, one line each (never offered):
    venvs beside another venv's name as a torch plan leaves them (``P-torch...``, ``P-previous...``);
    apt sources files whose ROCm/amdgpu entries are all disabled; radeon pins while no enabled entry
    points at repo.radeon.com."""
    out: List[str] = []
    envs = sorted({os.path.normpath(e.path) for e in getattr(system, "torch", []) or [] if e.path})
    for env in envs:
        parent, base = os.path.dirname(env), os.path.basename(env)
        for other in envs:
            if os.path.dirname(other) == parent and other != env and \
                    os.path.basename(other).startswith((base + "-torch", base + "-previous")):
                out.append(f"seen in the snapshot: venv {other} beside {env} (a torch plan's versioned or moved-aside "
                           f"venv, unless {env} is a link to it: judged on the machine)")
    rocm = getattr(system, "rocm", None)
    sources = getattr(rocm, "apt_sources", []) or []
    by_file: Dict[str, List[bool]] = {}
    for src in sources:
        if src.file:
            by_file.setdefault(src.file, []).append(bool(src.enabled))
    for f, enabled in sorted(by_file.items()):
        if not any(enabled):
            out.append(f"seen in the snapshot: {f} has only disabled ROCm/amdgpu entries (removable if rocm-wizard "
                       "or amdgpu-install left it: judged on the machine from its whole content)")
    if not any(s.enabled and s.radeon for s in sources):
        for pin in getattr(rocm, "apt_pins", []) or []:
            if pin.file and "radeon" in (pin.pin or ""):
                out.append(f"seen in the snapshot: pin {pin.file} ({pin.pin}) while no enabled entry points at "
                           "repo.radeon.com (judged on the machine)")
    return list(dict.fromkeys(out))


def _at_or_under(path: str, found: Dict[str, Any]) -> Any:
    """The value of the first key of ``found`` that is ``path`` or a path under it, or None."""
    path = os.path.normpath(path)
    for p, value in found.items():
        if p == path or p.startswith(path + "/"):
            return value
    return None


def user_of(path: str, used: Dict[str, int]) -> Optional[int]:
    """The id of a process that uses ``path`` or anything under it, or None."""
    return _at_or_under(path, used)


# ------------------------------------------------------------------------------ named where it starts
# A tree or venv is in use without running, too: a systemd unit that starts a program from it (its
# ExecStart=, Environment=PATH=..., WorkingDirectory=) or a shell start-up file that activates it
# (`source <venv>/bin/activate`, `PATH=/opt/rocm-6.2.4/bin:$PATH`, `ROCM_PATH=`) breaks the next
# time it starts if the tree is gone.  So is any line of those files that names a path at or under
# it (a comment does not).  Such an item is not offered; the list says which file and line name it.
# Read as root without following a link anywhere a user controls (a home's files, their
# directories); units in /etc/systemd are root's, a link there (systemctl link) is read at its
# target.  Only the file and line number are ever shown, never a line's text.
UNIT_DIRS = ("/etc/systemd/system", "/etc/systemd/user")  # systemd.unit(5): the administrator's units
USER_UNIT_DIR = (".config", "systemd", "user")  # systemd.unit(5): $XDG_CONFIG_HOME/systemd/user
RC_FILES = (".bashrc", ".profile", ".bash_profile", ".bash_login", ".zshrc", ".zprofile", ".zshenv")
CONF_FILES_LIMIT = 2000  # files read in all
USERS_LIMIT = 512  # homes looked at
_END = "\\s\"'`:=;,()|&<>"  # what ends a path on such a line (shell words, PATH lists, Key= values)
PATH_ON_LINE = re.compile(r"(?:^|(?<=[" + _END + r"]))(/[^" + _END + r"]*)")


def _unit_file(name: str) -> bool:
    return name.endswith((".service", ".conf", ".socket", ".timer", ".path"))


def _read_at(dfd: int, name: str) -> Optional[bytes]:
    """A regular file's bytes, opened relative to ``dfd`` without following a link."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=dfd)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > APT_FILE_LIMIT:
            return None
        return os.read(fd, APT_FILE_LIMIT + 1)[:APT_FILE_LIMIT]
    except OSError:
        return None
    finally:
        os.close(fd)


def _open_dir_at(dfd: int, parts: Iterable[str]) -> Optional[int]:
    """A directory below ``dfd`` opened one component at a time, no link followed; None if not."""
    fd = os.dup(dfd)
    for part in parts:
        try:
            nfd = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
        except OSError:
            os.close(fd)
            return None
        os.close(fd)
        fd = nfd
    return fd


def _walk_units(dfd: int, shown: str, depth: int, out: List[Tuple[str, bytes]], follow: Optional[str]) -> None:
    """Unit files and drop-ins under ``dfd`` (``shown``: its path as reported).  ``follow``: the
    root under which a link is read at its target (root's own unit directories), else links are
    skipped."""
    try:
        names = sorted(os.listdir(dfd))
    except OSError:
        return
    for name in names:
        if len(out) >= CONF_FILES_LIMIT:
            return
        try:
            st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        except OSError:
            continue
        path = shown.rstrip("/") + "/" + name
        if stat.S_ISDIR(st.st_mode) and depth > 0:
            sub = _open_dir_at(dfd, [name])
            if sub is not None:
                try:
                    _walk_units(sub, path, depth - 1, out, follow)
                finally:
                    os.close(sub)
        elif stat.S_ISREG(st.st_mode) and _unit_file(name):
            data = _read_at(dfd, name)
            if data is not None:
                out.append((path, data))
        elif stat.S_ISLNK(st.st_mode) and follow is not None and _unit_file(name):
            try:
                target = os.path.normpath(os.path.join(os.path.dirname(path), os.readlink(name, dir_fd=dfd)))
            except OSError:
                continue
            if target == "/dev/null" or any(target == p for p, _ in out):
                continue  # a masked unit; a link to a file read already (an enabled unit's .wants link)
            data = _read_small(_p(follow, target))  # the target's last component is not followed either
            if data is not None:
                out.append((target, data))


def _homes(root: str) -> List[Tuple[str, str]]:
    """(user, home) of root and of people (uid 1000 and above), from the root's /etc/passwd."""
    out = []
    data = _read_small(_p(root, "/etc/passwd")) or b""
    for line in data.decode("utf-8", "replace").splitlines():
        f = line.split(":")
        if len(f) >= 6 and f[2].isdigit() and (f[2] == "0" or 1000 <= int(f[2]) < 65534) and f[5].startswith("/"):
            if os.path.normpath(f[5]) != "/" and (f[0], os.path.normpath(f[5])) not in out:
                out.append((f[0], os.path.normpath(f[5])))
    return out[:USERS_LIMIT]


def start_files(root: str = "/") -> List[Tuple[str, bytes, Optional[str]]]:
    """(path, bytes, home for ``~`` and ``$HOME``) of the files that start programs: systemd units
    (the administrator's, each person's user units) and people's shell start-up files."""
    out: List[Tuple[str, bytes]] = []
    files: List[Tuple[str, bytes, Optional[str]]] = []
    for d in UNIT_DIRS:
        try:
            dfd = os.open(_p(root, d), os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            _walk_units(dfd, d, 3, out, root or "/")
        finally:
            os.close(dfd)
    files += [(p, b, None) for p, b in out]
    for _user, home in _homes(root):
        try:
            hfd = os.open(_p(root, home), os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            for name in RC_FILES:
                data = _read_at(hfd, name)
                if data is not None:
                    files.append((home.rstrip("/") + "/" + name, data, home))
            ufd = _open_dir_at(hfd, USER_UNIT_DIR)
            if ufd is not None:
                units: List[Tuple[str, bytes]] = []
                try:
                    _walk_units(ufd, home.rstrip("/") + "/" + "/".join(USER_UNIT_DIR), 3, units, None)
                finally:
                    os.close(ufd)
                files += [(p, b, home) for p, b in units]
        finally:
            os.close(hfd)
        if len(files) >= CONF_FILES_LIMIT:
            break
    return files[:CONF_FILES_LIMIT]


def paths_on_line(line: str, home: Optional[str]) -> List[str]:
    """The absolute paths a line of a unit or shell file names (``~/``, ``$HOME`` and ``${HOME}``
    taken as ``home``); none for a comment."""
    s = line.strip()
    if not s or s.startswith(("#", ";")):
        return []
    if home:
        s = s.replace("${HOME}", home).replace("$HOME", home).replace("%h", home)  # %h: systemd.unit(5)
        s = re.sub(r"(^|[" + _END + r"])~/", lambda m: m.group(1) + home.rstrip("/") + "/", s)
    return [os.path.normpath(m) for m in PATH_ON_LINE.findall(s) if m != "/"]


def start_references(root: str = "/") -> Dict[str, str]:
    """Paths named in the files that start programs -> where ("FILE line N"), the first naming."""
    out: Dict[str, str] = {}
    for path, data, home in start_files(root):
        for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            for named in paths_on_line(line, home):
                out.setdefault(named, f"{path} line {n}")
    return out


def named_by(path: str, refs: Dict[str, str]) -> Optional[str]:
    """Where a start-up file or unit names ``path`` or something under it, or None."""
    return _at_or_under(path, refs)


def held_reason(path: str, used: Dict[str, int], refs: Dict[str, str]) -> Optional[str]:
    """Why a tree or venv is in use (a running process, or a unit or start-up file naming it)."""
    pid = user_of(path, used)
    if pid is not None:
        return f"in use by process {pid} (its program, working directory or a loaded library; stop it first)"
    where = named_by(path, refs)
    if where is not None:
        return (f"named by {where} (a service or a shell start-up file uses it; "
                "remove that line or the unit first)")
    return None


def candidates(system, user: Optional[str], root: str = "/", sizes: bool = True,
               apparent: bool = False, held: Optional[List[Tuple["Item", str]]] = None) -> List[Item]:
    """What can go.  A tree or venv a running process uses, or that a unit or a shell start-up
    file names, is not offered: with ``held`` a list, (item, why) of each is added to it."""
    items = rocm_trees(system, root) + superseded_venvs(system, root) + caches(user, root) + apt_files(root)
    used = processes_using(root)
    refs = start_references(root) if any(it.kind in ("rocm-tree", "venv") for it in items) else {}
    kept = []
    for it in items:
        why = held_reason(it.path, used, refs) if it.kind in ("rocm-tree", "venv") else None
        if why is None:
            kept.append(it)
        elif held is not None:
            held.append((it, why))
    items = kept
    if sizes:
        for it in items:
            if it.kind == "package-leftover":
                continue
            it.size, it.exact = size_of(_p(root, it.path), apparent)
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


def gone(wanted: str, root: str = "/") -> bool:
    """Whether a pick that is not on the list names something that is no longer there (a second run
    of the same picks: nothing to do), rather than something never offered (a typo: an error).  An id
    or path whose path no longer exists under ``root``, a known cache id, or the amdgpu-install
    package's id (its leftovers gone with a purge)."""
    kind, _, rest = wanted.partition(":")
    if wanted.startswith("/"):
        path = wanted
    elif kind in ("rocm", "venv", "apt") and rest.startswith("/"):
        path = rest
    elif kind == "cache":
        return rest in {cid for cid, _spec, _what in CACHES}
    elif kind == "purge":
        return rest == AMDGPU_INSTALL
    else:
        return False
    return not os.path.lexists(_p(root, os.path.normpath(path)))


# ------------------------------------------------------------------------------ apt files
# What clean offers of apt's configuration: only files it can recognise by their content, never by
# a name alone, and only while apt reads nothing from them (every entry disabled, or no enabled entry
# names the key / the pinned origin), so removing one changes nothing apt does.
#  * the sources files rocm-wizard writes (their first lines say "Written whole by rocm-wizard",
#    plan/build.py) whose entries a later plan disabled ("# disabled by rocm-wizard: ...");
#  * the Core SDK pin it writes ("(written by rocm-wizard)" in its first line) and the classic pin
#    whose whole content is the one it writes (the same three lines AMD's native-install page
#    writes), for an origin no enabled entry names;
#  * the keyrings at the catalog's keyring paths that hold one key exported as rocm-wizard stores it
#    (plan/openpgp.minimal_keyring) and that no enabled entry names (signed-by);
#  * what a removed amdgpu-install left: the package itself when `apt remove` left its conffiles
#    (dpkg state "config-files"; AMD's uninstall steps end with `sudo apt purge amdgpu-install`,
#    ROCm/rocm-install-on-linux docs/install/install-methods/amdgpu-installer/amdgpu-installer-ubuntu.rst;
#    its conffiles are /etc/apt/sources.list.d/amdgpu.list and rocm.list, "Installing new version of
#    config file ..." in ROCm/legacy-rocm-build#1864), offered when none of its lists has an enabled
#    entry; and lists under amdgpu-install's names that no package owns (amdgpu-proprietary.list is
#    written by `amdgpu-install --accept-eula`, not by the package: ROCm/legacy-rocm-build#5625)
#    holding AMD repository entries only, all disabled.
WIZARD_SOURCE_MARK = "Written whole by rocm-wizard"
WIZARD_PIN_MARK = "(written by rocm-wizard)"
SOURCES_DIR = "/etc/apt/sources.list.d"
AMDGPU_INSTALL = "amdgpu-install"
AMDGPU_INSTALL_LIST = re.compile(r"^(amdgpu(-[a-z0-9-]+)?|rocm)\.list$")
APT_FILE_LIMIT = 1 << 20  # bytes read of one apt file


def _read_small(path: str) -> Optional[bytes]:
    """A regular file's bytes (no link followed); None for anything else or a larger file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > APT_FILE_LIMIT:
            return None
        chunks, n = [], 0
        while n <= st.st_size:
            b = os.read(fd, 65536)
            if not b:
                break
            chunks.append(b)
            n += len(b)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def entry_lines(text: str) -> List[str]:
    """The enabled entries of a sources file: one-line ``deb``/``deb-src`` lines, deb822 ``URIs:``."""
    out = []
    for line in (text or "").splitlines():
        s = line.strip()
        if s.startswith(("deb ", "deb\t", "deb-src ", "deb-src\t", "URIs:")):
            out.append(s)
    return out


def _disabled_entries(text: str) -> List[str]:
    out = []
    for line in (text or "").splitlines():
        s = line.strip()
        if not s.startswith("#"):
            continue
        s = s.lstrip("#").strip()
        if s.startswith("disabled by rocm-wizard:"):
            s = s[len("disabled by rocm-wizard:"):].strip()
        if s.startswith(("deb ", "deb\t", "deb-src ", "deb-src\t", "URIs:")):
            out.append(s)
    return out


def source_files(root: str = "/") -> List[str]:
    out = ["/etc/apt/sources.list"]
    try:
        out += sorted(SOURCES_DIR + "/" + n for n in os.listdir(_p(root, SOURCES_DIR))
                      if n.endswith((".list", ".sources")))
    except OSError:
        pass
    return out


ENABLED_LINE = re.compile(r"^\s*((deb|deb-src)\s|URIs:|Signed-By:)", re.I)


def enabled_entries(root: str = "/", skip: Iterable[str] = ()) -> List[str]:
    """Every line of an enabled entry that names a repository or a key (one-line ``deb`` lines,
    deb822 ``URIs:`` and ``Signed-By:``) in the files apt reads, but those of ``skip``.  A deb822
    stanza with ``Enabled: no`` counts too: what it names is kept."""
    skip = set(skip)
    out: List[str] = []
    for path in source_files(root):
        if path in skip:
            continue
        data = _read_small(_p(root, path))
        if data is not None:
            out += [ln.strip() for ln in data.decode("utf-8", "replace").splitlines() if ENABLED_LINE.match(ln)]
    return out


def in_use(words: Iterable[str], root: str = "/", skip: Iterable[str] = ()) -> List[str]:
    """The enabled entries that contain one of ``words`` (a keyring path, ``//host/``)."""
    words = [w for w in words if w]
    return [e for e in enabled_entries(root, skip) if any(w in e for w in words)]


def pin_origin(text: str) -> Optional[str]:
    """The origin an apt preferences file pins (``Pin: release o=HOST`` or ``Pin: origin "HOST"``)."""
    m = re.search(r"(?m)^Pin:\s*release\s+(?:.*,\s*)?o=([^,\s]+)", text) or \
        re.search(r'(?m)^Pin:\s*origin\s+"?([^"\s]+)"?', text)
    return m.group(1) if m else None


def origin_words(origin: str) -> List[str]:
    return [f"//{origin}/", f"//{origin}:"]


def sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _dpkg_status(root: str = "/") -> dict:
    """{package: (status word, [conffile paths])} from dpkg's status file."""
    out: dict = {}
    data = None
    try:
        with open(_p(root, "/var/lib/dpkg/status"), "rb") as fh:
            data = fh.read(64 << 20)
    except OSError:
        return out
    for stanza in data.decode("utf-8", "replace").split("\n\n"):
        name, status, conf, in_conf = None, "", [], False
        for line in stanza.splitlines():
            if line.startswith("Package:"):
                name = line.split(":", 1)[1].strip()
            elif line.startswith("Status:"):
                status = line.split()[-1] if line.split() else ""
            if line.startswith("Conffiles:"):
                in_conf = True
                continue
            if in_conf:
                if line.startswith(" "):
                    w = line.split()
                    if w and w[0].startswith("/"):
                        conf.append(w[0])
                    continue
                in_conf = False
        if name:
            out[name] = (status, conf)
    return out


def _apt_item(path: str, kind: str, why: str, data: bytes, words: Iterable[str] = ()) -> Item:
    it = Item(f"apt:{path}", path, kind, why)
    it.extra = {"sha256": sha256(data), "in_use": list(words)}
    return it


def apt_files(root: str = "/") -> List[Item]:
    """The stale apt files described above, and the package a removed amdgpu-install left."""
    from . import catalog_adapter as cat
    from .openpgp import KeyFormatError, minimal_keyring, read_keys

    out: List[Item] = []
    status = _dpkg_status(root)
    conffiles = {c for _s, cs in status.values() for c in cs}
    installer = status.get(AMDGPU_INSTALL, ("", []))
    installer_here = installer[0] in ("installed", "unpacked", "half-installed", "half-configured",
                                      "triggers-awaited", "triggers-pending")
    for path in source_files(root)[1:]:
        data = _read_small(_p(root, path))
        if data is None or path in conffiles:  # a package's file: its purge removes it
            continue
        text = data.decode("utf-8", "replace")
        if entry_lines(text):
            continue
        head = "\n".join(text.splitlines()[:3])
        if WIZARD_SOURCE_MARK in head:
            first = text.splitlines()[0].lstrip("# ").split(". Written")[0] if text.strip() else ""
            out.append(_apt_item(path, "apt-file", f"a sources file rocm-wizard wrote ({first}) whose entries are "
                                 "all disabled now: apt reads nothing from it", data))
            continue
        name = os.path.basename(path)
        if AMDGPU_INSTALL_LIST.match(name) and not installer_here:
            old = _disabled_entries(text)
            markers = cat.rocm_line_markers([cat.rocm_default_base()])
            if old and all(any(m in e for m in markers) for e in old):
                out.append(_apt_item(path, "apt-file", "a list under amdgpu-install's names with AMD repository "
                                     "entries only, all disabled, left after amdgpu-install was removed (no package "
                                     "owns it)", data))
    repo, core = cat.rocm_repo(), cat.core_info()
    for path in dict.fromkeys((repo.keyring, core.keyring)):
        data = _read_small(_p(root, path))
        if not data or path in conffiles:
            continue
        try:
            keys = read_keys(data)
            if len(keys) != 1 or minimal_keyring(data, keys[0].fingerprint)[1] != data:
                continue
        except KeyFormatError:
            continue
        if in_use([path], root):
            continue
        out.append(_apt_item(path, "apt-key", f"the signing key {keys[0].fingerprint} stored as rocm-wizard stores "
                             "it; no enabled repository entry names this keyring (signed-by)", data, [path]))
    classic = f"Package: {repo.pin_package}\nPin: release o={repo.pin_origin}\nPin-Priority: {repo.pin_priority}\n"
    for path in dict.fromkeys((repo.pin_file, core.pin_file)):
        data = _read_small(_p(root, path))
        if not data or path in conffiles:
            continue
        text = data.decode("utf-8", "replace")
        ours = WIZARD_PIN_MARK in (text.splitlines() or [""])[0] or text == classic
        origin = pin_origin(text)
        if not ours or not origin or in_use(origin_words(origin), root):
            continue
        why = ("the pin rocm-wizard writes" if WIZARD_PIN_MARK in text else
               "a pin whose whole content is the one rocm-wizard writes (AMD's install page writes the same)")
        out.append(_apt_item(path, "apt-pin", f"{why} for {origin}, which no enabled repository entry names: it "
                             "pins nothing", data, origin_words(origin)))
    if installer[0] == "config-files":
        lists = [c for c in installer[1] if c.startswith("/etc/apt/")]
        active = [c for c in lists if entry_lines((_read_small(_p(root, c)) or b"").decode("utf-8", "replace"))]
        if not active:
            it = Item(f"purge:{AMDGPU_INSTALL}", AMDGPU_INSTALL, "package-leftover",
                      "amdgpu-install was removed but not purged: dpkg keeps its configuration files ("
                      + (", ".join(installer[1]) or "none listed") + "); AMD's uninstall steps end with "
                      "apt purge amdgpu-install. None of its lists has an enabled entry")
            it.size = sum(os.lstat(_p(root, c)).st_size for c in installer[1] if os.path.lexists(_p(root, c)))
            it.extra = {"conffiles": list(installer[1])}
            out.append(it)
    return out
