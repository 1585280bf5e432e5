"""The known error texts in other languages (set BB of issue 28): the failure catalogue quotes messages in English, and a
program run under another locale prints its translation of them (glibc's loader: 'Kann die Shared-Object-Datei nicht
öffnen' for 'cannot open shared object file'; strerror: '没有那个文件或目录' for 'No such file or directory').
``translations.toml`` holds those messages with their translations, each from the program's own po files.

:func:`english` gives a text with every translation replaced by its English message, line for line (a message holds no
line break), or None when the text holds none; :func:`known_lines` scans that English text with a scanner of the
catalogue and gives each error it finds there on a line the translation changed, with the line as it was pasted."""
from __future__ import annotations

import functools
import os
import re
from typing import Callable, Dict, Iterable, List, Optional, Pattern, Tuple

# a paste larger than this is a log no one translated by hand: not looked at (the kernel's messages are English)
MAX_TEXT = 2_000_000


@functools.lru_cache(maxsize=1)
def _table() -> Dict[str, str]:
    """The English message of each translation, by the translation's lower-case form."""
    from ..catalog import _data

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "translations.toml")
    data = _data.parse_toml_file(path, _data._PKG_ROOT)
    english: Dict[str, str] = {}
    for msg in data.get("message", []):
        msgid = msg.get("msgid")
        if not isinstance(msgid, str) or not msgid:
            continue
        for text in (msg.get("msgstr") or {}).values():
            if isinstance(text, str) and text and text.lower() != msgid.lower() and "\n" not in text:
                english.setdefault(text.lower(), msgid)
    return english


@functools.lru_cache(maxsize=1)
def _keys() -> Tuple[Tuple[Tuple[str, str], ...], Tuple[str, ...]]:
    """The translations that hold a character outside ASCII, each with the first such character (a text without that
    character cannot hold it: one set of the text's characters rules most of them out), and the ASCII ones."""
    wide, plain = [], []
    for t in _table():
        c = next((ch for ch in t if ord(ch) > 127), None)
        if c is None:
            plain.append(t)
        else:
            wide.append((c, t))
    return tuple(wide), tuple(plain)


@functools.lru_cache(maxsize=64)
def _pattern(candidates: Tuple[str, ...]) -> Pattern[str]:
    return re.compile("|".join(re.escape(a) for a in sorted(candidates, key=len, reverse=True)), re.IGNORECASE)


def english(text: object) -> Optional[str]:
    """``text`` with each translated message replaced by its English msgid, or None when it holds none (or is no text,
    or is larger than :data:`MAX_TEXT`).  Line breaks are kept, so line N of the result is line N of ``text``.
    Linear in the text: a set of its characters and a substring search per ASCII translation pick the translations
    it may hold, and only those are searched for."""
    if not isinstance(text, str) or not text or len(text) > MAX_TEXT:
        return None
    table = _table()
    if not table:
        return None
    wide, plain = _keys()
    low = text.lower()
    found = [t for t in plain if t in low]
    if not text.isascii():
        chars = set(low)
        found += [t for c, t in wide if c in chars and t in low]
    if not found:
        return None
    return _pattern(tuple(sorted(found))).sub(lambda m: table.get(m.group(0).lower(), m.group(0)), text)


def known_lines(text: object, scan: Callable[[str], Iterable[Tuple]], found: Iterable[Tuple] = (),
                rewrite: Optional[Callable[[str], Optional[str]]] = None) -> List[Tuple]:
    """The hits ``scan`` (a scanner of the catalogue: tuples whose last item is the matching line) finds in the English
    form of ``text`` on a line the translation changed, with that line as pasted in the last place; a hit already in
    ``found`` (the scan of ``text`` as pasted) is left out.  Empty when ``text`` holds no translated message.
    ``rewrite`` reads another line-for-line form instead of the English one (paste_text.journal_messages)."""
    if not isinstance(text, str):
        return []
    en = (rewrite or english)(text)
    if en is None:
        return []
    raw = text.replace("\r\n", "\n").replace("\r", "\n")  # (as the scanners read a text)
    en = en.replace("\r\n", "\n").replace("\r", "\n")
    back: Dict[str, str] = {}
    for was, now in zip(raw.split("\n"), en.split("\n")):
        if was != now and now.strip():
            back.setdefault(now.strip(), was.strip())
    seen = set(tuple(f) for f in found)
    out: List[Tuple] = []
    for hit in scan(en):
        line = hit[-1]
        key = line.strip() if isinstance(line, str) else None
        if key not in back:
            continue  # an unchanged line: the scan of the text as pasted has it already
        hit = tuple(hit[:-1]) + (back[key],)
        if hit not in seen:
            seen.add(hit)
            out.append(hit)
    return out
