"""Held-out set EJ (tests/data/real/2490-2495, HELDOUT.md): a theme-neutral sample of Ollama's AMD GPU issues of 2024.
Three failing fixtures led at their labelled layer on the unchanged code and the healthy one (2492) had no false alarm;
2490 (Ollama 0.1.45's runner aborting on ggml's 'CUDA error: invalid argument' for 'hipMemGetInfo(free, total)') was
read at framework, and 2493 (Ollama 0.1.29's gfx1010 refusal, cut in the index's copy) stays a miss.  Tracing 2490's
block to ggml's ggml_cuda_error and CUDA_CHECK gave row ej_ggml_hip_runtime_call_failed (hip): a failed HIP runtime
call as ggml names it.  Detection reads Ollama 0.1.x's 'detected amdgpu versions [...]' list (decimal gfx%d%d%d) and
the 0.2-0.3.5 'inference compute' line without its variant field."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "ej_ggml_hip_runtime_call_failed"


@pytest.mark.parametrize("num,layer", [("2490", "hip"), ("2491", "hip"), ("2494", "framework"), ("2495", "runtime")])
def test_the_set_ej_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_healthy_fixture_has_no_problem():
    assert _lead_layer(_fixture("2492")) is None


def test_the_row_is_at_hip():
    assert error_signatures.failure_layer(ROW) == "hip"


@pytest.mark.parametrize("text", [
    # ollama/ollama#5077 (Ollama 0.1.45, fixture 2490): the block glued after Ollama's runner error
    "Error: llama runner process has terminated: signal: aborted (core dumped) CUDA error: invalid argument\n"
    "  current device: 0, in function ggml_backend_cuda_get_device_memory at "
    "/go/src/github.com/ollama/ollama/llm/llama.cpp/ggml-cuda.cu:3018\n"
    "  hipMemGetInfo(free, total)\n"
    "GGML_ASSERT: /go/src/github.com/ollama/ollama/llm/llama.cpp/ggml-cuda.cu:100: !\"CUDA error\"\n",
    # ROCm/rocm-systems#4817 (llama-server on four gfx906, 2026): the 'ROCm error' name and llama.cpp's log prefix
    "/home/nat/Apps/src/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:106: ROCm error\n"
    "70.19.405.775 E ROCm error: an illegal memory access was encountered\n"
    "70.19.405.784 E   current device: -1, in function ggml_backend_cuda_buffer_set_tensor at "
    "/home/nat/Apps/src/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:779\n"
    "70.19.405.786 E   hipMemcpyAsync((char *) tensor->data + offset, data, size, hipMemcpyHostToDevice, "
    "((hipStream_t)2))\n",
])
def test_the_row_reads_ggmls_failed_hip_call(text):
    assert ROW in _ids(text)


@pytest.mark.parametrize("text", [
    # ollama/ollama#738 (Ollama 0.1.29): out of memory has its own rows and rule
    "CUDA error: out of memory\n"
    "  current device: 1, in function ggml_cuda_pool_malloc_leg at "
    "/go/src/github.com/jmorganca/ollama/llm/llama.cpp/ggml-cuda.cu:8584\n"
    "  hipMalloc((void **) &ptr, look_ahead_size)\n",
    # ollama/ollama#8089 (journal lines): a kernel's error checked after the fact, the statement 'err', no HIP call
    "Dec 13 08:41:23 <HOST> ollama[6310]: CUDA error: no kernel image is available for execution on the device\n"
    "Dec 13 08:41:23 <HOST> ollama[6310]:   current device: 0, in function ggml_cuda_compute_forward at "
    "llama/ggml-cuda.cu:2403\n"
    "Dec 13 08:41:23 <HOST> ollama[6310]:   err\n",
    # the BLAS form (the dq_ggml_blas_call_failed row's example, ZLUDA/ZLUDA#604)
    "CUDA error: the function requires an architectural feature absent from the device\n"
    "  current device: 0, in function ggml_cuda_op_mul_mat_cublas at C:\\llamaZLUDA\\llama.cpp\\ggml\\src\\ggml-cuda"
    "\\ggml-cuda.cu:1333\n  cublasGemmEx(\n",
])
def test_other_ggml_reports_are_not_the_row(text):
    assert ROW not in _ids(text)


@pytest.mark.parametrize("text,gfx", [
    # ollama/ollama#2503 (Ollama 0.1.29, fixture 2493)
    ('time=2024-03-15T14:15:29.928-06:00 level=INFO source=amd_linux.go:88 msg="detected amdgpu versions [gfx1010]"',
     ["gfx1010"]),
    # gpu/amd_linux.go's ToGFXString is decimal ("gfx%d%d%d"): a second CPU node prints gfx000, gfx90c gfx9012
    ('level=INFO source=amd_linux.go:88 msg="detected amdgpu versions [gfx000 gfx9012 gfx1030]"', ["gfx90c", "gfx1030"]),
    # ollama/ollama#6336 (Ollama 0.3.3, fixture 2492): the 'inference compute' line before its variant field
    ('time=2024-08-13T16:46:10.463+08:00 level=INFO source=types.go:105 msg="inference compute" id=0 library=rocm '
     'compute=gfx900 driver=0.0 name=1002:687f total="8.0 GiB" available="7.1 GiB"', ["gfx900"]),
])
def test_ollamas_discovery_lines_name_the_gpu_target(text, gfx):
    assert [g.gfx_target for g in paste_facts.parse(text).gpus] == gfx


@pytest.mark.parametrize("text", [
    "Ollama detected amdgpu versions gfx1010 but refused it",                    # prose, no slog msg= form
    'msg="inference compute" id=0 library=cpu compute="" driver=0.0 name="" total="15.5 GiB"',  # the CPU entry
])
def test_text_that_is_not_the_discovery_line_names_no_gpu(text):
    assert not [g for g in paste_facts.parse(text).gpus if g.gfx_target]
