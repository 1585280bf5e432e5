"""Whom a root run trusts to run a venv's interpreter: the venv's owner, never root in its place.

Running ``<venv>/bin/python`` runs code its owner controls (a ``.pth`` file in site-packages runs
at every start), so everything rocm-wizard runs with a venv's interpreter -- pip, uv, the
package checks, the GPU smoke test -- and every file it writes inside a venv is run or written as
the venv's owner when rocm-wizard runs as root.  The rule (the same in the executor, the smoke-test
launcher, the shell script's ``rw_venv_user`` and, per host, the Ansible export):

* the owner is the owner of the venv directory (the link to it is followed);
* the venv directory, ``bin/``, ``pyvenv.cfg``, the interpreter ``bin/python`` resolves to and
  ``lib*/python*/site-packages`` must each belong to root or to that owner: a venv in which a third
  account owns one of them is refused (running it as either would run the other's code);
* an owner without an account on the system is refused (there is nobody to run it as);
* when the owner is root, none of those may be writable by anyone else (group other than root,
  or others): root would run code they can change; such a venv is refused;
* an owner that is not root runs it with their own rights whatever else can write there: that is
  what running it themselves does.

Switching user is ``runuser -u USER --`` (util-linux, on every Debian and Ubuntu): it sets the
user's groups, HOME, USER and LOGNAME.
"""
from __future__ import annotations

import glob
import os
import stat
from typing import Callable, List, Optional

# A file written as another user: the same temporary-file-and-rename as rocm_wizard.fsutil, done by
# a shell running as that user, so that every path on the way is resolved with that user's rights
# (a symbolic link they planted leads only where they could write anyway), and no directory made on
# the way belongs to root.  Arguments: PATH MODE; the content on stdin.
WRITE_AS_SH = ('set -e; d=$(dirname -- "$1"); mkdir -p -- "$d"; t=$(mktemp -- "$d/.rocm-wizard.XXXXXX"); '
               'trap \'rm -f -- "$t"\' EXIT; cat >"$t"; chmod -- "$2" "$t"; mv -f -- "$t" "$1"; trap - EXIT')


class OwnerError(Exception):
    """The venv cannot be run safely by a root run; the message says why and what to do."""


def as_user(argv: List[str], user: Optional[str]) -> List[str]:
    """``argv`` run as ``user`` by a root process (unchanged for root or no user)."""
    if user and user != "root":
        return ["runuser", "-u", user, "--"] + list(argv)
    return list(argv)


def write_as_argv(path: str, mode: int) -> List[str]:
    """The command that writes stdin to ``path`` whole (to be run as the owner, see :func:`as_user`)."""
    return ["sh", "-c", WRITE_AS_SH, "sh", path, format(mode, "o")]


def trusted_paths(venv: str) -> List[str]:
    """The paths of a venv that decide what its interpreter runs (on this machine)."""
    out = [venv, os.path.join(venv, "bin"), os.path.join(venv, "pyvenv.cfg")]
    py = os.path.join(venv, "bin", "python")
    if os.path.lexists(py):
        out.append(os.path.realpath(py))
    for pattern in ("lib", "lib64"):
        out += sorted(glob.glob(os.path.join(glob.escape(venv), pattern, "python*", "site-packages")))
    return out


def venv_owner(venv: str, name_of: Callable[[int], Optional[str]], shown: Optional[str] = None) -> str:
    """The account that runs the interpreter of the venv at ``venv`` (a path on this machine;
    ``shown`` is how messages name it) under a root run.  ``name_of(uid)`` is the account name of
    a user id, None when there is none.  Raises :class:`OwnerError`."""
    shown = shown or venv
    try:
        uid = os.stat(venv).st_uid
    except OSError as exc:
        raise OwnerError(f"cannot read the owner of the venv {shown}: {exc.strerror or exc}") from None
    name = "root" if uid == 0 else name_of(uid)
    if not name:
        raise OwnerError(f"the venv {shown} belongs to user id {uid}, which has no account here: rocm-wizard runs a "
                         "venv's interpreter as its owner, never as root; give the venv to an existing user "
                         f"(chown -R USER {shown})")
    fix = f"chown -R {name} {shown}"
    for path in trusted_paths(venv):
        try:
            st = os.stat(path)
        except OSError:
            continue
        if st.st_uid not in (0, uid):
            who = name_of(st.st_uid) or f"user id {st.st_uid}"
            raise OwnerError(f"{path} belongs to {who} but the venv {shown} to {name}: rocm-wizard will not run an "
                             f"interpreter that two accounts control (make it one owner's: {fix})")
        if uid == 0:
            others = st.st_mode & stat.S_IWOTH or (st.st_mode & stat.S_IWGRP and st.st_gid != 0)
            if others:
                raise OwnerError(f"{path} in the root-owned venv {shown} can be changed by other users "
                                 f"(mode {stat.S_IMODE(st.st_mode):o}): rocm-wizard will not run it as root "
                                 f"(chmod -R go-w {shown}, or give the venv to the user who works in it)")
    return name


def interpreter_owner(python: str, name_of: Callable[[int], Optional[str]]) -> str:
    """The account that runs ``python`` under a root run: the venv's owner when it is a venv's
    ``bin/python`` (the rule of :func:`venv_owner`), else the owner of the file it resolves to."""
    venv = os.path.dirname(os.path.dirname(os.path.abspath(python)))
    if os.path.isfile(os.path.join(venv, "pyvenv.cfg")):
        return venv_owner(venv, name_of)
    try:
        uid = os.stat(python).st_uid
    except OSError as exc:
        raise OwnerError(f"cannot read the owner of {python}: {exc.strerror or exc}") from None
    name = "root" if uid == 0 else name_of(uid)
    if not name:
        raise OwnerError(f"{python} belongs to user id {uid}, which has no account here: rocm-wizard will not run it "
                         "as root")
    return name


def system_name_of(uid: int) -> Optional[str]:
    """The account name of ``uid`` on this machine (None when there is none)."""
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return None
