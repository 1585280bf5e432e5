"""Held-out set U (tests/data/real/750-761, HELDOUT.md): APUs and their memory.
Each miss's cause fixed from the program that prints the line: Ollama's GPU discovery (ollama/ollama
discover/runner.go), its second pass that drops a GPU whose init validation fails and the debug line it prints
for each GPU before that; tested on the fixture and on other wordings of the same source."""
from __future__ import annotations

from pathlib import Path

import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.detect.parsers import paste_facts
from rocm_wizard.doctor import diagnose
from rwtest.heldout import ids as _ids, lead_layer as _lead_layer
from rwtest.heldout import fixture as _fixture

PROBLEM = ("warning", "error", "critical")


# -- Ollama drops a GPU whose init validation failed (758) -----------------------------------------
def test_758_the_dropped_gpu_is_ollamas_own_finding_at_framework():
    diag = diagnose(detect_snapshot(str(_fixture("758"))))
    found = [(f.id, f.layer) for f in diag.findings if f.severity in PROBLEM]
    assert ("known-failure", "framework") in found, found
    assert _lead_layer(_fixture("758")) == "framework"


@pytest.mark.parametrize("line", [
    # the fixture's line (the user quoted the msg field)
    'msg="filtering device which didn\'t fully initialize"',
    # the whole slog line, as runner.go prints it with OLLAMA_DEBUG=1 (key/value pairs of the call)
    'time=2026-04-05T06:35:12.101Z level=DEBUG source=runner.go:153 msg="filtering device which didn\'t fully '
    'initialize" id=0 libdir=/usr/lib/ollama/rocm pci_id=0000:c5:00.0 library=ROCm',
    # under journald, as a systemd service prints it
    'Apr 05 06:35:12 host ollama[1610]: time=2026-04-05T06:35:12.101Z level=DEBUG source=runner.go:153 '
    'msg="filtering device which didn\'t fully initialize" id=GPU-5e2b libdir=/usr/lib/ollama/cuda_v13 '
    'pci_id=0000:01:00.0 library=CUDA',
])
def test_ollamas_init_validation_line_is_named(line):
    assert "u_ollama_device_init_validation_failed" in _ids(line), line


def test_the_row_is_ollamas_and_other_filter_lines_are_not_it():
    assert error_signatures.failure_layer("u_ollama_device_init_validation_failed") == "framework"
    # the overlap filter of the same function is Ollama choosing between two library builds, not a failure
    other = ('time=x level=DEBUG source=runner.go:220 msg="filtering device with overlapping libraries" id=0 '
             'library=/usr/lib/ollama/rocm_v6 delete_index=1 kept_library=/usr/lib/ollama/rocm_v7')
    assert "u_ollama_device_init_validation_failed" not in _ids(other)


# -- the GPU Ollama verifies before its init validation (754: detection) ----------------------------
def test_754_ollamas_verify_line_gives_the_gpus_address():
    system = detect_snapshot(str(_fixture("754")))
    assert [(g.name, g.gfx_target, g.bdf) for g in system.gpus] == \
        [("Radeon 8060S Graphics", "gfx1151", "0000:c3:00.0")]


def test_the_verify_line_reads_amd_gpus_only_and_once():
    facts = paste_facts.parse(
        'time=x level=DEBUG source=runner.go:144 msg="verifying if device is supported" '
        'library=/usr/lib/ollama/rocm description="AMD Radeon 780M Graphics" compute=gfx1103 id=0 pci_id=0000:c4:00.0\n'
        # the same GPU on a later refresh: one GPU
        'time=y level=DEBUG source=runner.go:144 msg="verifying if device is supported" '
        'library=/usr/lib/ollama/rocm description="AMD Radeon 780M Graphics" compute=gfx1103 id=0 pci_id=0000:c4:00.0\n'
        # a CUDA device prints a compute capability, not a gfx target: not an AMD GPU
        'time=z level=DEBUG source=runner.go:144 msg="verifying if device is supported" '
        'library=/usr/lib/ollama/cuda_v12 description="NVIDIA GeForce GTX 1080" compute=6.1 id=GPU-1 pci_id=0000:01:00.0\n')
    got = [(g.name, g.gfx_target, g.bdf) for g in facts.gpus]
    assert got == [("AMD Radeon 780M Graphics", "gfx1103", "0000:c4:00.0")], got


def test_the_verify_line_and_the_inference_compute_line_of_one_gpu_are_one_gpu(tmp_path: Path):
    (tmp_path / "journal.txt").write_text(
        'time=a level=DEBUG source=runner.go:144 msg="verifying if device is supported" library=/usr/lib/ollama/rocm '
        'description="AMD Radeon 890M Graphics" compute=gfx1150 id=0 pci_id=0000:c1:00.0\n'
        'time=b level=INFO source=types.go:42 msg="inference compute" id=0 library=ROCm compute=gfx1150 name=ROCm0 '
        'description="AMD Radeon 890M Graphics" libdirs=ollama,rocm driver=70253.21 pci_id=0000:c1:00.0 type=iGPU '
        'total="16.0 GiB" available="15.8 GiB"\n', encoding="utf-8")
    system = detect_snapshot(str(tmp_path))
    assert [(g.gfx_target, g.bdf) for g in system.gpus] == [("gfx1150", "0000:c1:00.0")]
