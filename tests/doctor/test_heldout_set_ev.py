"""Held-out set EV (tests/data/real/2572-2577, HELDOUT.md): a theme-neutral sample of the other ML frameworks' ROCm
issues (jax-ml/jax, microsoft/onnxruntime, deepspeedai/DeepSpeed, ROCm/tensorflow-upstream).  On the unchanged code:

* 2573: ONNX Runtime's provider-options check ('EnumToName Failed to map enum value to name: 25', include/onnxruntime/
  core/framework/provider_options_utils.h) was read at libraries by the catch-all (the line names MiGraphX).  A row,
  ev_ort_provider_options_not_understood, now reads that file's messages and the Python binding's 'Invalid MIGraphX EP
  option' at framework (ONNX Runtime's own check of the options a binding hands it).
* 2574: ninja's 'FAILED: pt_binding_hip.o' of DeepSpeed's JIT op build was read at packaging (the catch-all's ninja
  row).  A whole-text row, ev_torch_extension_ninja_edge_failed, reads a ninja FAILED line whose command carries
  PyTorch's -DTORCH_EXTENSION_NAME= (torch/utils/cpp_extension.py) at framework: a package's own extension source.
* 2572's python_version: an issue form's bare 'Python 3.11.6' (python3 --version's answer alone in a paste) is read.
* 2575 and 2577: failures told only in prose (MISSES)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ORT = "ev_ort_provider_options_not_understood"
NINJA = "ev_torch_extension_ninja_edge_failed"


@pytest.mark.parametrize("num,layer", [("2572", "framework"), ("2576", "framework")])
def test_the_set_ev_fixtures_that_led_before_still_lead(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row", [("2573", ORT), ("2574", NINJA)])
def test_the_fixed_fixtures_are_named_and_lead_at_framework(num, row):
    assert_named_and_leads(num, row, "framework")


def test_the_prose_only_misses_stay_misses():
    assert _lead_layer(_fixture("2575")) == "packaging"  # ds_report's async_io note, not the HIP error
    assert _lead_layer(_fixture("2577")) is None


@pytest.mark.parametrize("text", [
    # pykeio/ort#509 (2026-01-08, fixture 530): the same check through onnxruntime-rocm 1.23.2's MIGraphX provider
    "Error: /usr/src/debug/onnxruntime/onnxruntime-opt-rocm/include/onnxruntime/core/framework/provider_options_utils.h:41 "
    "std::string onnxruntime::EnumToName(EnumNameMapping<TEnum>&, TEnum) [with TEnum = ArenaExtendStrategy] "
    "[ONNXRuntimeError] : 1 : FAIL : provider_options_utils.h:31 EnumToName Failed to map enum value to name: 4147200\n",
    # microsoft/onnxruntime#27583 (2026-03-07, fixture 2573): the Rust ort crate's registration
    "Error: Failed to register MiGraphX: /home/sink/source/onnxruntime/include/onnxruntime/core/framework/"
    "provider_options_utils.h:41 [ONNXRuntimeError] : 1 : FAIL : provider_options_utils.h:31 EnumToName Failed to map "
    "enum value to name: 25\n",
    # microsoft/onnxruntime#25379 (2025-07-13): the Python binding refusing a documented MIGraphX option
    "EP Error /onnxruntime/onnxruntime/python/onnxruntime_pybind_state.cc:966 std::unique_ptr<onnxruntime::"
    "IExecutionProvider> onnxruntime::python::CreateExecutionProviderInstance(const onnxruntime::SessionOptions&, const "
    "std::string&, const onnxruntime::ProviderOptionsMap&) Invalid MIGraphX EP option: migraphx_load_compiled_path\n",
])
def test_onnx_runtime_provider_option_refusals_are_read_at_framework(text):
    assert ORT in _ids(text)
    assert error_signatures.failure_layer(ORT) == "framework"


@pytest.mark.parametrize("text", [
    # deepspeedai/DeepSpeed#3548 (2023, fixture 2574): ninja's FAILED line, the command after it
    "FAILED: pt_binding_hip.o \nc++ -MMD -MF pt_binding_hip.o.d -DTORCH_EXTENSION_NAME=transformer_inference "
    "-DTORCH_API_INCLUDE_EXTENSION_H -isystem /opt/rocm-5.4.2/include -fPIC -std=c++14 -O3 -std=c++14 -g \n",
    # deepspeedai/DeepSpeed#4050 (2023-07-26): the progress line's command, then FAILED (the paste cut after it)
    "[1/2] c++ -MMD -MF cpu_adam.o.d -DTORCH_EXTENSION_NAME=cpu_adam -DTORCH_API_INCLUDE_EXTENSION_H "
    "-I/home/ubuntu/.local/lib/python3.8/site-packages/deepspeed/ops/csrc/includes -fPIC -std=c++17 -O3 -c "
    "/home/ubuntu/.local/lib/python3.8/site-packages/deepspeed/ops/csrc/adam/cpu_adam.cpp -o cpu_adam.o \n"
    "FAILED: cpu_adam.o\n",
    # hkust-zhiyao/RTL-Coder#13 (2024-08-07): the same without the trailing blank
    "Building extension module cpu_adam...\n[1/3] c++ -MMD -MF cpu_adam.o.d -DTORCH_EXTENSION_NAME=cpu_adam "
    "-DTORCH_API_INCLUDE_EXTENSION_H -c /mnt/u2_1/mysanoop/.local/lib/python3.8/site-packages/deepspeed/ops/csrc/adam/"
    "cpu_adam.cpp -o cpu_adam.o\nFAILED: cpu_adam.o\n",
])
def test_a_torch_extension_build_edge_failing_is_read_at_framework(text):
    assert NINJA in _ids(text)
    assert error_signatures.failure_layer(NINJA) == "framework"


@pytest.mark.parametrize("text,row", [
    # hiyouga/LlamaFactory#5020 (2024-07-30): the extension's link edge names no define (the linker's line is its own)
    ("[1/1] c++ cpu_adam.o cpu_adam_impl.o -shared -lcurand -o cpu_adam.so\nFAILED: cpu_adam.so \n"
     "c++ cpu_adam.o cpu_adam_impl.o -shared -lcurand -o cpu_adam.so\n/usr/bin/ld: cannot find -lcurand\n", NINJA),
    # a ninja FAILED line of a build that is no torch extension (constructed, nixpkgs-like)
    ("FAILED: lib/libclc/CMakeFiles/x.dir/foo.cpp.o \n/nix/store/abc-clang/bin/clang++ -DNDEBUG -c foo.cpp\n", NINJA),
    # microsoft/onnxruntime#9038 (2021-09-13): the allocator's own message of a bad arena strategy, another check
    ("2021-09-13 07:20:37.975714070 [E:onnxruntime:onnx_env, allocatormgr.cc:47 CreateAllocator] Received invalid "
     "value of arena_extend_strategy 260058\n", ORT),
    # prose naming the option mechanism without a refusal (constructed)
    ("Set the provider option migraphx_fp16_enable to 1 to enable half precision.\n", ORT),
])
def test_near_misses_are_not_read_by_the_rows(text, row):
    assert row not in _ids(text)


@pytest.mark.parametrize("text,want", [
    ("Python 3.11.6\n", ["3.11.6"]),        # jax-ml/jax#19891's form (fixture 2572)
    ("`Python 3.12.3`\n", ["3.12.3"]),      # the same in a Markdown code span
    ("Python 3.11.6 is required\n", []),    # prose, not the answer
    ("foo\nPython 3.11.6\n", []),           # not alone in the paste, no command line before it
])
def test_a_paste_of_python_versions_answer_alone_names_the_python(text, want):
    assert paste_facts.parse(text).pythons == want
