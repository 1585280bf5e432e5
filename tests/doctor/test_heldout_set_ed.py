"""Held-out set ED (tests/data/real/2440-2445, HELDOUT.md): a theme-neutral sample of the big workloads' trackers
(Ollama, llama.cpp, ComfyUI, vLLM; no pytorch/pytorch thread of 2025-2026 not yet in the corpus was met).

Two general changes came from it:
* the catch-all's layer for a failure line that names none comes from the lines above it; a shell command run with
  variable assignments before its name ("LD_LIBRARY_PATH=... ROCBLAS_TENSILE_LIBPATH=... llama-server ...", POSIX Shell
  Command Language 2.9.1) is now read by the command's own words first, so bash's job report under it ("Segmentation
  fault (core dumped)", bash jobs.c/nojobs.c: j_strsignal(WTERMSIG) and " (core dumped)" when WIFCORED) is the
  program's (llama-server: framework), not the library a setting's value names (rocBLAS: libraries);
* a program's start-up line "Python version: " + sys.version (CPython Python/getversion.c "%.80s (%.80s) %.80s";
  ComfyUI-Manager's prestartup_script.py print("** Python version:", sys.version)) names the interpreter.
2441 and 2443-2445 hold no failing line (tests/doctor/test_known_failure.py MISSES says why)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import failure_lines
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import fixture as _fixture, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("2440", "hip"), ("2442", "framework")])
def test_the_set_ed_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


_SEGV = "Segmentation fault (core dumped)"


@pytest.mark.parametrize("command,report,layer", [
    # the fixture's command (ggml-org/llama.cpp#24824): ROCm 6.4.4's rocBLAS in the settings, llama-server the program
    ("LD_LIBRARY_PATH=/opt/rocm-6.4.4/lib:$LD_LIBRARY_PATH HSA_OVERRIDE_GFX_VERSION=9.0.6 "
     "ROCBLAS_TENSILE_LIBPATH=/opt/rocm-6.4.4/lib/rocblas/library HIP_VISIBLE_DEVICES=0,1 USE_MLOCK=true "
     "~/dev/llama.cpp/build/bin/llama-server -m ~/ai/ai/Qwen3.6-27B-UD-Q6_K_XL.gguf -c 182144", _SEGV, "framework"),
    # iacopPBK/llama.cpp-gfx906#15's command line (HIP's device mask before llama-server), bash's report under it
    (" HIP_VISIBLE_DEVICES=0,1 ./llama-server \\", _SEGV, "framework"),
    # Comfy-Org/ComfyUI#7672's command (an override before uv's run of ComfyUI), with bash's abort report
    ("HSA_OVERRIDE_GFX_VERSION=11.0.0 uv run main.py --novram --cpu-vae", "Aborted (core dumped)", "framework"),
    # ollama/ollama#8765's start of the server (the override before Ollama; its prose gives the command, here behind a prompt)
    ("user@debian:~/ollama$ HSA_OVERRIDE_GFX_VERSION=10.3.0 ./ollama serve", "Killed", "framework"),
])
def test_a_shells_job_report_is_the_commands_program(command, report, layer):
    # (each command line read whole names the settings' layer: runtime for HSA_OVERRIDE_GFX_VERSION, hip for
    # HIP_VISIBLE_DEVICES, libraries for ROCBLAS_TENSILE_LIBPATH)
    assert failure_lines.layer_above(command + "\n" + report + "\n", report) == layer


@pytest.mark.parametrize("command,report,layer", [
    # the command names no layer of its own: the settings' words still place it, as before
    ("ROCBLAS_TENSILE_LIBPATH=/opt/rocm/lib/rocblas/library ./a.out", _SEGV, "libraries"),
    # 'export' is no command run with settings: the line is read whole, as before
    ("export LD_LIBRARY_PATH=/opt/rocm/lib/rocblas && ./bench", _SEGV, "libraries"),
])
def test_a_command_that_names_nothing_keeps_the_settings_layer(command, report, layer):
    assert failure_lines.layer_above(command + "\n" + report + "\n", report) == layer


def test_a_logfmt_line_is_not_a_command_with_settings():
    # Ollama's log lines are lower-case key=value pairs (ollama/ollama#8765's log), no environment settings
    line = 'time=2025-02-01T19:37:43.123+01:00 level=INFO source=amd_linux.go:386 msg="amdgpu is supported"'
    assert failure_lines._SHELL_ASSIGNMENTS.match(line) is None


@pytest.mark.parametrize("line,ver", [
    # the fixture's line (Comfy-Org/ComfyUI#7672, ComfyUI-Manager's start-up block)
    ("** Python version: 3.12.9 (main, Feb 12 2025, 14:50:50) [Clang 19.1.6 ]", "3.12.9"),
    # Windows' embedded Python under ComfyUI-Zluda (patientx/ComfyUI-Zluda#236)
    ("** Python version: 3.11.9 (tags/v3.11.9:de54cf5, Apr  2 2024, 10:12:12) [MSC v.1938 64 bit (AMD64)]", "3.11.9"),
    # the same block read from the journal of a NixOS service (utensils/comfyui-nix#34)
    ("Mär 08 02:15:09 evo comfy-ui[301326]: ** Python version: 3.12.12 (main, Oct  9 2025, 11:07:00) [GCC 14.3.0]",
     "3.12.12"),
    # ComfyUI's own logging of sys.version behind a time stamp (tests/data/real/2342)
    ("2025-04-25T15:51:02.711558 - Python version: 3.12.10 (main, Apr 25 2025, 14:49:36) [GCC 14.2.1 20250207]",
     "3.12.10"),
    # behind ComfyUI desktop's log level (tests/data/real/798)
    ("[INFO] Python version: 3.12.9 (tags/v3.12.9:fdb8142, Feb  4 2025, 15:27:58) [MSC v.1942 64 bit (AMD64)]", "3.12.9"),
])
def test_a_sys_version_start_up_line_names_the_interpreter(line, ver):
    assert ver in paste_facts.parse(line + "\n").pythons


@pytest.mark.parametrize("line", [
    "You are using Python version 3.10.11",     # Plachtaa/VALL-E-X#122: no 'Python version: ' + sys.version
    "Python version: 3.12.3",                  # a form's field: no build parenthesis and compiler bracket
    "Minimum Python version: 3.9.0 (see docs) required",  # the version not followed by the compiler's bracket
])
def test_lines_that_are_not_sys_version_name_no_interpreter(line):
    assert paste_facts.parse(line + "\n").pythons == []
