"""The doctor never raises on odd input: random System-like data and random error text."""
from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocm_wizard.catalog import support
from rocm_wizard.doctor import SEVERITIES, diagnose
from rocm_wizard.doctor.model import lead_key
from rocm_wizard.model import (GPU, AccessInfo, AptPin, AptSource, DeviceNode, DockerInfo, ErrorSighting, OSInfo,
                               RocmInfo, RocmInstall, System, TorchEnv)

ERROR_LINES = [
    "AttributeError: module 'triton' has no attribute 'language'",
    "UserWarning: Attempting to use hipBLASLt on an unsupported architecture! Overriding blas backend to hipblas",
    "RuntimeError: Attempting to use hipBLASLt on a unsupported architecture!",
    "RuntimeError: CUDA error: HIPBLAS_STATUS_ALLOC_FAILED when calling `hipblasCreate(handle)`",
    "HIPBLAS_STATUS_NOT_SUPPORTED", "hipErrorNoBinaryForGpu: device amdgcn-amd-amdhsa--gfx902:xnack- [Not Found]",
    "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES", "generic_type: cannot initialize type \"X\"",
]

text = st.text(max_size=24)


def maybe(s):
    return st.one_of(st.none(), s)


gfx = st.sampled_from(sorted(support.known_gfx_targets()) + ["gfx000", "gfx9999", "", "GFX1100",
                                                              "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"]) | text
version = st.sampled_from(["6.4.3", "5.4.3", "7.2.0", "6.4.43483", "2.5.1+rocm6.2", "2.4.1+rocm6.0", "2.5.1+cu121",
                           "2.13.0+cpu", "2.6.0a0+git1", "garbage", "", "10", "6.4", "3.4.0+gitf7888497"]) | text
gpu = st.builds(GPU, vendor_id=maybe(st.sampled_from(["1002", "10de", "8086", "0x1002", ""])),
                device_id=maybe(st.sampled_from(["744c", "67df", "13c0", "747e", "zzzz"]) | text),
                revision=maybe(text), gfx_target=maybe(gfx), isa=maybe(gfx), name=maybe(text),
                kind=maybe(st.sampled_from(["dgpu", "igpu"]) | text), segment=maybe(st.sampled_from(["apu", "radeon"])),
                kfd_node=maybe(st.integers(-3, 12)), is_amd=st.booleans(), bdf=maybe(text), pci_id=maybe(text))
apt_source = st.builds(AptSource, file=maybe(text), line=maybe(text),
                       uri=maybe(st.sampled_from(["https://repo.radeon.com/rocm/apt/6.4", "http://m/x"]) | text),
                       release=maybe(st.sampled_from(["6.4", "latest", "7.2.2", "30.30.1", "6.2.4"]) | text),
                       repo_kind=maybe(st.sampled_from(["rocm", "amdgpu", "graphics", "other"])),
                       radeon=st.booleans(), enabled=st.booleans())
pin = st.builds(AptPin, file=maybe(text), package=maybe(st.sampled_from(["*", "rocm*"]) | text),
                pin=maybe(st.sampled_from(["release o=repo.radeon.com", 'origin "m"']) | text),
                priority=maybe(st.integers(-10, 2000)))
rocm = st.builds(RocmInfo, version=maybe(version),
                 installs=st.lists(st.builds(RocmInstall, path=maybe(text), version=maybe(version)), max_size=3),
                 opt_rocm_target=maybe(st.sampled_from(["/opt/rocm-6.2.4", "/opt/rocm-6.4.3"]) | text),
                 packages=st.dictionaries(st.sampled_from(["rocm-core", "rocm", "libdrm-amdgpu1"]) | text, version, max_size=3),
                 apt_sources=st.lists(apt_source, max_size=3), apt_pins=st.lists(pin, max_size=2),
                 distro_offers_rocm=maybe(st.booleans()), amdgpu_loaded=maybe(st.booleans()),
                 amdgpu_dkms=maybe(st.sampled_from(["amdgpu/6.8.5, 6.8.0-45-generic, x86_64: installed"]) | text),
                 dpkg_audit_clean=maybe(st.booleans()), dpkg_audit=maybe(text))
torch = st.builds(TorchEnv, path=maybe(text),
                  site_packages=maybe(st.sampled_from(["/home/a/.local/lib/python3.10/site-packages"]) | text),
                  version=maybe(version), build=maybe(st.sampled_from(["rocm", "cuda", "cpu", "weird"])),
                  hip=maybe(text), cuda=maybe(text),
                  triton=st.dictionaries(st.sampled_from(["triton", "pytorch-triton-rocm", "triton-rocm", "Pytorch_Triton_ROCm"])
                                         | text, version, max_size=3),
                  triton_required=maybe(st.sampled_from(["pytorch-triton-rocm==3.1.0", "triton-rocm==3.6.0; platform_machine=='x86_64'",
                                                         "not a req ==="]) | text),
                  triton_shadow=maybe(text), arch_list=st.lists(gfx, max_size=4),
                  packages=st.dictionaries(text, text, max_size=2))
access = st.builds(AccessInfo, user=maybe(st.sampled_from(["root", "alice"]) | text), groups=st.lists(text, max_size=3),
                   in_render=maybe(st.booleans()), in_video=maybe(st.booleans()),
                   kfd=maybe(st.builds(DeviceNode, path=maybe(text), exists=st.booleans(), accessible=maybe(st.booleans()),
                                       group=maybe(text), mode=maybe(text))),
                   env=st.dictionaries(st.sampled_from(["HSA_OVERRIDE_GFX_VERSION", "HSA_OVERRIDE_GFX_VERSION_1",
                                                        "HIP_VISIBLE_DEVICES", "PYTHONPATH", "TORCH_BLAS_PREFER_HIPBLASLT",
                                                        "PATH"]),
                                       st.sampled_from(["10.3.0", "11.0.0", "8.0.3", "/pytorch", "9.0.10"]) | text, max_size=4),
                   path_has_rocm_bin=maybe(st.booleans()))
osinfo = st.builds(OSInfo, id=maybe(st.sampled_from(["ubuntu", "arch", "rocky"]) | text),
                   version_id=maybe(st.sampled_from(["22.04", "24.04", "20.04", "rolling"]) | text),
                   kernel=maybe(st.sampled_from(["6.8.0-45-generic", "6.6.87.2-microsoft-standard-WSL2"]) | text),
                   wsl=maybe(st.booleans()), container=maybe(st.sampled_from(["docker"]) | text), pretty_name=maybe(text))
docker = st.builds(DockerInfo, client=maybe(text), daemon=maybe(st.booleans()), user_allowed=maybe(st.booleans()))
errors = st.lists(st.builds(ErrorSighting, signature=maybe(st.sampled_from(["triton_language", "no_gpu_agent", "hsa_error"]) | text),
                            text=maybe(st.sampled_from(ERROR_LINES) | text)), max_size=3)
system = st.builds(System, origin=st.sampled_from(["live", "snapshot"]), os=osinfo, gpus=st.lists(gpu, max_size=3),
                   rocm=rocm, torch=st.lists(torch, max_size=2), docker=docker, access=access, errors=errors)
error_text = maybe(st.text(max_size=200) | st.lists(st.sampled_from(ERROR_LINES) | text, max_size=5).map("\n".join))



def _check(d):
    json.dumps(d.to_dict())
    assert all(f.severity in SEVERITIES for f in d.findings)
    # problems before notes; among problems the root-cause layer leads (model.lead_key, issue 28)
    problem = [f.severity != "info" for f in d.findings]
    assert problem == sorted(problem, reverse=True)
    keys = [lead_key(f) for f in d.findings]
    assert keys == sorted(keys)
    applicable = [r.rank for r in d.recommendations if r.applies]
    assert applicable == list(range(1, len(applicable) + 1))
    assert len(d.recommendations) == 3


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(system, error_text)
def test_typed_but_odd_systems_never_break_a_rule(sysm, err):
    d = diagnose(sysm, err)
    _check(d)
    assert d.notes == [], d.notes  # no rule crashed on well-typed input


json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), text)
json_tree = st.recursive(json_leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
                         max_leaves=12)
keys = st.sampled_from(["os", "gpus", "rocm", "torch", "docker", "access", "errors", "origin"])


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(keys, json_tree, max_size=6), st.one_of(st.none(), text, st.binary(max_size=40)))
def test_untyped_dicts_and_bytes_never_raise(data, err):
    d = diagnose(data, err)
    _check(d)
    assert d.notes == [], d.notes  # shapes are repaired before the rules run


def test_not_a_system_at_all():
    for junk in (None, 42, "text", [1, 2], System(gpus=[None, 3, "x"], torch=[None]),  # type: ignore[list-item]
                 System(os=None, rocm="x", access=AccessInfo(kfd="yes", env=None))):  # type: ignore[arg-type]
        d = diagnose(junk, "HIPBLAS_STATUS_ALLOC_FAILED")
        _check(d)
        assert d.notes == [] and "hipblas-alloc-failed" in d.ids()


def test_the_callers_system_is_not_modified():
    from _doctor_systems import healthy
    from rocm_wizard.model import to_dict

    sysm = healthy()
    sysm.gpus.append(None)  # type: ignore[arg-type]
    before = json.dumps(to_dict(sysm), sort_keys=True)
    diagnose(sysm)
    assert json.dumps(to_dict(sysm), sort_keys=True) == before
