"""The knowledge catalog: facts about GPUs, ROCm releases, PyTorch wheels, Docker images and
community settings, kept as data files in ``catalog/data/`` with a source for every entry.

Modules load their data lazily on first use and cache it; importing this package costs nothing.
"""
from __future__ import annotations

import os

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def data_path(name: str) -> str:
    return os.path.join(DATA_DIR, name)
