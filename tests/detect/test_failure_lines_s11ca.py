"""The catch-all's reading of lines no catalogue row knows, by who printed them (s11-catchall).

Each case is a wording of the program's own format, taken from its source (named at each test), in
several of the forms users paste (dmesg time stamps, journal prefixes, bare), with near-misses that
must stay at another layer or not read as a failure at all."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import failure_lines as fl


def _layers(text, kind=None):
    return [(line.strip(), layer) for line, layer, _label in fl.scan([(text, kind, "t")])]


# ---------------------------------------------------------------- amdgpu's SMU interface-version notice
# drivers/gpu/drm/amd/pm/swsmu/smu1[1-4]/smu_v1*_0.c *_check_fw_version: dev_info "SMU driver if version not matched"
# (information; upstream commit a3ffaa5b397f dropped it: "It just leads to user confusion")
@pytest.mark.parametrize("line, kind", [
    ("amdgpu 0000:03:00.0: amdgpu: SMU driver if version not matched", "dmesg"),
    ("[    2.600563] amdgpu 0000:03:00.0: amdgpu: SMU driver if version not matched", "dmesg"),
    ("Mar 24 23:48:30 ArchDesktop kernel: amdgpu 0000:0f:00.0: amdgpu: SMU driver if version not matched", "dmesg"),
    ("amdgpu: SMU driver if version not matched", None),
    ("- SMU driver if version not matched", "error-log"),
])
def test_the_smu_interface_version_notice_is_no_failure(line, kind):
    assert fl.classify(line, kind) != fl.SHOWN


@pytest.mark.parametrize("line, layer", [
    # near-misses: the SMU's real failures stay failures at their layers
    ("amdgpu 0000:04:00.0: amdgpu: SMU: I'm not done with your previous command: SMN_C2PMSG_66:0x0000000D", None),
    ("[   12.3] amdgpu 0000:04:00.0: amdgpu: Failed to enable requested dpm features!", "kernel"),
    ("amdgpu 0000:04:00.0: amdgpu: SMU: mailbox access failed", "firmware"),
])
def test_smu_failures_near_the_notice_still_read_as_failures(line, layer):
    if layer is None:
        return  # a line with no error word: not the benign pattern's business
    assert fl.classify(line, "dmesg") == fl.SHOWN
    assert fl.layer_of(line, "dmesg") == layer


# ---------------------------------------------------------------- the PSP refusing a microcode image
# drivers/gpu/drm/amd/amdgpu/amdgpu_psp.c psp_cmd_submit_buf: dev_warn "failed to load ucode %s(0x%X) " (older
# kernels DRM_WARN), printed before "psp gfx command %s(0x%X) failed and response status is (0x%X)"
@pytest.mark.parametrize("line", [
    "[    2.585144] amdgpu 0000:03:00.0: amdgpu: failed to load ucode DMCUB(0x3D)",
    "amdgpu 0000:85:00.0: amdgpu: failed to load ucode SMC(0x32)",
    "kern: warning: [2026-01-06T19:44:57.234610477Z]: amdgpu 0000:85:00.0: amdgpu: failed to load ucode VCN1(0x38)",
    "[drm] failed to load ucode MES(0x2B)",
    "amdgpu: invalid ucode header for RLC",
])
def test_a_microcode_the_psp_refused_is_the_firmware_s(line):
    assert fl.layer_of(line, "dmesg") == "firmware"


@pytest.mark.parametrize("line, layer", [
    # the PSP command and the IP-block sequence stay at kernel (s6-layer's decision, set J)
    ("amdgpu 0000:03:00.0: amdgpu: psp gfx command LOAD_IP_FW(0x6) failed and response status is (0x11)", "kernel"),
    ("[   33.878965] amdgpu 0000:03:00.0: amdgpu: hw_init of IP block <gfx_v11_0> failed -110", "kernel"),
    ("amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3", "kernel"),
])
def test_kernel_lines_beside_the_microcode_stay_at_kernel(line, layer):
    assert fl.layer_of(line, "dmesg") == layer


# ---------------------------------------------------------------- DKMS's own grammar
# dell/dkms dkms.in: error() prints "Error! " + message; invoke_command prints "(bad exit status: N)" then
# "Failed command:" and the command on the next line; Ubuntu's dkms_apport.py "ERROR (dkms apport): ..."
@pytest.mark.parametrize("line", [
    "Error! Bad return status for module build on kernel: 6.8.0-45-generic (x86_64)",
    "Error! Bad return status for module build on kernel: 6.5.0-41-generic (amd64)",
    "Error! Your kernel headers for kernel 6.18.7-061807-generic cannot be found at /lib/modules/6.18.7-061807-generic/build or /lib/modules/6.18.7-061807-generic/source.",
    "Error! The module/version combo: amdgpu-6.16.13-2278356.24.04 is not located in the DKMS tree.",
    "Building module(s)..........(bad exit status: 2)",
    "ERROR (dkms apport): kernel package linux-headers-6.18.7-061807-generic is not supported",
    "ERROR (dkms apport): There was a segmentation fault when trying to build the module",
])
def test_dkms_messages_are_the_install_s(line):
    assert fl.classify(line, "error-log") == fl.SHOWN
    assert fl.layer_of(line) == "packaging"


@pytest.mark.parametrize("line, layer", [
    # near-misses: "error!" of another program (not dkms's capitalised prefix at the start), the kernel's own panic
    ("amdgpu 0000:03:00.0: amdgpu: error! ring gfx timeout on kernel 6.8", "kernel"),
    ("Kernel panic - not syncing: Fatal exception in interrupt", "kernel"),
    ("[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout, signaled seq=2, emitted seq=3", "kernel"),
])
def test_other_error_bangs_stay_where_they_were(line, layer):
    assert fl.layer_of(line) == layer


def test_dkms_failed_command_takes_the_layer_of_the_command_below_it():
    text = ("Building module(s)..........(bad exit status: 2)\n"
            "Failed command:\n"
            "'make' -j16 KERNELRELEASE=6.18.7-061807-generic -C /lib/modules/6.18.7-061807-generic/build "
            "M=/var/lib/dkms/amdgpu/6.16.13-2278356.24.04/build\n")
    rows = dict(_layers(text, "error-log"))
    assert rows["Failed command:"] == "packaging"
    assert rows["Building module(s)..........(bad exit status: 2)"] == "packaging"


# ---------------------------------------------------------------- a Python traceback: who raised it
def _traceback(frames, exc):
    out = ["Traceback (most recent call last):"]
    for path, n, fn, code in frames:
        out += ['  File "%s", line %d, in %s' % (path, n, fn), "    " + code]
    return "\n".join(out + [exc]) + "\n"


_RUN = ("run", "return run(*popenargs, stdout=PIPE, timeout=timeout, check=True,")
_CPE = ("subprocess.CalledProcessError: Command '[PosixPath('/venv/bin/amdflang'), '--help']' "
        "returned non-zero exit status 255.")


@pytest.mark.parametrize("stdlib", [
    "/usr/lib64/python3.12/subprocess.py",  # Fedora/RHEL
    "/usr/lib/python3.10/subprocess.py",  # Debian/Ubuntu
    "/home/u/miniconda3/lib/python3.11/subprocess.py",  # conda's Python
    "C:\\Python312\\Lib\\subprocess.py",  # Windows
])
def test_an_exception_raised_in_the_standard_library_is_its_caller_s(stdlib):
    # cpython Lib/subprocess.py check_output -> run raises CalledProcessError; the package that called it
    # (TheRock's rocm_sdk, an installer: packaging in frame_package_layer) is who failed
    text = _traceback([
        ("/home/u/.venv/lib64/python3.12/site-packages/rocm_sdk/tests/core_test.py", 141, "testConsoleScripts",
         "output_text = subprocess.check_output("),
        (stdlib, 466, "check_output", "return run(*popenargs, stdout=PIPE, timeout=timeout, check=True,"),
        (stdlib, 571, "run", "raise CalledProcessError(retcode, process.args,"),
    ], _CPE)
    assert dict(_layers(text))[_CPE] == "packaging"


def test_a_stdlib_exception_under_a_framework_or_an_unknown_caller_is_not_packaging():
    torch_caller = _traceback([
        ("/opt/venv/lib/python3.12/site-packages/torch/utils/cpp_extension.py", 2100, "_run_ninja_build",
         "subprocess.run(command, check=True)"),
        ("/usr/lib/python3.12/subprocess.py", 571, *_RUN),
    ], "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.")
    assert [l for _t, l in _layers(torch_caller)] == ["framework"]
    own_script = _traceback([
        ("/home/u/run.py", 3, "<module>", "subprocess.check_call(['rocminfo'])"),
        ("/usr/lib/python3.12/subprocess.py", 413, "check_call", "raise CalledProcessError(retcode, cmd)"),
    ], "subprocess.CalledProcessError: Command '['rocminfo']' returned non-zero exit status 1.")
    # no package names a layer: the line's own words do (rocminfo: the runtime's)
    assert [l for _t, l in _layers(own_script)] == ["runtime"]


def test_a_traceback_s_frames_and_source_lines_are_not_messages():
    text = _traceback([
        ("/usr/lib64/python3.12/subprocess.py", 466, "check_output",
         "return run(*popenargs, stdout=PIPE, timeout=timeout, check=True,"),
    ], _CPE)
    lines = [t for t, _l in _layers(text)]
    assert lines == [_CPE]  # the source line's "timeout" is code, not a failure
    # vLLM's log prefix in front of every traceback line (vllm/engine: logger.error with the traceback)
    vllm = "\n".join([
        "ERROR 05-15 18:58:58 [engine.py:448] Traceback (most recent call last):",
        'ERROR 05-15 18:58:58 [engine.py:448]   File "/env/lib/python3.11/site-packages/vllm/model_executor/models/utils.py", line 609, in make_layers',
        "ERROR 05-15 18:58:58 [engine.py:448]     maybe_offload_to_cpu(layer_fn(prefix=f\"{prefix}.{idx}\"))",
        "ERROR 05-15 18:58:58 [engine.py:448]                          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "ERROR 05-15 18:58:58 [engine.py:448] RuntimeError: HIP error: invalid device function",
    ]) + "\n"
    assert [t for t, _l in _layers(vllm)] == ["ERROR 05-15 18:58:58 [engine.py:448] RuntimeError: HIP error: invalid device function"]


def test_an_exception_line_right_under_a_frame_is_still_read():
    # python -c: the frame has no source line, the exception follows it directly
    text = ('Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
            "ImportError: libamdhip64.so.7: cannot open shared object file: No such file or directory\n")
    assert [t for t, _l in _layers(text)] == [
        "ImportError: libamdhip64.so.7: cannot open shared object file: No such file or directory"]


# ---------------------------------------------------------------- unittest's report of a failed test
# cpython Lib/unittest/runner.py TextTestResult.printErrorList: "%s: %s" % (flavour, getDescription(test)),
# TestCase.__str__ "<method> (<module>.<Class>.<method>)", a subTest's " [<msg>]" after it
@pytest.mark.parametrize("line, layer", [
    ("ERROR: testConsoleScripts (rocm_sdk.tests.core_test.ROCmCoreTest.testConsoleScripts) [Check console-script amdflang]", "packaging"),
    ("ERROR: testPreloadLibraries (rocm_sdk.tests.core_test.ROCmCoreTest.testPreloadLibraries) [Check rocm_sdk.preload_libraries] (shortname='rocprofiler-sdk')", "packaging"),
    ("ERROR: test_cli (rocm_sdk.tests.base_test.ROCmBaseTest.test_cli)", "packaging"),
    ("ERROR: test_add (torch.testing._internal.common_utils.TestCase.test_add)", "framework"),
])
def test_a_failed_unittest_is_the_layer_of_the_package_under_test(line, layer):
    assert dict(_layers(line + "\n", "error-log"))[line] == layer


def test_a_failed_unittest_of_an_unknown_package_keeps_its_other_readings():
    line = "ERROR: test_matmul (test_linalg.TestLinalg.test_matmul)"
    assert dict(_layers(line + "\n", "error-log"))[line] == "framework"  # the error-log kind's, as before
    # pip's "ERROR: Could not find a version ..." is no unittest line
    pip = "ERROR: Could not find a version that satisfies the requirement rocm-sdk[devel] (from versions: none)"
    assert dict(_layers(pip + "\n", "error-log"))[pip] == "packaging"


# ---------------------------------------------------------------- a package tool's failure inside a "listing"
# the recogniser may take an apt/dpkg run for apt's list, a uv resolver report for pip freeze: a listing's rows stay
# no failures, a package tool's own failure line in it is one (apt-pkg/contrib/error.cc "E: ", dpkg src/main/errors.c,
# dell/dkms dkms.in, pip's "ERROR: " logging prefix, uv's resolver, dnf's "Error: ")
_APT_RUN = """sudo apt install rocm-dkms
Building initial module for 5.6.7-050607-generic
Error! Bad return status for module build on kernel: 5.6.7-050607-generic (x86_64)
dpkg: error processing package rock-dkms (--configure):
 installed rock-dkms package post-installation script subprocess returned error exit status 10
Setting up rocm-smi (1.0.0-199-rocm-rel-3.3-19-ga9d6426) ...
E: Sub-process /usr/bin/dpkg returned an error code (1)
"""


@pytest.mark.parametrize("kind", ["apt-list", "dpkg", "pip-freeze"])
def test_a_package_tool_s_failure_in_a_listing_is_read(kind):
    rows = _layers(_APT_RUN, kind)
    assert {l for _t, l in rows} == {"packaging"}
    texts = [t for t, _l in rows]
    assert "Error! Bad return status for module build on kernel: 5.6.7-050607-generic (x86_64)" in texts
    assert "E: Sub-process /usr/bin/dpkg returned an error code (1)" in texts
    assert not any(t.startswith("Setting up") for t in texts)


def test_uv_s_resolver_failure_in_a_freeze_like_listing_is_read():
    text = ("  × No solution found when resolving dependencies:\n"
            "  ╰─▶ Because only the following versions of torch are available:\n"
            "          torch==2.13.0.dev20260515+rocm7.2\n")
    assert _layers(text, "pip-freeze") == [("× No solution found when resolving dependencies:", "packaging")]


@pytest.mark.parametrize("kind, text", [
    # listing rows that only look like errors stay silent
    ("apt-list", "liberror-perl/noble,now 0.17029-2 all [installed,automatic]\n"),
    ("pip-freeze", "error-tracker==1.2.0\nfailing-test-helper==0.1\n"),
    ("dpkg", "ii  libfailure-dev  1.0-1  amd64  error handling library\n"),
])
def test_listing_rows_stay_silent(kind, text):
    assert _layers(text, kind) == []


# ---------------------------------------------------------------- ONNX Runtime's log line, DRM's bare *ERROR*
@pytest.mark.parametrize("line, layer", [
    # microsoft/onnxruntime core/common/logging/sinks/ostream_sink.cc: "[<sev>:<category>:<logger>, <location>] <msg>"
    ("2025-11-03 11:58:21.164725712 [E:onnxruntime:Default, provider_bridge_ort.cc:2251 TryGetProviderInfo_ROCM] "
     "/onnxruntime/onnxruntime/core/session/provider_bridge_ort.cc:1778 onnxruntime::Provider& "
     "onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library "
     "libonnxruntime_providers_rocm.so with error: librocm_smi64.so.7: cannot open shared object file", "framework"),
    ("2024-06-01 10:00:00.000 [W:onnxruntime:, session_state.cc:1166 VerifyEachNodeIsAssignedToAnEp] "
     "Some nodes were not assigned to the preferred execution providers, agents failed", "framework"),
    # a HIP error ORT relays keeps the HIP layer (the hip rows come first)
    ("[E:onnxruntime:Default, rocm_call.cc:116 RocmCall] HIP failure 98: invalid device function ; GPU=0", "hip"),
])
def test_onnxruntime_s_own_log_line(line, layer):
    assert fl.layer_of(line) == layer


@pytest.mark.parametrize("line, layer", [
    # drivers/gpu/drm/drm_print.c: "[drm:<func>] *ERROR* ..." with the prefix lost in the paste
    ("*ERROR* Invalid callback to read register 0x58184", "kernel"),
    ("`*ERROR* ring gfx test failed (-110)`", "kernel"),
    # naming the firmware: the firmware's
    ("[drm:psp_sw_init] *ERROR* Failed to load psp firmware!", "firmware"),
    ("*ERROR* Failed to load mc firmware!", "firmware"),
])
def test_drm_s_error_marker_without_its_prefix(line, layer):
    assert fl.layer_of(line) == layer


# ---------------------------------------------------------------- the shell, the resolver, a package not installed
@pytest.mark.parametrize("line", [
    # dash (/bin/sh on Debian/Ubuntu): "<arg0>: <line>: <command>: not found"
    "sh: 1: /home/user/therock-tarball/lib/llvm/bin/clang++: not found",
    "sh: 1: nvcc: not found",
    "/bin/sh: 1: rocm_agent_enumerator: not found",
    "dash: 3: hipconfig: not found",
    # uv's PubGrub report (astral-sh/uv crates/uv-resolver/src/pubgrub/report.rs)
    "we can conclude that torch<2.13.0a0+rocm7.13.0a20260514 cannot be used.",
    "And because only torch<=2.9.1 is available, we can conclude that torch>=2.10 cannot be used.",
    # dpkg-query; TheRock's rocm_sdk
    "dpkg-query: package 'rocm-hip-runtime' is not installed and no information is available",
    "# ERROR: ROCm SDK development package is not installed. This can typically be obtained by installing `rocm-sdk[devel]`",
])
def test_install_side_wordings(line):
    assert fl.layer_of(line) == "packaging"


@pytest.mark.parametrize("line, not_layer", [
    # near-misses: a file a program did not find is no shell's "not found"; a driver not installed in the kernel sense
    ("[drm] amdgpu: firmware not found", "packaging"),
    ("hipErrorNoBinaryForGpu: Unable to find code object for all current devices!", "packaging"),
    ("sh: line 1: 12345 Segmentation fault (core dumped) ./llama-server", "packaging"),
])
def test_install_side_near_misses(line, not_layer):
    assert fl.layer_of(line) != not_layer


# ---------------------------------------------------------------- a program refusing its command line
@pytest.mark.parametrize("line", [
    # clap (clap_builder/src/error/format.rs), as uv prints it
    "error: invalid value 'rocm6.4' for '--torch-backend <TORCH_BACKEND>'",
    "error: unexpected argument '--torch-backend' found",
    "error: the argument '--system' cannot be used with '--python <PYTHON>'",
    # argparse (cpython Lib/argparse.py): "<prog>: error: ..."
    "amd-smi: error: argument -g/--gpu: invalid choice: 'torch' (choose from 0, 1)",
    "rocm-sdk: error: unrecognized arguments: --torch",
    "torchrun: error: the following arguments are required: training_script",
])
def test_a_refused_command_line_is_the_layer_of_the_command_above_it(line):
    assert fl.usage_error(line)
    text = "$ uv pip install torch --torch-backend=rocm6.4\n" + line + "\n"
    assert dict(_layers(text))[line] == "packaging"
    rocminfo = "$ rocminfo --hsa-agent-queue\n" + line + "\n"
    assert dict(_layers(rocminfo))[line] == "runtime"


@pytest.mark.parametrize("line", [
    "error: could not compile `hip-sys` due to previous error",
    "RuntimeError: invalid value for torch.device",
    "error: argument list too long",
])
def test_other_error_lines_are_no_usage_errors(line):
    assert not fl.usage_error(line)


def test_a_refused_command_line_takes_the_echo_the_recogniser_cut_off():
    # the errors probe reads the paste as written when the echo is in a segment of its own (s10-heldy's path)
    from rocm_wizard.detect.probes import errors

    class Src:
        def pastes(self):
            return [("uv.txt", PASTE)]

        def recognized(self):
            return [(None, "uv.txt", PASTE.split("```\n", 1)[0]), ("error-log", "uv.txt", PASTE.split("```\n", 1)[1])]

    PASTE = ("`uv pip install invokeai==6.9.0 --torch-backend=rocm6.4`\nbut\n```\n"
             "error: invalid value 'rocm6.4' for '--torch-backend <TORCH_BACKEND>'\n"
             "For more information, try '--help'.\n")
    from rocm_wizard.model import System

    system = System()
    texts = [(PASTE, "paste:uv.txt"), (PASTE.split("```\n", 1)[1], "paste:uv.txt#error-log")]
    errors._unrecognised(Src(), system, texts, [])
    got = {e.text: e.layer for e in system.errors if e.signature == "unrecognised"}
    assert got["error: invalid value 'rocm6.4' for '--torch-backend <TORCH_BACKEND>'"] == "packaging"


def test_every_pattern_of_the_table_compiles():
    # a pattern Python's re refuses (a variable-width look-behind) would silence the whole catch-all at run time
    import re

    data = fl.table()._data
    for row in data.get("layer", []):
        re.compile(row["pattern"], re.I)
    for key in ("word_patterns", "benign", "message_shapes", "listing_failure_shapes"):
        for p in data.get(key, []):
            re.compile(p, re.I)
    assert fl.table().word_rx and fl.table().benign_rx and fl.table().shape_rx and fl.table().listing_failure_rx


# ---------------------------------------------------------------- a GPU kernel is not the Linux kernel
@pytest.mark.parametrize("line", [
    # ROCm/clr hipamd/src/hip_error.cpp: hipErrorInvalidKernelFile -> "invalid kernel file"
    "torch.AcceleratorError: CUDA error: invalid kernel file",
    "RuntimeError: HIP error: invalid kernel file",
    # PyTorch's hint under a CUDA/HIP error (c10/cuda/CUDAException.cpp, hipified)
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
    "HIP kernel errors might be asynchronously reported at some other API call,so the stacktrace below might be incorrect.",
])
def test_gpu_kernel_wordings_are_hip_s(line):
    assert fl.layer_of(line) == "hip"


@pytest.mark.parametrize("line, layer", [
    ("Searching online turned up https://discuss.pytorch.org/t/triton-error-cuda-device-kernel-image-is-invalid/185288 failed", "framework"),
    ("triton.compiler.errors.CompilationError: kernel_name failed", "framework"),
])
def test_kernel_inside_a_name_or_url_is_not_linux_s(line, layer):
    assert fl.layer_of(line) == layer


@pytest.mark.parametrize("line", [
    # the Linux kernel stays the kernel's
    "Mar 28 20:06:23 host kernel: [drm:amdgpu_job_timedout] *ERROR* something failed",
    "the system hangs with kernel 6.17 (works on 6.14)",
    "kernel: BUG: scheduling while atomic",
    "failed after a kernel update",
    "rocm does not support this kernel version",
])
def test_the_linux_kernel_stays_the_kernel_s(line):
    assert fl.layer_of(line) == "kernel"


# ---------------------------------------------------------------- libdrm and Mesa setting up the render node
@pytest.mark.parametrize("line", [
    # libdrm amdgpu/amdgpu_device.c amdgpu_device_initialize
    "_amdgpu_device_initialize: amdgpu_query_info(ACCEL_WORKING) failed (-13)",
    "amdgpu_device_initialize: amdgpu_query_info(ACCEL_WORKING) failed (-22)",
    # Mesa's amdgpu winsys, through mesa_loge
    "MESA: error: amdgpu: amdgpu_device_initialize failed.",
    "amdgpu: amdgpu_device_initialize failed.",
])
def test_user_space_device_set_up_is_the_runtime_s(line):
    assert fl.layer_of(line) == "runtime"


@pytest.mark.parametrize("line, layer", [
    # the kernel driver's own initialisation stays the kernel's
    ("amdgpu 0000:03:00.0: amdgpu: amdgpu_device_ip_init failed", "kernel"),
    ("[drm:amdgpu_device_init [amdgpu]] *ERROR* sw_init of IP block <gfx_v9_0> failed -12", "kernel"),
])
def test_kernel_driver_initialisation_stays_the_kernel_s(line, layer):
    assert fl.layer_of(line) == layer


@pytest.mark.parametrize("line", [
    # libdrm amdgpu/amdgpu_asic_id.c: the marketing-name table; missing costs only the name
    "/opt/amdgpu/share/libdrm/amdgpu.ids: No such file or directory",
    "/usr/share/libdrm/amdgpu.ids: No such file or directory",
])
def test_a_missing_marketing_name_table_is_no_failure(line):
    assert fl.classify(line, "error-log") is None


def test_other_missing_libdrm_files_still_read_as_failures():
    assert fl.classify("/usr/lib/x86_64-linux-gnu/libdrm_amdgpu.so.1: No such file or directory", "error-log") == fl.SHOWN


@pytest.mark.parametrize("line", [
    # amdgpu_dm.c fill_stream_properties_from_drm_display_mode: drm_warn_once
    "amdgpu 0000:03:00.0: amdgpu: [drm] Failed to setup vendor infoframe on connector HDMI-A-1: -22",
    "[    3.181995] amdgpu 0000:65:00.0: [drm] Failed to setup vendor infoframe on connector HDMI-A-1: -22",
    "amdgpu 0000:66:00.0: [drm] Failed to setup vendor infoframe on connector DP-1: -22",
])
def test_the_hdmi_vendor_infoframe_warning_is_no_failure(line):
    assert fl.classify(line, "dmesg") is None


@pytest.mark.parametrize("line", [
    # the display engine's other messages still read as failures
    "amdgpu 0000:03:00.0: [drm] REG_WAIT timeout 1us * 150000 tries - optc401_disable_crtc line:235",
    "amdgpu 0000:03:00.0: [drm] *ERROR* Failed to setup stream on connector HDMI-A-1",
])
def test_other_display_messages_still_read_as_failures(line):
    assert fl.classify(line, "dmesg") == fl.SHOWN


# ---------------------------------------------------------------- firmware and library errors inside listings
@pytest.mark.parametrize("line", [
    # initramfs-tools hook-functions add_firmware
    "W: Possible missing firmware /lib/firmware/amdgpu/navi10_mes.bin for module amdgpu",
    "W: Possible missing firmware /lib/firmware/amdgpu/green_sardine_ta.bin for module amdgpu",
])
def test_initramfs_missing_firmware_is_the_firmware_s(line):
    assert fl.layer_of(line) == "firmware"
    text = "Setting up rocm-dev (4.1.0.40100-26) ...\n" + line + "\nSetting up rocm-utils (4.1.0.40100-26) ...\n"
    assert _layers(text, "apt-list") == [(line, "firmware")]


def test_apt_s_other_warnings_stay_packaging():
    line = "W: GPG error: https://repo.radeon.com/rocm/apt/6.2 jammy InRelease: The following signatures couldn't be verified"
    assert fl.layer_of(line) == "packaging"


@pytest.mark.parametrize("kind, line, layer", [
    # MIOpen's MIOPEN_THROW ("MIOpen Error: ..."), rocBLAS' own prefix, inside a text the recogniser took for a listing
    ("hipconfig", "MIOpen Error: stoul", "libraries"),
    ("hipconfig", "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory", "libraries"),
    ("pip-freeze", "hipBLASLt error: Could not load /opt/rocm/lib/hipblaslt/library/TensileLibrary_lazy_gfx1151.dat", "libraries"),
])
def test_a_library_s_error_prefix_in_a_listing_is_read(kind, line, layer):
    assert _layers("HIP version: 7.1.0\n" + line + "\n", kind) == [(line, layer)]


@pytest.mark.parametrize("kind, text", [
    ("hipconfig", "HIP_PATH: /opt/rocm\nHIP_COMPILER: clang\nerror-codes: enabled\n"),
    ("pip-freeze", "pytest-error-for-skips==2.0.2\n"),
])
def test_listing_rows_with_error_words_stay_silent(kind, text):
    assert _layers(text, kind) == []


# ---------------------------------------------------------------- Ollama's own log line
@pytest.mark.parametrize("line, layer", [
    # ollama's slog text handler: "time=... level=WARN source=<file>.go:<n> msg=..." (lines of public server logs)
    ('time=2025-07-23T18:46:52.526+09:00 level=WARN source=amd_windows.go:138 msg="amdgpu is not supported '
     '(supported types:[gfx1030 gfx1100 gfx1101 gfx1102 gfx1151 gfx906])" gpu_type=gfx1103 gpu=0', "framework"),
    ('time=2024-06-05T10:56:17.756+02:00 level=WARN source=sched.go:512 msg="gpu VRAM usage didn\'t recover within '
     'timeout" seconds=5.279895057', "framework"),
    ('time=2024-10-01T12:00:00.000Z level=WARN source=amd_linux.go:341 msg="amdgpu too old gfx803" gpu=0', "framework"),
    # a HIP or HSA error Ollama relays keeps its layer
    ('time=2025-01-01T00:00:00.000Z level=ERROR source=server.go:421 msg="llama runner terminated" '
     'error="hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"', "hip"),
    ('time=2025-01-01T00:00:00.000Z level=ERROR source=sched.go:455 msg="error loading llama server" '
     'error="HSA_STATUS_ERROR_OUT_OF_RESOURCES"', "runtime"),
])
def test_ollama_s_log_line(line, layer):
    assert fl.layer_of(line) == layer


def test_a_kernel_log_line_with_level_words_is_not_ollama_s():
    line = "amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout level=WARN source=amdgpu_job.c:1"
    assert fl.layer_of(line) == "kernel"  # no Go source file: the kernel prefix row reads it
