"""Helpers shared by the step types."""
from __future__ import annotations

import re
from typing import Iterable, List, Optional, Sequence, Tuple
from urllib.parse import urlsplit

from ..shellquote import q

SAFE_PKG = re.compile(r"^[a-z0-9][a-z0-9.+-]*$")
SAFE_VERSION = re.compile(r"^[A-Za-z0-9.+~:-]*$")
SAFE_PATTERN = re.compile(r"^[a-z0-9.+*?\[\]-]+$")  # a shell-style pattern of package names
SAFE_USER = re.compile(r"^[a-z_][a-z0-9_.-]{0,31}\$?$")
SAFE_GROUP = SAFE_USER
SAFE_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def J(var: str) -> str:
    """A Jinja reference to a play variable."""
    return "{{ " + var + " }}"


def rooted(path: str) -> str:
    """Shell word for ``path`` under ``$RW_ROOT`` (file tests and writes; commands get the plain
    path)."""
    return '"${RW_ROOT}"' + q(path)


def check_abs_path(value: object, what: str) -> str:
    text = str(value or "")
    if not text.startswith("/") or "\x00" in text:
        raise ValueError(f"{what} must be an absolute path, got {text!r}")
    return text


def check_workspace(value: object, what: str = "workspace") -> str:
    """A host directory to mount into a container: absolute, and free of what ``docker run -v``
    and Compose's volume syntax split on (``:``, and ``,`` for ``--mount``) or cannot carry (control
    characters).  A ``$`` is allowed: the compose file writes it as ``$$``."""
    text = check_abs_path(value, what)
    if ":" in text or "," in text or any(ord(c) < 32 or ord(c) == 0x7F for c in text):
        raise ValueError(f"{what} {text!r} cannot be mounted: Docker's -v and Compose's volumes split the path on "
                         "':' (--mount on ','); choose a directory without ':', ',' or control characters")
    return text


def check_url(value: object, what: str) -> str:
    text = str(value or "")
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https", "file") or (parts.scheme != "file" and not parts.netloc):
        raise ValueError(f"{what} must be an http, https or file URL, got {_shown(text)!r}")
    if any(c.isspace() or ord(c) < 32 or c in "\"'\\#" for c in text):
        raise ValueError(f"{what} contains a character that is not allowed in a URL: {_shown(text)!r}")
    return text


def split_credentials(url: str) -> Tuple[str, Optional[Tuple[str, str]]]:
    """``https://user:pw@host/p`` -> (``https://host/p``, (user, password)); URLs without user info
    come back unchanged, with None."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    from urllib.parse import unquote

    userinfo, _, hostport = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    return parts._replace(netloc=hostport).geturl(), (unquote(user), unquote(password))


def redact_url(url: str) -> str:
    """``url`` with its user info (credentials) masked, for anything printed or written."""
    clean, cred = split_credentials(url)
    if cred is None:
        return url
    parts = urlsplit(clean)
    return parts._replace(netloc="***@" + parts.netloc).geturl()


def _shown(text: str) -> str:
    """A URL for an error message: its credentials masked, whatever else is wrong with it."""
    from ...execute.redact import redact

    return redact(text)


def url_marker(base: str) -> str:
    """``https://repo.radeon.com/`` -> ``//repo.radeon.com``: what a sources line must contain to
    point at that repository (any scheme)."""
    parts = urlsplit(base)
    return "//" + (parts.netloc + parts.path).rstrip("/")


def is_radeon_line(line: str, markers: Sequence[str]) -> bool:
    s = line.lstrip()
    if not (s.startswith(("deb ", "deb\t", "deb-src ", "deb-src\t")) or s.startswith("URIs:")):
        return False
    return any(m in s for m in markers)


def disable_radeon_lines(text: str, markers: Sequence[str]) -> Tuple[str, int]:
    out: List[str] = []
    n = 0
    for line in text.splitlines():
        if is_radeon_line(line, markers):
            out.append("# disabled by rocm-wizard: " + line)
            n += 1
        else:
            out.append(line)
    return "".join(x + "\n" for x in out), n


def deb822_other_uris(text: str, markers: Sequence[str]) -> bool:
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("URIs:") and not any(m in s for m in markers):
            return True
    return False


def norm_deb_lines(text: Optional[str]) -> List[str]:
    """Active one-line entries, whitespace normalised (to compare a file rebuilt from a snapshot)."""
    out = []
    for line in (text or "").splitlines():
        s = line.strip()
        if s and not s.startswith("#"):
            out.append(" ".join(s.split()))
    return out


def shell_array(name: str, values: Iterable[object]) -> str:
    vals = [q(v) for v in values]
    return f"local -a {name}=({' '.join(vals)})" if vals else f"local -a {name}=()"


def version_matches(installed: Optional[str], want: str) -> bool:
    """``want`` is an exact version, or a prefix ending in ``*``."""
    if not installed:
        return False
    if want.endswith("*"):
        return installed.startswith(want[:-1])
    return installed == want


def pin_matches(installed: Optional[str], want: str) -> bool:
    """pip pin comparison: exact, or ``want`` without a local label matches any label."""
    if not installed:
        return False
    if installed == want:
        return True
    return "+" not in want and installed.split("+")[0] == want


def with_temp_dir(n: str, make: dict, work: List[dict], remove: dict) -> List[dict]:
    """Ansible tasks that make a temporary directory, do ``work`` in it and remove it whatever
    happens: the work is a ``block`` whose ``always`` removes the directory, so a refused key (a
    failed assert) leaves nothing behind in the host's temporary directory."""
    return [make, {"name": f"{n}: in the temporary directory (removed whatever happens)", "block": work,
                   "always": [remove]}]


def describe_legacy_removal(step, todo, safety: str, version_of, command):
    """The description of a step that removes the legacy ROCm packages before the Core SDK (apt's
    ``apt-remove-legacy`` and rpm's ``rpm-remove`` alike): ``todo`` is the installed packages that
    match ``step.params['patterns']`` (None: not known at planning time), ``safety`` the line on the
    check made before anything is removed, ``version_of(name)`` the installed version shown, and
    ``command`` the argv that removes them."""
    from ..core import Description, PackageChange

    desc = Description(step.title)
    if todo is None:
        desc.actions.append("remove every installed package matching " + " ".join(step.params["patterns"])
                            + " (not known now; the script lists them before it removes any)")
        return desc
    if not todo:
        desc.actions.append("nothing to remove: no legacy ROCm package is installed")
        return desc
    why = f" ({step.params['reason']})" if step.params["reason"] else ""
    desc.actions.append(f"remove these {len(todo)} packages{why}: " + " ".join(todo))
    desc.actions.append(safety)
    for name in todo:
        desc.packages.append(PackageChange(name, version_of(name), None, "legacy ROCm, removed before the Core SDK"))
    desc.commands.append(list(command) + list(todo))
    return desc
