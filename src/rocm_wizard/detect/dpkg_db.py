"""dpkg's database read from its own files, so that a live detection need not start ``dpkg-query``
and ``dpkg --audit`` (about 35 ms each, on the detection's critical path) where the files say
the same.

* :func:`query_text` gives, byte for byte, what ``dpkg-query -W -f='${Package}\\t${Version}\\t
  ${db:Status-Abbrev}\\n'`` prints for a status file: every package whose status is not
  ``not-installed``, sorted by name (dpkg's ``showpackages``: ``pkg_array_sort`` by name, then
  the ``not-installed`` ones skipped), the three status letters of ``pkg_abbrev_want`` /
  ``pkg_abbrev_status`` / ``pkg_abbrev_eflag`` (``"uihrp"``, ``"ncHUFWti"``, ``" R"``).
* :func:`audit_clean` says True only when ``dpkg --audit`` would print nothing: no package with
  the reinstreq flag, none unpacked, half-configured, half-installed or awaiting/pending
  triggers, every installed package's ``list`` and ``md5sums`` files in the info directory under
  the name dpkg looks for, and an architecture that is ``all``, dpkg's native one or a registered
  foreign one (dpkg's ``audit_problems`` table, ``src/main/enquiry.c``).

Both answer None / False whenever the files could say something the tools would read otherwise
(a journal in ``updates/`` not yet folded into the status file, a package listed twice under two
architectures, a field in an unexpected form, an old info-directory format): the caller then runs
the tool as before.  Nothing here guesses: a False from :func:`audit_clean` means "ask dpkg".
"""
from __future__ import annotations

import re
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

ADMIN = "/var/lib/dpkg"
STATUS = ADMIN + "/status"
UPDATES = ADMIN + "/updates"
INFO = ADMIN + "/info"

_WANT = {"unknown": "u", "install": "i", "hold": "h", "deinstall": "r", "purge": "p"}
_STATUS = {"not-installed": "n", "config-files": "c", "half-installed": "H", "unpacked": "U",
           "half-configured": "F", "triggers-awaited": "W", "triggers-pending": "t", "installed": "i"}
_EFLAG = {"ok": " ", "reinstreq": "R"}
# a version as dpkg prints it back (``versiondescribe``): an epoch only when not 0 and without
# leading zeros (dpkg writes it as a number), no white space, no empty revision
_VERSION = re.compile(r"(?:[1-9][0-9]*:)?[0-9A-Za-z.+~\-]*(?<!-)")
_NAME = re.compile(r"[a-z0-9][a-z0-9+.\-]*")


FIELDS = ("package", "status", "version", "architecture", "multi-arch")


def stanzas(text: Union[str, Iterable[str]]) -> List[Dict[str, str]]:
    """The stanzas of a status file: for the fields read here (:data:`FIELDS`), lower-cased field
    name -> the field's value, stripped (``text``: the file's text or its lines) (the other fields are not kept: a status file of a few
    thousand packages would cost megabytes of memory as dictionaries)."""
    out: List[Dict[str, str]] = []
    cur: Dict[str, str] = {}
    wanted = FIELDS
    for line in text.split("\n") if isinstance(text, str) else text:
        line = line.rstrip("\n")
        if not line or line[0] in " \t":
            if cur and not line.strip():
                out.append(cur)
                cur = {}
            continue
        key, sep, value = line.partition(":")
        if sep:
            key = key.strip().lower()
            if key in wanted and key not in cur:
                cur[key] = value.strip()
    if cur:
        out.append(cur)
    return out


def _status(st: Dict[str, str]) -> Optional[Sequence[str]]:
    words = st.get("status", "").split()
    if len(words) != 3 or words[0] not in _WANT or words[1] not in _EFLAG or words[2] not in _STATUS:
        return None
    return words


def query_text(entries: Iterable[Dict[str, str]]) -> Optional[str]:
    """What ``dpkg-query -W -f='${Package}\\t${Version}\\t${db:Status-Abbrev}\\n'`` prints, or
    None when these stanzas are not certain to give it."""
    rows = query_rows(entries)
    return None if rows is None else "".join("%s\t%s\t%s\n" % row for row in rows)


def query_rows(entries: Iterable[Dict[str, str]]) -> Optional[List[Tuple[str, str, str]]]:
    """The lines :func:`query_text` gives, as ``(package, version, status abbreviation)`` (the
    abbreviation's three characters, its blank error flag included), in its order; None as there."""
    rows = []
    names = set()
    for st in entries:
        words = _status(st)
        name = st.get("package", "")
        version = st.get("version", "")
        if words is None or not _NAME.fullmatch(name) or not _VERSION.fullmatch(version):
            return None
        if words[2] == "not-installed":
            continue
        if name in names:  # two architectures of one package: dpkg's order between them is its own
            return None
        names.add(name)
        rows.append((name, version, _WANT[words[0]] + _STATUS[words[2]] + _EFLAG[words[1]]))
    rows.sort(key=_first)  # (names are unique here: the order of the lines, as before)
    return rows


def _first(row: Tuple[str, str, str]) -> str:
    return row[0]


def audit_clean(entries: Iterable[Dict[str, str]], info_files: Callable[[], Optional[set]],
                foreign: Sequence[str] = ()) -> bool:
    """True only when ``dpkg --audit`` prints nothing for these stanzas.  ``info_files()``: the
    names in the info directory (None when unreadable or not in the multiarch format);
    ``foreign``: the architectures registered with ``dpkg --add-architecture``."""
    entries = list(entries)
    native = None
    for st in entries:
        if st.get("package") == "dpkg" and (_status(st) or ("", "", ""))[2] == "installed":
            native = st.get("architecture")  # dpkg itself is always of the native architecture
    if not native:
        return False
    archs = {"all", native, *foreign}
    names = None
    for st in entries:
        words = _status(st)
        if words is None or words[1] != "ok":
            return False
        if words[2] in ("not-installed", "config-files"):
            continue  # (below half-installed: no info files or architecture checked)
        if words[2] != "installed":
            return False
        name, arch = st.get("package", ""), st.get("architecture", "")
        if not _NAME.fullmatch(name) or arch not in archs:
            return False
        if names is None:
            names = info_files()
            if names is None:
                return False
        base = name + (":" + arch if st.get("multi-arch", "").lower() == "same" else "")
        if base + ".list" not in names or base + ".md5sums" not in names:
            return False
    return True
