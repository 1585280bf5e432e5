"""Held-out set I (tests/data/real/HELDOUT.md, fixtures 500-520): the general causes behind its misses,
each tested on input other than the fixture's line (other values of the source's format, other
programs printing through the same component), so that a row fits the message's source and not one
paste.  A message's layer is that of the component that prints it."""
from __future__ import annotations


import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import doctor_files as _doctor, problems as _problems


def _rows(line: str):
    return [s.id for s, _ in error_signatures.scan(line)]


@pytest.mark.parametrize("line, row", [
    # RCCL's rcclCudaErrorHandler, whatever HIP error it names
    ("node1:4242:4300 [3] [FATAL ERROR]: HIP failure: 'out of memory'", "rccl_hip_failure"),
    ("[FATAL ERROR]: HIP failure: 'the operation cannot be performed in the present state'", "rccl_hip_failure"),
    # LLVM's MCSubtargetInfo, for any processor name
    ("'gfx1151' is not a recognized processor for this target (ignoring processor)", "llvm_processor_not_recognized"),
    # MIGraphX's MIGRAPHX_THROW context and compile_ops' message for other ops and targets
    ("RuntimeError: /src/AMDMIGraphX/src/onnx/onnx_parser.cpp:412: parse_graph: Unknown operator: GridSample", "migraphx_exception"),
    ("what():  /build/AMDMIGraphX/src/targets/gpu/compile_ops.cpp:153: add_compiles: No solutions provided for gpu::ck_gemm with gfx942",
     "migraphx_no_solutions"),
    # PyTorch's SDPA gate (both wordings) and select_sdp_backend's check (older builds print two spaces)
    ("UserWarning: Mem Efficient attention on Current AMD GPU is still experimental. Enable it with "
     "TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL=1.", "torch_sdpa_aotriton_experimental"),
    ("UserWarning: Flash attention support on Navi31 GPU is still experimental. Enable it with "
     "TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL=1.", "torch_sdpa_aotriton_experimental"),
    ("RuntimeError: No available kernel.  Aborting execution.", "torch_sdpa_no_available_kernel"),
    # TheRock's trampolines
    ('  File "/venv/lib/python3.13/site-packages/rocm_sdk_core/_cli.py", line 30, in _exec', "rocm_wheel_console_script_missing_program"),
    ("FileNotFoundError: Profiler tool not found: /venv/lib/python3.12/site-packages/rocm_sdk_profilers/bin/rocprofv3",
     "rocm_wheel_console_script_missing_program"),
    # amdgpu_pmops_suspend, both wordings
    ("Jul 14 02:11:09 host kernel: amdgpu 0000:03:00.0: [drm] *ERROR* Unsupported suspend state 3", "kernel_unsupported_suspend_state"),
    ("amdgpu 0000:c4:00.0: Unsupported suspend state for device", "kernel_unsupported_suspend_state"),
    # dpkg, clang's driver, Docker, SELinux, LLVM offload
    ("Errors were encountered while processing:", "dpkg_errors_encountered"),
    ("clang-19: error: cannot find HIP runtime; provide its path via '--rocm-path', or pass '-nogpuinc' to build without HIP runtime",
     "clang_cannot_find_rocm"),
    ("clang++: error: cannot find ROCm device library for gfx1201; provide its path via '--rocm-path' or '--rocm-device-lib-path'",
     "clang_cannot_find_rocm"),
    ('docker: Error response from daemon: error gathering device information while adding custom device "/dev/dri/renderD128": '
     "no such file or directory.", "docker_gpu_device_missing"),
    ('type=AVC msg=audit(1700000000.123:456): avc:  denied  { read write } for  pid=4242 comm="rocminfo" path="/dev/kfd" '
     'dev="devtmpfs" scontext=system_u:system_r:container_t:s0:c1,c2 tcontext=system_u:object_r:device_t:s0 tclass=chr_file permissive=0',
     "selinux_denied_gpu_device"),
    ("OFFLOAD ERROR: memory access fault by GPU 0 (agent 0x55d0c0) at virtual address 0x7f00000000. Reasons: Page not present",
     "offload_memory_access_fault"),
    # AITER and flash-attention
    ("RuntimeError: Get GPU arch from rocminfo failed: [Errno 2] No such file or directory: 'rocminfo'", "aiter_rocminfo_failed"),
    ("RuntimeError: Unknown GPU architecture: gfx1150. Supported architectures: ['gfx942', 'gfx950']", "aiter_unknown_gpu_arch"),
    ("[aiter] failed jit build [module_moe_sorting]", "aiter_jit_build_failed"),
    ("AssertionError: One of GPU archs of ['gfx1151'] is invalid or not supported", "flash_attn_arch_not_supported"),
])
def test_each_row_fits_its_sources_format_not_one_paste(line, row):
    assert row in _rows(line), _rows(line)


@pytest.mark.parametrize("line", [
    "No solutions provided for comparison",              # other programs' wording (plots, solvers)
    "WARNING: No solutions provided for Gini Trade-off plot.",
    "error: 'foo' is not a recognized feature for this target (ignoring feature)",
    "Found 1 ROCm devices: Device 0: AMD Radeon Graphics, gfx1151",
])
def test_lookalike_lines_are_not_claimed(line):
    new = {"migraphx_no_solutions", "llvm_processor_not_recognized", "aiter_unknown_gpu_arch", "rccl_hip_failure"}
    assert not new & set(_rows(line)), _rows(line)


def test_rccl_hip_failure_in_a_vllm_log_leads_at_the_libraries(tmp_path):
    diag = _doctor(tmp_path, {"vllm.txt": (
        "INFO 11-02 10:00:01 [parallel_state.py:1208] rank 1 in world size 2 is assigned as DP rank 0\n"
        "node1:4242:4300 [1] [FATAL ERROR]: HIP failure: 'invalid argument'\n"
        "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)\n")})
    problems = _problems(diag)
    assert ("known-failure", "libraries") in problems, problems
    assert ("unrecognised-failure", "hip") not in problems


def test_a_framework_llvm_without_the_gpu_is_the_frameworks_not_rocms(tmp_path):
    diag = _doctor(tmp_path, {"julia.txt": "'gfx1150' is not a recognized processor for this target (ignoring processor)\n" * 3})
    problems = _problems(diag)
    assert problems and problems[0] == ("known-failure", "framework"), problems


def test_a_rocm_wheel_missing_its_program_is_packaging_before_the_traceback(tmp_path):
    diag = _doctor(tmp_path, {"rocminfo.txt": (
        "$ rocminfo\nTraceback (most recent call last):\n"
        '  File "/venv/bin/rocminfo", line 8, in <module>\n    sys.exit(rocm_info())\n'
        '  File "/venv/lib/python3.13/site-packages/rocm_sdk_core/_cli.py", line 30, in _exec\n'
        "    os.execv(full_path, [str(full_path)] + sys.argv[1:])\n"
        "FileNotFoundError: [Errno 2] No such file or directory\n")})
    problems = _problems(diag)
    assert problems and problems[0] == ("known-failure", "packaging"), problems


def test_a_dkms_compile_error_is_reported_by_the_dkms_rule(tmp_path):
    diag = _doctor(tmp_path, {"make.log.txt": (
        "DKMS make.log for amdgpu-6.10.5-2109964.24.04 for kernel 6.17.0-5-generic (x86_64)\n"
        "/var/lib/dkms/amdgpu/6.10.5-2109964.24.04/build/amd/amdgpu/amdgpu_ttm.c:1186:9: error: too many arguments to function "
        "'ttm_tt_init'\n")})
    assert ("dkms-build-failed", "packaging") in _problems(diag)


def test_a_container_denied_the_gpu_by_selinux_is_the_runtimes(tmp_path):
    diag = _doctor(tmp_path, {"audit.txt": (
        'type=AVC msg=audit(1700000000.123:456): avc:  denied  { read write } for  pid=4242 comm="python3" '
        'path="/dev/dri/renderD129" dev="devtmpfs" scontext=system_u:system_r:container_t:s0:c1,c2 '
        "tcontext=system_u:object_r:dri_device_t:s0 tclass=chr_file permissive=0\n")})
    assert ("known-failure", "runtime") in _problems(diag)


def test_an_unsupported_suspend_state_is_the_kernels(tmp_path):
    diag = _doctor(tmp_path, {"journal.txt": (
        "Mar 05 23:10:01 box kernel: PM: suspend entry (s2idle)\n"
        "Mar 05 23:10:01 box kernel: amdgpu 0000:0c:00.0: [drm] *ERROR* Unsupported suspend state 1\n"
        "Mar 05 23:10:01 box kernel: amdgpu 0000:0c:00.0: PM: dpm_run_callback(): pci_pm_suspend+0x0/0x170 returns -22\n")})
    problems = _problems(diag)
    assert ("known-failure", "kernel") in problems, problems
    assert all(layer in ("kernel", "firmware") for _, layer in problems), problems


def test_the_sdpa_gate_alone_is_a_warning_and_no_available_kernel_an_error(tmp_path):
    (tmp_path / "a").mkdir()
    gate = _doctor(tmp_path / "a", {"run.txt": (
        "UserWarning: Mem Efficient attention on Current AMD GPU is still experimental. Enable it with "
        "TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL=1. (Triggered internally at aten/src/ATen/native/transformers/hip/sdp_utils.cpp:360.)\n")})
    sev = {f.severity for f in gate.findings if f.id == "known-failure" and f.layer == "framework"}
    assert sev == {"warning"}, [(f.id, f.layer, f.severity) for f in gate.findings]
    (tmp_path / "b").mkdir()
    hard = _doctor(tmp_path / "b", {"run.txt": "RuntimeError: No available kernel. Aborting execution.\n"})
    sev = {f.severity for f in hard.findings if f.id == "known-failure" and f.layer == "framework"}
    assert sev == {"error"}, [(f.id, f.layer, f.severity) for f in hard.findings]
