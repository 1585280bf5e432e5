"""Held-out set CP (tests/data/real/1800-1804, HELDOUT.md): CI runners and automated jobs on AMD GPUs.  The general
cause fixed: a CI job's pytest live log (pytest's DEFAULT_LOG_FORMAT, "%(levelname)-8s %(name)s:%(filename)s:
%(lineno)d %(message)s", pytest-dev/pytest src/_pytest/logging.py) wraps every line a sanity test logs -- the whole
output of a failed command at ERROR -- so the logger's level word made HIP's level-3 trace lines and the test's own
bookkeeping read as failures.  Whether a line is a failure, and of which layer, is now its message's."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import failure_lines
from rwtest.heldout import doctor_files, fixture, problems

STAMP = "2025-12-22T03:49:01.6808636Z "


@pytest.mark.parametrize("line,message", [
    # the fixture's lines (1801, 1803), with and without the runner's time stamp
    ("2026-01-07T00:09:10.4967761Z ERROR    test_rocm_sanity:test_rocm_sanity.py:32 command stdout:", "command stdout:"),
    ("ERROR    test_rocm_sanity:test_rocm_sanity.py:41 Unable to open /dev/kfd read-write: Invalid argument",
     "Unable to open /dev/kfd read-write: Invalid argument"),
    # the other levels as logging names them, a dotted logger, CRITICAL filling its 8 columns
    ("INFO     test_rocm_sanity:test_rocm_sanity.py:54 Command failed: `/x/rocminfo`, see output above",
     "Command failed: `/x/rocminfo`, see output above"),
    ("WARNING  django.db.backends:utils.py:114 (0.000) SELECT 1", "(0.000) SELECT 1"),
    ("CRITICAL root:conftest.py:7 boom", "boom"),
])
def test_pytest_log_prefix_is_cut(line, message):
    assert failure_lines.log_message(line) == message


@pytest.mark.parametrize("line", [
    # near misses: not pytest's record (no file:line, logging's BASIC_FORMAT, vLLM's own format, a plain message)
    "ERROR    something went wrong",
    "ERROR:root:hipErrorNoDevice",
    "ERROR 05-15 18:58:58 [engine.py:448] RuntimeError: HIP error",
    "error: test.py:3 is not a level",
    "ERROR    test_rocm_sanity:test_rocm_sanity.py:35",  # no message after it
])
def test_other_lines_are_kept_whole(line):
    assert failure_lines.log_message(line) == line


def test_hip_trace_lines_under_pytest_error_are_no_failures(tmp_path):
    log = "\n".join(STAMP + "ERROR    test_rocm_sanity:test_rocm_sanity.py:35 " + m for m in (
        ":3:hip_context.cpp          :66  : 383398390709 us: [pid:718 tid: 0x7d97760d9f80] HIP Version: "
        "7.2.53150.ed0a4c5276, Direct Dispatch: 1",
        ":3:hip_memory.cpp           :783 : 383398390748 us: [pid:718 tid: 0x7d97760d9f80]  hipHostMalloc ( "
        "0x7ffe554e7b88, 256, 0 ) ")) + "\n"
    assert not [p for p in problems(doctor_files(tmp_path, {"log.txt": log})) if p[0] == "unrecognised-failure"]


def test_a_failure_under_pytest_info_is_still_one(tmp_path):
    # the level word is not what makes a line a failure: a failed command logged at INFO is still reported
    log = "INFO     test_rocm_sanity:test_rocm_sanity.py:54 Command failed: `/opt/rocm/bin/rocminfo`, see output above\n"
    assert problems(doctor_files(tmp_path, {"log.txt": log}))


def test_fixture_1803_reports_no_device_alone():
    from rocm_wizard.detect import detect_snapshot
    from rocm_wizard.doctor import diagnose
    found = problems(diagnose(detect_snapshot(str(fixture("1803")))))
    assert found == [("known-failure", "hip")]


@pytest.mark.parametrize("num,layer", [("1800", "kernel"), ("1801", "runtime"), ("1802", "runtime"), ("1803", "hip")])
def test_set_cp_leads_at_its_layer(num, layer):
    from rocm_wizard.detect import detect_snapshot
    from rocm_wizard.doctor import diagnose
    found = problems(diagnose(detect_snapshot(str(fixture(num)))))
    assert found and found[0][1] == layer
