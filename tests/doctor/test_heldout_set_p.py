"""Held-out set P (tests/data/real/650-661, HELDOUT.md): the newcomer's first hour on consumer hardware.
Each miss's cause, fixed from the source that prints the line (NVIDIA's CUDA runtime strings as CTranslate2's
CUDA_CHECK prints them, CTranslate2's devices.cc, the ROCr/HIP version scripts a versioned symbol names,
rocBLAS' tensile_host.cpp), from the formats people paste (Python's platform.platform(), inxi's CPU line,
GitHub's autolink of a uname build number, bug-report templates' fields), tested on the fixture and on other
wordings of the same source, so that the rows and parsers are not the fixture's text."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.detect.parsers import issue_form, paste_facts
from rocm_wizard.doctor import diagnose
from rocm_wizard.model import GPU, System, TorchEnv
from rwtest.heldout import REAL, assert_named_and_leads, ids as _ids, lead_layer as _lead_layer

FIXTURES = {  # fixture -> (the row that names its cause, the labelled layer)
    "651": ("cuda_runtime_error_on_amd", "framework"),
    "652": ("rocm_runtime_symbol_version_missing", "packaging"),
    "661": ("rocblas_tensile_arch_quoted", "libraries"),
}


@pytest.mark.parametrize("num", sorted(FIXTURES))
def test_set_p_fixture_is_named_by_its_row_and_leads_at_its_layer(num):
    assert_named_and_leads(num, *FIXTURES[num])


def test_cuda_runtime_strings_on_an_amd_machine_are_a_cuda_build():
    # cudaGetErrorString of cudaErrorInsufficientDriver / cudaErrorNoDevice, through CTranslate2's CUDA_CHECK
    # ("CUDA failed with error " + the string) and printed bare by other CUDA builds
    for line in ("RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA runtime version",
                 "RuntimeError: CUDA failed with error no CUDA-capable device is detected",
                 "Check failed: error == cudaSuccess (100 vs. 0)  no CUDA-capable device is detected"):
        assert "cuda_runtime_error_on_amd" in _ids(line), line
    assert error_signatures.failure_layer("cuda_runtime_error_on_amd") == "framework"
    # HIP's own strings stay HIP's: the hipified wording and CTranslate2's ROCm build's hipErrorNoDevice
    assert "cuda_runtime_error_on_amd" not in _ids("RuntimeError: HIP error: driver version is insufficient for runtime version")
    assert "hip_insufficient_driver" in _ids("RuntimeError: HIP error: driver version is insufficient for runtime version")
    rocm_build = _ids("RuntimeError: CUDA failed with error no ROCm-capable device is detected")
    assert "cuda_runtime_error_on_amd" not in rocm_build and "hip_no_rocm_device" in rocm_build


def test_ctranslate2_cpu_build_asked_for_cuda():
    # CTranslate2 src/devices.cc str_to_device, raised to Python as ValueError (open-webui/open-webui#18858)
    line = "ValueError: This CTranslate2 package was not compiled with CUDA support"
    assert "ctranslate2_not_compiled_cuda" in _ids(line)
    assert error_signatures.failure_layer("ctranslate2_not_compiled_cuda") == "framework"
    assert "ctranslate2_not_compiled_cuda" not in _ids("This CTranslate2 package was not compiled with Metal support")


def test_a_missing_rocr_or_hip_versioned_symbol_is_two_rocm_releases():
    row = "rocm_runtime_symbol_version_missing"
    assert error_signatures.failure_layer(row) == "packaging"
    # ROCr's version node (hsacore.so.def: ROCR_1) and HIP's (hip_hcc.map.in: hip_4.2 ... hip_7.2), bare,
    # after ImportError, and in the loader's "symbol lookup error" for a program
    for line in ("libamdhip64.so.7: undefined symbol: hsa_amd_enable_logging, version ROCR_1",
                 "ImportError: /opt/rocm-7.2.3/lib/libamdhip64.so.7: undefined symbol: "
                 "hsa_amd_memory_get_preferred_copy_engine, version ROCR_1",
                 "/home/t/.unsloth/llama.cpp/llama-server: symbol lookup error: /home/t/.unsloth/llama.cpp/build/bin/"
                 "libamdhip64.so.7: undefined symbol: hsa_amd_queue_create, version ROCR_1",
                 "OSError: /opt/rocm/lib/libMIOpen.so.1: undefined symbol: hipExtEnableLogging, version hip_7.2"):
        assert row in _ids(line), line
    # a build's own prefix with a runtime older than it was built against is the same mix, not the build's
    # components out of step (rocm_library_undefined_symbol_built stays for unversioned C++ symbols)
    built = _ids("ImportError: /home/u/rocm-build/lib/libamdhip64.so.7: undefined symbol: hsa_amd_queue_create, version ROCR_1")
    assert row in built and "rocm_library_undefined_symbol_built" not in built
    assert "rocm_library_undefined_symbol_built" in _ids(
        "ImportError: /home/u/rocm-build/lib/libMIOpen.so.1: undefined symbol: _ZN2ck16tensor_operation6device8instanceE")
    # glibc's and other libraries' version nodes are not ROCm's
    for line in ("./app: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.38' not found",
                 "libfoo.so: undefined symbol: bar, version GLIBC_2.38",
                 "libbar.so: undefined symbol: baz, version hipblas_1"):
        assert row not in _ids(line), line


def test_rocblas_arch_tail_as_people_quote_it():
    row = "rocblas_tensile_arch_quoted"
    assert error_signatures.failure_layer(row) == "libraries"
    # tensile_host.cpp: "Cannot read " << path << ": " << strerror(errno) << " for GPU arch : " << processor
    for line in ("Illegal seek for GPU arch : gfx1013",
                 "rocBLAS error: Cannot read .../rocblas/library/TensileLibrary.dat for GPU arch : gfx1100",
                 "Cannot read /opt/rocm-6.4.0/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx906",
                 "[Bug]: Illegal seek for GPU arch : gfx1103"):
        assert row in _ids(line), line
    assert row not in _ids("Building for GPU arch : gfx1100")


def test_issue_form_os_field_with_a_python_platform_string():
    # bug-report templates fill "OS:" with platform.platform(): Linux-<release>-<machine>[-<processor>]-with-<libc>
    for value, rel in (("Linux-7.1.4-200.nobara.fc44.x86_64-x86_64-with-glibc2.39", "7.1.4-200.nobara.fc44.x86_64"),
                       ("Linux-6.8.0-45-generic-x86_64-with-glibc2.39", "6.8.0-45-generic"),
                       ("Linux-6.6.87.2-microsoft-standard-WSL2-x86_64-with-glibc2.39", "6.6.87.2-microsoft-standard-WSL2")):
        dist, kernel, _wsl = issue_form.os_parts(value)
        assert kernel == rel and dist is None, value
    # a distribution field is left as it was
    assert issue_form.os_parts("Ubuntu 24.04.2 LTS")[1] is None


def test_typed_python_and_cpu_fields(tmp_path):
    form = issue_form.parse("**Python:** `3.12.3`\n- Python version: Python 3.11.14 (main, Nov 11 2025)\n"
                            "CPU: 8-core AMD Ryzen 7 8845HS w/ Radeon 780M Graphics:\n")
    assert [issue_form.python_version(v) for v in form.python] == ["3.12.3", "3.11.14"]
    assert issue_form.python_version("not installed") is None
    (tmp_path / "report.txt").write_text("## Environment\n**Python:** `3.12.3`\n"
                                         "CPU: 8-core AMD Ryzen 7 8845HS w/ Radeon 780M Graphics:\n", encoding="utf-8")
    system = detect_snapshot(str(tmp_path))
    assert system.os.python == "3.12.3"
    assert system.os.cpu == "AMD Ryzen 7 8845HS w/ Radeon 780M Graphics"
    # a field that names no CPU is not taken
    other = tmp_path / "other"
    other.mkdir()
    (other / "form.txt").write_text("### CPU\n\n8 cores\n", encoding="utf-8")
    assert detect_snapshot(str(other)).os.cpu is None


def test_uname_build_number_as_github_renders_it():
    text = ("# uname -a\nLinux jupiter8 6.17.0-1025-oem https://github.com/mcmonkeyprojects/SwarmUI/issues/25-Ubuntu "
            "SMP PREEMPT_DYNAMIC Fri May 29 12:11:29 UTC 2026 x86_64 x86_64 x86_64 GNU/Linux\n")
    assert paste_facts.parse(text).kernels == ["6.17.0-1025-oem"]
    after = "my box: Linux host 6.8.0-45-generic https://github.com/o/r/issues/47-Ubuntu SMP PREEMPT_DYNAMIC x86_64\n"
    assert paste_facts.parse(after).kernels == ["6.8.0-45-generic"]
    # a link that is no build number is not a uname line
    assert paste_facts.parse("Linux host 6.8.0 https://github.com/o/r/blob/main/x SMP\n").kernels == []


def test_a_target_only_gpu_takes_the_product_the_paste_names(tmp_path):
    (tmp_path / "hipinfo.txt").write_text("AMD Radeon RX 6800 XT\ngcnArchName: gfx1030\n", encoding="utf-8")
    gpus = detect_snapshot(str(tmp_path)).gpus
    assert [(g.name, g.gfx_target) for g in gpus] == [("AMD Radeon RX 6800 XT", "gfx1030")]
    # a product of another target is not taken for it
    other = tmp_path / "other"
    other.mkdir()
    (other / "hipinfo.txt").write_text("I also own an RX 7900 XTX\ngcnArchName: gfx1030\n", encoding="utf-8")
    assert [g.name for g in detect_snapshot(str(other)).gpus if g.gfx_target == "gfx1030"] == [None]


def test_labelled_torch_lines_of_cuda_and_cpu_builds():
    facts = paste_facts.parse("torch: 2.14.0+cu130\nHIP: None\nCUDA available: False\ndevices: 0\n")
    assert facts.torch == [("2.14.0+cu130", None)]
    assert paste_facts.parse("torch version: 2.9.1+cpu\n").torch == [("2.9.1+cpu", None)]
    assert paste_facts.parse("torch: 2.14.0+rocm7.2\n").torch == [("2.14.0+rocm7.2", None)]


def test_torch_not_rocm_on_pasted_outputs_that_name_no_gpu():
    def system(origin: str) -> System:
        sys_ = System()
        sys_.origin = origin
        t = TorchEnv()
        t.put("version", "2.14.0+cu130", "paste:check.txt#torch line")
        t.put("build", "cuda", "version-label")
        sys_.torch.append(t)
        return sys_
    pasted = [f for f in diagnose(system("snapshot")).findings if f.id == "torch-not-rocm"]
    assert pasted and pasted[0].layer == "framework"
    # a live machine without an AMD GPU (a CI box with a CPU torch) is left alone
    assert not [f for f in diagnose(system("live")).findings if f.id == "torch-not-rocm"]
    # a pasted NVIDIA GPU is a GPU named: no AMD machine is assumed then
    nv = system("snapshot")
    g = GPU()
    g.put("vendor_id", "10de", "paste:lspci.txt")
    nv.gpus.append(g)
    assert not [f for f in diagnose(nv).findings if f.id == "torch-not-rocm"]


def test_set_p_fixture_660_leads_with_the_cuda_torch():
    assert _lead_layer(next(REAL.glob("660-*"))) == "framework"


def test_no_amd_gpu_makes_no_kernel_claim_under_wsl():
    # fixtures 240 and 245: WSL's rocminfo with only CPU agents -- the WSL runtime's answer (runtime),
    # not a GPU the Linux kernel failed to see (WSL's GPU is Windows', reached through /dev/dxg)
    for num in ("240", "245"):
        folder = next(REAL.glob(num + "-*"))
        assert "no-amd-gpu" not in diagnose(detect_snapshot(str(folder))).ids(), num
        assert _lead_layer(folder) == "runtime", num
    # the same absence on a Linux machine itself is still the kernel's question
    sysm = System()
    sysm.origin = "live"
    sysm.rocm.amdgpu_loaded = True
    assert "no-amd-gpu" in diagnose(sysm).ids()
    sysm.os.wsl = True
    assert "no-amd-gpu" not in diagnose(sysm).ids()


def test_ctranslate2_lines_the_catalogue_does_not_name_are_the_framework_s():
    from rocm_wizard.detect import failure_lines as fl
    # CTranslate2's CUDA_CHECK prefix, cut titles and its Python packages (the catch-all's layers)
    for line in ("[Bug] ASR backend initialization failed: CUDA failed with error CUDA driver version is",
                 "RuntimeError: CUDA failed with error unspecified launch failure",
                 "faster_whisper failed to load the model"):
        assert fl.layer_of(line) == "framework", line
    # the runtime's no-device wording keeps its own layer
    assert fl.layer_of("RuntimeError: CUDA failed with error no ROCm-capable device is detected") == "runtime"
    assert fl.frame_package("/venv/lib/python3.12/site-packages/faster_whisper/transcribe.py") == "faster_whisper"


def test_stable_diffusion_webui_start_up_check():
    # AUTOMATIC1111 modules/launch_utils.py (RuntimeError) and launch.py before 1.6 (AssertionError), Forge alike
    for line in ("RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable "
                 "to disable this check",
                 "AssertionError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable "
                 "to disable this check"):
        assert "sd_webui_torch_gpu_check" in _ids(line), line
    assert error_signatures.failure_layer("sd_webui_torch_gpu_check") == "framework"


def test_windows_dll_loading_under_python_is_the_install():
    # CPython's ctypes (Modules/_ctypes/callproc.c) and PyInstaller's pyimod03_ctypes.py, localized and Linux forms too
    for line, row in (("OSError: [WinError 126] The specified module could not be found", "windows_dll_not_found"),
                      ("OSError: [WinError 127] 找不到指定的程序。", "windows_dll_not_found"),
                      ("FileNotFoundError: Could not find module 'C:\\ROCm\\bin\\amdhip64_7.dll' (or one of its "
                       "dependencies). Try using the full path with constructor syntax.", "windows_dll_not_found"),
                      ("pyimod03_ctypes.PyInstallerImportError: Failed to load dynlib/dll "
                       "'/tmp/_MEIUwJ6Ds/koboldcpp_hipblas.so'. Most likely this dynlib/dll was not found when the "
                       "application was frozen.", "pyinstaller_dll_load_failed")):
        assert row in _ids(line), line
        assert error_signatures.failure_layer(row) == "packaging"
    assert "windows_dll_not_found" not in _ids("[WinError 5] Access is denied")
