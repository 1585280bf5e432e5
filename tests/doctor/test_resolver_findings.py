"""Findings the compatibility resolver makes possible (issue 10), on edits of the healthy system."""
from __future__ import annotations

from _doctor_systems import gpu, healthy, torch_env

from rocm_wizard.catalog import wheels
from rocm_wizard.doctor import diagnose


def _torch_rec(d):
    return d.recommendation("torch-reinstall")


def test_healthy_system_raises_none_of_the_new_findings():
    ids = diagnose(healthy()).ids()
    for rid in ("torch-python-no-wheel", "driver-outside-window", "hsa-override-retargets-supported",
                "workload-not-pytorch", "vendor-triton-intended"):
        assert rid not in ids


def test_rx9070_with_torch_26_is_an_error_and_the_way_out_carries_gfx1201():
    sysm = healthy()
    sysm.gpus = [gpu("gfx1201", "AMD Radeon RX 9070 XT", "7550")]
    sysm.torch = [torch_env("2.6.0+rocm6.2.4", triton={"pytorch-triton-rocm": "3.2.0"})]
    d = diagnose(sysm)
    f = d.finding("wheel-missing-gfx")
    assert f is not None and f.severity == "error"
    t = _torch_rec(d)
    assert t.applies and wheels.wheel_has_gfx(t.target["torch"], t.target["index"], "gfx1201") is True
    assert any(c["constraint"] == "wheel-has-gfx" and c["verdict"] == "satisfied" for c in t.proof)


def test_python_313_venv_never_gets_torch_241_and_is_told_why():
    sysm = healthy()
    env = torch_env("2.4.1+rocm6.1", triton={"pytorch-triton-rocm": "3.0.0"})
    env.python = "3.13.1"
    sysm.torch = [env]
    d = diagnose(sysm)
    assert d.finding("torch-python-no-wheel") is not None
    t = _torch_rec(d)
    assert t.applies and wheels.wheel_for_python(t.target["torch"], "3.13") is not False
    py = [c for c in t.proof if c["constraint"] == "wheel-for-python"][0]
    # 2.8's Python row was not read: the proof says unknown, never supported
    assert py["verdict"] == ("satisfied" if wheels.wheel_for_python(t.target["torch"], "3.13") else "unknown")


def test_rocm64_wheels_on_a_rocm5_driver_are_outside_the_window():
    sysm = healthy()
    sysm.rocm.packages["amdgpu-dkms"] = "1:6.1.5.50700-1664922.22.04"  # ROCm 5.7 driver train
    d = diagnose(sysm)
    f = d.finding("driver-outside-window")
    assert f is not None and any("5.5-6.1" in e for e in f.evidence)
    t = _torch_rec(d)
    # the offered wheels' ROCm is inside the 5.7 driver's window (5.5-6.1)
    assert t.applies and t.target["index"] in ("rocm5.6", "rocm5.7", "rocm6.0", "rocm6.1")
    assert any(c["constraint"] == "driver-window" and c["verdict"] == "satisfied" for c in t.proof)


def test_global_override_for_the_igpu_retargets_the_supported_dgpu():
    sysm = healthy()
    sysm.gpus = [gpu("gfx1100"), gpu("gfx1036", "AMD Radeon Graphics", "13c0", kind="igpu", segment="apu")]
    sysm.access.env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0"
    d = diagnose(sysm)
    f = d.finding("hsa-override-retargets-supported")
    assert f is not None and f.severity == "error"
    assert "ROCR_VISIBLE_DEVICES" in f.fix


def test_llama_cpp_workload_gets_no_torch_reinstall():
    log = "ggml_cuda_init: found 1 ROCm devices:\nllama-server: error loading model"
    d = diagnose(healthy(), log)
    assert d.finding("workload-not-pytorch") is not None
    t = _torch_rec(d)
    assert not t.applies and "llama.cpp" in t.why


def test_vllm_container_triton_is_not_an_error():
    sysm = healthy()
    sysm.torch = [torch_env("2.8.0+rocm6.4", triton={"triton": "3.4.0+git1234"}, required="pytorch-triton-rocm==3.4.0")]
    assert "triton-pin-mismatch" in diagnose(sysm).ids()
    d = diagnose(sysm, "INFO vllm.engine: starting vllm 0.10.1 in rocm/vllm container")
    assert "triton-pin-mismatch" not in d.ids() and "vendor-triton-intended" in d.ids()


def test_wsl_radeon_6800_gets_no_torch_way_out_under_wsl():
    sysm = healthy()
    sysm.os.wsl = True
    sysm.os.kernel = "5.15.153.1-microsoft-standard-WSL2"
    sysm.gpus = [gpu("gfx1030", "AMD Radeon RX 6800 XT", "73bf")]
    t = _torch_rec(diagnose(sysm))
    assert not t.applies and "wsl-gpu" in t.why


def test_strix_halo_on_amds_minimum_kernel_is_quiet_and_older_is_not():
    sysm = healthy()
    sysm.gpus = [gpu("gfx1151", "AMD Radeon 8060S", "1586", kind="igpu", segment="apu")]
    sysm.os.kernel = "6.17.0-19-generic"
    assert "apu-kernel-too-old" not in diagnose(sysm).ids()
    sysm.os.kernel = "6.17.0-5-generic"
    f = diagnose(sysm).finding("apu-kernel-too-old")
    assert f is not None and "6.17.0-19" in f.evidence[0]
