"""Held-out set BE (tests/data/real/1420-1424, HELDOUT.md): sandboxed, immutable and bundled installs in 2026 (an AppImage
bundling torch's ROCm libraries, Unsloth's AppImage installer and amdgpu-install on Bazzite, the Alpaca Flatpak's
Ollama plugin, nixpkgs' ollama-rocm).
The misses' causes, each from the program that prints the line: glibc's dynamic loader refusing a library that asks for
an executable stack (bminor/glibc elf/dl-load.c, 1420), and rocBLAS's own word that it fell back from hipBLASLt to its
Tensile kernels (rocBLAS library/src/tensile_host.cpp), which makes hipBLASLt's missing library a slowdown, not the
failure (1423).  1423 keeps its libraries warnings first (doctor orders by the root-cause layer before severity) and
1424 (strace's SIGSEGV of a package's executable, whose package only the thread names) is left as it is."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest import realrun
from rwtest.heldout import (assert_named_and_leads, doctor_files, fixture as _fixture, ids as _ids,
                            lead_layer as _lead_layer, problems)

EXECSTACK = "s13be_dlopen_execstack_refused"


@pytest.mark.parametrize("num,layer", [("1420", "packaging"), ("1421", "framework"), ("1422", "packaging")])
def test_the_set_be_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_execstack_fixture_is_named_and_leads():
    assert_named_and_leads("1420", EXECSTACK, "packaging")
    assert not [p for p in problems(realrun.diagnosis(_fixture("1420"))) if p[0] == "unrecognised-failure"]


# -- glibc: '<object>: cannot enable executable stack as shared object requires: <errno text>' (1420) -------------
@pytest.mark.parametrize("line", [
    "ImportError: libamdhip64.so: cannot enable executable stack as shared object requires: Invalid argument",  # 1420
    "OSError: /opt/venv/lib/python3.12/site-packages/torch/lib/libhiprtc.so: cannot enable executable stack as "
    "shared object requires: Invalid argument",
    "onnxruntime/capi/onnxruntime_pybind11_state.so: cannot enable executable stack as shared object requires: "
    "Permission denied",                                                                  # systemd MemoryDenyWriteExecute
    "Error loading libmwmshrcfservice.so. libmwfoundation_crash_handling.so: cannot enable executable stack as shared "
    "object requires: Invalid argument: Success: Success",
    "error while loading shared libraries: libamdhip64.so.5: cannot enable executable stack as shared object requires: "
    "Invalid argument",                                                                   # ld.so at a program's start
])
def test_glibcs_execstack_refusal_is_named_at_packaging(line):
    assert EXECSTACK in _ids(line), line
    assert error_signatures.failure_layer(EXECSTACK) == "packaging"


@pytest.mark.parametrize("line", [
    # GNU ld's link-time warnings about the same flag are not a refusal to load
    "/usr/bin/ld: warning: hipamd/src/hiprtc/hip_rtc_gen/hipRTC_header.o: missing .note.GNU-stack section implies "
    "executable stack",
    "/usr/bin/ld: warning: libfoo.so requires executable stack (because the .note.GNU-stack section is executable)",
    "ImportError: libamdhip64.so: cannot open shared object file: No such file or directory",
    "patchelf --clear-execstack libamdhip64.so",
])
def test_link_warnings_and_other_load_errors_are_not_the_execstack_refusal(line):
    assert EXECSTACK not in _ids(line), line


# -- hipBLASLt's missing library after which rocBLAS says it fell back to Tensile (1423) -----------------------------
HIPBLASLT_MISSING = ("rocblaslt error: Could not load /opt/rocm/lib/hipblaslt/library/TensileLibrary_lazy_gfx1201.dat\n"
                     "hipBLASLt error: Heuristic Fetch Failed!\n")
FALLBACK = "rocBLAS warning: hipBlasLT failed, falling back to tensile. \n"


def _finding(diag, rule):
    return next((f for f in diag.findings if f.id == rule), None)


def test_a_missing_hipblaslt_library_is_an_error_without_rocblas_fallback(tmp_path):
    f = _finding(doctor_files(tmp_path, {"log.txt": HIPBLASLT_MISSING}), "hipblaslt-library-missing")
    assert f is not None and f.severity == "error"


@pytest.mark.parametrize("tail", [FALLBACK, "rocBLAS warning: hipBlasLT exception encountered. \n" + FALLBACK])
def test_rocblas_falling_back_to_tensile_makes_it_a_warning(tmp_path, tail):
    f = _finding(doctor_files(tmp_path, {"log.txt": HIPBLASLT_MISSING + tail}), "hipblaslt-library-missing")
    assert f is not None and f.severity == "warning"
    assert any("fell back to its Tensile kernels" in e for e in f.evidence)


def test_the_ollama_plugin_fixture_names_the_allocation_failure_at_framework():
    found = problems(realrun.diagnosis(_fixture("1423")))
    assert ("known-failure", "framework") in found
    f = _finding(realrun.diagnosis(_fixture("1423")), "hipblaslt-library-missing")
    assert f is not None and f.severity == "warning"
