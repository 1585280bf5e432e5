"""The parsed forms of the package's TOML files shipped in ``rocm_wizard/_parsed`` (made by
``scripts/regen_parsed_toml.py``): each equals a fresh parse of its TOML file, none is missing or
left over, they are used where nothing may be written, and an edited TOML file is parsed again."""
import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rocm_wizard.catalog import _data

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "regen_parsed_toml.py"


def _shipped_tomls():
    pkg = REPO / "src" / "rocm_wizard"
    return sorted(p for p in pkg.rglob("*.toml") if "_parsed" not in p.parts) + sorted((REPO / "plans").glob("*.toml"))


@pytest.fixture
def no_bytecode(monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)


def test_every_shipped_toml_has_an_up_to_date_parsed_form():
    """Fails after a TOML file is edited until ``python scripts/regen_parsed_toml.py`` is run."""
    names = set()
    for path in _shipped_tomls():
        raw = path.read_bytes()
        name = _data.shipped_name(raw)
        names.add(name)
        form = Path(_data._SHIPPED_DIR) / name
        assert form.is_file(), f"{path.relative_to(REPO)}: no parsed form; run scripts/regen_parsed_toml.py"
        assert marshal.loads(form.read_bytes()) == _data._toml.loads(raw.decode("utf-8")), path
    left_over = {p.name for p in Path(_data._SHIPPED_DIR).iterdir()} - names
    assert not left_over, f"parsed forms of no TOML file: {sorted(left_over)}; run scripts/regen_parsed_toml.py"


def test_the_check_command_notices_a_stale_form():
    r = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_shipped_forms_live_inside_the_package():
    assert Path(_data._SHIPPED_DIR).resolve().parent == Path(_data.__file__).resolve().parents[1]


def test_without_a_writable_cache_the_shipped_form_is_used(tmp_path, no_bytecode, monkeypatch):
    """A package TOML file, copied unchanged elsewhere, is found by its content: no parser used,
    nothing written."""
    src = REPO / "src" / "rocm_wizard" / "detect" / "failures.toml"
    copy = tmp_path / "failures.toml"
    copy.write_bytes(src.read_bytes())
    want = _data._toml.loads(src.read_text("utf-8"))

    class NoParser:
        def __getattr__(self, name):
            raise AssertionError("the TOML parser was used although a shipped parsed form exists")

    monkeypatch.setattr(_data, "_toml", NoParser())
    assert _data.parse_toml_file(str(copy), str(tmp_path / "cache")) == want
    assert not (tmp_path / "cache").exists()


def test_an_edited_toml_misses_the_shipped_form_and_is_parsed(tmp_path, no_bytecode):
    src = REPO / "src" / "rocm_wizard" / "catalog" / "data" / "streams.toml"
    copy = tmp_path / "streams.toml"
    copy.write_bytes(b'rw_test_marker = "edited"\n' + src.read_bytes())
    got = _data.parse_toml_file(str(copy), str(tmp_path / "cache"))
    assert got["rw_test_marker"] == "edited"
    assert got == _data._toml.loads(copy.read_text("utf-8"))


def test_a_damaged_shipped_form_means_parsing(tmp_path, no_bytecode, monkeypatch):
    path = tmp_path / "x.toml"
    path.write_bytes(b"a = 1\n")
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    (shipped / _data.shipped_name(b"a = 1\n")).write_bytes(b"\x00not marshal")
    monkeypatch.setattr(_data, "_SHIPPED_DIR", str(shipped))
    assert _data.parse_toml_file(str(path), str(tmp_path / "cache")) == {"a": 1}


def test_live_detect_parses_no_toml_without_bytecode():
    """``PYTHONDONTWRITEBYTECODE`` (many container images): a live ``detect --json`` loads no TOML
    parser, its tables come from the shipped forms."""
    code = ("import io, contextlib, runpy, sys\n"
            "sys.argv = ['rocm-wizard', 'detect', '--json']\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        runpy.run_module('rocm_wizard', run_name='__main__')\n"
            "    except SystemExit:\n        pass\n"
            "import json; sys.__stdout__.write(json.dumps(sorted(m for m in sys.modules if m.startswith(('tomllib', 'tomli')))))\n")
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == []
