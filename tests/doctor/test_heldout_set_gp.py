"""Held-out set GP (tests/data/real/2970-2974, HELDOUT.md): a theme-neutral sample of the text-generation front-ends'
AMD GPU issues (text-generation-webui, KoboldCpp and its ROCm fork, exllamav2).  Three fixtures lead at their layer on
the unchanged code (2970 rocBLAS' Tensile host, 2972 ggml's 'no ROCm-capable device', 2974 HIP's invalid kernel image);
2971 and 2973 tell their failure only in a title the copies cut before (MISSES).  The one detection miss, 2974's
os_id, came from a Windows build's own source locations, which the Windows probe did not read: a compiled program
prints its ``__FILE__:__LINE__`` (ggml's ggml_abort '%s:%d: ', ggml-org/llama.cpp ggml/src/ggml.c, and its HIP/CUDA
error line '... in function %s at %s:%d', ggml/src/ggml-cuda/ggml-cuda.cu; MIOpen's MIOPEN_THROW file:line), and a
binary built on Windows spells it with a drive letter and forward slashes; detect/windows_facts.py now reads it."""
from __future__ import annotations

import pytest

from rocm_wizard.detect.windows_facts import windows_sign
from rwtest.heldout import fixture as _fixture, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("2970", "libraries"), ("2972", "hip"), ("2974", "hip")])
def test_the_set_gp_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("text", [
    # the fixture's line (oobabooga/textgen#7546, text-generation-webui's llama-cpp-binaries on Windows 10)
    "D:/a/llama-cpp-binaries/llama-cpp-binaries/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:97: ROCm error\n",
    # ggml's HIP error line of KoboldCpp's ROCm fork on Windows 10 (YellowRoseCx/koboldcpp-rocm#148, fixture 1825)
    "  current device: 0, in function ggml_cuda_mul_mat_q at "
    "D:/a/koboldcpp-rocm/koboldcpp-rocm/ggml/src/ggml-cuda/mmq.cu:128\n",
    # Ollama's Windows build (ollama/ollama#3107, fixture 2491)
    "  current device: 0, in function ggml_cuda_compute_forward at C:/a/ollama/ollama/llm/llama.cpp/ggml-cuda.cu:2313\n",
    # a llama.cpp fork's router relaying ggml_abort (AtomicBot-ai/atomic-llama-cpp-turboquant#81, fixture 1000)
    "cmd_child_to_router:error:D:/a/atomic-llama-cpp-turboquant/atomic-llama-cpp-turboquant/ggml/src/ggml-cuda/"
    "ggml-cuda.cu:109: ROCm error\n",
    # MIOpen's exception in TheRock's Windows build (ROCm/TheRock#749, fixture 1142)
    "MIOpen Error: D:/jam/TheRock/ml-libs/MIOpen/src/ocl/convolutionocl.cpp:275: No suitable algorithm was found to "
    "execute the required convolution\n",
])
def test_a_windows_builds_source_line_is_a_native_windows_sign(text):
    assert windows_sign(text) is not None
    assert windows_sign(text)[0] == "windows_build_source_line"


@pytest.mark.parametrize("text", [
    # a Linux link step: the object file's name glued to the header's path (fixture 2680, torchvision's build)
    "/tmp/pip-req-build-q4wip4fv/torchvision/csrc/vision.o:/home/andrea/.local/lib/python3.9/site-packages/torch/"
    "include/ATen/core/function_schema.h:132: first defined here\n",
    # the Linux build of the same wheels (a GitHub Linux runner's workspace, oobabooga/textgen#3759)
    "  current device: 0, in function ggml_cuda_compute_forward at /home/runner/work/llama-cpp-python-cuBLAS-wheels/"
    "llama-cpp-python-cuBLAS-wheels/vendor/llama.cpp/ggml/src/ggml-cuda.cu:2299\n",
    # a URL to a source line
    "see https://github.com/ggml-org/llama.cpp/blob/master/ggml/src/ggml-cuda/ggml-cuda.cu:97\n",
    # a drive path without a source file and line
    "copied to D:/models/qwen/\n",
])
def test_lines_that_are_not_a_windows_builds_source_line(text):
    assert windows_sign(text) is None


def test_the_fixtures_os_probe_reads_native_windows():
    from rocm_wizard.detect import detect_snapshot

    assert detect_snapshot(str(_fixture("2974"))).os.windows_native is True
