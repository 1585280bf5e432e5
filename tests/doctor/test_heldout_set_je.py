"""Held-out set JE (tests/data/real/3600-3602, HELDOUT.md): issue forms' system-information sections from AMD GPU
users, 2025-2026.  3602 led at its layer on the unchanged code; 3600 and 3601 did not, and three rows were added from
the printing programs' sources:

* ``je_comfyui_rocm_sdk_init_failed``: patientx-cfz/comfyui-rocm's launcher (comfyui-rocm.bat) runs
  '.\\python_env\\scripts\\rocm-sdk init >nul 2>&1' and on a non-zero errorlevel echoes '[WARN] rocm-sdk init failed.
  ROCm may not be set up correctly.' (older launchers: '[!] Warning: ...' or the bare sentence): packaging.
* ``je_rocm_sdk_command_not_found``: a shell's 'command not found' for rocm-sdk, the console script of TheRock's rocm
  package (build_tools/packaging/python/templates/rocm/setup.py), in cmd.exe's localised forms and the Unix shells'.
* ``je_systemd_service_main_process_crash_signal``: systemd's service_sigchld_event (src/core/service.c) "Main process
  exited, code=%s, status=%i/%s" for a crash signal (SEGV, ABRT, BUS, ILL, FPE): the service's program crashed; the
  other results stay the information row ``bl_systemd_unit_failed_with_result``.
"""
from __future__ import annotations

import pytest

from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("3600", "packaging"), ("3601", "framework"), ("3602", "framework")])
def test_the_set_je_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row,layer", [
    ("3600", "je_comfyui_rocm_sdk_init_failed", "packaging"),
    ("3601", "je_systemd_service_main_process_crash_signal", "framework"),
])
def test_the_new_rows_name_the_fixtures_failure(num, row, layer):
    assert_named_and_leads(num, row, layer)


@pytest.mark.parametrize("line", [
    # the fixture's line (patientx-cfz/comfyui-rocm#125, 2026-09)
    "[WARN] rocm-sdk init failed. ROCm may not be set up correctly.",
    # the same launcher's coloured echo as a Windows console shows the escapes (as 3600's other lines)
    "\u2190[33m[WARN]\u2190[0m rocm-sdk init failed. ROCm may not be set up correctly.",
    # an older comfyui-rocm launcher ('[!] Warning: ...') and a ComfyUI install script's bare echo (code index)
    "[!] Warning: rocm-sdk init failed. ROCm may not be set up correctly.",
    "rocm-sdk init failed. ROCm may not be set up correctly.",
])
def test_the_launchers_rocm_sdk_warning_is_named(line):
    assert "je_comfyui_rocm_sdk_init_failed" in _ids(line)


@pytest.mark.parametrize("line", [
    "[INFO] Initializing rocm-sdk...",                                  # the launcher's own progress line
    "rocm-sdk init failed to expand _devel.tar.xz: No space left on device",  # not the launcher's sentence
    "If rocm-sdk init fails, ROCm may not be set up correctly; see the README.",  # prose
])
def test_lines_that_are_not_the_launchers_warning(line):
    assert "je_comfyui_rocm_sdk_init_failed" not in _ids(line)


@pytest.mark.parametrize("line", [
    # the fixture's Spanish cmd.exe (patientx-cfz/comfyui-rocm#125)
    "\"rocm-sdk\" no se reconoce como un comando interno o externo,",
    # English cmd.exe from the same launcher (patientx-cfz/comfyui-rocm#112, comment of 2026-08-19)
    "'rocm-sdk' is not recognized as an internal or external command,",
    # the Unix shells' formats (bash "%s: command not found", zsh "command not found: %s")
    "bash: rocm-sdk: command not found",
    "zsh: command not found: rocm-sdk",
])
def test_a_shell_not_finding_rocm_sdk_is_named(line):
    assert "je_rocm_sdk_command_not_found" in _ids(line)


@pytest.mark.parametrize("line", [
    "'rocm-smi' is not recognized as an internal or external command,",   # another command
    "rocm-sdk-core: not found in the index",                               # a package name, not the command
    "rocm-sdk: error: argument command: invalid choice: 'inti'",            # rocm-sdk ran
])
def test_lines_that_are_not_rocm_sdk_missing(line):
    assert "je_rocm_sdk_command_not_found" not in _ids(line)


@pytest.mark.parametrize("line", [
    # the fixture's line (utensils/comfyui-nix#34, journalctl --output cat)
    "comfyui.service: Main process exited, code=dumped, status=11/SEGV",
    # fixture 1542's journal (an Ollama service aborting after ROCr's memory access fault)
    "M\u00e4r 06 18:00:32 laptop systemd[1]: ollama.service: Main process exited, code=dumped, status=6/ABRT",
    # the format with a signal and no core written (code=killed)
    "vllm.service: Main process exited, code=killed, status=7/BUS",
])
def test_a_service_killed_by_a_crash_signal_is_named(line):
    assert "je_systemd_service_main_process_crash_signal" in _ids(line)


@pytest.mark.parametrize("line", [
    "ollama.service: Main process exited, code=exited, status=1/FAILURE",   # an exit code: the information row
    "ollama.service: Main process exited, code=killed, status=15/TERM",     # stopped, not crashed
    "Main process exited, code=dumped, status=11/SEGV",                    # no unit named
])
def test_lines_that_are_not_a_crash_signal(line):
    assert "je_systemd_service_main_process_crash_signal" not in _ids(line)
