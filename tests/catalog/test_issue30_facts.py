"""Issue 30: the facts the errata of 2026-11-26 corrected, each with its source and status."""
from __future__ import annotations

from rocm_wizard.catalog import compat, coresdk, releases, sources, wheels


def _sourced(tags, *want):
    for t in tags:
        assert sources.get(t) is not None, t
    assert set(want) <= set(tags), (want, tags)


def test_amd_101_index_carries_torchvision_0290a0():
    t = wheels.torch_release("2.14.0")
    reqs = wheels.requirements(t, wheels.index("amd-rocm10.1.0"), ["gfx1151"])
    assert "torchvision[device-gfx1151]==0.29.0a0+rocm10.1.0" in reqs
    assert not any(r.startswith("torchvision[device-gfx1151]==0.29.0+") for r in reqs)
    # PyTorch's own index keeps 0.29.0
    assert "torchvision==0.29.0" in wheels.install_requirements("2.14.0")
    _sourced(t.sources, "amd-index-101-pins")


def test_legacy_72_driver_directories():
    assert releases.get("7.2.1").amdgpu_dir == "30.30.1"
    assert releases.get("7.2.2").amdgpu_dir == "30.30.2"
    _sourced(releases.get("7.2.1").sources, "rocm-6156")


def test_torch_2121_pins_triton_371():
    t = wheels.torch_release("2.12.1")
    assert t.triton_requirement == "triton-rocm==3.7.1" and t.triton_status == "third-party"
    _sourced(t.sources, "triton-2121-pins")


def test_legacy_72_lists_strix_from_721():
    for v in ("7.2.1", "7.2.2", "7.2.3", "7.2.4"):
        rel = releases.get(v)
        assert {"gfx1150", "gfx1151"} <= set(rel.gfx_official), v
        _sourced(rel.sources, "amd-rdna35-rst")
    assert "gfx1151" not in releases.get("7.2.0").gfx_official


def test_amd_714_index_has_210_211_and_7141_builds():
    assert "amd-rocm7.14.0" in wheels.torch_release("2.11.0").indexes
    assert "amd-rocm7.14.0" in wheels.torch_release("2.10.0").indexes
    assert wheels.torch_release("2.11.0").torchvision == "0.26.0"
    assert wheels.torch_release("2.10.0").torchvision == "0.25.0"
    idx = wheels.index("amd-rocm7.14.1")
    assert idx is not None and idx.label == "rocm7.14.1" and idx.rocm_pin == "7.14.1"
    assert "amd-rocm7.14.1" in wheels.torch_release("2.12.0").indexes
    assert wheels.torch_release("2.11.0").status_on("amd-rocm7.14.0") == "observed"


def test_legacy_key_expired_in_august_2023():
    note = releases.repo().key_note
    assert "Aug 2023" in note and "Dec 2023" in note  # the old claim is named as corrected


def test_driver_rows_53_to_56_are_documented():
    from rocm_wizard.catalog._data import load

    rows = {r["train"]: r for r in load("compat.toml")["kmd_window"]["driver"]}
    for train in ("5.3", "5.4", "5.5", "5.6"):
        assert rows[train]["status"] == "documented", train
    assert compat.in_window("5.6", "5.7") == (True, "documented")


def test_wsl_facts():
    assert compat.wsl_first_release() == "6.1.3"
    facts = compat.wsl_facts()
    assert facts["first_adrenalin"] == "24.6.1"
    assert facts["librocdxg_from"] == "7.2" and facts["dxg_env"] == "HSA_ENABLE_DXG_DETECTION=1"
    assert facts["hsa_removal_until"] == "6.4" and "libhsa-runtime64.so" in facts["hsa_removal"]
    # RDNA2 is never supported under WSL
    for rocm in ("6.1.3", "6.4.2", "7.2.1", "10.0.0"):
        assert compat.wsl_supports("gfx1030", rocm, "AMD Radeon RX 6800 XT")[0] is False
    # gfx1152 on the 10.x WSL list for two products only
    assert compat.wsl_supports("gfx1152", "10.0.0", "AMD Ryzen AI 7 PRO 450 w/ Radeon 860M")[0] is True
    assert compat.wsl_supports("gfx1152", "10.0.0", "AMD Ryzen AI 5 340 w/ Radeon 840M")[0] is False
    assert compat.wsl_supports("gfx1152", "10.0.0", "")[0] is None
    assert compat.wsl_supports("gfx1152", "7.2.1", "AMD Ryzen AI 7 PRO 450")[0] is False


def test_torch_2141_is_known_and_2150_never_proposed():
    t = wheels.torch_release("2.14.1")
    assert t.torchvision == "0.29.1" and t.installable and set(t.indexes) == {"rocm7.2", "rocm7.14"}
    _sourced(t.sources, "pytorch-published-versions")
    nxt = wheels.torch_release("2.15.0")
    assert nxt.status == "preview" and not nxt.installable and nxt.indexes == ()
    assert ">=3.11" in nxt.note and "triton~=3.9.0" in nxt.note
    _sourced(nxt.sources, "pypi-torch-2150")


def test_policy_defaults_have_reasons():
    assert releases.policy_series() == "7.2"
    assert releases.upgrade_target(["gfx1100"], "22.04", host="6.2.4").version == "7.2.4"
    assert releases.core_series("ubuntu", "24.04.5", "7.0.0-14-generic") == "10.1"
    assert releases.core_series("ubuntu", "26.04.1", "7.0.0-14-generic") == "10.1"
    assert releases.core_series("ubuntu", "24.04.4", "6.17.0-19-generic") == "10.0"
    for tag in releases.policy_sources() + wheels.policy_sources():
        assert sources.get(tag) is not None, tag


def test_coresdk_per_product_debian_lists():
    r = releases.get("10.0.0")
    assert coresdk.gfx_supported_on(r, "debian", "gfx908", "12", "AMD Instinct MI100") is False
    assert coresdk.gfx_supported_on(r, "debian", "gfx90a", "12", "AMD Instinct MI210") is False
    assert coresdk.gfx_supported_on(r, "debian", "gfx90a", "12", "AMD Instinct MI250X") is True
    assert coresdk.gfx_supported_on(r, "debian", "gfx90a", "13", "AMD Instinct MI250X") is False
    assert coresdk.gfx_supported_on(r, "debian", "gfx942", "13", "AMD Instinct MI300A") is False
    assert coresdk.gfx_supported_on(r, "debian", "gfx950", "12", "AMD Instinct MI350P") is False
    assert coresdk.gfx_supported_on(r, "debian", "gfx950", "13", "AMD Instinct MI350P") is True
    assert coresdk.gfx_supported_on(r, "debian", "gfx1100", "13", "AMD Radeon RX 7900 XTX") is False
    assert coresdk.gfx_supported_on(r, "debian", "gfx90a", "12", "") is None  # the product decides
    # Ryzen APUs: not on Ubuntu 22.04 with the Core SDK 10.x
    assert coresdk.gfx_supported_on(r, "ubuntu", "gfx1151", "22.04") is False
    assert coresdk.gfx_supported_on(r, "ubuntu", "gfx1100", "22.04") is True


def test_torch_policy_2141_only_where_its_kernels_are_proven():
    from rocm_wizard.resolve import resolver
    from rocm_wizard.resolve.facts import Facts, GpuFact

    assert wheels.policy_torch() == "2.14.1"
    assert [i.name for i in wheels.indexes_for("2.14.1")] and {i.name for i in wheels.indexes_for("2.14.1")} == {
        "rocm7.2", "rocm7.14"}
    # its rocm7.2 arch list was not read: a known GPU gets 2.13.0+rocm7.2, 2.14.1 is not known to carry it
    f = Facts(gpus=[GpuFact("gfx1100", "AMD Radeon RX 7900 XTX", False)], python="3.12", driver_train="30.30",
              os_id="ubuntu", os_version="24.04")
    res = resolver.torch_ways(f)
    assert res.best.key == "2.13.0+rocm7.2"
    c = [w for w in res.rejected if w.key == "2.14.1+rocm7.2"][0].check("wheel-has-gfx")
    assert c.verdict == "unknown" and "inferred" in c.detail
    # 2.15.0 is never among the candidates
    assert not any(w.key.startswith("2.15.0") for w in res.offered + res.rejected)


def test_coresdk_kernel_lists_per_family():
    """10.0 on Ubuntu 24.04.4: GA 6.8 for Instinct, HWE 6.17 for Radeon, OEM 6.17 for Ryzen APUs;
    10.1 on 24.04.5: HWE 7.0 for Radeon and Ryzen (os-support.yaml, 10.1 release notes)."""
    from rocm_wizard.resolve import resolver
    from rocm_wizard.resolve.facts import Facts, GpuFact

    r100, r101 = releases.get("10.0.0"), releases.get("10.1.0")
    assert coresdk.family_of("gfx942") == "instinct" and coresdk.family_of("gfx1151") == "ryzen"
    assert coresdk.family_of("gfx1100") == "radeon"
    assert coresdk.family_kernels(r100, "radeon", "24.04") == ("6.17",)
    assert coresdk.family_kernels(r100, "instinct", "24.04") == ("6.8",)
    assert coresdk.family_kernels(r100, "ryzen", "22.04") == ()
    assert coresdk.family_kernels(r101, "radeon", "24.04") == ("7.0",)

    def verdict(gfx, kernel, rel):
        f = Facts(gpus=[GpuFact(gfx, "x", False)], os_id="ubuntu", os_version="24.04", kernel=kernel)
        return [c for c in resolver.rocm_checks(f, rel) if c.constraint == "rocm-supports-os"][0]

    assert verdict("gfx1100", "6.8.0-60-generic", r100).verdict == "unknown"  # GA kernel: Instinct's
    assert "radeon GPUs" in verdict("gfx1100", "6.8.0-60-generic", r100).detail
    assert verdict("gfx942", "6.8.0-60-generic", r100).verdict == "satisfied"
    assert verdict("gfx1100", "6.17.0-19-generic", r100).verdict == "satisfied"


def test_torch_2141_gpu_lists_are_sourced_and_stay_unknown_until_a_wheel_is_read():
    """Issue 30: torch 2.14.1's lists from the stack's sources (pytorch's manywheel build.sh before
    and after the 2.14 cut; PyPI's 2.14.1 METADATA), each with its status: neither release/2.14 nor
    a ROCm wheel could be read, so both sets stay inferred and the resolver keeps them unknown."""
    t = wheels.torch_release("2.14.1")
    on72, on714 = wheels.wheel_gfx("2.14.1", "rocm7.2"), wheels.wheel_gfx("2.14.1", "rocm7.14")
    assert on72.status == "inferred" and on714.status == "inferred"
    _sourced(on72.sources, "pytorch-manywheel-build-main-2607")
    _sourced(on72.sources, "pytorch-manywheel-build-2-13")
    _sourced(on714.sources, "pytorch-manywheel-build-main-2607")
    # the 7.2.1 image: the 2.13 list (gfx900/gfx906 included; rocBLAS's gap is a [[library]] fact)
    assert set(on72.gfx) == set(wheels.wheel_gfx("2.13.0", "rocm7.2").gfx)
    # the 7.14 path: torch's own 13 targets -- no gfx900/gfx906, and not the Core SDK's gfx1152/gfx1153
    assert len(on714.gfx) == 13 and not {"gfx900", "gfx906", "gfx1152", "gfx1153"} & set(on714.gfx)
    assert "gfx1103" in on714.gfx and "gfx950" in on714.gfx
    assert t.triton_status == "inferred" and "triton~=3.8.0" in t.note and "Requires-Python >=3.10" in t.note
    _sourced(t.sources, "pypi-torch-2141")
