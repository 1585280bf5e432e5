"""Held-out set GB (tests/data/real/2830-2835, HELDOUT.md): a theme-neutral sample of community ROCm installers',
toolboxes' and launchers' issues (kyuz0/amd-strix-halo-toolboxes, lamikr/rocm_sdk_builder, likelovewant/ollama-for-amd,
YellowRoseCx/koboldcpp-rocm, ByronLeeeee/Ollama-For-AMD-Installer).  Five of six led at their layer on the unchanged
code.  The fixes: the linker row `link_rocm_library_not_found` also names libhsakmt, the ROCr thunk (binutils ld
'cannot find -l...', lld 'unable to find library -l' + name); the layer table reads an installer's own line
('Installer error: <exception>') at packaging, before the framework row that takes any 'XxxError'; and a drive-letter
path to a rocBLAS/hipBLASLt library file (rocBLAS's 'Cannot read <path>' for TensileLibrary.dat) is a native-Windows
sign for detection."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import failure_lines
from rocm_wizard.detect.windows_facts import windows_sign
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

LINK = "link_rocm_library_not_found"


@pytest.mark.parametrize("num,layer", [("2830", "framework"), ("2831", "packaging"), ("2832", "libraries"),
                                       ("2833", "libraries"), ("2834", "packaging"), ("2835", "packaging")])
def test_the_set_gb_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_link_row_names_2831s_line_and_the_fixture_leads_at_packaging():
    assert_named_and_leads("2831", LINK, "packaging")


@pytest.mark.parametrize("text", [
    # the fixture's line (lamikr/rocm_sdk_builder#181, LLVM's OpenMP runtime in the SDK build, Arch)
    "ld.lld: error: unable to find library -lhsakmt",
    # TheRock's kfdtest under its CI (ROCm/TheRock PR 5377's comment)
    "[kfdtest] ld.lld: error: unable to find library -lhsakmt",
    # GNU ld, ROCmValidationSuite's pebb plugin (ROCm/ROCmValidationSuite#311) and ROCR-Runtime on arm64
    # (ROCm/legacy-rocm-build#183)
    "/usr/bin/ld: cannot find -lhsakmt",
    # binutils' newer form with the reason (ld/ldfile.c)
    "/usr/bin/ld: cannot find -lhsakmt: No such file or directory",
])
def test_the_link_row_reads_the_thunk_in_real_wordings(text):
    assert LINK in _ids(text)


@pytest.mark.parametrize("text", [
    "ld.lld: error: unable to find library -lnuma",           # not a ROCm library (TheRock PR 5377's next line)
    "/usr/bin/ld: cannot find -lhsakmt_helper",                # another library whose name starts the same
    "LDFLAGS=-L/opt/rocm/lib -lhsakmt",                        # a link flag, no linker failure
])
def test_lines_that_are_not_a_missing_thunk_are_not_read_by_the_link_row(text):
    assert LINK not in _ids(text)


@pytest.mark.parametrize("line", [
    # the fixture's line (ByronLeeeee/Ollama-For-AMD-Installer#21, the installer's status window)
    "Installer error: 'NoneType' object has no attribute 'write'",
    # Unsloth Studio's update step (fixture 1668's paste: its installer subprocess)
    "llama.cpp update failed: installer exited 1: Downloading whisper-v1.9.2-unsloth.9-linux-x64-slim.tar.gz: 100.0%",
])
def test_an_installers_own_line_is_read_at_packaging(line):
    assert failure_lines.layer_of(line) == "packaging"


@pytest.mark.parametrize("line,layer", [
    ("AttributeError: 'NoneType' object has no attribute 'write'", "framework"),   # the bare exception: a program's
    ("self.installer_path = None", None),                                          # an identifier, not the word
])
def test_lines_without_the_word_installer_keep_their_layer(line, layer):
    assert failure_lines.layer_of(line) == layer


@pytest.mark.parametrize("text", [
    # 2833's line (YellowRoseCx/koboldcpp-rocm#91: a PyInstaller bundle's temporary folder)
    r"rocBLAS error: Cannot Read C:\Users\Drama\AppData\Local\Temp\_MEI369642\/library/TensileLibrary.dat No such "
    r"file or directory for GPU arch : gfx1100",
    # 2832's, inside Ollama's quoted error with doubled backslashes (likelovewant/ollama-for-amd#7)
    r'error="llama runner process has terminated: exit status 0xc0000409 error:Cannot read C:\\Users\\saki\\AppData'
    r'\\Local\\Programs\\Ollama\\rocm\\/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : '
    r'gfx1010"',
    # the HIP SDK's rocBLAS (likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU#12)
    r"rocBLAS error: Could not load C:\Program Files\AMD\ROCm\6.1\bin\/rocblas/library/TensileLibrary_lazy_gfx1103.dat",
])
def test_a_drive_path_to_a_rocblas_library_file_is_a_windows_sign(text):
    assert windows_sign(text) is not None


@pytest.mark.parametrize("text", [
    # Linux's rocBLAS message (ggml-org/llama.cpp#14421)
    "rocBLAS error: Cannot read /opt/rocm-6.4.1/lib/llvm/bin/../../../lib/rocblas/library/TensileLibrary.dat: "
    "No such file or directory for GPU arch : gfx1036",
    r"see D:\data.dat for the numbers",                        # a drive and a file with no directory
])
def test_texts_without_a_windows_library_path_are_not_a_windows_sign(text):
    assert windows_sign(text) is None


def test_another_extension_is_no_library_path_sign():
    # another extension that starts the same: not the library-path sign; since s23 the general drive_path sign (any
    # drive-letter path of two names, windows_facts) reads it
    assert windows_sign(r"C:\Users\me\notes.date")[0] == "drive_path"
