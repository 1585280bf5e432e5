"""Held-out set JC (tests/data/real/3580-3584, HELDOUT.md): a theme-neutral sample of threads about machine learning on
AMD GPUs outside the Python frameworks: tinygrad's own AMD back-end refusing an RDNA1 card (3580) and, through exo, a
gfx906 (3581); CubeCL's HIP runtime (Burn's burn-rocm) on RDNA2 failing with ROCr's aperture violation and memory access
fault (3582); CubeCL's generated BF16 kernels no longer compiling against ROCm 7.1's hip_bf16.h (3583); a C++ program
on the ONNX Runtime C++ API with Windows ML's MIGraphX EP crashing inside the bundled amdhip64_7.dll (3584).  On the
unchanged code 3581 was read by the catch-all at no layer and 3583 by the catch-all at packaging.  The fixes, from the
printing programs' sources:

* 3581: tinygrad/tinygrad tinygrad/runtime/ops_amd.py (AMDDevice.__init__) raises RuntimeError (2024) or fails its
  assert (later) with f"Unsupported arch: {self.arch}", self.arch being "gfx%d%x%x" of the KFD node's
  gfx_target_version; exo's tinygrad engine relays it.  Row jc_tinygrad_amd_unsupported_arch (framework), and the
  paste-facts parser reads the target from the line (a detection miss of the set).
* 3583: clang's err_tag_definition_of_typedef ("definition of type %0 conflicts with typedef of the same name",
  llvm/llvm-project clang/include/clang/Basic/DiagnosticSemaKinds.td) for a program redefining one of the 16-bit float
  types HIP's headers declare (ROCm/clr amd_hip_bf16.h: typedef __bf16 __bf16_2 ...; amd_hip_fp16.h; the legacy
  amd_hip_bfloat16.h's struct hip_bfloat16).  Row jc_hip_float16_type_redefined_by_program (framework)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

TINY = "jc_tinygrad_amd_unsupported_arch"
BF16 = "jc_hip_float16_type_redefined_by_program"


@pytest.mark.parametrize("num,layer", [("3580", "framework"), ("3581", "framework"), ("3582", "runtime"),
                                       ("3583", "framework"), ("3584", "hip")])
def test_the_set_jc_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_tinygrad_row_names_its_fixture_and_leads_at_framework():
    assert_named_and_leads("3581", TINY, "framework")


def test_the_float16_type_row_names_its_fixture_and_leads_at_framework():
    assert_named_and_leads("3583", BF16, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's line (tinygrad/tinygrad#7704: exo's tinygrad engine relaying the refusal, gfx906)
    "Error: Failed to fetch completions: Error processing prompt (see logs with DEBUG>=2): Unsupported arch: gfx906",
    # the exception as Python prints it for ops_amd.py's 2024 form (raise RuntimeError(f"Unsupported arch: ...")),
    # on the RDNA2 card of tinygrad#9363 (fixture 2224's gfx1030): rendered from the source, not a paste
    "RuntimeError: Unsupported arch: gfx1030",
    # the later form (assert ..., f"Unsupported arch: {self.arch}") on the RDNA1 card of tinygrad#7504, rendered
    # from the source: the thread's own copy of the line is cut off by the index
    "AssertionError: Unsupported arch: gfx1010",
])
def test_the_tinygrad_row_reads_its_wordings(line):
    assert TINY in ids(line)


@pytest.mark.parametrize("line", [
    'AMD gfx1010: "Unsupported arch: {self.arch}',      # 3580's title: the source's f-string, no target
    "ERROR: Unsupported arch: gfx1201",                   # a bare line of another tool: too plain to name tinygrad
    "ValueError: Unsupported arch: arm64",                # other programs' CPU-architecture refusals
])
def test_lines_that_are_not_tinygrads_refusal_do_not_fire(line):
    assert TINY not in ids(line)


@pytest.mark.parametrize("text,gfx", [
    ("Error: Failed to fetch completions: Error processing prompt (see logs with DEBUG>=2): Unsupported arch: gfx906\n",
     "gfx906"),
    ("AssertionError: Unsupported arch: gfx90a\n", "gfx90a"),
])
def test_the_refusal_names_the_gpu_target(text, gfx):
    assert [g.gfx_target for g in paste_facts.parse(text).gpus] == [gfx]


def test_the_source_f_string_names_no_target():
    assert paste_facts.parse('AMD gfx1010: "Unsupported arch: {self.arch}\n').gpus == []


@pytest.mark.parametrize("line", [
    # the fixture's line (tracel-ai/cubecl#1147: CubeCL's HIP dialect's own struct __bf16_2 against ROCm 7.1.1)
    "error: definition of type '__bf16_2' conflicts with typedef of the same name",
    # RCCL's hipified typedef __hip_bfloat16 hip_bfloat16 meeting the legacy header's struct (ROCm/rccl#2082)
    "/opt/rocm/include/hip/amd_detail/amd_hip_bfloat16.h:57:8: error: definition of type 'hip_bfloat16' conflicts "
    "with typedef of the same name",
    # the same through ROCm 7.0.0's rocprim/thrust headers in an rcclx build (ROCm/rccl#2107)
    "fbcode/third-party-buck/platform010/build/rocm/7.0.0/include/hip/amd_detail/amd_hip_bfloat16.h:57:8: error: "
    "definition of type 'hip_bfloat16' conflicts with typedef of the same name",
])
def test_the_float16_type_row_reads_its_wordings(line):
    assert BF16 in ids(line)


@pytest.mark.parametrize("line", [
    # OpenImageIO's half under CUDA (a conan recipe's comment in the code index): not one of HIP's names
    "error: definition of type 'half' conflicts with typedef of the same name",
    # cimgui bindings (a build log quoted in the code index)
    "error: definition of type 'ImDrawChannel' conflicts with typedef of the same name",
    # clang's own test (clang/test/SemaCXX/typedef-redecl.cpp)
    "error: definition of type 'struct Y2' conflicts with typedef of the same name",
])
def test_other_typedef_conflicts_do_not_fire(line):
    assert BF16 not in ids(line)


def test_the_new_rows_sit_at_framework():
    assert error_signatures.failure_layer(TINY) == "framework"
    assert error_signatures.failure_layer(BF16) == "framework"
