"""Held-out set DZ (tests/data/real/2400-2403, HELDOUT.md): pages outside GitHub -- a personal notes site's Ollama
pages on old AMD server GPUs (FirePro S7150 x2, Radeon Instinct MI50).  Two rows changed: Ollama's 'amdgpu too old'
line is read at framework (its own discovery check, ollama/ollama discover/amd_linux.go), and a kernel row names the
DRM scheduler's 'Trying to push to a killed entity' (drivers/gpu/drm/scheduler/sched_entity.c), which only the
catch-all read before.  Detection reads the GPU target from the 'amdgpu too old gfxNNN' line."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import fixture as _fixture, ids as _ids, lead_layer as _lead_layer

KILLED = "dz_drm_sched_push_to_killed_entity"
TOO_OLD = "wl_ollama_amdgpu_too_old"


@pytest.mark.parametrize("num,layer", [
    ("2401", "kernel"),
    # 2402's page fixes an Ollama image; doctor's root-cause order puts the host's hung kworkers (kernel) first
    ("2402", "kernel"),
    # 2400: HSA_OVERRIDE_GFX_VERSION=9.0.0 on the gfx802 the Ollama line names (hsa-override-other-isa, runtime)
    ("2400", "runtime"),
    ("2403", None),
])
def test_the_set_dz_fixtures_lead_where_doctor_puts_them(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def _text(num: str) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(_fixture(num).glob("*.txt")))


def test_ollamas_too_old_line_is_read_at_framework():
    assert TOO_OLD in _ids(_text("2400"))
    assert error_signatures.failure_layer(TOO_OLD) == "framework"


@pytest.mark.parametrize("num", ["2401", "2402"])
def test_the_killed_entity_row_names_the_fixtures_line(num):
    assert KILLED in _ids(_text(num))
    assert error_signatures.failure_layer(KILLED) == "kernel"


@pytest.mark.parametrize("line", [
    # AMD's DKMS driver (amd_sched), the fixtures' form (docs.cloud-atlas.dev, Ubuntu 24.04 6.8.0-71)
    "[ 6896.899863] [drm:amddrm_sched_entity_push_job [amd_sched]] *ERROR* Trying to push to a killed entity",
    # the in-tree scheduler (gpu_sched), RX 7700 XT on Ubuntu 25.10 kernel 6.17 (a public notes file quoting
    # gist.github.com/danielrosehill/965423a18f56a6d8ade74d616c2d97e1)
    "[drm:drm_sched_entity_push_job [gpu_sched]] *ERROR* Trying to push to a killed entity",
    # the format of the amd-gfx patch 'drm/amdgpu: Force-signal fence when job is submitted to killed entity' (2025-12),
    # rendered
    "[  812.004211] [drm:drm_sched_entity_push_job [gpu_sched]] *ERROR* Trying to push job to a killed entity",
    # the in-tree line as journalctl -k prefixes it (rendered)
    "Nov 12 10:01:02 host kernel: [drm:drm_sched_entity_push_job [gpu_sched]] *ERROR* Trying to push to a killed entity",
])
def test_the_killed_entity_row_reads_the_schedulers_wordings(line):
    assert KILLED in _ids(line)


@pytest.mark.parametrize("line", [
    "[ 6896.822820] amdgpu: Freeing queue vital buffer 0x75acbea00000, queue evicted",
    "[drm:drm_sched_entity_kill [gpu_sched]] entity 00000000deadbeef stopped",
    "Trying to push to a remote: the entity was killed by the server",
])
def test_lines_that_are_not_the_schedulers_refusal(line):
    assert KILLED not in _ids(line)


@pytest.mark.parametrize("text,gfx", [
    # the fixture's journal line (Ollama 0.5.11, FirePro S7150 x2)
    ('Feb 20 21:50:45 debian12 ollama[3306]: time=2025-02-20T21:50:45.703+08:00 level=WARN source=amd_linux.go:309 '
     'msg="amdgpu too old gfx802" gpu=0', "gfx802"),
    # the bare server log (the catalogue's example, Ollama 0.6-era amd_linux.go:333)
    ('time=2025-03-01T10:00:00.000Z level=WARN source=amd_linux.go:333 msg="amdgpu too old gfx803" gpu=0', "gfx803"),
    # Ollama 0.1.x's amd_linux.go, slog.Warn(fmt.Sprintf("amdgpu too old gfx%d%x%x", ...), "gpu", gpuID) (rendered)
    ('time=2024-03-10T09:00:00.000Z level=WARN source=amd_linux.go:155 msg="amdgpu too old gfx701" gpu=1', "gfx701"),
])
def test_ollamas_too_old_line_names_the_gpu_target(text, gfx):
    assert [g.gfx_target for g in paste_facts.parse(text).gpus] == [gfx]


@pytest.mark.parametrize("text", [
    "The card is too old: amdgpu too old gfx802 is what Ollama said",   # prose, no slog msg= form
    'msg="amdgpu too old gfx802"',                                       # no gpu index: not the discovery line
])
def test_text_that_is_not_the_discovery_line_names_no_gpu(text):
    assert not [g for g in paste_facts.parse(text).gpus if g.gfx_target]
