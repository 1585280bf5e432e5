"""Held-out set FF (tests/data/real/2620-2625, HELDOUT.md): a theme-neutral sample of the image-generation UIs' AMD GPU
issues of 2025-2026 (ComfyUI, SD.Next, ComfyUI-Zluda).

* 2624, 2625: a Rust panic inside ZLUDA's cuDNN stand-in (vosen/ZLUDA zluda_dnn/src/impl.rs: todo!() bodies; Rust's
  default hook, rust-lang/rust library/std/src/panicking.rs: "thread '<name>' [(<id>)] panicked at <file>:<line>:<col>:"),
  read at libraries by ff_zluda_library_rust_panic; ZLUDA's CUDA-on-HIP crates (zluda, zluda_runtime, zluda_rtc) by
  ff_zluda_runtime_rust_panic at hip.
* 2621: HIP's 'invalid argument' printed under the CUDA name (pytorch/pytorch c10/cuda/CUDAException.cpp; ROCm/clr
  hip_error.cpp), read at hip by ff_cuda_named_hip_invalid_argument.
* 2620: a Windows process ended by STATUS_ACCESS_VIOLATION told by its exit code (ntstatus.h: 0xC0000005, 3221225477,
  -1073741819), read at framework by ff_windows_exit_code_access_violation.
* 2621's and 2623's Python version: SD.Next's start-up line (vladmandic/sdnext installer.py check_python,
  'Python: version=X.Y.Z platform=...'), read by the paste-facts parser.
* 2622 and 2623 led at their layers on the unchanged code."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

LIB = "ff_zluda_library_rust_panic"
RT = "ff_zluda_runtime_rust_panic"
INVAL = "ff_cuda_named_hip_invalid_argument"
AV = "ff_windows_exit_code_access_violation"


@pytest.mark.parametrize("num,layer", [("2622", "runtime"), ("2623", "libraries")])
def test_the_set_ff_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row,layer", [("2624", LIB, "libraries"), ("2625", LIB, "libraries"),
                                           ("2621", INVAL, "hip"), ("2620", AV, "framework")])
def test_the_new_rows_name_the_fixtures_lines_and_lead(num, row, layer):
    assert_named_and_leads(num, row, layer)


@pytest.mark.parametrize("line,row", [
    # 2625's (ComfyUI-Zluda#242: zluda_dnn's todo!() under comfyui-n.bat)
    ("thread '<unnamed>' panicked at zluda_dnn\\src\\impl.rs:25:5:", LIB),
    # 2624's title (ComfyUI-Zluda#395: the newer format with the thread id)
    ("thread '<unnamed>' (18652) panicked at zluda_dnn\\src\\impl.rs:202:5: not yet implemented", LIB),
    # the pre-1.73 format, message first, constructed from rust-lang/rust's old default hook and zluda_blas's path
    ("thread '<unnamed>' panicked at 'not yet implemented', zluda_blas\\src\\impl.rs:61:5", LIB),
    # vosen/ZLUDA#250 (cudart over HIP failed) and #180 (hipRTC failed)
    ("thread '<unnamed>' panicked at zluda_runtime\\src\\lib.rs:23:16:", RT),
    ("thread '<unnamed>' panicked at zluda_rtc\\src\\lib.rs:22:16:", RT),
])
def test_the_zluda_rows_read_rusts_panic_wordings(line, row):
    assert row in _ids(line)
    assert ({LIB, RT} - {row}).isdisjoint(_ids(line))


@pytest.mark.parametrize("line", [
    # Rust's second panic of the same abort, in core (2625): names no ZLUDA crate
    "thread '<unnamed>' panicked at library\\core\\src\\panicking.rs:226:5:",
    # amdgpu_top's panic (corpus 1247): another program's crate
    "thread 'main' panicked at /home/u/.cargo/registry/src/index.crates.io-6f17d22bba15001f/amdgpu_top-0.9.0/src/dump_info.rs:122:41:",
    # a ZLUDA crate named in prose, not a panic location
    "I copied zluda_dnn/src/impl.rs from the nightly build",
])
def test_other_panics_and_mentions_are_not_zluda_panics(line):
    assert {LIB, RT}.isdisjoint(_ids(line))


@pytest.mark.parametrize("line", [
    "Prompt parser encode: CUDA error: invalid argument",  # 2621 (sdnext#5055)
    "torch.AcceleratorError: CUDA error: invalid argument",  # corpus 1864 (a TheRock torch's SDPA launch)
    "CUDA error: invalid argument",  # ggml-cuda.cu's ggml_cuda_error line (corpus 2490, an HIP build of Ollama's ggml)
])
def test_the_cuda_named_invalid_argument_row_reads_its_wordings(line):
    assert INVAL in _ids(line)
    assert error_signatures.failure_layer(INVAL) == "hip"


@pytest.mark.parametrize("line", [
    "CUDA error: invalid device ordinal",  # another HIP error string
    "RuntimeError: Expected all tensors to be on the same device, invalid argument order",  # no CUDA error prefix
])
def test_other_errors_are_not_the_invalid_argument_row(line):
    assert INVAL not in _ids(line)


@pytest.mark.parametrize("line", [
    "-1073741819 (0xC0000005, Access Violation)",  # 2620 (ComfyUI#11931)
    "Python process exited with code 3221225477 and signal null",  # corpus 1086 (ComfyUI Desktop's log)
    "Process finished with exit code -1073741819 (0xC0000005)",  # JetBrains' run console, the same status
])
def test_the_access_violation_row_reads_exit_codes(line):
    assert AV in _ids(line)
    assert error_signatures.failure_layer(AV) == "framework"


@pytest.mark.parametrize("line", [
    "Process finished with exit code 0",
    "  [WARN] hipinfo returned a HIP runtime error (exit -1073741819)",  # corpus 1260: the installer's own row
    "Exit code 0xC0000409 (stack buffer overrun)",  # another NTSTATUS
])
def test_other_exit_codes_are_not_the_access_violation_row(line):
    assert AV not in _ids(line)


@pytest.mark.parametrize("line,ver", [
    ("05:07:24-008125 INFO     Python: version=3.12.10 platform=Windows bin=\"H:\\AI\\sdnext\\venv\\Scripts\\Python.exe\"",
     "3.12.10"),  # 2621 (sdnext#5055)
    ("18:22:10-597596 INFO     Python version=3.10.11 platform=Windows bin=\"D:\\stable-diff\\automatic\\venv\\Scripts\\python.exe\"",
     "3.10.11"),  # sdnext#3472 (2024's form, no colon)
])
def test_sdnexts_startup_line_names_the_python(line, ver):
    assert paste_facts.parse(line).app_pythons == [ver]


@pytest.mark.parametrize("line", [
    "05:07:24-054015 INFO     Platform: arch=AMD64 release=Windows-11-10.0.26200-SP0 python=3.12.10",  # not the Python line
    "Python: version=3.12.10 platform=Windows",  # no log level before it
])
def test_other_lines_name_no_sdnext_python(line):
    assert paste_facts.parse(line).app_pythons == []
