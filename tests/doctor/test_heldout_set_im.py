"""Held-out set IM (tests/data/real/3420-3424, HELDOUT.md): a second theme-neutral sample of the non-PyTorch ML
frameworks on ROCm (ROCm's JAX failing XLA's RepeatBufferKernel with hipError 98, JAX sharding over MI250X GPUs
aborting in hipBLASLt's HIP check during graph capture, the same failure told only in a title, migraphx-driver's
compile aborting in check_shapes, ONNX Runtime's MIGraphX EP failing its fused node with 'Failed to call function').
On the unchanged code 3420, 3421, 3423 and 3424 led at their layers (3424 by the catch-all), 3422 at hip by the
catch-all.  The fixes:

* 3421/3422: hipBLASLt's CHECK_HIP_ERROR prints "Hip error: '<HIP's message>'(<code>) at <file>:<line>" and exits
  (ROCm/rocm-libraries projects/hipblaslt/library/src/amd_detail/hipblaslt.cpp); with one of HIP's stream-capture
  messages (ROCm/clr hipamd/src/hip_error.cpp) it is a library call made during graph capture.  Row
  im_rocm_library_hip_check_stream_capture reads it at libraries.
* 3424: MIGraphX's C++ API wrapper throws 'Failed to call function' when a C API call fails
  (ROCm/AMDMIGraphX src/api/include/migraphx/migraphx.hpp), and ONNX Runtime reports it as the MIGraphX EP's fused
  MGXKernel node's status.  Row im_ort_migraphx_ep_api_call_failed reads it at libraries."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

CAPTURE = "im_rocm_library_hip_check_stream_capture"
MGX = "im_ort_migraphx_ep_api_call_failed"


@pytest.mark.parametrize("num,layer", [("3420", "hip"), ("3421", "libraries"), ("3423", "libraries")])
def test_the_set_im_fixtures_lead_where_their_lines_sit(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row", [("3421", CAPTURE), ("3422", CAPTURE), ("3424", MGX)])
def test_the_new_rows_name_their_fixtures_and_lead_at_libraries(num, row):
    assert_named_and_leads(num, row, "libraries")


@pytest.mark.parametrize("line", [
    # the fixture's line (jax-ml/jax#24458: JAX sharding on MI250X, rocm/jax-community 6.2.3)
    "Hip error: 'operation would make the legacy stream depend on a capturing blocking stream'(906) at "
    "/long_pathname_so_that_rpms_can_package_the_debug_info/src/extlibs/hipBLASLt/library/src/amd_detail/"
    "hipblaslt.cpp:135",
    # the line as a title cuts it (ROCm/jax#275, fixture 3422)
    "Sharding: \"Hip error: 'operation would make the legacy stream ...\"",
    # TheRock 7.14.1's rocm-libraries path (a hipBLASLt bug report's repro output held by the index)
    "Hip error: 'operation would make the legacy stream depend on a capturing blocking stream'(906) at "
    "/__w/rockrel/rockrel/rocm-libraries/projects/hipblaslt/library/src/amd_detail/hipblaslt.cpp:165",
    # hipBLASLt's lazy init inside a PyTorch graph capture (quoted in a serving engine's source comment)
    "Hip error: 'operation not permitted when stream is capturing'(900) at hipblaslt.cpp:171",
])
def test_the_capture_row_reads_a_librarys_hip_check(line):
    assert CAPTURE in ids(line)
    assert error_signatures.failure_layer(CAPTURE) == "libraries"


@pytest.mark.parametrize("line", [
    # PyTorch's own wording of the HIP error is another row's (hip_error_string_rare, at hip)
    "RuntimeError: HIP error: operation would make the legacy stream depend on a capturing blocking stream",
    # the same macro with a HIP error that is no capture error (fixture 3044's line, at hip)
    "Hip error: 'no ROCm-capable device is detected'(100)",
    # prose about the error, without the macro's form
    "the legacy stream would depend on a capturing blocking stream, so hipBLASLt exits",
])
def test_near_misses_are_not_read_as_a_librarys_capture_error(line):
    assert CAPTURE not in ids(line)


@pytest.mark.parametrize("line", [
    # the fixture's line (ROCm/AMDMIGraphX#4141, MIGraphX's inceptionv3 example)
    "MIGraphXExecutionProvider_MGXKernel_graph_main_graph_7480282253957464844_0_0' Status Message: Failed to call "
    "function",
    # an OBS plugin's log (royshil/obs-backgroundremoval#856, Arch with opencl-amd-dev 7.2.1, 2026)
    "00:45:40.851: [obs-backgroundremoval] ONNXRuntime Exception: Non-zero status code returned while running "
    "MGXKernel_graph__624279303755776568_0 node. Name:'MIGraphXExecutionProvider_MGXKernel_graph__624279303755776568_0_0' "
    "Status Message: Failed to call function",
    # ONNX Runtime's sequential executor, a torch-exported model (a 2024 project notebook held by the index)
    "2024-09-27 12:05:06.450081551 [E:onnxruntime:, sequential_executor.cc:514 ExecuteKernel] Non-zero status code "
    "returned while running MGXKernel_graph_torch-jit-export_4651530453327880677_0 node. "
    "Name:'MIGraphXExecutionProvider_MGXKernel_graph_torch-jit-export_4651530453327880677_0_0' Status Message: "
    "Failed to call function",
])
def test_the_mgx_row_reads_the_eps_failed_api_call(line):
    assert MGX in ids(line)
    assert error_signatures.failure_layer(MGX) == "libraries"


@pytest.mark.parametrize("line", [
    # the ROCm EP's MIOpen failure on an ordinary node (immich-app/immich#11063)
    "Fail: [ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned while running Conv node. Name:'Conv_426' "
    "Status Message: MIOPEN failure 7: miopenStatusUnknownError",
    # another EP's fused node with another status
    "Non-zero status code returned while running TRTKernel_graph_main_graph_123_0 node. "
    "Name:'TensorrtExecutionProvider_TRTKernel_graph_main_graph_123_0_0' Status Message: TensorRT EP failed to create "
    "engine from network.",
    # an embedder's own 'Failed to call function' (a Python-calling C++ wrapper)
    "terminate called after throwing an instance of 'std::runtime_error'  what():  Failed to call function forward",
])
def test_near_misses_are_not_read_as_the_eps_failed_api_call(line):
    assert MGX not in ids(line)
