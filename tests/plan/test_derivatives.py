"""Ubuntu derivatives (Pop!_OS, Linux Mint, elementary OS, Zorin OS, KDE neon) are planned as their
Ubuntu base (``UBUNTU_CODENAME``), said in the plan's header and notes, and checked as what they
are (the fingerprint keeps their own ID); an unknown derivative is refused with the reason.
The os-release files are real ones (tests/data/os-release/SOURCES.md)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from rocm_wizard import model
from rocm_wizard.detect.probes import os as os_probe
from rocm_wizard.detect.sources import LiveSource
from rocm_wizard.plan import Choices, PlanError, build_plan
from rocm_wizard.plan.shell import render_shell

DATA = Path(__file__).resolve().parents[1] / "data" / "os-release"

BASES = {"pop-24.04": ("24.04", "noble"), "pop-22.04": ("22.04", "jammy"), "linuxmint-22": ("24.04", "noble"),
         "elementary-7": ("22.04", "jammy"), "zorin-16": ("20.04", "focal"), "neon-6.0": ("22.04", "jammy")}


def detected_os(tmp_path: Path, name: str, text: str = None) -> model.OSInfo:
    root = tmp_path / name
    (root / "etc").mkdir(parents=True)
    (root / "etc/os-release").write_text(text if text is not None else (DATA / name).read_text())
    system = model.System()
    os_probe.probe(LiveSource(root=str(root), commands=False, environ={}), system)
    return system.os


def on(seed, osi: model.OSInfo):
    """The seed system, with the distribution fields of ``osi`` (its kernel and GPUs kept)."""
    keep = seed.os
    new = dataclasses.replace(keep, id=osi.id, version_id=osi.version_id, codename=osi.codename,
                              pretty_name=osi.pretty_name, id_like=osi.id_like, ubuntu_codename=osi.ubuntu_codename)
    return dataclasses.replace(seed, os=new)


@pytest.mark.parametrize("name", sorted(BASES))
def test_real_os_release_files_give_the_ubuntu_base(tmp_path, name):
    osi = detected_os(tmp_path, name)
    from rocm_wizard.catalog import derivatives

    base = derivatives.ubuntu_base(osi)
    assert "ubuntu" in osi.id_like.split() and osi.id != "ubuntu"
    assert (base.version, base.codename) == BASES[name], base


def test_pop_os_24_04_gets_the_ubuntu_24_04_plan(tmp_path, seed_system):
    seed = seed_system("seed-rx7900xt-jammy-rocm6.2")
    noble = model.OSInfo(id="ubuntu", version_id="24.04", codename="noble", pretty_name="Ubuntu 24.04.4 LTS",
                         id_like="debian", ubuntu_codename="noble")
    ubuntu = build_plan(on(seed, noble), Choices(path="rocm-upgrade"))
    pop = build_plan(on(seed, detected_os(tmp_path, "pop-24.04")), Choices(path="rocm-upgrade"))
    assert [(s.id, s.params) for s in pop.steps] == [(s.id, s.params) for s in ubuntu.steps]
    assert pop.inputs.get("rocm") == ubuntu.inputs.get("rocm")
    # checked as Pop!_OS (what /etc/os-release says there), planned as Ubuntu 24.04, and said so
    assert pop.fingerprint.fields["os"] == ["pop 24.04"] and ubuntu.fingerprint.fields["os"] == ["ubuntu 24.04"]
    script = render_shell(pop)
    assert "# made for: Pop!_OS 24.04 LTS (planned as Ubuntu 24.04 noble, its base)" in script
    assert any("built on Ubuntu 24.04 (noble, its UBUNTU_CODENAME)" in n for n in pop.notes)
    assert "noble" in script


def test_linux_mint_22_is_planned_as_noble(tmp_path, seed_system):
    seed = seed_system("seed-rx7900xt-jammy-rocm6.2")
    mint = build_plan(on(seed, detected_os(tmp_path, "linuxmint-22")), Choices(path="rocm-upgrade"))
    assert mint.fingerprint.fields["os"] == ["linuxmint 22"]
    assert "Linux Mint 22 (planned as Ubuntu 24.04 noble" in mint.system["summary"]


def test_an_unknown_derivative_is_refused_with_the_reason(tmp_path, seed_system):
    # synthetic: a distribution that says it is like Ubuntu but is not in derivatives.toml
    osi = detected_os(tmp_path, "other", 'NAME="Examplix"\nID=examplix\nID_LIKE="ubuntu debian"\n'
                                         'VERSION_ID="3"\nPRETTY_NAME="Examplix 3"\nUBUNTU_CODENAME=noble\n')
    seed = seed_system("seed-rx6700xt-noble-gfx1031")
    with pytest.raises(PlanError) as err:
        build_plan(on(seed, osi), Choices(path="rocm-upgrade"))
    assert err.value.exit_code == 3
    assert "Examplix 3 (ID=examplix) says it is like Ubuntu" in err.value.message
    assert "Pop!_OS" in err.value.message  # the known ones are named


def test_lmde_is_not_planned_as_ubuntu(tmp_path, seed_system):
    seed = seed_system("seed-rx6700xt-noble-gfx1031")
    with pytest.raises(PlanError) as err:
        build_plan(on(seed, detected_os(tmp_path, "lmde-6")), Choices(path="rocm-upgrade", rocm="6.4.3"))
    assert err.value.exit_code == 3 and "LMDE 6" in err.value.message
