"""Held-out set GC (tests/data/real/2840-2843, HELDOUT.md): a theme-neutral sample of NixOS's ROCm and amdgpu-compute
issues of 2023-2026 (NixOS/nixpkgs).  One of four led at its layer on the unchanged code (2843, clinfo's -1001).  The
fixes, from the printing programs' sources: `gc_llama_not_compiled_with_gpu_offload` reads llama.cpp's warning that a
binary has no GPU back-end ('not compiled with GPU offload support, --gpu-layers option will be ignored', common/arg.cpp
and the older common/common.cpp) at packaging -- the build is CPU-only; and `gc_nix_evaluation_error_trace` reads Nix's
evaluation error told by its trace ('error:' then '… while calling ...' / '… from call site' frames, NixOS/nix
src/libexpr/eval.cc, src/libutil/error.cc) at packaging when the final error line is not pasted.  2841 (Ollama's CPU
fallback told only in prose) stays a miss."""
from __future__ import annotations

import pytest

from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

LLAMA = "gc_llama_not_compiled_with_gpu_offload"
NIX = "gc_nix_evaluation_error_trace"


@pytest.mark.parametrize("num,layer", [("2840", "packaging"), ("2842", "packaging"), ("2843", "runtime")])
def test_the_set_gc_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_2841_stays_without_a_warning_its_failure_told_only_in_prose():
    # Ollama's amd_linux.go 'amdgpu version file missing' is printed on every inbox-driver system (MISSES)
    assert _lead_layer(_fixture("2841")) is None


def test_the_llama_row_names_2842s_line_and_the_fixture_leads_at_packaging():
    assert_named_and_leads("2842", LLAMA, "packaging")


@pytest.mark.parametrize("text", [
    # the fixture's line (NixOS/nixpkgs#364708, llama-server of nixpkgs' llama-cpp built with the renamed GGML_HIPBLAS)
    "warning: not compiled with GPU offload support, --gpu-layers option will be ignored",
    # llama.cpp's CI on a CPU-only runner (ggml-org/ci llama.cpp/*/README.md, embd_bge_small with -ngl 99)
    "+ ./bin/llama-embedding --model ../models-mnt/bge-small/ggml-model-f16.gguf -p 'I believe the meaning of life is' "
    "-ngl 99 -c 0\nwarning: not compiled with GPU offload support, --gpu-layers option will be ignored",
    # the older common/common.cpp wording (#ifndef LLAMA_SUPPORTS_GPU_OFFLOAD, 2023-2024)
    "warning: not compiled with GPU offload support, --n-gpu-layers option will be ignored",
    # the same file's draft-model option
    "warning: not compiled with GPU offload support, --gpu-layers-draft option will be ignored",
])
def test_the_llama_row_reads_a_cpu_only_build_in_real_wordings(text):
    assert LLAMA in _ids(text)


@pytest.mark.parametrize("text", [
    # later llama.cpp (common/arg.cpp): llama_supports_gpu_offload() false at run time -- a GPU build without a device too
    "warning: no usable GPU found, --gpu-layers option will be ignored",
    # a report quoting the warning's first words in prose (no option named)
    "- The old warning about `not compiled with GPU offload support` is gone.",
    # PyTorch's own refusal (another row's)
    "AssertionError: Torch not compiled with CUDA enabled",
])
def test_lines_that_are_not_a_cpu_only_llama_build_are_not_read_by_the_llama_row(text):
    assert LLAMA not in _ids(text)


def test_the_nix_row_names_2840s_trace_and_the_fixture_leads_at_packaging():
    assert_named_and_leads("2840", NIX, "packaging")


@pytest.mark.parametrize("text", [
    # the fixture's trace (NixOS/nixpkgs#481463, rocmPackages.rpp-opencl in hardware.graphics.extraPackages)
    "> Building NixOS configuration\nerror:\n       … while calling anonymous lambda\n"
    "         at /nix/store/kfcxqcxb9hcq6x33sg4cmwakbb1ifwg9-source/lib/attrsets.nix:1708:17:",
    # nix build of a package whose derivation does not evaluate (a NixOS user's blog post on openvehiclediag)
    "[lyuk98@framework:~/nixos-config]$ nix build .#openvehiclediag\nerror:\n"
    "       … while calling the 'derivationStrict' builtin\n         at <nix/derivation-internal.nix>:37:12:",
    # a CI dev shell that does not evaluate on aarch64-darwin (frames without positions)
    "error:\n       … while calling the 'derivationStrict' builtin\n       … while evaluating derivation 'nix-shell'",
    # a flake's home-manager generation, the ellipsis as the paste reader folds it
    "error:\n       ... while calling the 'derivationStrict' builtin\n         at <nix/derivation-internal.nix>:37:12:",
])
def test_the_nix_row_reads_an_evaluation_trace_in_real_wordings(text):
    assert NIX in _ids(text)


@pytest.mark.parametrize("text", [
    # a trace quoted inside a Nix comment (not Nix's own output)
    "# error:\n#        … while evaluating 'strict' to select 'drvPath' on it",
    # a builder failure (a build, not an evaluation: other rows)
    "error: builder for '/nix/store/9l7mbqkfl1ip02zq0wkffwcpcmd7mcfz-rocm-llvm-libc-5.7.1.drv' failed with exit code 1;",
    # prose describing the format on one line
    "Nix prints error: and then … while calling frames above the real message",
])
def test_lines_that_are_not_a_nix_evaluation_trace_are_not_read_by_the_nix_row(text):
    assert NIX not in _ids(text)
