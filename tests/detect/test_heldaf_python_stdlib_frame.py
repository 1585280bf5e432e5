"""Set AF (959, detection): the interpreter a traceback frame in its own standard library names
(CPython's stdlib is <prefix>/lib/pythonX.Y, python/cpython Lib/sysconfig)."""
from __future__ import annotations

from pathlib import Path

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import paste_facts


def test_stdlib_frames_name_the_interpreter():
    text = ('2025-12-24T11:08:37.0060235Z   File "/__w/_tool/Python/3.13.11/x64/lib/python3.13/ctypes/__init__.py", '
            'line 361, in __init__\n'
            '  File "/usr/lib64/python3.9/subprocess.py", line 571, in run\n')
    assert paste_facts.parse(text).stdlib_pythons == ["3.13", "3.9"]


def test_site_packages_frames_and_unversioned_paths_are_not_stdlib_frames():
    text = ('  File "/home/u/venv/lib/python3.12/site-packages/torch/__init__.py", line 443, in <module>\n'
            '  File "/usr/lib/python3/dist-packages/apt/cache.py", line 12, in <module>\n'
            '  File "/opt/app/python3.11/tool.py", line 3, in <module>\n')
    assert paste_facts.parse(text).stdlib_pythons == []


def test_one_interpreter_from_stdlib_frames_is_the_systems_python(tmp_path: Path):
    (tmp_path / "log.txt").write_text(
        '  File "/usr/lib/python3.12/ctypes/__init__.py", line 379, in __init__\n'
        "    self._handle = _dlopen(self._name, mode)\n"
        "OSError: liborigami.so.1: cannot open shared object file: No such file or directory\n", encoding="utf-8")
    assert detect_snapshot(str(tmp_path)).os.python == "3.12"


def test_two_interpreters_named_give_none(tmp_path: Path):
    (tmp_path / "log.txt").write_text(
        '  File "/usr/lib/python3.12/subprocess.py", line 1, in run\n'
        '  File "/usr/lib/python3.10/subprocess.py", line 1, in run\n', encoding="utf-8")
    assert detect_snapshot(str(tmp_path)).os.python is None
