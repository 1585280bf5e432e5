"""Held-out set FY (tests/data/real/2800-2804, HELDOUT.md): a second theme-neutral sample of llama.cpp's AMD issues from
2025-09 on.  All five threads are llama.cpp's Vulkan back-end on AMD cards crashing or exiting silently (RX 550, RX 7900
XTX, 780M, RX 6800 XT, Strix Halo), each told only in prose or a title; the pastes are version blocks, healthy device
listings and start-up lines, so none is warned and all five are in MISSES (no line of a paste names a failure).  The one
general change is in detection: a drive-letter path to a ``.gguf`` model file, as llama.cpp's loader prints the file it
loads (ggml-org/llama.cpp src/llama-model-loader.cpp; the GGUF format, ggml-org/ggml docs/gguf.md), is a native-Windows
sign, as the other drive-letter paths to a program's files already were."""
from __future__ import annotations

import pytest

from rocm_wizard.detect.windows_facts import windows_sign
from rwtest.heldout import fixture as _fixture, lead_layer as _lead_layer

from doctor.test_known_failure import MISSES as KNOWN_MISSES
from doctor.test_no_silent_failure import MISSES as SILENT_MISSES


@pytest.mark.parametrize("num", ["2800", "2801", "2802", "2803", "2804"])
def test_the_set_fy_misses_are_listed_with_their_reason(num):
    assert "held-out FY" in KNOWN_MISSES[num] and "held-out FY" in SILENT_MISSES[num]


@pytest.mark.parametrize("num", ["2800", "2801", "2802", "2803", "2804"])
def test_the_set_fy_fixtures_raise_no_finding_at_another_layer(num):
    # told only in prose: no warning at all rather than a wrong layer's lead
    assert _lead_layer(_fixture(num)) in (None, "framework")


@pytest.mark.parametrize("text", [
    # the fixture's loader line (ggml-org/llama.cpp#23311, RX 550, Windows, a path with spaces)
    "llama_model_loader: loaded meta data with 25 key-value pairs and 164 tensors from C:\\Users\\anwar\\Desktop\\"
    "trining image ai\\models\\paligemma-3b-mix-224-text-model-q4_k_m.gguf (version GGUF V3 (latest))",
    # the same thread's server line naming the model it loads
    "srv    load_model: loading model 'C:\\Users\\anwar\\Desktop\\trining image ai\\models\\"
    "paligemma-3b-mix-224-text-model-q4_k_m.gguf'",
    # Jan's bundled llama.cpp on Windows (janhq/jan#2888)
    "llama_model_loader: loaded meta data with 21 key-value pairs and 291 tensors from C:\\Users\\vojevoda\\jan\\models\\"
    "llama3-8b-instruct\\Meta-Llama-3-8B-Instruct-Q4_K_M.gguf (version GGUF V3 (latest))",
    # a cmd.exe command line for llama-server (ggml-org/llama.cpp#14698, RX 7800 XT)
    "    --model C:\\HuggingFace\\bartowski\\gemma-3n-E4B-it-GGUF\\gemma-3n-E4B-it-Q6_K_L.gguf ^",
])
def test_a_drive_letter_path_to_a_gguf_model_is_a_native_windows_sign(text):
    assert windows_sign(text)[0] == "path"


@pytest.mark.parametrize("text", [
    # a Linux path (lmstudio-ai/lmstudio-bug-tracker#1343)
    "common_init_from_params: failed to load model '/home/hejj/.lmstudio/models/Qwen/Qwen3-VL-32B-Instruct-GGUF/"
    "Qwen3VL-32B-Instruct-F16-split-00001-of-00002.gguf'",
    # WSL reaching the Windows drive through /mnt/c
    "llama_model_loader: loaded meta data with 25 key-value pairs and 164 tensors from /mnt/c/Users/me/models/m.gguf",
    # a download URL and a bare file name
    "curl -L -o model.gguf https://huggingface.co/unsloth/Qwen3-8B-GGUF/resolve/main/Qwen3-8B-Q4_K_M.gguf",
])
def test_other_model_paths_are_no_windows_sign(text):
    assert windows_sign(text) is None


def test_a_drive_letter_folder_is_no_model_path_sign():
    # a drive-letter folder without a file of a program: not the path sign (its other endings are unchanged); since s23
    # any drive-letter path of two names is the general drive_path sign (windows_facts: every corpus paste with one is
    # from a native Windows host)
    assert windows_sign("models in D:\\models\\gguf\\ are listed")[0] == "drive_path"


def test_2800s_windows_is_now_read_from_its_model_paths():
    from rocm_wizard.detect import detect_snapshot

    system = detect_snapshot(str(_fixture("2800")))
    assert system.os.windows_native is True and system.os.wsl is not True
