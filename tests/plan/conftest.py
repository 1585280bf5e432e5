"""Fixtures of the plan-engine tests (helpers live in plan_helpers.py)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from plan_helpers import SYSTEMS  # noqa: E402


@pytest.fixture
def seed_system():
    from rocm_wizard import model

    def load(name: str):
        with open(SYSTEMS / f"{name}.json") as fh:
            s = model.from_dict(model.System, json.load(fh))
        s.origin = "snapshot"
        return s

    return load
