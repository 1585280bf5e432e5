"""Fixtures of the verify tests (helpers live in _verify_helpers.py)."""
from __future__ import annotations

import pytest

from _verify_helpers import find_torch_python


@pytest.fixture(scope="session")
def torch_python() -> str:
    """An interpreter that has torch (CI: the CPU wheel), or skip.  Never imports torch here."""
    return find_torch_python()
