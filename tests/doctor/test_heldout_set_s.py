"""Held-out set S (tests/data/real/710-721, HELDOUT.md): machines with more than one GPU or an unusual bus.
Each miss's cause, fixed from the program that prints the line or reads the setting (libhsakmt's per-node
HSA_OVERRIDE_GFX_VERSION in topology.c, ROCr then HIP applying ROCR_/HIP_VISIBLE_DEVICES, amdgpu's bus-status
check and the SMU message it guards in smu_cmn.c, RCCL's collectives, rocBLAS's process-wide Tensile library
before rocm-libraries#4781, ggml's and Ollama's device lists, kmod's module path), tested on the fixture and on
other wordings of the same source."""
from __future__ import annotations


import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.detect.parsers import paste_facts
from rocm_wizard.doctor import diagnose
from rwtest.heldout import ids as _ids, lead_layer as _lead_layer
from rwtest.heldout import doctor_files as _doctor, problems as _problems, fixture as _fixture


# -- the fixtures --------------------------------------------------------------------------------
@pytest.mark.parametrize("num,rule,layer", [
    ("712", "reported-target-not-chip", "runtime"),
    ("714", "gpu-off-bus", "kernel"),
    ("715", "rccl-collective-gpu-fault", "libraries"),
    ("718", "visible-devices-stacked", "runtime"),
    ("721", "hsa-override-every-visible-gpu", "runtime"),
])
def test_set_s_fixture_is_named_and_leads_at_its_layer(num, rule, layer):
    found = _problems(diagnose(detect_snapshot(str(_fixture(num)))))
    assert (rule, layer) in found, found
    assert _lead_layer(_fixture(num)) == layer


def test_713_names_the_blas_library_beside_hips_error():
    # the rocBLAS cause is a libraries finding; HIP's own message still leads (both causes are possible)
    found = _problems(diagnose(detect_snapshot(str(_fixture("713")))))
    assert ("blas-library-of-another-gpu", "libraries") in found
    assert found[0][1] == "hip"


# -- what the runtime reports against the chip, without a PCI id (issue 28 item 4) ----------------
def test_a_product_name_beside_another_target_is_the_runtime_reporting_an_override(tmp_path):
    diag = _doctor(tmp_path, {"ggml.txt": "ggml_cuda_init: found 2 ROCm devices:\n"
                                          "  Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, Wave Size: 32\n"
                                          "  Device 1: Radeon 8060S Graphics, gfx1100 (0x1100), VMM: no, Wave Size: 32\n"})
    f = next(f for f in diag.findings if f.id == "reported-target-not-chip")
    assert f.layer == "runtime"
    assert any("gfx1151" in e and "Radeon 8060S Graphics" in e and "gfx1100" in e for e in f.evidence), f.evidence
    assert any("HSA_OVERRIDE_GFX_VERSION" in e for e in f.evidence)  # none shown: where to look for one


@pytest.mark.parametrize("line", [
    "  Device 0: AMD Radeon Graphics, gfx1100 (0x1100), VMM: no, Wave Size: 32",  # a generic name: no chip
    "  Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, Wave Size: 32",  # the chip's own target
    "  Device 0: Radeon 8060S Graphics, gfx1151 (0x1151), VMM: no, Wave Size: 32",
])
def test_a_name_that_fits_its_target_or_names_no_chip_is_no_finding(tmp_path, line):
    diag = _doctor(tmp_path, {"ggml.txt": "ggml_cuda_init: found 1 ROCm devices:\n" + line + "\n"})
    assert "reported-target-not-chip" not in [f.id for f in diag.findings]


# -- a GPU off the bus: the kernel's PCI state ------------------------------------------------------
def test_off_the_bus_lines_are_the_kernels():
    assert error_signatures.failure_layer("kernel_device_lost_from_bus") == "kernel"
    assert error_signatures.failure_layer("kernel_smu_bus_error") == "kernel"
    for line in ("amdgpu 0000:04:00.0: SMU: bus error for message: TransferTableSmu2Dram(18) response:0xFFFFFFFF",
                 "02:21:32 amdgpu 0000:08:00.0: SMU: bus error for message: SetWorkloadMask(36) response:0xFFFFFFFF "):
        assert "kernel_smu_bus_error" in _ids(line), line
    # the older kernels' wording of the same case stays its own row
    old = "amdgpu 0000:03:00.0: amdgpu: SMU: response:0xFFFFFFFF for index:18 param:0x00000005 message:TransferTableSmu2Dram?"
    assert "kernel_smu_response_error" in _ids(old) and "kernel_smu_bus_error" not in _ids(old)


# -- the visible-device masks the user shows setting ------------------------------------------------
@pytest.mark.parametrize("text,want", [
    ("$ export ROCR_VISIBLE_DEVICES=1\n$ export HIP_VISIBLE_DEVICES=1\n", {"ROCR_VISIBLE_DEVICES": "1", "HIP_VISIBLE_DEVICES": "1"}),
    ('[Service]\nEnvironment="ROCR_VISIBLE_DEVICES=0,1"\n', {"ROCR_VISIBLE_DEVICES": "0,1"}),
    ("docker run --device /dev/kfd -e HIP_VISIBLE_DEVICES=1 rocm/pytorch\n", {"HIP_VISIBLE_DEVICES": "1"}),
    ('    environment:\n      ROCR_VISIBLE_DEVICES: "1"\n', {"ROCR_VISIBLE_DEVICES": "1"}),
    ("HIP_VISIBLE_DEVICES:1\nROCR_VISIBLE_DEVICES:1\n", {"HIP_VISIBLE_DEVICES": "1", "ROCR_VISIBLE_DEVICES": "1"}),
    ("os.environ['HIP_VISIBLE_DEVICES'] = '0'\n", {"HIP_VISIBLE_DEVICES": "0"}),
    ('time=x level=INFO source=routes.go:1614 msg="server config" env="map[CUDA_VISIBLE_DEVICES: HIP_VISIBLE_DEVICES: '
     'HSA_OVERRIDE_GFX_VERSION:11.5.1 OLLAMA_HOST:http://0.0.0.0:11434 ROCR_VISIBLE_DEVICES:1,0 http_proxy:]"\n',
     {"ROCR_VISIBLE_DEVICES": "1,0"}),
])
def test_visible_device_settings_are_read_from_pastes(tmp_path, text, want):
    (tmp_path / "p.txt").write_text(text, encoding="utf-8")
    env = detect_snapshot(str(tmp_path)).access.env
    assert {k: env[k] for k in want if k in env} == want, env


@pytest.mark.parametrize("text", [
    '#Environment="ROCR_VISIBLE_DEVICES=1,0"\n',
    "# REMOVED 2025-11-13 Environment=\"ROCR_VISIBLE_DEVICES=2,3,1,0\"\n",
    # Ollama's own per-runner masks for its GPU discovery are not the user's
    'level=TRACE source=runner.go:421 msg="starting runner for device discovery" extraEnvs="map[GGML_CUDA_INIT:1 '
    'ROCR_VISIBLE_DEVICES:1]"\n',
    "level=DEBUG source=server.go:393 msg=subprocess PATH=$PATH GGML_CUDA_INIT=1 ROCR_VISIBLE_DEVICES=0\n",
])
def test_comments_and_ollamas_own_runner_masks_are_not_read(tmp_path, text):
    (tmp_path / "p.txt").write_text(text, encoding="utf-8")
    env = detect_snapshot(str(tmp_path)).access.env
    assert "ROCR_VISIBLE_DEVICES" not in env, env


@pytest.mark.parametrize("rocr,hip,fires", [("1", "1", True), ("1", "0", False), ("0,1", "1", False),
                                            ("2,3", "0,2", True)])
def test_hip_indices_count_the_gpus_rocr_left(tmp_path, rocr, hip, fires):
    diag = _doctor(tmp_path, {"env.txt": f"export ROCR_VISIBLE_DEVICES={rocr}\nexport HIP_VISIBLE_DEVICES={hip}\n"})
    assert ("visible-devices-stacked" in [f.id for f in diag.findings]) is fires


# -- one override for a process that sees several GPUs ----------------------------------------------
_FAULT = "[  903.941089] amdgpu: sq_intr: error, detail 0x00000000, type 2, sh 1, priv 1, wave_id 1, simd_id 0, wgp_id 0\n"


def test_one_global_override_over_two_visible_gpus_leads_their_faults(tmp_path):
    diag = _doctor(tmp_path, {"env.txt": "export HSA_OVERRIDE_GFX_VERSION=11.5.1\nexport ROCR_VISIBLE_DEVICES=1,0\n",
                              "dmesg.txt": _FAULT})
    found = _problems(diag)
    assert found[0] == ("hsa-override-every-visible-gpu", "runtime"), found
    f = next(f for f in diag.findings if f.id == "hsa-override-every-visible-gpu")
    assert "HSA_OVERRIDE_GFX_VERSION_<node>" in f.fix


@pytest.mark.parametrize("files", [
    {"env.txt": "export HSA_OVERRIDE_GFX_VERSION=11.5.1\nexport ROCR_VISIBLE_DEVICES=1,0\n"},  # no fault shown
    {"env.txt": "export HSA_OVERRIDE_GFX_VERSION=11.5.1\nexport ROCR_VISIBLE_DEVICES=1\n", "dmesg.txt": _FAULT},  # one GPU
    {"env.txt": "export HSA_OVERRIDE_GFX_VERSION=11.5.1\nexport HSA_OVERRIDE_GFX_VERSION_2=10.3.0\n"
                "export ROCR_VISIBLE_DEVICES=1,0\n", "dmesg.txt": _FAULT},  # the per-node form in use
])
def test_the_override_rule_needs_a_global_override_several_gpus_and_faults(tmp_path, files):
    assert "hsa-override-every-visible-gpu" not in [f.id for f in _doctor(tmp_path, files).findings]


# -- a GPU fault inside an RCCL collective ---------------------------------------------------------
_RCCL = "an `ncclAllReduce` across 2 or more of these GPUs faults on the first collective\n"


@pytest.mark.parametrize("fault", [
    "Memory access fault by GPU node-N (Agent handle: 0x...) on address (nil). Reason: Page not present or supervisor privilege.",
    "Memory access fault by GPU node-2 (Agent handle: 0x55d2a4c0) on address 0x7f1200000000. Reason: Page not present or supervisor privilege.",
])
def test_a_memory_fault_in_an_rccl_collective_is_rccls(tmp_path, fault):
    found = _problems(_doctor(tmp_path, {"log.txt": _RCCL + "```\n" + fault + "\n```\n"}))
    assert found[0] == ("rccl-collective-gpu-fault", "libraries"), found


def test_a_memory_fault_alone_or_a_collective_alone_is_not_rccls(tmp_path):
    fault = "Memory access fault by GPU node-1 (Agent handle: 0x5d8b) on address 0x7745. Reason: Page not present or supervisor privilege.\n"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert "rccl-collective-gpu-fault" not in [f.id for f in _doctor(tmp_path / "a", {"a.txt": fault}).findings]
    assert "rccl-collective-gpu-fault" not in [f.id for f in _doctor(tmp_path / "b", {"b.txt": _RCCL}).findings]


# -- rocBLAS's Tensile library of another GPU's target ---------------------------------------------
_TWO = ("ggml_cuda_init: found 2 ROCm devices:\n"
        "  Device 0: AMD Radeon AI PRO R9700, gfx1201 (0x1201), VMM: no, Wave Size: 32\n"
        "  Device 1: AMD Radeon RX 9060 XT, gfx1200 (0x1200), VMM: no, Wave Size: 32\n")


def test_two_targets_and_a_matrix_multiply_without_code_name_the_blas_library(tmp_path):
    err = "ggml_cuda_compute_forward: MUL_MAT failed\nROCm error: no kernel image is available for execution on the device\n"
    f = next(f for f in _doctor(tmp_path, {"log.txt": _TWO + err}).findings if f.id == "blas-library-of-another-gpu")
    assert f.layer == "libraries" and f.severity == "warning"


def test_clrs_isa_line_naming_both_targets_settles_it(tmp_path):
    err = (":1:devprogram.cpp           :1800: 8051876383 us: Error: The program ISA amdgcn-amd-amdhsa--gfx1201 is not "
           "compatible with the device ISA amdgcn-amd-amdhsa--gfx1200\n")
    f = next(f for f in _doctor(tmp_path, {"log.txt": _TWO + err}).findings if f.id == "blas-library-of-another-gpu")
    assert f.severity == "error"


def test_one_target_is_no_blas_finding(tmp_path):
    one = ("ggml_cuda_init: found 1 ROCm devices:\n  Device 0: AMD Radeon RX 9060 XT, gfx1200 (0x1200), VMM: no\n"
           "ggml_cuda_compute_forward: MUL_MAT failed\nROCm error: no kernel image is available for execution on the device\n")
    assert "blas-library-of-another-gpu" not in [f.id for f in _doctor(tmp_path, {"log.txt": one}).findings]


# -- detection: device lists and the module path -----------------------------------------------------
def test_identical_ggml_devices_are_several_gpus(tmp_path):
    (tmp_path / "run.txt").write_text("ggml_cuda_init: found 2 ROCm devices (Total VRAM: 65504 MiB):\n" + "".join(
        f"  Device {i}: AMD Instinct MI50/MI60, gfx906:sramecc-:xnack- (0x906), VMM: no, Wave Size: 64, VRAM: 32752 MiB\n"
        for i in range(2)) + "ggml_cuda_init: found 2 ROCm devices:\n" + "".join(
        f"  Device {i}: AMD Instinct MI50/MI60, gfx906:sramecc-:xnack- (0x906), VMM: no, Wave Size: 64\n" for i in range(2)),
        encoding="utf-8")
    gpus = detect_snapshot(str(tmp_path)).amd_gpus
    assert len(gpus) == 2 and {g.gfx_target for g in gpus} == {"gfx906"}  # the same list printed twice: still 2


def test_ollamas_device_lists():
    dump = ('msg="runner enumerated devices" devices="[{DeviceID:{ID:0 Library:ROCm} Name:ROCm0 Description:AMD Radeon '
            'RX 6650M FilterID: Integrated:false PCIID:0000:03:00.0 TotalMemory:8573157376 FreeMemory:8153726976}]"')
    g = paste_facts.parse(dump).gpus
    assert [(x.name, x.bdf) for x in g] == [("AMD Radeon RX 6650M", "0000:03:00.0")]
    line = ('time=2026-03-01T10:00:00Z level=INFO source=types.go:42 msg="inference compute" id=0 filter_id="" '
            'library=ROCm compute=gfx1100 name=ROCm0 description="AMD Radeon RX 7900 XTX" libdirs=ollama,rocm '
            'driver=60342.13 pci_id=0000:0b:00.0 type=discrete total="24.0 GiB" available="23.8 GiB"')
    g = paste_facts.parse(line).gpus
    assert [(x.name, x.gfx_target, x.bdf) for x in g] == [("AMD Radeon RX 7900 XTX", "gfx1100", "0000:0b:00.0")]


@pytest.mark.parametrize("line,rel", [
    ("/lib/modules/7.0.0-31-generic/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.zst", "7.0.0-31-generic"),
    ("filename:       /lib/modules/6.8.0-87-generic/updates/dkms/amdgpu.ko.zst", "6.8.0-87-generic"),
    ("/usr/lib/modules/6.17.8-200.fc43.x86_64/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.xz", "6.17.8-200.fc43.x86_64"),
])
def test_the_module_path_modinfo_prints_names_the_running_kernel(line, rel):
    assert rel in paste_facts.parse(line).kernel_lines


def test_a_listing_of_module_trees_is_not_a_module_path():
    assert paste_facts.parse("ls /lib/modules/6.8.0-87-generic/kernel/drivers/gpu/drm/amd/amdgpu/").kernel_lines == []
