"""Held-out set IJ (tests/data/real/3390-3395, HELDOUT.md): a second theme-neutral sample of threads about ROCm on AMD
APUs (Strix Halo's gfxhub page fault, a 780M's MES REMOVE_QUEUE reset, gfx1152 unseen by two Windows HIP runtimes, LM
Studio's ROCm engine refusing a gfx1150 twice).  Five led at their layer on the unchanged code.  One did not:

* 3394: LM Studio's CLI survey, 'lms runtime survey --json' (lmstudio-ai/lms src/subcommands/runtime/survey.ts prints the
  raw result; without --json it prints 'Compatibility: <label> — <message>'), with the engine's compatibility status
  "noSupportedGpus" (lmstudio-ai/lmstudio-js packages/lms-shared-types/src/RuntimeHardwareSurvey.ts) and the engine's
  message 'No ROCm GPUs detected of supported targets: gfx1030, ...': nothing read it (the app's own display, '"status":
  "No supported GPUs"', was df_lmstudio_runtime_no_supported_gpus).  Row ij_lmstudio_survey_no_supported_gpus reads the
  three forms at framework.  Its Windows host is now read from the engine's platform-named name
  (detect/windows_facts.py, 'llama.cpp-win-x86_64-...')."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.windows_facts import windows_sign
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

ROW = "ij_lmstudio_survey_no_supported_gpus"


@pytest.mark.parametrize("num,layer", [("3390", "kernel"), ("3391", "kernel"), ("3392", "hip"), ("3393", "framework"),
                                       ("3394", "framework"), ("3395", "hip")])
def test_the_set_ij_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_new_row_names_its_fixture_and_leads_at_framework():
    assert_named_and_leads("3394", ROW, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's lines (lmstudio-ai/lmstudio-bug-tracker#1903, 'lms runtime survey --json' on Windows, engine 2.13.0)
    '        "status": "noSupportedGpus",',
    '        "message": "No ROCm GPUs detected of supported targets: gfx1030, gfx1100, gfx1101, gfx1102, gfx1151, gfx1200,'
    ' gfx1201"',
    # survey.ts's text form without --json (renderCompatibilityLine: 'Compatibility: <label> — <message>')
    "Compatibility: No supported GPUs — No ROCm GPUs detected of supported targets: gfx1030, gfx1100, gfx1101",
    # the JSON compacted on one line, as a user may paste it, and the Linux engine's message
    '{"status":"noSupportedGpus","message":"No ROCm GPUs detected of supported targets: gfx908, gfx90a, gfx942"}',
])
def test_the_row_reads_lm_studios_survey_verdict(line):
    assert ROW in ids(line)
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("line", [
    # the survey's other statuses and a compatible engine
    "Compatibility: GPU survey unsuccessful — Error trying to query ROCm GPUs: No hip devices found!",
    '"compatibility": { "status": "compatible" }',
    # the status enum in source, and prose
    'case "noSupportedGpus":',
    "I think LM Studio says no supported GPUs detected on my laptop",
])
def test_near_misses_are_not_read_as_the_survey_verdict(line):
    assert ROW not in ids(line)


@pytest.mark.parametrize("text,windows", [
    # the fixture's engine name (lmstudio-bug-tracker#1903) and LM Studio's error naming the engine (#2358, fixture 1083)
    ('      "name": "llama.cpp-win-x86_64-amd-rocm-avx2",', True),
    ("Backend 'llama.cpp-win-x86_64-amd-rocm-avx2' requires GPU acceleration, but GPU survey software was unsuccessful",
     True),
    # the Linux and macOS engines, and a word glued to the name, are no Windows sign
    ("Surveying selected engine 'llama.cpp-linux-x86_64-vulkan-avx2@1.42.0'", False),
    ("my-llama.cpp-win-x86_64-fork", False),
])
def test_lm_studios_windows_engine_name_is_a_windows_sign(text, windows):
    sign = windows_sign(text)
    assert (sign is not None and sign[0] == "lmstudio_windows_engine") is windows
