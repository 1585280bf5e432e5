"""(s23) pip and uv replacing the ROCm build of torch with one that is not ROCm's (failures.toml
``s23_rocm_torch_replaced``, read at framework: where the user acts, PyTorch's reinstall, and where the corpus reads a
wrong torch build): read from the installers' own change reports -- pip's
'Successfully uninstalled <name>-<version>' and 'Successfully installed ...' (pypa/pip req_uninstall.py,
commands/install.py), uv's ' - name==version' / ' + name==version' list (astral-sh/uv crates/uv/src/commands/pip/
operations.rs report_changes).  A swap between two ROCm builds, the way back to ROCm, or a CUDA build replaced by
another is not this failure."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import fixture as _fixture, ids as _ids, lead_layer as _lead_layer

PIP = UV = "s23_rocm_torch_replaced"

# pip's lines as it prints them (the format above; the uninstall's indentation is pip's nesting under 'Attempting
# uninstall'), with other packages' uninstalls between the two lines
PIP_SWAP = """Installing collected packages: nvidia-cublas-cu12, torch, xformers
  Attempting uninstall: torch
    Found existing installation: torch 2.4.1+rocm6.1
    Uninstalling torch-2.4.1+rocm6.1:
      Successfully uninstalled torch-2.4.1+rocm6.1
  Attempting uninstall: sympy
    Found existing installation: sympy 1.13.1
    Uninstalling sympy-1.13.1:
      Successfully uninstalled sympy-1.13.1
Successfully installed nvidia-cublas-cu12-12.4.5.8 sympy-1.13.3 torch-2.5.1 xformers-0.0.28.post3
"""


@pytest.mark.parametrize("text,row", [
    (PIP_SWAP, PIP),
    (PIP_SWAP.replace("torch-2.5.1 ", "torch-2.5.1+cu124 "), PIP),          # the PyTorch index's CUDA build
    (PIP_SWAP.replace("torch-2.5.1 ", "torch-2.6.0.dev20241201+cpu "), PIP),  # a CPU nightly
    # tests/data/real/3012 (unslothai/unsloth#7275): uv's change list as the installer logged it
    ("- torch==2.11.0+rocm7.13.0\n+ torch==2.10.0", UV),
    (" - torch==2.4.1+rocm6.1\n + torch==2.5.1+cu124\n + xformers==0.0.28.post3", UV),
    (" - torch==2.4.1+rocm6.1\n - torchvision==0.19.1+rocm6.1\n + torch==2.5.1\n + torchvision==0.20.1", UV),
])
def test_the_rows_read_a_rocm_torch_replaced(text, row):
    assert row in _ids(text)
    assert error_signatures.failure_layer(row) == "framework"


@pytest.mark.parametrize("text", [
    # a ROCm build replaced by another ROCm build (an upgrade within the ROCm index)
    PIP_SWAP.replace("torch-2.5.1 ", "torch-2.5.1+rocm6.2 "),
    " - torch==2.4.1+rocm6.1\n + torch==2.5.1+rocm6.2",
    # the way back: a CUDA or plain torch replaced by the ROCm build
    " - torch==2.10.0\n + torch==2.11.0+rocm7.13.0",
    # a CUDA build replaced by PyPI's plain one (C0untFloyd/roop-unleashed#70, pip's two lines as quoted there)
    "Successfully uninstalled torch-2.1.2+cu118\n\nSuccessfully installed torch-2.2.2 torchvision-0.17.2",
    # torchvision or a package named like torch, not torch itself
    "Successfully uninstalled torchvision-0.19.1+rocm6.1\nSuccessfully installed torchvision-0.20.1",
    "Successfully uninstalled torch-2.4.1+rocm6.1\nSuccessfully installed pytorch-triton-rocm-3.1.0 torchaudio-2.5.1",
    # uv listing an installed ROCm torch (no removal)
    " + torch==2.5.1+rocm6.2\n + torchvision==0.20.1+rocm6.2",
])
def test_near_misses(text):
    assert not {PIP, UV} & set(_ids(text))


def test_fixture_3012_names_uvs_swap_at_framework():
    folder = _fixture("3012")
    assert UV in _ids((folder / "installing-unsloth-step.txt").read_text())
    assert _lead_layer(folder) == "framework"
