"""Held-out set Y (tests/data/real/830-840): the detection fields its baseline got wrong.  nix-info's host OS fact
(NixOS/nixpkgs pkgs/tools/nix/info/info.sh: desc_host_os prints "$(uname -sr)", then ", $NAME, $VERSION" from
/etc/os-release; 'nix-info -m' writes " - host os: `...`") gives the kernel and the distribution (833, 837); an issue
form's GPU field holding the agents' ISA names as rocminfo prints them gives their targets (839)."""
from __future__ import annotations

from pathlib import Path

import pytest

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import fixture as _fixture


@pytest.mark.parametrize("num,kernel,distro,version", [
    ("833", "6.12.9", "nixos", "24.11"),
    ("837", "6.8.5", "nixos", "24.05"),
])
def test_nix_info_gives_kernel_and_distribution(num, kernel, distro, version):
    system = detect_snapshot(str(_fixture(num)))
    assert (system.os.kernel, system.os.id, system.os.version_id) == (kernel, distro, version)


@pytest.mark.parametrize("line,kernel,pretty", [
    # nix-info -m (markdown), NixOS, with the build id newer nix-info adds
    (" - host os: `Linux 6.12.9, NixOS, 24.11 (Vicuna), 24.11.20250119.107d5ef`", "6.12.9", "NixOS 24.11 (Vicuna)"),
    # nix-info without -m: the facts on one line, comma-separated; nix on another distribution
    ('system: "x86_64-linux", host os: Linux 6.1.0-18-amd64, Debian GNU/Linux, 12 (bookworm), multi-user?: yes',
     "6.1.0-18-amd64", "Debian GNU/Linux 12 (bookworm)"),
])
def test_the_host_os_fact_is_read(line, kernel, pretty):
    facts = paste_facts.parse(line)
    assert (facts.kernels, facts.distros) == ([kernel], [pretty])


def test_a_host_os_of_another_system_is_not_read():
    # macOS under nix-darwin: no Linux kernel, no Linux distribution
    facts = paste_facts.parse(" - host os: `Darwin 23.1.0, macOS 14.1.1`")
    assert (facts.kernels, facts.distros) == ([], [])


def test_839_the_form_gpu_fields_isa_name_gives_the_target():
    system = detect_snapshot(str(_fixture("839")))
    assert [g.gfx_target for g in system.amd_gpus] == ["gfx1150"]


@pytest.mark.parametrize("value,targets", [
    # rocminfo's agent names pasted into the field (the generic target is a family, not a GPU)
    ("AMD Ryzen AI 9 HX 370 w/ Radeon 890M  gfx1150 amdgcn-amd-amdhsa--gfx1150 amdgcn-amd-amdhsa--gfx11-generic",
     ["gfx1150"]),
    # two GPUs' ISA names with their features
    ("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack- amdgcn-amd-amdhsa--gfx1100", ["gfx90a", "gfx1100"]),
    # a plain name: no ISA name to read; the name reader gives the chip's target as before
    ("Radeon RX 7900 XTX", ["gfx1100"]),
])
def test_form_isa_names(tmp_path: Path, value, targets):
    (tmp_path / "report.txt").write_text("### GPU\n\n%s\n\n### ROCm Version\n\nROCm 7.1.1\n" % value, encoding="utf-8")
    system = detect_snapshot(str(tmp_path))
    got = [g.gfx_target for g in system.amd_gpus if g.gfx_target]
    assert sorted(got) == sorted(targets), got
