"""Held-out set EU (tests/data/real/2566-2570, HELDOUT.md): a theme-neutral sample of the Hugging Face ecosystem's
AMD GPU issues (bitsandbytes, text-generation-inference, unsloth).  Four of the five fixtures lead at their labelled
layer on the unchanged code; 2567 leads at runtime (its collect_env report's 'Is CUDA available: False', from an
environment whose torch the index's copy cannot show to be a ROCm build or not) ahead of bitsandbytes' HIP error, and
stays so (HELDOUT.md says why).  One row was added: text-generation-inference's launcher reporting an exited shard
(launcher/src/main.rs shard_manager: "Shard complete standard error output:\\n{err}" and "Shard process was signaled
to shutdown with signal {signal}"), read at framework, so 2568 leads through a known row instead of the catch-all."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "eu_tgi_shard_exited"


@pytest.mark.parametrize("num,layer", [("2566", "framework"), ("2568", "framework"), ("2569", "hip"),
                                       ("2570", "framework")])
def test_the_set_eu_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_2567_keeps_its_hip_error_beside_the_runtime_lead():
    # the labelled layer is warned (no-binary-for-gpu@hip); the lead stays the collect_env report's runtime reading
    from rwtest import realrun

    diag = realrun.diagnosis(_fixture("2567"))
    layers = [f.layer for f in diag.findings if f.severity in ("warning", "error", "critical")]
    assert "hip" in layers


def test_the_shard_row_names_2568_and_leads_at_framework():
    assert_named_and_leads("2568", ROW, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's line (huggingface/text-generation-inference#1746, TGI 2.0.0-rocm on an MI250)
    "2024-04-15T14:03:19.035250Z ERROR shard-manager: text_generation_launcher: Shard complete standard error output:",
    # text-generation-inference#1253 (a source build on CUDA, the same launcher)
    "2023-12-15T00:32:47.209675Z ERROR shard-manager: text_generation_launcher: Shard complete standard error output:",
    # text-generation-inference#1383's title, the line without its time stamp
    "ERROR shard-manager: text_generation_launcher: Shard complete standard error output:",
    # text-generation-inference#1627 (docker, the shard ended by a signal)
    "2024-03-06T17:53:31.052444Z ERROR shard-manager: text_generation_launcher: Shard process was signaled to shutdown "
    "with signal 4 rank=0",
])
def test_the_shard_row_reads_the_launchers_wordings(line):
    assert ROW in _ids(line)
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("line", [
    # the launcher's own healthy start-up lines (the same log's INFO lines)
    "2024-03-06T17:53:22.336246Z  INFO shard-manager: text_generation_launcher: Starting shard rank=0",
    "2024-08-11T09:36:27.413939Z  INFO shard-manager: text_generation_launcher: Waiting for shard 0 to be ready... rank=0",
    "2024-03-06T17:53:40.100000Z  INFO shard-manager: text_generation_launcher: Shard ready in 12.3s rank=0",
    # a signal named without the launcher's words
    "Process was signaled to shutdown",
])
def test_lines_that_are_not_an_exited_shard_are_not_read(line):
    assert ROW not in _ids(line)
