"""Held-out set FS (tests/data/real/2740-2744, HELDOUT.md): Ollama's AMD GPU issues of 2024.  Three rows from Ollama's
own sources (ollama/ollama at the 0.1.2x-0.4 tags): the start-up list of runner builds holding CPU variants only
(llm/payload_common.go 'Dynamic LLM libraries %v'), the start-up VRAM check's 'no GPU detected' (gpu/gpu.go CheckVRAM,
logged by server/routes.go), and the runner's exit status 127, which is glibc's dynamic loader failing to load a shared
library (elf/dl-misc.c _dl_fatal_printf -> _exit(127)), not a shell's 'command not found' (s12av_exit_status_127 now
leaves Ollama's runner lines).  Ollama 0.1.2x's verbose card description ('rsmi_dev_serial_number_get failed: 2',
gpu/gpu_info_rocm.c "don't fail on error") is benign in failure_lines.toml; 2744 stays a miss (MISSES).  Detection:
Ollama's sysfs verdict 'amdgpu is supported' gpu=N gpu_type=gfxNNNN names the GPU's target (paste_facts)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import failure_lines
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

CPU_ONLY = "fs_ollama_runner_list_cpu_only"
NO_GPU = "fs_ollama_no_gpu_detected"
EXIT127 = "fs_ollama_runner_exit_status_127"
SHELL127 = "s12av_exit_status_127"


@pytest.mark.parametrize("num,row", [("2740", CPU_ONLY), ("2741", NO_GPU), ("2743", EXIT127)])
def test_the_set_fs_rows_name_the_fixture_and_lead_at_framework(num, row):
    assert_named_and_leads(num, row, "framework")


def test_2742_leads_at_framework():
    assert _lead_layer(_fixture("2742")) == "framework"


@pytest.mark.parametrize("line", [
    # ollama/ollama#2883 (Arch Linux's ollama 0.1.27 package, an NVIDIA GPU detected and not used; the user's terminal
    # cut the line's start)
    '=payload_common.go:146 msg="Dynamic LLM libraries [cpu_avx cpu_avx2 cpu]"',
    # the 0.4-0.5 form, constructed from runners/common.go (slog.Info("Dynamic LLM libraries", "runners", runners)) and
    # ollama/ollama#7585's line with its rocm entry left out
    'time=2024-11-09T18:44:42.975+08:00 level=INFO source=common.go:49 msg="Dynamic LLM libraries" runners="[cpu cpu_avx cpu_avx2]"',
    # 0.1.22's own log format, constructed from ollama/ollama#2327's journal line with its GPU entries left out
    "fev 02 13:27:37 amd ollama[23928]: 2024/02/02 13:27:37 payload_common.go:145: INFO Dynamic LLM libraries [cpu_avx2 cpu]",
])
def test_cpu_only_runner_lists_are_known(line):
    assert CPU_ONLY in _ids(line)


@pytest.mark.parametrize("line", [
    'msg="Dynamic LLM libraries [cpu_avx rocm_v60000 cpu_avx2 cuda_v11 cpu]"',     # ollama/ollama#3024 (0.1.28)
    'msg="Dynamic LLM libraries [cpu_avx cpu_avx2 cpu cuda_v11.3]"',                # ollama/ollama#2524 (Windows)
    'msg="Dynamic LLM libraries" runners="[rocm cpu cpu_avx cpu_avx2]"',            # ollama/ollama#7585 (0.4.0)
    "Dynamic LLM libraries [rocm_v6 cpu cuda_v11 rocm_v5 cpu_avx cpu_avx2]",       # docs/troubleshooting.md
])
def test_runner_lists_with_a_gpu_runner_are_not_matched(line):
    assert CPU_ONLY not in _ids(line)


@pytest.mark.parametrize("line", [
    'time=2024-03-09T14:52:46.434Z level=INFO source=routes.go:1042 msg="no GPU detected"',          # ollama#3024
    'time=2024-03-23T11:28:14.676+05:30 level=INFO source=routes.go:1133 msg="no GPU detected"',     # ollama#3306
    # constructed: v0.1.22 server/routes.go:973 in that release's "YYYY/MM/DD hh:mm:ss file:line: LEVEL msg" format
    "2024/01/30 22:13:38 routes.go:973: INFO no GPU detected",
])
def test_ollamas_no_gpu_detected_is_known(line):
    assert NO_GPU in _ids(line)


@pytest.mark.parametrize("line", [
    "No GPU detected",                                                  # a script's own print
    "RVS-ERROR [CLI] No platform support for the detected GPU or no GPU detected !",
    "   Training will use CPU (slower)  -- No GPU detected",
])
def test_other_no_gpu_detected_lines_are_not_ollamas(line):
    assert NO_GPU not in _ids(line)


@pytest.mark.parametrize("line", [
    "Error: llama runner process has terminated: exit status 127",      # ollama/ollama#6541 (0.3.8)
    "llama runner process has terminated: exit status 127",             # ollama/ollama#7542's title
    # constructed from v0.3.14 llm/server.go:428 (slog.Debug("llama runner terminated", "error", err))
    'time=2024-08-29T10:00:00.000Z level=DEBUG source=server.go:428 msg="llama runner terminated" error="exit status 127"',
])
def test_the_runners_exit_127_is_the_loaders_not_the_shells(line):
    found = _ids(line)
    assert EXIT127 in found and SHELL127 not in found


@pytest.mark.parametrize("line", [
    "Error: llama runner process has terminated: exit status 1",        # ollama/ollama#4775
    "Error: llama runner process has terminated: exit status 0xc0000409",
])
def test_other_runner_exits_are_not_the_127_row(line):
    assert EXIT127 not in _ids(line)


def test_a_shells_127_is_still_the_shell_row():
    assert SHELL127 in _ids("Error: exit status 127") and EXIT127 not in _ids("Error: exit status 127")


@pytest.mark.parametrize("line", [
    "rsmi_dev_serial_number_get failed: 2", "rsmi_dev_vram_vendor_get failed: 2",   # the fixture's (ollama#2411)
])
def test_ollamas_verbose_rsmi_field_lines_are_benign(line):
    assert not failure_lines.looks_like_failure(line)


@pytest.mark.parametrize("line", [
    "rsmi_dev_memory_total_get failed: 2",        # a call discovery needs stays a failure line
    "ERROR: rsmi_dev_serial_number_get failed: 2 while reading GPU[0]",
])
def test_other_rsmi_failures_still_look_like_failures(line):
    assert failure_lines.looks_like_failure(line)


@pytest.mark.parametrize("line,gfx", [
    # the fixture's (ollama/ollama#4836, 0.1.41)
    ('time=2024-06-06T13:15:54.056+02:00 level=INFO source=amd_linux.go:301 msg="amdgpu is supported" gpu=0 '
     'gpu_type=gfx1102', "gfx1102"),
    # ollama/ollama#8772 (0.5.x, the reason with the supported list; gpu_type first)
    ('time=2025-02-02T19:28:37.628+08:00 level=WARN source=amd_linux.go:378 msg="amdgpu is not supported (supported '
     'types:[gfx1030 gfx1100 gfx1101 gfx1102 gfx900 gfx906 gfx908 gfx90a gfx940 gfx941 gfx942])" gpu_type=gfx1031 gpu=0 '
     'library=/usr/local/lib/ollama', "gfx1031"),
])
def test_ollamas_sysfs_verdict_names_the_gpus_target(line, gfx):
    assert [g.gfx_target for g in paste_facts.parse(line).gpus] == [gfx]


def test_a_verdict_without_ollamas_fields_names_no_gpu():
    assert paste_facts.parse("amdgpu is supported gpu_type=gfx1100").gpus == []
