"""Behaviour of the catalog helpers the other parts of the wizard build on."""
from __future__ import annotations

from rocm_wizard.catalog import docker, overrides, releases, support, wheels


def test_get_and_resolve():
    assert releases.get("6.4.3").apt_dir == "6.4.3"
    assert releases.get("6.4").version == "6.4.0"  # 6.4 == 6.4.0
    assert releases.get("6.9.9") is None and releases.get("garbage") is None and releases.get(None) is None
    assert releases.resolve("6.4").version == "6.4.4"
    assert releases.resolve("rocm6.3").version == "6.3.4"
    assert releases.resolve("7").version == "7.14.1"  # 7.9+ is the Core SDK stream: newest 7.x
    assert releases.resolve("7.2").stream == "legacy" and releases.resolve("10").version == releases.newest().version
    assert releases.resolve("latest") is releases.newest()
    assert releases.resolve("6.5") is None and releases.resolve("x.y") is None


def test_apt_dir_rule_also_for_unknown_releases():
    assert releases.apt_dir("7.0.0") == "7.0"
    assert releases.apt_dir("6.5.0") == "6.5" and releases.apt_dir("6.5.2") == "6.5.2"
    assert releases.apt_dir("nope") is None


def test_urls_default_and_mirrored():
    assert releases.key_url() == "https://repo.radeon.com/rocm/rocm.gpg.key"
    assert releases.key_url("http://m.lan/radeon/") == "http://m.lan/radeon/rocm/rocm.gpg.key"
    assert releases.rocm_repo_url("6.4.0") == "https://repo.radeon.com/rocm/apt/6.4"
    assert releases.amdgpu_repo_url("6.2.4") == "https://repo.radeon.com/amdgpu/6.2.4/ubuntu"
    assert releases.amdgpu_repo_url("7.1.1") == "https://repo.radeon.com/amdgpu/30.20.1/ubuntu"
    assert releases.amdgpu_repo_url("7.0.0") is None  # not known: amdgpu-install writes it
    assert releases.graphics_repo_url("7.2.0") == "https://repo.radeon.com/graphics/7.2/ubuntu"
    assert releases.graphics_repo_url("6.4.3") is None
    assert releases.amdgpu_install_url("7.0.2", "noble", "http://m.lan/r") == \
        "http://m.lan/r/amdgpu-install/7.0.2/ubuntu/noble/amdgpu-install_7.0.2.70002-1_all.deb"


def test_722_uses_the_directories_amd_falls_back_to():
    lines = dict((line.split()[3], f) for f, line in releases.apt_lines("7.2.2", "noble"))
    assert "https://repo.radeon.com/graphics/7.2.1/ubuntu" in lines
    # errata 2026-11-26 (AMD staff in ROCm/ROCm#6156): 7.2.2's amdgpu-install writes amdgpu/30.30.2
    assert "https://repo.radeon.com/amdgpu/30.30.2/ubuntu" in lines
    assert "https://repo.radeon.com/rocm/apt/7.2.2" in lines
    lines = dict((line.split()[3], f) for f, line in releases.apt_lines("7.2.1", "noble"))
    assert "https://repo.radeon.com/amdgpu/30.30.1/ubuntu" in lines  # 7.2.1 <-> 30.30.1, not 30.30.2


def test_pin_text_is_amds_file():
    assert releases.pin_text() == "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n"


def test_codenames_and_package_versions():
    assert releases.codename("22.04.5") == "jammy" and releases.codename("24.04") == "noble"
    assert releases.codename("18.04") is None
    assert releases.version_from_package("6.4.3.60403-128~22.04") == "6.4.3"
    assert releases.version_from_package("5.4.3.50403-121~22.04") == "5.4.3"
    assert releases.version_from_package("garbage") is None


def test_supported_ubuntu_and_kernels():
    r = releases.get("7.0.2")
    assert r.supports_ubuntu("24.04") and r.supports_ubuntu("22.04.5") and not r.supports_ubuntu("20.04")
    assert "6.14" in r.kernel_series("24.04")
    assert releases.get("6.1.2").supports_ubuntu("20.04")


def test_upgrade_target():
    # a host with a legacy install stays in the legacy stream (the policy series, or its own newer one)
    assert releases.upgrade_target(["gfx1100"], "22.04", host="6.2.4").series == releases.policy_series()
    # the policy on 2026-11-26 is 7.2 (7.2.4, the last legacy release): a 7.1 host moves up to it
    assert releases.policy_series() == "7.2"
    assert releases.upgrade_target(["gfx1100"], "24.04", host="7.1.1").version == "7.2.4"
    assert releases.upgrade_target(["gfx950"], "24.04", host="6.4.1").version == "7.2.4"
    # legacy 7.2.1-7.2.4 list gfx1150/gfx1151 (AMD rdna3-5.rst)
    assert releases.upgrade_target(["gfx1151"], "24.04", host="7.2.0").version == "7.2.4"
    assert "gfx1150" not in releases.get("7.2.0").gfx_official and "gfx1150" in releases.get("7.2.1").gfx_official
    assert releases.upgrade_target(["gfx1100"], "20.04", host="6.1.2").series == "6.1"  # the newest listing focal
    assert releases.upgrade_target(["gfx803"]) is None
    assert releases.upgrade_target(["gfx1100"], "18.04") is None
    assert releases.upgrade_target([]) is None
    # no ROCm yet, an OS only the Core SDK serves, or a Core SDK host: the Core SDK series
    assert releases.upgrade_target(["gfx1100"], "22.04").version == "10.0.0" == releases.core_series() + ".0"
    assert releases.upgrade_target(["gfx1100"], "26.04", host="6.4.3").version == "10.0.0"
    # 10.1 where only its lists name the OS and kernel: Ubuntu 24.04.5 with HWE 7.0, 26.04.1
    assert releases.upgrade_target(["gfx1100"], os_id="ubuntu", os_version="24.04.5", kernel="7.0.0-14-generic").version == "10.1.0"
    assert releases.upgrade_target(["gfx1100"], os_id="ubuntu", os_version="24.04.5", kernel="6.8.0-60-generic").version == "10.0.0"
    assert releases.upgrade_target(["gfx1100"], os_id="ubuntu", os_version="26.04.1", kernel="7.0.0-14-generic").version == "10.1.0"
    assert releases.upgrade_target(["gfx1100"], os_id="ubuntu", os_version="26.04", kernel="7.0.0-14-generic").version == "10.0.0"
    assert releases.core_series("debian", "13", "6.12.38") == "10.0"
    assert releases.upgrade_target(["gfx1151"], "24.04", host="10.1.0").stream == "core-sdk"
    assert releases.upgrade_target(["gfx90a"], os_id="debian", os_version="12").version == "10.0.0"
    assert releases.upgrade_target(["gfx1100"], os_id="debian", os_version="12") is None  # Debian: Instinct only
    assert releases.upgrade_target(["gfx1100"], "20.04").series == "6.1"  # no Core SDK for focal


def test_streams_order_by_version_not_by_text():
    assert releases.stream_of("7.2.4") == "legacy" and releases.stream_of("7.14.0") == "core-sdk"
    assert releases.stream_of("10.0.0") == "core-sdk" and releases.stream_of("x") is None
    order = [r.version for r in releases.all_releases()]
    assert order.index("7.2.3") < order.index("7.14.0") < order.index("10.0.0") < order.index("10.1.0")


def test_wheels_lookups():
    assert [i.name for i in wheels.indexes_for("2.5.1+rocm6.2")] == ["rocm6.2", "rocm6.1"]
    assert wheels.index_has_gfx("rocm6.2", "gfx1101") is False
    assert wheels.index_has_gfx("rocm6.1", "gfx1101") is None  # only 2.6.0 there may carry it (inferred)
    assert wheels.index_has_gfx("rocm6.3", "gfx1101") is True
    assert wheels.index_has_gfx("rocm5.7", "gfx1100") is None  # list unknown
    assert wheels.index_has_gfx("rocm9.9", "gfx1100") is None
    # the gfx list belongs to the torch release, not the index: torch 2.5.1 on rocm6.1 has no gfx1101
    assert wheels.wheel_has_gfx("2.5.1", "rocm6.1", "gfx1101") is False
    assert wheels.wheel_has_gfx("2.6.0", "rocm6.1", "gfx1101") is None  # inferred from PR dates: not proof
    assert wheels.wheel_has_gfx("2.6.0", "rocm6.1", "gfx1100") is True
    assert wheels.wheel_has_gfx("2.7.1", "rocm6.3", "gfx1101") is True
    assert wheels.wheel_has_gfx("2.6.0", "rocm6.2.4", "gfx1201") is False
    assert wheels.wheel_has_gfx("2.12.0", "rocm7.2", "gfx1103") is False
    assert wheels.wheel_has_gfx("2.13.0", "rocm7.2", "gfx1103") is True
    assert wheels.wheel_gfx("2.14.0", "rocm7.14").name != wheels.wheel_gfx("2.14.0", "rocm7.2").name
    assert wheels.best_index("2.5.1", ["gfx1101"]) is None
    assert wheels.best_index("2.5.1", ["gfx1200"]) is None
    assert wheels.wheel_for_python("2.4.1", "3.13") is False
    assert wheels.wheel_for_python("2.6.0", "3.13.1") is True
    assert wheels.wheel_for_python("2.8.0", "3.12") is True  # RELEASE.md: 2.8 >=3.9, <=3.13
    assert wheels.wheel_for_python("2.8.0", "3.14") is False
    assert wheels.wheel_for_python("2.1.2", "3.12") is False  # RELEASE.md: 2.1 >=3.8, <=3.11
    assert wheels.index("rocm7.14").userspace == "rocm-pip" and wheels.index("rocm7.2").userspace == "bundled"
    assert wheels.triton_requirement("2.5.1") == "pytorch-triton-rocm==3.1.0"
    assert wheels.triton_requirement("2.10.0+rocm7.1") == "triton-rocm==3.6.0"
    assert wheels.triton_requirement("2.3.1") is None  # not verified
    assert wheels.triton_dist("2.10.0") == "triton-rocm"
    assert wheels.index_url("rocm6.2.4") == "https://download.pytorch.org/whl/rocm6.2.4"
    assert wheels.index("https://download.pytorch.org/whl/rocm6.3/").name == "rocm6.3"


def test_version_labels():
    assert wheels.index_of_version("2.5.1+rocm6.2") == "rocm6.2"
    assert wheels.index_of_version("2.6.0+rocm6.4.1.git1ded221d") is None  # AMD's build, not an index
    assert wheels.index_of_version("2.6.0+rocm6.4.3") is None  # no such index
    assert wheels.rocm_of_version("2.10.0a0+rocm7.9.0rc20251007") == "7.9.0"
    assert wheels.build_of_version("2.5.1+cu121") == "cuda"
    assert wheels.build_of_version("2.13.0+cpu") == "cpu"
    assert wheels.build_of_version("2.5.1") is None
    assert wheels.public_version("2.9.0.dev20250706+rocm6.4") == "2.9.0.dev20250706"


def test_install_requirements_and_pairings():
    assert wheels.install_requirements("2.4.1") == ["torch==2.4.1", "torchvision==0.19.1", "torchaudio==2.4.1",
                                                   "pytorch-triton-rocm==3.0.0"]
    assert wheels.install_requirements("1.0") == []
    pairs = wheels.pairings(["gfx1201"])
    assert pairs and all(wheels.wheel_has_gfx(t, i, "gfx1201") for t, i in pairs)
    assert all(t.installable for t, _i in pairs)
    assert ("2.6.0", "rocm6.2.4") not in [(t.version, i.name) for t, i in pairs]
    assert wheels.pairings(["gfx803"]) == []
    assert wheels.bundles_userspace() is True


def test_amd_indexes_device_extras_and_rocm_wheels():
    # AMD's indexes (rocm-2026.md 1.6, 2.2): torch/torchvision with the GPU's device extra, the rocm
    # wheels of the release pinned with them, torchaudio as AMD re-versions it, no Triton pin
    idx = wheels.index("amd-rocm7.14.0")
    assert idx.amd and idx.url() == "https://repo.amd.com/rocm/whl-multi-arch" and idx.userspace == "rocm-pip"
    assert wheels.index_url("amd-rocm7.14.0", "http://mirror.example/whl") == idx.url()  # not a PyTorch mirror
    t = wheels.torch_release("2.12.0")
    assert wheels.requirements(t, idx, ["gfx1031"]) == [
        "torch[device-gfx1031]==2.12.0+rocm7.14.0", "torchvision[device-gfx1031]==0.27.0+rocm7.14.0",
        "torchaudio==2.12.0+rocm7.14.0", "rocm[libraries,device-gfx1031]==7.14.0"]
    assert wheels.requirements(t, idx, [])[0] == "torch[device-all]==2.12.0+rocm7.14.0"
    assert wheels.requirements(t, wheels.index("rocm7.2"), ["gfx1100"]) == [
        "torch==2.12.0+rocm7.2", "torchvision==0.27.0+rocm7.2", "torchaudio==2.11.0+rocm7.2", "triton-rocm==3.7.0"]
    assert wheels.requirements(wheels.torch_release("2.13.0"), wheels.index("amd-rocm10.0.0"), ["gfx1152"])[2] == \
        "torchaudio==2.11.0.2+rocm10.0.0"
    # the label names the index; a nightly/preview index is never one a version is mapped to
    assert wheels.index_of_version("2.12.0+rocm7.14.0") == "amd-rocm7.14.0"
    assert wheels.index_of_version("2.14.0+rocm7.14") == "rocm7.14"
    assert wheels.index("amd-nightly").status == "preview" and not wheels.releases_on("amd-nightly")
    # Python per index: AMD's 7.14 index has no cp310 wheels; 10.0's range is not known
    assert wheels.wheel_for_python(t, "3.10", "amd-rocm7.14.0") is False
    assert wheels.wheel_for_python(t, "3.10", "rocm7.2") is True
    assert wheels.wheel_for_python("2.13.0", "3.12", "amd-rocm10.0.0") is None
    # gfx1031 and gfx1152: only AMD's indexes serve them; gfx1103 only from 2.13 on PyTorch's
    assert wheels.wheel_has_gfx(t, "rocm7.2", "gfx1031") is False and wheels.wheel_has_gfx(t, idx, "gfx1031")
    assert wheels.wheel_has_gfx(t, "rocm7.2", "gfx1103") is False
    assert wheels.wheel_has_gfx("2.13.0", "rocm7.2", "gfx1103") is True


def test_torch_policy_is_data_with_reasons():
    from rocm_wizard.catalog import sources

    assert wheels.policy_series() == "7.2"
    assert wheels.policy_sources() and all(sources.get(t) for t in wheels.policy_sources())


def test_docker_pick_tag():
    assert docker.pick_tag(rocm="6.4", ubuntu="24.04").tag == "rocm6.4.3_ubuntu24.04_py3.12_pytorch_release_2.6.0"
    assert docker.pick_tag(torch="2.8").rocm == "7.0"
    assert docker.pick_tag(rocm="6.3.3", python="3.9").torch == "1.13.1"
    assert docker.pick_tag(rocm="9.9") is None
    assert docker.pick_tag(rocm="7.0.0").rocm == "7.0"  # no trailing .0 in tags
    t = docker.parse_tag("rocm/pytorch:rocm6.1_ubuntu22.04_py3.10_pytorch_2.1.2")
    assert (t.rocm, t.torch) == ("6.1", "2.1.2")
    assert docker.parse_tag("latest") is None
    argv = docker.run_argv("rocm6.4.3_ubuntu24.04_py3.12_pytorch_release_2.6.0")
    assert argv[:3] == ["docker", "run", "-it"] and argv[-1].startswith("rocm/pytorch:")
    assert "--device=/dev/kfd" in argv and "--device=/dev/dri" in argv


def test_docker_tags_of_2026():
    # rocm-2026.md 4: rocm10.1.0 keeps its .0, rocm/vllm's _rdna/_cdna infix, _preview suffix, -full dev images
    t = docker.parse_tag("rocm/pytorch:rocm10.1.0_ubuntu26.04_py3.14_pytorch_release_2.14.0")
    assert (t.rocm, t.ubuntu, t.python, t.torch) == ("10.1.0", "26.04", "3.14", "2.14.0")
    v = docker.parse_tag("rocm7.14.0_rdna_ubuntu24.04_py3.14_pytorch_2.11.0_vllm_0.23.0")
    assert (v.rocm, v.arch, v.torch, v.vllm) == ("7.14.0", "rdna", "2.11.0", "0.23.0")
    assert docker.parse_tag("rocm6.3_ubuntu22.04_py3.10_pytorch_release_2.5.0_preview", "documented").status == "preview"
    assert {t.arch for t in docker.vllm_tags()} == {"", "rdna", "cdna"}
    # the newest documented image is a Core SDK one, with the Core SDK's GPU list; never a preview
    best = docker.pick_tag(ubuntu="24.04")
    assert best.rocm == "7.14.1" and best.status == "documented" and "gfx1152" in best.gfx and "gfx1031" not in best.gfx
    assert docker.pick_tag(rocm="7.2.4").torch == "2.10.0"
    assert docker.pick_tag(rocm="6.3", python="3.10", torch="2.5.0") is None  # only the _preview image has it
    assert "7.14.0-full" in docker.dev_images().tags


def test_overrides_and_support():
    assert overrides.for_gfx("gfx1032").value == "10.3.0"
    assert overrides.for_gfx("amdgcn-amd-amdhsa--gfx1103").value == "11.0.0"
    assert overrides.for_gfx("gfx1100") is None
    assert overrides.gfx_of_value("9.0.10") == "gfx90a"
    assert overrides.gfx_of_value("bogus") is None
    assert support.normalize_gfx("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-") == "gfx90a"
    assert support.normalize_gfx("gfx000") is None and support.normalize_gfx(None) is None
    assert support.is_official("gfx1101", "6.4.1") and not support.is_official("gfx1101", "6.4.0")
    assert support.status("gfx1101", "6.2.4").level == "limited"
    assert support.status("gfx906", "6.4.3").level == "unsupported"
    assert support.status("gfx906", "6.1.0").level == "deprecated"
    assert support.status("gfx1100", "9.9.9").level == "unknown-release"
    assert support.first_official("gfx1201").version == "6.4.1"
    assert support.first_official("gfx950").version == "7.0.0"
    assert not support.has_official_build("gfx803") and support.has_official_build("gfx1102")


def test_ubuntu_releases_table():
    from rocm_wizard.catalog import ubuntu

    rows = ubuntu._rows()
    assert all(r["source"].strip() for r in rows)
    assert len({r["version"] for r in rows}) == len(rows) == len({r["codename"] for r in rows})
    assert ubuntu.codename("22.04.5") == "jammy" and ubuntu.version_of("noble") == "24.04"
    assert ubuntu.ga_kernel("22.04")[0] == "5.15" and ubuntu.ga_kernel("24.04")[0] == "6.8"
    assert ubuntu.ga_kernel("25.04") is None and ubuntu.codename("99.04") is None
    # 2026: 26.04 resolute (kernel 7.0), the 24.04 point releases' HWE kernels, Debian 12/13
    assert ubuntu.codename("26.04") == "resolute" and ubuntu.ga_kernel("26.04")[0] == "7.0"
    assert ubuntu.hwe_kernel("24.04.4")[0] == "6.17" and ubuntu.hwe_kernel("24.04.5")[0] == "7.0"
    assert ubuntu.hwe_kernel("24.04.1") is None
    assert ubuntu.codename("13", "debian") == "trixie" and ubuntu.codename("12.5", "debian") == "bookworm"
    assert ubuntu.ga_kernel("13", "debian")[0] == "6.12" and ubuntu.codename("13") is None


def test_compat_window_trains_and_wsl():
    from rocm_wizard.catalog import compat

    assert compat.driver_train_of_package("6.8.5") is None  # a bare dkms base names no train
    assert compat.driver_train_of_package("amdgpu version: 7.1.9.31600000") == "31.60"
    assert compat.driver_train_of_rocm("7.2.1") == "30.30"
    assert compat.driver_train_of_rocm("6.4.3") == "6.4"
    assert compat.in_window("6.2", "7.0") == (True, "documented")
    assert compat.in_window("6.2", "7.2")[0] is False  # a ROCm 7.2 user space on a 6.2 driver
    assert compat.in_window("5.7", "6.4")[0] is False
    assert compat.in_window("30.30", "10.1")[0] is None  # beyond AMD's table: unknown, not supported
    assert compat.in_window("6.2", "10.1")[0] is False  # ...but a window that closes inside it stays closed
    assert compat.in_window(None, "6.4")[0] is None
    assert compat.wsl_supports("gfx1030", "7.2")[0] is False
    assert compat.wsl_supports("gfx1100", "6.1.3")[0] is True
    assert compat.wsl_supports("gfx1100", "6.0.2")[0] is False  # before the first WSL release
    assert compat.wsl_supports("gfx1101", "7.2", "AMD Radeon RX 7800 XT")[0] is True
    assert compat.wsl_supports("gfx1101", "7.2", "AMD Radeon RX 7700 XT")[0] is False
    assert compat.wsl_supports("gfx1101", "6.4")[0] is False
    assert compat.not_torch_workloads("time=... level=INFO source=gpu.go msg=\"ollama\"") == ["ollama"]
