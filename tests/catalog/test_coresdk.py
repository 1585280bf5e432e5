"""The ROCm Core SDK stream's data (catalog/data/coresdk.toml) and its helpers."""
from __future__ import annotations

import re

from rocm_wizard.catalog import _data, coresdk, releases, sources, support


def _tags_ok(tags):
    assert tags
    for t in tags:
        assert sources.get(t) is not None, t


def test_production_releases_with_dates_status_and_sources():
    core = {r.version: r for r in releases.all_releases() if r.stream == "core-sdk"}
    assert list(core) == ["7.14.0", "7.14.1", "10.0.0", "10.1.0"]
    assert core["7.14.0"].date == "2026-07-15" and core["10.1.0"].date == "2026-10-05"
    for r in core.values():
        assert r.status in _data.STATUSES and r.support_status in _data.STATUSES
        _tags_ok(r.sources)
        _tags_ok(r.series_sources)
        assert re.fullmatch(r"\d+\.\d+\.\d+-\*", r.package_version) and r.package_version.startswith(r.version)
        assert r.layout == "core-sdk" and r.core
        assert set(r.gfx_official) <= support.known_gfx_targets()
        assert set(r.gfx_debian) <= set(r.gfx_official)


def test_previews_and_10_2_are_known_but_never_releases():
    for spec in ("7.9", "7.12", "7.13.0", "10.2"):
        p = coresdk.preview(spec)
        assert p is not None and p.status in ("preview", "not confirmed")
        _tags_ok(p.sources)
        assert releases.get(p.version) is None
    assert releases.resolve("7.12") is None and releases.resolve("10.2") is None
    assert coresdk.preview("7.14") is None


def test_key_fingerprint_is_pinned_from_amds_own_code_and_says_so():
    """Issue 30: AMD's repo-package builder pins the Core SDK key (ROCm/TheRock
    build_tools/packaging/linux/build_repo_package.py, PR #7269): observed, not documented."""
    info = coresdk.info()
    assert info.key_fingerprint == "D0F004A0025A1145C7807FCD0701EAC4D5E02107"
    assert info.key_fingerprint_status == "observed"
    assert "build_repo_package.py" in info.key_fingerprint_source and "7269" in info.key_fingerprint_source
    assert "therock-7269" in info.key_sources
    assert "fingerprint" in info.key_note and info.keyring == "/etc/apt/keyrings/amdrocm.gpg"
    _tags_ok(info.key_sources)
    _tags_ok(info.pin_sources)


def test_repositories_per_series():
    p2604 = coresdk.profile("ubuntu", "26.04.1")
    assert p2604.profile == "ubuntu2604" and p2604.codename == "resolute"
    assert coresdk.profile("debian", "12.7").profile == "debian12"
    assert coresdk.profile("ubuntu", "20.04") is None
    r714, r100 = releases.get("7.14.0"), releases.get("10.0.0")
    path, text = coresdk.source_file(r714, p2604)
    assert path == "/etc/apt/sources.list.d/rocm.list"
    assert text == ("deb [arch=amd64 signed-by=/etc/apt/keyrings/amdrocm.gpg] "
                    "https://repo.amd.com/rocm/packages-multi-arch/ubuntu2604 stable main\n")
    assert coresdk.key_url(r714) == "https://repo.amd.com/rocm/packages-multi-arch/gpg/rocm.gpg"
    path, text = coresdk.source_file(r100, coresdk.profile("debian", "12"), base="http://127.0.0.1:9/m/")
    assert path == "/etc/apt/sources.list.d/amdrocm-stable.sources"
    assert "URIs: http://127.0.0.1:9/m/rocm/core/packages/debian12/\n" in text
    assert "Suites: stable\n" in text and "Signed-By: /etc/apt/keyrings/amdrocm.gpg\n" in text
    assert coresdk.key_url(r100) == "https://stable.repo.amd.com/rocm/gpg/packages.gpg"


def test_versioned_package_names_never_the_pointer():
    r = releases.get("10.0.0")
    assert coresdk.package_names(r, ["gfx1100"]) == ["amdrocm-core-sdk10.0-gfx1100"]
    assert coresdk.package_names(r, ["gfx1100", "gfx1201"]) == ["amdrocm-core-sdk10.0-gfx1100",
                                                                "amdrocm-core-sdk10.0-gfx1201"]
    assert coresdk.package_names(r, ["gfx1031"]) == ["amdrocm-core-sdk10.0"]  # no per-gfx package: the full one
    assert coresdk.package_names(r, []) == ["amdrocm-core-sdk10.0"]
    assert coresdk.package_names(releases.get("7.14.1"), ["gfx942"]) == ["amdrocm-core-sdk7.14-gfx942"]
    assert coresdk.install_root(r) == "/opt/rocm/core-10.0"
    assert coresdk.version_file(r) == "/opt/rocm/core-10.0/.info/version"


def test_paired_kernel_driver():
    lines = coresdk.driver_lines(releases.get("10.0.0"), "resolute")
    assert lines == [("/etc/apt/sources.list.d/amdgpu.list", "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] "
                      "https://repo.radeon.com/amdgpu/31.50/ubuntu resolute main")]
    assert "31.40.1/ubuntu jammy" in coresdk.driver_lines(releases.get("7.14.0"), "jammy")[0][1]
    assert coresdk.driver_lines(releases.get("10.1.0"), "noble") == []  # not known


def test_os_support():
    r = releases.get("10.1.0")
    assert r.supports_os("ubuntu", "26.04.1") and r.supports_os("ubuntu", "24.04") and not r.supports_os("ubuntu", "20.04")
    assert r.supports_os("debian", "13") and r.supports_os("debian", "11") is False
    assert releases.get("6.4.3").supports_os("debian", "12") is None
    assert coresdk.gfx_supported_on(r, "debian", "gfx942", "13", "AMD Instinct MI300X")
    assert not coresdk.gfx_supported_on(r, "debian", "gfx1100", "13", "AMD Radeon RX 7900 XTX")
    assert coresdk.gfx_supported_on(r, "debian", "gfx942") is None  # MI300A: Debian 12 only; the product decides
    assert "7.0" in r.kernel_series("26.04")
