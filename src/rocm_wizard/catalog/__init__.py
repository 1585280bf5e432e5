"""The knowledge catalog: facts about GPUs, ROCm releases, PyTorch wheels, Docker images and
community settings, kept as data files in ``catalog/data/`` with a source for every entry.

Modules (each documents its API in its docstring; see also docs/doctor.md):

* ``gpus``      PCI id / KFD version / GC IP version -> gfx target, chip, products
* ``releases``  ROCm releases from AMD's apt repository (directories, URLs, Ubuntu, kernels, gfx)
* ``wheels``    download.pytorch.org ROCm indexes and torch releases (torchvision/torchaudio/triton)
* ``docker``    AMD's rocm/pytorch and rocm/dev-ubuntu images and run flags
* ``overrides`` community HSA_OVERRIDE_GFX_VERSION values and ROC_ENABLE_PRE_VEGA
* ``support``   joins them: is a gfx target official for a release, which wheels carry it
* ``sources``   the references every entry cites

Modules load their data lazily on first use and cache it; importing this package costs nothing.
"""
from __future__ import annotations

import os

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def data_path(name: str) -> str:
    return os.path.join(DATA_DIR, name)
