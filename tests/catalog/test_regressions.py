"""The table of known regressions (``catalog/data/regressions.toml``, issue 28, s8-regress): its rows are
well formed and each names a source, and the range logic reads the version strings of the kernel,
the linux-firmware packages of Debian/Ubuntu, Fedora, Arch and openSUSE, amdgpu-dkms and the wheels."""
from __future__ import annotations

import dataclasses

import pytest

from rocm_wizard.catalog import regressions as rg


def _row(rid: str) -> rg.Regression:
    return next(r for r in rg.rows() if r.id == rid)


def test_the_table_is_well_formed_and_every_row_names_a_source():
    assert rg.problems() == []
    rows = rg.rows()
    assert len(rows) >= 20
    assert {r.component for r in rows} == set(rg.COMPONENTS)
    for r in rows:
        # a source is an upstream reference: an issue/PR/commit or a docs file, never only prose
        assert "#" in r.source or "/" in r.source, r.id
        assert r.signatures() or rg.ANY_SYMPTOM in r.symptoms, r.id


def test_problems_catches_bad_rows(monkeypatch):
    good = _row("kernel-6.18-rdna3-sdma-page-fault")
    bad = [good, dataclasses.replace(good, component="mesa"), dataclasses.replace(good, id="x", symptoms=("nope",)),
           dataclasses.replace(good, id="y", first_bad="soon", status="rumour"), dataclasses.replace(good, id="z", source="")]
    monkeypatch.setattr(rg, "rows", lambda: tuple(bad))
    text = "\n".join(rg.problems())
    for needle in ("unknown component 'mesa'", "duplicate id", "unknown symptom class 'nope'", "'soon' cannot be read",
                   "unknown status 'rumour'", "no fix or no source"):
        assert needle in text


@pytest.mark.parametrize("component,version,want", [
    ("kernel", "6.17.0-20-generic", (6, 17, 0)),
    ("kernel", "6.18.14-061814-generic", (6, 18, 14)),
    ("kernel", "6.17.9-300.fc43.x86_64", (6, 17, 9)),
    ("kernel", "7.0", (7, 0, 0)),
    ("linux-firmware", "20240318.git3b128b60-0ubuntu2.10", (20240318,)),  # Ubuntu
    ("linux-firmware", "20230210-5", (20230210,)),  # Debian
    ("linux-firmware", "20251125-1.fc43.noarch", (20251125,)),  # Fedora (rpm -q)
    ("linux-firmware", "20251125.a1b2c3d4-1", (20251125,)),  # Arch
    ("linux-firmware", "20251125-1.1", (20251125,)),  # openSUSE
    ("linux-firmware", "1:20251125-1", (20251125,)),  # an epoch
    ("linux-firmware", "6.16.13", None),
    ("amdgpu-dkms", "1:6.16.13.30300000-2278356.24.04", (6, 16, 13)),
    ("amdgpu-dkms", "amdgpu/6.16.6-2255209.24.04, 6.17.0-8-generic, x86_64: installed", (6, 16, 6)),
    ("rocm", "7.2.1", (7, 2, 1)),
    ("torch", "7.14.0a20260612", (7, 14, 0, 20260612)),
    ("kernel", "", None), ("kernel", "abc", None),
])
def test_version_keys(component, version, want):
    assert rg.key(component, version) == want


@pytest.mark.parametrize("version,want", [
    ("20251125-1.fc43", True), ("20251125.abc-1", True), ("1:20251125-1", True),
    ("20251111-1.fc43", False),  # the release before
    ("20260110-1", None),  # after the newest known-bad release, no fix known: unknown, never "fixed"
    ("20240318.git3b128b60-0ubuntu2.10", False), ("not a version", None),
])
def test_firmware_range_with_unknown_fix(version, want):
    assert rg.in_range(_row("linux-firmware-20251125-gc115-mes-0x83"), version) is want


@pytest.mark.parametrize("kernel,want", [
    ("6.17.0-20-generic", False), ("6.17.0-19-generic", False), ("6.17.0-18-generic", True),  # Ubuntu HWE builds
    ("6.14.0-1018-oem", False), ("6.14.0-1017-oem", True),  # Ubuntu OEM builds
    ("6.8.0-50-generic", True), ("6.16.3-arch1-1", True),
    ("6.17.9-300.fc43.x86_64", False),  # Fedora 43 carries the fixes: not flagged
    ("6.18.4", False), ("7.0.1", False),
])
def test_kernel_range_with_distribution_builds(kernel, want):
    assert rg.in_range(_row("kernel-gfx1151-kfd-fixes-missing"), kernel) is want


def test_series_bounds_and_fixed_releases():
    rdna3 = _row("kernel-6.18-rdna3-sdma-page-fault")  # 6.18 .. through 7.0.x, fix unknown
    assert [rg.in_range(rdna3, k) for k in ("6.17.9", "6.18.3", "6.19.2", "7.0.5", "7.1.0")] == [False, True, True, True, None]
    apu = _row("kernel-6.15-gfx1103-kfd-reset")  # 6.14.1 .. fixed in 6.15.8
    assert [rg.in_range(apu, k) for k in ("6.14.0", "6.14.1", "6.15.7", "6.15.8", "6.16.0")] == [False, True, True, False, False]
    ubuntu = _row("amdgpu-dkms-6.8.0-44-ubuntu")  # one distribution build
    assert [rg.in_range(ubuntu, k) for k in ("6.8.0-41-generic", "6.8.0-44-generic", "6.8.0-45-generic", "6.8.1")] == \
        [False, True, None, False]


def test_targets_and_kernel_conditions():
    rdna3 = _row("kernel-6.18-rdna3-sdma-page-fault")
    assert rdna3.hits_gfx("gfx1100") and not rdna3.hits_gfx("gfx1151") and not rdna3.hits_gfx(None)
    assert _row("linux-firmware-20251125-smu-freeze").hits_gfx("gfx1101")  # "gfx110*"
    assert _row("amdgpu-dkms-6.16-fails-on-6.18").hits_gfx("gfx942")  # "all"
    dkms = _row("amdgpu-dkms-6.16-fails-on-6.18")  # builds fail from the 6.18 series on
    assert [rg.kernel_condition(dkms, k) for k in ("6.17.0-20-generic", "6.18.7-061807-generic", None)] == [False, True, None]
    old = _row("rocm-7.2.0-gfx1151-old-kernel")  # only on kernels before 6.17
    assert [rg.kernel_condition(old, k) for k in ("6.14.0-1017-oem", "6.17.0-20-generic")] == [True, False]


def test_blob_verdict():
    row = _row("linux-firmware-20251125-gc115-mes-0x83")
    assert rg.blob_verdict(row, {"MES": "0x00000083"}) is True
    assert rg.blob_verdict(row, {"MES": "0x00000080"}) is False
    assert rg.blob_verdict(row, {"MES": "0x00000081"}) is None  # neither: unknown
    assert rg.blob_verdict(row, {"MES_KIQ": "0x6f"}) is None and rg.blob_verdict(row, None) is None
    assert rg.blob_verdict(_row("kernel-6.18-rdna3-sdma-page-fault"), {"MES": "0x83"}) is None
