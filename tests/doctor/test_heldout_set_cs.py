"""Held-out set CS (tests/data/real/1860-1863, HELDOUT.md): Triton, torch.compile/Inductor and other JIT compilation on
ROCm (PyTorch's rocm-navi31 CI, SGLang's Triton kernel test, SageAttention under triton-windows, MIOpen's hipRTC build).
No lead was missed; the unread lines' causes, each from the program that prints the line: Triton's AMD backend's
link_hsaco exception (triton-lang/triton third_party/amd/python/triton_amd.cc, with lld's reason after 'because'),
MLIR's diagnostic for an operation of Triton's dialects (mlir/lib/IR/Operation.cpp emitOpError, DialectConversion's
'failed to legalize operation'), MLIR's pass-pipeline note wrapped by the paste, and unittest's failed-test header
(cpython Lib/unittest/runner.py printErrorList) placed by the traceback printed under it, not by words above it."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rwtest import realrun
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

LINK = "cs_triton_amd_link_hsaco_failed"
OP = "cs_mlir_triton_dialect_op_error"
MLIR = "s11ao_mlir_pass_pipeline_failed"


@pytest.mark.parametrize("num,layer", [("1860", "framework"), ("1861", "framework"), ("1862", "framework"),
                                       ("1863", "libraries")])
def test_the_set_cs_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row,layer", [("1860", LINK, "framework"), ("1861", MLIR, "framework"),
                                           ("1862", OP, "framework")])
def test_the_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


@pytest.mark.parametrize("num", ["1860", "1861", "1862", "1863"])
def test_no_line_of_the_set_is_left_unread(num):
    ids = [f.id for f in realrun.diagnosis(_fixture(num)).findings]
    assert "unrecognised-failure" not in ids, num


# -- Triton's AMD backend cannot link the kernel's hsaco (1860) ---------------------------------------
@pytest.mark.parametrize("line", [
    # the fixture's exception, as the current source writes it
    "RuntimeError: LLD failed to link hsaco source /tmp/tmpfu_v6ld5 into object file /tmp/tmpamu7yphj",
    # wrapped by Inductor, the reason on the same line (the source's ' because ' + lld's error)
    "torch._inductor.exc.InductorError: RuntimeError: LLD failed to link hsaco source /tmp/a into object file /tmp/b "
    "because ld.lld: error: undefined symbol: __ockl_get_local_size",
    # the first form of the API call (triton-lang/triton#5966: no spaces around the paths), and a user's cut-off echo
    "RuntimeError: LLD failed to link hsaco source/tmp/tmpx1 into object file/tmp/tmpx2",
    "torch._inductor.exc.InductorError: RuntimeError: LLD failed to link hsaco source",
    # the reason on a line of its own, as the fixture's paste wraps it
    "  because ld.lld: error: target emulation unknown: -m or at least one .o file required",
])
def test_triton_link_hsaco_failures_are_named(line):
    assert LINK in _ids(line), line
    assert error_signatures.failure_layer(LINK) == "framework"


@pytest.mark.parametrize("line", [
    # lld's own error with no Triton exception around it (whoever ran lld is who failed)
    "ld.lld: error: target emulation unknown: -m or at least one .o file required",
    # Triton's missing-linker exception (another row's)
    "Exception: ROCm linker /opt/rocm/llvm/bin/ld.lld not found. Set 'TRITON_HIP_LLD_PATH' to its path.",
    # a frame of the backend's link step, not a failure
    '  File ".../site-packages/triton/backends/amd/compiler.py", line 578, in make_hsaco',
])
def test_other_lines_are_not_the_link_failure(line):
    assert LINK not in _ids(line), line


# -- MLIR's error on an op of Triton's dialects (1862) ------------------------------------------------
@pytest.mark.parametrize("line", [
    # the fixture's verifier error at the kernel's source line
    r"C:\ComfyUI\venv\Lib\site-packages\sageattention\attn_qk_int8_per_block.py:17:26: error: 'tt.load' op operation "
    "destroyed but still has uses",
    # the older TritonGPU dialect name, MLIR's loc() form (triton-lang/triton#2855)
    "loc(callsite(\"/x/06-fused-attention.py\":52:35)): error: 'triton_gpu.cmpf' op requires the same encoding for all "
    "operands and results",
    # the dialect conversion's form (pytorch/pytorch#101137, ROCm 5.5)
    "error: failed to legalize operation 'tt.load' that was explicitly marked illegal",
    # the current TritonGPU and AMD dialect names
    "/w/kernels/attn.py:88:20: error: 'ttg.local_load' op operand #0 must be memory descriptor, but got 'tensor<64xf16>'",
    "/w/kernels/gemm.py:41:12: error: 'amdg.buffer_load_to_local' op failed to lower",
])
def test_triton_dialect_op_errors_are_named(line):
    assert OP in _ids(line), line


@pytest.mark.parametrize("line", [
    # an op of an upstream MLIR dialect that is no Triton dialect
    "input.mlir:3:5: error: 'func.func' op entry block must have 1 arguments to match function signature",
    # the Triton op named in prose, not in MLIR's diagnostic
    "the 'tt.load' op of the kernel reads K_scale_ptr",
    # a Triton IR dump line
    "    %63 = tt.load %arg1 : !tt.ptr<f32>",
])
def test_other_lines_are_not_a_triton_op_error(line):
    assert OP not in _ids(line), line


# -- MLIR's pipeline note wrapped by the paste (1861) -------------------------------------------------
def test_the_wrapped_pipeline_note_is_mlirs():
    assert MLIR in _ids("python/sglang/srt/mem_cache/triton_ops/cache_move.py:98:0: note: Pipeline failed")
    assert MLIR in _ids("note: Pipeline failed while executing [`TritonAMDGPUCanonicalizePointers` on 'tt.func' operation: @k]")


@pytest.mark.parametrize("line", ["the CI pipeline failed on the rocm720 lane", "note: Pipeline failed jobs: 3 of 12"])
def test_a_pipeline_in_prose_is_not_mlirs_note(line):
    assert MLIR not in _ids(line), line


# -- unittest's header over a traceback (1861) --------------------------------------------------------
_RUN = """ERROR: test_store_cache_4d_dtype_bf16 (__main__.TestStoreCache4D)
Traceback (most recent call last):
  File ".../test/unit/test_store_cache_4d.py", line 133, in _check_parity
    store_cache_4d(k_kernel, v_kernel, cache_k, cache_v, loc, page_size)
  File ".../python/sglang/srt/mem_cache/triton_ops/cache_move.py", line 251, in store_cache_4d
    store_cache_4d_kernel[grid](
RuntimeError: %s
"""


def test_a_main_test_header_yields_to_the_known_exception_under_it():
    text = "@store_cache_4d_kernel]: reproducer generated for the kernel ...\n\n" + _RUN % "PassManager::run failed"
    known = ["RuntimeError: PassManager::run failed"]
    lines = [line for line, _layer, _l in failure_lines.scan([(text, None, "run")], known)]
    assert not any(line.startswith("ERROR: test_store_cache_4d") for line in lines), lines


def test_a_main_test_header_is_placed_by_the_package_that_raised():
    # the exception is unknown: the header stays, placed by the traceback's raising frame (sglang: framework),
    # not by the word 'kernel' of the compiler's note above it
    text = "@store_cache_4d_kernel]: reproducer generated for the kernel ...\n\n" + _RUN % "some new failure of the op"
    placed = {line: layer for line, layer, _l in failure_lines.scan([(text, None, "run")], [])}
    header = [layer for line, layer in placed.items() if line.startswith("ERROR: test_store_cache_4d")]
    assert header == ["framework"], placed


def test_a_test_header_without_a_traceback_keeps_its_placement():
    # near-miss: no traceback under the header, nothing to place it by: the earlier placement stands (no crash, a line)
    text = "ERROR: test_foo (__main__.T)\n----------------------------------------------------------------------\nRan 1 test\n"
    lines = [line for line, _layer, _l in failure_lines.scan([(text, None, "run")], [])]
    assert any(line.startswith("ERROR: test_foo") for line in lines), lines
