"""Held-out set HK (tests/data/real/3180-3183, HELDOUT.md): a theme-neutral sample of threads about ROCm on AMD APUs
(Strix Halo, Phoenix/Hawk Point; 2025).  All four led at their labelled layer on the unchanged code: 3180 amdgpu's
sq_intr errors, failed VPE queue reset and MODE2 reset (kernel), 3181 and 3182 ROCr's 'HW Exception by GPU node-1 ...
reason :GPU Hang' (runtime), 3183 Ollama's 'model runner has unexpectedly stopped' through the catch-all only
(framework).  One catalogue row was added for that Ollama line (ollama/ollama llm/server.go Completion, since 0.7;
llm/llama_server.go later): the server lost its model runner mid-request, the runner's own lines name the cause.
3180's class rule (gpu-hang-reset) did not fire: its log keeps amdgpu's 'GPU reset succeeded, trying to resume'
(amdgpu_device.c amdgpu_do_asic_reset; the mode2 handlers' restore_hwcontext) but not the 'GPU reset begin!' before
it; the gpu_hang signature reads that line now."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest import realrun
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

STOPPED = "hk_ollama_model_runner_unexpectedly_stopped"
TERMINATED = "wl_ollama_runner_terminated"


@pytest.mark.parametrize("num,layer", [("3181", "runtime"), ("3182", "runtime")])
def test_the_set_hk_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_ollama_fixture_is_named_and_leads_at_framework():
    assert_named_and_leads("3183", STOPPED, "framework")


def test_the_earlier_ollama_fixture_is_named_too():
    # fixture 322 (Ollama 0.9.5 on an RX 6800M), the same line, led through the catch-all before
    assert_named_and_leads("322", STOPPED, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's line (ollama/ollama#12472, Framework Desktop, 2025-10)
    "Error: model runner has unexpectedly stopped, this may be due to resource limitations or an internal error, "
    "check ollama server logs for details",
    # the title of ollama/ollama#11380 (2025-07, ROCm 'invalid device function' in the runner's log)
    "Error: model runner has unexpectedly stopped, this may be due to resource limitations or an internal error, "
    "check ollama server logs for details",
    # ollama/ollama#14093 (2026-02, Apple M4: the description quotes the client's 500 answer)
    "The error message on the client is \"model runner has unexpectedly stopped, this may be due to resource "
    "limitations or an internal error, check ollama server logs for details\"",
    # not a paste: the source's other format (llm/server.go, ': %s' with the runner's last error message) in the
    # API's JSON error body, filled in with the runner line of ollama/ollama#11380
    "{\"error\":\"model runner has unexpectedly stopped, this may be due to resource limitations or an internal "
    "error, check ollama server logs for details: ROCm error: invalid device function\"}",
])
def test_the_row_reads_ollamas_runner_stopped_line(line):
    assert STOPPED in _ids(line)
    assert error_signatures.failure_layer(STOPPED) == "framework"


@pytest.mark.parametrize("line", [
    # the runner's exit at load time: the other row's (wl_ollama_runner_terminated)
    "Error: llama runner process has terminated: exit status 2",
    # the server's own debug line when a runner ends (no request failed)
    "time=2026-02-05T12:48:27.680+01:00 level=ERROR source=server.go:302 msg=\"llama runner terminated\" "
    "error=\"exit status 2\"",
    # a scheduler line about stopping a runner on purpose
    "time=2025-10-01T20:30:00.000Z level=DEBUG source=sched.go:300 msg=\"runner stopped\" model=/root/.ollama/models/x",
])
def test_other_runner_lines_are_not_the_stopped_row(line):
    assert STOPPED not in _ids(line)


def test_the_load_time_exit_stays_with_its_own_row():
    assert TERMINATED in _ids("Error: llama runner process has terminated: exit status 2")


def test_the_strix_halo_reset_fixture_gets_its_rule_and_leads_at_kernel():
    folder = _fixture("3180")
    found = {(f.id, f.layer) for f in realrun.diagnosis(folder).findings}
    assert ("gpu-hang-reset", "kernel") in found
    assert _lead_layer(folder) == "kernel"


@pytest.mark.parametrize("line", [
    # the fixture's line (ROCm/legacy-rocm-build#5745, Strix Halo, 2025-12)
    "[Tue Dec  9 17:04:32 2025] amdgpu 0000:c1:00.0: amdgpu: GPU reset succeeded, trying to resume",
    # fixture 2538 (a Ryzen 5700G's gfx90c, ROCm 5.7, after an sdma0 ring timeout)
    "[  308.545598] amdgpu 0000:30:00.0: amdgpu: GPU reset succeeded, trying to resume",
    # fixture 2673 (SteamOS 3.5, journalctl's form)
    "Jan 02 21:35:19  kernel: amdgpu 0000:04:00.0: amdgpu: GPU reset succeeded, trying to resume",
])
def test_the_hang_signature_reads_the_reset_succeeded_line(line):
    assert "gpu_hang" in _ids(line)


@pytest.mark.parametrize("line", [
    # the radeon driver prints the same words (radeon_device.c radeon_gpu_reset): not amdgpu's
    "[ 2766.183397] radeon 0000:01:00.0: GPU reset succeeded, trying to resume",
    # the reset method alone (a step, not the outcome of a hang)
    "[Tue Dec  9 17:04:32 2025] amdgpu 0000:c1:00.0: amdgpu: MODE2 reset",
])
def test_other_reset_lines_are_not_the_hang_signature(line):
    assert "gpu_hang" not in _ids(line)
