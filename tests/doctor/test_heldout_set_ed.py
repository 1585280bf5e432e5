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
