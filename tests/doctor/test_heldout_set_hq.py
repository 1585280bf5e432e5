"""Held-out set HQ (tests/data/real/3230-3233, HELDOUT.md): desktop and compute applications on AMD GPUs through HIP
or OpenCL, second sample (Bforartists/Cycles HIP RT, darktable OpenCL, hashcat, Folding@home).  One fixture missed its
layer: hashcat's own report that a library it loads lacks a function (3232, 'hiprtcCompileProgram is missing from
HIPRTC shared library.'), printed by hashcat's dynamic loader (hashcat/hashcat include/dynloader.h HC_LOAD_FUNC /
HC_LOAD_FUNC2: "%s is missing from %s shared library."), was only told at hip by its 'hiprtc' word.  A row now reads
it at framework.  The one detection miss (3230's os_id) was Blender's Windows exception record ('Exception Module :
amdvlk64.dll', blender/blender source/blender/blenlib/intern/system_win32.cc), now a native-Windows sign."""
from __future__ import annotations

import pytest

from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "hq_hashcat_dynlib_symbol_missing"


@pytest.mark.parametrize("num,layer", [("3230", "framework"), ("3231", "runtime"), ("3232", "framework"),
                                       ("3233", "runtime")])
def test_the_set_hq_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_hashcat_loader_row_leads_on_its_fixture():
    assert_named_and_leads("3232", ROW, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's line (hashcat/hashcat#3920, hashcat 6.2.6, Windows 11)
    "hiprtcCompileProgram is missing from HIPRTC shared library.",
    # hashcat/hashcat#3428 (hashcat 6.2.5 on an Adrenalin beta driver, RX 5700 XT), pasted without the full stop
    "hiprtcAddNameExpression is missing from HIPRTC shared library",
    # hashcat 3.x's form of the same macro (its legacy ext_OpenCL loader: log_error "ERROR: %s is missing from %s
    # shared library.") with OpenCL's upper-case library name
    "ERROR: clGetPlatformIDs is missing from OPENCL shared library.",
    # the bridge/plugin loaders' form, with the library's file name (src/bridges: "%s is missing from %s shared library.")
    "get_info is missing from ./bridges/bridge_rust_generic_hash.so shared library.",
])
def test_the_row_reads_hashcats_loader_lines(line):
    assert ROW in _ids(line)


@pytest.mark.parametrize("line", [
    "a symbol is missing from the shared library",              # prose, no hashcat library name
    "libhiprtc.so is missing from the rocm-hip-runtime package",  # a file missing from a package
    "hiprtcCompileProgram(): HIPRTC_ERROR_COMPILATION",          # the compile failure, another row
])
def test_lines_that_are_not_the_loader_report_do_not_match(line):
    assert ROW not in _ids(line)


@pytest.mark.parametrize("text,sign", [
    # the fixture's record (Bforartists/Bforartists#6617, the report's spacing collapsed by the text)
    ("ExceptionCode : EXCEPTION_ACCESS_VIOLATION (0xc0000005)\nException Address : 0x00007FFC0E47C787\n"
     "Exception Module : amdvlk64.dll\n", "Exception Module : amdvlk64.dll"),
    # Blender's own spacing (source/blender/blenlib/intern/system_win32.cc: "Exception Module      : %s\n")
    ("Exception Module      : amdhip64_6.dll\n", "Exception Module      : amdhip64_6.dll"),
])
def test_a_windows_exception_record_marks_a_windows_host(text, sign):
    from rocm_wizard.detect.windows_facts import windows_sign
    assert windows_sign(text) == ("exception_record_module", sign)


@pytest.mark.parametrize("text", [
    "Exception Module : libamdhip64.so.6\n",                    # a Linux library, not a Windows module
    "as the line 'Exception Module : amdvlk64.dll' says\n",     # quoted in prose, not at the line's start
])
def test_no_windows_sign_without_a_windows_module_record(text):
    from rocm_wizard.detect.windows_facts import windows_sign
    assert windows_sign(text) is None
