"""The owner rule: whom a root run may run a venv's interpreter as, judged on what Python will read.

This module is the one description of the rule.  It uses the standard library only and runs on
its own, so that the executor and ``verify`` import it, and the generated shell script and the
Ansible playbook run this very source with the host's ``/usr/bin/python3 -I -S`` (see
:data:`SOURCE` and :func:`main`): the three cannot disagree.

Everything is opened with ``O_PATH|O_NOFOLLOW`` one component at a time, walked from ``/`` with
``openat`` (``dir_fd``); a symbolic link is read where it is (``readlinkat``) and its target
walked the same way, so every directory on the way -- the link's included -- is judged, and no
name is looked up twice.  What is judged, for a venv:

* every directory from ``/`` down to the venv (its *ancestors*), on the path as given and on the
  way to every link's target;
* the venv directory, ``bin/``, ``pyvenv.cfg``, ``bin/python`` and what it resolves to;
* ``lib*/python*/site-packages`` and every entry in it (``.pth`` files run at each start,
  package directories are imported from there);
* the standard library the venv starts with: ``home`` of ``pyvenv.cfg`` and
  ``<home>/../lib/pythonX.Y`` with its entries (a ``--copies`` venv of a user's own build runs
  that user's ``site.py``);
* when the venv includes the system's packages (``include-system-site-packages`` true or absent in
  the ``pyvenv.cfg`` CPython reads, ``bin/pyvenv.cfg`` first): the site directories of the base
  prefix (:func:`system_site_dirs`) with every directory on the way to each, also to one not made
  yet, and each entry (role ``system``: a non-root owner there is refused, never made the runner),
  and the user site of the ``HOME`` it starts with; ``judge_interpreter`` judges its own prefix's.

A group's write counts as root's only when it is a system group no account but root holds
(:func:`root_only_group`: Debian's ``staff`` of ``/etc/staff-group-for-usr-local``).

For each of them: its owner, and who can write it -- the group (when it is not root's), others,
and any POSIX ACL grant of write (``system.posix_acl_access``) to a named user or group.  A
directory above the venv with the sticky bit (``/tmp``) lets no one but an entry's owner replace
it, so only its owner counts there.  The verdict:

* the venv's owner is the owner of the venv directory; anything of the venv itself (its
  directory, ``bin``, ``pyvenv.cfg``, ``site-packages`` and its entries) that belongs to a third
  account is refused (running it as either would run the other's code);
* anything outside the venv (ancestors, link targets, the standard library) that belongs to a
  non-root user makes that user the one who runs a root venv (``sudo python3 -m venv ~/venv``
  runs as the home's owner); with a non-root venv owner, a second such account is refused;
* when the verdict is root, nothing judged may be writable by anyone but root: a group other than
  root's, others, or an ACL grant is refused, naming the path and the fix (``chmod g-w``,
  ``chmod o-w``, ``setfacl -b``);
* an owner without an account is refused.

Why the check and the start cannot be raced (finding 2 of issue 27): root runs an interpreter only
when every object on its path -- every directory from ``/``, every link, the venv and what Python
reads from it -- belongs to root and only root can write it; then no one else can rename, swap or
relink anything between this judgement and the start, so starting it by the same path starts what
was judged.  Whenever another user could (a directory of theirs above the venv, a link of theirs),
the verdict is that user, so a swap only ever runs their own code as themselves.  On top of that,
``verify`` starts a venv root runs through the venv directory this walk opened, held by the
launcher (``/proc/<pid>/fd/D/bin/python``: ``runas.hold_venv``), so what runs is what was judged;
the executor starts pip by path (pip writes ``sys.executable`` into console scripts).  The whole
argument, each premise pinned by a test: docs/ARCHITECTURE.md, "Exec through the checked
descriptor".
"""
from __future__ import annotations

import errno
import os
import stat
import struct
import sys

O_PATH = getattr(os, "O_PATH", 0)
ACL_XATTR = "system.posix_acl_access"
ACL_USER, ACL_GROUP_OBJ, ACL_GROUP, ACL_MASK = 0x02, 0x04, 0x08, 0x10
ACL_WRITE = 0x02
MAX_LINKS = 40
MAX_ENTRIES = 20000  # entries of one directory judged (site-packages, the standard library)


class RuleError(Exception):
    """The venv or interpreter cannot be run safely by a root run; the message says why and the fix."""


def acl_writers(data):
    """(uids, gids) a ``system.posix_acl_access`` value grants write to (named entries and the
    owning group, each within the mask), and whether the owning group's entry allows write."""
    uids, gids, group_obj, mask = set(), set(), None, None
    named = []
    if len(data) < 4:
        return uids, gids, None
    for off in range(4, len(data) - 7, 8):
        tag, perm, ident = struct.unpack_from("<HHI", data, off)
        if tag == ACL_MASK:
            mask = perm
        elif tag == ACL_GROUP_OBJ:
            group_obj = perm
        elif tag in (ACL_USER, ACL_GROUP):
            named.append((tag, perm, ident))
    limit = ACL_WRITE if mask is None else mask
    for tag, perm, ident in named:
        if perm & ACL_WRITE and limit & ACL_WRITE:
            (uids if tag == ACL_USER else gids).add(ident)
    group_w = None if group_obj is None else bool(group_obj & ACL_WRITE and limit & ACL_WRITE)
    return uids, gids, group_w


def _read_acl(fd, path):
    for where in ("/proc/self/fd/%d" % fd, path):
        try:
            return os.getxattr(where, ACL_XATTR)
        except OSError as exc:
            if exc.errno in (errno.ENODATA, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM):
                return b""
            if where != path and exc.errno in (errno.ENOENT, errno.EBADF):
                continue  # no /proc: ask by path (only the judgement reads it that way)
            return b""
    return b""


SYS_GID_MAX = 999  # Debian/Ubuntu's SYS_GID_MAX (login.defs): groups made for the system, not for people


def group_holders(gid):
    """The accounts other than root that hold the group ``gid`` (listed members and accounts whose
    primary group it is), as names; None when the account databases cannot be read."""
    try:
        import grp
        import pwd

        members = set(grp.getgrgid(gid).gr_mem)
        members.update(p.pw_name for p in pwd.getpwall() if p.pw_gid == gid)
    except (ImportError, KeyError, OSError):
        return None
    members.discard("root")
    for name in list(members):
        try:
            if pwd.getpwnam(name).pw_uid == 0:
                members.discard(name)
        except KeyError:
            pass
    return members


def root_only_group(gid):
    """Whether write by the group ``gid`` is write by root alone: a system group (gid up to
    :data:`SYS_GID_MAX`) that no account but root holds, such as Debian's ``staff`` (gid 50) of
    ``/usr/local`` made ``root:staff 2775`` by ``/etc/staff-group-for-usr-local``, while no one was
    added to it.  Anyone added to it later makes the same directory refused at the next run."""
    holders = group_holders(gid) if 0 < gid <= SYS_GID_MAX else None
    return holders is not None and not holders


class Item:
    """One judged path: its stat, its ACL, and where it sits (``venv``: part of the venv itself;
    ``ancestor``: a directory only passed through; ``outside``: anything else Python reads)."""

    def __init__(self, path, st, acl, role):
        self.path, self.st, self.acl, self.role = path, st, acl, role

    def writers(self):
        """Who besides the owner can change it: [(kind, id, fix)] with kind user/group/others."""
        st = self.st
        if stat.S_ISLNK(st.st_mode):
            return []
        out = []
        uids, gids, group_w = acl_writers(self.acl) if self.acl else (set(), set(), None)
        if self.role in ("ancestor", "sysancestor") and st.st_mode & stat.S_ISVTX:
            return []  # sticky: only an entry's owner (judged as that entry) may replace it
        gw = group_w if group_w is not None else bool(st.st_mode & stat.S_IWGRP)
        if gw and st.st_gid != 0 and not root_only_group(st.st_gid):
            out.append(("group", st.st_gid, "chmod g-w %s" % self.path))
        if st.st_mode & stat.S_IWOTH:
            out.append(("others", None, "chmod o-w %s" % self.path))
        for uid in sorted(uids):
            if uid != st.st_uid and uid != 0:
                out.append(("user", uid, "setfacl -b %s" % self.path))
        for gid in sorted(gids):
            if gid != 0 and not root_only_group(gid):
                out.append(("group", gid, "setfacl -b %s" % self.path))
        return out


class Walker:
    """Opens paths one component at a time from ``/`` (or a directory fd it holds) with
    ``O_PATH|O_NOFOLLOW``, recording every object it passes (:class:`Item`)."""

    def __init__(self):
        self.items = []
        self.fds = []
        self.venv_fd = None

    def close(self):
        for fd in self.fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.fds = []

    def _keep(self, fd):
        self.fds.append(fd)
        return fd

    def _note(self, fd, path, role, st=None):
        st = st or os.fstat(fd)
        acl = b"" if stat.S_ISLNK(st.st_mode) else _read_acl(fd, path)
        self.items.append(Item(path, st, acl, role))
        return st

    def root(self, role="ancestor"):
        fd = self._keep(os.open("/", O_PATH | os.O_DIRECTORY))
        self._note(fd, "/", role)
        return fd, "/"

    def walk(self, path, role, start=None, follow=True):
        """The fd (O_PATH) of ``path`` (absolute, or relative to ``start`` = (fd, shown path)),
        every directory passed judged as ``ancestor`` (``role`` for those inside the venv when
        ``role`` is ``venv``), the last one as ``role``.  Raises OSError."""
        if path.startswith("/") or start is None:
            fd, shown = self.root("sysancestor" if role == "system" else
                                  "ancestor" if role != "venv" or start is None else role)
        else:
            fd, shown = start
        parts = [p for p in path.split("/") if p not in ("", ".")]
        links = 0
        inner = "venv" if role == "venv" and start is not None and not path.startswith("/") else "ancestor"
        if role == "system":
            inner = "sysancestor"
        while parts:
            name = parts.pop(0)
            nfd = self._keep(os.open(name, O_PATH | os.O_NOFOLLOW, dir_fd=fd))
            here = os.path.join(shown, name) if name != ".." else os.path.dirname(shown.rstrip("/")) or "/"
            st = os.fstat(nfd)
            last = not parts
            if stat.S_ISLNK(st.st_mode) and (follow or not last):
                links += 1
                if links > MAX_LINKS:
                    raise OSError(errno.ELOOP, "too many links", here)
                self._note(nfd, here, "outside" if role == "venv" else role, st)  # a link is on the way
                target = os.readlink(name, dir_fd=fd)
                parts = [p for p in target.split("/") if p not in ("", ".")] + parts
                if target.startswith("/"):
                    fd, shown = self.root("sysancestor" if role == "system" else "ancestor")
                    inner = "sysancestor" if role == "system" else "ancestor"
                continue
            self._note(nfd, here, role if last else inner, st)
            fd, shown = nfd, here
        return fd, shown

    def entries(self, dfd, shown, role):
        """Judge every entry of the directory ``dfd`` (links followed the same way)."""
        try:
            lfd = os.open(".", os.O_RDONLY | os.O_DIRECTORY, dir_fd=dfd)
        except OSError:
            return
        try:
            names = sorted(os.listdir(lfd))[:MAX_ENTRIES]
        finally:
            os.close(lfd)
        for name in names:
            mark = len(self.fds)
            try:
                self.walk(name, role, start=(dfd, shown), follow=True)
            except OSError:
                pass
            self.release(mark)

    def release(self, mark):
        """Close the fds opened since ``mark`` (what was judged stays in :attr:`items`)."""
        extra, self.fds = self.fds[mark:], self.fds[:mark]
        for fd in extra:
            try:
                os.close(fd)
            except OSError:
                pass

    def listdir(self, dfd):
        try:
            lfd = os.open(".", os.O_RDONLY | os.O_DIRECTORY, dir_fd=dfd)
        except OSError:
            return []
        try:
            return sorted(os.listdir(lfd))
        finally:
            os.close(lfd)


def _read_cfg(w, vfd, exe_dir="bin"):
    """The ``pyvenv.cfg`` CPython reads: ``bin/pyvenv.cfg`` first (beside the executable), then the
    venv's own; {} when there is none."""
    for name in (exe_dir + "/pyvenv.cfg", "pyvenv.cfg"):
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=vfd)
        except OSError:
            continue
        if stat.S_ISREG(os.fstat(fd).st_mode):
            break
        os.close(fd)
    else:
        return {}
    try:
        data = os.read(fd, 65536).decode("utf-8", "replace")
    finally:
        os.close(fd)
    out = {}
    for line in data.splitlines():
        key, eq, value = line.partition("=")
        if eq:
            out[key.strip().lower()] = value.strip()
    return out


def _standard_library(w, cfg):
    """Judge ``home`` of pyvenv.cfg and the standard library beside it (role ``outside``)."""
    home = cfg.get("home")
    if not home or not home.startswith("/"):
        return
    try:
        w.walk(home, "outside")
    except OSError:
        return
    prefix = os.path.dirname(home.rstrip("/")) or "/"
    version = cfg.get("version_info") or cfg.get("version") or ""
    want = "python" + ".".join(version.split(".")[:2]) if version.count(".") >= 1 else None
    for lib in ("lib", "lib64"):
        try:
            lfd, lshown = w.walk(os.path.join(prefix, lib), "outside")
        except OSError:
            continue
        for name in w.listdir(lfd):
            if (name == want) or (want is None and name.startswith("python3")):
                try:
                    sfd, sshown = w.walk(name, "outside", start=(lfd, lshown))
                except OSError:
                    continue
                w.entries(sfd, sshown, "outside")


def system_site_on(cfg):
    """Whether CPython's ``site`` adds the system's site directories to a venv with this
    ``pyvenv.cfg``: ``include-system-site-packages`` is read as true unless it says ``false`` (an
    absent key is true, as in ``site.venv``)."""
    return cfg.get("include-system-site-packages", "true").lower() == "true"


def system_site_dirs(prefix, version=None, home_dir=None):
    """Every directory the ``site`` module of a Python installed under ``prefix`` may put on
    ``sys.path`` (a superset: upstream's ``lib*/pythonX.Y/site-packages``, Debian's
    ``local/lib/pythonX.Y/dist-packages``, ``lib/python3/dist-packages`` and
    ``lib*/pythonX.Y/dist-packages``, Fedora's ``/usr/local/lib*/pythonX.Y/site-packages``), and the
    user site under ``home_dir`` (``~/.local/lib/pythonX.Y/site-packages``: ``site`` keeps it on for a
    venv that includes the system's packages).  ``version`` is "X.Y"; None means every python3.*
    directory found."""
    xy = ["python" + version] if version else None
    out = []
    for base in (prefix, os.path.join(prefix, "local")):
        for lib in ("lib", "lib64"):
            libdir = os.path.join(base, lib)
            names = xy
            if names is None:
                try:
                    names = sorted(n for n in os.listdir(libdir) if n.startswith("python3."))
                except OSError:
                    names = []
            for name in names:
                for leaf in ("site-packages", "dist-packages"):
                    out.append(os.path.join(libdir, name, leaf))
        out.append(os.path.join(base, "lib", "python3", "dist-packages"))
    if home_dir:
        for name in xy or ["python3"]:
            out.append(os.path.join(home_dir, ".local", "lib", name, "site-packages"))
    seen, uniq = set(), []
    for d in out:
        if d not in seen:
            seen.add(d)
            uniq.append(d)
    return uniq


def _user_base():
    """The user base the interpreter started here would read (``PYTHONUSERBASE`` or ``~/.local``)."""
    base = os.environ.get("PYTHONUSERBASE")
    if base:
        return base
    home = os.path.expanduser("~")
    return home if home.startswith("/") else None


def _version_xy(cfg):
    version = cfg.get("version_info") or cfg.get("version") or ""
    parts = version.split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 and all(p.isdigit() for p in parts[:2]) else None


def _system_site(w, prefix, version):
    """Judge the system's site directories of ``prefix`` (role ``system``): every directory on the
    way to each -- also to one that does not exist yet, whoever can create it chooses what is
    imported --, the directory and each entry (``.pth`` files, packages)."""
    base = _user_base()
    user_dirs = set(system_site_dirs("/nonexistent", version, base)) - set(system_site_dirs("/nonexistent", version))
    for d in system_site_dirs(prefix, version, base):
        mark = len(w.fds)
        try:
            dfd, dshown = w.walk(d, "system" if d not in user_dirs else "outside")
        except OSError:
            w.release(mark)
            continue
        if stat.S_ISDIR(os.fstat(dfd).st_mode):
            w.entries(dfd, dshown, "system" if d not in user_dirs else "outside")
        w.release(mark)


def collect_venv(venv, exe_dir="bin"):
    """The :class:`Walker` that judged the venv at ``venv`` and the venv directory's stat.
    ``exe_dir``: the directory of ``venv`` the interpreter is started from (CPython's ``site``
    takes the directory above the executable's as ``sys.prefix`` whichever of the two holds the
    ``pyvenv.cfg`` it reads)."""
    w = Walker()
    vfd, vshown = w.walk(os.path.abspath(venv), "venv")
    w.venv_fd = vfd  # what was judged: hold_venv starts the interpreter through it
    vst = os.fstat(vfd)
    if not stat.S_ISDIR(vst.st_mode):
        raise OSError(errno.ENOTDIR, "not a directory", venv)
    for rel in ("bin", "pyvenv.cfg", "bin/python") + ((exe_dir,) if exe_dir != "bin" else ()):
        try:
            w.walk(rel, "venv", start=(vfd, vshown))
        except OSError:
            pass
    for lib in ("lib", "lib64"):
        try:
            lfd, lshown = w.walk(lib, "venv", start=(vfd, vshown))
        except OSError:
            continue
        for name in w.listdir(lfd):
            if not name.startswith("python"):
                continue
            try:
                pfd, pshown = w.walk(name, "venv", start=(lfd, lshown))
                sfd, sshown = w.walk("site-packages", "venv", start=(pfd, pshown))
            except OSError:
                continue
            w.entries(sfd, sshown, "venv")
    try:
        w.walk(exe_dir + "/pyvenv.cfg", "venv", start=(vfd, vshown))
    except OSError:
        pass
    cfg = _read_cfg(w, vfd, exe_dir)
    _standard_library(w, cfg)
    if system_site_on(cfg):  # the system's site-packages are imported too: judged like the venv's own
        home = cfg.get("home") if cfg else None
        if home and home.startswith("/"):
            prefix = os.path.dirname(home.rstrip("/")) or "/"
        else:  # no pyvenv.cfg: bin/python is a plain interpreter, with its own prefix's packages
            prefix = os.path.dirname(os.path.dirname(os.path.realpath(os.path.join(venv, "bin", "python"))))
        _system_site(w, prefix, _version_xy(cfg))
    return w, vst


def _who(uid, name_of):
    return "root" if uid == 0 else (name_of(uid) or "user id %d" % uid)


def verdict(items, venv_uid, name_of, shown, kind="venv"):
    """The account that runs it (see the module's rules), from the judged ``items``; raises
    :class:`RuleError`."""
    venv_name = _who(venv_uid, name_of) if venv_uid is not None else None
    if venv_uid not in (None, 0) and not name_of(venv_uid):
        raise RuleError("the %s %s belongs to user id %d, which has no account here: rocm-wizard runs a venv's "
                        "interpreter as its owner, never as root; give the venv to an existing user "
                        "(chown -R USER %s)" % (kind, shown, venv_uid, shown))
    runner = venv_uid or 0
    for it in items:
        uid = it.st.st_uid
        if uid in (0, runner) or (it.role == "venv" and uid == venv_uid):
            continue
        if it.role in SYSTEM_ROLES and runner == 0:
            raise RuleError("%s belongs to %s and the %s %s imports from it as root (the system's site-packages): "
                            "rocm-wizard will not run it as root (%s)" % (it.path, _who(uid, name_of), kind, shown,
                                                                           _system_fix(it, kind, shown, "chown root:root %s" % it.path)))
        if it.role == "venv" or runner != 0:
            if it.role == "venv":
                fix = "make it one owner's: chown -R %s %s" % (venv_name or "USER", shown)
            else:
                fix = "move the %s out of it, or make it one owner's: chown %s %s" % (kind, _who(runner, name_of), it.path)
            raise RuleError("%s belongs to %s but the %s %s to %s: rocm-wizard will not run an interpreter that two "
                            "accounts control (%s)" % (it.path, _who(uid, name_of), kind, shown, _who(runner, name_of), fix))
        runner = uid  # the one non-root user involved (a root venv in their home, their --copies Python)
    if runner != 0:
        if not name_of(runner):
            raise RuleError("%s depends on paths of user id %d, which has no account here: rocm-wizard will not run "
                            "it as root" % (shown, runner))
        return name_of(runner)
    for it in items:
        for kindw, ident, fix in it.writers():
            if kindw == "group":
                whom = "the group %s" % _group(ident)
            elif kindw == "user":
                whom = "%s (an ACL grant)" % _who(ident, name_of)
            else:
                whom = "all users"
            if kindw == "group" and fix.startswith("setfacl"):
                whom += " (an ACL grant)"
            if it.role in SYSTEM_ROLES:
                if kindw == "group":
                    fix += ", or take every account but root out of the group %s" % _group(ident)
                fix = _system_fix(it, kind, shown, fix)
            else:
                fix += ", or give the venv to the user who works in it"
            raise RuleError("%s can be changed by other users (%s; mode %o) and the %s %s would run as root: "
                            "rocm-wizard will not run it as root (%s)"
                            % (it.path, whom, stat.S_IMODE(it.st.st_mode), kind, shown, fix))
    return "root"


SYSTEM_ROLES = ("system", "sysancestor")


def _system_fix(it, kind, shown, fix):
    """The fix for a system site directory (or one above it) another user controls."""
    if kind == "venv":
        return ("%s; or keep the system's packages out of the venv: set include-system-site-packages = false in "
                "%s/pyvenv.cfg, or recreate it without --system-site-packages" % (fix, shown.rstrip("/")))
    return fix


def _group(gid):
    try:
        import grp

        return grp.getgrgid(gid).gr_name
    except (ImportError, KeyError):
        return "id %d" % gid


def judge_venv(venv, name_of, shown=None):
    """The account that runs the interpreter of the venv at ``venv`` under a root run.  Raises
    :class:`RuleError`."""
    shown = shown or venv
    try:
        w, vst = collect_venv(venv)
    except OSError as exc:
        raise RuleError("cannot read the owner of the venv %s: %s" % (shown, exc.strerror or exc)) from None
    try:
        return verdict(w.items, vst.st_uid, name_of, shown)
    finally:
        w.close()


def judge_interpreter(python, name_of, held=None):
    """The account that runs ``python`` (as given) under a root run: a ``pyvenv.cfg`` beside it or
    one directory up (where CPython looks, on the path as given) makes it that venv's rule; else
    the path as given, what it resolves to, and every directory on the way to both are judged.
    ``held``: a list that receives (fd, the interpreter's path in it) of a venv root runs
    (``runas.hold_interpreter``)."""
    given = os.path.abspath(python)
    here = os.path.dirname(given)
    up = os.path.dirname(here)
    w = Walker()
    try:
        try:
            fd, _ = w.walk(given, "outside", follow=True)
        except OSError as exc:
            raise RuleError("cannot read the owner of %s: %s" % (python, exc.strerror or exc)) from None
        for d in (here, up):
            cfg = os.path.join(d, "pyvenv.cfg")
            if os.path.lexists(cfg):  # a venv whose prefix is ``up`` either way (site.venv)
                vw, vst = None, None
                try:
                    vw, vst = collect_venv(up, os.path.basename(here))
                    name = verdict(w.items + vw.items, vst.st_uid, name_of, up)
                    if held is not None and name == "root":
                        held.append((os.dup(vw.venv_fd), os.path.relpath(given, up)))
                    return name
                except OSError as exc:
                    raise RuleError("cannot read the owner of the venv %s: %s" % (up, exc.strerror or exc)) from None
                finally:
                    if vw is not None:
                        vw.close()
        for d in (here, up):  # Python looks for a pyvenv.cfg there: whoever can write them chooses its prefix
            try:
                w.walk(d, "outside")
            except OSError:
                pass
        real = os.path.realpath(given)  # its prefix's site-packages are imported at every start
        name = os.path.basename(real)
        version = name[len("python"):] if name.startswith("python3.") and name[7:].replace(".", "").isdigit() else None
        _system_site(w, os.path.dirname(os.path.dirname(real)) or "/", version)
        return verdict(w.items, None, name_of, python, kind="interpreter")
    finally:
        w.close()


def _passwd_name(uid):
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return None


def _clean(text):
    """``text`` without terminal control characters (a file name in site-packages is anyone's)."""
    return "".join(c if c >= " " and not ("\x7f" <= c <= "\x9f") else "?" for c in text)


def main(argv):
    """``RULE venv PATH`` / ``RULE python PATH``: prints the account name; exit 1 with the reason on
    stderr when a root run must not run it (the generated script and the playbook run this)."""
    if len(argv) != 2 or argv[0] not in ("venv", "python"):
        sys.stderr.write("usage: venv PATH | python PATH\n")
        return 64
    try:
        judge = judge_venv if argv[0] == "venv" else judge_interpreter
        name = judge(argv[1], _passwd_name)
    except RuleError as exc:
        sys.stderr.write("rocm-wizard: %s\n" % _clean(str(exc)))
        return 1
    sys.stdout.write(name + "\n")
    return 0


def source():
    """This module's source: what the script and the playbook run with ``python3 -I -S -c``."""
    with open(__file__, encoding="utf-8") as f:
        return f.read()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
