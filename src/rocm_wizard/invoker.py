"""Who ran rocm-wizard as root: ``sudo`` (``SUDO_USER``), ``pkexec`` (``PKEXEC_UID``) or ``doas``
(``DOAS_USER``), and where that user's venvs are.

Run as root, ``HOME`` is root's (sudo's default ``always_set_home``/``env_reset``), so the venv
search would look in ``/root`` and miss the torch venvs of the person who typed ``sudo``.  This
module names that person (the account must exist; their home comes from the password database,
never from the environment, and root itself is nobody's invoker) and lists the venvs in their home
and in the working directory **as that user** (``runuser``, :func:`rocm_wizard.runas.run_as`): a
link they planted leads only where they could read anyway, never into root's files.  A venv found
there is theirs; what the plan runs with its interpreter runs as its owner (``runas.venv_owner``),
as for ``--venv``.
"""
from __future__ import annotations

import os
from .model import lean_dataclass
from typing import Callable, Dict, List, Optional, Sequence

#: the variables that name the invoking user, in the order they are believed
VARIABLES = ("SUDO_USER", "PKEXEC_UID", "DOAS_USER")

MAX_VENVS = 32  # venvs listed at most (the probe examines a bounded number anyway)

# Lists, one per line (NUL-separated), the directories that look like a venv or a conda env in
# HOME (``~/.venv``, ``~/venv*``, ``~/.venv*``, ``~/*/venv``, ``~/*/.venv``, ``~/.virtualenvs/*``,
# ``~/.pyenv/versions/*``, conda's ``envs/*``) and in the working directory (``./.venv``,
# ``./venv``).  Run as the user: every path is resolved with their rights.  Arguments: HOME CWD MAX.
FIND_SH = r'''
home=$1; cwd=$2; max=$3; n=0
emit() { [ "$n" -lt "$max" ] || exit 0; printf '%s\0' "$1"; n=$((n+1)); }
isvenv() { [ -f "$1/pyvenv.cfg" ] || [ -d "$1/conda-meta" ]; }
for d in "$home"/.venv "$home"/.venv* "$home"/venv* "$home"/*/venv "$home"/*/.venv \
         "$home"/.virtualenvs/* "$home"/.pyenv/versions/* \
         "$home"/miniconda3/envs/* "$home"/anaconda3/envs/* "$home"/miniforge3/envs/* "$home"/mambaforge/envs/*; do
  [ -d "$d" ] && isvenv "$d" && emit "$d"
done
if [ -n "$cwd" ]; then
  for d in "$cwd"/.venv "$cwd"/venv; do
    [ -d "$d" ] && isvenv "$d" && emit "$d"
  done
fi
exit 0
'''


@lean_dataclass(frozen=True)
class Invoker:
    """The user who ran rocm-wizard through sudo, pkexec or doas."""

    name: str
    uid: int
    home: str
    via: str  # the variable that named them: SUDO_USER, PKEXEC_UID or DOAS_USER

    @property
    def tool(self) -> str:
        return {"SUDO_USER": "sudo", "PKEXEC_UID": "pkexec", "DOAS_USER": "doas"}.get(self.via, self.via)


def _pwd_by_name(name: str):
    import pwd

    try:
        return pwd.getpwnam(name)
    except KeyError:
        return None


def _pwd_by_uid(uid: int):
    import pwd

    try:
        return pwd.getpwuid(uid)
    except KeyError:
        return None


def invoking_user(environ: Optional[Dict[str, str]] = None, euid: Optional[int] = None,
                  by_name: Callable = _pwd_by_name, by_uid: Callable = _pwd_by_uid) -> Optional[Invoker]:
    """The account that ran this root process through sudo, pkexec or doas; None when not root,
    when no such variable is set, or when it names root or no account."""
    environ = os.environ if environ is None else environ
    if euid is None:
        euid = os.geteuid() if hasattr(os, "geteuid") else -1
    if euid != 0:
        return None
    for var in VARIABLES:
        value = (environ.get(var) or "").strip()
        if not value:
            continue
        if var == "PKEXEC_UID":
            if not value.isdigit():
                continue
            entry = by_uid(int(value))
        else:
            entry = by_name(value)
        if entry is None or entry.pw_uid == 0 or not entry.pw_dir or entry.pw_dir == "/":
            continue
        return Invoker(entry.pw_name, entry.pw_uid, entry.pw_dir, var)
    return None


def find_venvs(inv: Invoker, cwd: Optional[str] = None, run: Optional[Callable[..., bytes]] = None) -> List[str]:
    """The venv directories in ``inv``'s home and in ``cwd``, listed as ``inv`` (see FIND_SH); an
    empty list when that cannot run."""
    if run is None:
        from .runas import run_as as run
    try:
        out = run(inv.name, FIND_SH, inv.home, cwd or "", str(MAX_VENVS))
    except OSError:
        return []
    seen: List[str] = []
    for raw in out.split(b"\0"):
        path = raw.decode("utf-8", "surrogateescape")
        if path.startswith("/") and "\n" not in path and path not in seen:
            seen.append(os.path.normpath(path))
    return seen[:MAX_VENVS]


def note(inv: Invoker, found: Sequence[str]) -> str:
    """What a report says about the search (stderr and the detect report's notes)."""
    where = f"{inv.home} and the working directory"
    if found:
        return (f"run as root by {inv.name} ({inv.tool}): looked for venvs in {where}, read as {inv.name}; "
                f"found {', '.join(found)} (their torch steps run as their owner)")
    return f"run as root by {inv.name} ({inv.tool}): looked for venvs in {where}, read as {inv.name}; found none"


def root_command(argv0: Optional[str] = None, environ: Optional[Dict[str, str]] = None) -> str:
    """The command that runs this rocm-wizard as root, for a user to copy: sudo resets PATH to its
    ``secure_path`` (Debian's and Ubuntu's sudoers set one without ``~/.local/bin``, where pipx and
    ``uv tool`` put the command, or a venv's ``bin``), so ``sudo rocm-wizard`` is "command not
    found"; the absolute path of this program works whatever secure_path says."""
    import shutil

    environ = os.environ if environ is None else environ
    path = None
    if argv0 and os.path.basename(argv0) == "__main__.py":  # python -m rocm_wizard
        import sys

        from .plan.shellquote import q

        return f"sudo {q(sys.executable)} -m rocm_wizard"
    if argv0 and os.path.isabs(argv0):
        path = argv0
    elif argv0 and os.sep in argv0:
        path = os.path.abspath(argv0)
    else:
        path = shutil.which(argv0 or "rocm-wizard", path=environ.get("PATH"))
    if not path:
        return 'sudo "$(command -v rocm-wizard)"'
    from .plan.shellquote import q

    return f"sudo {q(path)}"


def first_screen_notice(environ: Dict[str, str], euid: int, argv0: Optional[str] = None,
                        by_name: Callable = _pwd_by_name, by_uid: Callable = _pwd_by_uid) -> Optional[str]:
    """What the wizard's first screen says about root: run as a user, that it reads as them and that
    Run needs root, with the command that starts it as root (the absolute path: sudo's secure_path
    does not hold ~/.local/bin or a venv's bin); run as root for someone, whose venvs it reads as them."""
    if euid != 0:
        import pwd

        try:
            me = pwd.getpwuid(euid).pw_name
        except KeyError:
            me = str(euid)
        return (f"Reading this system as {me}: nothing is changed until Run. Run changes the system and needs "
                f"root: it asks for sudo then (a password prompt stops an unattended run). To start as root now, "
                f"quit (q) and run:\n    {root_command(argv0, environ)}")
    inv = invoking_user(environ, euid, by_name, by_uid)
    if inv is not None:
        return (f"Running as root for {inv.name} ({inv.tool}): venvs are looked for in {inv.home} and the working "
                f"directory, read as {inv.name}; what runs a venv's Python runs as its owner.")
    return None
