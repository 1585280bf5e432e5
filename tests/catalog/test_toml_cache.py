"""The on-disk cache of parsed TOML (catalog._data.parse_toml_file): a hit equals a fresh parse,
and any change to the file, or a damaged cache, means parsing again."""
import os
import sys

import pytest

from rocm_wizard.catalog import _data


@pytest.fixture
def writable_bytecode(monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)


def _toml(tmp_path, text):
    path = tmp_path / "data.toml"
    path.write_text(text)
    return str(path)


def _cache_files(tmp_path):
    d = tmp_path / "cache" / "__pycache__"
    return sorted(d.glob("*.rwtoml")) if d.exists() else []


def test_second_read_comes_from_the_cache_and_equals_a_fresh_parse(tmp_path, writable_bytecode, monkeypatch):
    path = _toml(tmp_path, 'a = 1\n[t]\nlist = ["x", "y"]\n')
    first = _data.parse_toml_file(path, str(tmp_path / "cache"))
    assert len(_cache_files(tmp_path)) == 1
    assert first == _data.parse_toml_file(path)  # the uncached parse

    class NoParser:
        def __getattr__(self, name):
            raise AssertionError("the TOML parser was used although the cache is valid")

    monkeypatch.setattr(_data, "_toml", NoParser())
    assert _data.parse_toml_file(path, str(tmp_path / "cache")) == first


def test_a_changed_file_is_parsed_again(tmp_path, writable_bytecode):
    path = _toml(tmp_path, "a = 1\n")
    cache_dir = str(tmp_path / "cache")
    assert _data.parse_toml_file(path, cache_dir) == {"a": 1}
    st = os.stat(path)
    with open(path, "w") as fh:
        fh.write("a = 2\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert _data.parse_toml_file(path, cache_dir) == {"a": 2}


def test_a_damaged_cache_is_ignored(tmp_path, writable_bytecode):
    path = _toml(tmp_path, "a = 1\n")
    cache_dir = str(tmp_path / "cache")
    _data.parse_toml_file(path, cache_dir)
    (cache,) = _cache_files(tmp_path)
    cache.write_bytes(b"rwtoml1\n\x00garbage")
    assert _data.parse_toml_file(path, cache_dir) == {"a": 1}
    cache.write_bytes(b"not a cache at all")
    assert _data.parse_toml_file(path, cache_dir) == {"a": 1}


def test_nothing_is_written_where_python_writes_no_bytecode(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    path = _toml(tmp_path, "a = 1\n")
    assert _data.parse_toml_file(path, str(tmp_path / "cache")) == {"a": 1}
    assert _cache_files(tmp_path) == []


def test_a_value_marshal_cannot_hold_is_simply_not_cached(tmp_path, writable_bytecode):
    path = _toml(tmp_path, "when = 2026-11-21\n")
    data = _data.parse_toml_file(path, str(tmp_path / "cache"))
    assert str(data["when"]) == "2026-11-21" and _cache_files(tmp_path) == []


def test_a_broken_toml_file_still_raises(tmp_path, writable_bytecode):
    path = _toml(tmp_path, "a = \n")
    with pytest.raises(_data._toml.TOMLDecodeError):
        _data.parse_toml_file(path, str(tmp_path / "cache"))
