"""GPU-side parsers: rocminfo, rocm-smi, amd-smi, lspci, lshw, sysfs (KFD / uevent / id files).

Inline excerpts are trimmed from the real outputs in ../shared/fixtures/real (their source is
named next to each); whole real files are read from there when present.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from rwtest import ci

from rocm_wizard.detect.parsers import amd_smi, lshw, lspci, rocm_smi, rocminfo, sysfs
from rocm_wizard.detect.parsers._paste import bdf_from_bdfid, clean_lines, norm_bdf

REAL = ci.REAL


def real(folder_prefix: str, name: str) -> str:
    if not REAL.is_dir():
        ci.missing(f"shared fixtures not present at {REAL}")
    matches = [p for p in REAL.iterdir() if p.name.startswith(folder_prefix)]
    if not matches or not (matches[0] / name).is_file():
        ci.missing("fixture %s/%s not present in %s" % (folder_prefix, name, REAL))
    return (matches[0] / name).read_text(encoding="utf-8", errors="replace")


# -- paste clean-up --------------------------------------------------------------------------------

def test_clean_lines_removes_paste_artefacts():
    text = ("```\r\n    Pool Info:" + " " * 40 + "[391/1815]\r\n    Name:   gfx90a\r\n"
            "    *** Done ***             ```\r\n```\r\n")
    assert [l for l in clean_lines(text) if l] == ["Pool Info:", "Name:   gfx90a", "*** Done ***"]


def test_bdf_helpers():
    assert bdf_from_bdfid("12032") == "0000:2f:00.0"  # 010: BDFID 12032 is the 0000:2F:00.0 of rocm-smi
    assert bdf_from_bdfid("50432") == "0000:c5:00.0"  # 019
    assert bdf_from_bdfid("0") is None and bdf_from_bdfid("x") is None
    assert norm_bdf("pci@0000:83:00.0") == "0000:83:00.0"
    assert norm_bdf("03:00.0") == "0000:03:00.0"
    assert norm_bdf("GPU[0]") is None


# -- rocminfo --------------------------------------------------------------------------------------

ROCMINFO_TWO_GPUS = """\
ROCk module version 6.10.5 is loaded
=====================
HSA System Attributes
=====================
Runtime Version:         1.14
Runtime Ext Version:     1.6
==========
HSA Agents
==========
*******
Agent 1
*******
  Name:                    AMD Ryzen 7 9800X3D 8-Core Processor
  Marketing Name:          AMD Ryzen 7 9800X3D 8-Core Processor
  Vendor Name:             CPU
  Node:                    0
  Device Type:             CPU
  Chip ID:                 0(0x0)
  BDFID:                   0
*******
Agent 2
*******
  Name:                    gfx1101
  Marketing Name:          AMD Radeon RX 7800 XT
  Vendor Name:             AMD
  Node:                    1
  Device Type:             GPU
  Chip ID:                 29822(0x747e)
  ASIC Revision:           0(0x0)
  BDFID:                   768
  Memory Properties:
  Pool Info:
    Pool 1
      Segment:                 GLOBAL; FLAGS: COARSE GRAINED
      Size:                    16760832(0xffc000) KB
  ISA Info:
    ISA 1
      Name:                    amdgcn-amd-amdhsa--gfx1101
    ISA 2
      Name:                    amdgcn-amd-amdhsa--gfx11-generic
*******
Agent 3
*******
  Name:                    gfx1036
  Marketing Name:          AMD Ryzen 7 9800X3D 8-Core Processor
  Node:                    2
  Device Type:             GPU
  Chip ID:                 5056(0x13c0)
  BDFID:                   4096
  Memory Properties:       APU
*** Done ***
"""  # trimmed from fixtures/real/001 (ROCm/ROCm#6126); the version line from 017


def test_rocminfo_agents_and_attributes():
    out = rocminfo.parse(ROCMINFO_TWO_GPUS)
    assert out.kfd_loaded is True and out.kfd_version == "6.10.5"
    assert out.runtime_version == "1.14" and out.runtime_ext_version == "1.6"
    assert out.complete and out.error is None
    assert [a.device_type for a in out.agents] == ["CPU", "GPU", "GPU"]
    dgpu, igpu = out.gpus
    assert (dgpu.gfx_target, dgpu.chip_id, dgpu.node, dgpu.bdf) == ("gfx1101", "747e", 1, "0000:03:00.0")
    assert dgpu.marketing_name == "AMD Radeon RX 7800 XT"
    assert dgpu.vram_bytes == 16760832 * 1024
    assert dgpu.isa == ["amdgcn-amd-amdhsa--gfx1101", "amdgcn-amd-amdhsa--gfx11-generic"]
    assert dgpu.apu is False and igpu.apu is True
    assert (igpu.gfx_target, igpu.chip_id, igpu.bdf) == ("gfx1036", "13c0", "0000:10:00.0")


def test_rocminfo_npu_agent_is_not_a_gpu():
    text = ROCMINFO_TWO_GPUS.replace("*** Done ***", """*******
Agent 4
*******
  Name:                    aie2p
  Marketing Name:          RyzenAI-npu4
  Vendor Name:             AMD
  Node:                    0
  Device Type:             DSP
*** Done ***""")  # the XDNA2 NPU agent of fixtures/real/019
    out = rocminfo.parse(text)
    assert len(out.agents) == 4
    assert [a.name for a in out.gpus] == ["gfx1101", "gfx1036"]


def test_rocminfo_hsa_failure_gives_no_agents_but_the_error():
    text = ("$ rocminfo\nROCk module is loaded\nhsa api call failure at: /long/src/rocminfo/rocminfo.cc:1148\n"
            "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.\n")
    out = rocminfo.parse(text)  # fixtures/real/026 (ROCm/ROCm#2191)
    assert out.agents == [] and out.kfd_loaded is True
    assert out.error == "HSA_STATUS_ERROR_OUT_OF_RESOURCES"
    assert "rocminfo.cc:1148" in out.error_line
    assert not out.complete


def test_rocminfo_grep_fragment_has_no_gpus():
    text = ('$ rocminfo | grep -i "Marketing Name"\n  Marketing Name:          AMD Ryzen 9 9900X 12-Core Processor\n'
            "  Marketing Name:          AMD Radeon RX 9070\n  Marketing Name:          AMD Ryzen 9 9900X 12-Core Processor\n")
    out = rocminfo.parse(text)  # fixtures/real/011: the type of each agent is unknowable
    assert [a.marketing_name for a in out.agents] == [
        "AMD Ryzen 9 9900X 12-Core Processor", "AMD Radeon RX 9070", "AMD Ryzen 9 9900X 12-Core Processor"]
    assert out.gpus == []


def test_rocminfo_grep_of_names_finds_gpu_by_gfx_name():
    text = "  Name:                    gfx1030\n      Name:                    amdgcn-amd-amdhsa--gfx1030\n"
    out = rocminfo.parse(text)
    assert [(a.gfx_target, a.isa) for a in out.gpus] == [("gfx1030", ["amdgcn-amd-amdhsa--gfx1030"])]


def test_rocminfo_tmux_markers_and_missing_pool_info():
    text = real("017", "rocminfo.txt")  # four MI210, tmux scroll markers, Agent 4 lacks "Pool Info:"
    out = rocminfo.parse(text)
    gpus = out.gpus
    assert len(gpus) == 4
    assert {g.gfx_target for g in gpus} == {"gfx90a"}
    assert {g.chip_id for g in gpus} == {"740f"}
    assert [g.node for g in gpus] == [1, 2, 3, 4]
    assert all(g.isa == ["amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"] for g in gpus)
    assert all(g.vram_bytes == 67092480 * 1024 for g in gpus)  # Agent 4's pools still counted
    assert out.runtime_version == "1.14" and out.kfd_version == "6.10.5"


@pytest.mark.parametrize("folder,gfx,runtime", [
    ("001", ["gfx1101", "gfx1036"], "1.18"),
    ("010", ["gfx1030"], "1.1"),
    ("013", [], "1.14"),
    ("019", ["gfx1150"], "1.18"),
    ("021", ["gfx902"], "1.1"),
    ("028", ["gfx1030"], "1.1"),
])
def test_rocminfo_real_outputs(folder, gfx, runtime):
    out = rocminfo.parse(real(folder, "rocminfo.txt"))
    assert [a.gfx_target for a in out.gpus] == gfx
    assert out.runtime_version == runtime
    assert out.complete


def test_rocminfo_looks_like():
    assert rocminfo.looks_like(ROCMINFO_TWO_GPUS) >= 0.9
    assert rocminfo.looks_like("GPU[0]\t\t: Card series: Navi 21\n") < 0.35
    assert rocminfo.looks_like("hello world\n") == 0.0


# -- rocm-smi --------------------------------------------------------------------------------------

SMI_NEW = """\
============================ ROCm System Management Interface ============================
WARNING: AMD GPU device(s) is/are in a low-power state. Check power control/runtime_status

====================================== Product Info ======================================
GPU[0]          : Card Series:          AMD Radeon RX 9070
GPU[0]          : Card Model:           0x7550
GPU[0]          : Card Vendor:          Advanced Micro Devices, Inc. [AMD/ATI]
GPU[0]          : Card SKU:             G295BP0
GPU[0]          : Subsystem ID:         0x0618
GPU[0]          : Device Rev:           0xc3
GPU[0]          : Node ID:              1
GPU[0]          : GFX Version:          gfx1201
GPU[1]          : Card Series:          AMD Ryzen 9 9900X 12-Core Processor
GPU[1]          : Card Model:           0x13c0
GPU[1]          : Device Rev:           0xc2
GPU[1]          : Node ID:              2
GPU[1]          : GFX Version:          gfx1036
==========================================================================================
================================== End of ROCm SMI Log ===================================
"""  # fixtures/real/011 (rocm-smi --showproductname)

SMI_OLD = """\
======================= ROCm System Management Interface =======================
========================= Version of System Component ==========================
Driver version: 5.17.0
================================================================================
====================================== ID ======================================
GPU[0]\t\t: GPU ID: 0x73bf
================================== PCI Bus ID ==================================
GPU[0]\t\t: PCI Bus: 0000:2F:00.0
================================= Product Info =================================
GPU[0]\t\t: Card series: \t\tNavi 21 [Radeon RX 6800/6800 XT / 6900 XT]
GPU[0]\t\t: Card model: \t\tRadeon RX 6900 XT
GPU[0]\t\t: Card vendor: \t\tAdvanced Micro Devices, Inc. [AMD/ATI]
GPU[0]\t\t: Card SKU: \t\tD41201
============================= End of ROCm SMI Log ==============================
"""  # fixtures/real/010 (rocm-smi -a, ROCm/ROCm#1715)


def test_rocm_smi_new_product_info():
    out = rocm_smi.parse(SMI_NEW)
    assert out.new_layout is True
    g0, g1 = out.gpus
    assert (g0.device_id, g0.revision, g0.node, g0.gfx_target, g0.name) == ("7550", "c3", 1, "gfx1201", "AMD Radeon RX 9070")
    assert (g1.device_id, g1.revision, g1.node, g1.gfx_target) == ("13c0", "c2", 2, "gfx1036")
    assert g0.subsystem_id == "0618"
    assert out.warnings and "low-power" in out.warnings[0]


def test_rocm_smi_old_layout_tabs_or_spaces():
    for text in (SMI_OLD, SMI_OLD.replace("\t", "    ")):
        out = rocm_smi.parse(text)
        (g,) = out.gpus
        assert (g.device_id, g.bdf, g.name) == ("73bf", "0000:2f:00.0", "Radeon RX 6900 XT")
        assert g.series == "Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]"
        assert out.driver_version == "5.17.0"
        assert out.new_layout is False


def test_rocm_smi_old_card_model_hex_is_a_subsystem_not_a_device():
    text = "GPU[0]\t\t: Card series: \t\tNavi 31 [Radeon RX 7900 XT/7900 XTX]\nGPU[0]\t\t: Card model: \t\t0x5315\n"
    (g,) = rocm_smi.parse(text).gpus
    assert g.device_id is None and g.subsystem_id == "5315"


def test_rocm_smi_concise_tables():
    newest = """\
==================================================== Concise Info ====================================================
Device  Node  IDs              Temp    Power   Partitions          SCLK     MCLK     Fan  Perf  PwrCap  VRAM%  GPU%
              (DID,     GUID)  (Edge)  (Avg)   (Mem, Compute, ID)
======================================================================================================================
0       1     0x7550,   58314  57.0\u00b0C  148.0W  N/A, N/A, 0         1143Mhz  772Mhz   0%   auto  230.0W  59%    8%
1       2     0x13c0,   38164  40.0\u00b0C  0.006W  N/A, N/A, 0         N/A      2400Mhz  0%   auto  N/A     0%     0%
======================================================================================================================
"""  # fixtures/real/011
    out = rocm_smi.parse(newest)
    assert [(g.index, g.node, g.device_id) for g in out.gpus] == [(0, 1, "7550"), (1, 2, "13c0")]
    oldest = """\
================================= Concise Info =================================
GPU  Temp   AvgPwr  SCLK  MCLK   Fan  Perf  PwrCap  VRAM%  GPU%
0    41.0c  5.0W    0Mhz  96Mhz  0%   auto  203.0W    0%   0%
================================================================================
"""  # fixtures/real/028
    out = rocm_smi.parse(oldest)
    assert [(g.index, g.node, g.device_id) for g in out.gpus] == [(0, None, None)]
    showhw = """\
============================ Concise Hardware Info =============================
GPU  NODE  DID     GUID   GFX VER  GFX RAS  SDMA RAS  UMC RAS  VBIOS             BUS           PARTITION ID
0    1     0x744c  12345  gfx1100  N/A      N/A       N/A      113-D7020100-102  0000:03:00.0  0
"""
    (g,) = rocm_smi.parse(showhw).gpus
    assert (g.node, g.device_id, g.gfx_target, g.bdf) == (1, "744c", "gfx1100", "0000:03:00.0")


# -- amd-smi ---------------------------------------------------------------------------------------

AMD_SMI_STATIC = """\
GPU: 0
    ASIC:
        MARKET_NAME: AMD Radeon Graphics
        VENDOR_ID: 0x1002
        DEVICE_ID: 0x150e
        REV_ID: 0xe4
        TARGET_GRAPHICS_VERSION: gfx1150
    BUS:
        BDF: 0000:c5:00.0
        MAX_PCIE_WIDTH: N/A
    DRIVER:
        NAME: amdgpu
    VRAM:
        TYPE: DDR5
        SIZE: 65536 MB
"""  # fixtures/real/019


def test_amd_smi_static_text():
    out = amd_smi.parse(AMD_SMI_STATIC)
    (g,) = out.gpus
    assert (g.device_id, g.revision, g.gfx_target, g.bdf) == ("150e", "e4", "gfx1150", "0000:c5:00.0")
    assert g.market_name == "AMD Radeon Graphics" and g.vram_bytes == 65536 * 1024 ** 2 and g.vram_type == "DDR5"
    assert amd_smi.kind_of(AMD_SMI_STATIC) == "amd-smi"


def test_amd_smi_version_line():
    line = ("AMDSMI Tool: 26.2.1+fc0010cf6a | AMDSMI Library version: 26.2.1 | ROCm version: 7.2.0 | "
            "amdgpu version: Linuxversion6.17.0-1012-oem(buildd@lcy02) | hsmp version: N/A\n")
    out = amd_smi.parse(line)  # fixtures/real/019
    assert (out.tool_version, out.library_version, out.rocm_version) == ("26.2.1+fc0010cf6a", "26.2.1", "7.2.0")
    assert out.gpus == [] and amd_smi.kind_of(line) == "amd-smi-version"


def test_amd_smi_json_old_and_new_sizes():
    new = ('[{"gpu": 0, "asic": {"market_name": "AMD Instinct MI300X", "vendor_id": "0x1002", "device_id": "0x74a1",'
           ' "rev_id": "0x00", "target_graphics_version": "gfx942"}, "bus": {"bdf": "0000:0c:00.0"},'
           ' "vram": {"type": "HBM", "size": {"value": 196592, "unit": "MB"}}}]')
    old = new.replace('{"value": 196592, "unit": "MB"}', '"196592 MB"')
    for text in (new, "```json\n" + old + "\n```\n$ "):
        (g,) = amd_smi.parse(text).gpus
        assert (g.device_id, g.gfx_target, g.bdf, g.vram_bytes) == ("74a1", "gfx942", "0000:0c:00.0", 196592 * 1024 ** 2)


def test_amd_smi_list():
    text = "GPU: 0\n    BDF: 0000:c5:00.0\n    UUID: 00ff150e-0000-1000-8000-000000000000\n    KFD_ID: 57812\n    NODE_ID: 1\n"
    (g,) = amd_smi.parse(text).gpus
    assert (g.bdf, g.node, g.kfd_id) == ("0000:c5:00.0", 1, "57812")


# -- lspci / lshw ----------------------------------------------------------------------------------

LSPCI_NN = """\
0000:03:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 [Radeon RX 7900 XT/7900 XTX] [1002:744c] (rev c8)
0000:03:00.1 Audio device [0403]: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 HDMI/DP Audio [1002:ab30]
0000:00:02.0 VGA compatible controller [0300]: Intel Corporation Raptor Lake-S GT1 [UHD Graphics 770] [8086:a780] (rev 04)
0000:01:00.0 3D controller [0302]: NVIDIA Corporation AD102 [GeForce RTX 4090] [10de:2684] (rev a1)
0000:c3:00.0 Display controller [0380]: Advanced Micro Devices, Inc. [AMD/ATI] Device [1002:150e] (rev c1)
"""


def test_lspci_nn_gpus_only_display_classes():
    out = lspci.parse(LSPCI_NN)
    assert len(out.devices) == 5
    gpus = out.gpus
    assert [(d.bdf, d.vendor, d.device_id, d.revision) for d in gpus] == [
        ("0000:03:00.0", "AMD", "744c", "c8"), ("0000:00:02.0", "Intel", "a780", "04"),
        ("0000:01:00.0", "NVIDIA", "2684", "a1"), ("0000:c3:00.0", "AMD", "150e", "c1")]
    assert gpus[0].device_name == "Navi 31 [Radeon RX 7900 XT/7900 XTX]"
    assert gpus[3].device_name is None  # "Device" is no name


def test_lspci_k_without_ids():
    text = real("011", "lspci.txt")  # lspci -k | grep -EA3 'VGA|3D'
    out = lspci.parse(text)
    assert [(d.bdf, d.revision, d.driver, d.is_amd) for d in out.gpus] == [
        ("0000:03:00.0", "c3", "amdgpu", True), ("0000:0c:00.0", "c2", "amdgpu", True)]
    assert out.gpus[1].device_name == "Granite Ridge [Radeon Graphics]"


def test_lspci_numeric_and_machine_readable_forms():
    (d,) = lspci.parse("03:00.0 0300: 1002:73bf (rev c1)\n").devices
    assert (d.class_id, d.vendor_id, d.device_id, d.revision) == ("0300", "1002", "73bf", "c1")
    mm = ('03:00.0 "VGA compatible controller [0300]" "Advanced Micro Devices, Inc. [AMD/ATI] [1002]" '
          '"Navi 31 [Radeon RX 7900 XT/7900 XTX] [744c]" -rc8 "Sapphire Technology Limited [1da2]" "Device [e471]"\n')
    (d,) = lspci.parse(mm).devices
    assert (d.class_id, d.vendor_id, d.device_id, d.revision, d.is_gpu) == ("0300", "1002", "744c", "c8", True)
    vmm = "Slot:\t03:00.0\nClass:\tVGA compatible controller [0300]\nVendor:\tAdvanced Micro Devices, Inc. [AMD/ATI] [1002]\n" \
          "Device:\tNavi 31 [744c]\nRev:\tc8\nDriver:\tamdgpu\n"
    (d,) = lspci.parse(vmm).devices
    assert (d.bdf, d.device_id, d.revision, d.driver) == ("0000:03:00.0", "744c", "c8", "amdgpu")


def test_lshw_vendor_only_product():
    text = real("026", "lshw-video.txt")  # product names only the vendor
    (d,) = lshw.parse(text).devices
    assert (d.bdf, d.revision, d.driver, d.is_amd, d.product_name) == ("0000:83:00.0", "c8", "amdgpu", True, None)


def test_lshw_numeric_and_json():
    text = ("  *-display\n       description: VGA compatible controller\n"
            "       product: Navi 31 [Radeon RX 7900 XT/7900 XTX] [1002:744C]\n"
            "       vendor: Advanced Micro Devices, Inc. [AMD/ATI] [1002]\n       bus info: pci@0000:03:00.0\n"
            "       version: c8\n       configuration: driver=amdgpu latency=0\n")
    (d,) = lshw.parse(text).devices
    assert (d.device_id, d.product_name, d.revision) == ("744c", "Navi 31 [Radeon RX 7900 XT/7900 XTX]", "c8")
    js = '[{"id": "display", "class": "display", "product": "AD102 [GeForce RTX 4090]", "vendor": "NVIDIA Corporation",' \
         ' "businfo": "pci@0000:01:00.0", "version": "a1", "configuration": {"driver": "nvidia"}}]'
    (d,) = lshw.parse(js).devices
    assert (d.bdf, d.driver, d.is_amd, d.vendor_short) == ("0000:01:00.0", "nvidia", False, "NVIDIA")


# -- sysfs -----------------------------------------------------------------------------------------

KFD_GPU = """\
cpu_cores_count 0
simd_count 192
mem_banks_count 1
gfx_target_version 110000
vendor_id 4098
device_id 29772
location_id 768
domain 0
drm_render_minor 128
"""


def test_kfd_properties():
    node = sysfs.parse_properties(KFD_GPU)
    assert node.is_gpu and not node.is_apu
    assert (node.vendor_id, node.device_id, node.bdf, node.gfx_target_version) == ("1002", "744c", "0000:03:00.0", 110000)
    cpu = sysfs.parse_properties("cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\n")
    assert not cpu.is_gpu
    apu = sysfs.parse_properties("cpu_cores_count 24\nsimd_count 912\ngfx_target_version 90402\n")
    assert apu.is_apu  # MI300A-style node


def test_kfd_properties_paste_of_several_nodes():
    text = "cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\n" + KFD_GPU
    out = sysfs.parse(text)
    assert [n.is_gpu for n in out.nodes] == [False, True]
    assert sysfs.looks_like(text) >= 0.5


def test_uevent_and_id_files():
    ue = sysfs.parse_uevent("DRIVER=amdgpu\nPCI_CLASS=30000\nPCI_ID=1002:744C\nPCI_SUBSYS_ID=1DA2:E471\n"
                            "PCI_SLOT_NAME=0000:03:00.0\n")
    assert (ue.driver, ue.vendor_id, ue.device_id, ue.bdf, ue.pci_class) == ("amdgpu", "1002", "744c", "0000:03:00.0", "030000")
    assert sysfs.parse_hex("0x1002\n") == "1002" and sysfs.parse_hex("0x030000\n", 6) == "030000"
    assert sysfs.is_gpu_class("030000") and sysfs.is_gpu_class("120000") and not sysfs.is_gpu_class("040300")
    assert sysfs.parse_hex("garbage") is None and sysfs.parse_int("") is None


def test_rocm_smi_showid_device_name():
    text = ("GPU[0]          : Device Name:          Navi 31 [Radeon RX 7900 XT/7900 XTX]\n"
            "GPU[0]          : Device ID:            0x744c\nGPU[0]          : Device Rev:           0xc8\n"
            "GPU[0]          : Subsystem ID:         0x5315\n")
    (g,) = rocm_smi.parse(text).gpus
    assert (g.device_id, g.revision, g.name, g.series) == ("744c", "c8", None, "Navi 31 [Radeon RX 7900 XT/7900 XTX]")


def test_rocm_agent_enumerator_output():
    out = rocminfo.parse("gfx000\ngfx1100\ngfx1036\n")
    assert [(a.gfx_target, a.is_gpu) for a in out.agents] == [(None, False), ("gfx1100", True), ("gfx1036", True)]
    assert rocminfo.looks_like("gfx000\ngfx1100\n") >= 0.5
