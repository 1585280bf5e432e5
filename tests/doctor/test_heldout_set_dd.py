"""Held-out set DD (tests/data/real/2080-2084, HELDOUT.md): computer vision libraries on AMD GPUs.
Each miss's cause fixed from the program that prints the line: onnxruntime's refusal to create its ROCm execution
provider (onnxruntime/python/onnxruntime_pybind_state.cc) and its provider bridge failing to load its own ROCm/MIGraphX
provider library (onnxruntime/core/session/provider_bridge_ort.cc, platform/{posix,windows}/env.cc); MIOpen's log
prefix in every build (src/logger.cpp LoggingPrefix); comgr's temporary directory on Windows; CPython's banners between
chained tracebacks (Lib/traceback.py).  Tested on the fixtures and on other wordings of the same sources, with
near-misses."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import doctor_files, fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems

ROCM_PATH = "dd_ort_rocm_provider_not_loaded_rocm_path_set"
BRIDGE = "dd_ort_rocm_provider_library_load_failed"


# -- onnxruntime's ROCm provider not loaded with ROCM_PATH set (2080) -----------------------------------
def test_2080_leads_at_the_framework():
    assert error_signatures.failure_layer(ROCM_PATH) == "framework"
    assert _lead_layer(_fixture("2080")) == "framework"


@pytest.mark.parametrize("line", [
    # the pybind message alone, as a RuntimeError without the C++ signature (older onnxruntime)
    "RuntimeError: /onnxruntime_src/onnxruntime/python/onnxruntime_pybind_state.cc:574 onnxruntime::python::"
    "CreateExecutionProviderInstance ROCM_PATH is set but ROCM wasn't able to be loaded. Please install the correct "
    "version of ROCM and MIOpen as mentioned in the GPU requirements page, make sure they're in the PATH, and that your "
    "GPU is supported.",
    # as an EP Error line of an application that retries with the CPU (insightface, facefusion)
    "EP Error ROCM_PATH is set but ROCM wasn't able to be loaded. Please install the correct version of ROCM and MIOpen "
    "as mentioned in the GPU requirements page, make sure they're in the PATH, and that your GPU is supported.",
])
def test_the_rocm_path_refusal_is_named(line):
    assert ROCM_PATH in _ids(line), line


def test_the_cuda_twin_is_not_the_rocm_row():
    line = ("RuntimeError: D:\\a\\_work\\1\\s\\onnxruntime\\python\\onnxruntime_pybind_state.cc:574 onnxruntime::python::"
            "CreateExecutionProviderInstance CUDA_PATH is set but CUDA wasn't able to be loaded. Please install the "
            "correct version of CUDA and cuDNN as mentioned in the GPU requirements page")
    assert ROCM_PATH not in _ids(line)


# -- onnxruntime's provider bridge failing to load its ROCm/MIGraphX provider library (2084) ----------
def test_2084_leads_at_the_framework():
    assert error_signatures.failure_layer(BRIDGE) == "framework"
    assert _lead_layer(_fixture("2084")) == "framework"


@pytest.mark.parametrize("line", [
    # a soname the installed ROCm does not have (ROCm/TheRock#1995, fixture 485's line)
    "2025-11-03 11:58:21.164725712 [E:onnxruntime:Default, provider_bridge_ort.cc:2251 TryGetProviderInfo_ROCM] "
    "/onnxruntime/onnxruntime/core/session/provider_bridge_ort.cc:1778 onnxruntime::Provider& onnxruntime::"
    "ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_rocm.so "
    "with error: librocm_smi64.so.7: cannot open shared object file: No such file or directory",
    # the MIGraphX provider, named with its path
    "[E:onnxruntime:Default, provider_bridge_ort.cc:2036 TryGetProviderInfo_MIGraphX] ... [ONNXRuntimeError] : 1 : "
    "FAIL : Failed to load library /opt/venv/lib/python3.12/site-packages/onnxruntime/capi/"
    "libonnxruntime_providers_migraphx.so with error: libmigraphx_c.so.3: cannot open shared object file: No such file "
    "or directory",
    # Windows' loader (platform/windows/env.cc)
    "[ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 \"\" when trying to load \"C:\\venv\\Lib\\"
    "site-packages\\onnxruntime\\capi\\onnxruntime_providers_migraphx.dll\"",
])
def test_the_provider_library_load_failure_is_named_at_the_framework(tmp_path, line):
    assert BRIDGE in _ids(line), line
    found = problems(doctor_files(tmp_path, {"log.txt": line + "\n"}))
    assert found and found[0][1] == "framework", found


@pytest.mark.parametrize("line", [
    # the CUDA provider's library: NVIDIA's stack, not this row
    "[ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: "
    "libcublasLt.so.11: cannot open shared object file: No such file or directory",
    "LoadLibrary failed with error 126 \"\" when trying to load \"C:\\x\\onnxruntime_providers_cuda.dll\"",
    # another program's library failing on the same MIOpen symbol is the general dlerror reading
    "ImportError: /opt/app/libmyconv.so: undefined symbol: miopenGetConvolutionSpatialDim",
])
def test_other_libraries_are_not_the_provider_row(line):
    assert BRIDGE not in _ids(line), line


# -- MIOpen's log prefix in every build, comgr's directory on Windows (2081) --------------------------
@pytest.mark.parametrize("line", [
    "MIOpen: Error [BuildHip] HIPRTC status = HIPRTC_ERROR_COMPILATION (6), source file: MIOpenBatchNormFwdTrainSpatial.cpp",
    "MIOpen(HIP): Error [BuildHip] HIPRTC status = HIPRTC_ERROR_COMPILATION (6), source file: MIOpenDropoutHIP.cpp",
    # MIOPEN_ENABLE_LOGGING_ELAPSED_TIME: the elapsed milliseconds before the colon
    "MIOpen(HIP)  1234.567: Error [BuildHip] HIPRTC status = HIPRTC_ERROR_COMPILATION (6), source file: x.cpp",
])
def test_miopens_build_errors_are_read_in_every_prefix(line):
    assert "miopen_comgr_failed" in _ids(line), line


@pytest.mark.parametrize("line", [
    "MIOpen: Error [Compile] 'hiprtcCompileProgram(prog.get(), c_options.size(), c_options.data())' "
    "MIOpenBatchNormFwdTrainSpatial.cpp: HIPRTC_ERROR_COMPILATION (6)",
    "MIOpen(OpenCL): Error [Compile] something failed",
])
def test_miopens_log_errors_are_read_in_every_prefix(line):
    assert "miopen_log_error" in _ids(line), line


@pytest.mark.parametrize("line", [
    "MIOpenDriver: Error [x] not MIOpen's logger",  # another program's name before the colon
    "MIOpen(HIP): Warning [BuildHip] In file included from ...",  # a warning is not an error
])
def test_other_prefixes_are_not_miopens_errors(line):
    assert "miopen_log_error" not in _ids(line), line


@pytest.mark.parametrize("line", [
    # Windows (TheRock ROCm 10): comgr-<pid>-<n>-<6 hex> under %TEMP%
    "C:\\Users\\krishkat\\AppData\\Local\\Temp\\comgr-9004-512-cc9f7f\\include\\miopen_type_traits.hpp:151:10: "
    "fatal error: 'type_traits' file not found",
    # Linux: comgr-XXXXXX under /tmp
    "/tmp/comgr-9b418c/include/miopen_rocrand.hpp:45:10: fatal error: 'rocrand/rocrand_xorwow.h' file not found",
])
def test_comgrs_runtime_compile_errors_are_named(line):
    assert "bz_comgr_online_source_compile_error" in _ids(line), line


def test_a_build_trees_file_is_not_comgrs():
    line = "/home/me/src/comgr-utils/include/x.hpp:3:10: fatal error: 'type_traits' file not found"
    assert "bz_comgr_online_source_compile_error" not in _ids(line)


def test_2081_has_no_unread_line():
    from rwtest import realrun
    found = problems(realrun.diagnosis(_fixture("2081")))
    assert all(i != "unrecognised-failure" for i, _l in found), found
    assert found and found[0][1] == "libraries", found


# -- CPython's banners between chained tracebacks (2080) ---------------------------------------------
@pytest.mark.parametrize("banner", [
    "The above exception was the direct cause of the following exception:",
    "During handling of the above exception, another exception occurred:",
])
def test_chained_exception_banners_are_not_failures(banner):
    text = "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n    f()\nValueError: x\n\n" \
           + banner + "\n\nTraceback (most recent call last):\n  File \"b.py\", line 2, in <module>\n    g()\n"
    from rocm_wizard.detect import failure_lines
    assert not any(banner in line for line, _l, _k in failure_lines.scan([(text, None, "log")]))


def test_an_exception_line_after_the_banner_stays_a_failure():
    from rocm_wizard.detect import failure_lines
    text = "The above exception was the direct cause of the following exception:\n\nRuntimeError: HIP error: oops\n"
    assert any("RuntimeError" in line for line, _l, _k in failure_lines.scan([(text, None, "log")]))
