"""Held-out set DT (tests/data/real/2340-2343, HELDOUT.md): a newcomer's first ROCm and PyTorch install on a fresh
desktop (rocminfo after amdgpu-install, a ComfyUI venv with a torch wheel that lacks the GPU's target, an application
installer that falls back to CPU-only torch).  The one miss, 2343, was Unsloth's installer announcing its CPU-only
fallback on an AMD GPU (unslothai/unsloth install.sh get_torch_index_url, install.ps1, studio/setup.ps1): two rows
now read it.  The two detection misses were ComfyUI's 'AMD arch:' log line under the error report's timestamp prefix
(ComfyUI app/logger.py entries joined as '<isoformat> - <message>') and Unsloth's 'gpu AMD ROCm (gfxNNNN)' summary line
quoted with its padding collapsed."""
from __future__ import annotations

import pytest

from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

CPU_FALLBACK = "dt_unsloth_installer_amd_gpu_cpu_only_torch"
ROCM_BELOW_6 = "dt_unsloth_installer_rocm_below_6_cpu_only_torch"


@pytest.mark.parametrize("num,layer", [("2340", "runtime"), ("2341", "hip"), ("2342", "hip"), ("2343", "framework")])
def test_the_set_dt_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_installer_fallback_row_names_2343_and_leads():
    assert_named_and_leads("2343", CPU_FALLBACK, "framework")


@pytest.mark.parametrize("line", [
    # 2343 (unslothai/unsloth#8402, Linux Mint, the quote with its own elision)
    "AMD GPU detected, but no ROCm/HIP install was found... falling back to CPU-only PyTorch",
    # 1421 (unslothai/unsloth#8731, Bazzite AppImage: install.sh's line wrapped by the log at 80 columns)
    "[WARN] AMD GPU detected, but no ROCm/HIP install was found to select the matching",
    # unslothai/unsloth#8847 (Windows, a 7600X's iGPU read first: install.ps1's fallback, quoted from the user's log)
    "                   Installing CPU-only PyTorch (AMD GPU arch unknown ...)",
])
def test_the_installer_fallback_row_reads_its_wordings(line):
    assert CPU_FALLBACK in ids(line)


def test_the_rocm_below_6_row_reads_the_fixture_line():
    line = "[WARN] ROCm rocm5.7 detected but PyTorch ROCm wheels require ROCm 6.0+ -- falling back to CPU-only PyTorch"
    assert {CPU_FALLBACK, ROCM_BELOW_6} & ids(line) == {ROCM_BELOW_6}


@pytest.mark.parametrize("line", [
    # no GPU at all (unslothai/unsloth#8556, an Intel Arc host): not an AMD GPU the installer gave up on
    "                 No GPU detected -- installing CPU-only PyTorch.",
    # the NVIDIA-less Windows branch (unslothai/unsloth PR #5301's log)
    "                 Installing CPU-only PyTorch. If you only need GGUF chat/inference,",
    # install.sh's override branch, which routes to AMD wheels instead of falling back
    "[WARN] AMD GPU detected with no readable ROCm version, but UNSLOTH_ROCM_GFX_ARCH=gfx1151 is set -- routing to AMD per-arch wheels.",
    # the version the installer read, alone
    "hipconfig: 5.7.31921-0",
])
def test_lines_that_are_not_the_fallback_match_neither_row(line):
    assert not {CPU_FALLBACK, ROCM_BELOW_6} & ids(line)


@pytest.mark.parametrize("line,gfx", [
    ("2025-04-25T15:51:00.752933 - AMD arch: gfx1103", "gfx1103"),          # 2342 (ComfyUI#7798), the report's Logs
    ("2025-03-26T14:34:54.285421 - AMD arch: gfx1201", "gfx1201"),          # 2341 (ComfyUI#7400)
    ("gpu AMD ROCm (gfx1100)   ROCm: /opt/rocm", "gfx1100"),                # 2343, the quoted installer summary
    ("  gpu            AMD ROCm (gfx1201)", "gfx1201"),                     # 1421, the installer's own padding
])
def test_the_logged_gfx_target_is_read(line, gfx):
    assert [g.gfx_target for g in paste_facts.parse(line + "\n").gpus if g.gfx_target] == [gfx]


@pytest.mark.parametrize("line", [
    "2025-04-25T15:51:00.752933 - note: AMD arch: gfx1103 is not in this wheel",   # not the message's start
    "gpu AMD ROCm (gfx1100) PyTorch cannot see it",                                 # other words after the target
])
def test_lines_that_only_name_a_target_in_passing_are_not_read(line):
    assert not [g for g in paste_facts.parse(line + "\n").gpus if g.gfx_target]


def test_the_timestamped_comfyui_device_line_names_the_gpu():
    text = ("2025-03-26T14:34:54.285421 - AMD arch: gfx1201\n"
            "2025-03-26T14:34:54.285524 - Device: cuda:0 AMD Radeon RX 9070 XT : hipMallocAsync\n")
    gpus = paste_facts.parse(text).gpus
    assert [(g.name, g.gfx_target) for g in gpus] == [("AMD Radeon RX 9070 XT", "gfx1201")]
