"""Held-out set Y (tests/data/real/830-840, HELDOUT.md): distributions' own ROCm packages and non-Ubuntu installs.
Each miss's cause, fixed from the program that prints the line: clang's ROCm installation detector and its HIP
runtime link arguments (clang/lib/Driver/ToolChains/AMDGPU.cpp, Linux.cpp), the linkers' undefined-symbol reports
(lld/ELF/Relocations.cpp, binutils ld/ldmain.c), Ollama's load request to its runner (ollama/ollama llm/server.go),
an installer's check of the libraries a build resolves (pwilkin/strix-halo install.sh), and the layer of a failure
line that names none, read from the prompt above it in the paste as written; tested on the fixture and on other
wordings of the same source, with near misses."""
from __future__ import annotations

from pathlib import Path

import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.detect import failure_lines as fl
from rocm_wizard.doctor import diagnose
from rwtest.heldout import ids as _ids, lead_layer as _lead_layer
from rwtest.heldout import doctor_files as _doctor, problems as _problems, fixture as _fixture


def _text(num: str) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(_fixture(num).glob("*.txt")))


# -- the fixtures lead at their labelled layers ------------------------------------------------------
@pytest.mark.parametrize("num,row,layer", [
    ("830", "s10y_clang_hip_installation_not_found", "packaging"),
    ("830", "s10y_link_hip_runtime_symbols_undefined", "packaging"),
    ("831", "s10y_custom_hip_prefix_not_resolved", "packaging"),
    ("838", "s10y_ollama_load_request_runner_gone", "framework"),
])
def test_the_fixture_names_the_row_and_leads_at_its_layer(num, row, layer):
    assert row in _ids(_text(num))
    assert error_signatures.failure_layer(row) == layer
    assert _lead_layer(_fixture(num)) == layer


def test_837_clinfo_abort_is_placed_at_the_runtime_by_the_prompt_above_it():
    # before: "free(): invalid pointer" was an unrecognised failure with no layer (the recogniser had cut the
    # prompt line "❯ clinfo" into a segment of its own)
    found = _problems(diagnose(detect_snapshot(str(_fixture("837")))))
    assert ("unrecognised-failure", "runtime") in found, found
    assert _lead_layer(_fixture("837")) == "runtime"


# -- clang's HIP installation detector without a path ------------------------------------------------
@pytest.mark.parametrize("line", [
    # RocmInstallationDetector::print with an empty InstallPath (the default version), as hipcc -v prints it
    "Found HIP installation: , version 3.5.0",
    # the fixture's quote, the line break the index's copy has
    "Found HIP installation: , version",
    # Linux::AddHIPRuntimeLibArgs' "-L" + an empty library path, then -lamdhip64 (the link line hipcc runs)
    '"/usr/bin/ld.lld" -o ds4 ds4.o -lm -pthread -lhipblas -lrocblas -L -lamdhip64 -lc',
    "... ds4_rocm.o ... -lm -pthread -lhipblas -lhipblaslt -lrocblas -L -lamdhip64",
])
def test_clangs_hip_detector_without_a_path_is_named(line):
    assert "s10y_clang_hip_installation_not_found" in _ids(line), line


@pytest.mark.parametrize("line", [
    # a HIP installation the detector found: nothing wrong
    "Found HIP installation: /opt/rocm-7.2.1, version 7.2.53211",
    "Found HIP installation: /usr, version 7.1.52802",
    # a link line with the library path
    "clang++ -o app app.o -L/opt/rocm/lib -lamdhip64",
    "hipcc -o app app.o -L /usr/lib64 -lamdhip64",
])
def test_a_found_hip_installation_and_a_whole_link_line_are_not_it(line):
    assert "s10y_clang_hip_installation_not_found" not in _ids(line), line


# -- the linker's undefined HIP runtime symbols ----------------------------------------------------------
@pytest.mark.parametrize("line", [
    "ld.lld: error: undefined symbol: hipSetDevice",
    "ld.lld: error: undefined symbol: hipMalloc",
    # binutils ld's form, with the object and the function
    "/usr/bin/ld: app.o: in function `main': app.cpp:(.text+0x1d): undefined reference to `hipMalloc'",
    "/usr/bin/ld: CMakeFiles/bench.dir/bench.cpp.o: undefined reference to `hipLaunchKernel'",
])
def test_undefined_hip_runtime_symbols_at_the_link_are_named(line):
    assert "s10y_link_hip_runtime_symbols_undefined" in _ids(line), line


@pytest.mark.parametrize("line", [
    # a library's API, not the HIP runtime's (hipBLAS, hipRTC): other causes
    "/usr/bin/ld: main.o: undefined reference to `hipblasCreate'",
    "ld.lld: error: undefined symbol: hiprtcCreateProgram",
    # the dynamic loader at run time, not the link (the ImportError / symbol lookup rows)
    "ImportError: /opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_hip.so: undefined symbol: hipMallocAsync",
])
def test_other_undefined_symbols_are_not_it(line):
    assert "s10y_link_hip_runtime_symbols_undefined" not in _ids(line), line


# -- Ollama's load request to a runner that died ------------------------------------------------------
@pytest.mark.parametrize("line", [
    # the fixture's client line
    'Error: 500 Internal Server Error: do load request: Post "http://127.0.0.1:42089/load": EOF',
    # the server's own log of the same error, with Go's other connection errors of a runner gone
    'time=2026-03-02T10:11:12.000Z level=ERROR source=sched.go:485 msg="error loading llama server" '
    'error="do load request: Post \\"http://127.0.0.1:35521/load\\": EOF"',
    'Error: 500 Internal Server Error: do load request: Post "http://127.0.0.1:40123/load": read tcp '
    '127.0.0.1:51422->127.0.0.1:40123: read: connection reset by peer',
    'do load request: Post "http://127.0.0.1:40123/load": dial tcp 127.0.0.1:40123: connect: connection refused',
])
def test_ollamas_load_request_to_a_dead_runner_is_named(line):
    assert "s10y_ollama_load_request_runner_gone" in _ids(line), line


@pytest.mark.parametrize("line", [
    # the client went away (a cancelled request), not the runner
    'do load request: Post "http://127.0.0.1:40123/load": context canceled',
    # the runner answered with an error body: other lines tell it
    "read load request: unexpected EOF",
])
def test_a_cancelled_load_request_is_not_it(line):
    assert "s10y_ollama_load_request_runner_gone" not in _ids(line), line


# -- the installer's check of a custom HIP/ROCr prefix ------------------------------------------------
@pytest.mark.parametrize("line", [
    "[install.sh] ERROR: llama.cpp does not resolve libamdhip64 through the custom HIP prefix",
    "[install.sh] ERROR: llama.cpp does not resolve libhsa-runtime64 through the custom ROCr prefix",
])
def test_the_installers_custom_prefix_check_is_named(line):
    assert "s10y_custom_hip_prefix_not_resolved" in _ids(line), line


def test_a_library_resolved_from_the_prefix_is_not_it():
    line = "        libamdhip64.so.7 => /home/u/.local/share/strix/hip/lib/libamdhip64.so.7 (0x00007ff923000000)"
    assert "s10y_custom_hip_prefix_not_resolved" not in _ids(line)


# -- a failure line that names no layer, under the prompt that ran the program ------------------------------
@pytest.mark.parametrize("text,layer", [
    # glibc's heap-check aborts (malloc/malloc.c malloc_printerr) under a prompt running clinfo or rocminfo
    ("❯ clinfo\nfree(): invalid pointer\n", "runtime"),
    ("$ clinfo\ndouble free or corruption (out)\nAborted (core dumped)\n", "runtime"),
    ("user@host:~$ rocminfo\nfree(): invalid pointer\nAborted (core dumped)\n", "runtime"),
])
def test_the_prompt_above_an_unplaced_line_gives_its_layer(tmp_path: Path, text, layer):
    found = _problems(_doctor(tmp_path, {"out.txt": text}))
    assert ("unrecognised-failure", layer) in found, found


def test_a_prompt_running_something_else_gives_no_runtime_layer(tmp_path: Path):
    # the same abort under a program of no layer: it keeps none (no runtime layer made up)
    found = _problems(_doctor(tmp_path, {"out.txt": "$ ./mytool --run\nfree(): invalid pointer\n"}))
    assert ("unrecognised-failure", "runtime") not in found, found


def test_layer_above_reads_the_lines_above_the_line_in_the_paste():
    text = "$ clinfo\nfree(): invalid pointer\n"
    assert fl.layer_above(text, "free(): invalid pointer") == "runtime"
    assert fl.layer_above(text, "not in the paste") is None
    assert fl.layer_above("free(): invalid pointer\n", "free(): invalid pointer") is None
