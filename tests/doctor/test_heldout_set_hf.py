"""Held-out set HF (tests/data/real/3130-3133, HELDOUT.md): a third theme-neutral sample of vLLM's AMD GPU issues
(vllm-project/vllm, 2025-2026).  On the unchanged code the three failing fixtures led at their layer (3130 torch's HIP
out of memory for vLLM's ViT attention, 3131 ROCr's memory access fault under AITER's MoE kernel on MI355X, 3133 hipRTC
unable to load the HIP runtime on NixOS) and the healthy collect_env of 3132 raised no problem.  The one miss was
detection: 3131's gfx950 is named only by the path of the assembly kernel AITER loads, which AITER builds from the
running device's architecture (ROCm/aiter csrc/include/aiter_hip_common.h, load_hsaco_file: AITER_ASM_DIR/<arch>/<file>,
logged as "LoadKernel: <kernel> hsaco: <path>"); paste_facts now reads that load line."""
from __future__ import annotations

import pytest

from rwtest.heldout import fixture as _fixture, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("3130", "framework"), ("3131", "runtime"), ("3133", "packaging"), ("3132", None)])
def test_the_set_hf_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def _gfx(text):
    from rocm_wizard.detect.parsers import paste_facts
    return {g.gfx_target for g in paste_facts.parse(text).gpus if g.gfx_target}


def test_the_aiter_fixture_names_its_gpu_from_the_kernel_load():
    assert _gfx((_fixture("3131") / "vllm-serve.txt").read_text()) == {"gfx950"}


@pytest.mark.parametrize("line,gfx", [
    # vllm-project/vllm#43605 (fixture 3131), MI355X: AITER_ASM_DIR's trailing slash doubles the separator
    ("[aiter] LoadKernel: _ZN5aiter43fmoe_bf16_blockscaleFp8_g1u1_vs_silu_32x384E hsaco: /usr/local/lib/python3.12/"
     "dist-packages/aiter_meta/hsa//gfx950/fmoe/silu/fmoe_bf16_blockscaleFp8_g1u1_vs_silu_32x384.co", "gfx950"),
    # an AITER test build's paged-attention kernel on gfx950 (a repro of AITER's pa_asm, path outside site-packages)
    ("[aiter] LoadKernel: _ZN5aiter40pa_bf16_pertokenFp8_gqa8_1tg_4w_mtp_msk1E hsaco: "
     "/app/aiter-test/hsa//gfx950/pa/pa_bf16_pertokenFp8_gqa8_1tg_4w_mtp_msk1.co", "gfx950"),
    # AITER's own kernel-authoring notes quoting op_tests/test_pa.py's log on gfx942 (path elided, one slash)
    ("# [aiter] LoadKernel: _ZN5aiter32pa_bf16_pertokenFp8_gqa16_2tg_4wE hsaco: "
     ".../hsa/gfx942/pa/pa_bf16_pertokenFp8_gqa16_2tg_4w.co", "gfx942"),
    # a gfx90a (MI210/MI250) build loading a kernel from the MI300 subfolder: the arch folder, not the subfolder's name
    # (the report wraps the line before 'hsaco:' and elides the path's start; joined and completed here)
    ("[aiter] LoadKernel: _ZN5aiter37fmha_fwd_hd128_bf16_causal_rtna_groupE hsaco: /usr/local/lib/python3.12/"
     "site-packages/aiter_meta/hsa//gfx90a/fmha_v3_fwd/MI300/fwd_hd128_bf16_causal_rtna_group.co", "gfx90a"),
])
def test_aiters_kernel_load_line_names_the_running_gpu(line, gfx):
    assert _gfx(line) == {gfx}


@pytest.mark.parametrize("text", [
    # a listing of AITER's kernel folder names every target shipped, not the GPU
    "ls /usr/local/lib/python3.12/dist-packages/aiter_meta/hsa/\ngfx942\ngfx950\n"
    "/usr/local/lib/python3.12/dist-packages/aiter_meta/hsa/gfx950/fmoe/silu/fmoe_bf16_blockscaleFp8_g1u1_vs_silu_32x384.co",
    # a user setting the folder by hand, no load
    "AITER_ASM_DIR=/workspace/aiter_main/hsa/gfx942/ LD_LIBRARY_PATH=./ ./bwd.exe -bwd_v3=1 -v=0",
    # under HSA_OVERRIDE_GFX_VERSION AITER's arch is the overridden one, as rocBLAS's line is
    "export HSA_OVERRIDE_GFX_VERSION=9.4.2\n[aiter] LoadKernel: _ZN5aiter39mla_a8w8_qh64_qseqlen1_gqaratio64_v3_psE "
    "hsaco: /opt/aiter/hsa//gfx942/mla/mla_a8w8_qh64_qseqlen1_gqaratio64_v3_ps.co",
])
def test_near_misses_name_no_gpu_from_aiters_paths(text):
    assert _gfx(text) == set()
