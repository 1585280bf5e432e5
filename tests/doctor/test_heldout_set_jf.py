"""Held-out set JF (tests/data/real/3610-3613, HELDOUT.md): threads of 2024-2026 about machines with GPUs of mixed kinds
(an AMD iGPU beside an AMD dGPU) where the wrong GPU is used or visibility is at issue.  Two misses had a line from a
program's own source and got a catalogue row each:

* 3610: ROCm's `rocm diagnose` ranks its findings "#{rank} ({fix_id}) [{HIGH|LIKELY|WEAK} score={n}/100] {title}"
  (ROCm/rocm-cli crates/rocm-core/src/diagnose.rs); check_9_igpu_dgpu_collision plans a fixed HIP_VISIBLE_DEVICES=1,
  which pins everything to the iGPU where the dGPU is HIP device 0 (jf_rocm_cli_diagnose_igpu_dgpu, framework).
* 3613: hipfire's daemon prints the device it bound, "GPU dev {id}: {arch} ({vram} GB VRAM, HIP {major}.{minor})"
  (warpfront/hipfire crates/rdna-compute/src/dispatch.rs); gfx1036, the 2-CU display iGPU of Ryzen desktop CPUs, is
  never the compute device meant (jf_hipfire_bound_display_igpu, framework).

Both lines also name gfx targets, now read by the paste parser (rocm-cli's "Detected gfx targets: [...]" note and
hipfire's device line).  3612 (Ollama's CPU fallback, told only in prose) is in test_known_failure's MISSES."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("3610", "framework"), ("3611", "runtime"), ("3613", "framework")])
def test_the_set_jf_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_rocm_cli_row_names_its_fixture_and_leads_at_framework():
    assert_named_and_leads("3610", "jf_rocm_cli_diagnose_igpu_dgpu", "framework")


def test_the_hipfire_row_names_its_fixture_and_leads_at_framework():
    assert_named_and_leads("3613", "jf_hipfire_bound_display_igpu", "framework")


@pytest.mark.parametrize("line", [
    # the fixture's line (ROCm/rocm-cli#395, Arch, RX 7900 XT beside a Raphael iGPU)
    "#1 (fix-9-igpu-dgpu) [LIKELY score=65/100] iGPU enumerated alongside dGPU and destabilising the runtime",
    # the render's other tiers and ranks (diagnose.rs: HIGH at HIGH_CONFIDENCE, WEAK below MIN_SCORE_FOR_MATCH; the
    # check scores 40 + 25 + 15 at most), behind the two-space indent a terminal copy may keep
    "  #2 (fix-9-igpu-dgpu) [WEAK score=40/100] iGPU enumerated alongside dGPU and destabilising the runtime",
    "#1 (fix-9-igpu-dgpu) [HIGH score=80/100] iGPU enumerated alongside dGPU and destabilising the runtime",
])
def test_the_rocm_cli_row_reads_the_diagnosis_line(line):
    assert "jf_rocm_cli_diagnose_igpu_dgpu" in ids(line + "\n")


@pytest.mark.parametrize("line", [
    # another diagnosis of the same render (fix-10-container) is not this one
    "#1 (fix-10-container) [LIKELY score=45/100] Container missing devices",
    # `rocm fix` naming the fix id in prose, no ranked line
    "Run `rocm fix fix-9-igpu-dgpu` to apply it.",
])
def test_the_rocm_cli_row_leaves_other_lines(line):
    assert "jf_rocm_cli_diagnose_igpu_dgpu" not in ids(line + "\n")


@pytest.mark.parametrize("line", [
    # the fixture's line (warpfront/hipfire#623, Windows 11, RX 7900 XTX beside a gfx1036 iGPU)
    "GPU dev 0: gfx1036 (13.0 GB VRAM, HIP 7.2)",
    # the same format with a second device index and a two-digit HIP minor (HIP 7.13/7.14 as hipfire prints them)
    "GPU dev 1: gfx1036 (0.5 GB VRAM, HIP 7.14)",
])
def test_the_hipfire_row_reads_a_bound_gfx1036(line):
    assert "jf_hipfire_bound_display_igpu" in ids(line + "\n")


@pytest.mark.parametrize("line", [
    # hipfire's own notes in warpfront/hipfire: an R9700 and a Strix Halo bound as meant (gfx1151 is an APU hipfire serves)
    "GPU dev 0: gfx1201 (17.1 GB VRAM, HIP 7.2)",
    "GPU dev 1: gfx1151 (103.1 GB VRAM, HIP 7.14)",
    # llama.cpp's device listing naming the same iGPU beside the dGPU is not hipfire binding it
    "  Device 1: AMD Radeon(TM) Graphics, gfx1036 (0x1036), VMM: no, Wave Size: 32",
])
def test_the_hipfire_row_leaves_intended_devices(line):
    assert "jf_hipfire_bound_display_igpu" not in ids(line + "\n")


@pytest.mark.parametrize("text,gfx", [
    # the fixture's note (3610) and the note's other form, with no discrete GPU named (diagnose.rs)
    ('   note: Detected gfx targets: ["gfx1100", "gfx1036"]. Discrete GPU(s): ["gfx1100"]; integrated APU(s): '
     '["gfx1036"]. ... do not assume the higher-numbered gfx target is the dGPU ...\n', ["gfx1100", "gfx1036"]),
    ('   note: Detected gfx targets: ["gfx1151"]. Pin HIP_VISIBLE_DEVICES to the discrete GPU so the integrated APU is '
     'hidden.\n', ["gfx1151"]),
    # hipfire's device line: the fixture's (3613) and hipfire's own notes (an R9700 on HIP 7.13, a Strix Halo as device 1)
    ("GPU dev 0: gfx1036 (13.0 GB VRAM, HIP 7.2)\n", ["gfx1036"]),
    ("Probing GPU via HIP runtime...\nGPU dev 0: gfx1201 (34.2 GB VRAM, HIP 7.13)\n  pre-compiled kernels: "
     ".hipfire_kernels\\gfx1201\n", ["gfx1201"]),
    ("GPU dev 1: gfx1151 (103.1 GB VRAM, HIP 7.14)\n", ["gfx1151"]),
])
def test_the_tools_device_lines_give_gfx_targets(text, gfx):
    assert [g.gfx_target for g in paste_facts.parse(text).gpus if g.gfx_target] == gfx


@pytest.mark.parametrize("text", [
    # rocm-cli's empty list (its probe found no target, ROCm/rocm-cli#393) names no GPU
    "   note: Detected gfx targets: []. Pin HIP_VISIBLE_DEVICES to the discrete GPU so the integrated APU is hidden.\n",
    # a benchmark note's prose with the same words but no device line
    "**Hardware:** AMD RX 7900 XT (gfx1100, 21.5 GB VRAM, HIP 7.2).\n",
])
def test_other_lines_give_no_gfx_target(text):
    assert not [g for g in paste_facts.parse(text).gpus if g.gfx_target]


def test_the_rows_are_warnings_at_framework():
    for rid in ("jf_rocm_cli_diagnose_igpu_dgpu", "jf_hipfire_bound_display_igpu"):
        assert error_signatures.failure_layer(rid) == "framework"
        assert error_signatures.failure(rid).severity == "warning"
