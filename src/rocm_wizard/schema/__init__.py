"""JSON Schemas of rocm-wizard's machine-readable outputs (packaged data files).

``detect.schema.json``: ``rocm-wizard detect --json`` (documented in docs/detect-json.md).
"""
from __future__ import annotations

import os

SCHEMA_DIR = os.path.dirname(os.path.abspath(__file__))


def path(name: str = "detect.schema.json") -> str:
    return os.path.join(SCHEMA_DIR, name)


def load(name: str = "detect.schema.json") -> dict:
    import json

    with open(path(name), encoding="utf-8") as fh:
        return json.load(fh)
