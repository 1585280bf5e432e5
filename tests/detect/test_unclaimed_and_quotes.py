"""A GPU that no driver claimed (``lspci -k`` with only ``Kernel modules:``, ``lshw`` ``UNCLAIMED``)
and pastes quoted in an e-mail or a Markdown reply (issue 13)."""
from __future__ import annotations

from rocm_wizard.detect.parsers import lshw, lspci
from rocm_wizard.detect.parsers._paste import clean_lines

# sudo lshw -C video, as posted on ubuntuforums.org ("can't adjust screen brightness", 2014-12-02;
# lubuntu 14.04 booted with nomodeset on an Acer Aspire E5-551G)
LSHW_UNCLAIMED = """\
siebrant@Flappy:~$ sudo lshw -C video[sudo] 
password for siebrant: 
  *-display UNCLAIMED     
       description: VGA compatible controller
       product: Kaveri
       vendor: Advanced Micro Devices, Inc. [AMD/ATI]
       physical id: 1
       bus info: pci@0000:00:01.0
       version: 00
       width: 64 bits
       clock: 33MHz
       capabilities: pm pciexpress msi vga_controller bus_master cap_list
       configuration: latency=0
       resources: memory:e0000000-efffffff memory:f0000000-f07fffff ioport:4000(size=256) memory:f0b00000-f0b3ffff memory:f0b60000-f0b7ffff
  *-display UNCLAIMED
       description: Display controller
       product: Opal XT [Radeon R7 M265]
       vendor: Advanced Micro Devices, Inc. [AMD/ATI]
       physical id: 0
       bus info: pci@0000:01:00.0
       version: 00
       width: 64 bits
       clock: 33MHz
       capabilities: pm pciexpress msi bus_master cap_list
       configuration: latency=0
       resources: memory:d0000000-dfffffff memory:f0a00000-f0a3ffff ioport:3000(size=256) memory:f0a40000-f0a5ffff
"""

CLAIMED = """\
  *-display
       description: VGA compatible controller
       product: Navi 31 [Radeon RX 7900 XT/7900 XTX/7900M]
       vendor: Advanced Micro Devices, Inc. [AMD/ATI]
       bus info: pci@0000:03:00.0
       configuration: driver=amdgpu latency=0
"""


def test_lshw_unclaimed_nodes():
    out = lshw.parse(LSHW_UNCLAIMED)
    assert [(d.bdf, d.claimed, d.driver) for d in out.devices] == [("0000:00:01.0", False, None),
                                                                 ("0000:01:00.0", False, None)]
    assert out.devices[1].line.startswith("*-display UNCLAIMED")
    assert [d.claimed for d in lshw.parse(CLAIMED).devices] == [None]


def test_lshw_json_claimed_false():
    out = lshw.parse('[{"id": "display", "class": "display", "claimed": false, "vendor": "Advanced Micro Devices, Inc. [AMD/ATI]",'
                     ' "businfo": "pci@0000:03:00.0"}]')
    assert out.devices[0].claimed is False


def test_lspci_k_modules_without_driver_is_unclaimed():
    text = ("03:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 (rev c8)\n"
            "\tSubsystem: Sapphire Technology Limited Device 471e\n"
            "\tKernel modules: amdgpu\n"
            "04:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 (rev c8)\n"
            "\tKernel driver in use: amdgpu\n"
            "\tKernel modules: amdgpu\n"
            "05:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 (rev c8)\n")
    devs = lspci.parse(text).devices
    assert [d.unclaimed for d in devs] == [True, False, False]  # the last: plain lspci, no driver info at all


def test_quoted_paste_loses_its_quote_marks_only_when_all_lines_are_quoted():
    assert clean_lines("> 03:00.0 VGA\n>         Kernel modules: amdgpu\n>\n> > nested") == [
        "03:00.0 VGA", "        Kernel modules: amdgpu", "", "nested"]
    mixed = "x > y\n> quoted"
    assert clean_lines(mixed) == ["x > y", "> quoted"]
    repl = ">>> import torch\n>>> torch.cuda.is_available()"
    assert clean_lines(repl) == [">>> import torch", ">>> torch.cuda.is_available()"]


def test_unclaimed_gpu_is_a_sighting_in_a_snapshot(tmp_path):
    from rocm_wizard.detect import detect_snapshot

    (tmp_path / "lshw.txt").write_text(LSHW_UNCLAIMED)
    system = detect_snapshot(str(tmp_path))
    hits = [e.text for e in system.errors if e.signature == "gpu_unclaimed"]
    assert len(hits) == 2 and all("*-display UNCLAIMED" in h for h in hits)
    assert any("Opal XT" in h for h in hits)
    (tmp_path / "lshw.txt").write_text(CLAIMED)
    assert not [e for e in detect_snapshot(str(tmp_path)).errors if e.signature == "gpu_unclaimed"]
