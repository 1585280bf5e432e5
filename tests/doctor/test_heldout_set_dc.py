"""Held-out set DC (tests/data/real/2060-2066, HELDOUT.md): JAX and TensorFlow on ROCm.
Each miss's cause fixed from the program that prints the line: XLA's device set-up on the ROCm platform
(xla/service/platform_util.cc, "no supported devices found for platform %s"), XLA's AMDGPU back-end's linker lookup
(xla/service/gpu/llvm_gpu_backend/amdgpu_backend.cc, "unable to find ld.lld in PATH: %s"), and the catch-all's layer
words for TensorFlow/JAX/XLA's own log lines; tested on the fixtures and on other wordings of the same sources, with
near-misses."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rwtest.heldout import doctor_files, fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems

NO_DEVICES = "dc_xla_rocm_no_supported_devices"
LLD = "dc_xla_rocm_ld_lld_not_found"


def _text(num: str) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(_fixture(num).glob("*.txt")))


# -- XLA's "no supported devices found for platform ROCM" (2061, 2062) ---------------------------------
@pytest.mark.parametrize("num", ["2061", "2062"])
def test_xla_no_supported_rocm_devices_is_named_at_framework(num):
    assert error_signatures.failure_layer(NO_DEVICES) == "framework"
    assert NO_DEVICES in _ids(_text(num))
    assert _lead_layer(_fixture(num)) == "framework"


@pytest.mark.parametrize("line", [
    # JAX's PJRT client (the fixture 2061's line)
    "jaxlib._jax.XlaRuntimeError: INTERNAL: no supported devices found for platform ROCM",
    # older jaxlib (xla_extension) through JAX's backend initialisation
    "RuntimeError: Unable to initialize backend 'rocm': INTERNAL: no supported devices found for platform ROCM "
    "(you may need to uninstall the failing plugin package, or set JAX_PLATFORMS=cpu to skip this backend.)",
    # TensorFlow's StatusOr check (tensorflow/stream_executor/lib/statusor.cc) on the ROCm platform
    "2019-09-19 16:07:09.367581: F tensorflow/stream_executor/lib/statusor.cc:34] Attempting to fetch value instead of "
    "handling error Internal: no supported devices found for platform ROCM",
    # Elixir's EXLA (the fixture 2062's line)
    "** (RuntimeError) no supported devices found for platform ROCM",
])
def test_the_rocm_platform_line_is_named(line):
    assert NO_DEVICES in _ids(line), line


@pytest.mark.parametrize("line", [
    # the CUDA platform's same message (JAX's own hint: device memory held by another process) is not ROCm's
    "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: no supported devices found for platform CUDA",
    # XLA's "no %s devices found" (no device visible at all) is another message
    "RuntimeError: Unable to initialize backend 'rocm': NOT_FOUND: no ROCM devices found",
])
def test_other_platforms_and_messages_are_not_it(line):
    assert NO_DEVICES not in _ids(line), line


# -- XLA's AMDGPU back-end without ld.lld (2066) -------------------------------------------------------
def test_2066_xla_missing_linker_leads_at_packaging():
    assert error_signatures.failure_layer(LLD) == "packaging"
    assert LLD in _ids(_text("2066"))
    assert _lead_layer(_fixture("2066")) == "packaging"


@pytest.mark.parametrize("line", [
    # jaxlib (xla_extension) -- the fixture's line
    "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: unable to find ld.lld in PATH: No such file or directory",
    # newer jaxlib (jaxlib._jax), the same Internal status
    "jaxlib._jax.XlaRuntimeError: INTERNAL: unable to find ld.lld in PATH: No such file or directory",
    # TensorFlow's XLA op (tensorflow-upstream#1100)
    "2020-08-31 08:09:11.054180: W tensorflow/core/framework/op_kernel.cc:1767] OP_REQUIRES failed at xla_ops.cc:363 : "
    "Internal: unable to find ld.lld in PATH: No such file or directory",
    # the first XLA ROCm back-end's LOG(FATAL)
    "F0101 00:00:00.000000 1234 gpu_backend_lib.cc:612] unable to find ld.lld in PATH: No such file or directory",
])
def test_xlas_linker_line_is_named(line):
    assert LLD in _ids(line), line


def test_the_linker_line_is_placed_at_packaging_in_a_log(tmp_path):
    found = problems(doctor_files(tmp_path, {"jax.txt": "Traceback (most recent call last):\n"
                                             "  File \"<string>\", line 1, in <module>\n"
                                             "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: unable to find ld.lld in "
                                             "PATH: No such file or directory\n"}))
    assert found and found[0][1] == "packaging", found


@pytest.mark.parametrize("line", [
    # Triton's own linker lookup is its row, not XLA's
    "Exception: ROCm linker /opt/rocm/llvm/bin/ld.lld not found. Set 'TRITON_HIP_LLD_PATH' to its path.",
    # ld.lld found and failing is the linker's own error
    "ld.lld: error: undefined symbol: hipSetDevice",
    # a shell that has no lld at all
    "bash: ld.lld: command not found",
])
def test_other_linker_lines_are_not_xlas(line):
    assert LLD not in _ids(line), line


# -- TensorFlow / JAX / XLA log lines take the framework's layer (2063) ---------------------------------
def test_2063_xlas_log_line_leads_at_framework():
    assert _lead_layer(_fixture("2063")) == "framework"


@pytest.mark.parametrize("line", [
    "2023-11-29 19:56:58.717575: E external/xla/xla/stream_executor/plugin_registry.cc:90] Invalid plugin kind specified: DNN",
    "2024-04-29 21:45:03.118699: E external/local_xla/xla/stream_executor/plugin_registry.cc:93] Invalid plugin kind "
    "specified: DNN",
    "2023-12-17 00:24:21.532490: W tensorflow/core/common_runtime/gpu/gpu_device.cc:1960] Cannot dlopen some GPU libraries.",
    "E1028 18:10:24.124692 140650719580480 xla_bridge.py:487] something failed in jax",
])
def test_framework_sources_name_the_framework_layer(line):
    assert failure_lines.named_layer(line) == "framework", line


@pytest.mark.parametrize("line, layer", [
    # words that only contain the names keep their own layers
    ("E: Unable to locate package relaxation-tools", "packaging"),
    ("amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout", "kernel"),
])
def test_near_misses_keep_their_layers(line, layer):
    assert failure_lines.named_layer(line) == layer, line


def test_the_python_banner_no_longer_places_an_xla_line(tmp_path):
    # the Python banner's "[GCC 9.4.0]" above an XLA line gave it packaging before set DC
    text = ("Python 3.11.0 (main, Nov 16 2023, 20:45:15) [GCC 9.4.0] on linux\n>>> import jax\n"
            "2023-11-29 19:56:58.717575: E external/xla/xla/stream_executor/plugin_registry.cc:90] Invalid plugin kind "
            "specified: DNN\n")
    found = problems(doctor_files(tmp_path, {"jax.txt": text}))
    assert found and found[0][1] == "framework", found
