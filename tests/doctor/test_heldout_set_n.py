"""Held-out set N (tests/data/real/610-622, HELDOUT.md): user space above the driver.  Each miss's cause,
fixed from the source that prints the line (uv's resolver report, glibc's loader naming the object that
needs a symbol, ONNX Runtime's execution-provider sources, amdgpu's cwsr_enable parameter) or from the
install layouts two packagings use (the distribution's /usr beside AMD's /opt/rocm), tested on the fixture
and on other wordings of the same source, so that the rows are not the fixture's text."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import REAL, assert_named_and_leads, ids as _ids, lead_layer as _lead_layer

FIXTURES = {  # fixture -> (the row or signature that names its cause, the labelled layer)
    "610": ("rocm_library_undefined_symbol_installed", "packaging"),
    "612": ("uv_no_solution", "packaging"),
    "613": ("hip_distro_and_amd_copies", "packaging"),
    "619": ("amdgpu_cwsr_disabled_workaround", "kernel"),
    "620": ("rocm_library_undefined_symbol_built", "libraries"),
    "621": ("ort_rocm_ep_build_error", "framework"),
}


@pytest.mark.parametrize("num", sorted(FIXTURES))
def test_set_n_fixture_is_named_by_its_row_and_leads_at_its_layer(num):
    assert_named_and_leads(num, *FIXTURES[num])


def test_uv_no_solution_headers_of_every_kind():
    # NoSolutionHeader's four forms (context, split) and the report's conclusions
    for line in ("error: No solution found when resolving dependencies:",
                 "  x No solution found when resolving build dependencies:",
                 "  × No solution found when resolving dependencies for split (python_full_version == '3.10.*'):"):
        assert "uv_no_solution" in _ids(line), line
    for line in ("      And because you require torch, we can conclude that your requirements are unsatisfiable.",
                 "      depends on anyio, we can conclude that your project's requirements are unsatisfiable.",
                 "      requirements are unsatisfiable."):
        assert "uv_requirements_unsatisfiable" in _ids(line), line
    assert error_signatures.failure_layer("uv_no_solution") == "packaging"
    # pip's resolver says it otherwise; a sentence about solutions in general is no uv report
    assert "uv_no_solution" not in _ids("No solution was found in the forum thread.")


def test_undefined_symbol_layer_follows_the_object_that_needs_it():
    sym = ": undefined symbol: _ZN2ck16tensor_operation6device8instanceE"
    # a packaged or wheel-bundled ROCm library: two builds of ROCm mixed in the process (packaging)
    for obj in ("/opt/rocm/lib/librocblas.so.4", "/opt/rocm-6.4.1/lib/libhipblaslt.so.0",
                "/home/u/venv/lib/python3.12/site-packages/torch/lib/libMIOpen.so",
                "/usr/local/lib/python3.12/dist-packages/_rocm_sdk_libraries_gfx1151/lib/libMIOpen.so.1"):
        found = _ids("ImportError: " + obj + sym)
        assert "rocm_library_undefined_symbol_installed" in found, obj
        assert "rocm_library_undefined_symbol_built" not in found and "undefined_symbol_import" not in found, obj
    # a ROCm library of a source build's own prefix: that build's components are out of step (libraries)
    found = _ids("ImportError: /opt/src/therock/build/dist/rocm/lib/libMIOpen.so.1" + sym)
    assert "rocm_library_undefined_symbol_built" in found
    assert "rocm_library_undefined_symbol_installed" not in found
    # an issue title that quotes the line without the symbol (610's title.txt)
    assert "rocm_library_undefined_symbol_installed" in _ids(
        "[ISSUE]: Composable Kernel: ImportError: /opt/rocm-7.2.0/lib/libMIOpen.so.1: undefined symbol")
    # the loader's own wording for a program, not an import
    assert "rocm_library_undefined_symbol_installed" in _ids(
        "python3: symbol lookup error: /opt/rocm/lib/libamdhip64.so.7: undefined symbol: hsa_amd_memory_get_preferred_copy_engine")
    # a framework's own extension still names the framework
    for line in ("ImportError: /usr/local/lib64/python3.13/site-packages/torch/lib/libtorch_hip.so: undefined symbol: "
                 "_ZNK2at10TensorBase14const_data_ptrIN3c104HalfELi0EEEPKT_v",
                 "OSError: /home/l/miniconda3/envs/g/lib/python3.11/site-packages/bitsandbytes/libbitsandbytes_rocm62.so"
                 ": undefined symbol: _Z36__device_stub__kOptimizer32bit1StateI12hip_bfloat16Li2EEvPT_"):
        found = _ids(line)
        assert not found & {"rocm_library_undefined_symbol_installed", "rocm_library_undefined_symbol_built"}, line
    assert "undefined_symbol_import" in _ids(
        "ImportError: /usr/local/lib64/python3.13/site-packages/torch/lib/libtorch_hip.so: undefined symbol: _ZN3c10E")


def test_ort_execution_provider_sources_in_other_files_and_compilers():
    assert "ort_rocm_ep_build_error" in _ids(
        "/src/onnxruntime/onnxruntime/core/providers/rocm/rocm_call.cc:51:12: error: use of undeclared identifier "
        "'hipblasStatusToString'")
    assert "ort_rocm_ep_build_error" in _ids(
        "rocm_execution_provider.h:12:10: fatal error: 'rocblas/rocblas.h' file not found")
    # MIGraphX's own sources are the library's build, not ONNX Runtime's
    assert "ort_rocm_ep_build_error" not in _ids("/src/AMDMIGraphX/src/targets/gpu/compile_ops.cpp:88:5: error: x")
    assert error_signatures.failure_layer("ort_rocm_ep_build_error") == "framework"


def test_cwsr_disabled_on_the_command_line_or_in_modprobe_options():
    assert "amdgpu_cwsr_disabled_workaround" in _ids(
        "BOOT_IMAGE=/vmlinuz-6.17.0 root=UUID=1 ro quiet amdgpu.cwsr_enable=0 amdgpu.gttsize=126976")
    assert "amdgpu_cwsr_disabled_workaround" in _ids("options amdgpu cwsr_enable=0 mes=1")
    for line in ("BOOT_IMAGE=/vmlinuz ro amdgpu.cwsr_enable=1", "[    1.57] kfd kfd: Reserved 2 pages for cwsr."):
        assert "amdgpu_cwsr_disabled_workaround" not in _ids(line), line
    assert error_signatures.failure_layer("amdgpu_cwsr_disabled_workaround") == "kernel"


def test_distribution_and_amd_copies_of_hip_in_other_listings():
    # ldconfig -p / ls output naming the same library in both places
    assert "hip_distro_and_amd_copies" in _ids(
        "\tlibamdhip64.so.6 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libamdhip64.so.6\n"
        "\tlibamdhip64.so.6 (libc6,x86-64) => /opt/rocm-6.4.3/lib/libamdhip64.so.6\n")
    assert "hip_distro_and_amd_copies" in _ids(
        "/opt/rocm/include/hip/hip_runtime_api.h\n/usr/include/hip/hip_runtime_api.h\n")
    # one copy, or two different files, is no clash
    assert "hip_distro_and_amd_copies" not in _ids("/opt/rocm-6.4.3/include/hip/hip_bf16.h\n")
    assert "hip_distro_and_amd_copies" not in _ids(
        "/usr/include/hip/hip_bf16.h\n/opt/rocm-6.4.3/include/hip/hip_fp16.h\n")
    assert "hip_distro_and_amd_copies" not in _ids(
        "/usr/lib/x86_64-linux-gnu/libc.so.6\n/opt/rocm/lib/libamdhip64.so.6\n")
    assert error_signatures.failure_layer("hip_distro_and_amd_copies") == "packaging"


def test_uv_conflicting_sources_and_ggml_registration_symbol():
    assert "uv_conflicting_sources" in _ids(
        "error: Requirements contain conflicting URLs for package `torch`:\n- https://download.pytorch.org/whl/rocm6.4/t.whl")
    assert error_signatures.failure_layer("uv_conflicting_sources") == "packaging"
    # ggml-org/llama.cpp#11211's link failure (617) and its load-time form in a binding (shakfu/cyllama#9)
    folder = next(REAL.glob("617-*"))
    assert "ggml_backend_cuda_reg_unresolved" in _ids((folder / "build.txt").read_text(encoding="utf-8"))
    assert _lead_layer(folder) == "framework"
    assert "ggml_backend_cuda_reg_unresolved" in _ids(
        "ImportError: /data/ai/venv/lib/python3.12/site-packages/cyllama/llama/llama_cpp.cpython-312-x86_64-linux-gnu.so: "
        "undefined symbol: ggml_backend_cuda_reg")
    assert "ggml_backend_cuda_reg_unresolved" not in _ids("ggml_backend_cuda_reg: registered 1 device")


def test_rocm_sdk_messages_of_the_same_package():
    # 614: both wordings of _devel.py's message (before and after ROCm/TheRock#3592)
    folder = next(REAL.glob("614-*"))
    assert "rocm_sdk_devel_not_installed" in _ids((folder / "session.txt").read_text(encoding="utf-8"))
    assert "rocm_sdk_devel_not_installed" in _ids(
        "ModuleNotFoundError: rocm_sdk_devel module for the ROCm SDK development package is not installed. This can "
        "typically be obtained by installing `rocm[devel]` from your package manager")
    # its siblings in rocm_sdk/__init__.py, all at packaging (the venv's wheels)
    for sid, line in (
            ("rocm_sdk_missing_libraries", "ModuleNotFoundError: Missing required rocm libraries. Please refer to Python "
                                           "setup instructions, reinstall your virtual environment, or attempt to install "
                                           "manually via `pip install rocm[libraries,devel]`"),
            ("rocm_sdk_library_not_found", "FileNotFoundError: Could not find rocm library 'miopen' at path "
                                           "'C:\\venv\\Lib\\site-packages\\_rocm_sdk_libraries_gfx120X_all\\bin,' no match "
                                           "for pattern 'MIOpen*.dll'"),
            ("rocm_sdk_version_mismatch", "RuntimeError: The program was compiled against a ROCm version matching "
                                          "'7.12.*' but the installed ROCm version in this Python environment is "
                                          "7.13.0a20260301.")):
        assert sid in _ids(line), sid
        assert error_signatures.failure_layer(sid) == "packaging"


def test_ollama_amd_discovery_messages_by_layer():
    # ollama/ollama discover/amd_linux.go: target coverage of its ROCm libraries, no ROCm at all, device access
    linux = ('time=2025-01-16T20:12:01.112Z level=WARN source=amd_linux.go:378 msg="amdgpu is not supported (supported '
             'types:[gfx1030 gfx1100 gfx1101 gfx1102 gfx900 gfx906 gfx908 gfx90a gfx940 gfx941 gfx942])" '
             'gpu_type=gfx1032 gpu=0 library=/usr/lib/ollama')
    assert "ollama_amdgpu_not_supported" in _ids(linux)
    # (s12-heldat) framework: Ollama's own gate of the GPU against the targets it ships (975 and 1207 labelled there)
    assert error_signatures.failure_layer("ollama_amdgpu_not_supported") == "framework"
    assert "ollama_no_rocm_library" in _ids(
        'time=2025-07-25T15:37:00.443+09:00 level=WARN source=amd_linux.go:443 msg="unable to verify rocm library: '
        'no suitable rocm found, falling back to CPU"')
    assert error_signatures.failure_layer("ollama_no_rocm_library") == "packaging"
    assert "ollama_amdgpu_permission" in _ids(
        'level=ERROR source=amd_linux.go:400 msg="amdgpu devices detected but permission problems block access: '
        'kfd driver not loaded"')
    assert error_signatures.failure_layer("ollama_amdgpu_permission") == "runtime"
    # the healthy lines of the same discovery are no failure
    for line in ('level=INFO source=amd_linux.go:391 msg="amdgpu is supported" gpu=0 gpu_type=gfx1100',
                 'level=INFO source=amd_linux.go:296 msg="unsupported Radeon iGPU detected skipping" id=1 total="512.0 MiB"',
                 'level=INFO source=amd_linux.go:391 msg="skipping rocm gfx compatibility check" HSA_OVERRIDE_GFX_VERSION=10.3.0'):
        assert not _ids(line) & {"ollama_amdgpu_not_supported", "ollama_no_rocm_library", "ollama_amdgpu_permission"}, line


def test_bitsandbytes_and_blender_hip_loader_messages():
    # bitsandbytes/cextension.py: the GPU library named after torch's HIP version, missing or not loading
    assert "bitsandbytes_binary_not_found" in _ids(
        "WARNING:bitsandbytes.cextension:Could not find the bitsandbytes ROCm binary at "
        "PosixPath('/venv/lib/python3.12/site-packages/bitsandbytes/libbitsandbytes_rocm64.so')")
    assert "bitsandbytes_setup_failed" in _ids(
        "CUDA Setup failed despite GPU being available. Please run the following command to get more information:")
    for sid in ("bitsandbytes_binary_not_found", "bitsandbytes_setup_failed", "bitsandbytes_compiled_without_gpu"):
        assert error_signatures.failure_layer(sid) == "framework"
    # Blender's hipew: the HIP runtime not loadable (packaging); Blender's healthy device lines are not failures
    assert "blender_hipew_init_failed" in _ids(
        "HIPEW initialization failed: Driver version too old, requires AMD Adrenalin driver 24.9.1 or newer")
    assert "blender_hipew_init_failed" not in _ids("I1104 18:02:11.0 device.cpp:52] HIPEW initialization succeeded")
    assert error_signatures.failure_layer("blender_hipew_init_failed") == "packaging"
