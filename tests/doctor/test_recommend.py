"""The ways out: which apply, their exact targets, their order, and why a path does not apply."""
from __future__ import annotations

import json

from _doctor_systems import gpu, healthy, torch_env
from rocm_wizard.doctor import diagnose
from rocm_wizard.model import AptPin, RocmInfo


def _rec(d, path):
    r = d.recommendation(path)
    assert r is not None
    return r


def test_every_path_is_always_present_and_json_able():
    d = diagnose(healthy())
    assert sorted(r.path for r in d.recommendations) == ["docker", "rocm-upgrade", "torch-reinstall"]
    json.dumps(d.to_dict())


def test_healthy_box_keeps_its_rocm_and_gets_exact_targets():
    d = diagnose(healthy())
    up = _rec(d, "rocm-upgrade")
    # the policy is 7.2.4 (the last legacy release): offered after the torch way, saying nothing is wrong
    assert up.applies and up.rank == 3 and up.target["rocm"] == "7.2.4" and up.why.startswith("No problem found")
    t = _rec(d, "torch-reinstall")
    assert t.applies and t.rank == 1
    assert t.target["torch"] == "2.8.0" and t.target["index"] == "rocm6.4"
    assert t.target["requirements"] == ["torch==2.8.0", "torchvision==0.23.0", "torchaudio==2.8.0",
                                        "pytorch-triton-rocm==3.4.0"]
    assert t.target["index_url"] == "https://download.pytorch.org/whl/rocm6.4"
    assert t.why.startswith("No problem found")
    dk = _rec(d, "docker")
    assert dk.applies and dk.target["image"] == "rocm/pytorch:rocm7.0_ubuntu22.04_py3.10_pytorch_release_2.8.0"
    assert "--device=/dev/kfd" in dk.target["flags"]
    # what a way does is its plan's, not a recipe of the doctor's own (issue 30: one renderer per way out)
    assert all(r.steps == [] for r in d.recommendations)


def test_ranks_are_consecutive_for_applicable_paths():
    d = diagnose(healthy())
    ranks = [r.rank for r in d.recommendations if r.applies]
    assert ranks == list(range(1, len(ranks) + 1))
    assert all(r.rank is None and r.why for r in d.recommendations if not r.applies)


def test_docker_does_not_apply_without_a_daemon():
    sysm = healthy()
    sysm.docker.daemon = False
    r = _rec(diagnose(sysm), "docker")
    assert not r.applies and "daemon is not reachable" in r.why
    sysm.docker.daemon = None
    sysm.docker.client = None
    # a snapshot with no Docker output at all: not evidence that Docker is absent (issue 30)
    r = _rec(diagnose(sysm), "docker")
    assert r.applies and "does not show whether Docker is installed" in r.why and "not detected" not in r.why
    sysm.docker.note("docker is not installed")  # Docker looked at (a recorded `docker version`)
    r = _rec(diagnose(sysm), "docker")
    assert not r.applies and "not detected" in r.why
    sysm.origin = "live"
    sysm.docker.notes.clear()  # a live system is always looked at
    r = _rec(diagnose(sysm), "docker")
    assert not r.applies and "not detected" in r.why


def test_docker_not_shown_ranks_after_the_ways_that_need_nothing_unknown():
    sysm = healthy()
    sysm.docker.daemon = sysm.docker.client = None
    d = diagnose(sysm)
    applicable = [r.path for r in d.recommendations if r.applies]
    assert applicable[-1] == "docker" and len(applicable) > 1
    sysm.docker.daemon = True
    applicable = [r.path for r in diagnose(sysm).recommendations if r.applies]
    assert applicable.index("docker") < applicable.index("rocm-upgrade")


def test_docker_needs_the_host_driver_first():
    sysm = healthy()
    sysm.access.kfd.exists = False
    r = _rec(diagnose(sysm), "docker")
    assert not r.applies and "/dev/kfd" in r.why


def test_rocm_upgrade_only_on_ubuntu():
    sysm = healthy()
    sysm.os.id, sysm.os.version_id, sysm.os.pretty_name = "arch", "rolling", "Arch Linux"
    r = _rec(diagnose(sysm), "rocm-upgrade")
    assert not r.applies and "Arch Linux" in r.why


def test_system_problems_put_rocm_upgrade_first_with_apt_lines():
    from rocm_wizard.plan.build import Choices, build_plan
    from rocm_wizard.plan.shell import render_shell

    sysm = healthy()
    sysm.rocm.version = "6.2.4"
    sysm.rocm.apt_pins = []
    d = diagnose(sysm)
    up = _rec(d, "rocm-upgrade")
    assert up.applies and up.rank == 1
    assert up.target["rocm"] == "7.2.4" and up.target["codename"] == "jammy"  # the last legacy release
    assert "apt_lines" not in up.target  # the plan's, below
    script = render_shell(build_plan(sysm, Choices(path="rocm-upgrade", dkms=None), diagnosis=d))
    assert "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/7.2.4 jammy main" \
        in script
    assert up.target["torch"]["index"] == "rocm7.2"
    assert "apt-pin-missing" in up.why


def test_mirrors_are_used_in_every_url():
    sysm = healthy()
    sysm.rocm.version = "6.2.4"
    d = diagnose(sysm, repo_base="http://mirror.lan/radeon/", index_base="http://mirror.lan/whl")
    up = _rec(d, "rocm-upgrade")
    text = json.dumps(up.target)
    assert "repo.radeon.com" not in text and up.target["repo_base"].startswith("http://mirror.lan/radeon")
    assert _rec(d, "torch-reinstall").target["index_url"].startswith("http://mirror.lan/whl/")


def test_gpu_needing_a_newer_series_gets_it():
    sysm = healthy()
    sysm.gpus = [gpu("gfx950", "AMD Instinct MI355X", "75a3", segment="instinct")]
    sysm.os.version_id = "24.04"
    sysm.os.codename = "noble"
    sysm.os.kernel = "6.8.0-60-generic"
    sysm.torch = []
    up = _rec(diagnose(sysm), "rocm-upgrade")
    assert up.applies and up.target["series"] == "7.2"  # the policy series lists gfx950
    assert up.target["torch"]["torch"] == "2.13.0" and up.target["torch"]["triton"] == "triton-rocm==3.7.1"


def test_gfx803_gets_no_fake_upgrade():
    sysm = healthy()
    sysm.gpus = [gpu("gfx803", "Radeon RX 580 Series", "67df")]
    d = diagnose(sysm)
    for r in d.recommendations:
        assert not r.applies and r.target == {} and "gfx803" in r.why
    assert all(f.path is None for f in d.findings)


def test_unofficial_target_with_wheels_gets_torch_but_not_rocm_upgrade():
    sysm = healthy()
    sysm.gpus = [gpu("gfx906", "AMD Radeon VII", "66af")]
    d = diagnose(sysm)
    up = _rec(d, "rocm-upgrade")
    assert not up.applies and "No ROCm release lists gfx906" in up.why
    t = _rec(d, "torch-reinstall")
    from rocm_wizard.catalog import wheels

    assert t.applies and wheels.wheel_has_gfx(t.target["torch"], t.target["index"], "gfx906") is True


def test_a_gpu_only_the_core_sdk_lists_gets_a_core_sdk_upgrade_on_a_legacy_host():
    sysm = healthy()
    sysm.gpus = [gpu("gfx1102", "AMD Radeon RX 7600", "7480")]
    up = _rec(diagnose(sysm), "rocm-upgrade")
    assert up.applies and up.target["stream"] == "core-sdk" and up.target["rocm"] == "10.0.0"
    assert up.target["packages"] == ["amdrocm-core-sdk10.0-gfx1102"]


def test_strix_halo_gets_a_torch_release_that_carries_gfx1151():
    from rocm_wizard.catalog import wheels

    sysm = healthy()
    sysm.gpus = [gpu("gfx1151", "AMD Radeon 8060S", "1586", kind="igpu", segment="apu")]
    sysm.torch = []
    t = _rec(diagnose(sysm), "torch-reinstall")
    # gfx1151 entered PYTORCH_ROCM_ARCH with #167299 (torch 2.10): no older release may be offered
    assert t.applies and wheels.wheel_has_gfx(t.target["torch"], t.target["index"], "gfx1151") is True


def test_not_supported_status_gets_the_blas_fallback_pairing():
    d = diagnose(healthy(), "RuntimeError: CUDA error: HIPBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmEx`")
    t = _rec(d, "torch-reinstall")
    assert t.target["mode"] == "blas-fallback"
    assert t.target["torch"] == "2.4.1" and t.target["index"] == "rocm6.1"
    assert t.target["torchvision"] == "0.19.1" and t.target["torchaudio"] == "2.4.1"
    assert t.target["env"] == {"TORCH_BLAS_PREFER_HIPBLASLT": "0"}


def test_triton_only_problem_is_repaired_in_place():
    sysm = healthy()
    sysm.torch[0].triton = {"pytorch-triton-rocm": "3.4.0", "triton": "3.4.0"}
    t = _rec(diagnose(sysm), "torch-reinstall")
    assert t.target["mode"] == "repair" and t.target["torch"] == "2.8.0" and t.target["index"] == "rocm6.4"
    assert t.target["triton"] == "pytorch-triton-rocm==3.4.0"


def test_cuda_wheel_is_replaced_by_a_rocm_pairing():
    sysm = healthy()
    sysm.torch = [torch_env("2.5.1+cu121", build="cuda", triton={"triton": "3.1.0"}, required="triton==3.1.0")]
    d = diagnose(sysm)
    t = _rec(d, "torch-reinstall")
    assert t.rank == 1 and t.target["index"].startswith("rocm") and "torch-not-rocm" in t.why
    assert d.finding("torch-not-rocm").path == "torch-reinstall"


def test_unknown_gfx_gets_no_unchecked_target_but_says_how_to_get_one():
    # as --plan-only without --path and the TUI: nothing is offered that was not checked against the GPU
    sysm = healthy()
    sysm.gpus = [gpu(None, "AMD GPU", "ffff")]
    t = _rec(diagnose(sysm), "torch-reinstall")
    assert not t.applies and "gfx target of the AMD GPU" in t.why and "--path" in t.why


def test_pin_problem_alone_does_not_pretend_the_wheel_needs_host_rocm():
    sysm = healthy()
    sysm.rocm.apt_pins = [AptPin(file="/etc/apt/preferences.d/x", package="*", pin="release o=repo.radeon.com", priority=100)]
    up = _rec(diagnose(sysm), "rocm-upgrade")
    assert up.applies and up.rank == 1
    assert up.target["rocm"] == "7.2.4" and up.target["mode"] == "upgrade"  # the policy's release, never a downgrade


def test_upgrade_warns_when_the_running_kernel_is_not_listed_for_the_target():
    # a host with no ROCm yet on Ubuntu 24.04 gets the Core SDK 10.0, whose kernel table is read (7.2's is not)
    sysm = healthy()
    sysm.rocm = RocmInfo(amdgpu_loaded=True)
    sysm.os.version_id, sysm.os.codename, sysm.os.pretty_name = "24.04", "noble", "Ubuntu 24.04.4 LTS"
    sysm.os.kernel = "6.14.0-27-generic"
    up = _rec(diagnose(sysm), "rocm-upgrade")
    assert up.target["rocm"] == "10.0.0"
    assert up.target["kernel_ok"] is False and "6.14.0-27-generic" in up.why
    sysm.os.kernel = "6.17.0-19-generic"  # 10.0 lists HWE 6.17 for Radeon GPUs on 24.04.4
    assert _rec(diagnose(sysm), "rocm-upgrade").target["kernel_ok"] is True
    sysm.os.kernel = "6.8.0-45-generic"  # the GA kernel is Instinct's
    up = _rec(diagnose(sysm), "rocm-upgrade")
    assert up.target["kernel_ok"] is False and "for radeon GPUs" in up.why
    # the legacy 7.2 kernel table was not read: not known, never "listed"
    sysm = healthy()
    sysm.rocm.version = "6.2.4"
    assert _rec(diagnose(sysm), "rocm-upgrade").target["kernel_ok"] is None
