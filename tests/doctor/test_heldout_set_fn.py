"""Held-out set FN (tests/data/real/2690-2695, HELDOUT.md): a theme-neutral sample of the desktop LLM applications' AMD
GPU issues (KoboldCpp, llamafile, LM Studio, Jan).  2691's log is KoboldCpp's start-up, its two notices of optional steps
that failed ('Error, Could not change process priority: ...', 'Unable to determine available RAM', LostRuins/koboldcpp
koboldcpp.py, printed when psutil is missing and the start goes on) read before as failures at runtime (the context's
'rocminfo'), and its last lines a traceback into init_library cut before the exception: the notices are now benign
(failure_lines.toml) and a cut traceback that ends an error-log segment, the last of its paste and showing no known line,
is reported at framework (failure_lines.scan).  2692, 2694 and 2695 led at their layers on the unchanged code; 2690
(the failure told only in the title) and 2693 (clang's 'invalid target ID' labelled packaging, the catalogue row at hip when measured, at packaging since)
are misses (tests/doctor/test_known_failure.py MISSES)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import failure_lines
from rwtest.heldout import fixture as _fixture, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("2691", "framework"), ("2692", "hip"), ("2694", "framework"),
                                       ("2695", "framework")])
def test_the_set_fn_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_koboldcpp_error_told_only_in_the_title_stays_a_miss():
    # 2690's paste is KoboldCpp's start-up banner, cut before any error line
    assert _lead_layer(_fixture("2690")) is None


def test_clangs_invalid_target_is_read_at_packaging():
    # 2693 is labelled packaging (the build toolchain's refusal); the row de_clang_offload_gpu_arch_refused was at hip
    # when the set was measured and is at packaging since (s22: the compiler-driver rows' layer)
    assert _lead_layer(_fixture("2693")) == "packaging"


@pytest.mark.parametrize("line", [
    # 2691's lines (LostRuins/koboldcpp#1798): koboldcpp.py's high-priority option and RAM report without psutil
    "Error, Could not change process priority: No module named 'psutil'",
    "Unable to determine available RAM",
    # the same print with another exception's text (koboldcpp.py: print("Error, Could not change process priority: "
    # + str(ex)); psutil's AccessDenied when renice is not allowed)
    "Error, Could not change process priority: psutil.AccessDenied (pid=4242)",
])
def test_koboldcpps_startup_notices_are_not_failures(line):
    assert failure_lines.classify(line, "error-log") != failure_lines.SHOWN
    assert failure_lines.classify(line, None) != failure_lines.SHOWN


@pytest.mark.parametrize("line", [
    # vLLM's build helper, which exits on it (setup_parallel_build_jobs: echo "Error: Unable to determine available RAM")
    "Error: Unable to determine available RAM",
    # a resource check that raises (RuntimeError(f"Unable to determine available RAM; need {required_mem} MB"))
    "Unable to determine available RAM; need 12288 MB",
    # another program's priority failure in its own form (a chat app's print(f'[SYSTEM]: Could not change process
    # priority: {e}')): not KoboldCpp's exact notice, so the catch-all still reads it
    "[SYSTEM]: Could not change process priority: [Errno 13] Permission denied",
])
def test_other_programs_wordings_stay_read(line):
    assert failure_lines.classify(line, "error-log") == failure_lines.SHOWN


def _text(num: str) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(_fixture(num).glob("*.txt")))


def test_a_cut_traceback_ending_an_error_log_is_read_at_framework():
    found = failure_lines.scan([(_text("2691"), "error-log", "paste:koboldcpp.txt#error-log")])
    assert found == [('(a Python traceback cut before its exception) File '
                      '"/home/USER/ROCm/Almalinux/koboldcpp/koboldcpp.py", line 550, in init_library', "framework",
                      "paste:koboldcpp.txt#error-log")]


_CHAINED = ("Traceback (most recent call last):\n"
            '  File "/usr/lib/python3.8/site-packages/tensorflow/python/pywrap_tensorflow.py", line 64, in <module>\n'
            "    from tensorflow.python._pywrap_tensorflow_internal import *\n"
            "ImportError: libamdhip64.so.3: cannot open shared object file: No such file or directory\n\n"
            "During handling of the above exception, another exception occurred:\n\n"
            "Traceback (most recent call last):\n"
            '  File "<stdin>", line 1, in <module>\n')


def test_a_chained_traceback_whose_exception_is_known_adds_no_cut_line():
    # 239's form (TensorFlow's import, the ImportError read by a catalogue row, the paste cut in the second traceback)
    known = ["ImportError: libamdhip64.so.3: cannot open shared object file: No such file or directory"]
    assert failure_lines.scan([(_CHAINED, "error-log", "paste:python.txt#error-log")], known) == []


def test_a_traceback_the_recogniser_cut_in_two_adds_no_cut_line():
    # an error-log segment that is not the last of its paste: the traceback goes on in the next segment
    head = "Initializing dynamic library: koboldcpp_hipblas.so\nTraceback (most recent call last):\n" \
           '  File "/opt/koboldcpp/koboldcpp.py", line 550, in init_library\n'
    tail = "OSError: /opt/koboldcpp/koboldcpp_hipblas.so: undefined symbol: rocblas_gemm_ex3\n"
    found = failure_lines.scan([(head, "error-log", "paste:log.txt#error-log"), (tail, None, "paste:log.txt")],
                               [tail.strip()])
    assert found == []
