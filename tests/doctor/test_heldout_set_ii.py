"""Held-out set II (tests/data/real/3380-3385, HELDOUT.md): a second theme-neutral sample of Triton's AMD back-end
(vLLM's Triton attention on gfx906, ComfyUI's TorchCompileModel on Strix Halo under Nix, a vLLM fla kernel in the AMD
pipeliner, vLLM's Triton paged attention on MI350X, comfy-kitchen's Triton rope kernel on gfx1151, an inductor kernel
of top-of-tree Triton 3.4 faulting in PyTorch's CI).  3380-3382 led at framework on the unchanged code; 3385 leads
with HIP's aperture-violation line at runtime (as 510: the Triton cause is the thread's diagnosis); 3383 and 3384 tell
their failure only in a title (MISSES).  The fixes:

* 3380: Triton's AMD passes emit "unsupported target: '<arch>'" when deduceISAFamily(arch) is Unknown
  (triton-lang/triton third_party/amd/lib/TritonAMDGPUToLLVM/TritonGPUToLLVM.cpp, TargetUtils.cpp); only the generic
  PassManager row read the traceback.  Row ii_triton_amd_unsupported_target names the cause, and the paste parser reads
  the refused target as the GPU's gfx name.
* 3381: the torch of a Nix store path ('/nix/store/<hash>-python3.13-torch-2.11.0/...', nixpkgs' python package
  derivation name) was not read; the paste parser reads it."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

ROW = "ii_triton_amd_unsupported_target"


@pytest.mark.parametrize("num,layer", [("3380", "framework"), ("3381", "framework"), ("3382", "framework"),
                                       ("3385", "runtime")])
def test_the_set_ii_fixtures_lead_where_their_lines_sit(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_new_row_names_its_fixture_and_leads_at_framework():
    assert_named_and_leads("3380", ROW, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's line (Said-Akbar/triton-gcn5#4: vLLM's Triton flash attention on a gfx906, MLIR's loc("file":L:C))
    "loc(\"/home/x670e/vllm/ogvllm/vllm/attention/ops/triton_flash_attention.py\":309:0): error: unsupported target: "
    "'gfx906'",
    # MLIR's file:line:col location form, as Triton's AMD pipeliner line of ROCm/triton#937 is printed; gfx900, which
    # stock Triton 3.7 refuses the same way (deduceISAFamily knows no GCN family)
    "/work/kernels/add.py:12:0: error: unsupported target: 'gfx900'",
    # MLIR's callsite location form (as a SageAttention kernel's error is printed in Comfy-Org/ComfyUI#6228), gfx803
    "loc(callsite(\"C:\\\\cui\\\\Lib\\\\site-packages\\\\sageattention\\\\attn_qk_int8_per_block.py\":18:23 at "
    "\"C:\\\\cui\\\\Lib\\\\site-packages\\\\sageattention\\\\attn_qk_int8_per_block.py\":78:55)): error: "
    "unsupported target: 'gfx803'",
])
def test_the_row_reads_tritons_target_refusal(line):
    assert ROW in ids(line)
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("line", [
    # another program's refusal of a target that is not a GPU (cube4w's die message)
    "unsupported target: 'mic'",
    # prose about the refusal, without the compiler's 'error:' (a gfx900 fork's notes)
    "Stock Triton 3.7.0 rejects gfx900 even for trivial kernels (`unsupported target: 'gfx900'` because",
    # Triton's other AMD compile errors are other rows'
    "/vllm-upstream-ci/tests/test_chunk2.py:101:22: error: 'tt.assert' op pipeliner doesn't know how to predicate this "
    "op.",
])
def test_near_misses_are_not_read_as_an_unsupported_target(line):
    assert ROW not in ids(line)


def test_the_refused_target_is_read_as_the_gpus_gfx_name():
    facts = paste_facts.parse("loc(\"/x/triton_flash_attention.py\":309:0): error: unsupported target: 'gfx906'\n")
    assert [g.gfx_target for g in facts.gpus] == ["gfx906"]
    # prose naming a target without the compiler's line is not a GPU of the machine
    assert not paste_facts.parse("Triton rejects gfx900 (unsupported target: 'gfx900') on Vega 10\n").gpus


@pytest.mark.parametrize("line,want", [
    # the fixture's frame (nixified-ai/flake#297, ComfyUI under the Nix flake)
    ('  File "/nix/store/n9vi0wbn80mf0wxmw7hrvrxzabmnf581-python3.13-torch-2.11.0/lib/python3.13/site-packages/torch/'
     '_inductor/graph.py", line 2499, in compile_to_module', "2.11.0"),
    # a derivation's second output (nixpkgs' multiple-output packages: '-lib', '-dev')
    ("/nix/store/0123456789abcdfghijklmnpqrsvwxyz-python3.12-torch-2.5.1-lib/lib/libtorch_hip.so", "2.5.1"),
    # torchvision's store path is not torch's
    ('  File "/nix/store/n9vi0wbn80mf0wxmw7hrvrxzabmnf581-python3.13-torchvision-0.26.0/lib/python3.13/site-packages/'
     'torchvision/__init__.py", line 10, in <module>', None),
])
def test_the_torch_of_a_nix_store_path_is_read(line, want):
    got = [v for v, _ in paste_facts.parse(line + "\n").torch]
    assert got == ([want] if want else [])
