"""The doctor over the real systems in tests/data/real: the key findings a ROCm maintainer
would expect for each (from its labels.toml), and no crash on any of them.

Where a key finding depends on a value detection does not extract yet (e.g. the host ROCm release
from a package listing), the test skips that assertion with the reason instead of passing silently.
"""
from __future__ import annotations

import json

import pytest
from rwtest import ci, realrun

REAL = ci.REAL


def _fixture_dirs():
    return sorted(p.name for p in REAL.iterdir() if p.is_dir())


_CACHE = {}


def run(name: str):
    if name not in _CACHE:
        if not (REAL / name).is_dir():
            ci.missing(f"fixture {name} not present in {REAL}")
        _CACHE[name] = realrun.run(REAL / name)  # shared with the other fixture-wide files
    return _CACHE[name]


@pytest.mark.parametrize("name", _fixture_dirs())
def test_every_fixture_is_diagnosed_without_errors(name):
    system, d = run(name)
    assert d.notes == []
    json.dumps(d.to_dict())
    assert {r.path for r in d.recommendations} == {"rocm-upgrade", "torch-reinstall", "docker"}
    for r in d.recommendations:
        assert r.why
        assert (r.rank is None) != r.applies


def test_001_rx7800xt_with_zen5_igpu():
    _s, d = run("001-gfx1101-rocm7.2.1-arch")
    f = d.finding("mixed-gpu-left-out")
    assert f is not None and any("gfx1036" in e for e in f.evidence) and "HIP_VISIBLE_DEVICES=0" in f.fix
    assert "gfx-no-official-build" not in d.ids()
    assert not d.recommendation("rocm-upgrade").applies
    t = d.recommendation("torch-reinstall")
    assert t.applies and "gfx1101" in t.why


def test_008_wsl2_is_not_blamed_for_kfd():
    _s, d = run("008-gfx1100-rx7900xt-rocm6.4-wsl2-ubuntu24.04")
    ids = d.ids()
    assert "wsl2" in ids
    assert not {"kfd-missing", "amdgpu-not-loaded", "dkms-not-built-for-kernel", "user-not-in-render-video"} & set(ids)
    assert d.problems == []


def test_010_rx6900xt_is_a_supported_target():
    _s, d = run("010-gfx1030-rx6900xt-rocmNA-kernel5.17")
    assert "gfx-no-official-build" not in d.ids() and d.worst not in ("critical", "error")
    assert d.recommendation("torch-reinstall").applies


def test_011_rx9070_with_granite_ridge_igpu_on_arch():
    _s, d = run("011-gfx1201-rx9070-gfx1036-rocmNA-arch")
    f = d.finding("mixed-gpu-left-out")
    assert f is not None and any("gfx1201" in e for e in f.evidence) and any("gfx1036" in e for e in f.evidence)
    up = d.recommendation("rocm-upgrade")
    assert not up.applies and "Arch" in up.why
    t = d.recommendation("torch-reinstall")
    from rocm_wizard.catalog import wheels

    assert t.applies and wheels.index_has_gfx(t.target["index"], "gfx1201")


def test_013_no_amd_gpu_gets_no_ways_out():
    _s, d = run("013-nogpu-intel-hd8750m-rocm6.2.2-ubuntu24.04")
    f = d.finding("no-amd-gpu")
    assert f is not None and f.severity == "critical"
    assert all(not r.applies for r in d.recommendations)


def test_017_four_mi210_are_healthy():
    system, d = run("017-gfx90a-4xmi210-rocm6.2.4-ubuntu22.04")
    assert len(system.amd_gpus) == 4
    assert d.problems == []
    from rocm_wizard.catalog import wheels

    t = d.recommendation("torch-reinstall")
    assert t.applies and wheels.index_has_gfx(t.target["index"], "gfx90a")


def test_019_radeon_890m_is_unofficial_in_legacy_and_gets_the_core_sdk():
    _s, d = run("019-gfx1150-radeon890m-rocm7.2.0-ubuntu24.04")
    # legacy 7.2.1-7.2.4 list gfx1150 (AMD rdna3-5.rst; errata 2026-11-26), 7.2.0 does not
    f = d.finding("rocm-too-old-for-gpu")
    assert f is not None and any("gfx1150" in e and "7.2.1" in e and "7.2.0" in e for e in f.evidence)
    assert "wheel-missing-gfx" not in d.ids() and "gfx-no-official-build" not in d.ids()
    # the legacy host stays legacy: 7.2.4, on the APU's own kernel driver (no amdgpu-dkms)
    up = d.recommendation("rocm-upgrade")
    assert up.applies and up.target["rocm"] == "7.2.4" and up.target.get("stream") is None
    assert up.target["kernel_driver"].startswith("none (Ryzen APU")


def test_021_cezanne_apu_has_no_official_build():
    _s, d = run("021-gfx902-cezanne-apu-rocm4.3.1-arch")
    assert "gfx-no-official-build" in d.ids()
    nb = d.finding("no-binary-for-gpu")
    assert nb is not None and any("hipErrorNoBinaryForGpu" in e for e in nb.evidence)
    # ROCm 4.3 reported this Cezanne chip (0x1638) as gfx902; the chip table (the kernel's and
    # LLVM's) says gfx90c: the reported target is named, the ways out are judged for the chip
    rt = d.finding("reported-target-not-chip")
    assert rt is not None and any("gfx902" in e and "gfx90c" in e for e in rt.evidence)
    assert all(not r.applies and "gfx90c" in r.why for r in d.recommendations)
    ov = d.finding("hsa-override-missing")
    assert ov is None or ov.community


def test_026_hsa_out_of_resources_on_old_rocm():
    system, d = run("026-rx7900xtx-rocm5.4.3-ubuntu22.04-hsa-out-of-resources")
    f = d.finding("hsa-runtime-error")
    assert f is not None and any("HSA_STATUS_ERROR_OUT_OF_RESOURCES" in e for e in f.evidence)
    if not (system.rocm.version or system.rocm.packages):
        pytest.skip("detection does not report the host ROCm release from an apt listing yet")
    assert "rocm-older-than-catalog" in d.ids()


def test_028_rx6800_on_rocky_gets_no_apt_path():
    system, d = run("028-gfx1030-rx6800-rocm5.3.0-rocky9.0")
    assert "gfx-no-official-build" not in d.ids()
    up = d.recommendation("rocm-upgrade")
    assert not up.applies and "Rocky" in up.why
    if not (system.rocm.version or system.rocm.packages):
        pytest.skip("detection does not report the host ROCm release from a dnf listing yet")
    assert "rocm-older-than-catalog" in d.ids()


def test_032_alloc_failed_is_explained_without_false_cures():
    _s, d = run("032-rx7900xtx-therock-rocm7.9.0rc-ubuntu24.04-hipblas-alloc")
    f = d.finding("hipblas-alloc-failed")
    assert f is not None and f.severity == "error" and "cannot fix it" in f.explanation
    assert all("TORCH_BLAS_PREFER_HIPBLASLT" not in json.dumps(r.target) for r in d.recommendations)
