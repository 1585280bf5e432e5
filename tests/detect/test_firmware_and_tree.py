"""``amd-smi firmware`` (each GPU's firmware versions) and ``lspci -t`` (the bridges between a GPU
and its root port), issue 13."""
from __future__ import annotations

from pathlib import Path

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import amd_smi, lspci

REPO = Path(__file__).resolve().parents[2]

# amd-smi firmware of one MI355X, as pasted in an OCI bring-up guide for AMD 355X nodes (a public
# Markdown page in the search index; GPU 0 only, as it was printed)
AMD_SMI_FIRMWARE = """\
amd-smi firmware
GPU: 0
    FW_LIST:
        FW 0:
            FW_ID: CP_MEC1
            FW_VERSION: 41
        FW 1:
            FW_ID: CP_MEC2
            FW_VERSION: 41
        FW 2:
            FW_ID: RLC
            FW_VERSION: 43
        FW 3:
            FW_ID: SDMA0
            FW_VERSION: 12
        FW 4:
            FW_ID: SDMA1
            FW_VERSION: 12
        FW 5:
            FW_ID: VCN
            FW_VERSION: 09.10.90.31
        FW 6:
            FW_ID: RLC_RESTORE_LIST_GPM_MEM
            FW_VERSION: 4
        FW 7:
            FW_ID: RLC_RESTORE_LIST_SRM_MEM
            FW_VERSION: 4
        FW 8:
            FW_ID: RLC_RESTORE_LIST_CNTL
            FW_VERSION: 4
        FW 9:
            FW_ID: PSP_SOSDRV
            FW_VERSION: 00.45.00.29
        FW 10:
            FW_ID: TA_RAS
            FW_VERSION: 1B.45.00.0A
        FW 11:
            FW_ID: TA_XGMI
            FW_VERSION: 20.00.00.14
        FW 12:
            FW_ID: PM
            FW_VERSION: 04.86.15.106
        FW 13:
            FW_ID: PLDM_BUNDLE
            FW_VERSION: 01.25.17.07
"""

# sudo ./lspci -tvq from ROCm/tensorflow-upstream#92 (two RX Vega 64 on a Threadripper; first lines)
LSPCI_TREE = """\
-+-[0000:40]-+-00.0  Advanced Micro Devices, Inc. [AMD] Family 17h (Models 00h-0fh) Root Complex
 |           +-01.0  Advanced Micro Devices, Inc. [AMD] Family 17h (Models 00h-0fh) PCIe Dummy Host Bridge
 |           +-01.3-[41-43]----00.0-[42-43]----00.0-[43]--+-00.0  Advanced Micro Devices, Inc. [AMD/ATI] Vega 10 XT [Radeon RX Vega 64]
 |           |                                            \\-00.1  Advanced Micro Devices, Inc. [AMD/ATI] Device aaf8
 |           +-02.0  Advanced Micro Devices, Inc. [AMD] Family 17h (Models 00h-0fh) PCIe Dummy Host Bridge
 |           +-03.0  Advanced Micro Devices, Inc. [AMD] Family 17h (Models 00h-0fh) PCIe Dummy Host Bridge
 |           +-03.1-[44-46]----00.0-[45-46]----00.0-[46]--+-00.0  Advanced Micro Devices, Inc. [AMD/ATI] Vega 10 XT [Radeon RX Vega 64]
 |           |                                            \\-00.1  Advanced Micro Devices, Inc. [AMD/ATI] Device aaf8
 |           +-04.0  Advanced Micro Devices, Inc. [AMD] Family 17h (Models 00h-0fh) PCIe Dummy Host Bridge
"""


def test_amd_smi_firmware_text():
    out = amd_smi.parse(AMD_SMI_FIRMWARE)
    assert amd_smi.looks_like(AMD_SMI_FIRMWARE) >= 0.35
    [g] = out.gpus
    assert g.index == 0 and len(g.firmware) == 14
    assert g.firmware["PM"] == "04.86.15.106" and g.firmware["PSP_SOSDRV"] == "00.45.00.29"
    assert list(g.firmware)[:3] == ["CP_MEC1", "CP_MEC2", "RLC"]


def test_amd_smi_firmware_json():
    # --json: a list of {"gpu": N, "fw_list": [{"fw_id": .., "fw_version": ..}]} (the CLI's Fw record)
    out = amd_smi.parse('[{"gpu": 0, "fw_list": [{"fw_id": "MES", "fw_version": "0x00000083"}, '
                        '{"fw_id": "MES_KIQ", "fw_version": "0x0000006f"}]}]')
    assert out.gpus[0].firmware == {"MES": "0x00000083", "MES_KIQ": "0x0000006f"}


def test_firmware_joins_the_gpu_that_amd_smi_static_describes(tmp_path):
    (tmp_path / "firmware.txt").write_text(AMD_SMI_FIRMWARE)
    alone = detect_snapshot(str(tmp_path))
    assert len(alone.amd_gpus) == 1
    (tmp_path / "static.txt").write_text("GPU: 0\n    ASIC:\n        MARKET_NAME: AMD Instinct MI355X\n"
                                         "        TARGET_GRAPHICS_VERSION: gfx950\n    BUS:\n        BDF: 0000:05:00.0\n")
    system = detect_snapshot(str(tmp_path))
    [g] = system.amd_gpus
    assert g.bdf == "0000:05:00.0"
    fw = [n for n in g.notes if n.startswith("firmware")]
    assert fw and "firmware.txt" in fw[0] and "PM 04.86.15.106" in fw[0] and "CP_MEC1 41" in fw[0]


def test_lspci_tree_paths_to_the_root_port():
    out = lspci.parse(LSPCI_TREE)
    assert lspci.looks_like(LSPCI_TREE) >= 0.35
    assert out.path("0000:43:00.0") == ["0000:40:01.3", "0000:41:00.0", "0000:42:00.0", "0000:43:00.0"]
    assert out.path("0000:46:00.1") == ["0000:40:03.1", "0000:44:00.0", "0000:45:00.0", "0000:46:00.1"]
    assert out.path("0000:40:01.0") == ["0000:40:01.0"]  # on the root bus itself
    assert out.path("0000:99:00.0") == []
    names = {n.bdf: n.name for n in out.tree}
    assert names["0000:43:00.0"].endswith("Vega 10 XT [Radeon RX Vega 64]") and names["0000:42:00.0"] is None


def test_lspci_tree_of_a_real_fixture():
    text = next((REPO / "tests" / "data" / "real").glob("150-*/issue.txt")).read_text()
    out = lspci.parse(text)
    assert out.path("0000:01:00.0") == ["0000:00:01.0", "0000:01:00.0"]  # Hawaii, on root port 01.0
    assert out.path("0000:02:00.0") == ["0000:00:01.1", "0000:02:00.0"]  # Tahiti, on root port 01.1


def test_gpu_gets_its_pcie_path_note(tmp_path):
    (tmp_path / "lspci-t.txt").write_text(LSPCI_TREE)
    (tmp_path / "lspci.txt").write_text("43:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. "
                                        "[AMD/ATI] Vega 10 XT [Radeon RX Vega 64] [1002:687f] (rev c1)\n")
    [g] = detect_snapshot(str(tmp_path)).amd_gpus
    note = [n for n in g.notes if n.startswith("PCIe path")]
    assert note and "root port 0000:40:01.3" in note[0] and "2 bridges" in note[0]
