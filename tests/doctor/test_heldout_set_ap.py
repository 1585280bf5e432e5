"""Held-out set AP (tests/data/real/1120-1127, HELDOUT.md): Ollama and LM Studio on AMD GPUs in 2026.
The misses fixed by their general causes, tested on the fixtures, other wordings and near-misses:
* Ollama's inventory holding only the CPU ('inference compute id=cpu library=cpu') was unknown (1120):
  row ``s11ap_ollama_inference_compute_cpu_only``;
* Ollama's 'disabling multimodal projector offload' with a reason of its memory policy was unknown (1121):
  row ``s11ap_ollama_mmproj_offload_disabled``;
* LM Studio's 'Error loading model. (Exit code: N)' dialog was unknown (1124): row ``s11ap_lmstudio_error_loading_model``.
(1123's ggml device line under journald's prefix: tests/detect/test_heldap_journal_device.py.)"""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import ids as _ids, lead_layer as _lead_layer
from rwtest.heldout import fixture as _fixture

CPU_ONLY = "s11ap_ollama_inference_compute_cpu_only"
MMPROJ = "s11ap_ollama_mmproj_offload_disabled"
LMS_LOAD = "s11ap_lmstudio_error_loading_model"


@pytest.mark.parametrize("num,layer", [("1121", "framework"), ("1124", "framework")])
def test_the_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("row", [CPU_ONLY, MMPROJ, LMS_LOAD])
def test_the_rows_are_at_framework(row):
    assert error_signatures.failure_layer(row) == "framework"


# -- Ollama's CPU-only inventory (1120) --------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    # 1120's fragment
    "inference compute id=cpu library=cpu\ntotal_vram=\"0 B\"\n",
    # ollama#12903's whole slog line (0.12.8)
    'time=2025-11-01T15:21:35.202-04:00 level=INFO source=types.go:60 msg="inference compute" id=cpu library=cpu '
    'compute="" name=cpu description=cpu libdirs=ollama driver="" pci_id="" type="" total="7.7 GiB" '
    'available="4.8 GiB"\n',
    # older releases (likelovewant/ollama-for-amd#14): id=0 library=cpu
    'time=2024-08-09T00:25:59.237+08:00 level=INFO source=types.go:105 msg="inference compute" id=0 library=cpu '
    'compute="" driver=0.0 name="" total="31.9 GiB" available="24.9 GiB"\n',
    # journald's form
    'Mar 18 10:00:01 host ollama[812]: time=2026-03-18T10:00:01.000Z level=INFO source=types.go:42 '
    'msg="inference compute" id=cpu filter_id="" library=cpu compute="" name=cpu\n',
])
def test_ollamas_cpu_only_inventory_is_named(line):
    assert CPU_ONLY in _ids(line), line


@pytest.mark.parametrize("line", [
    # a GPU in the inventory
    'msg="inference compute" id=0 filter_id=0 library=ROCm compute=gfx1151 name=ROCm0 description="Radeon 8060S '
    'Graphics" libdirs=ollama,rocm_v7_2 driver=0.0 pci_id=0000:c3:00.0 type=iGPU total="113.5 GiB"\n',
    'msg="inference compute" id=GPU-b3d5d3574c66244c library=rocm variant="" compute=gfx1200 driver=0.0\n',
    # a CPU line of another program
    "llama_model_load: using device CPU - library=cpu\n",
])
def test_near_misses_are_not_the_cpu_only_row(line):
    assert CPU_ONLY not in _ids(line), line


# -- Ollama's projector offload policy (1121) --------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    # 1121's lines as the user split them
    'level=INFO source=llama_server.go:611\nmsg="disabling multimodal projector offload"\nreason=limited-vram\n',
    # the whole slog line
    'time=2026-08-04T08:30:00.924-07:00 level=INFO source=llama_server.go:614 msg="disabling multimodal projector '
    'offload" reason=limited-vram model=/root/.ollama/models/blobs/sha256-aa projector=/root/.ollama/models/blobs/'
    'sha256-bb\n',
    # the other reasons of the same function
    'msg="disabling multimodal projector offload" reason=shared-memory-gpu model=/m projector=/p\n',
    'msg="disabling multimodal projector offload" reason=startup-oom-retry model=/m projector=/p\n',
    'msg="disabling multimodal projector offload" reason=partial-text-offload model=/m projector=/p\n',
])
def test_the_projector_offload_policy_is_named(text):
    assert MMPROJ in _ids(text), text


@pytest.mark.parametrize("text", [
    # num_gpu 0: the user asked for the CPU
    'msg="disabling multimodal projector offload" reason=cpu-only model=/m projector=/p\n',
    # llama.cpp's own flag and log, not Ollama's policy
    "clip_ctx: CLIP using CPU backend\n",
    "llama-server --mmproj /p --no-mmproj-offload\n",
])
def test_near_misses_are_not_the_projector_row(text):
    assert MMPROJ not in _ids(text), text


# -- LM Studio's load failure (1124) ------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    # 1124's dialog
    "Failed to load last used model.\n\nError loading model.\n\n(Exit code: 18446744072635812000). Unknown error. "
    "Try a different model and/or config.\n",
    # lmstudio-bug-tracker#1918: a killed engine
    "🥲 Failed to load the model\n\nError loading model.\n\n(Exit code: null). Please check settings and try loading "
    "the model again. \n",
    # the dialog's first two lines alone
    "Failed to load the model\nError loading model.\n",
])
def test_lm_studios_load_failure_is_named(text):
    assert LMS_LOAD in _ids(text), text


@pytest.mark.parametrize("text", [
    # llama.cpp's own loader message (its reason follows; other rows read it)
    "llama_model_load: error loading model: error loading model vocabulary: unknown pre-tokenizer type\n",
    "llama_load_model_from_file: failed to load model\n",
    # a process exit code without LM Studio's dialog
    "Process exited with code 3221226505\n",
])
def test_near_misses_are_not_the_lm_studio_row(text):
    assert LMS_LOAD not in _ids(text), text
