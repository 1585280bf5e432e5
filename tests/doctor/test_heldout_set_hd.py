"""Held-out set HD (tests/data/real/3110-3113, HELDOUT.md): a third theme-neutral sample of llama.cpp's HIP/ROCm issues
opened in 2024.  3111 (ggml's 'invalid device function', in the title) and 3112 (ROCr's memory-access fault) led at
their layers on the unchanged code.  3110 was led at framework by the out-of-memory rows, though the call that failed is
HIP's stream creation: ROCm/clr hipamd/src/hip_stream.cpp ihipStreamCreate returns hipErrorOutOfMemory when
hip::Stream::Create() -- the stream's device queue -- fails, so the error names a queue the runtime could not create,
not VRAM the workload exhausted.  Row `hd_hip_stream_create_out_of_memory` (hip) reads HIP's own API trace
('hipStreamCreateWithFlags: Returned hipErrorOutOfMemory', hip_internal.hpp HIP_RETURN), ggml's three-line report of
its stream getter's check (ggml/src/ggml-cuda/common.cuh, ggml_cuda_error) and a program's own check printing the call
with HIP's string.  3113 (a hipBLAS build quitting after ggml's debug-build note 'failed to allocate graph, reserving',
printed on healthy runs too) is a MISSES entry: the failure is told only in the title's prose."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "hd_hip_stream_create_out_of_memory"


@pytest.mark.parametrize("num,layer", [("3110", "hip"), ("3111", "hip"), ("3112", "runtime")])
def test_the_set_hd_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_3110_is_named_by_the_stream_creation_row_and_leads_at_hip():
    assert_named_and_leads("3110", ROW, "hip")
    assert error_signatures.failure_layer(ROW) == "hip"


@pytest.mark.parametrize("text", [
    # the fixture's title: the HIP runtime's AMD_LOG_LEVEL API trace (ggml-org/llama.cpp#8618)
    "Bug: Crashes when attempting to use iGPU: hipStreamCreateWithFlags: Returned hipErrorOutOfMemory : stream:<null>",
    # the fixture's paste: ggml's check of its stream getter, an old tree's 'CUDA error' name (llama.cpp#8618)
    "CUDA error: out of memory\n"
    "  current device: 1, in function stream at /home/mango/neuro/llama.cpp/ggml/src/./ggml-cuda/common.cuh:814\n"
    "  hipStreamCreateWithFlags(&streams[device][stream], 0x01)\n",
    # llama-box's timestamped log of the same check, 'ROCm error' (gpustack/gpustack#1547, 2025-05)
    "[2025-05-29 12:00:35.235796] E ROCm error: out of memory\n"
    "[2025-05-29 12:00:35.235796] E   current device: 0, in function stream at /home/runner/work/llama-box/llama-box/"
    "llama.cpp/ggml/src/ggml-hip/../ggml-cuda/common.cuh:794\n"
    "[2025-05-29 12:00:35.235796] E   hipStreamCreateWithFlags(&streams[device][stream], 0x01)\n",
    # a program's own check printing the call and HIP's string (llnl/camp#157, RAJA's camp resource, 2024-09)
    "terminate called after throwing an instance of 'std::runtime_error'\n"
    "  what():  campHipErrchk(hipStreamCreate(&s)) out of memory .../camp/include/camp/resource/hip.hpp:154\n",
])
def test_the_row_reads_hip_stream_creation_out_of_memory(text):
    assert ROW in _ids(text)


@pytest.mark.parametrize("text", [
    # ggml's out-of-memory of an allocation, no stream call (ollama/ollama#8206): the workload's size, framework's row
    "Dec 22 03:52:41 ollama ollama[6345]: ROCm error: out of memory",
    # HIP's trace of another call's out-of-memory
    ":3:hip_memory.cpp           :615 : 1234567 us: [pid:1 tid:0x7f] hipMalloc: Returned hipErrorOutOfMemory : ",
    # a stream created successfully
    ":3:hip_stream.cpp           :286 : 1234567 us: [pid:1 tid:0x7f] hipStreamCreateWithFlags: Returned hipSuccess : "
    "stream:0x5555",
    # ggml's stream-getter report of another error (a device the build has no code for)
    "CUDA error: invalid device function\n  current device: 0, in function stream at ggml-cuda/common.cuh:814\n"
    "  hipStreamCreateWithFlags(&streams[device][stream], 0x01)\n",
])
def test_other_out_of_memory_and_stream_lines_are_not_this_row(text):
    assert ROW not in _ids(text)
