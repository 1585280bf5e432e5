"""Held-out set BA (tests/data/real/1340-1346): detection readers for system-information pastes.

* inxi's Graphics section (smxi/inxi, GraphicItem's PCI rows): each "Device-N:" item, wrapped onto indented lines
  or on one line, gives with -x its PCI address ("bus-ID: 03:00.0", lspci's bus:slot.function) and with -xx its
  vendor:device ids ("chip-ID: 1002:7550"); only AMD's (vendor 1002, or an AMD name where no chip-ID is shown).
* the kernel's oops and WARNING header (torvalds/linux lib/dump_stack.c dump_stack_print_info: "CPU: %d PID: %d
  Comm: %.20s %s%s %s %.*s", "UID: %u" after the CPU since 6.10) names the running kernel's release.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import dmesg, paste_facts
from rwtest.heldout import fixture as _fixture


def _inxi_gpus(text):
    return [(g.bdf, g.device_id) for g in paste_facts.parse(text).gpus if g.how == "inxi"]


# -- inxi's Graphics devices (1340) -------------------------------------------------------------------
def test_1340_inxis_device_gives_the_gpus_address_and_id():
    system = detect_snapshot(str(_fixture("1340")))
    assert [(g.bdf, g.device_id) for g in system.gpus if g.is_amd is not False] == [("0000:03:00.0", "7550")]
    assert system.os.kernel == "7.2.3-1-cachyos"


def test_inxi_one_line_items_and_several_gpus():
    text = (
        "System:\n  Host: box Kernel: 6.12.48+deb13-amd64 arch: x86_64 bits: 64\n"
        "  Desktop: KDE Plasma v: 6.3.6 Distro: Debian GNU/Linux 13 (trixie)\n"
        "Graphics:\n"
        "  Device-1: NVIDIA AD104 [GeForce RTX 4070] vendor: ASUSTeK driver: nvidia v: 550.54.14 arch: Lovelace "
        "bus-ID: 01:00.0 chip-ID: 10de:2786\n"
        "  Device-2: Advanced Micro Devices [AMD/ATI] Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M] "
        "vendor: Sapphire driver: amdgpu v: kernel arch: RDNA-3 bus-ID: 0b:00.0 chip-ID: 1002:744c class-ID: 0300\n"
        "  Device-3: Advanced Micro Devices [AMD/ATI] Raphael vendor: ASUSTeK driver: amdgpu v: kernel "
        "arch: RDNA-2 bus-ID: 0001:15:00.0 chip-ID: 1002:164e\n"
        "  Device-4: Logitech C920 HD Pro Webcam driver: snd-usb-audio,uvcvideo type: USB bus-ID: 3-4:2 chip-ID: 046d:082d\n"
        "  Display: wayland server: X.org v: 1.21.1.16 with: Xwayland v: 24.1.6 compositor: kwin_wayland driver: X: "
        "loaded: amdgpu gpu: amdgpu,nvidia\n"
        "Audio:\n  Device-1: Advanced Micro Devices [AMD/ATI] Navi 31 HDMI/DP Audio driver: snd_hda_intel "
        "bus-ID: 0b:00.1 chip-ID: 1002:ab30\n")
    assert _inxi_gpus(text) == [("0000:0b:00.0", "744c"), ("0001:15:00.0", "164e")]


def test_inxi_without_chip_ids_reads_amd_devices_by_name():
    # inxi -Fx (no -xx): the bus-ID only; the device is AMD's by its name (inxi -z's short vendor too)
    text = ("System:\n  Kernel: 6.8.0-51-generic arch: x86_64 bits: 64 Desktop: GNOME v: 46.0\n"
            "    Distro: Ubuntu 24.04.1 LTS (Noble Numbat)\n"
            "Graphics:\n  Device-1: AMD Navi 33 [Radeon RX 7600/7600 XT/7600M XT/7600S/7700S / PRO W7600]\n"
            "    vendor: Sapphire driver: amdgpu v: kernel arch: RDNA-3 bus-ID: 03:00.0\n"
            "  Device-2: Intel Raptor Lake-S GT1 [UHD Graphics 770] driver: i915 v: kernel arch: Gen-13 bus-ID: 00:02.0\n")
    assert _inxi_gpus(text) == [("0000:03:00.0", None)]


@pytest.mark.parametrize("text", [
    # the audio function of an AMD GPU is not a GPU
    "System:\n  Kernel: 6.8.0 arch: x86_64\nAudio:\n  Device-1: Advanced Micro Devices [AMD/ATI] Navi 31 HDMI/DP Audio "
    "driver: snd_hda_intel bus-ID: 0b:00.1 chip-ID: 1002:ab30\n",
    # a USB device's bus-ID in Graphics (a webcam) is no PCI address
    "System:\n  Kernel: 6.8.0 arch: x86_64\nGraphics:\n  Device-1: AMD webcam driver: uvcvideo type: USB bus-ID: 1-2:3 "
    "chip-ID: 1002:0001\n",
    # prose that mentions a bus-ID is no inxi report
    "My Graphics: card is at bus-ID: 03:00.0 and chip-ID: 1002:7550 according to a forum post.\n",
])
def test_no_gpu_from_what_is_not_an_inxi_graphics_device(text):
    assert _inxi_gpus(text) == []


# -- the oops / WARNING header's release (1345) -----------------------------------------------------
def test_1345_the_warning_headers_release_is_the_kernel():
    assert detect_snapshot(str(_fixture("1345"))).os.kernel == "6.17.0-14-generic"


@pytest.mark.parametrize("log,rel", [
    # 6.10 and later: UID after the CPU, the preemption model after the version (the fixture's form)
    ("Mar 12 00:28:40 thinkpaddy kernel: CPU: 13 UID: 1001 PID: 160480 Comm: Xorg Tainted: G           O        "
     "6.17.0-14-generic #14~24.04.1-Ubuntu PREEMPT(voluntary) \n", "6.17.0-14-generic"),
    # older kernels (ROCm/amdgpu#103; justxi/rocm#72)
    ("[    1.977818] CPU: 6 PID: 201 Comm: systemd-udevd Tainted: G           O      5.4.0-54-generic #60-Ubuntu\n",
     "5.4.0-54-generic"),
    ("[ 2237.118842] CPU: 2 PID: 8730 Comm: clinfo Tainted: G           O      5.1.15-gentoo #3\n"
     "[ 2237.118843] RIP: 0010:amdgpu_ib_schedule+0x48/0x445 [amdgpu]\n", "5.1.15-gentoo"),
    # an untainted kernel, and a loaded crash kernel
    ("[  120.114410] CPU: 4 PID: 2210 Comm: kworker/4:2 Not tainted 6.8.0-45-generic #45-Ubuntu\n", "6.8.0-45-generic"),
    ("[  120.114410] CPU: 4 PID: 2210 Comm: python3 Kdump: loaded Tainted: G        W          "
     "5.14.0-427.13.1.el9_4.x86_64 #1\n", "5.14.0-427.13.1.el9_4.x86_64"),
])
def test_the_oops_header_names_the_release(log, rel):
    assert dmesg.kernel_version(log) == rel


def test_the_boot_line_wins_and_prose_is_not_a_header():
    log = ("[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075) (x86_64-linux-gnu-gcc-13) #45-Ubuntu SMP\n"
           "[  120.114410] CPU: 4 PID: 2210 Comm: kworker/4:2 Tainted: G        W          6.8.0-45-generic #45-Ubuntu\n")
    assert dmesg.kernel_version(log) == "6.8.0-45-generic"
    assert dmesg.kernel_version("[ 1.0] amdgpu: the CPU: 4 PID: 22 Comm: foo hung on kernel 6.8\n") is None
