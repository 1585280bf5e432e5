"""Held-out set IK (tests/data/real/3400-3404, HELDOUT.md): a theme-neutral sample of the desktop LLM applications' AMD
GPU issues (LM Studio's bundled rocBLAS without gfx1151 Tensile data, LM Studio's Vulkan engine losing the device, Jan's
llama.cpp router seeing its server die with 0xC0000005, LM Studio's 'Error loading model. (Exit code: N)' twice).  All
five led at their labelled layer on the unchanged code, so no row was added.  Two readings were made cleaner after the
measurement (not held-out figures):

* LM Studio's load-failure dialog as users paste it -- the heading with the emoji the app puts before it ('🥲 Failed to
  load the model'), the message and the exit-code line that ends with the app's advice ('... Unknown error. Try a
  different model and/or config.') -- is now taken whole by s11ap_lmstudio_error_loading_model, so its heading and its
  exit-code line no longer come back as a second, 'unrecognised' failure (3403, 3404).
* A log record's header written on a line of its own, the level word with at most a time stamp (LM Studio's developer
  log '2026-01-21 18:19:50 [ERROR]' over ' [model] <message>', Jan's log view 'ERROR' under '[00:25:46]'), is no
  failure message when the line under it is a known line or a failure line of its own (detect/failure_lines.py
  _LEVEL_ONLY); it is kept where the line under it reads as no failure."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rwtest.heldout import doctor_files, fixture as _fixture, ids, lead_layer as _lead_layer, problems

LMS_LOAD = "s11ap_lmstudio_error_loading_model"


@pytest.mark.parametrize("num,layer", [("3400", "libraries"), ("3401", "framework"), ("3402", "framework"),
                                       ("3403", "framework"), ("3404", "framework")])
def test_the_set_ik_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("text", [
    # 3403's dialog (lmstudio-ai/lmstudio-bug-tracker#1081, Vulkan engine, Windows 11, Radeon 780M)
    "🥲 Failed to load the model\nError loading model.\n"
    "(Exit code: 18446744072635812000). Unknown error. Try a different model and/or config.\n",
    # 3404's, with the blank lines of the dialog (lmstudio-bug-tracker#531, Vulkan llama.cpp (Windows) v1.21.0)
    "🥲 Failed to load the model\n\nError loading model.\n\n"
    "(Exit code: 18446744073709515000). Unknown error. Try a different model and/or config.\n",
    # lmstudio-bug-tracker#1395 (fixture 1124): the heading of a model loaded at start-up, no emoji
    "Failed to load last used model.\n\nError loading model.\n\n"
    "(Exit code: 18446744072635812000). Unknown error. Try a different model and/or config.\n",
    # lmstudio-bug-tracker#1918: an engine killed by a signal, the other advice
    "🥲 Failed to load the model\n\nError loading model.\n\n"
    "(Exit code: null). Please check settings and try loading the model again.\n",
])
def test_lm_studios_load_dialog_is_one_known_failure(tmp_path, text):
    assert LMS_LOAD in ids(text)
    assert problems(doctor_files(tmp_path, {"error.txt": text})) == [("known-failure", "framework")]


@pytest.mark.parametrize("text", [
    "Error loading model.\n",                                                   # the message alone, no exit code
    "llama_model_load: error loading model: read error: Bad address\n",         # llama.cpp's own line (2694)
    "Failed to load the model\nbecause the file is missing\n",                  # the heading over other text
])
def test_other_load_failures_are_not_lm_studios_dialog(text):
    assert LMS_LOAD not in ids(text)


def test_the_row_stays_at_framework():
    assert error_signatures.failure_layer(LMS_LOAD) == "framework"


# -- a log record's header on a line of its own ----------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "2026-01-21 18:19:50 [ERROR]",        # LM Studio's developer log (3401, lmstudio-bug-tracker#1392)
    "2025-11-14 15:50:50  [ERROR]",       # the same with LM Studio's padding (lmstudio-bug-tracker#1231)
    "ERROR",                              # Jan's log view (3402, janhq/jan#8432)
    "[00:25:46] ERROR",                   # Jan's record with its time on the same line
    "[ERROR]",
])
def test_a_bare_level_header_is_read_as_a_header(line):
    assert failure_lines._LEVEL_ONLY.match(line)


@pytest.mark.parametrize("line", [
    "ERROR: could not open /dev/kfd",                                # a message after the level
    "2026-01-21 18:19:50 [ERROR] vk::Queue::submit: ErrorDeviceLost",  # the message on the header's line
    "Error in load command:",                                        # a message, not a level word
    "Error:",                                                        # dnf's marker over libsolv's problem (fixture 342)
    "errors",
])
def test_a_line_with_a_message_is_no_bare_header(line):
    assert not failure_lines._LEVEL_ONLY.match(line)


def test_lm_studios_error_header_over_a_known_line_is_one_failure(tmp_path):
    # 3401's last record (lmstudio-bug-tracker#1392)
    text = ("2026-01-21 18:19:50 [ERROR]\n"
            " [zai-org/glm-4.7-flash] vk::Device::waitForFences: ErrorDeviceLost. Error Data: n/a, Additional Data: n/a\n")
    assert problems(doctor_files(tmp_path, {"log.txt": text})) == [("known-failure", "framework")]


def test_jans_error_header_gives_way_to_its_message():
    # 3402's record (janhq/jan#8432): the header's message is kept, the header is not
    text = "[00:25:46]\nERROR\nError in load command:\n"
    lines = [line for line, _layer, _label in failure_lines.scan([(text, None, "paste:jan.txt")])]
    assert "ERROR" not in lines


def test_a_header_over_no_failure_is_kept():
    # a header whose next line reads as no failure: the level word is the only sign, so it stays (unittest's verdict
    # line in fixture 955 is such a line)
    text = "2026-01-21 18:19:50 [ERROR]\n [model] the request was cancelled\n"
    lines = [line for line, _layer, _label in failure_lines.scan([(text, None, "paste:log.txt")])]
    assert lines == ["2026-01-21 18:19:50 [ERROR]"]
