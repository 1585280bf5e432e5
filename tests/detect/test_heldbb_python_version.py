"""Held-out set BB (1363): the interpreter's version from a pasted 'python --version' / 'python -V' and its answer
(CPython Modules/main.c: printf("Python %s\\n", PY_VERSION)), the command on a prompt line and the bare line after it."""
from __future__ import annotations

import pytest

from rocm_wizard.detect.parsers import paste_facts


@pytest.mark.parametrize("text, want", [
    # the fixture's Windows prompt (tests/data/real/1363)
    ("(.venv) C:\\AI\\BallonsTranslator>python --version\nPython 3.12.10\n", ["3.12.10"]),
    ("$ python3 --version\nPython 3.11.9\n", ["3.11.9"]),
    ("PS C:\\comfy> py -V\n\nPython 3.13.4\n", ["3.13.4"]),
    ("user@host:~$ python3.12 -V\nPython 3.12.3\n", ["3.12.3"]),
])
def test_the_version_answer_after_its_command_is_read(text, want):
    assert paste_facts.parse(text).pythons == want


@pytest.mark.parametrize("text", [
    "Python 3.12.10\nis the interpreter I use\n",           # no command before it: prose or a heading (the answer
    # alone in a paste is read: set EV, tests/doctor/test_heldout_set_ev.py)
    "$ python -v\nPython 3.12.10\n",                      # -v is verbose mode, not the version
    "$ pip --version\nPython 3.12.10\n",                  # another program's command
    "$ python --version\nThe answer was Python 3.12.10\n",  # not the bare answer
])
def test_near_misses_give_no_version(text):
    assert paste_facts.parse(text).pythons == []
