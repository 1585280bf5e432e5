"""Held-out set BZ (tests/data/real/1660-1668, HELDOUT.md): speech, audio, OCR and other less common ML applications.
The lines read from the programs that print them: a compiler's error inside a ROCm library's installed header (clang's
'<file>:<line>:<col>: error:' diagnostics under /opt/rocm-X/include/<library>), ROCr's HW exception line as users quote
it (the agent handle elided), onnxruntime's MIGraphX compile window (migraphx_execution_provider.cc compile_program's
'Model Compile: Begin' / 'Complete') around a GPU fault, and Unsloth Studio's prebuilt installers
(studio/install_whisper_prebuilt.py, install_llama_prebuilt.py), and a compiler error in a kernel source compiled at
run time through comgr (its 'comgr-XXXXXX/{input,include}' temporary tree, amd/comgr/src/comgr-compiler.cpp)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, doctor_files, fixture, ids as _ids, lead_layer, problems

HEADER = "bz_rocm_library_header_compile_error"
UNSLOTH = "bz_unsloth_prebuilt_install_failed"
COMGR = "bz_comgr_online_source_compile_error"
HW = "rocr_hw_exception"
BEGIN = "bz_ort_migraphx_compile_begin"
COMPLETE = "bz_ort_migraphx_compile_complete"


@pytest.mark.parametrize("num,row,layer", [
    ("1661", HEADER, "libraries"),
    ("1668", UNSLOTH, "packaging"),
    ("1662", COMGR, "libraries"),
])
def test_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


# ---- a compiler's error inside a ROCm library's installed header (1661) ---------------------------------------------

@pytest.mark.parametrize("line", [
    # the fixture's line: clang's relative path into the ROCm include tree
    "/opt/rocm-7.0.1/lib/llvm/bin/../../../include/thrust/system/hip/detail/cross_system.h:153:54: error: reference "
    "to 'hip' is ambiguous",
    # rocThrust on ROCm 7.2.0 with THRUST_CUB_WRAPPED_NAMESPACE (ROCm/rocm-libraries#6309)
    "/opt/rocm-7.2.0/include/thrust/iterator/detail/tuple_of_iterator_references.h:177:7: error: no member named "
    "'thrust' in the global namespace; did you mean simply 'thrust'?",
    # rocPRIM under a distribution's /usr prefix, gcc-style fatal error
    "/usr/include/rocprim/device/detail/device_config_helper.hpp:42:10: fatal error: 'rocprim/config.hpp' file not found",
    # hipCUB in TheRock's devel wheel
    "/venv/lib/python3.12/site-packages/_rocm_sdk_devel/include/hipcub/backend/rocprim/block/block_load.hpp:88:5: "
    "error: use of undeclared identifier 'rocprim'",
])
def test_a_compile_error_in_a_rocm_librarys_header_is_the_librarys(line):
    assert HEADER in _ids(line), line


@pytest.mark.parametrize("line", [
    # the project's own source file: not a library's header
    "/var/home/user/xgboost/src/common/cuda_to_hip.h:69:15: error: redefinition of 'hip'",
    # a note and a warning in the library's header are not its error
    "/opt/rocm-7.0.1/include/thrust/system/hip/detail/par.h:293:11: note: candidate found by name lookup is 'thrust::hip'",
    "/opt/rocm/include/rocprim/intrinsics/thread.hpp:120:5: warning: 'foo' is deprecated [-Wdeprecated-declarations]",
    # HIP's own headers are HIP's, not a library's
    "/opt/rocm/include/hip/amd_detail/amd_hip_runtime.h:30:2: error: \"Only HIP-Clang is supported\"",
    # thrust outside a ROCm tree (CUDA's thrust on a /usr prefix) is not rocThrust
    "/usr/include/thrust/system/cuda/config.h:116:2: error: #error The version of CUB in your include path is not compatible",
])
def test_near_misses_are_not_a_rocm_librarys_header_error(line):
    assert HEADER not in _ids(line), line


def test_the_header_row_leads_a_build_log_at_libraries(tmp_path):
    diag = doctor_files(tmp_path, {"build.txt":
        "[ 42%] Building HIP object src/CMakeFiles/objxgboost.dir/data/ellpack_page.cu.o\n"
        "In file included from /opt/rocm-7.0.1/include/thrust/system/hip/execution_policy.h:32:\n"
        "/opt/rocm-7.0.1/include/thrust/system/hip/detail/cross_system.h:153:54: error: reference to 'hip' is ambiguous\n"
        "make[2]: *** [src/CMakeFiles/objxgboost.dir/build.make:76: ellpack_page.cu.o] Error 1\n"})
    assert problems(diag)[0] == ("known-failure", "libraries"), problems(diag)


# ---- ROCr's HW exception as users quote it (1666) ------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    # the runtime's own format (runtime.cpp HwExceptionHandler)
    "HW Exception by GPU node-1 (Agent handle: 0x5ab48bbcc960) reason :GPU Hang",
    # the fixture's line: the handle elided
    "HW Exception by GPU node-1 (Agent handle: ...) reason :GPU Hang",
    # the handle left out
    "HW Exception by GPU node-2 reason :GPU Hang",
])
def test_the_hw_exception_line_is_read_with_or_without_its_handle(line):
    assert HW in _ids(line), line


def test_prose_about_hw_exceptions_is_not_the_line():
    assert HW not in _ids("a HW Exception by GPU can mean a hang; the reason is printed after it")


# ---- a GPU fault inside onnxruntime's MIGraphX compile (1666) -------------------------------------------------------

def test_1666_the_hang_during_the_compile_is_the_librarys():
    folder = fixture("1666")
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.txt")))
    assert {HW, BEGIN} <= _ids(text) and COMPLETE not in _ids(text)
    assert error_signatures.failure_layer(HW) == "runtime"  # the row is the runtime's; the compile window moves it
    assert lead_layer(folder) == "libraries"


@pytest.mark.parametrize("begin", [
    "[W:onnxruntime:Default, migraphx_execution_provider.cc:1270 compile_program] Model Compile: Begin",
    "2026-03-27 19:30:20.457876133 [W:onnxruntime:Default, migraphx_execution_provider.cc:1262 compile_program] "
    "Model Compile: Begin",
    "[MIGraphX EP] Model Compile: Begin",
])
def test_the_compile_window_lines_are_read(begin):
    assert BEGIN in _ids(begin)
    assert error_signatures.failure_layer(BEGIN) == "libraries"


@pytest.mark.parametrize("fault", [
    "HW Exception by GPU node-1 (Agent handle: 0x7f6898248910) reason :GPU Hang",
    "Memory access fault by GPU node-1 (Agent handle: 0x55f8b54eec30) on address 0x7f2a53193000. "
    "Reason: Page not present or supervisor privilege.",
])
def test_a_fault_between_begin_and_no_complete_is_at_libraries(tmp_path, fault):
    diag = doctor_files(tmp_path, {"ml.txt":
        "[W:onnxruntime:Default, migraphx_execution_provider.cc:1270 compile_program] Model Compile: Begin\n"
        f"{fault}\n"
        "[2026-07-27 10:00:00 +0000] [7] [WARNING] Worker (pid:23) was sent SIGABRT!\n"})
    assert problems(diag)[0][1] == "libraries", problems(diag)


def test_a_fault_after_the_compile_completed_stays_at_runtime(tmp_path):
    diag = doctor_files(tmp_path, {"ml.txt":
        "[W:onnxruntime:Default, migraphx_execution_provider.cc:1262 compile_program] Model Compile: Begin\n"
        "[W:onnxruntime:Default, migraphx_execution_provider.cc:1267 compile_program] Model Compile: Complete\n"
        "HW Exception by GPU node-1 (Agent handle: 0x7f6898248910) reason :GPU Hang\n"})
    assert problems(diag)[0][1] == "runtime", problems(diag)


def test_the_compile_lines_alone_are_no_problem(tmp_path):
    diag = doctor_files(tmp_path, {"ml.txt":
        "[W:onnxruntime:Default, migraphx_execution_provider.cc:1262 compile_program] Model Compile: Begin\n"
        "[W:onnxruntime:Default, migraphx_execution_provider.cc:1267 compile_program] Model Compile: Complete\n"})
    assert problems(diag) == [], problems(diag)


# ---- Unsloth Studio's prebuilt installers (1668) --------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    # the fixture's title (Studio's web UI)
    "[Bug] [ROCm] whisper update failed: paired ROCm runtime is missing its hipblaslt kernel catalog",
    # the installer's own line (install_whisper_prebuilt.py main: log_lines(f"prebuilt install failed: {exc}"))
    "[whisper-prebuilt] prebuilt install failed: paired ROCm runtime is missing its hipblaslt kernel catalog",
    # the same function's rate-limit reason (the project's test of format_installer_failure_message)
    "[whisper-prebuilt] prebuilt install failed: GitHub API returned 403 for "
    "https://api.github.com/repos/unslothai/whisper.cpp/releases/latest; set GH_TOKEN or GITHUB_TOKEN to avoid GitHub API "
    "rate limits",
    # the incompatible-release exit (ReleaseCompatibilityError, exit 2)
    "[whisper-prebuilt] incompatible release: slim bundle v1.9.2-unsloth.9 cannot pair with llama b10333",
    # llama.cpp's installer, same form
    "[llama-prebuilt] prebuilt install failed: no compatible linux ROCm bundle for gfx1030",
    # Studio's report of the installer's exit
    "llama.cpp update failed: installer exited 1: Downloading whisper-v1.9.2-unsloth.9-linux-x64-slim.tar.gz",
])
def test_unsloths_installer_failures_are_read(line):
    assert UNSLOTH in _ids(line), line


@pytest.mark.parametrize("line", [
    # the installer's progress lines are not failures
    "[whisper-prebuilt] slim_selection: selected whisper-v1.9.2-unsloth.9-linux-x64-slim.tar.gz paired with llama "
    "b10333-mix-e34b418 at /home/u/.unsloth/llama.cpp/build/bin",
    "[whisper-prebuilt] target whisper.cpp from unslothai/whisper.cpp (linux-x64, backend rocm)",
    # another program's updater
    "Update failed: installer exited with exit status: 1",
])
def test_near_misses_are_not_unsloths_installer(line):
    assert UNSLOTH not in _ids(line), line


# ---- a kernel source compiled at run time through comgr (1662) -------------------------------------------------------

@pytest.mark.parametrize("line", [
    # the fixture's line: MIOpen's dropout kernel, a header it includes not found
    "/tmp/comgr-9b418c/include/miopen_rocrand.hpp:45:10: fatal error: 'rocrand/rocrand_xorwow.h' file not found",
    # the same kernel with hipRAND's header (pyannote-audio#1995's wording of it)
    "/tmp/comgr-4f2a91/include/miopen_rocrand.hpp:45:10: fatal error: 'hiprand/hiprand_xorwow.h' file not found",
    # an error in the kernel source itself (the input directory)
    "/tmp/comgr-f79515/input/MIOpenBatchNormFwdTrainSpatialHIP.cpp:212:9: error: use of undeclared identifier "
    "'__builtin_amdgcn_mov_dpp'",
    # Windows' temporary directory
    "C:\\Users\\u\\AppData\\Local\\Temp\\comgr-a1b2c3\\input\\naive_conv.cpp:31:5: error: unknown type name 'half'",
])
def test_a_runtime_compiled_kernels_error_is_read(line):
    assert COMGR in _ids(line), line


@pytest.mark.parametrize("line", [
    # comgr's include trace line and a warning are not the error
    "In file included from /tmp/comgr-9b418c/input/MIOpenDropoutHIP.cpp:32:",
    "/tmp/comgr-9b418c/include/miopen_rocrand.hpp:30:9: warning: macro 'FOO' is not used [-Wunused-macros]",
    # a project's own build directory named like it
    "/home/u/src/comgr-tests/input.cpp:10:1: error: expected ';'",
])
def test_near_misses_are_not_a_runtime_compiled_kernels_error(line):
    assert COMGR not in _ids(line), line
