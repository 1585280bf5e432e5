"""Held-out set AE (tests/data/real/930-937, HELDOUT.md): LLM inference servers on AMD GPUs.
Each miss's cause fixed from the program that prints the line: ggml's abort for a failed HIP virtual-memory call
(ggml-org/llama.cpp ggml/src/ggml-cuda/vendors/hip.h, CU_CHECK -> "HipVMM Failure: %s") and vLLM's refusal of an
attention backend (vllm-project/vllm vllm/platforms/{cuda,rocm}.py, get_attn_backend_cls); tested on the fixture and
on other wordings of the same source, with a near-miss each."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, ids as _ids

ROW_VMM = "s10ae_ggml_hip_vmm_call_failed"
ROW_ATTN = "s10ae_vllm_attention_backend_not_valid"


# -- ggml's VMM pool: a HIP virtual-memory call failed (931) -------------------------------------------
def test_931_the_vmm_failure_is_hips_and_leads():
    assert_named_and_leads("931", ROW_VMM, "hip")


@pytest.mark.parametrize("line", [
    # the fixture's line (llama.cpp PR #26054, ROCm 7.2.4, gfx1201)
    "ggml_cuda.cu:648: HipVMM Failure: invalid argument",
    # with the whole source path, as a llama-bench build aborts on Strix Halo (another line number)
    "/home/me/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:669: HipVMM Failure: invalid argument",
    # another hipGetErrorString value of the same macro (hipMemCreate out of memory)
    "ggml-cuda.cu:512: HipVMM Failure: out of memory",
    # under journald, as a llama-server service logs it
    "Jul 23 10:01:02 box llama-server[4242]: /src/ggml/src/ggml-cuda/ggml-cuda.cu:648: HipVMM Failure: "
    "operation not supported",
])
def test_the_hipvmm_abort_is_named_in_its_wordings(line):
    assert ROW_VMM in _ids(line), line


@pytest.mark.parametrize("line", [
    # the device line announcing VMM support is no failure
    "  Device 0: AMD Radeon AI PRO R9700, gfx1201 (0x1201), VMM: yes, Wave Size: 32",
    # the CUDA build's abort for the same call names the driver API, not HIP ("CUDA error")
    "ggml-cuda.cu:648: CUDA error",
])
def test_the_hipvmm_row_is_the_hip_macros_abort_only(line):
    assert ROW_VMM not in _ids(line), line


def test_the_vmm_row_sits_at_hip():
    assert error_signatures.failure_layer(ROW_VMM) == "hip"


# -- vLLM refuses the attention backend for this model (932) --------------------------------------------
def test_932_the_refused_attention_backend_is_the_frameworks_and_leads():
    assert_named_and_leads("932", ROW_ATTN, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's title (cut by GitHub's title length)
    "It prompts: ValueError: Selected backend AttentionBackendEnum.ROCM_ATTN is not valid for this configuration. "
    "Reason: ['attention sinks not supported",
    # an engine-core log line of vLLM 0.27 (Triton backend, NVFP4 KV cache)
    "(EngineCore pid=91) ValueError: Selected backend AttentionBackendEnum.TRITON_ATTN is not valid for this "
    "configuration. Reason: ['kv_cache_dtype not supported']",
    # an AITER backend refused for a KV connector (ROCm)
    "ValueError: Selected backend AttentionBackendEnum.ROCM_AITER_UNIFIED_ATTN is not valid for this "
    "configuration. Reason: ['KV connector not supported']",
    # no backend at all fits (the platform's search)
    "ERROR 12-29 15:21:11 [multiproc_executor.py:751] ValueError: No valid attention backend found for cuda with "
    "AttentionSelectorConfig(head_size=576, dtype=torch.bfloat16, kv_cache_dtype=auto, block_size=None, "
    "use_mla=True, has_sink=False, use_sparse=True)",
])
def test_the_attention_backend_refusal_is_named_in_its_wordings(line):
    assert ROW_ATTN in _ids(line), line


@pytest.mark.parametrize("line", [
    # the backend accepted: vLLM's info line
    "INFO 04-14 02:13:10 [rocm.py:310] Using AttentionBackendEnum.ROCM_ATTN backend.",
    # another program's "not valid for this configuration" message
    "error: option --foo is not valid for this configuration",
])
def test_the_attention_row_is_vllms_refusal_only(line):
    assert ROW_ATTN not in _ids(line), line
