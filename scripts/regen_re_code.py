#!/usr/bin/env python3
"""Write ``src/rocm_wizard/_re_code.marshal``: the regex engine's code of the patterns a ``doctor``
run compiles (see ``src/rocm_wizard/_re_code.py``), for the Python that runs this script.

A fresh interpreter records every pattern ``re`` compiles while it runs ``doctor --snapshot FOLDER
--json`` in-process (no forked worker) on a folder of every real paste under ``tests/data/real`` and
on one of them alone, then compiles every lazily compiled pattern of the detect and doctor modules and
the known error table's; each pattern is stored only when the object built from its stored code equals
what ``re`` compiles (flags, pattern, code, groups).  The file is a cache: a pattern it lacks (a row
added since) is compiled as before, so a stale file is only slower.  ``scripts/regen_parsed_toml.py``
runs this after the other data files.

Usage: python scripts/regen_re_code.py [--check]
``--check`` writes nothing and exits 1 when the file would change.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_RECORD = r"""
import gc, io, os, sys, tempfile, contextlib
from pathlib import Path
sys.path.insert(0, os.environ["RW_SRC"])
from rocm_wizard import _re_code
comp = _re_code._compiler()
original = comp.compile
seen = {}

def recording(p, flags=0):
    if type(p) is str and not (flags & _re_code._SKIP_FLAGS):
        seen.setdefault((p, int(flags)), None)
    return original(p, flags)

comp.compile = recording
import re
re.purge()
from rocm_wizard import cli
real = sorted(Path(os.environ["RW_REPO"], "tests", "data", "real").glob("*/*.txt"))
with tempfile.TemporaryDirectory() as tmp:
    folder = Path(tmp, "all")
    folder.mkdir()
    (folder / "pastes.txt").write_text("\n".join(p.read_text(encoding="utf-8", errors="replace") for p in real),
                                       encoding="utf-8")
    one = Path(tmp, "one.txt")
    one.write_text(real[0].read_text(encoding="utf-8", errors="replace") if real else "", encoding="utf-8")
    for path in (folder, one):
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            cli.main(["doctor", "--snapshot", str(path), "--json"])
import importlib, pkgutil
import rocm_wizard.detect, rocm_wizard.doctor
for pkg in (rocm_wizard.detect, rocm_wizard.doctor):
    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        try:
            importlib.import_module(info.name)
        except Exception:
            pass
from rocm_wizard.detect.parsers._core_text import LazyRe
for obj in gc.get_objects():
    if isinstance(obj, LazyRe):
        try:
            obj.get()
        except Exception:
            pass
from rocm_wizard.detect import error_signatures
error_signatures.compiled()
comp.compile = original
table = {}
for (p, flags) in seen:
    try:
        e = _re_code.entry_of(p, flags)
        if e is None:
            continue
        want = original(p, flags)
        got = _re_code.build(p, e)
        if got == want and got.groupindex == want.groupindex and got.groups == want.groups:
            table[(p, flags)] = e
    except Exception:
        pass
sys.stdout.buffer.write(_re_code.dumps(table))
"""


def generate() -> bytes:
    env = dict(os.environ)
    env.update({"RW_SRC": str(REPO / "src"), "RW_REPO": str(REPO), "ROCM_WIZARD_RECOGNIZE_JOBS": "1",
                "ROCM_WIZARD_RE_CODE": "0", "PYTHONDONTWRITEBYTECODE": "1"})
    env.pop("PYTHONPATH", None)
    return subprocess.run([sys.executable, "-c", _RECORD], env=env, check=True, stdout=subprocess.PIPE).stdout


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    sys.path.insert(0, str(REPO / "src"))
    from rocm_wizard import _re_code

    path = Path(_re_code.CODE_FILE)
    blob = generate()
    old = path.read_bytes() if path.is_file() else None
    same = old is not None and _re_code.load(str(path)) == _load_blob(blob)
    if "--check" in argv:
        if not same:
            print(f"missing or different: {path.relative_to(REPO)}")
        return 0 if same else 1
    if not same:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(blob)
        os.replace(tmp, path)
        print(f"{path.relative_to(REPO)} written ({len(_load_blob(blob))} patterns, {len(blob)} bytes)")
    return 0


def _load_blob(blob: bytes):
    import marshal

    return marshal.loads(blob)[1]


if __name__ == "__main__":
    sys.exit(main())
