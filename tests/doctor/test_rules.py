"""Each rule fires on a minimal System that has its problem and stays quiet on the healthy one."""
from __future__ import annotations

import json

import pytest

from _doctor_systems import gpu, healthy, source, torch_env
from rocm_wizard.doctor import diagnose
from rocm_wizard.doctor.matchers import MATCHERS
from rocm_wizard.model import AptPin, DeviceNode, ErrorSighting, RocmInstall, TorchEnv


def _set(obj, **kw):
    for k, v in kw.items():
        setattr(obj, k, v)


def s_no_amd(s):
    s.gpus = [gpu(gfx=None, name="Intel HD Graphics 4400", device="0a16")]
    s.gpus[0].vendor_id = "8086"
    s.gpus[0].is_amd = False
    s.torch = []


def s_dkms(s):
    s.rocm.amdgpu_dkms = "amdgpu/6.12.12-2202139.22.04, 6.5.0-35-generic, x86_64: installed"


def s_mixed_rocm(s):
    s.rocm.apt_sources.append(source("rocm", "6.2.4", "/etc/apt/sources.list.d/rocm-old.list"))


def s_too_old(s):
    s.gpus = [gpu("gfx1101", "AMD Radeon RX 7800 XT", "747e")]
    s.rocm.version = "6.2.4"


def s_dropped(s):
    s.gpus = [gpu("gfx906", "AMD Instinct MI50", "66a1", segment="instinct")]


def s_opt_rocm(s):
    s.rocm.installs = [RocmInstall(path="/opt/rocm-6.4.4", version="6.4.4"), RocmInstall(path="/opt/rocm-6.2.4", version="6.2.4")]
    s.rocm.opt_rocm_target = "/opt/rocm-6.2.4"


def s_wsl(s):
    _set(s.os, wsl=True, kernel="6.6.87.2-microsoft-standard-WSL2")
    s.access.kfd = DeviceNode(path="/dev/kfd", exists=False)
    s.rocm.amdgpu_loaded = False


def s_gfx803(s):
    s.gpus = [gpu("gfx803", "Radeon RX 580 Series", "67df")]


def s_gfx1102(s):
    s.gpus = [gpu("gfx1102", "AMD Radeon RX 7600", "7480")]


def s_gfx906(s):
    s.gpus = [gpu("gfx906", "AMD Radeon VII", "66af")]


def s_igpu(s):
    s.gpus.append(gpu("gfx1036", "AMD Ryzen 9 9900X (integrated GPU)", "13c0", kind="igpu", bdf="0000:0c:00.0",
                      node=2, segment="apu"))


def s_gfx1031(s):
    s.gpus = [gpu("gfx1031", "AMD Radeon RX 6700 XT", "73df")]


def s_cuda(s):
    s.torch = [torch_env("2.5.1+cu121", build="cuda", triton={"triton": "3.1.0"}, required="triton==3.1.0")]
    s.torch[0].cuda = "12.1"
    s.torch[0].packages = {"nvidia-cublas-cu12": "12.1.3.1"}


def s_wheel_gfx(s):
    s.gpus = [gpu("gfx1101", "AMD Radeon RX 7800 XT", "747e")]
    s.torch = [torch_env("2.5.1+rocm6.2", triton={"pytorch-triton-rocm": "3.1.0"}, required="pytorch-triton-rocm==3.1.0")]


def s_bundles(s):
    s.rocm.version = "6.2.4"
    s.rocm.apt_sources = [source("rocm", "6.2.4"), source("amdgpu", "6.2.4", "/etc/apt/sources.list.d/amdgpu.list")]
    s.rocm.installs = [RocmInstall(path="/opt/rocm-6.2.4", version="6.2.4")]
    s.rocm.opt_rocm_target = "/opt/rocm-6.2.4"


def s_user_site(s):
    s.torch.append(TorchEnv(path="/home/alice/.local/lib/python3.10/site-packages",
                            site_packages="/home/alice/.local/lib/python3.10/site-packages", version="2.3.0+rocm5.7",
                            build="rocm"))


CASES = {
    "no-amd-gpu": s_no_amd,
    "amdgpu-not-loaded": lambda s: _set(s.rocm, amdgpu_loaded=False),
    "kfd-missing": lambda s: _set(s.access, kfd=DeviceNode(path="/dev/kfd", exists=False)),
    "kfd-not-accessible": lambda s: _set(s.access.kfd, accessible=False),
    "user-not-in-render-video": lambda s: _set(s.access, groups=["alice", "video"], in_render=False,
                                               kfd=DeviceNode(path="/dev/kfd", exists=True, group="render", accessible=False)),
    "dkms-not-built-for-kernel": s_dkms,
    "dpkg-audit-unclean": lambda s: _set(s.rocm, dpkg_audit_clean=False,
                                         dpkg_audit="The following packages are only half configured:\n rocm-core"),
    "apt-pin-missing": lambda s: _set(s.rocm, apt_pins=[]),
    "apt-pin-wrong": lambda s: _set(s.rocm, apt_pins=[AptPin(file="/etc/apt/preferences.d/rocm-pin", package="*",
                                                             pin="release o=repo.radeon.com", priority=500)]),
    "apt-floating-repo": lambda s: _set(s.rocm, apt_sources=[source("rocm", "latest"),
                                                             source("amdgpu", "latest", "/etc/apt/sources.list.d/amdgpu.list")]),
    "apt-mixed-releases": s_mixed_rocm,
    "rocm-older-than-catalog": lambda s: _set(s.rocm, version="5.7.1"),
    "rocm-too-old-for-gpu": s_too_old,
    "rocm-dropped-gpu": s_dropped,
    "rocm-ubuntu-unsupported": lambda s: _set(s.os, version_id="20.04", codename="focal", kernel="5.15.0-120-generic"),
    "rocm-kernel-unlisted": lambda s: _set(s.os, kernel="6.14.0-27-generic"),
    "opt-rocm-elsewhere": s_opt_rocm,
    "rocm-bin-not-on-path": lambda s: _set(s.access, path_has_rocm_bin=False, env={"PATH": "/usr/bin:/bin"}),
    "wsl2": s_wsl,
    "gfx-no-official-build": s_gfx803,
    "gfx-not-official": s_gfx906,  # gfx1102 is on the Core SDK's list (7.14, 10.x): official now
    "mixed-gpu-left-out": s_igpu,
    "hsa-override-unneeded": lambda s: _set(s.access, env={"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}),
    "hsa-override-missing": s_gfx1031,
    "torch-not-rocm": s_cuda,
    "wheel-missing-gfx": s_wheel_gfx,
    "torch-bundles-userspace": s_bundles,
    "triton-shadowed": lambda s: _set(s.torch[0], triton_shadow="/home/alice/project/triton"),
    "triton-duplicate": lambda s: _set(s.torch[0], triton={"pytorch-triton-rocm": "3.4.0", "triton": "3.4.0"}),
    "triton-pin-mismatch": lambda s: _set(s.torch[0], triton={"pytorch-triton-rocm": "3.2.0"}),
    "two-torch-builds": lambda s: _set(s.access, env={"PYTHONPATH": "/pytorch:/opt/tools"}),
    "user-site-torch": s_user_site,
    "apt-repo-path-moving": lambda s: s.rocm.apt_sources.append(_set_and_return(
        source("rocm", "7.14"), uri="https://repo.amd.com/rocm/packages-multi-arch/ubuntu2404", suite="stable")),
    "apt-signed-by-conflict": lambda s: s.rocm.apt_sources.append(
        _set_and_return(source("rocm", s.rocm.apt_sources[0].release, "/etc/apt/sources.list.d/amdrocm-repo.sources"),
                        signed_by="/usr/share/keyrings/amdrocm-keyring.gpg")),
}


def _set_and_return(obj, **kw):
    _set(obj, **kw)
    return obj


def test_signed_by_conflict_names_both_files_and_ignores_other_suites_and_disabled_entries():
    from _doctor_systems import healthy

    sysm = healthy()
    first = sysm.rocm.apt_sources[0]
    other = _set_and_return(source("rocm", first.release, "/etc/apt/sources.list.d/amdrocm-repo.sources",
                                   codename=first.suite), signed_by="/usr/share/keyrings/amdrocm-keyring.gpg")
    sysm.rocm.apt_sources.append(other)
    f = diagnose(sysm).finding("apt-signed-by-conflict")
    assert f is not None and f.severity == "error"
    text = "\n".join(f.evidence)
    assert "/etc/apt/sources.list.d/amdrocm-repo.sources: Signed-By /usr/share/keyrings/amdrocm-keyring.gpg" in text
    assert f"{first.file}: Signed-By /etc/apt/keyrings/rocm.gpg" in text
    other.enabled = False
    assert diagnose(sysm).finding("apt-signed-by-conflict") is None
    other.enabled, other.suite = True, "noble"
    assert diagnose(sysm).finding("apt-signed-by-conflict") is None

ERROR_CASES = {
    "triton-language-error": "AttributeError: module 'triton' has no attribute 'language'",
    "hipblaslt-unsupported-warning": ("UserWarning: Attempting to use hipBLASLt on an unsupported architecture! "
                                      "Overriding blas backend to hipblas (Triggered internally at "
                                      "/pytorch/aten/src/ATen/Context.cpp:296.)"),
    "hipblaslt-hard-error": "RuntimeError: Attempting to use hipBLASLt on a unsupported architecture!",
    "hipblas-alloc-failed": "RuntimeError: CUDA error: HIPBLAS_STATUS_ALLOC_FAILED when calling `hipblasCreate(handle)`",
    "hipblas-not-supported": "RuntimeError: CUDA error: HIPBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmEx(...)`",
    "no-binary-for-gpu": "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
    "hsa-runtime-error": "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate",
    # failures that are not version skew: lines from the real pastes in tests/data/real
    "amdgpu-init-failed": "[    9.292134] amdgpu 0000:83:00.0: amdgpu: Fatal error during GPU init",
    "amdgpu-disabled-by-cmdline": "nomodeset detected in kernel parameters. amdgpu requires KMS",
    "vm-gpu-unsupported": "         product: Hyper-V virtual VGA",
    "pcie-atomics-missing": "[    3.394728] kfd kfd: skipped device 1002:67df, PCI rejects atomics",
    "gpu-hang-reset": "[127037.563935] amdgpu 0000:c5:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE",
    "dkms-build-failed": "Error! Bad return status for module build on kernel: 6.14.0-24-generic (x86_64)",
    "secure-boot-module-rejected": "modprobe: ERROR: could not insert 'amdgpu': Key was rejected by service",
    "gpu-off-bus": "amdgpu 0000:03:00.0: Unable to change power state from D3cold to D0, device inaccessible",
    "rocminfo-crashed": "ROCk module is loaded\nSegmentation fault",
    "hipblaslt-library-missing": 'rocblaslt error: Cannot read "TensileLibrary_lazy_gfx1151.dat": No such file or directory',
    "smi-sensors-implausible": "GPU[1]          : Temperature: 511.0c",
    "smi-sensors-unavailable": "    USAGE: N/A\n    POWER:\n        SOCKET_POWER: N/A",
    "memory-access-fault": ("Memory access fault by GPU node-1 (Agent handle: 0x55f8b54eec30) on address 0x7f2a53193000. "
                            "Reason: Page not present or supervisor privilege."),
    "miopen-cache-error": ("/long_pathname_so_that_rpms_can_package_the_debug_info/data/driver/MLOpen/src/include/miopen/"
                           "kern_db.hpp:147: Internal error while accessing SQLite database: database disk image is malformed"),
    "lds-limit-exceeded": "triton.runtime.errors.OutOfResources: out of resource: shared memory,",
    "invalid-device": "RuntimeError: HIP error: invalid device ordinal",
    "iommu-p2p-settings": ('supllm:402:402 [0] init.cc:179 NCCL WARN Missing "iommu=pt" from kernel command line which '
                           'can lead to system instablity or hang!'),
    "gpu-memory-small": ("torch.cuda.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 MiB (GPU 0; 512.00 MiB "
                         "total capacity; 150.39 MiB already allocated; 312.00 MiB free)"),
}



# compatibility resolver rules (issue 10)
def s_python_313(s):
    s.torch = [torch_env("2.4.1+rocm6.1", triton={"pytorch-triton-rocm": "3.0.0"}, required="pytorch-triton-rocm==3.0.0")]
    s.torch[0].python = "3.13.1"


def s_igpu_override(s):
    s.gpus.append(gpu("gfx1036", "AMD Radeon Graphics", "13c0", kind="igpu", segment="apu", bdf="0000:7a:00.0", node=2))
    s.access.env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0"


def s_strix_halo_old_kernel(s):
    s.gpus = [gpu("gfx1151", "AMD Radeon 8060S", "1586", kind="igpu", segment="apu")]
    s.os.kernel = "6.8.0-45-generic"


CASES.update({
    "apu-kernel-too-old": s_strix_halo_old_kernel,
    "torch-python-no-wheel": s_python_313,
    "driver-outside-window": lambda s: s.rocm.packages.update({"amdgpu-dkms": "1:6.1.5.50700-1664922.22.04"}),
    "hsa-override-retargets-supported": s_igpu_override,
})
ERROR_CASES.update({
    "workload-not-pytorch": "ggml_cuda_init: found 1 ROCm devices:",
    "vendor-triton-intended": "INFO 05-01 vllm.engine.llm_engine: Initializing a V1 LLM engine (v0.10.1) with config",
})



def s_unclaimed(s):  # (issue 13, rest) the sighting detection records for lspci -k / lshw UNCLAIMED
    es = ErrorSighting(signature="gpu_unclaimed",
                       text="03:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 / "
                            "Kernel modules: amdgpu (no 'Kernel driver in use')")
    s.errors.append(es)


CASES.update({"gpu-unclaimed": s_unclaimed})


def s_mi50_rocm64(s):  # (issue 30) torch 2.8.0+rocm6.4 lists gfx906; its bundled rocBLAS has no Tensile kernels
    s.gpus = [gpu("gfx906", "AMD Instinct MI50", "66a1")]


CASES.update({"wheel-library-lacks-kernels": s_mi50_rocm64})
# HSA_STATUS_ERROR_OUT_OF_RESOURCES by cause: the runtime's line with the cause's line (both from real pastes)
_OOR = ("Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.")
ERROR_CASES.update({
    "hsa-oor-wsl-unsupported": "WSL environment detected.\nROCR: unsupported GPU\n" + _OOR,
    "hsa-oor-gpu-unsupported": "[    2.721238] amdgpu 0000:02:00.0: kfd not supported on this ASIC\n" + _OOR,
    "hsa-oor-after-gpu-hang": ("[74973.973226] [drm:mes_v11_0_submit_pkt_and_poll_completion.constprop.0 [amdgpu]] *ERROR* "
                               "MES failed to response msg=14\n" + _OOR),
    "hsa-oor-virtual-gpu": "         product: Hyper-V virtual VGA\n" + _OOR,
})


# the failure catalogue's generic rule, on a real line (tests/data/real/215-*: a ring timeout)
ERROR_CASES["known-failure"] = "Sep 03 21:38:54 HOSTNAME  ring gfx_0.0.0 timeout, signaled seq=9113028, emitted seq=9113031"


@pytest.mark.parametrize("rule_id", ["hsa-oor-wsl-unsupported", "hsa-oor-gpu-unsupported", "hsa-oor-after-gpu-hang",
                                     "hsa-oor-virtual-gpu"])
def test_oor_causes_need_their_own_evidence(rule_id):
    # the runtime's error alone names no cause: only the generic finding
    ids = diagnose(healthy(), _OOR).ids()
    assert "hsa-runtime-error" in ids and rule_id not in ids
    # each cause's line picks its own finding and no other cause's
    d = diagnose(healthy(), ERROR_CASES[rule_id])
    causes = {i for i in d.ids() if i.startswith("hsa-oor-")}
    assert causes == {rule_id}, causes


def test_every_rule_has_a_case():
    from test_wsl_rules import WSL_RULES  # the WSL rules' cases are real WSL pastes and forms there

    assert set(CASES) | set(ERROR_CASES) | set(WSL_RULES) == set(MATCHERS)


def test_healthy_system_has_no_findings():
    d = diagnose(healthy())
    assert d.findings == [], [f.id for f in d.findings]
    assert d.notes == []


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_fires_on_its_problem(rule_id):
    sysm = healthy()
    CASES[rule_id](sysm)
    d = diagnose(sysm)
    f = d.finding(rule_id)
    assert f is not None, f"{rule_id} did not fire; got {d.ids()}"
    assert f.evidence and all(isinstance(e, str) and e for e in f.evidence)
    assert f.sources and f.fix and f.explanation
    assert d.notes == []
    json.dumps(d.to_dict())


@pytest.mark.parametrize("rule_id", sorted(ERROR_CASES))
def test_error_rule_fires_on_its_text(rule_id):
    d = diagnose(healthy(), "Traceback (most recent call last):\n  File \"x.py\", line 3\n" + ERROR_CASES[rule_id])
    assert rule_id in d.ids()
    first = ERROR_CASES[rule_id].strip().splitlines()[0][:30]
    assert any(first in e for e in d.finding(rule_id).evidence)
    # and not on the healthy system without the text
    assert rule_id not in diagnose(healthy()).ids()


def test_too_old_claims_only_what_the_catalog_knows():
    sysm = healthy()
    sysm.rocm.version = "5.3.0"  # gfx1100 is listed from the catalog's first release on: no claim
    ids = diagnose(sysm).ids()
    assert "rocm-older-than-catalog" in ids and "rocm-too-old-for-gpu" not in ids


def test_findings_lead_with_the_root_cause_layer():
    # problems before notes; among problems the deepest layer of the stack first (model.lead_key)
    from rocm_wizard.doctor.model import ROOT_CAUSE_ORDER
    sysm = healthy()
    for rid in ("kfd-missing", "apt-pin-wrong", "rocm-bin-not-on-path", "torch-bundles-userspace"):
        CASES[rid](sysm)
    findings = diagnose(sysm).findings
    kinds = [f.severity != "info" for f in findings]
    assert kinds == sorted(kinds, reverse=True) and len(findings) >= 4
    depth = [ROOT_CAUSE_ORDER.index(f.layer) for f in findings if f.severity != "info" and f.layer in ROOT_CAUSE_ORDER]
    assert depth == sorted(depth) and len(depth) >= 2


# ---------------------------------------------------------------- the rules' edges
def test_wsl_is_not_blamed_for_missing_kfd_or_driver():
    sysm = healthy()
    s_wsl(sysm)
    ids = diagnose(sysm).ids()
    assert "wsl2" in ids and "kfd-missing" not in ids and "amdgpu-not-loaded" not in ids


def test_root_is_not_asked_to_join_groups():
    sysm = healthy()
    sysm.access.user = "root"
    sysm.access.in_render = sysm.access.in_video = False
    assert "user-not-in-render-video" not in diagnose(sysm).ids()


def test_group_finding_is_a_warning_when_kfd_is_accessible_anyway():
    sysm = healthy()
    sysm.access.in_render = False
    assert diagnose(sysm).finding("user-not-in-render-video").severity == "warning"


def test_pin_missing_is_an_error_only_when_the_distribution_competes():
    sysm = healthy()
    sysm.rocm.apt_pins = []
    assert diagnose(sysm).finding("apt-pin-missing").severity == "error"
    sysm.rocm.distro_offers_rocm = None
    assert diagnose(sysm).finding("apt-pin-missing").severity == "warning"


def test_pin_by_mirror_origin_host_counts():
    sysm = healthy()
    sysm.rocm.apt_sources = [source("rocm", "6.4.4")]
    sysm.rocm.apt_sources[0].uri = "http://mirror.example/radeon/rocm/apt/6.4.4"
    sysm.rocm.apt_pins = [AptPin(file="/etc/apt/preferences.d/rocm", package="*", pin='origin "mirror.example"', priority=1001)]
    ids = diagnose(sysm).ids()
    assert "apt-pin-missing" not in ids and "apt-pin-wrong" not in ids


def test_seventx_layout_is_not_mixed_when_it_follows_the_catalog():
    sysm = healthy()
    sysm.rocm.version = "7.2.2"
    sysm.rocm.apt_sources = [source("rocm", "7.2.2"), source("graphics", "7.2.1"),
                             source("amdgpu", "30.30.2", "/etc/apt/sources.list.d/amdgpu.list")]
    assert "apt-mixed-releases" not in diagnose(sysm).ids()
    sysm.rocm.apt_sources[2] = source("amdgpu", "30.20.1", "/etc/apt/sources.list.d/amdgpu.list")
    assert "apt-mixed-releases" in diagnose(sysm).ids()


def test_amdgpu_repo_of_other_release_in_6x_is_mixed():
    sysm = healthy()
    sysm.rocm.apt_sources[1] = source("amdgpu", "6.2.4", "/etc/apt/sources.list.d/amdgpu.list")
    f = diagnose(sysm).finding("apt-mixed-releases")
    assert f is not None and any("6.2.4" in e for e in f.evidence)


def test_dkms_with_running_kernel_built_is_fine_and_bare_version_says_nothing():
    sysm = healthy()
    sysm.rocm.amdgpu_dkms = ("amdgpu/6.12.12-2202139.22.04, 6.5.0-35-generic, x86_64: installed\n"
                             "amdgpu/6.12.12-2202139.22.04, 6.8.0-45-generic, x86_64: installed")
    assert "dkms-not-built-for-kernel" not in diagnose(sysm).ids()
    sysm.rocm.amdgpu_dkms = "1:6.12.12.60404-2202139.22.04"
    assert "dkms-not-built-for-kernel" not in diagnose(sysm).ids()


def test_mixed_gpu_quiet_when_user_already_hid_the_igpu():
    sysm = healthy()
    s_igpu(sysm)
    sysm.access.env = {"HIP_VISIBLE_DEVICES": "0"}
    assert "mixed-gpu-left-out" not in diagnose(sysm).ids()


def test_mixed_gpu_fix_names_the_supported_index():
    sysm = healthy()
    s_igpu(sysm)
    assert "HIP_VISIBLE_DEVICES=0" in diagnose(sysm).finding("mixed-gpu-left-out").fix


def test_gfx1101_kernels_belong_to_the_torch_release_not_the_index():
    sysm = healthy()
    s_wheel_gfx(sysm)
    assert "wheel-missing-gfx" in diagnose(sysm).ids()
    # 2.5.1 predates gfx1101 (pytorch #141667) on every index, rocm6.1 included
    sysm.torch = [torch_env("2.5.1+rocm6.1", triton={"pytorch-triton-rocm": "3.1.0"}, required="pytorch-triton-rocm==3.1.0")]
    assert "wheel-missing-gfx" in diagnose(sysm).ids()
    sysm.torch = [torch_env("2.7.1+rocm6.3", triton={"pytorch-triton-rocm": "3.3.1"}, required="pytorch-triton-rocm==3.3.1")]
    assert "wheel-missing-gfx" not in diagnose(sysm).ids()


def test_override_missing_names_the_community_value_and_is_marked_community():
    sysm = healthy()
    s_gfx1031(sysm)
    f = diagnose(sysm).finding("hsa-override-missing")
    assert "HSA_OVERRIDE_GFX_VERSION=10.3.0" in f.fix and f.community


def test_override_in_effect_is_not_also_reported_as_missing_kernels():
    sysm = healthy()
    s_gfx1031(sysm)
    sysm.access.env = {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}
    ids = diagnose(sysm).ids()
    assert "wheel-missing-gfx" not in ids and "hsa-override-missing" not in ids and "hsa-override-unneeded" not in ids


def test_gfx803_is_critical_and_says_override_cannot_help():
    sysm = healthy()
    s_gfx803(sysm)
    f = diagnose(sysm).finding("gfx-no-official-build")
    assert f.severity == "critical"
    assert "cannot make a gfx8 GPU run gfx9+ code" in f.fix and "ROC_ENABLE_PRE_VEGA=1" in f.fix


def test_triton_pin_accepts_local_build_labels():
    sysm = healthy()
    sysm.torch[0].triton = {"pytorch-triton-rocm": "3.4.0+gitf7888497"}
    assert "triton-pin-mismatch" not in diagnose(sysm).ids()


def test_triton_pin_from_catalog_when_metadata_unknown():
    sysm = healthy()
    sysm.torch[0].triton_required = None
    sysm.torch[0].triton = {"pytorch-triton-rocm": "3.0.0"}
    f = diagnose(sysm).finding("triton-pin-mismatch")
    assert f is not None and any("pytorch-triton-rocm==3.4.0" in e for e in f.evidence)


def test_hipblaslt_warning_alone_is_info_not_a_problem():
    d = diagnose(healthy(), ERROR_CASES["hipblaslt-unsupported-warning"])
    assert d.ids() == ["hipblaslt-unsupported-warning"] and d.problems == []
    assert "hipblaslt-hard-error" not in d.ids()


def test_alloc_failed_points_out_that_the_blas_variable_cannot_help():
    sysm = healthy()
    sysm.access.env = {"TORCH_BLAS_PREFER_HIPBLASLT": "0"}
    f = diagnose(sysm, ERROR_CASES["hipblas-alloc-failed"]).finding("hipblas-alloc-failed")
    assert any("cannot" in e and "TORCH_BLAS_PREFER_HIPBLASLT=0" in e for e in f.evidence)
    assert "cannot fix it" in f.explanation


def test_skip_leaves_a_rule_out():
    sysm = healthy()
    sysm.rocm.apt_pins = []
    assert "apt-pin-missing" not in diagnose(sysm, skip=["apt-pin-missing"]).ids()


def test_dict_input_is_accepted():
    from rocm_wizard.model import to_dict

    sysm = healthy()
    sysm.rocm.apt_pins = []
    assert "apt-pin-missing" in diagnose(to_dict(sysm)).ids()


def test_no_amd_gpu_needs_a_device_listing_in_a_snapshot():
    # lsmod alone (tests/data/real/170: amdgpu loaded, no lspci/rocminfo pasted) shows no absence of a GPU
    sysm = healthy()
    sysm.gpus, sysm.torch, sysm.origin = [], [], "snapshot"
    sysm.rocm.amdgpu_loaded = True
    assert "no-amd-gpu" not in diagnose(sysm).ids()
    sysm.origin = "live"  # on the machine itself detection looked at every device
    assert "no-amd-gpu" in diagnose(sysm).ids()


# ROCm release streams (issue 11): legacy, Core SDK, pip wheels
def core_sdk_host(s, version="10.0.0"):
    s.rocm.version, s.rocm.stream, s.rocm.streams = version, "core-sdk", ["core-sdk"]
    xy = ".".join(version.split(".")[:2])
    s.rocm.installs = [RocmInstall(path="/opt/rocm/core-" + xy, version=version, stream="core-sdk", active=True)]
    s.rocm.opt_rocm_target = None
    s.rocm.packages = {"amdrocm-core-sdk%s-gfx1100" % xy: version + "-4", "amdgpu-dkms": "1:6.16.13.31500000-2200000.24.04"}


def core_sdk_torch(rocm="10.0.0", wheels=None, devices=("gfx1100",), path="/home/alice/venv"):
    t = torch_env("2.13.0+rocm" + rocm, path=path, triton={"triton-rocm": "3.7.1"}, required="triton-rocm==3.7.1")
    t.rocm, t.stream, t.channel = rocm, "pip", "release"
    t.rocm_wheels = dict(wheels) if wheels is not None else {"rocm": rocm, "rocm-sdk-core": rocm, "rocm-sdk-libraries": rocm}
    for g in devices:
        t.rocm_wheels["amd-torch-device-" + g] = "2.13.0+rocm" + rocm
    t.device_gfx = list(devices)
    return t


def s_streams_mixed(s):
    core_sdk_host(s)
    s.rocm.packages["rocm-core"] = "7.2.4.70204-1~24.04"
    s.rocm.streams = ["legacy", "core-sdk"]


def s_legacy_torch_on_core_sdk(s):
    core_sdk_host(s)
    s.torch[0].stream, s.torch[0].rocm, s.torch[0].channel = "legacy", "6.4", "release"


def s_core_torch_without_rocm_wheels(s):
    core_sdk_host(s)
    s.torch = [core_sdk_torch(wheels={}, devices=())]


def s_core_torch_without_device_wheel(s):
    core_sdk_host(s)
    s.torch = [core_sdk_torch(devices=("gfx1201",))]


def s_nightly_torch(s):
    core_sdk_host(s)
    s.torch = [core_sdk_torch("7.10.0a20251015")]
    s.torch[0].version, s.torch[0].channel = "2.9.1+rocm7.10.0a20251015", "nightly"


CASES.update({
    "rocm-streams-mixed": s_streams_mixed,
    "torch-legacy-on-core-sdk": s_legacy_torch_on_core_sdk,
    "torch-rocm-wheels-missing": s_core_torch_without_rocm_wheels,
    "torch-device-wheel-missing": s_core_torch_without_device_wheel,
    "preview-or-nightly-build": s_nightly_torch,
})

STREAM_RULES = ("rocm-streams-mixed", "torch-legacy-on-core-sdk", "torch-rocm-wheels-missing",
                "torch-device-wheel-missing", "preview-or-nightly-build")


def test_a_healthy_core_sdk_host_with_its_torch_has_no_stream_findings():
    sysm = healthy()
    core_sdk_host(sysm)
    sysm.torch = [core_sdk_torch()]
    ids = diagnose(sysm).ids()
    assert not set(ids) & set(STREAM_RULES), ids


@pytest.mark.parametrize("target,gfx,covers", [
    ("gfx1201", "gfx1201", True), ("gfx1201", "gfx1200", False), ("all", "gfx942", True),
    ("gfx11", "gfx1151", True), ("gfx11", "gfx1030", False), ("gfx12-0", "gfx1201", True),
    ("gfx12-0", "gfx1151", False), ("gfx110x-all", "gfx1101", True), ("gfx94x-dcgpu", "gfx942", True),
])
def test_device_wheel_targets_cover_families(target, gfx, covers):
    from rocm_wizard.doctor.matchers import _device_covers
    assert _device_covers(target, gfx) is covers


def test_family_device_wheel_is_enough():
    sysm = healthy()
    core_sdk_host(sysm)
    sysm.torch = [core_sdk_torch(devices=("gfx11",))]
    assert "torch-device-wheel-missing" not in diagnose(sysm).ids()


def test_no_device_wheel_at_all_names_hip_error_invalid_image():
    sysm = healthy()
    core_sdk_host(sysm)
    sysm.torch = [core_sdk_torch(devices=())]
    d = diagnose(sysm, "RuntimeError: HIP error: hipErrorInvalidImage")
    f = d.finding("torch-device-wheel-missing")
    assert f is not None and any("device wheels for none" in e for e in f.evidence)
    assert any("hipErrorInvalidImage" in e for e in f.evidence)


def test_pasted_list_without_rocm_wheels_needs_a_failure_before_a_claim():
    sysm = healthy()
    core_sdk_host(sysm)
    sysm.torch = [core_sdk_torch(wheels={}, devices=(), path=None)]
    assert "torch-rocm-wheels-missing" not in diagnose(sysm).ids()
    text = "OSError: libamdhip64.so.7: cannot open shared object file: No such file or directory"
    assert "torch-rocm-wheels-missing" in diagnose(sysm, text).ids()


def test_legacy_tree_left_next_to_core_sdk_packages_is_a_warning():
    sysm = healthy()
    core_sdk_host(sysm)
    sysm.rocm.installs.append(RocmInstall(path="/opt/rocm-7.2.4", version="7.2.4", stream="legacy", active=False))
    f = diagnose(sysm).finding("rocm-streams-mixed")
    assert f is not None and f.severity == "warning"


def test_legacy_torch_on_a_legacy_host_is_fine():
    sysm = healthy()
    sysm.rocm.stream = "legacy"
    sysm.torch[0].stream = "legacy"
    assert "torch-legacy-on-core-sdk" not in diagnose(sysm).ids()


def test_preview_host_release_is_named():
    sysm = healthy()
    core_sdk_host(sysm, "7.13.0")
    f = diagnose(sysm).finding("preview-or-nightly-build")
    assert f is not None and any("7.13.0 is a technology preview" in e for e in f.evidence)
    assert f.severity == "warning"


def test_a_nightly_torch_alone_is_named_for_information():
    sysm = healthy()
    s_nightly_torch(sysm)
    f = diagnose(sysm).finding("preview-or-nightly-build")
    assert f is not None and f.severity == "info"
    assert any("is a nightly build (ROCm 7.10.0a20251015)" in e for e in f.evidence)


def test_a_core_sdk_torch_is_never_given_its_hip_version_as_its_rocm():
    from rocm_wizard.doctor.context import Context
    t = core_sdk_torch()
    t.version, t.hip = "2.13.0a0+gitdeadbee", "7.15.26333"  # no ROCm in the label
    sysm = healthy()
    sysm.torch = [t]
    assert Context(sysm).envs[0].wheel_rocm == "10.0.0"
    t.rocm = None
    assert Context(sysm).envs[0].wheel_rocm is None


@pytest.mark.parametrize("stream", ["core-sdk", "distro"])
def test_tools_in_usr_bin_need_no_rocm_bin_on_path(stream):
    sysm = healthy()
    core_sdk_host(sysm)
    sysm.rocm.stream = stream
    sysm.access.path_has_rocm_bin = False
    sysm.access.env["PATH"] = "/usr/local/bin:/usr/bin:/bin"
    assert "rocm-bin-not-on-path" not in diagnose(sysm).ids()
    sysm.rocm.stream = "legacy"
    assert "rocm-bin-not-on-path" in diagnose(sysm).ids()


def test_legacy_torch_on_core_sdk_without_a_detected_stream():
    # a detect --json written before streams were recorded: the version label tells
    sysm = healthy()
    core_sdk_host(sysm)
    assert sysm.torch[0].stream is None and sysm.torch[0].version == "2.8.0+rocm6.4"
    assert "torch-legacy-on-core-sdk" in diagnose(sysm).ids()


# (issue 28, item 4) the runtime reports another target than the chip's PCI id names: an override
# set for another GPU spilling onto a 7900 XTX (1002:744c, gfx1100)
def s_reported_not_chip(s):
    s.gpus[0].gfx_target = "gfx1030"
    s.access.env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0"


CASES.update({"reported-target-not-chip": s_reported_not_chip})


def _sighting(signature: str, text: str, layer: str, where: str):
    def mutate(s):
        from rocm_wizard.model import ErrorSighting

        e = ErrorSighting(signature=signature, text=text, layer=layer)
        e.sources["text"] = where
        s.errors.append(e)
    return mutate


# lines of real pastes: tests/data/real/215 (a journal's ring timeout) and 269 (prose of an issue)
CASES.update({
    "unrecognised-failure": _sighting("unrecognised", "Sep 03 21:38:54 HOSTNAME  ring gfx_0.0.0 timeout, "
                                      "signaled seq=9113028, emitted seq=9113031", "kernel", "paste:issue.txt"),
    "failure-told-not-shown": _sighting("failure_told", "I am seeing the following error trying to install rocm. "
                                        "Is that a known problem?", "packaging", "paste:comment.txt"),
})


def test_reported_target_not_chip_names_the_override_and_plans_for_the_chip():
    from rocm_wizard.resolve import facts

    sysm = healthy()
    s_reported_not_chip(sysm)
    f = diagnose(sysm).finding("reported-target-not-chip")
    text = " / ".join(f.evidence)
    assert "1002:744c is a gfx1100 chip" in text and "reports gfx1030" in text
    assert "HSA_OVERRIDE_GFX_VERSION=10.3.0" in text and "unset it" in text
    assert [g.gfx for g in facts.from_system(sysm).gpus] == ["gfx1100"]
    # without an override the finding says where to look instead
    del sysm.access.env["HSA_OVERRIDE_GFX_VERSION"]
    assert "no HSA_OVERRIDE_GFX_VERSION is visible here" in " / ".join(diagnose(sysm).finding("reported-target-not-chip").evidence)


def test_a_target_the_chip_agrees_with_is_quiet():
    sysm = healthy()
    sysm.gpus[0].gfx_target = "gfx1100"
    assert "reported-target-not-chip" not in diagnose(sysm).ids()


def test_workloads_seen_in_pastes_count_like_the_error_log():
    from rocm_wizard.model import WorkloadSighting
    from rocm_wizard.resolve import facts

    sysm = healthy()
    sysm.workloads.append(WorkloadSighting(id="ollama", line='level=INFO source=amd_linux.go:386 msg="amdgpu is supported"'))
    assert "workload-not-pytorch" in diagnose(sysm).ids()
    assert facts.from_system(sysm).not_torch == ("ollama",)
    sysm.workloads[:] = [WorkloadSighting(id="comfyui", line="!!! Exception during processing !!!")]
    assert "workload-not-pytorch" not in diagnose(sysm).ids()


def test_repo_path_moving_names_the_new_url_and_says_it_is_a_draft():
    from _doctor_systems import healthy

    sysm = healthy()
    sysm.rocm.apt_sources.append(_set_and_return(source("rocm", "7.14"),
                                                 uri="https://repo.amd.com/rocm/packages-multi-arch/ubuntu2404"))
    f = diagnose(sysm).finding("apt-repo-path-moving")
    assert f is not None and f.severity == "info"
    assert "https://archives.repo.amd.com/rocm/packages-multi-arch/ubuntu2404" in f.evidence[0]
    assert "preview" in f.evidence[0] and "draft" in f.evidence[0]


# the guard (issue "Keep it ROCm"): a venv rocm-wizard guarded whose torch was swapped past it
def s_guard_swapped(s):
    s_cuda(s)
    s.torch[0].path = "/srv/venv"
    s.torch[0].guard = {"torch": "2.5.1+rocm6.2", "torchvision": "0.20.1+rocm6.2"}
    s.torch[0].guard_wired = True
    s.torch[0].torch_installer = "uv on 2026-11-20 14:03 UTC"


CASES.update({"guard-broken": s_guard_swapped})


def test_the_guard_finding_names_what_replaced_torch_and_the_way_back():
    sysm = healthy()
    s_guard_swapped(sysm)
    f = diagnose(sysm).finding("guard-broken")
    assert any("torch==2.5.1+rocm6.2" in e and "2.5.1+cu121 (a CUDA build)" in e and "uv on 2026-11-20" in e
               for e in f.evidence), f.evidence
    assert "rocm-wizard --path torch-reinstall --venv /srv/venv --torch 2.5.1+rocm6.2" in f.fix
    # the guard intact and torch the pinned build: nothing; the pip.conf line gone: a finding
    ok = healthy()
    ok.torch[0].path, ok.torch[0].guard, ok.torch[0].guard_wired = "/srv/venv", {"torch": ok.torch[0].version}, True
    assert "guard-broken" not in diagnose(ok).ids()
    ok.torch[0].guard_wired = False
    f = diagnose(ok).finding("guard-broken")
    assert f is not None and any("no longer names it" in e for e in f.evidence)


def s_override_other_isa(s):  # (issue 28, held-out 321/253/254) an RDNA4 value on an RDNA3 chip
    s.access.env["HSA_OVERRIDE_GFX_VERSION"] = "12.0.1"


CASES.update({"hsa-override-other-isa": s_override_other_isa})



# s8-regress: a release with a known regression (catalog/data/regressions.toml) and a release change the
# prose names; the fault line and the sentence are real (ROCm/ROCm#5616, linux-firmware 20251125 on gfx1151)
_FAULT_5616 = ("Memory access fault by GPU node-1 (Agent handle: 0x5570f8146df0) on address 0x7ff96a9ac000. "
               "Reason: Page not present or supervisor privilege")


def s_firmware_regression(s):
    s.gpus[0].gfx_target = "gfx1151"
    s.os.linux_firmware = "20251125-1.fc43"
    _sighting("memory_access_fault", _FAULT_5616, "runtime", "paste:issue.txt")(s)


def s_release_changed(s):
    from rocm_wizard.model import ReleaseChange

    c = ReleaseChange(component="linux-firmware", direction="good-bad", good="20251111", bad="20251125",
                      line="I can confirm it always fails (to me) with latest firmware (20251125). It does not happen "
                           "with 20251111.")
    c.sources["line"] = "paste:issue.txt"
    s.changes.append(c)
    _sighting("memory_access_fault", _FAULT_5616, "runtime", "paste:issue.txt")(s)


CASES.update({"known-regression": s_firmware_regression, "release-changed": s_release_changed})


# s9-helds: several GPUs in one process (the held-out set S rules; tests/doctor/test_heldout_set_s.py has the wordings)
def s_two_targets_blas(s):  # an R9700 and an RX 9060 XT in one Ollama runner, rocBLAS's MUL_MAT failing
    s.gpus = [gpu("gfx1201", "AMD Radeon AI PRO R9700", "7551"),
              gpu("gfx1200", "AMD Radeon RX 9060 XT", "7590", bdf="0000:08:00.0", node=2)]
    s.errors += [ErrorSighting(signature="", text="ggml_cuda_compute_forward: MUL_MAT failed"),
                 ErrorSighting(signature="", text="ROCm error: no kernel image is available for execution on the device")]


def s_override_two_visible(s):  # one global override, two GPUs visible, a shader's error interrupt
    s.access.env.update({"HSA_OVERRIDE_GFX_VERSION": "11.5.1", "ROCR_VISIBLE_DEVICES": "1,0"})
    s.errors.append(ErrorSighting(signature="kernel_kfd_sq_intr_error_v11", text="amdgpu: sq_intr: error, detail 0x00000000, "
                                  "type 2, sh 1, priv 1, wave_id 1, simd_id 0, wgp_id 0"))


CASES.update({
    "visible-devices-stacked": lambda s: s.access.env.update({"ROCR_VISIBLE_DEVICES": "1", "HIP_VISIBLE_DEVICES": "1"}),
    "hsa-override-every-visible-gpu": s_override_two_visible,
    "blas-library-of-another-gpu": s_two_targets_blas,
    # (s14-heldcf) CUDA_VISIBLE_DEVICES=-1, meant to hide an NVIDIA GPU, read by HIP too
    "visible-devices-hide-all": lambda s: s.access.env.update({"CUDA_VISIBLE_DEVICES": "-1"}),
})
ERROR_CASES["rccl-collective-gpu-fault"] = (
    "Memory access fault by GPU node-2 (Agent handle: 0x55d2a4c0) on address (nil). Reason: Page not present or "
    "supervisor privilege.\nrank 0: ncclAllReduce failed on the first collective")


# s9: ggml's refused allocation below the free memory the same program reported (ggml-org/llama.cpp#19764's lines)
ERROR_CASES["allocation-refused-below-free"] = (
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 98988.40 MiB on device 0: cudaMalloc failed: out of memory\n"
    "  ROCm0: AMD Radeon(TM) Graphics (110511 MiB, 110357 MiB free)\n")


# s10-heldv: an SR-IOV VF's invalid IP discovery table (amd/MxGPU-Virtualization#6's lines), and a program that lists
# the GPU in one run and finds none in another (containers/ramalama#2447's ggml lines)
ERROR_CASES["ip-discovery-on-vf"] = (
    "amdgpu: get invalid ip discovery binary signature\n"
    "[  295.903102] gim info libgv: [4:0:0][amdgv_sched_enter_full_access:877] VF0 entered full access mode.\n")
ERROR_CASES["hip-no-device-but-gpu-enumerated"] = (
    "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected\n"
    "ggml_cuda_init: found 1 ROCm devices:\n"
    "  Device 0: AMD Radeon RX 9060 XT, gfx1200 (0x1200), VMM: no, Wave Size: 32\n")
# s10-heldx: an APU out of GPU memory at the GTT the kernel set up (amdgpu_ttm.c's line; tests/doctor/test_heldout_set_x.py)
def s_apu_gtt_ceiling(s):  # a Strix Halo's GPU, amdgpu's GTT line and a program's out-of-memory
    s.gpus = [gpu("gfx1151", "AMD Radeon 8060S Graphics", "1586", kind="igpu", bdf="0000:c5:00.0", segment="apu")]
    s.errors += [ErrorSighting(signature="s10x_kernel_gtt_memory_ready",
                               text="[    1.768086] amdgpu 0000:c5:00.0:  63968M of GTT memory ready."),
                 ErrorSighting(signature="", text="torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB.")]


CASES["apu-gtt-ceiling"] = s_apu_gtt_ceiling


# s12-heldax: a program's total GPU memory far below the VRAM amdgpu set up (TheRock#1054's lines;
# tests/doctor/test_heldout_set_ax.py)
ERROR_CASES["gpu-memory-below-driver"] = (
    "[    4.973019] [drm] amdgpu: 98304M of VRAM memory ready\n"
    "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 16.00 GiB. GPU 0 has a total capacity of 15.24 GiB "
    "of which 15.09 GiB is free.\n")
# s12-heldat: a global override retargeting the one GPU to a sibling of its group while the kernel driver reports a VM
# fault (ROCm/rocm-libraries#6320's line), and a GPU fault in MIOpen's own driver (ROCm/MIOpen#3540's lines)
def s_override_sibling_fault(s):
    gfx = s.gpus[0].gfx_target
    sibling = {"gfx1100": "11.0.1", "gfx1101": "11.0.0", "gfx1030": "10.3.1", "gfx942": "9.0.10"}.get(gfx, "11.0.0")
    s.access.env.update({"HSA_OVERRIDE_GFX_VERSION": sibling})
    s.errors.append(ErrorSighting(signature="kernel_gfxhub_page_fault",
                                  text="amdgpu: [gfxhub] page fault (src_id:0 ring:169 vmid:0 pasid:0)"))


CASES["hsa-override-gpu-fault"] = s_override_sibling_fault
ERROR_CASES["library-client-gpu-fault"] = (
    "MIOPEN_FIND_ENFORCE=3 MIOpenDriver conv -n 1024 -c 256 -H 32 -W 32 -k 1 -y 5 -x 5 -p 2 -q 2\n"
    "Memory access fault by GPU node-1 (Agent handle: 0x55724b0d00b0) on address 0x7fca1be00000. Reason: Page not "
    "present or supervisor privilege.\n")


# (s13, set BG's 1460) a device wheel built for the GPU's own target (TheRock's multi-arch torch[device-gfx90c]) has
# kernels for it: neither "no official build" nor an override is the advice; a device wheel for another target is not
@pytest.mark.parametrize("devices,fires", [(("gfx90c",), False), (("gfx1100",), True), ((), True),
                                           (("gfx9-4-dcgpu",), True)])
def test_a_device_wheel_for_the_gpu_s_own_target_covers_it(devices, fires):
    sysm = healthy()
    core_sdk_host(sysm, "7.15.0")
    sysm.gpus = [gpu("gfx90c", "AMD Ryzen 7 PRO 4750G with Radeon Graphics", "1636", kind="igpu", segment="apu")]
    sysm.torch = [core_sdk_torch("7.15.0", devices=devices)]
    sysm.torch[0].version = "2.12.0+rocm7.15.0"
    ids = diagnose(sysm).ids()
    assert ("gfx-no-official-build" in ids) is fires, ids
    if not fires:
        assert "hsa-override-missing" not in ids, ids
