"""Vendor Triton kept (issue 30): two Triton distributions share one ``triton/`` directory, but the
one torch's own wheel requires (its ``Requires-Dist``) is torch's and is kept; only a second one is
flagged.  AMD's own builds of torch require a distribution named ``triton`` (built from ROCm/triton,
``+rocm`` local version: ROCm/pytorch#2914), PyTorch's pytorch-triton-rocm / triton-rocm; a vendor
container (vLLM, SGLang) ships its own Triton on purpose (vendor-triton-intended).

The systems are real pastes: fixture 008's venv (torch 2.9.0.dev20250706+rocm6.4 with
pytorch-triton-rocm 3.3.1+gitc8757738, from its collect_env) with a second Triton added the way
vllm-project/vllm#16664 shows one arriving (xgrammar pulling PyPI's triton over torch's pin), and
the versions of state-spaces/mamba#595 (mamba_ssm pulling PyPI's triton beside torch's
pytorch-triton-rocm).  No paste in tests/data/real shows two Triton distributions at once."""
from __future__ import annotations

from _doctor_systems import healthy, torch_env
from rocm_wizard.detect import detect_snapshot
from rocm_wizard.doctor import diagnose
from rocm_wizard.plan.build import Choices, build_plan
from rwtest import ci

FX008 = ci.REAL / "008-gfx1100-rx7900xt-rocm6.4-wsl2-ubuntu24.04"


def _fx008():
    system = detect_snapshot(str(FX008))
    env = system.torch[0]
    assert env.triton == {"pytorch-triton-rocm": "3.3.1+gitc8757738"}
    return system, env


def test_a_second_triton_beside_torchs_own_is_flagged_and_torchs_is_kept():
    system, env = _fx008()
    env.triton_required = "pytorch-triton-rocm==3.3.1+gitc8757738"  # the nightly wheel's Requires-Dist
    env.triton = {**env.triton, "triton": "3.3.0"}  # PyPI's, pulled in by another package
    f = diagnose(system).finding("triton-duplicate")
    assert f is not None
    ev = " ".join(f.evidence)
    assert "triton==3.3.0 beside pytorch-triton-rocm==3.3.1+gitc8757738" in ev
    assert "keep pytorch-triton-rocm, remove triton" in ev


def test_mamba_595_pypi_triton_beside_torchs_pin():
    # state-spaces/mamba#595 (AMD staff, 2024-10-18): torch 2.5 from PyTorch's ROCm index pins
    # pytorch-triton-rocm==3.1.0 ("Requirement already satisfied: pytorch-triton-rocm==3.1.0 ... (from
    # torch->causal_conv1d==1.4.0)"), then `pip install` of mamba_ssm adds PyPI's triton 3.1.0
    # ("Collecting triton (from mamba_ssm==2.2.2)"): two copies of triton/, the second the conflict
    sysm = healthy()
    sysm.torch = [torch_env("2.5.0+rocm6.2", triton={"pytorch-triton-rocm": "3.1.0", "triton": "3.1.0"},
                            required="pytorch-triton-rocm==3.1.0")]
    f = diagnose(sysm).finding("triton-duplicate")
    assert f is not None and "keep pytorch-triton-rocm, remove triton" in " ".join(f.evidence)


def test_amds_vendor_triton_is_the_one_kept():
    sysm = healthy()
    # AMD's build of torch requires `triton` with a +rocm local version (ROCm/pytorch#2914); a
    # pytorch-triton-rocm left from PyTorch's index is the second one
    sysm.torch = [torch_env("2.8.0+rocm7.0.0.git9a8b7c6d", triton={"triton": "3.4.0+rocm7.0.0.git5a7b8c9d",
                                                                   "pytorch-triton-rocm": "3.4.0"},
                            required="triton==3.4.0+rocm7.0.0.git5a7b8c9d")]
    f = diagnose(sysm).finding("triton-duplicate")
    assert f is not None
    ev = " ".join(f.evidence)
    assert "pytorch-triton-rocm==3.4.0 beside triton==3.4.0+rocm7.0.0.git5a7b8c9d" in ev
    assert "keep triton, remove pytorch-triton-rocm" in ev
    # only AMD's pinned triton: nothing to flag, and the pin is satisfied by the +rocm build
    sysm.torch[0].triton = {"triton": "3.4.0+rocm7.0.0.git5a7b8c9d"}
    d = diagnose(sysm)
    assert "triton-duplicate" not in d.ids() and "triton-pin-mismatch" not in d.ids()


def test_in_a_vendor_container_the_images_triton_is_intended():
    sysm = healthy()
    sysm.torch = [torch_env("2.8.0+rocm6.4", triton={"triton": "3.4.0+git1234", "pytorch-triton-rocm": "3.4.0"},
                            required="pytorch-triton-rocm==3.4.0")]
    assert "triton-duplicate" in diagnose(sysm).ids()
    d = diagnose(sysm, "INFO vllm.engine: starting vllm 0.10.1 in rocm/vllm container")
    assert "triton-duplicate" not in d.ids() and "vendor-triton-intended" in d.ids()


def test_the_repair_keeps_the_pinned_triton():
    sysm = healthy()
    sysm.torch[0].triton = {"pytorch-triton-rocm": "3.4.0", "triton": "3.3.0"}
    sysm.torch[0].triton_required = "pytorch-triton-rocm==3.4.0"
    d = diagnose(sysm)
    t = d.recommendation("torch-reinstall")
    assert t.target["mode"] == "repair" and "keep the Triton torch's own wheel requires" in t.why
    plan = build_plan(sysm, Choices(path="torch-reinstall", dkms=None), diagnosis=d)
    step = next(s for s in plan.steps if "strays" in s.params)
    assert step.params["keep"] == "pytorch-triton-rocm"
    assert "triton" in step.params["strays"] and "pytorch-triton-rocm" not in step.params["strays"]
