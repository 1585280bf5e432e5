"""Held-out set AM (tests/data/real/1060-1065, HELDOUT.md): Instinct nodes in 2026, second set.
Each miss's cause fixed from the program that prints the line: AITER's kernel selection finding no kernel
(csrc/py_itfs_cu/asm_*.cu), amdgpu's die line of a page fault on multi-die Instinct GPUs (gmc_v9_0.c), the reason
line of ROCr's memory access fault standing on its own (runtime.cpp), and a GPU fault raised inside a call of the
workload's kernel library (a frame of AITER) placed in that library.  Each is tested on the fixture, on other
wordings of the same source, and on near-misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import doctor_files, fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems


@pytest.mark.parametrize("num,layer", [("1062", "framework"), ("1063", "framework"), ("1064", "runtime"),
                                       ("1065", "runtime")])
def test_the_set_am_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_1060_is_reported_at_its_layer():
    # the HIP rows (illegal address, launch failure) still lead at hip; the runtime's exception now sits at framework
    found = problems(doctor_files_of("1060"))
    assert ("hsa-runtime-error", "framework") in found, found


def doctor_files_of(num):
    from rwtest import realrun
    return realrun.diagnosis(_fixture(num))


# -- AITER finds no kernel for the configuration (1063) ----------------------------------------------------------
@pytest.mark.parametrize("text", [
    # the fixture's line (vllm#51232)
    "[AITER] /app/aiter/aiter_meta/csrc/py_itfs_cu/asm_mla.cu:193 get_heuristic_kernel_mla: cannot get heuristic "
    "kernel! q_type:bf16 kv_type:fp8 gqa:16 ps:0 prefill:0 causal:0 qseqlen:1 lse:0 cprr:0",
    # as torch raises the TORCH_CHECK (RuntimeError), with the MTP query length
    "RuntimeError: get_heuristic_kernel_mla: cannot get heuristic kernel! q_type:bf16 kv_type:fp8 gqa:16 ps:1 qseqlen:8",
    # paged attention's selector (asm_pa.cu)
    "get_heuristic_kernel: cannot get heuristic kernel! q_type:bf16 kv_type:bf16 gqa:0 mtp:0 msk:0 hp:1",
    # the a4w4 GEMM and the topk-softmax entry points (no parameters after it)
    "get_heuristic_kernel: cannot get heuristic kernel!",
    "get_heuristic_tile: cannot get heuristic kernel! arch_id:gfx942 dtype:bf16 subm:32 num_experts:256 topk:8",
])
def test_aiters_missing_kernel_is_known_at_framework(tmp_path, text):
    assert "s11am_aiter_no_heuristic_kernel" in _ids(text)
    assert error_signatures.failure_layer("s11am_aiter_no_heuristic_kernel") == "framework"
    assert ("known-failure", "framework") in problems(doctor_files(tmp_path, {"log.txt": text + "\n"}))


@pytest.mark.parametrize("text", [
    "[aiter] [fused_moe] using 2stage (kernelName1='flydsl_moe1') for ('gfx950', 256, 2)",
    "using heuristic kernel selection for gfx950",
    "hipBLASLt: cannot find a heuristic solution",
])
def test_other_aiter_and_heuristic_lines_are_not_a_missing_kernel(text):
    assert "s11am_aiter_no_heuristic_kernel" not in _ids(text)


# -- the die of a page fault on a multi-die Instinct GPU (1061) ----------------------------------------------------
@pytest.mark.parametrize("text", [
    "[Thu Feb 12 20:35:53 2026] amdgpu 0000:65:00.0: amdgpu:   cookie node_id 1 fault from die AID0.XCD0",
    "[ 812.113] amdgpu 0000:15:00.0: amdgpu:   cookie node_id 14 fault from die AID3.XCD1",
    "amdgpu 0000:05:00.0: amdgpu:   cookie node_id 4 fault from die AID1",
    "amdgpu 0000:05:00.0: amdgpu:   cookie node_id 3 fault from die RSV0",
])
def test_the_fault_die_line_is_part_of_the_page_fault(text):
    assert "s11am_amdgpu_fault_from_die" in _ids(text)
    assert error_signatures.failure_layer("s11am_amdgpu_fault_from_die") == "kernel"


def test_the_fault_die_line_is_no_failure_of_its_own(tmp_path):
    line = "amdgpu 0000:65:00.0: amdgpu:   cookie node_id 1 fault from die AID0.XCD0"
    found = problems(doctor_files(tmp_path, {"dmesg.txt": line + "\n"}))
    assert not [f for f in found if f[0] == "unrecognised-failure"], found


@pytest.mark.parametrize("text", [
    "amdgpu: node_id 1 partition mode SPX",
    "kfd: cookie 0x12 fault handled",
])
def test_other_node_id_lines_are_not_the_die_line(text):
    assert "s11am_amdgpu_fault_from_die" not in _ids(text)


# -- ROCr's fault reason on its own line (1062) -------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "Reason: SRAM ECC failure.`",
    "Reason: SRAM ECC failure.",
    "Reason: Page not present or supervisor privilege.",
    "  Reason: Unknown.",
    "Reason: Write access to a read-only page.",
    "Reason: DRAM ECC failure.",
])
def test_rocrs_reason_line_is_known(text):
    assert "s11am_rocr_fault_reason_line" in _ids(text)


@pytest.mark.parametrize("text", [
    # the whole fault line: the fault's own row, not this one
    "Memory access fault by GPU node-4 (Agent handle: 0x45b03f70) on address 0x7ec01fb64000. Reason: Unknown.",
    # other programs' reasons
    "Reason: the model is too large for this GPU.",
    "Reason: Unknown error",
])
def test_other_reason_lines_are_not_rocrs(text):
    assert "s11am_rocr_fault_reason_line" not in _ids(text)


# -- a GPU fault inside a call of the workload's kernel library (1062, 1060) ---------------------------------------
FAULT = "Memory access fault by GPU node-4 (Agent handle: 0x5616d2f0) on address (nil). Reason: SRAM ECC failure."


@pytest.mark.parametrize("frame", [
    "rocm_aiter_ops.mla_decode_fwd()",
    '  File "/usr/local/lib/python3.12/dist-packages/aiter/mla.py", line 116, in mla_decode_fwd',
    "→ aiter/ops/triton/gluon/mla_gluon.py::mla_gluon",
])
def test_a_fault_inside_aiters_call_is_the_librarys(tmp_path, frame):
    assert "s11am_aiter_call_frame" in _ids(frame)
    found = problems(doctor_files(tmp_path, {"log.txt": FAULT + "\n" + frame + "\n"}))
    assert found[0] == ("memory-access-fault", "framework"), found


@pytest.mark.parametrize("text", [
    FAULT,
    # AITER only switched on, or only its log lines: no call of it is shown running
    "VLLM_ROCM_USE_AITER=1 VLLM_ROCM_USE_AITER_MOE=1 vllm serve zai-org/GLM-4.6-FP8\n" + FAULT,
    "[aiter] [fused_moe] using 1stage (kernelName1='_ZN5aiter46fmoe_bf16') for ('gfx942', 304)\n" + FAULT,
    # another program's frames
    FAULT + '\n  File "/opt/venv/lib/python3.12/site-packages/torch/nn/functional.py", line 2380, in linear',
])
def test_a_fault_without_aiters_call_stays_at_the_runtime(tmp_path, text):
    found = problems(doctor_files(tmp_path, {"log.txt": text + "\n"}))
    assert ("memory-access-fault", "runtime") in found, found


def test_the_runtimes_exception_inside_aiters_call_is_the_librarys(tmp_path):
    text = ("HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception. code: 0x1016\n"
            '  File "/app/aiter/aiter/ops/triton/gluon/mla_gluon.py", line 412, in mla_gluon\n')
    assert ("hsa-runtime-error", "framework") in problems(doctor_files(tmp_path, {"log.txt": text}))


@pytest.mark.parametrize("text", [
    # the exception alone (912, 913): the runtime's
    "HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception. code: 0x1016\n",
    # another status beside an AITER frame: not a kernel's fault on the device
    "HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.\n"
    '  File "/app/aiter/aiter/mla.py", line 116, in mla_decode_fwd\n',
])
def test_other_runtime_errors_stay_at_the_runtime(tmp_path, text):
    assert ("hsa-runtime-error", "runtime") in problems(doctor_files(tmp_path, {"log.txt": text}))
