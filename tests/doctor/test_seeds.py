"""The three seed scenarios get correct, honest advice (and none of the seeds' wrong claims).

Wrong claims checked against (shared/research/rocm-facts.md section 0): ALLOC_FAILED is not caused by
the hipBLASLt arch check; TORCH_BLAS_PREFER_HIPBLASLT=0 cannot fix it; upgrading the host ROCm does
not change a pip wheel; pytorch-triton-rocm 3.0.0 is what torch 2.4.x requires; there is no
+rocm6.4.3 wheel on download.pytorch.org; torch 2.4.1 is on rocm6.1/rocm6.0, not rocm6.2; gfx803
has no official wheel or image.
"""
from __future__ import annotations

import json
from pathlib import Path

from _doctor_systems import gpu, healthy, source, torch_env
from rocm_wizard.catalog import wheels
from rocm_wizard.doctor import diagnose
from rocm_wizard.model import RocmInstall, TorchEnv

DATA = Path(__file__).resolve().parents[1] / "data" / "seeds"


def _text(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def _all_text(d) -> str:
    return json.dumps(d.to_dict())


# ---------------------------------------------------------------- 002: RX 7900 XT, ALLOC_FAILED
def seed_alloc_failed():
    sysm = healthy()
    sysm.gpus = [gpu("gfx1100", "AMD Radeon RX 7900 XT", "744c"),
                 gpu("gfx1100", "AMD Radeon RX 7900 XT", "744c", bdf="0000:43:00.0", node=2)]
    sysm.rocm.version = "6.2.0"
    sysm.rocm.packages = {"rocm-core": "6.2.0.60200-66~22.04"}
    sysm.rocm.apt_sources = [source("rocm", "6.2"), source("amdgpu", "6.2", "/etc/apt/sources.list.d/amdgpu.list")]
    sysm.rocm.installs = [RocmInstall(path="/opt/rocm-6.2.0", version="6.2.0")]
    sysm.rocm.opt_rocm_target = "/opt/rocm-6.2.0"
    sysm.rocm.amdgpu_dkms = "amdgpu/6.8.5-2009582.22.04, 6.8.0-45-generic, x86_64: installed"
    sysm.torch = [torch_env("2.5.1+rocm6.2", path="/venv", triton={"pytorch-triton-rocm": "3.1.0"},
                            required="pytorch-triton-rocm==3.1.0")]
    return sysm


def test_alloc_failed_is_explained_correctly():
    d = diagnose(seed_alloc_failed(), _text("hipblas_alloc_7900xt.txt"))
    alloc = d.finding("hipblas-alloc-failed")
    assert alloc is not None and alloc.severity == "error"
    assert "cannot fix it" in alloc.explanation and "unrelated warning" in alloc.explanation
    assert "upgrading host ROCm alone is no fix" in alloc.explanation
    warn = d.finding("hipblaslt-unsupported-warning")
    assert warn is not None and warn.severity == "info" and "uses hipBLAS instead" in warn.explanation


def test_alloc_failed_ways_out_are_real_pairings_without_the_blas_variable():
    d = diagnose(seed_alloc_failed(), _text("hipblas_alloc_7900xt.txt"))
    t = d.recommendation("torch-reinstall")
    assert t.applies and t.rank == 1
    assert (t.target["torch"], t.target["index"]) != ("2.5.1", "rocm6.2")
    assert wheels.index_has_gfx(t.target["index"], "gfx1100")
    assert t.target["torch"] in [x.version for x in wheels.torch_releases()]
    assert t.target["env"] == {}
    assert "not a proven cure" in t.why
    up = d.recommendation("rocm-upgrade")
    assert up.applies and up.target["rocm"] == "7.2.4" and up.target["torch"]["index"] == "rocm7.2"  # policy 7.2.4
    assert "does not use the host's ROCm libraries" in up.why
    dk = d.recommendation("docker")
    assert dk.applies and dk.target["image"].startswith("rocm/pytorch:rocm7.0_ubuntu22.04")
    for r in d.recommendations:
        assert "TORCH_BLAS_PREFER_HIPBLASLT" not in json.dumps(r.target)
    text = _all_text(d)
    assert "+rocm6.4.3" not in text and "rocm6.3_ubuntu22.04_py3.10_pytorch_2.5.0" not in text


# ---------------------------------------------------------------- 000: triton.language, torch 2.4.1+rocm6.0
def seed_triton(shadow=None):
    sysm = healthy()
    sysm.os.version_id, sysm.os.codename = "22.04", "jammy"
    sysm.rocm.version = "6.0.0"
    sysm.rocm.apt_sources = [source("rocm", "6.0"), source("amdgpu", "6.0", "/etc/apt/sources.list.d/amdgpu.list")]
    sysm.rocm.installs = [RocmInstall(path="/opt/rocm-6.0.0", version="6.0.0")]
    sysm.rocm.opt_rocm_target = "/opt/rocm-6.0.0"
    sysm.rocm.amdgpu_dkms = None
    sysm.os.kernel = "6.5.0-35-generic"
    env = torch_env("2.4.1+rocm6.0", path="/home/user/explore-cv/.venv", triton={"pytorch-triton-rocm": "3.0.0"},
                    required="pytorch-triton-rocm==3.0.0")
    env.torchvision = "0.19.1+rocm6.0"
    env.triton_shadow = shadow
    sysm.torch = [env]
    return sysm


def test_triton_language_names_the_real_causes_not_the_pin():
    d = diagnose(seed_triton(), _text("triton_language_241.txt"))
    f = d.finding("triton-language-error")
    assert f is not None
    assert "3.0.0 is exactly what torch 2.4.x requires" in f.explanation
    assert "Upgrading ROCm does not fix it" in f.explanation
    assert any("requires pytorch-triton-rocm==3.0.0; installed: pytorch-triton-rocm==3.0.0" in e for e in f.evidence)
    assert any("'triton' folder" in e for e in f.evidence)
    assert "triton-pin-mismatch" not in d.ids()


def test_triton_language_with_a_stray_directory_points_at_it():
    d = diagnose(seed_triton(shadow="/home/user/explore-cv/triton"), _text("triton_language_241.txt"))
    assert "triton-shadowed" in d.ids()
    assert any("likely cause: " in e and "/home/user/explore-cv/triton" in e
               for e in d.finding("triton-language-error").evidence)


def test_triton_language_way_out_is_a_repair_of_the_same_torch():
    d = diagnose(seed_triton(), _text("triton_language_241.txt"))
    t = d.recommendation("torch-reinstall")
    assert t.rank == 1 and t.target["mode"] == "repair"
    # same torch, but from rocm6.1: ROCm 6.0 user space is outside the window of the host's 6.4 driver
    # (AMD's user/kernel-space matrix: a 6.4 driver supports 6.1-7.2)
    assert t.target["torch"] == "2.4.1" and t.target["index"] == "rocm6.1"
    assert "supports 6.1-7.2" in t.why and any(c["constraint"] == "driver-window" and c["verdict"] == "satisfied"
                                                for c in t.proof)
    assert t.target["triton"] == "pytorch-triton-rocm==3.0.0" and t.target["torchvision"] == "0.19.1"
    assert "No ROCm upgrade is needed" in t.why
    text = _all_text(d)
    assert "+rocm6.4.3" not in text and "2.6.0+rocm6.4" not in text


def test_catalog_says_where_torch_241_really_is():
    names = [i.name for i in wheels.indexes_for("2.4.1")]
    assert names[0] == "rocm6.1" and "rocm6.0" in names and "rocm6.2" not in names
    assert wheels.index("rocm6.4.3") is None
    assert wheels.triton_requirement("2.4.1") == "pytorch-triton-rocm==3.0.0"


# ---------------------------------------------------------------- 003: gfx803 from source
def seed_gfx803():
    sysm = healthy()
    sysm.gpus = [gpu("gfx803", "Radeon RX 580 Series", "67df")]
    sysm.gpus[0].revision = "e7"
    sysm.os.version_id, sysm.os.codename = "24.04", "noble"
    sysm.rocm.version = "6.4.1"
    sysm.access.env = {"HSA_OVERRIDE_GFX_VERSION": "8.0.3", "ROC_ENABLE_PRE_VEGA": "1",
                       "TORCH_BLAS_PREFER_HIPBLASLT": "0", "PYTHONPATH": "/pytorch",
                       "PATH": "/opt/py313/bin:/usr/bin:/opt/rocm/bin"}
    sysm.torch = [TorchEnv(path="/opt/py313", site_packages="/opt/py313/lib/python3.13/site-packages", python="3.13.1",
                           version="2.6.0a0+git1eba9b3", build="rocm", hip="6.4.43482", arch_list=["gfx803"])]
    return sysm


def test_gfx803_is_told_honestly_and_offered_no_upgrade():
    d = diagnose(seed_gfx803(), _text("gfx803_torchvision_build.txt"))
    f = d.finding("gfx-no-official-build")
    assert f.severity == "critical" and f.community
    assert "cannot make a gfx8 GPU run gfx9+ code" in f.fix and "community source build" in f.fix
    for r in d.recommendations:
        assert not r.applies and r.rank is None and r.target == {} and "gfx803" in r.why
    assert "wheel-missing-gfx" not in d.ids()  # the self-built torch has gfx803 kernels


def test_gfx803_build_crash_is_two_torch_builds():
    d = diagnose(seed_gfx803(), _text("gfx803_torchvision_build.txt"))
    f = d.finding("two-torch-builds")
    assert any("PYTHONPATH contains a torch tree: /pytorch" in e for e in f.evidence)
    assert any("cannot initialize type" in e for e in f.evidence)
    assert "PYTHONNOUSERSITE=1 PYTHONPATH=" in f.fix


def test_gfx803_self_override_is_called_a_no_op():
    d = diagnose(seed_gfx803())
    f = d.finding("hsa-override-unneeded")
    assert f is not None and any("own target gfx803: it has no effect" in e for e in f.evidence)
