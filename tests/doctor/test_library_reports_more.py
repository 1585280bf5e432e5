"""Issue 28, s19-libmore: the ROCm libraries' own error reports, second part, and the build's summary lines.
Audit of the libraries the first part (test_library_reports.py) left (HELDOUT.md, "The ROCm libraries' own error
reports, second part"): rocThrust's thrust::system_error for a failed HIP call ('<algorithm> failed[ on 2nd step]:
<hipErrorName>: <string>', ROCm/rocThrust thrust/system/hip/detail/util.h throw_on_error) was read at hip
(no-binary-for-gpu, the hip rows); rocDecode's CHECK_HIP ("HIP failure: <call> failed with 'status: <hipErrorName>'
at <file>:<line>"), CHECK_VAAPI ("VAAPI failure: ...") and its status names (ROCDEC_*) were read at hip or not at all.
The library printed them: they are read, and lead, at libraries.  A build's summary lines (clang's 'N errors
generated', ninja's 'build stopped', setuptools' "error: command '...' failed") carry no layer of their own: they
follow the first compiler error above them (its file: a HIP header -> hip, a ROCm library's -> libraries, the
package's own source -> framework; a compiler the shell could not find -> packaging)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rwtest.heldout import doctor_files, fixture, lead_layer, problems

ROCTHRUST = "lm_rocthrust_system_error_hip"
ROCDEC_HIP = "lm_rocdecode_hip_failure"
ROCDEC_STATUS = "lm_rocdecode_status_error"
ROCDEC_VAAPI = "lm_rocdecode_vaapi_failure"
ROCFFT = "lm_rocfft_no_buffer_assignment"
NEW = {ROCTHRUST, ROCDEC_HIP, ROCDEC_STATUS, ROCDEC_VAAPI, ROCFFT}


def _ids(text):
    return [sig.id for sig, _ in error_signatures.scan(text)]


@pytest.mark.parametrize("line,row", [
    # ROCm/ROCm#5213 (CTranslate2 in AMD's rocm_ct2 image, Radeon PRO W7900, ROCm 6.1)
    ("RuntimeError: parallel_for failed: hipErrorInvalidDeviceFunction: invalid device function", ROCTHRUST),
    # llnl/smith#1586 (a gtest on the MI250X/MI300A machines tioga and rzvernal)
    ('C++ exception with description "scan failed on 2nd step: hipErrorInvalidDeviceFunction: invalid device '
     'function" thrown in SetUp().', ROCTHRUST),
    # the same source's other wording: an algorithm's synchronisation after its kernel (util.h, for_each.h)
    ("  what():  parallel_for: failed to synchronize: hipErrorLaunchFailure: unspecified launch failure", ROCTHRUST),
    # ROCm/rocDecode#329 (RHEL 9, the videodecode sample on a Radeon PRO W6800)
    ("1: HIP failure: hipImportExternalMemory(&hip_interop_[pic_idx].hip_ext_mem, &external_mem_handle_desc) failed "
     "with 'status: hipErrorInvalidValue' at /root/hostDrive/rocdecode-kiriti/rocdecode/src/rocdecode/"
     "roc_decoder.cpp:139", ROCDEC_HIP),
    # the older wording of the same macro (an integer status, 'status# '), in a release build's path
    ("HIP failure: hipMemcpy2DAsync(dst, pitch, src, src_pitch, w, h, hipMemcpyDeviceToDevice, stream) failed with "
     "'status# 1' at /long_pathname/src/rocdecode/roc_decoder.cpp:210", ROCDEC_HIP),
    ("1: [ERR]  {rocDecParseVideoData}   { HandlePictureDisplay } rocDecGetVideoFrame(roc_decoder_, "
     "pDispInfo->picture_index, src_dev_ptr, src_pitch, &video_proc_params) returned ROCDEC_RUNTIME_ERROR at "
     "/root/hostDrive/rocdecode-kiriti/rocdecode/utils/rocvideodecode/roc_video_dec.cpp:663", ROCDEC_STATUS),
    # ROCm/rocm-systems#3845 (the batch sample's log, a VA-API driver without the entry point)
    ("6: [Critical] CheckDecCapForCodecType(), Line 697: VAAPI failure: vaCreateConfig(va_contexts_[va_ctx_id]."
     "va_display, va_contexts_[va_ctx_id].va_profile, VAEntrypointVLD, &va_config_attrib, 1, &va_contexts_[va_ctx_id]"
     ".va_config_id) failed with 'status: 13: the requested VAEntryPoint is not supported' at /home/lakshmi/work/"
     "rocm-systems/projects/rocdecode/src/rocdecode/vaapi/vaapi_videodecoder.cpp:697", ROCDEC_VAAPI),
    # cp2k/cp2k#1864 (hipFFT plans on ROCm 4.5, the message repeated through a benchmark's output)
    ("Can't find valid buffer assignment with current buffers.", ROCFFT),
    # ROCm/rocFFT#338's title quoting it after hipfftPlanMany
    ('Error message "Can\'t find valid buffer assignment with current buffers."', ROCFFT),
])
def test_the_library_lines_are_named_at_libraries(line, row):
    assert row in _ids(line), line
    assert error_signatures.failure_layer(row) == "libraries"


@pytest.mark.parametrize("line", [
    "RuntimeError: parallel_for failed: hipErrorInvalidDeviceFunction: invalid device function",
    ('C++ exception with description "scan failed on 2nd step: hipErrorInvalidDeviceFunction: invalid device '
     'function" thrown in SetUp().'),
    ("1: HIP failure: hipImportExternalMemory(&hip_interop_[pic_idx].hip_ext_mem, &external_mem_handle_desc) failed "
     "with 'status: hipErrorInvalidValue' at /root/hostDrive/rocdecode-kiriti/rocdecode/src/rocdecode/"
     "roc_decoder.cpp:139"),
])
def test_the_library_relaying_a_hip_error_leads_at_libraries(tmp_path, line):
    found = problems(doctor_files(tmp_path, {"log.txt": line + "\n"}))
    assert found and found[0][1] == "libraries", found


@pytest.mark.parametrize("line", [
    "hipErrorInvalidDeviceFunction: invalid device function",          # HIP's own words, no library's message
    "kernel launch failed: hipErrorInvalidDeviceFunction",              # a program's check: no HIP string after it
    "copy_if failed on 2nd step: cudaErrorIllegalAddress",              # Thrust on CUDA
    "HIP failure: hipMalloc(&p, n) failed with 'status: hipErrorOutOfMemory' at /home/u/app/main.cpp:12",  # a copy
    "    ROCDEC_SUCCESS = 0,",                                          # the header's success value
    "    // else, we can't find any valid buffer assignment !",        # rocFFT's source comment
])
def test_near_misses_are_not_named(line):
    ids = _ids(line)
    assert not NEW & set(ids), (line, ids)


@pytest.mark.parametrize("line", ["RuntimeError: HIP error: invalid device function", "hipErrorInvalidValue"])
def test_the_bare_hip_error_keeps_its_hip_lead(tmp_path, line):
    found = problems(doctor_files(tmp_path, {"log.txt": line + "\n"}))
    assert found and found[0][1] == "hip", found


def test_gccs_closing_note_stays_on_its_line():
    # (found by Hypothesis in this session: bp_gcc_warnings_treated_as_errors' "(?:^|\\s)" began its match at the
    # line break before it; it now begins at a space or tab, and ends before the line break)
    for text in ("0\n0: some warnings being treated as errors", "cc1plus: all warnings being treated as errors\n\n"):
        found = error_signatures.scan(text)
        assert found and all("\n" not in line for _sig, line in found), found


# ---- a build's summary lines follow the first compiler error above them

@pytest.mark.parametrize("log,layer", [
    # the package's own source (no row reads the error line): clang's device summary goes to framework, not libraries
    ("/home/u/proj/src/solver.cpp:42:7: error: no matching constructor for initialization of 'Foo'\n"
     "1 error generated when compiling for gfx90a.\n", "framework"),
    # a HIP header: hip
    ("/opt/rocm-6.4.1/include/hip/amd_detail/amd_warp_functions.h:120:3: error: call to '__shfl_xor' is ambiguous\n"
     "1 error generated when compiling for gfx1100.\n", "hip"),
    # ninja's stop over a package's own source, under another compile's summary: framework (the catch-all read it
    # at firmware through the word 'bar' above it)
    ("/home/u/proj/src/main.cpp:7:10: error: no matching function for call to 'bar'\n2 errors generated.\n"
     "ninja: build stopped: subcommand failed.\n", "framework"),
    # the compiler the build runs is missing: packaging
    ("[1/3] Building HIP object CMakeFiles/k.dir/k.hip.o\n/bin/sh: 1: /opt/rocm/bin/hipcc: not found\n"
     "ninja: build stopped: subcommand failed.\n", "packaging"),
])
def test_the_summary_follows_the_first_error_above_it(tmp_path, log, layer):
    found = problems(doctor_files(tmp_path, {"build.txt": log}))
    assert found and found[0][1] == layer, found


@pytest.mark.parametrize("log,line,layer", [
    # setuptools' line under a ROCm library's header error (the library's) and under the program's (framework)
    ("/opt/rocm-7.0.0/include/rocprim/device/device_scan.hpp:100:5: error: no member named 'x'\n"
     "1 error generated when compiling for gfx1100.\nerror: command '/usr/bin/hipcc' failed with exit code 1\n",
     "error: command '/usr/bin/hipcc' failed with exit code 1", "libraries"),
    ("/home/u/proj/csrc/k.hip:12:5: error: use of undeclared identifier 'foo'\n"
     "1 error generated when compiling for gfx1100.\nerror: command '/usr/bin/hipcc' failed with exit code 1\n",
     "error: command '/usr/bin/hipcc' failed with exit code 1", "framework"),
    # a kernel module's source (a DKMS build): no layer from the file, the words around it place it
    ("/var/lib/dkms/amdgpu/6.3.6/build/amd/amdgpu/amdgpu_drv.c:12:3: error: implicit declaration of function 'f'\n"
     "1 error generated.\n", "1 error generated.", None),
    # no compiler error above the summary: no layer from it (the summary alone says nothing of whose code it is)
    ("20 errors generated when compiling for gfx1100.\n", "20 errors generated when compiling for gfx1100.", None),
    # the first error is the earliest one: an earlier library header error leads a later own-source one
    ("/opt/rocm/include/hipcub/backend/rocprim/block/block_load.hpp:3:1: error: unknown type name 'T'\n"
     "/home/u/proj/src/a.hip:9:1: error: expected ';'\n2 errors generated when compiling for gfx942.\n",
     "2 errors generated when compiling for gfx942.", "libraries"),
])
def test_summary_layer(log, line, layer):
    assert failure_lines.summary_layer(log, line) == layer


def test_an_unknown_compiler_error_in_a_hip_header_is_placed_by_its_file(tmp_path):
    log = ("/opt/rocm-6.4.1/include/hip/amd_detail/amd_warp_functions.h:120:3: error: call to '__shfl_xor' is "
           "ambiguous\n1 error generated when compiling for gfx1100.\n")
    assert {layer for _id, layer in problems(doctor_files(tmp_path, {"build.txt": log}))} == {"hip"}


def test_the_real_build_logs_keep_their_lead():
    # the corpus's build logs with clang's summary: a package's own source (1841 Kokkos, 2144 apex: framework), CK's
    # header vendored in flash-attention (1562: libraries); 2143 (xformers) shows no error line above its summary,
    # only 'too many errors emitted', so its summary keeps no layer of its own there
    for num, layer in (("1841", "framework"), ("2144", "framework"), ("1562", "libraries")):
        assert lead_layer(fixture(num)) == layer, num
    text = (fixture("2144") / "build.txt").read_text(encoding="utf-8")
    line = next(l for l in text.splitlines() if "errors generated" in l)
    assert failure_lines.summary_layer(text, line) == "framework"
