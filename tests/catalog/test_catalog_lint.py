"""Lint of the catalog data: every entry has a source, versions parse, no duplicates, cross
references hold, and file names/directories follow AMD's rules."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.version import Version

from rocm_wizard.catalog import _data, docker, overrides, releases, sources, support, wheels
from rocm_wizard.doctor.registry import check as registry_check
from rocm_wizard.doctor.registry import rule_ids_in_file, rules

STATUSES = set(_data.STATUSES)
KNOWN_GFX = support.known_gfx_targets()


def _tags_ok(tags):
    assert tags, "no sources"
    for t in tags:
        assert sources.get(t) is not None, f"unknown source tag {t}"


def test_source_registry_entries_are_complete():
    for tag, src in sources.all_sources().items():
        assert src.kind in ("official", "third-party", "observed"), tag
        assert src.ref.strip(), tag
        if src.url:
            assert src.url.startswith("https://"), tag
        checkout = str(Path(__file__).resolve().parents[2])  # no path of this checkout
        assert checkout not in src.ref and checkout not in (src.url or "")


def test_every_tag_used_anywhere_exists():
    used = set()

    def walk(obj):
        if isinstance(obj, dict):
            for k, v in obj.items():
                if k.endswith("sources") and isinstance(v, list):
                    used.update(v)
                else:
                    walk(v)
        elif isinstance(obj, list):
            for v in obj:
                walk(v)

    for name in ("rocm_releases.toml", "coresdk.toml", "torch_wheels.toml", "docker.toml", "overrides.toml",
                 "distro_python.toml", "zypper.toml"):
        walk(_data.load(name))
    missing = sorted(t for t in used if sources.get(t) is None)
    assert not missing


# ---------------------------------------------------------------- ROCm releases
def _legacy():
    return [r for r in releases.all_releases() if r.stream == "legacy"]


def test_releases_have_sources_status_and_parse():
    rels = _legacy()
    assert len(rels) >= 30
    seen = set()
    for r in rels:
        Version(r.version)
        assert len(r.version.split(".")) == 3
        assert r.version not in seen
        seen.add(r.version)
        _tags_ok(r.sources)
        _tags_ok(r.series_sources)
        assert r.status in STATUSES and r.support_status in STATUSES
        assert r.layout in ("rocm+amdgpu", "rocm+graphics+amdgpu30")
        assert r.ubuntu and all(re.fullmatch(r"\d\d\.\d\d(\.\d)?", u) for u in r.ubuntu)
        assert all(releases.codename(u) for u in r.ubuntu), r.version


def test_series_run_from_60_to_72():
    series = [s for s in releases.all_series() if releases.stream_of(s) == "legacy"]
    assert series[0] == "6.0" and series[-1] == "7.2"
    assert {"6.0", "6.1", "6.2", "6.3", "6.4", "7.0", "7.1", "7.2"} <= set(series)


def test_release_gfx_lists_use_known_targets():
    for r in releases.all_releases():
        for g in r.gfx_official + r.gfx_deprecated + r.gfx_unsupported + tuple(k for k, _ in r.gfx_limited):
            assert g in KNOWN_GFX, f"{r.version}: {g} is not in the GPU table"
        assert not set(r.gfx_official) & set(r.gfx_unsupported)


def test_apt_dir_has_no_trailing_zero():
    for r in _legacy():
        major, minor, patch = r.version.split(".")
        assert r.apt_dir == (f"{major}.{minor}" if patch == "0" else r.version)


def test_amdgpu_install_file_names_follow_amds_rule():
    for r in _legacy():
        major, minor, patch = (int(x) for x in r.version.split("."))
        libpatch = major * 10000 + minor * 100 + patch
        if major >= 7 and patch > 0:
            expected = f"amdgpu-install_{r.version}.{libpatch}-1_all.deb"
        else:
            expected = f"amdgpu-install_{major}.{minor}.{libpatch}-1_all.deb"
        assert r.amdgpu_install == expected


def test_layouts_per_major_version():
    for r in _legacy():
        if r.major == 6:
            assert r.layout == "rocm+amdgpu" and r.amdgpu_dir == r.apt_dir and r.graphics_dir is None
        else:
            assert r.layout == "rocm+graphics+amdgpu30" and r.graphics_dir
            assert r.amdgpu_dir is None or r.amdgpu_dir.startswith("30.")


def test_repo_facts():
    info = releases.repo()
    assert info.base_url == "https://repo.radeon.com"
    assert re.fullmatch(r"[0-9A-F]{40}", info.key_fingerprint) and info.key_fingerprint.endswith(info.key_long_id)
    assert info.key_fingerprint_status == "observed"
    _tags_ok(info.key_sources)
    _tags_ok(info.pin_sources)
    assert info.pin_priority > 500 and info.pin_origin == "repo.radeon.com"
    assert releases.policy_series() in releases.all_series()


# ---------------------------------------------------------------- wheels
def test_indexes_parse_have_sources_and_known_gfx():
    for i in wheels.indexes():
        if i.amd:  # AMD's own index: its URL, the label of its wheels, the rocm wheels it needs
            assert i.name.startswith("amd-") and i.url().startswith("https://") and i.userspace == "rocm-pip"
            assert i.status == "preview" or (i.label == f"rocm{i.rocm}" and i.rocm_pin == i.rocm)
        else:
            assert i.name == i.label == f"rocm{i.rocm}" and i.kind == "pytorch"
        Version(i.rocm)
        _tags_ok(i.sources)
        assert i.status in STATUSES and i.userspace in ("bundled", "rocm-pip")


def test_gfx_sets_parse_have_sources_and_known_gfx():
    sets = wheels.gfx_sets()
    for s in sets.values():
        _tags_ok(s.sources)
        assert s.status in STATUSES
        assert len(set(s.gfx)) == len(s.gfx)
        for g in s.gfx:
            assert g in KNOWN_GFX, f"{s.name}: {g}"
        assert "gfx803" not in s.gfx
        assert set(s.inferred) <= set(s.gfx)
    for t in wheels.torch_releases():
        assert t.gfx_set in sets, t.version
        for idx, name in t.gfx_set_on:
            assert idx in t.indexes and name in sets, t.version
        for idx, _v in t.torchaudio_on + t.python_on:
            assert idx in t.indexes, t.version
        assert t.python_status in STATUSES
        for py in t.python:
            assert re.fullmatch(r"3\.\d+", py), t.version


def test_torch_releases_cross_reference_existing_indexes():
    versions = []
    for t in wheels.torch_releases():
        Version(t.version)
        versions.append(t.version)
        _tags_ok(t.sources)
        assert t.indexes or t.status == "preview", t.version  # a preview is known, never installed
        for name in t.indexes:
            assert wheels.index(name) is not None, f"{t.version} names unknown index {name}"
        assert set(dict(t.index_status)) == set(t.indexes), t.version
        assert all(v in STATUSES for v in dict(t.index_status).values())
        if t.torchvision:
            Version(t.torchvision)
        if t.torchaudio:
            Version(t.torchaudio)
        if t.triton_version:
            Version(t.triton_version)
            assert t.triton_dist in ("pytorch-triton-rocm", "triton-rocm")
    assert len(versions) == len(set(versions))


def test_triton_distribution_is_renamed_from_210():
    for t in wheels.torch_releases():
        if t.triton_dist is None:
            continue
        expected = "triton-rocm" if Version(t.version) >= Version("2.10") else "pytorch-triton-rocm"
        assert t.triton_dist == expected, t.version


def test_no_patch_level_index_of_the_seed_exists():
    assert wheels.index("rocm6.4.3") is None and wheels.index("rocm6.3.3") is None


# ---------------------------------------------------------------- docker and overrides
def test_docker_tags_parse_and_have_sources():
    tags = docker.tags()
    assert len(tags) >= 10
    names = [t.tag for t in tags]
    assert len(names) == len(set(names))
    for t in tags:
        Version(t.rocm)
        Version(t.torch)
        assert t.ubuntu in ("22.04", "24.04", "26.04")
        # the legacy images drop a trailing .0 of the ROCm part; the Core SDK's may keep it (rocm10.1.0)
        assert Version(t.rocm).major >= 10 or not re.search(r"rocm\d+\.\d+\.0_", t.tag), t.tag
        _tags_ok(t.sources)
        assert t.status in STATUSES and (t.status == "preview") == t.tag.endswith("_preview")
        for g in t.gfx_observed + t.gfx:
            assert g in KNOWN_GFX
        # an image whose ROCm is no apt release of the catalog names its GPUs (else they are unknown)
        assert releases.resolve(t.rocm) is not None or t.gfx or Version(t.rocm) < Version("7.14"), t.tag
    for t in docker.vllm_tags():
        assert t.vllm and t.arch in ("", "rdna", "cdna") and t.status in STATUSES
        _tags_ok(t.sources)
    _tags_ok(docker.run_flags_sources())
    _tags_ok(docker.dev_images().sources)


def test_overrides_are_community_with_known_targets():
    seen = set()
    for o in overrides.all_overrides():
        assert o.gfx not in seen
        seen.add(o.gfx)
        assert o.status == "community"
        assert o.gfx in KNOWN_GFX
        target = overrides.gfx_of_value(o.value)
        assert target in KNOWN_GFX, f"{o.gfx} -> {o.value}"
        _tags_ok(o.sources)
        if o.native_from:
            assert releases.get(o.native_from) is not None
    pv = overrides.pre_vega()
    assert pv.status == "community" and pv.variable == "ROC_ENABLE_PRE_VEGA"
    _tags_ok(pv.sources)
    assert all(g in KNOWN_GFX for g in pv.applies_to)
    assert overrides.no_override("gfx803") is not None


# ---------------------------------------------------------------- the rule registry
def test_rule_registry_lint_is_clean():
    assert registry_check() == []


def test_rule_ids_are_unique_and_many():
    ids = rule_ids_in_file()
    assert len(ids) == len(set(ids)) and len(ids) >= 20
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i) for i in ids)


@pytest.mark.parametrize("rid", sorted(rules()))
def test_each_rule_has_sources_and_plain_text(rid):
    meta = rules()[rid]
    _tags_ok(meta.sources)
    assert meta.looks_at
    assert len(meta.explanation) > 60


# ---------------------------------------------------------------- compatibility rules (compat.toml)
def test_compat_rules_cite_known_sources_and_read_their_own_examples():
    from rocm_wizard.catalog import compat

    _tags_ok(compat.all_sources())
    ids = [c.id for c in compat.constraints()]
    assert len(ids) == len(set(ids))
    for c in compat.constraints():
        assert c.sources and c.paths and c.on_unknown in ("allow", "reject")
    assert set(compat.path_order()) == {"torch-reinstall", "docker", "rocm-upgrade"}
    examples = compat.driver_train_examples()
    assert examples
    for version, train in examples:
        assert compat.driver_train_of_package(version) == train, version
        assert compat.window_of(train) is not None, train
