"""Lines that read as errors, their layer, and the look-alikes that are not failures
(``detect/failure_lines.toml``).  The lines are real: each is quoted from a fixture under
``tests/data/real`` (the test checks it is there), so a rule tuned to invented text fails here."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rocm_wizard.detect import failure_lines as fl

REAL = Path(__file__).resolve().parents[1] / "data" / "real"

# (fixture number, line as the paste has it, kind of its text, layer)
SHOWN = [
    ("215", "Sep 03 21:38:54 HOSTNAME  ring gfx_0.0.0 timeout, signaled seq=9113028, emitted seq=9113031", None, "kernel"),
    ("232", "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat", None, "libraries"),
    ("235", "OSError: libtorch_cuda.so: cannot open shared object file", None, "framework"),
    ("225", "404  Not Found", None, "packaging"),
    ("247", "BAR 7: failed to assign [mem size 0x00100000 64bit]", "dmesg", "firmware"),
    # ROCm's OpenCL is the same CLR as HIP: its C++ binding's exception is the hip layer's (issue 28, set F)
    ("444", "terminate called after throwing an instance of 'cl::Error'", None, "hip"),
    # the kernel's segfault report names the library the crash was in (arch/x86/mm/fault.c show_signal_msg;
    # s9-heldt, set T): libamd_comgr is the code-object compiler HIP loads
    ("736", "segfault at ... ip ... error 4 in libamd_comgr.so.3.0", None, "hip"),
]


def test_opencl_names_are_case_sensitive():
    # clGetPlatformIDs / CL_* are OpenCL's; "clang", "class", "clear" are not
    assert fl.layer_of("  what():  clGetPlatformIDs") == "hip"
    assert fl.layer_of("CL_PLATFORM_NOT_FOUND_KHR") == "hip"
    for other in ("clang: error: linker command failed", "class Foo failed", "clear failed"):
        assert fl.layer_of(other) != "hip", other
BENIGN = [
    ("151", "cat: /sys/module/amdgpu/initstate: No such file or directory", None),
    ("159", "amdgpu: CRAT table not found", "dmesg"),
    ("276", "cuDNN version: Could not collect", "collect_env"),
]
TOLD = [
    ("269", "I am seeing the following error trying to install rocm.", "packaging"),
    # s8-heldq: "not being able to" is a user's "unable to"; libraries that cannot be found are the install's
    ("678", "2. Note no symbolic links for `/opt/rocm/`. Programs are stuck not being able to find HIP libraries.", "packaging"),
]


def test_libraries_not_found_are_the_installs_whatever_they_name():
    # (s8-heldq) a program that cannot find or locate libraries: the loader's path or the install, not the component
    assert fl.layer_of("the app cannot locate the ROCm libraries") == "packaging"
    assert fl.layer_of("hipcc could not find the rocBLAS library") == "packaging"
    # a component's own failure that only names a library file keeps its layer
    assert fl.layer_of("rocBLAS error: Could not load TensileLibrary_lazy_gfx1030.dat") == "libraries"
    assert fl.layer_of("hipErrorNoBinaryForGpu: Unable to find code object for all current devices!") == "hip"


def _in_fixture(number: str, line: str) -> bool:
    folder = next(REAL.glob(number + "-*"))
    return any(line in p.read_text(encoding="utf-8", errors="replace") for p in folder.glob("*.txt"))


@pytest.mark.parametrize("number, line, kind, layer", SHOWN)
def test_a_real_failure_line_is_shown_at_its_layer(number, line, kind, layer):
    assert _in_fixture(number, line)
    assert fl.classify(line, kind) == fl.SHOWN
    assert fl.layer_of(line, kind) == layer


@pytest.mark.parametrize("number, line, kind", BENIGN)
def test_look_alikes_are_no_failure(number, line, kind):
    assert _in_fixture(number, line)
    assert fl.classify(line, kind) is None


@pytest.mark.parametrize("number, line, layer", TOLD)
def test_prose_that_tells_of_a_failure_is_told_not_shown(number, line, layer):
    assert _in_fixture(number, line)
    assert fl.classify(line, None) == fl.TOLD and fl.layer_of(line) == layer


def test_listings_and_other_kernel_messages_do_not_count():
    # a package named liberror-perl in a dpkg listing; an ACPI error in a kernel log (no GPU word)
    assert fl.classify("ii  liberror-perl 0.17029-2 all Perl module for error/exception handling", "dpkg") is None
    assert fl.classify("[    0.512345] ACPI Error: AE_NOT_FOUND, While resolving a named reference", "dmesg") is None
    # a config value and a comment of prose are no failure either
    assert fl.classify('tmp_path_retention_policy = "failed"', None) is None
    assert fl.classify("# pytest-timeout: a hung test fails after 20 minutes instead of holding CI", None) is None


def test_scan_skips_known_lines_and_duplicates():
    text = ("[  1.0] amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3\n"
            "[  9.0] amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=7, emitted seq=9\n"
            "[ 10.0] amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n")
    rows = fl.scan([(text, "dmesg", "dmesg.txt")])
    assert len(rows) == 1 and rows[0][1] == "kernel"  # the second timeout differs only in numbers
    assert fl.scan([(text, "dmesg", "dmesg.txt")], known=[text.splitlines()[0]]) == []


def test_every_layer_has_commands_to_run_next():
    for layer in fl.LAYERS:
        cmds = fl.next_commands([layer])
        assert 2 <= len(cmds) <= 3 and all("\n" not in c for c in cmds), layer


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(["error", "failed", " ", ":", "E:", "timeout", "\n", "x" * 50, "[ 1.0]", "amdgpu",
                                 "Error:", "could not", "\u00e9", "`", "#"]), max_size=400))
def test_scan_never_raises_and_quotes_only_the_text(parts):
    text = "".join(parts)
    for line, layer, label in fl.scan([(text, None, "t"), (text, "dmesg", "d")]):
        assert line in text and (layer is None or layer in fl.LAYERS) and label in ("t", "d")


def test_scan_stays_linear_on_one_huge_line_and_many_lines():
    # one pass of the word pattern per text: a 4 MB line full of error words and 200,000 short lines
    # each finish in one scan (a quadratic scan would not finish within the test timeout)
    huge = "error " * 700_000
    assert len(fl.scan([(huge, None, "big")])) <= 1
    many = "E: failed to fetch package %d\n" * 200_000
    rows = fl.scan([(many, None, "many")])
    assert len(rows) == 1  # the lines differ only in their numbers


def test_a_repeated_line_is_classified_once_and_placed_a_bounded_number_of_times(monkeypatch):
    # (s19) 2000 copies of one failure line no row places took 4.6 s: each copy was classified and its 12 lines
    # above read through the layer table again.  Now a line is classified once per scan, the copies of an unplaced
    # line are tried again for their context at most _PLACE_RETRIES times, and the table keeps its answers
    calls = {"classify": 0, "placed": 0}
    real_classify, real_placed = fl.classify, fl._placed

    def classify(*a, **k):
        calls["classify"] += 1
        return real_classify(*a, **k)

    def placed(*a, **k):
        calls["placed"] += 1
        return real_placed(*a, **k)

    monkeypatch.setattr(fl, "classify", classify)
    monkeypatch.setattr(fl, "_placed", placed)
    line = "foo: error: the widget failed to open"
    assert fl.classify(line) == fl.SHOWN and fl.layer_of(line) is None  # shown, and no row names its layer
    calls.update(classify=0, placed=0)
    rows = fl.scan([((line + "\n") * 5000, None, "many")])
    assert [(r[0], r[1]) for r in rows] == [(line, None)]
    assert calls["classify"] == 1
    assert calls["placed"] == 1 + fl._PLACE_RETRIES
    # a copy whose context names the layer still places the line, within the retries
    text = (line + "\n") * 10 + "E: Unable to correct problems, you have held broken packages.\n" + line + "\n"
    placed_rows = dict((r[0], r[1]) for r in fl.scan([(text, None, "ctx")]))
    assert placed_rows[line] == fl.layer_of("E: Unable to correct problems, you have held broken packages.")


def test_the_layer_tables_memo_answers_as_the_rows_do():
    t = fl.table()
    lines = ["[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx timeout", "pip: ResolutionImpossible",
             "hipErrorNoBinaryForGpu: Unable to find code object", "nothing here", ""]
    for line in lines * 3:
        assert t.layer_in(line) == t._layer_in(line)
    t._layer_memo.clear()
    for i in range(fl._LAYER_MEMO + 10):  # more texts than the memo keeps: it starts again, answers unchanged
        t.layer_in("line %d" % i)
    assert len(t._layer_memo) <= fl._LAYER_MEMO
    assert [t.layer_in(line) for line in lines] == [t._layer_in(line) for line in lines]


# s6-layer: the catch-all's layer read from where a line comes from (failure_lines.toml's rows marked
# s6-layer, each naming the program that prints the message).  Every line is quoted from a real fixture
# (its thread's URL is in the fixture's labels) and is checked to be there; most were placed at another
# layer before those rows (the package names in an apt line, "torch" in a pip line, <smu> in amdgpu's
# IP-block sequence, "RuntimeError" in amd-smi's group check).
SOURCE_ROWS = [
    # apt (apt-private/private-output.cc, private-install.cc), dpkg (src/main/errors.c), dnf5, pip
    ("259", "rocm-llvm : Depends: libstdc++-5-dev but it is not installable or", "packaging"),
    ("260", "rocm-hip-runtime-dev : Depends: rocm-hip-runtime (= 7.2.4.70204-93~24.04) but it is not going to be installed", "packaging"),
    ("262", "E: Unable to correct problems, you have held broken packages.", "packaging"),
    ("338", "Errors were encountered while processing:", "packaging"),
    ("285", "Failed to resolve the transaction:", "packaging"),
    ("470", "ERROR: Could not find a version that satisfies the requirement torch==2.4.1 (from versions: 2.2.0+rocm5.6, 2.2.1+rocm5.6, 2.2.2+rocm5.6)", "packaging"),
    # amdgpu_device.c's IP-block sequence and amdgpu_psp.c's command path: the kernel driver's
    ("248", "[ 3538.036646] [drm:amdgpu_device_ip_suspend_phase2 [amdgpu]] *ERROR* suspend of IP block <smu> failed -62", "kernel"),
    ("248", "[ 3540.036736] [drm] psp gfx command UNKNOWN CMD(0xFFFFFFFF) failed and response status is (0xFFFFFFFF)", "kernel"),
    ("206", "[drm ERROR :amdgpu_device_fw_loading] hw_init of IP block <psp> failed -22", "kernel"),
    ("506", "amdgpu 03:00.0: resume of IP block <smu> failed -62", "kernel"),
    # ggml-cuda.cu's op check and its CUDA_CHECK abort: the HIP runtime's error under a ROCm build
    ("436", "ggml_cuda_compute_forward: RMS_NORM failed", "hip"),
    ("437", 'GGML_ASSERT: ggml-cuda.cu:9198: !"CUDA error"', "hip"),
    # PyTorch's caching allocator: the framework's accounting, though its words name HIP
    ("324", "torch.OutOfMemoryError: HIP out of memory.", "framework"),
    ("141", "torch.cuda.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 MiB (GPU 0; 512.00 MiB total capacity;", "framework"),
    # AITER's HIP call check, cuBLAS status names under a ROCm build (hipBLAS'), RCCL/NCCL result names
    ("435", "ROCm error: CUBLAS_STATUS_INTERNAL_ERROR", "libraries"),
    ("535", "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.", "libraries"),
    ("540", "fail to call hipModuleLaunchKernel( kernel_func, gdx, gdy, gdz, bdx, 1, 1, 0, stream, nullptr, (void**)&config) ---> [HIP error](invalid argument)", "libraries"),
    # the device nodes the runtime opens, amd-smi's group check, rocm_smi_lib's status codes
    ("230", "- /dev/dri/card0: Permission denied; owner=root(0):video(39);", "runtime"),
    ("517", "RuntimeError: WARNING: User is missing the following required groups: render, video. Please add user to these groups.", "runtime"),
    ("542", "TU: error: ../src/freedreno/vulkan/tu_knl.cc:387: failed to open device /dev/dri/renderD128 (VK_ERROR_INCOMPATIBLE_DRIVER)", "runtime"),
    ("544", "[/sgl-workspace/mori/src/application/topology/gpu.cpp:80] rocm smi failed with RSMI_STATUS_INIT_ERROR: An error occurred during initialization", "runtime"),
]


@pytest.mark.parametrize("number, line, layer", SOURCE_ROWS)
def test_a_line_is_placed_by_the_program_that_prints_it(number, line, layer):
    assert _in_fixture(number, line)
    assert fl.classify(line, "error-log") == fl.SHOWN  # read as a failure where a tool printed it
    assert fl.layer_of(line) == layer


@pytest.mark.parametrize("line, layer", [
    ("[   33.878965] amdgpu 0000:03:00.0: amdgpu: resume of IP block <smu> failed -5", "kernel"),
    ("ERROR: Could not find a version that satisfies the requirement torch (from versions: none)", "packaging"),
])
def test_source_rows_on_other_threads_lines(line, layer):
    # lines of other public threads, kept with their URL in tests/data/failure_examples.toml
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    examples = tomllib.loads((REAL.parent / "failure_examples.toml").read_text(encoding="utf-8"))["example"]
    found = [e for e in examples if e.get("line") == line]
    assert found and found[0]["source"].startswith("https://")
    assert fl.layer_of(line) == layer


@pytest.mark.parametrize("line, layer", [
    # a library's own message keeps its layer although apt-like words are absent
    ("rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat", "libraries"),
    # amdgpu's firmware-file lines stay at firmware (only the IP-block sequence moved to kernel)
    ("amdgpu 0000:03:00.0: Direct firmware load for amdgpu/psp_13_0_8_toc.bin failed with error -2", "firmware"),
    # a HIP error that names no ggml function stays HIP's, a torch one stays where it was
    ("RuntimeError: HIP error: invalid device function", "hip"),
])
def test_source_rows_leave_other_layers_alone(line, layer):
    assert fl.layer_of(line) == layer


# s6-layer: failure names that are one word ("RuntimeError", HSA_STATUS_ERROR_*) and rocminfo's
# RET_IF_HSA_ERR lines are failure lines; a register field "MAPPING_ERROR: 0x0" is not.
WORD_PATTERN_LINES = [
    ("348", "RuntimeError: No HIP GPUs are available", "runtime"),
    ("311", "hsa api call failure at line 900, file: /home/jenkins/jenkins-root/workspace/compute-rocm-rel-1.8/rocminfo/rocminfo.cc. Call returned 4104", "runtime"),
    ("443", "hsa api call failure at: /build/rocminfo/src/rocminfo-rocm-5.3.0/rocminfo.cc:1148", "runtime"),
    ("443", "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.", "runtime"),
]


@pytest.mark.parametrize("number, line, layer", WORD_PATTERN_LINES)
def test_exception_names_status_codes_and_rocminfo_failures_are_shown(number, line, layer):
    assert _in_fixture(number, line)
    assert fl.classify(line, None) == fl.SHOWN  # even in an issue form's prose
    assert fl.layer_of(line) == layer


def test_an_exception_name_is_a_failure_word_but_a_register_field_is_not():
    assert fl.table().word_rx.search("torch.AcceleratorError: CUDA error: invalid argument")
    assert fl.table().word_rx.search("jaxlib._jax.XlaRuntimeError: INTERNAL: Failed to open")
    line = "Aug 08 22:35:13 ultrabook-jaap kernel: amdgpu 0000:c3:00.0: amdgpu:          MAPPING_ERROR: 0x0"
    assert _in_fixture("202", line)
    assert fl.classify(line, "dmesg") is None and fl.classify(line, None) is None


# s6-layer: a Python exception line takes the layer of the package whose frame raised it
def _fixture_text(number: str, name: str) -> str:
    return (next(REAL.glob(number + "-*")) / name).read_text(encoding="utf-8")


def test_an_exception_raised_in_therocks_rocm_sdk_wheel_is_packaging():
    # TheRock's rocm_sdk_core launches the wheel's amd-smi; the binary is missing from the wheel
    rows = fl.scan([(_fixture_text("504", "amd-smi.txt"), None, "amd-smi.txt")])
    placed = {line: layer for line, layer, _label in rows}
    assert placed.get("FileNotFoundError: [Errno 2] No such file or directory") == "packaging"


@pytest.mark.parametrize("path, package, layer", [
    ("venv/lib/python3.12/site-packages/rocm_sdk_core/_cli.py", "rocm_sdk_core", "packaging"),  # 504
    ("/usr/lib/python3/dist-packages/apt/cache.py", "apt", "packaging"),
    ("/opt/venv/lib/python3.12/site-packages/pip/_internal/req/req_install.py", "pip", "packaging"),
    ("/opt/venv/lib/python3.12/site-packages/torch/_inductor/compile_fx.py", "torch", "framework"),
    ("/home/aiter/aiter/jit/core.py", "aiter", "libraries"),  # a source checkout, no site-packages
    ("/opt/rocm/libexec/rocm_smi/rocm_smi.py", "rocm_smi", "runtime"),
])
def test_the_package_of_a_frame(path, package, layer):
    assert fl.frame_package(path) == package
    assert fl.table().frame_layer[package] == layer


def test_pythons_own_library_is_no_package():
    # 537: subprocess.py of a Python that uv installed is Python's, not uv's
    text = _fixture_text("537", "rocm-sdk-test.txt")
    path = "/home/AMD/jamesmit/.local/share/uv/python/cpython-3.12.11-linux-x86_64-gnu/lib/python3.12/subprocess.py"
    assert path in text
    assert fl.frame_package(path) is None
    assert fl.frame_package("C:\\Python312\\Lib\\subprocess.py") is None


def test_a_line_that_names_its_layer_keeps_it_over_the_frame():
    # a HIP error raised in torch's frame is HIP's (the line names it); only a line naming no layer or
    # only the framework takes its frame's
    text = ('Traceback (most recent call last):\n'
            '  File "/v/lib/python3.12/site-packages/pip/_internal/cli/base_command.py", line 1, in x\n'
            'RuntimeError: HIP error: invalid device function\n')
    assert fl.scan([(text, None, "t")])[-1][1] == "hip"


# s6-layer: libsolv's problem texts (dnf, yum, zypper) are failure lines at packaging; dnf's bare
# "Error:" takes the layer of the problem printed below it; in a text of no known program
# ("error-log") the lines above a failure line tell its layer before that kind's default
@pytest.mark.parametrize("number, line", [
    ("342", "- nothing provides libc.so.6(GLIBC_2.38)(64bit) needed by amdrocm-runtime7.14-7.14.0~20260620-27854481844.x86_64 from rocm-nightly"),
    ("342", "Problem: conflicting requests"),
    ("343", "Problem: package rocm-dev-4.3.0.40300-52.el8.x86_64 requires hip-base, but none of the providers can be installed"),
])
def test_libsolv_problems_are_packaging_failures(number, line):
    assert _in_fixture(number, line)
    assert fl.classify(line, "error-log") == fl.SHOWN
    assert fl.layer_of(line) == "packaging"


def test_a_bare_error_marker_takes_the_layer_of_the_message_below_it():
    text = _fixture_text("342", "pr.txt")
    rows = fl.scan([(text, "error-log", "pr.txt")])
    assert ("Error:", "packaging") in [(line.strip(), layer) for line, layer, _label in rows]


def test_in_a_generic_error_text_the_lines_above_come_before_the_kind():
    # an unnamed line under an apt command in an error text is apt's, not the error-log kind's framework
    text = "$ sudo apt-get update\nN: Updating from such a repository can't be done securely, and is therefore disabled by default.\n"
    assert _in_fixture("228", "N: Updating from such a repository can't be done securely, and is therefore disabled by default.")
    assert fl.scan([(text, "error-log", "t")])[0][1] == "packaging"
    # (s21-pkgvocab) apt's line names its layer itself now ("repository": the packaging nouns' row), in any kind
    assert fl.scan([(text, "collect_env", "t")])[0][1] == "packaging"
    # a line that names no layer: the lines above in an error text, a known tool's kind still wins
    text = "$ sudo apt-get install -y -qq rocm-dev hip\n  Process completed with exit code 100.\n"
    assert _in_fixture("577", "  Process completed with exit code 100.")
    assert fl.scan([(text, "error-log", "t")])[0][1] == "packaging"
    assert fl.scan([(text, "collect_env", "t")])[0][1] == "framework"


@pytest.mark.parametrize("line, layer", [
    # amdgpu/amdkfd's own prefixes place a line at kernel though it speaks of queues (s9-sweepkern):
    # mes_v12_0.c, kfd_device_queue_manager.c, amdgpu_userqueue.c forms with made-up tails no row knows
    ("[   92.344425] amdgpu 0000:45:00.0: amdgpu: MES(1) failed to respond to msg=SOME_NEW_QUEUE_OP", "kernel"),
    ("[  950.818171] kfd kfd: amdgpu: queue 3 of process 4321 failed to map", "kernel"),
    ("[  812.345678] [drm:amdgpu_userq_new_thing [amdgpu]] *ERROR* queue 2 failed to suspend", "kernel"),
    ("[    5.123456] amdgpu 0000:03:00.0: [drm] *ERROR* agent queue setup failed", "kernel"),
    # ... unless the line names the firmware, which the firmware row places
    ("[    5.123456] amdgpu 0000:03:00.0: amdgpu: PSP firmware queue setup failed", "firmware"),
    # the runtime's own queue lines stay the runtime's
    ("hsa_queue_create failed: HSA_STATUS_ERROR_OUT_OF_RESOURCES", "runtime"),
])
def test_the_kernel_drivers_prefix_places_a_line_at_kernel(line, layer):
    assert fl.layer_of(line, "dmesg") == layer


# -- s20: a process's death, an exit status, a program that found no GPU -------------------------------------------------
@pytest.mark.parametrize("line", [
    "Killed",                                                       # bash: a job SIGKILL ended (the OOM killer)
    "Illegal instruction (core dumped)",                            # glibc's strsignal text, as bash prints it
    "Bus error",
    "zsh: killed     python main.py",                               # zsh's own form
    "./run.sh: line 3:  4242 Killed                  python main.py",  # bash in a script
    "Process finished with exit code 139 (interrupted by signal 11: SIGSEGV)",  # JetBrains' run console
    "llama-server exited with code 3221226505",                     # fixture 1321 (Windows' 0xC0000409)
    "Process completed with exit code 100.",                        # fixture 577 (a GitHub Actions step)
    "exit status 2",                                                # Go's exec (go run)
    "Command '['cmake', '--build', '.']' returned non-zero exit status 1.",  # Python's CalledProcessError text
    "ggml_cuda_init: found 0 ROCm devices:",                        # ggml-cuda.cu with no device
    'time=2025-01-01T00:00:00.000Z level=INFO source=gpu.go:386 msg="no compatible GPUs were discovered"',
    "warning: no usable GPU found, --gpu-layers option will be ignored",  # llama.cpp common/arg.cpp
    # a program's own word that it runs without the GPU (833's Ollama, 1900's ONNX Runtime front-end, 1421's installer)
    'time=x level=WARN source=amd_linux.go:1 msg="unable to verify rocm library: no suitable rocm found, falling back to CPU"',
    "[WARN] --gpu requested, but ONNX Runtime GPU is not available; falling back to CPU.",
    "       GPU PyTorch build -- falling back to CPU-only PyTorch.",
    "AMD GPU not detected",
])
def test_a_process_s_death_and_a_missing_gpu_are_shown(line):
    assert fl.classify(line) == "shown"


@pytest.mark.parametrize("line", [
    "ollama-1 exited with code 0",
    "Process finished with exit code 0",
    "exit status 0",
    "ggml_cuda_init: found 1 ROCm devices:",
    "I killed the process and restarted it",
    "Killed the app, then it worked",
    "the exit code is documented in the README",
    "Feature AVX512 not detected",
    "  │ exit code: 1",  # fixture 1300: pip's box details the "× ... did not run successfully." line the catalogue reads
    "I fell back to the CPU build for now",
])
def test_a_process_that_ended_well_or_prose_is_not_shown(line):
    assert fl.classify(line) != "shown"


def test_ollama_s_own_info_line_is_read_at_framework():
    line = 'time=2025-01-01T00:00:00.000Z level=INFO source=gpu.go:386 msg="no compatible GPUs were discovered"'
    assert fl.layer_of(line) == "framework"


def test_a_cut_traceback_behind_a_worker_s_prefix_is_shown():
    # (vLLM's "(APIServer pid=N) " before every line of its workers, fixture 2445; Ray's "(RayWorkerWrapper pid=N, ip=...)")
    for prefix in ("(APIServer pid=407452) ", "(RayWorkerWrapper pid=3141, ip=10.0.0.7) "):
        text = "\n".join(prefix + l for l in [
            "Traceback (most recent call last):",
            '  File "/srv/venv/lib/python3.12/site-packages/vllm/entrypoints/openai/api_server.py", line 471, in run_server',
            "    await run_server_worker(listen_address, sock, args, **uvicorn_kwargs)",
            '  File "/srv/venv/lib/python3.12/site-packages/vllm/entrypoints/openai/api_server.py", line 490, in run_server_worker',
        ])
        shown = fl.scan([(text, None, "paste:log.txt")], [])
        assert any("cut before its exception" in line and layer == "framework" for line, layer, _l in shown), shown


@pytest.mark.parametrize("line", [
    # CLR's level-1 (LOG_ERROR) lines whose words say no failure (ROCm/clr hipamd/src/hip_platform.cpp "Wrong DeviceId",
    # rocclr/device/device.cpp "KFD is not installed"), as AMD_LOG_LEVEL prints them, old and new formats
    ":1:hip_platform.cpp         :268 : 0123456789 us: [pid:4242  tid:0x7f1c2a4b6740] Wrong DeviceId: 3",
    ":1:device.cpp               :618 : 0123456789 us: [pid:4242  tid:0x7f1c2a4b6740] KFD is not installed ",
    ":1:devprogram.cpp:2208: Bad OCL Binary: bad ELF type!",
    "  :1:hip_code_object.cpp      :503 : 1885938529 us: [pid:77 tid:0x7f] Devices:",
])
def test_clr_s_error_level_lines_are_shown_at_hip(line):
    assert fl.classify(line) == fl.SHOWN and fl.layer_of(line) == "hip"


@pytest.mark.parametrize("line", [
    # the other levels (warning, info, debug) say nothing by their level alone; a level in another position is no level
    ":2:hip_code_object.cpp      :503 : 1885938529 us: [pid:77 tid:0x7f] Using Code Object V5.",
    ":3:rocdevice.cpp            :442 : 1885938529 us: [pid:77 tid:0x7f] Initializing HSA stack.",
    ":4:rocdevice.cpp            :2099: 1885938529 us: [pid:77 tid:0x7f] Allocate hsa device memory 0x7f, size 0x10",
    "step :1:train.py :12 : all good",
])
def test_clr_s_other_levels_are_not_shown_by_their_level(line):
    assert fl.classify(line) != fl.SHOWN


# -- s21-rtvocab: the runtime layer's own messages (ROCr, libhsakmt, rocminfo), bare as they print them ----------------
@pytest.mark.parametrize("line", [
    # the failure words ROCr, the thunk and rocminfo use (amd_topology.cpp, fmm.c, perfctr.c, topology.c, rocminfo.cc)
    "Unrecognized IOLINK type.",
    "mmap returned 0x7f1c2a400000, out of range 0x100000000-0x7fffffffffff",
    'alice is not member of "render" group, the default DRM access group. Users must be a member of the "render" group '
    "or another DRM access group in order for ROCm applications to run successfully.",
    # the thunk's pr_err("[%s] ...", __func__), a pointer beside a failure word, "Invalid <what> <value>", "Fail to"
    "[hsaKmtOpenSMI] invalid node ID: 7",
    "[vm_split_area] Failed to create new area during split.",
    "Object not found at 0x7f1c2a400000",
    "Invalid block ID: 17",
    "Fail to add IO link 0->2",
    # ROCr's nouns beside a failure word (amd_aql_queue.cpp, hsa.cpp, fmm.c)
    "User specified scratch limit exceeds device limits (requested:8589934592 max:4294967296)!",
    "aqlprofile API incompatible ver 2, current ver 3",
    "Object is null and SVM API is not supported.",
])
def test_the_runtimes_bare_messages_are_shown(line):
    assert fl.classify(line) == fl.SHOWN


@pytest.mark.parametrize("line", [
    # near misses: prose with the same nouns or words, the runtime's informational lines, amdgpu's healthy partition note
    "I rebuilt the container from scratch and it is not supported there either",
    "the queue is not supported on my card, any idea?",
    "  1073741824 scratch mapped, 50.00% occupancy.",
    "Got 16GB for SVM at 0x1000000000 with only 12GB usable ...",
    "ROCk module version 6.8.5 is loaded",
    "alice is member of render group",
    # a user's prose that quotes the failure it does not have (real fixture 280), a program's list of possible causes (385)
    '**The driver is healthy — this is not the usual "no /dev/kfd / amdgpu not loaded" case:**',
    "    1. amdgpu kernel module not loaded (check `lsmod | grep amdgpu`).",
    "Fixed the invalid link in the README",
])
def test_prose_and_the_runtimes_information_are_not_shown(line):
    assert fl.classify(line) != fl.SHOWN


def test_a_healthy_mi300_partition_note_is_no_alarm_in_a_kernel_log():
    # real fixture 1984 (amdgpu's note on an MI300 compute partition's render node, kernel-log noise)
    assert fl.classify("amdgpu 0000:15:00.0: amdgpu: renderD153 partition 1 not valid!", "dmesg") != fl.SHOWN


@pytest.mark.parametrize("line", [
    # ROCr's and the thunk's nouns place a bare line at runtime (amd_gpu_agent.cpp, fmm.c, topology.c, runtime.cpp,
    # rocminfo.cc), the KFD's ioctls and topology files as user space names them before the kernel row's "kfd"
    "Failed to dmaCopy!",
    "Failed to reserve 64GB for SVM ...",
    "Failed to init mem_handle_aperture",
    "GPU mapping failed (-12) for obj at 0x7f1c2a400000, userptr (nil), size 2097152",
    "Invalid node [7]",
    "GPU core dump failed",
    "LoadLib(libhsa-amd-aqlprofile64.so) failed: libhsa-amd-aqlprofile64.so: cannot open shared object file",
    "AMDKFD_IOC_ACQUIRE_VM failed",
    "Failed to open /sys/devices/virtual/kfd/kfd/topology/generation_id",
    "Failed to get group info to check for render group membership",
])
def test_the_runtimes_nouns_place_a_bare_line_at_runtime(line):
    assert fl.classify(line) == fl.SHOWN and fl.layer_of(line) == "runtime"


@pytest.mark.parametrize("line, layer", [
    # the same nouns do not take lines another layer prints: amdgpu's prefixed lines, CLR's own log (real fixture 1324),
    # a package build "from scratch", the kernel's amdkfd in dmesg
    ("amdgpu 0000:03:00.0: amdgpu: failed to init scratch memory", "kernel"),
    (":1:rocvirtual.cpp           :3465: 0524793291d us:  AQL dispatch failed!", "hip"),
    ("error: building rocblas from scratch failed", "libraries"),
    ("[  12.345678] amdgpu: amdkfd: Failed to create KFD topology", "kernel"),
])
def test_the_runtimes_nouns_leave_other_layers_lines_alone(line, layer):
    assert fl.layer_of(line) == layer

# -- s21-fwvocab: the framework layer's own words and prefixes (tests/data/catchall_recall.toml, part s21-fwvocab) ---------
@pytest.mark.parametrize("line", [
    # PyTorch's warnings through Python's warnings module, with c10's "(Triggered internally at ...)" suffix
    "/usr/lib/python3.12/site-packages/torch/nn/functional.py:5560: UserWarning: Torch was not compiled with flash "
    "attention. (Triggered internally at ../aten/src/ATen/native/transformers/cuda/sdp_utils.cpp:555.)",
    "/usr/lib/python3.12/site-packages/torch/nn/modules/linear.py:125: UserWarning: Attempting to use hipBLASLt on an "
    "unsupported architecture! Overriding blas backend to hipblas (Triggered internally at /pytorch/aten/src/ATen/Context.cpp:373.)",
    "/usr/lib/python3.12/site-packages/torch/cuda/__init__.py:789: UserWarning: Can't initialize amdsmi - Error code: 34",
    # a module-qualified exception of the framework's own classes (Triton's, torch._dynamo's)
    "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: 65536. "
    "Reducing block sizes or `num_stages` may help.",
    "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:",
    # ggml's and llama.cpp's "<func>: " lines, a ggml source file's abort, the server's prefix
    "llama_new_context_with_model: llama_kv_cache_init() failed for self-attention cache",
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8192.00 MiB on device 0: cudaMalloc failed: out of memory",
    "/llama.cpp/ggml/src/ggml-cuda/mmq.cuh:3040: ERROR: HIP kernel mul_mat_q has no device code compatible with HIP arch 1300.",
    "srv    load_model: failed to load model, '/models/qwen2.5-7b-instruct-q4_k_m.gguf'",
    # Ollama's slog line at WARN (discover/amd.go) and vLLM's logger (vllm/platforms/rocm.py)
    'time=2026-11-29T08:12:03.123Z level=WARN source=amd.go:485 msg="AMD driver is too old. Update your AMD driver to enable GPU inference."',
    "WARNING 11-29 08:12:03 [rocm.py:176] Failed to get GCN arch via amdsmi, falling back to torch.cuda.",
    "(EngineCore_DP0 pid=4242) ERROR 11-29 08:12:03 [rocm.py:502] amdsmi device query failed ",
])
def test_the_framework_s_own_lines_are_shown_at_framework(line):
    assert fl.classify(line) == fl.SHOWN and fl.layer_of(line) == "framework"


@pytest.mark.parametrize("line", [
    # a warning or log line without a failure word, the frameworks' information lines, prose
    "/usr/lib/python3.12/site-packages/torch/nn/functional.py:5560: UserWarning: Flash attention support on Navi31 GPU "
    "is still experimental. Enable it with TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL=1.",
    "W1129 08:12:03.123000 4242 torch/_dynamo/convert_frame.py:964] [0/8] torch._dynamo hit config.recompile_limit (8)",
    "llama_context: n_ctx_per_seq (4096) < n_ctx_train (131072) -- the full capacity of the model will not be utilized",
    "load_backend: loaded ROCm backend from /app/libggml-hip.so",
    "INFO 11-29 08:12:03 [rocm.py:409] Found incompatible backend(s) [ROCM_AITER_FA] with DECODER. Overriding with "
    "TRITON_ATTN out of potential backends: ['TRITON_ATTN'].",
    # Ollama's GGUF reader using a key's default (fixture 718)
    'time=2025-04-26T15:49:31.376Z level=WARN source=ggml.go:152 msg="key not found" key=bert.vision.block_count default=0',
    "my torch build is too old, so I upgraded it",
    "the warning: part of the docs was not compiled",
])
def test_the_framework_s_information_lines_are_not_shown(line):
    assert fl.classify(line) != fl.SHOWN


@pytest.mark.parametrize("line, layer", [
    # a relayed HIP error status keeps HIP's layer whatever framework printed it
    ("/usr/lib/python3.12/site-packages/torch/cuda/__init__.py:129: UserWarning: HIP initialization: Unexpected error from "
     "hipGetDeviceCount(). Error 101: hipErrorInvalidDevice (Triggered internally at ../c10/hip/HIPFunctions.cpp:110.)", "hip"),
    ("D:/a/llama.cpp/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:87: ROCm error", "hip"),  # fixture 983
    ("RuntimeError: Triton Error [HIP]:  Code: 1, Messsage: invalid argument", "hip"),
    # a library status vLLM relays stays the library's (fixture 1184); the runtime's "no ROCm-capable device" stays
    ("(Worker pid=2532) ERROR 06-12 16:10:53 [multiproc_executor.py:870] RuntimeError: NCCL error: unhandled cuda error "
     "(run with NCCL_DEBUG=INFO for details)", "libraries"),
    ("ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected", "runtime"),
])
def test_a_relayed_status_keeps_its_layer_under_a_framework_prefix(line, layer):
    assert fl.layer_of(line) == layer


def test_make_sure_is_no_build():
    # packaging's 'make' is the build tool, not the English "make sure" (torch/utils/cpp_extension.py's version check)
    line = ("RuntimeError: The detected CUDA version (12.4) mismatches the version that was used to compile PyTorch "
            "(11.8). Please make sure to use the same CUDA versions.")
    assert fl.layer_of(line) == "framework"
    assert fl.layer_of("make: *** [Makefile:12: all] Error 2") == "packaging"


@pytest.mark.parametrize("line", [
    "make[2]: *** [CMakeFiles/foo.dir/build.make:76: foo.o] Error 1",  # GNU make's nested error line
    "gmake: *** No rule to make target 'install'.  Stop.",
    # DKMS's make.log echoes the command it ran (tests/data/real 'make' -j16 KERNELRELEASE=... lines)
    "'make' -j16 KERNELRELEASE=6.18.7-061807-generic -C /lib/modules/6.18.7-061807-generic/build failed",
    "Consult /var/lib/dkms/amdgpu/6.16.13/build/make.log for more information.",
    "$ make -j8 failed with exit code 2",
    # ninja's refusal of an input (ninja-build/ninja src/build.cc), as tests/data/real/2811 and 2813 pasted it
    "ninja: error: '/opt/rocm/lib/libamdhip64.so', needed by '/x/vllm/_core_C.abi3.so', missing and no known rule to make it",
])
def test_the_build_tools_make_and_ninja_are_packaging(line):
    assert fl.layer_of(line) == "packaging"


@pytest.mark.parametrize("line", [
    # the English verb names no build (rocFFT's MPI sample, tests/data/real/3310: "trying to make a plan")
    "rank 0: trying to make a plan, execution failed",
    "I cannot make it work, the error is the same",
    "Make sure the driver is loaded: failed",
])
def test_the_verb_make_is_no_build(line):
    assert fl.layer_of(line) != "packaging"


# s21-fwrvocab (tests/data/catchall_recall.toml part s21-fwrvocab): the firmware layer's own words
_P = "[  412.778031] amdgpu 0000:03:00.0: amdgpu: "


@pytest.mark.parametrize("line", [
    # smu_cmn.c __smu_cmn_reg_print_error: the SMU mailbox's answers, with no error word
    _P + "SMU: unknown command: index:46 param:0x00000000 message:SetWorkloadMask",
    _P + "SMU: I'm very busy for your command: index:30 param:0x00000001 message:SetSoftMaxByFreq",
    _P + "SMU: I'm not done with your previous command: SMN_C2PMSG_66:0x0000001E SMN_C2PMSG_82:0x00000000",
    _P + "SMU: I'm debugging!",
    # the new failure words
    "[  412.778031] [drm] Not enough PCI address space for a large BAR.",   # amdgpu_device_resize_fb_bar
    _P + "psp is not working correctly before mode1 reset!",            # psp_v11_0.c
    _P + "VBIOS mem is null or mem size is 0",                          # amdgpu_bios.c check_atom_bios
    _P + "Saved bad pages 128 reaches threshold value 128",             # amdgpu_ras_eeprom.c
    _P + "no vBIOS found",                                              # amdgpu_device.c
    # kernel_log_words: ACPI's ATRM/VFCT, through which amdgpu gets the VBIOS
    "[  412.778031] failed to evaluate ATRM got AE_NOT_FOUND",
])
def test_the_firmware_s_own_messages_are_shown_in_a_kernel_log(line):
    assert fl.classify(line, "dmesg") == fl.SHOWN


@pytest.mark.parametrize("line, kind", [
    # an elided quote of the SMU's answer (real fixture 506) and the SMU's information lines
    ("amdgpu 03:00.0: SMU: I'm not done with your previous command", "dmesg"),
    (_P + "SMU is initialized successfully!", "dmesg"),
    (_P + "smu driver if version = 0x0000003d, smu fw if version = 0x00000040, smu fw program = 0", "dmesg"),
    # the PSP's optional trusted applications and the VBIOS's information lines
    (_P + "HDCP: optional hdcp ta ucode is not available", "dmesg"),
    ("[  412.778031] [drm] ATOM BIOS: 113-D4120100-100", "dmesg"),
    # prose and advice: a conditional, and the words in a sentence with no message shape
    ('time=2026-03-14T14:02:00.036Z level=WARN source=runner.go:489 msg="if GPUs are not correctly discovered, unset and try again"', None),
    ("my GPU is not working with ROCm since the update", None),
    ("there is not enough VRAM for this model I think", None),
    # a laptop's ACPI BIOS error names no GPU: not read in a kernel log
    ("[    0.412000] ACPI BIOS Error (bug): Could not resolve symbol [\\_SB.PC00.LPCB.HEC.ECAV], AE_NOT_FOUND", "dmesg"),
])
def test_the_firmware_s_near_misses_are_not_shown(line, kind):
    assert fl.classify(line, kind) != fl.SHOWN


@pytest.mark.parametrize("line, layer", [
    # the PSP's trusted OS and TAs, IFWI, an IP block's fw, ATOM BIOS in a function name, the VBIOS's POST, powerplay's
    # SMC mailbox, BTC runs: firmware
    (_P + "Failed to wait for trust OS ready for ring creation", "firmware"),
    (_P + "Failed to terminate xgmi ta", "firmware"),
    (_P + "Secure display: Generic Failure.", "firmware"),
    (_P + "failed to load MES fw, err=-22", "firmware"),
    (_P + "amdgpu_atombios_init failed", "firmware"),
    (_P + "gpu post error!", "firmware"),
    ("[  412.778031] amdgpu: Failed to send message 0x43, response 0x0", "firmware"),
    (_P + "RunDcBtc failed!", "firmware"),
    ("[  412.778031] failed to evaluate ATRM got AE_NOT_FOUND", "firmware"),
    # near misses: amdgpu's reset methods, the SMU's power-management sequence (set J), RAS bookkeeping, a bare "fw"
    (_P + "psp mode 1 reset failed!", "kernel"),
    (_P + "Failed to setup smc hw!", "kernel"),
    (_P + "Failed to enable requested dpm features!", "kernel"),
    (_P + "2 uncorrectable hardware errors detected in umc block", "kernel"),
    ("kernel: amdgpu 0000:01:00.0: amdgpu: fw load failed", "kernel"),   # real fixture 1407
    (_P + "ring gfx_0.0.0 timeout, signaled seq=1234, emitted seq=1236", "kernel"),
])
def test_the_firmware_s_words_place_an_amdgpu_line(line, layer):
    assert fl.layer_of(line, "dmesg") == layer

# -- s21-pkgvocab: the packaging layer's own forms (tests/data/catchall_recall.toml, part s21-pkgvocab) ----------------
@pytest.mark.parametrize("line", [
    # apt's "E: " prefix whatever the words (apt-private/private-install.cc, apt-pkg/acquire-item.cc)
    "E: Aborting install.",
    "E: There are problems and -y was used without --force-yes",
    "E: Repository 'https://repo.radeon.com/rocm/apt/latest jammy InRelease' changed its 'Version' value from '6.1.2' to '6.2'",
    # dpkg's own prefix, its file conflict and its dependency account (lib/dpkg/ehandle.c, src/main/archives.c, depcon.c)
    "dpkg: unrecoverable fatal error, aborting:",
    " trying to overwrite '/usr/lib/x86_64-linux-gnu/libdrm_amdgpu.so.1', which is also in package libdrm-amdgpu1:amd64 1:2.4.120",
    "  Package hip-runtime-amd is not configured yet.",
    # apt's ShowBroken, rpm's file conflict, libsolv's rules under dnf (src/problems.c), zypper's problem and provider
    " rocm-hip-runtime : Depends: hip-runtime-amd (= 6.2.41133.60200-66~22.04) but 6.1.40093.60102-119~22.04 is to be installed",
    "  file /opt/rocm/lib/libamdhip64.so.6 from install of hip-runtime-amd-6.2.41133 conflicts with file from package hip-runtime-amd6.1.2",
    "  - cannot install both rocm-core-6.2.0.60200-66.el9.x86_64 and rocm-core-6.1.2.60102-119.el9.x86_64",
    "  - package rocm-opencl-6.2.0-1.el9.x86_64 obsoletes rocm-ocl-icd provided by rocm-ocl-icd-6.1.2.60102-119.el9.x86_64",
    "  - problem with installed package rocm-core-6.1.2.60102-119.el9.x86_64",
    "Problem: 1: the to be installed rocm-hip-runtime-6.2.0 requires 'hip-runtime-amd = 6.2.41133', but this requirement cannot be provided",
    "No provider of 'rocm-hip-sdk' found.",
    # a repository or medium named in quotes (zypper src/repos.cc, libzypp), librepo's "Errors during ..."
    "Repository 'rocm' is invalid.",
    "File './repodata/repomd.xml' not found on medium 'https://repo.radeon.com/rocm/zyp/6.2/main'",
    "Errors during downloading metadata for repository 'amdgpu':",
    # a signature key (dnf/base.py), pip's check (commands/install.py)
    "Public key for rocm-core-6.2.0.60200-66.el9.x86_64.rpm is not installed",
    "torchvision 0.20.1+rocm6.2 requires torch==2.5.1, but you have torch 2.4.0+rocm6.1 which is incompatible.",
    # pip's and uv's lines that name a wheel, a pinned requirement or a diagnostic reference
    "ERROR: Invalid requirement: 'torch==2.5.1+rocm 6.2'",
    "error: Failed to download `torch==2.5.1+rocm6.2`",
    "  Caused by: Failed to fetch: `https://download.pytorch.org/whl/rocm6.2/torch/`",
    "error: subprocess-exited-with-error",
    "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device",
    "Error: Unable to find a match: rocm-hip-sdk6.2.0",
])
def test_the_package_managers_own_lines_are_shown_at_packaging(line):
    assert fl.classify(line) == fl.SHOWN and fl.layer_of(line) == "packaging"


@pytest.mark.parametrize("line", [
    # the package tools' information lines, a look-alike and prose
    "WARNING: Running pip as the 'root' user can result in broken permissions and conflicting behaviour with the system "
    "package manager, possibly rendering your system unusable.",
    "N: Skipping acquire of configured file 'main/binary-i386/Packages' as repository 'https://repo.radeon.com/rocm/apt/6.2 "
    "jammy InRelease' doesn't support architecture 'i386'",
    "Retrieving repository 'rocm' metadata ...........................[done]",
    "Depends: libc6 (>= 2.34), libstdc++6 (>= 12)",
    "Importing GPG key 0x1A693C5C:",
    "$ rpm -q --obsoletes rocm-opencl",
    "The E: drive is full of old installers",
    "Package rocm is not installed yet, I will try again tomorrow",
    "Setting up rocm-hip-runtime (6.2.0.60200-66~22.04) ...",
])
def test_the_package_tools_information_and_prose_are_not_shown(line):
    assert fl.classify(line) != fl.SHOWN


@pytest.mark.parametrize("line, layer", [
    # the packaging nouns do not take another layer's lines: a HIP status, a framework exception, amdgpu's own
    ("RuntimeError: HIP error: invalid device function", "hip"),
    ("ImportError: /usr/lib/python3.12/site-packages/torch/lib/libtorch_hip.so: undefined symbol: hipGetDevicePropertiesR0600",
     "framework"),
    ("[  412.778031] amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=1234, emitted seq=1236", "kernel"),
])
def test_the_packaging_nouns_leave_other_layers_lines_alone(line, layer):
    assert fl.layer_of(line) == layer


def test_the_line_anchored_package_forms_are_found_inside_a_paste():
    # scan runs the word patterns over the whole paste: the forms that start or end a line (apt's "E: ", libsolv's
    # "  - ", dpkg's depcon.c lines) are found on any line of it, with the blanks and quote marks classify strips
    text = ("$ sudo apt install rocm\nReading package lists... Done\nE: Aborting install.\n"
            "  Package hip-runtime-amd is not configured yet.\n"
            " rocm-hip-runtime depends on hip-runtime-amd (= 6.2.41133); however:\n"
            "  - problem with installed package rocm-core-6.1.2.60102-119.el9.x86_64\n"
            "Reading state information... Done\n")
    found = [(line.strip(), layer) for line, layer, _label in fl.scan([(text, None, "t")])]
    for line in ("E: Aborting install.", "Package hip-runtime-amd is not configured yet.",
                 "rocm-hip-runtime depends on hip-runtime-amd (= 6.2.41133); however:",
                 "- problem with installed package rocm-core-6.1.2.60102-119.el9.x86_64"):
        assert (line, "packaging") in found, found
    assert not any(line.startswith("Reading") for line, _layer in found)


# s21-kernvocab: the kernel driver's own words for a failure that hold no error word (amdgpu_vm.c, amdgpu_gem.c,
# amdgpu_ctx.c, mes_v11_0.c, kfd_chardev.c, kfd_events.c, kfd_svm.c, kfd_topology.c), and the kernel's own failure
# headlines (kernel/hung_task.c, kernel/rcu/tree_stall.h, mm/oom_kill.c, mm/page_alloc.c, arch/x86/mm/fault.c,
# arch/x86/kernel/dumpstack.c, kernel/panic.c, kernel/watchdog.c): shown in a kernel log, at the kernel layer
@pytest.mark.parametrize("line", [
    "[  412.778031] amdgpu: Evicted user BO is not reserved",
    "[  412.778031] amdgpu: Freeing queue vital buffer 0x7f1c2a400000, queue evicted",
    "[  412.778031] amdgpu 0000:03:00.0: amdgpu: bo 00000000a1b2c3d4 va 0x0001000000-0x00010001ff conflict with 0x0001000000-0x00010003ff",
    "[  412.778031] amdgpu: Address: 0x7f1c2a400000 already allocated by SVM",
    "[  412.778031] amdgpu 0000:03:00.0: amdgpu: still active bo inside vm",
    "[  412.778031] amdgpu 0000:03:00.0: amdgpu: leaking bo va (-19)",
    "[  412.778031] amdgpu 0000:03:00.0: amdgpu: MES ring buffer is full.",
    "[  412.778031] amdgpu: Alloc host visible vram on small bar is not allowed",
    "[  412.778031] amdgpu: Move buffer fallback to memcpy unavailable",
    "[  412.778031] amdgpu 0000:03:00.0: amdgpu: Won't add GPU to topology since it has no drm node assigned.",
    "[  412.778031] kfd kfd: amdgpu: Sending SIGSEGV to process pid 4242",
    "[  412.778031] amdgpu 0000:03:00.0: amdgpu: Queues reset on process python3 tid 4250 thread python3 pid 4242",
    "[  412.778031] INFO: task python3:4242 blocked for more than 122 seconds.",
    "[  412.778031] INFO: task kworker/u64:3:1234 is blocked on a mutex likely owned by task python3:4242.",
    "[  412.778031] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
    "[  412.778031] python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0",
    "[  412.778031] Out of memory: Killed process 4242 (python3) total-vm:123456789kB, anon-rss:61234567kB, file-rss:0kB",
    "[  412.778031] oom_reaper: reaped process 4242 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB",
    "[  412.778031] python3: page allocation failure: order:10, mode:0x40dc0(GFP_KERNEL|__GFP_COMP|__GFP_ZERO), nodemask=(null)",
    "[  412.778031] BUG: kernel NULL pointer dereference, address: 0000000000000008",
    "[  412.778031] #PF: supervisor read access in kernel mode",
    "[  412.778031] Oops: 0000 [#1] PREEMPT SMP NOPTI",
    "[  412.778031] RIP: 0010:amdgpu_vm_bo_update+0x3a/0x6f0 [amdgpu]",
    "[  412.778031] WARNING: CPU: 12 PID: 4242 at drivers/gpu/drm/amd/amdgpu/amdgpu_vm.c:1452 amdgpu_vm_bo_update+0x5d2/0x6f0 [amdgpu]",
    "[  412.778031] watchdog: BUG: soft lockup - CPU#12 stuck for 26s! [python3:4242]",
    "[  412.778031] Kernel panic - not syncing: hung_task: blocked tasks",
])
def test_the_kernel_layer_s_own_words_are_shown_at_the_kernel(line):
    assert fl.classify(line, "dmesg") == fl.SHOWN
    assert fl.layer_of(line, "dmesg") == "kernel"


@pytest.mark.parametrize("line, kind", [
    # the same words in lines that report no failure
    ("[    0.000000] Kernel command line: BOOT_IMAGE=/vmlinuz root=/dev/nvme0n1p2 oops=panic", "dmesg"),
    ("[    0.171234] rcu: Hierarchical RCU implementation.", "dmesg"),
    ("[   12.000000] amdgpu 0000:03:00.0: amdgpu: RIP-relative addressing enabled", "dmesg"),
    ("[    3.221000] amdgpu 0000:03:00.0: amdgpu: SE 6, SH per SE 2, CU per SH 8, active_cu_number 96", "dmesg"),
    # kfd_device.c's fall-backs to a default for an IP version it has no entry for (benign)
    ("[    5.100000] kfd kfd: amdgpu: v9 event interrupt handler is set due to mismatch of gc ip block(GC_HWIP:0x90400).", "dmesg"),
    ("[    5.100000] kfd kfd: amdgpu: Default sdma queue per engine(8) is set due to mismatch of sdma ip block(SDMA_HWIP:0x60002).", "dmesg"),
    # a kernel headline's words outside a kernel log and without a message's shape
    ("INFO: task graph compiled in 3.2s", None),
])
def test_the_kernel_layer_s_near_misses_are_not_shown(line, kind):
    assert fl.classify(line, kind) != fl.SHOWN


@pytest.mark.parametrize("line, layer", [
    # a package conflict stays the packaging layer's: only an address range taken twice is the kernel's VM
    ("file /usr/lib64/libfoo.so conflicts with file from package bar-1.0", "packaging"),
    ("ERROR: Cannot install torch==2.3.0 and torchvision because these package versions have conflicting dependencies.", "packaging"),
    # a Python program's own "blocked" or "out of memory" line is the framework's
    ("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB", "framework"),
])
def test_the_kernel_layer_s_rows_leave_other_layers_lines_alone(line, layer):
    assert fl.layer_of(line) == layer


@pytest.mark.parametrize("number, line", [
    ("125", "[  953.391196] amdgpu: Freeing queue vital buffer 0x7f2e70800000, queue evicted"),
    ("2536", "[Nov30 01:49] amdgpu 0000:28:00.0: amdgpu: bo 00000000414d2147 va 0x0800000000-0x0800000001 conflict with 0x0800000000-0x0800000840"),
    ("2320", "Jun 01 00:35:22 zero kernel: BUG: kernel NULL pointer dereference, address: 0000000000000000"),
    ("2320", "Jun 01 00:35:22 zero kernel: #PF: supervisor read access in kernel mode"),
])
def test_the_kernel_layer_s_words_read_real_kernel_logs(number, line):
    # (s21-kernvocab) the rules written from the sources read these fixtures' lines too
    assert _in_fixture(number, line)
    assert fl.classify(line, "dmesg") == fl.SHOWN
    assert fl.layer_of(line, "dmesg") == "kernel"

# -- s21-libvocab: the libraries layer's own forms (tests/data/catchall_recall.toml, part s21-libvocab) ----------------
@pytest.mark.parametrize("line", [
    # rocBLAS's own prefix with its level (library/src/handle.cpp, tensile_host.cpp), its warnings with no error word
    "rocBLAS error retreiving the device (deviceID: 0)",
    "rocBLAS internal error: Handle object destroyed while device memory still in use.",
    'rocBLAS warning: glob("/opt/rocm/lib/rocblas/library/*gfx1031*co", ...) returned GLOB_ABORTED.',
    "rocBLAS warning: hipBlasLT failed, falling back to tensile. ",
    "rocBLAS warning: hipBlasLt initialization failed; falling back to Tensile",
    # hipBLASLt's (rocblaslt/src/tensile_host.cpp) and its log prefix at the Error level (rocblaslt/src/utility.cpp)
    'rocblaslt warning: glob("/opt/rocm/lib/hipblaslt/library/*gfx1031*co", ...) returned GLOB_NOSPACE.',
    "rocblaslt warning: No paths matched /opt/rocm/lib/hipblaslt/library/*gfx1103*co. Make sure that "
    "HIPBLASLT_TENSILE_LIBPATH is set correctly.",
    "[2026-11-29 08:12:03][HIPBLASLT][4242][Error][rocblaslt_matmul_desc_create] invalid compute type 77",
    "[2026-11-29 08:12:03][HIPBLASLT][4242][Error][isSolutionSupported] Solution is not supported",
    # the libraries' own "no solution found" (hipblaslt-ext-op.cpp) under a message shape, and hipSOLVER's dlopen errors
    "rocblaslt error: AMaxWithScale: No valid solution found!",
    "hipsolver: error loading librocsparse.so.1: librocsparse.so.1: cannot open shared object file: No such file or directory",
])
def test_the_libraries_own_lines_are_shown_at_libraries(line):
    assert fl.classify(line) == fl.SHOWN and fl.layer_of(line) == "libraries"


@pytest.mark.parametrize("line", [
    # MIOpen's Warning level is no failure by itself (real fixture 1464: a healthy run's find-db and CK library notes;
    # src/conv/solver_finders.cpp IsEnoughWorkspace), nor its Info levels; hipBLASLt's other levels; prose that names
    # a library's warning without being its line
    'MIOpen(HIP): Warning [ParseAndLoadDb] File is unreadable: "/opt/rocm/share/miopen/db/gfx1103_6.HIP.fdb.txt"',
    "MIOpen(HIP): Warning [IsEnoughWorkspace] [GetSolutionsFallback AI] Solver <GemmBwdRest>, workspace required: "
    "75202560, provided ptr: 0 size: 0",
    "MIOpen(HIP): Info2 [SearchForAllSolutions] ConvBinWinograd3x3U: Not applicable",
    "[2026-11-29 08:12:03][HIPBLASLT][4242][Hints][rocblaslt_matmul_algo_get_heuristic] try another algo",
    "I think the rocBLAS warning is harmless, nothing failed here",
    "Set ROCBLAS_LAYER=1 and look for the rocblas warning lines",
])
def test_the_libraries_information_and_prose_are_not_shown(line):
    assert fl.classify(line) != fl.SHOWN


@pytest.mark.parametrize("line, layer", [
    # the hipSOLVER row leaves other layers' lines alone: a HIP status, a package manager's line naming the package
    ("RuntimeError: HIP error: invalid device function", "hip"),
    ("E: Unable to locate package hipsolver-dev", "packaging"),
])
def test_the_library_rows_leave_other_layers_lines_alone(line, layer):
    assert fl.layer_of(line) == layer


def test_the_libraries_warning_prefix_is_found_inside_a_paste():
    # scan runs the word patterns over the whole paste: the prefix at a line's start is found on any line of it
    text = ("$ python bench.py\nloading model\n"
            "rocBLAS warning: hipBlasLT failed, falling back to tensile. \n"
            "[2026-11-29 08:12:03][HIPBLASLT][4242][Error][rocblaslt_matmul_desc_create] invalid compute type 77\n"
            "done in 3.2 s\n")
    found = [(line.strip(), layer) for line, layer, _label in fl.scan([(text, None, "t")])]
    for line in ("rocBLAS warning: hipBlasLT failed, falling back to tensile.",
                 "[2026-11-29 08:12:03][HIPBLASLT][4242][Error][rocblaslt_matmul_desc_create] invalid compute type 77"):
        assert (line, "libraries") in found, found
    assert not any(line.startswith(("loading", "done")) for line, _layer in found)


@pytest.mark.parametrize("line, kind, layer", [
    # RCCL's warning level (ROCm/rccl src/include/debug.h WARN, src/debug.cc "%s:%d:%d [%d] %s:%d NCCL WARN "): the
    # level is the failure mark whatever the words (real fixtures 139, 492)
    ("node1:4242:4250 [0] init.cc:519 NCCL WARN invalid device count (0) requested", None, "libraries"),
    ("gpu-3:81736:81736 [0] enqueue.cc:991 NCCL WARN Trying to send to self without a matching recv", None, "libraries"),
    # TTM's own prefix and no GPU word, in a kernel log (drivers/gpu/drm/ttm pr_fmt "[TTM] ")
    ("[  412.778031] [TTM] Buffer eviction failed", "dmesg", "kernel"),
    ("[  412.778031] [TTM] Failed to find memory space for buffer 0x00000000a1b2c3d4 eviction", "dmesg", "kernel"),
])
def test_rccl_s_warn_level_and_ttm_s_prefix_are_read(line, kind, layer):
    assert fl.classify(line, kind) == fl.SHOWN and fl.layer_of(line, kind) == layer


@pytest.mark.parametrize("line, kind", [
    ("node1:4242:4250 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.7<0>", None),  # the INFO level
    ("[  412.778031] [TTM] Zone  kernel: Available graphics memory: 8165596 KiB", "dmesg"),  # TTM's information
])
def test_rccl_s_info_and_ttm_s_information_are_not_shown(line, kind):
    assert fl.classify(line, kind) != fl.SHOWN


@pytest.mark.parametrize("line", [
    # s22-hipvocab: CLR's level 0, guarantee() before its abort() (ROCm/clr rocclr/utils/debug.hpp; hip_fatbin.cpp,
    # hip_code_object.cpp, hiprtcInternal.cpp crashWithMessage), and HIP(RTC)_INIT_API's ClPrint(LOG_NONE, ...)
    ":0:hip_fatbin.cpp           :217 : 0512345678 us:  Cannot have a file size of 0, fdesc: 7 fname: /opt/app/bin/app",
    ":0:hip_fatbin.cpp           :236 : 0512345678 us:  Cannot have both fname_ and image_ as nullptr",
    ":0:hiprtcInternal.cpp       :161 : 0512345678 us:  Failed to allocate internal hiprtc structure",
    ":0:hip_code_object.cpp      :1028: 0512345678 us: [pid:977   tid: 0x7f00aa] Status 2, failed to allocate managed memory",
    # hipRTC's status names (hiprtc.cpp hiprtcGetErrorString) in its API trace and as a program prints them
    ":3:hiprtcInternal.hpp       :97  : 0512345678 us:  hiprtcLinkComplete: Returned HIPRTC_ERROR_LINKING",
    "hiprtc error: HIPRTC_ERROR_INVALID_OPTION",
    # the HIP status texts with no failure word (hip_error.cpp ihipGetErrorString) behind HIP_CHECK's "HIP error <code>: "
    "HIP error 709: context is destroyed at ctx.cpp:10",
    "HIP error 720: too many blocks in cooperative launch at coop.cpp:77",
    "HIP error 4: driver shutting down at main.cpp:130",
    "HIP error 906: operation not permitted on an event last recorded in a capturing stream at graph.cpp:61",
])
def test_the_hip_layer_s_own_lines_are_shown_at_hip(line):
    assert fl.classify(line) == fl.SHOWN and fl.layer_of(line) == "hip"


@pytest.mark.parametrize("line", [
    # a poll's "not ready" (hipEventQuery/hipStreamQuery while the work runs) is no failure; CLR's info level; prose
    # that names the words without being a program's line
    ":3:hip_internal.hpp         :143 : 0512345678 us:  hipEventQuery: Returned hipErrorNotReady : ",
    ":3:hip_code_object.cpp      :630 : 0512345678 us:  IsClangOffloadMagicBundle(0x5a3c2e10) return false",
    "I keep getting a HIP error 209 when I start it on the new card",
    "the context is destroyed when the process exits, so that is fine",
    "Running the container as root is not permitted here by policy",
    "see the :0: line in the log, the one before the abort",
])
def test_the_hip_layer_s_information_and_prose_are_not_shown(line):
    assert fl.classify(line) != fl.SHOWN


@pytest.mark.parametrize("line, layer", [
    # the poll's other answers stay read; MIOpen's own comgr calls stay the library's; a CLR line that names HSA stays
    # the runtime's (fixture 632's decision)
    (":3:hip_internal.hpp         :143 : 0512345678 us:  hipStreamQuery: Returned hipErrorInvalidHandle : ", "hip"),
    ("MIOpen(HIP): Error [BuildHip] comgr status = ERROR (1)", "libraries"),
    (":1:rocmemory.cpp           :1043: 0512345678 us:  Failed to allocate memory, failed with hsa_status: 4097", "runtime"),
])
def test_the_hip_rows_leave_other_layers_lines_alone(line, layer):
    assert fl.classify(line) == fl.SHOWN and fl.layer_of(line) == layer


def test_clr_s_level_zero_is_found_inside_a_paste():
    text = ("$ ./app\nloading kernels\n"
            ":0:hip_fatbin.cpp           :166 : 0512345678 us:  Image cannot be nullptr, file:/opt/app/k.so did not map for some reason\n"
            "Aborted (core dumped)\n")
    found = [(line.strip(), layer) for line, layer, _label in fl.scan([(text, None, "t")])]
    assert (":0:hip_fatbin.cpp           :166 : 0512345678 us:  Image cannot be nullptr, file:/opt/app/k.so did not map "
            "for some reason", "hip") in found, found
    assert not any(line.startswith(("loading", "$")) for line, _layer in found)


def test_comgr_in_a_path_is_not_the_hip_layer_s_name():
    # the hip row takes comgr as the code-object manager's name (rocclr/device/comgrctx.cpp "Failed to load COMGR library."),
    # not as a part of a path or file name an ldd listing shows (fixture 2549)
    assert fl.layer_of(":1:comgrctx.cpp             :68  : 0512345678 us:  Failed to load COMGR library.") == "hip"
    assert fl.layer_of("/nix/store/x-rocm-comgr-5.7.1/lib/libamd_comgr.so.2 failed") != "hip"


@pytest.mark.parametrize("line", [
    # s22-rtvocab2: an HSA status as ROCr's hsa_status_string writes it (rocr-runtime hsa.cpp), bare or after rocminfo's
    # "Call returned " (rocminfo.cc RET_IF_HSA_ERR), though its text names a code object or an executable
    "HSA_STATUS_ERROR_INVALID_EXECUTABLE: The executable is invalid.",
    "HSA_EXT_STATUS_ERROR_IMAGE_SIZE_UNSUPPORTED: Image size is not supported.",
    "Call returned HSA_STATUS_ERROR_INVALID_CODE_OBJECT: The code object is invalid.",
    # an HSA variable or call named first (libhsakmt topology.c)
    "HSA_OVERRIDE_GFX_VERSION 9.4 is invalid",
    # ROCr's debug_warning (core/util/utils.h), an assertion that did not hold
    'Warning: false && "Can\'t find memory handle" in hsa_status_t rocr::core::Runtime::VMemoryHandleUnmap(void*, '
    'size_t), /src/rocr-runtime/runtime/hsa-runtime/core/runtime/runtime.cpp:3246',
    'Warning: "Parsing CPUID failed." in void rocr::core::Runtime::InitCpuInfo(), '
    '/src/rocr-runtime/runtime/hsa-runtime/core/runtime/runtime.cpp:2038',
    # rocm-smi's log line (rocm_smi.py printErrLog/printLog), whatever block it names (PCIe, a reset)
    "ERROR: GPU[0]\t: Unable to set PCIe bitmask to: 0x3",
    "ERROR: GPU[1]\t: Unable to reset GPU 1",
    "GPU[0] XCP[1]\t: Issue reloading driver, please check dmsg for errors",
    "ERROR: ROCm SMI returned 2 (the expected value is 0)",
    # amd-smi's CLI exceptions (amdsmi_cli_exceptions.py)
    "Command 'metric' is not supported on the system. Run '--help' for more info. Error code: -7",
    "Parameter '--gpuu' is invalid. Run '--help' for more info. Error code: -2",
    # ROCr's DTIF thunk interface (thunk_loader.cpp), the thunk's counters (perfctr.c), ROCr's scratch accounting
    "Cannot load libdtif.so, failed:libdtif.so: cannot open shared object file: No such file or directory",
    "Counter ID exceeded MAX_COUNTERS for block 7.",
    "User specified scratch limit exceeds device limits (requested:8589934592 max:4294967296)!",
    # "no more space" (topology.c)
    "No more space for io_link for Node [3]",
])
def test_the_runtime_layer_s_own_lines_are_shown_at_runtime(line):
    assert fl.classify(line) == fl.SHOWN and fl.layer_of(line) == "runtime", (fl.classify(line), fl.layer_of(line))


@pytest.mark.parametrize("line", [
    # libhsakmt's FIXME lines and a C function's name first: shown, though they name no layer
    "FIXME: Unmapping NULL pointer",
    "model_set_event: event_id = 4096 out of bounds",
])
def test_the_runtime_s_bare_function_lines_are_shown(line):
    assert fl.classify(line) == fl.SHOWN


@pytest.mark.parametrize("line", [
    # near misses: prose naming an HSA variable, a setting's value, a quoted warning with no file:line, rocm-smi's
    # success and not-supported lines, a success code, a snake_case key without a failure word, rocminfo's DTIF notice
    "I set HSA_OVERRIDE_GFX_VERSION and rocminfo still fails for me",
    "hsa_override_gfx_version: 10.3.0",
    'Warning: "fast" in the config is the default',
    "GPU[0]\t\t: Successfully reset XGMI Error count",
    "GPU[0]\t\t: get_power_cap, Not supported on the given system",
    "WARNING: GPU[0]\t: Voltage curve regions unsupported.",
    "The tool printed it all fine. Error code: 0",
    "max_memory: 24GiB",
    "the FIXME in the source says the pointer is never null, so ignore it",
    "HSA-DTIF environment detected.",
])
def test_the_runtime_rows_near_misses_are_not_shown(line):
    assert fl.classify(line) != fl.SHOWN


@pytest.mark.parametrize("line, kind, layer", [
    # the new rows leave other layers' lines alone: hip's own names and CLR's log, amdgpu's dmesg line
    ("hip_module: failed to load code object", None, "hip"),
    (":1:hip_code_object.cpp      :506 : 0512345678 us:  Cannot find the code object for the device", None, "hip"),
    (":1:rocmemory.cpp           :1043: 0512345678 us:  Failed to allocate memory, failed with hsa_status: 4097", None, "runtime"),
    ("[  12.345678] amdgpu 0000:03:00.0: amdgpu: GPU reset begin!", "dmesg", "kernel"),
    ("RuntimeError: HIP error: invalid device function", None, "hip"),
])
def test_the_runtime_rows_leave_other_layers_lines_alone(line, kind, layer):
    assert fl.layer_of(line, kind) == layer
