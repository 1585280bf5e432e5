"""Held-out set BO (tests/data/real/1600): the store path of a NixOS system's top-level derivation, which nixos-rebuild
lists among the derivations it builds, names the NixOS release: nixpkgs nixos/modules/system/activation/top-level.nix
names it "nixos-system-<system.name>-<system.nixos.label>", the label starting with the release "YY.MM" and its
versionSuffix (".<revcount>.<shortrev>", "pre<rev>...", flakes' ".<YYYYMMDD>.<shortrev>").  Near-misses must not be read."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import fixture

_STORE = "/nix/store/fv2bqfsa6rgcv73xj12277i0jfpdn9lq-"


def test_the_fixture_gives_nixos_23_05():
    system = detect_snapshot(str(fixture("1600")))
    assert (system.os.id, system.os.version_id) == ("nixos", "23.05")


@pytest.mark.parametrize("line,pretty", [
    ("  " + _STORE + "nixos-system-main-23.05.2816.bfd953b2c6de.drv", "NixOS 23.05"),
    ("building '" + _STORE + "nixos-system-my-laptop-25.11.20251102.a1b2c3d.drv'...", "NixOS 25.11"),
    (_STORE + "nixos-system-nixos-26.05pre912345.abcdef1", "NixOS 26.05"),
    ("these 3 derivations will be built:\n  " + _STORE + "nixos-system-gpu-box-24.11.20250119.107d5ef.drv", "NixOS 24.11"),
])
def test_a_system_derivation_names_the_release(line, pretty):
    assert pretty in paste_facts.parse(line).distros


@pytest.mark.parametrize("line", [
    _STORE + "nixos-rebuild-23.05.drv",  # another derivation
    _STORE + "rocm-runtime-5.4.3.drv",
    _STORE + "nixos-system-units.drv",  # no release in the name
    "see nixos-system-main-23.05 for details",  # not a store path
])
def test_near_misses_give_no_release(line):
    assert not [d for d in paste_facts.parse(line).distros if d.startswith("NixOS")]
