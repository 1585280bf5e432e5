"""Held-out set EB (tests/data/real/2420-2423, HELDOUT.md): non-English web pages outside GitHub -- the Chinese notes
site Cloud Atlas (an MI50 under bhyve whose VBIOS POST fails, an MI50 flashed with the wrong VBIOS, a healthy RX 580)
and a Japanese/English research site (an RX Vega whose Ollama Vulkan runner dies in native code).  2422's only failing
output was the Go runtime's report of a fatal signal taken inside a cgo call, which no row read; the new row
eb_go_signal_during_cgo_execution reads it from the runtime's own format (golang/go src/runtime/signal_unix.go
fatalsignal: the signal's name, 'PC=... m=... sigcode=...', then 'signal arrived during cgo execution' when the signal
came on g0 during cgo), at framework (the program whose native code crashed: for Ollama its GGML backend).  2421 stays
a miss (tests/doctor/test_known_failure.py MISSES): its one line is the driver core's probe failure, read at kernel;
the wrong VBIOS behind it is told only in the page's prose."""
from __future__ import annotations

import pytest

from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "eb_go_signal_during_cgo_execution"


@pytest.mark.parametrize("num,layer", [("2420", "firmware"), ("2422", "framework")])
def test_the_set_eb_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_healthy_rx580_gets_no_failure_finding():
    from rwtest import realrun
    found = {f.id for f in realrun.diagnosis(_fixture("2423")).findings}
    assert not found & {"known-failure", "unrecognised-failure"}  # (gfx803's no-official-build advisory aside)


def test_the_runner_crash_is_named_and_leads_at_framework():
    assert_named_and_leads("2422", ROW, "framework")


@pytest.mark.parametrize("text", [
    # the fixture's lines (AETS 'Experiment History', Ollama 0.17.4 Vulkan runner on an RX Vega, 2026-03-07)
    "SIGSEGV: segmentation violation\nPC=0x7efbc5b801b5  m=41  sigcode=1  addr=0x3a8000\n"
    "signal arrived during cgo execution\n",
    # ollama/ollama#9509 (Docker Desktop's log view: a timestamp before each line; SIGABRT in llama_model_load_from_file)
    "2025-03-05 09:00:31 SIGABRT: abort\n2025-03-05 09:00:31 PC=0x7f30a0e0300b m=7 sigcode=18446744073709551610\n"
    "2025-03-05 09:00:31 signal arrived during cgo execution\n",
    # fixture 1423 (Alpaca's Ollama plugin on gfx1201, after ggml's 'graph_reserve: failed to allocate compute buffers')
    "SIGSEGV: segmentation violation\nPC=0x7f5813988faa m=9 sigcode=1 addr=0x7f5a02823ce8\n"
    "signal arrived during cgo execution\n",
    # fixture 320 (Ollama 0.1.27 on gfx1032, rocBLAS aborting: 'free(): invalid pointer' then SIGABRT)
    "free(): invalid pointer\nSIGABRT: abort\nPC=0x7fcc860969fc m=16 sigcode=18446744073709551610\n"
    "signal arrived during cgo execution\n",
])
def test_the_go_runtime_cgo_signal_line_is_named(text):
    assert ROW in _ids(text)


@pytest.mark.parametrize("text", [
    # prose quoting the words mid-sentence
    "The runner crashed because the signal arrived during cgo execution, so the C code is to blame.\n",
    # a markdown table cell quoting them (a German README's troubleshooting table)
    "| `SIGSEGV … signal arrived during cgo execution` **nach** „REPLAY finished\" | Ein Aufräumrennen in neonize |\n",
    # Go's report of a fault in Go code itself (a nil dereference), not in a cgo call
    "panic: runtime error: invalid memory address or nil pointer dereference\n"
    "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a1b2c]\n",
    # the runtime's throw for a signal it cannot turn into a panic
    "fatal error: unexpected signal during runtime execution\n",
])
def test_other_go_crash_wordings_and_prose_are_not_the_row(text):
    assert ROW not in _ids(text)


def test_the_row_reads_at_framework():
    from rocm_wizard.detect import error_signatures
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("text", [
    # 2421's line: the driver core's form since 2024 (drivers/base/dd.c call_driver_probe's dev_err)
    "[   15.030444] amdgpu 0000:0d:00.0: probe with driver amdgpu failed with error -22\n",
    # the older form, still read (ROCm/legacy-rocm-build#2197, an RDNA3 card whose probe fails with -22)
    "[   10.788882] amdgpu: probe of 0000:03:00.0 failed with error -22\n",
])
def test_both_forms_of_amdgpus_failed_probe_are_an_init_failure(text):
    assert "amdgpu_init_failed" in _ids(text)


@pytest.mark.parametrize("text", [
    "nvidia 0000:01:00.0: probe with driver nvidia failed with error -1\n",  # pop-os/cosmic-epoch#2146: another driver
    "[    0.220314] snd_hda_codec_hdmi: probe of hdaudioC1D0 failed with error -16\n",  # Lucretia/vulkan-overlay#9
])
def test_another_drivers_failed_probe_is_not_amdgpus(text):
    assert "amdgpu_init_failed" not in _ids(text)
