"""Versioned ROCm trees named by a path anywhere in a paste: ``/opt/rocm-6.4.1/lib/libamdhip64.so``.

AMD's legacy installers put each release in its own directory ``/opt/rocm-X.Y.Z`` (the multi-version
layout: ROCm/rocm-install-on-linux ``docs/install/install-methods/multi-version-install/
multi-version-install-ubuntu.rst``, the catalogue's source ``amd-multiversion``; ``update-alternatives
--display rocm`` lists them, ``parsers/opt_listing.py``) and link ``/opt/rocm`` to one.  Programs
print such paths in many outputs: a Python traceback's frames, ``ldd`` (``libamdhip64.so.6 =>
/opt/rocm-6.4.1/lib/libamdhip64.so.6``), ``which hipcc`` / ``which amdclang``, CMake's ``Found HIP:
/opt/rocm-6.4.1``, a glibc/backtrace frame (``/opt/rocm-6.4.3/lib/libhsa-runtime64.so.1(+0x2cce7)``),
``LD_LIBRARY_PATH=/opt/rocm-7.2.0/lib``, ``ls -l /opt/rocm`` (``rocm -> /opt/rocm-6.4.1``).

What a path proves (status: observed): a tree of that release exists on the machine the output comes
from.  It does not prove that it is the release in use (several trees can sit side by side); a
symbolic link's target printed as ``rocm -> /opt/rocm-X`` is the one ``/opt/rocm`` names.  So
``rocm_release`` gives one release only when the paste names one, or when several are named and a
link says which one ``/opt/rocm`` is; otherwise none.

Not a path of an install: ``/opt/rocm-X`` inside a longer path or a URL (``/var/lib/docker/overlay2/
.../merged/opt/rocm-6.4.1``, ``https://host/opt/rocm-6.4.1/``: the character before ``/opt`` is part
of a name), a repository URL (``repo.radeon.com/rocm/apt/6.4``), a container image tag
(``rocm/dev-ubuntu-22.04:6.4``), a bare ``rocm-6.4.1`` word, or a version that runs on
(``/opt/rocm-6.4.1rc``).  The scan looks for the literal ``/opt/rocm-`` and checks the character
before it by hand, so a paste is read in linear time.

Site installs (s25): clusters and shared machines install ROCm elsewhere, one folder per release, and load it with a
module (``/software/rocm/6.3.2/lib/libamdhip64.so``, ``/mpcdf/soft/RHEL_9/packages/x86_64/rocm/6.3.0/lib/llvm/bin``,
``/apps/rocm-6.2.1/bin/hipcc``).  Such a path is read as the same proof when it is an absolute path (not a URL's or a
container layer's; a compiler's ``-I``/``-L`` folder counts), its folder is ``rocm/X.Y[.Z]`` or ``rocm-X.Y[.Z]``, and a folder of an installed tree follows
(``lib``, ``lib64``, ``bin``, ``llvm``, ``libexec``, ``amdgcn``): a source checkout or a download folder named after
a release is not an install.  The scan looks for the literal ``/rocm/`` and ``/rocm-`` and reads back at most
``_TOKEN_BACK`` characters to the path's start, so it stays linear.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ._core_text import lazy

_NEEDLE = "/opt/rocm-"
_AT = lazy(r"/opt/rocm-(?P<ver>\d{1,2}\.\d{1,2}(?:\.\d{1,3}){0,2})(?![\w+-]|\.\w)")
# what may stand before "/opt": nothing, blank space, quotes, or a separator of a list or an assignment
_BEFORE = frozenset(" \t\n\r\"'`=:;,([{<>|*")
_LINK = " -> "
MAX_NAMED = 16  # more distinct trees than this in one paste is not a machine's /opt
# a site install's tree: the release folder, then a folder only an installed tree has
_SITE = lazy(r"/rocm[/-](?P<ver>\d{1,2}\.\d{1,2}(?:\.\d{1,3}){0,2})/(?:lib|lib64|bin|llvm|libexec|amdgcn)(?=[/\s\"':;,)\]]|$)")
_TOKEN_BACK = 200  # how far back a site path's start is looked for
_NOT_HOST = ("://", "/overlay2/", "/containers/storage/", "/docker/")


def _site_trees(text: str, found: Dict[str, str]) -> None:
    """Add ``{release: its folder}`` for the site installs' paths in ``text`` (module docstring)."""
    for needle in ("/rocm/", "/rocm-"):
        i = text.find(needle)
        while i >= 0 and len(found) < MAX_NAMED:
            m = _SITE.match(text, i)
            if m and not text.startswith("/opt/rocm-", max(0, i - 4)):
                j = i
                lo = max(0, i - _TOKEN_BACK)
                while j > lo and text[j - 1] not in _BEFORE:
                    j -= 1
                if text.startswith(("-I/", "-L/"), j):  # a compiler's include or library folder
                    j += 2
                head = text[j:i]
                if ((j == lo and lo > 0) or not head.startswith("/") or head.startswith("//")
                        or any(n in head for n in _NOT_HOST)):
                    pass  # no path's start within reach, a relative path, a URL's or a container layer's path
                else:
                    found.setdefault(m.group("ver"), text[j:m.start("ver") + len(m.group("ver"))])
            i = text.find(needle, i + len(needle))


def named_paths(text: str) -> Tuple[Dict[str, str], List[str]]:
    """({release: the tree's folder as the paste names it (``/opt/rocm-6.4.1``, ``/software/rocm/6.3.2``)}, in order
    of first sight; releases a link ``rocm -> /opt/rocm-X`` names).  Never raises on odd input."""
    found: Dict[str, str] = {}
    linked: Dict[str, None] = {}
    if not isinstance(text, str) or "/rocm" not in text:
        return {}, []
    i = text.find(_NEEDLE)
    while i >= 0 and len(found) < MAX_NAMED:
        if i == 0 or text[i - 1] in _BEFORE:
            m = _AT.match(text, i)
            if m:
                ver = m.group("ver")
                found.setdefault(ver, "/opt/rocm-" + ver)
                head = text[max(0, i - 24):i]
                if head.endswith(_LINK) and head[:-len(_LINK)].rstrip().endswith("rocm"):
                    linked.setdefault(ver, None)
        i = text.find(_NEEDLE, i + len(_NEEDLE))
    _site_trees(text, found)
    return found, list(linked)


def named_trees(text: str) -> Tuple[List[str], List[str]]:
    """(releases the paste's install paths name, in order of first sight; releases a link
    ``rocm -> /opt/rocm-X`` names).  Never raises on odd input."""
    found, linked = named_paths(text)
    return list(found), linked


def tree_folder(texts: List[str], ver: str) -> str:
    """The folder the pastes name for release ``ver`` (``/opt/rocm-6.4.1`` when none is found)."""
    for t in texts:
        found, _l = named_paths(t)
        if ver in found:
            return found[ver]
    return "/opt/rocm-" + ver


def rocm_release(texts: List[str]) -> Tuple[Optional[str], List[str], List[str]]:
    """(the release the pastes' install paths name, or None; every release named; those linked as
    /opt/rocm).  One release named: that one.  Several: the one ``/opt/rocm`` is linked to when
    exactly one link is shown, else None (a path shows a tree installed, not the one in use)."""
    allv: Dict[str, None] = {}
    links: Dict[str, None] = {}
    for t in texts:
        f, l = named_trees(t)
        for v in f:
            allv.setdefault(v, None)
        for v in l:
            links.setdefault(v, None)
    names, linked = list(allv), list(links)
    if len(names) == 1:
        return names[0], names, linked
    if len(names) > 1 and len(linked) == 1:
        return linked[0], names, linked
    return None, names, linked
