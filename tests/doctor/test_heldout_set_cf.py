"""Held-out set CF (tests/data/real/1740-1744, HELDOUT.md): an AMD GPU beside an NVIDIA or Intel GPU.
The miss fixed from the program that reads the setting: HIP takes the GPUs it shows a program from
HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES (HIP's environment-variable reference lists both) and
GPU_DEVICE_ORDINAL, so 'CUDA_VISIBLE_DEVICES=-1', the usual way to hide an NVIDIA GPU from CUDA, hides the AMD GPU
from HIP too (ollama/ollama#15752).  Tested on the fixture and on the other ways a paste shows the setting, with
near-misses (real indices, a commented-out line, ROCr's own mask)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot
from rwtest.heldout import doctor_files as _doctor, fixture as _fixture, lead_layer as _lead_layer

RULE = "visible-devices-hide-all"


def _ids(diag):
    return [f.id for f in diag.findings]


# -- the fixture ------------------------------------------------------------------------------------
def test_1744_cuda_mask_of_minus_one_is_read_and_leads_at_hip():
    folder = _fixture("1744")
    assert detect_snapshot(str(folder)).access.env.get("CUDA_VISIBLE_DEVICES") == "-1"
    assert _lead_layer(folder) == "hip"


# -- other wordings of the setting --------------------------------------------------------------------
@pytest.mark.parametrize("text,key", [
    ("CUDA_VISIBLE_DEVICES=-1 ollama serve\n", "CUDA_VISIBLE_DEVICES"),
    ("$ export CUDA_VISIBLE_DEVICES=-1\n$ python -c 'import torch; print(torch.cuda.is_available())'\nFalse\n",
     "CUDA_VISIBLE_DEVICES"),
    ('Environment="CUDA_VISIBLE_DEVICES=-1"\n', "CUDA_VISIBLE_DEVICES"),
    ("docker run -e HIP_VISIBLE_DEVICES=-1 --device /dev/kfd --device /dev/dri rocm/pytorch\n", "HIP_VISIBLE_DEVICES"),
    ("HIP_VISIBLE_DEVICES=-1 ./llama-server -m model.gguf\n"
     "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected\n", "HIP_VISIBLE_DEVICES"),
    # Ollama's server config map, as the server was started
    ('time=2026-04-22T20:40:02.118+02:00 level=INFO source=routes.go:1752 msg="server config" '
     'env="map[CUDA_VISIBLE_DEVICES:-1 GGML_VK_VISIBLE_DEVICES: GPU_DEVICE_ORDINAL: HIP_VISIBLE_DEVICES: '
     'HSA_OVERRIDE_GFX_VERSION: OLLAMA_DEBUG:INFO ROCR_VISIBLE_DEVICES:]"\n', "CUDA_VISIBLE_DEVICES"),
    ("export GPU_DEVICE_ORDINAL=-1\n", "GPU_DEVICE_ORDINAL"),
])
def test_a_negative_hip_mask_hides_every_gpu(tmp_path, text, key):
    diag = _doctor(tmp_path, {"p.txt": text})
    f = diag.finding(RULE)
    assert f is not None, _ids(diag)
    assert f.layer == "hip"
    assert any(key in e for e in f.evidence), f.evidence


def test_the_cuda_mask_says_hip_reads_it_too(tmp_path):
    f = _doctor(tmp_path, {"p.txt": "CUDA_VISIBLE_DEVICES=-1 ollama serve\n"}).finding(RULE)
    assert any("HIP reads CUDA_VISIBLE_DEVICES" in e for e in f.evidence), f.evidence


# -- near-misses ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "CUDA_VISIBLE_DEVICES=0 ollama serve\n",           # a real index: some GPU is left
    "export HIP_VISIBLE_DEVICES=1,0\n",
    '#Environment="CUDA_VISIBLE_DEVICES=-1"\n',         # commented out
    "export ROCR_VISIBLE_DEVICES=0\n",                  # ROCr's own mask, a real index
    "CUDA_VISIBLE_DEVICES=0,-1 python train.py\n",      # the first GPU stays visible
])
def test_real_indices_and_comments_do_not_fire(tmp_path, text):
    assert RULE not in _ids(_doctor(tmp_path, {"p.txt": text}))


def test_the_negative_value_is_read_by_the_paste_reader(tmp_path):
    (tmp_path / "p.txt").write_text("export HIP_VISIBLE_DEVICES=-1\n", encoding="utf-8")
    assert detect_snapshot(str(tmp_path)).access.env.get("HIP_VISIBLE_DEVICES") == "-1"
