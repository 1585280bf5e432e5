"""System-information tools pasted into threads: inxi (several key: value pairs a line, sections),
neofetch (GPU as "AMD ATI <pci.ids name>", "OS: <name> x86_64") and fastfetch ("[Discrete]",
"GPU 1:"): the distribution, kernel and GPU they show are detected (tests/data/sysinfo/README.md)."""
from pathlib import Path

import pytest

from rocm_wizard.catalog.gpus import gfx_of_product
from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import issue_form, os_release

DATA = Path(__file__).resolve().parents[1] / "data"


def _detect(tmp_path: Path, text: str, name: str = "paste.txt"):
    (tmp_path / name).write_text(text)
    return detect_snapshot(str(tmp_path))


def _gpus(system):
    return [(g.name, g.gfx_target) for g in system.gpus]


# -- inxi ----------------------------------------------------------------------------------------

def test_real_inxi_old_layout(tmp_path):
    """inxi 2.x -Fx (nixGL#5): the section's first line on its own line, Distro on a continuation line,
    the GPU as "Card:"."""
    form = issue_form.parse((DATA / "sysinfo" / "inxi-fx-nixos-tahiti.txt").read_text())
    assert form.kernel == ["4.9.86"]
    assert form.os == ["NixOS 17.09.3159.c665fcca9e7 (Hummingbird)"]
    assert form.gpu == ["Advanced Micro Devices [AMD/ATI] Tahiti PRO [Radeon HD 7950/8950 OEM / R9 280]"]
    assert issue_form.gpu_name(form.gpu[0]).startswith("AMD Tahiti PRO [Radeon HD 7950")


def test_real_inxi_bsd_kernel_is_no_linux_release():
    """inxi -b on FreeBSD (inxi#258): "Kernel: FreeBSD 14.0-CURRENT" is not a kernel release; the
    network section's "Device-1" is not a GPU."""
    form = issue_form.parse((DATA / "sysinfo" / "inxi-b-freebsd-thames.txt").read_text())
    assert form.kernel == []
    assert form.gpu == ["Advanced Micro Devices [AMD/ATI] Thames [Radeon HD 7550M/7570M/7650M]"]
    assert form.cpu == []  # "Info: Quad Core ..." has no model: key in this layout


INXI_NEW = """System:
  Host: box Kernel: 6.12.48+deb13-amd64 arch: x86_64 bits: 64
  Desktop: KDE Plasma v: 6.3.6 Distro: Debian GNU/Linux 13 (trixie)
CPU:
  Info: 8-core model: AMD Ryzen 7 9800X3D bits: 64 type: MT MCP cache: L2: 8 MiB
Graphics:
  Device-1: Advanced Micro Devices [AMD/ATI] Navi 48 [Radeon RX 9070/9070 XT/9070 GRE]
    vendor: Sapphire driver: amdgpu v: kernel arch: RDNA-4 bus-ID: 03:00.0 chip-ID: 1002:7550
Network:
  Device-1: Realtek RTL8125 2.5GbE driver: r8169
"""


def test_inxi_current_layout(tmp_path):
    system = _detect(tmp_path, INXI_NEW)
    assert (system.os.id, system.os.version_id) == ("debian", "13")
    assert system.os.kernel == "6.12.48+deb13-amd64"
    assert [gfx for _, gfx in _gpus(system)] == ["gfx1201"]


def test_inxi_short_vendor_and_one_pair_a_line(tmp_path):
    """inxi -z writes the vendor as "AMD"; -y1 puts one pair on a line."""
    text = ("System:\n  Kernel: 6.17.7-300.fc43.x86_64\n    arch: x86_64\n  Distro: Fedora Linux 43 (Workstation Edition)\n"
            "Graphics:\n  Device-1: AMD Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]\n    vendor: XFX\n"
            "    driver: amdgpu\n      v: kernel\n")
    system = _detect(tmp_path, text)
    assert (system.os.id, system.os.version_id) == ("fedora", "43")
    assert system.os.kernel == "6.17.7-300.fc43.x86_64"
    assert [gfx for _, gfx in _gpus(system)] == ["gfx1100"]


def test_key_value_lines_that_are_no_inxi_report_are_left_alone():
    """One "System:" line in prose is no inxi report: its pairs are not read as inxi's."""
    form = issue_form.parse("System: my box has Kernel: something odd Distro: see below\nGPU: AMD Radeon RX 7600\n")
    assert form.kernel == [] and form.os == []
    assert form.gpu == ["AMD Radeon RX 7600"]


# -- neofetch / fastfetch ------------------------------------------------------------------------

@pytest.mark.parametrize("number, gfx", [("269", "gfx1150"), ("317", "gfx1010")])
def test_real_neofetch_gpu(number, gfx):
    folder = next((DATA / "real").glob(number + "-*"))
    system = detect_snapshot(str(folder))
    assert [g for _, g in _gpus(system)] == [gfx]  # one device, even when its name lists two products


@pytest.mark.parametrize("value, gfx", [
    ("AMD ATI Radeon RX 7600/7600 XT/7600M XT/7600S/7700S / PRO W7600", "gfx1102"),
    ("AMD ATI Radeon RX 6700/6700 XT/6750 XT / 6800M/6850M XT", "gfx1031"),
    ("AMD ATI Radeon 8050S / 8060S Graphics", "gfx1151"),
    ("AMD Radeon RX 9070 XT [Discrete]", "gfx1201"),
    ("AMD Radeon 8060S Graphics @ 2.90 GHz [Integrated]", "gfx1151"),
])
def test_neofetch_and_fastfetch_gpu_values(value, gfx):
    name = issue_form.gpu_name(value)
    assert name and gfx_of_product(name) == gfx


def test_user_typed_gpu_lists_stay_ambiguous():
    """A list typed by a user ("RX 7900 XTX / RX 6800") may be two GPUs: not read as one."""
    assert issue_form.gpu_name("RX 7900 XTX / RX 6800") is None
    assert issue_form.gpu_name("2x AMD Radeon RX 7900 XTX") is None


def test_fastfetch_numbered_gpus(tmp_path):
    system = _detect(tmp_path, "OS: Arch Linux x86_64\nKernel: Linux 6.17.9-arch1-1\n"
                               "GPU 1: AMD Radeon RX 7900 XTX [Discrete]\n")
    assert (system.os.id, system.os.version_id) == ("arch", "rolling")
    assert [gfx for _, gfx in _gpus(system)] == ["gfx1100"]


@pytest.mark.parametrize("pretty, ident, version", [
    ("CachyOS x86_64", "cachyos", None),  # not "86" from the architecture
    ("Arch Linux x86_64", "arch", "rolling"),
    ("Linux Mint 22.1 x86_64", "linuxmint", "22.1"),
    ("Ubuntu 25.10 x86_64", "ubuntu", "25.10"),
    ("Ubuntu 24.04.2 LTS (x86_64)", "ubuntu", "24.04"),
])
def test_os_line_with_a_trailing_architecture(pretty, ident, version):
    r = os_release.from_pretty(pretty)
    assert (r.id, r.version_id) == (ident, version)


def test_an_inxi_report_beside_other_outputs_leaves_them_read():
    """The inxi block ends at the first line at the margin that is no section; what follows is read as usual,
    and a neofetch block (its "CPU:", "Memory:" lines) beside hostnamectl's "Operating System:" is no inxi."""
    form = issue_form.parse(INXI_NEW + "$ rocminfo | head\n### GPU\nAMD Radeon RX 9070 XT\nOS: Ubuntu 24.04\n")
    assert form.kernel == ["6.12.48+deb13-amd64"]
    assert form.os == ["Debian GNU/Linux 13 (trixie)", "Ubuntu 24.04"]
    assert "AMD Radeon RX 9070 XT" in form.gpu
    neo = ("OS: Ubuntu 25.10 x86_64\nCPU: AMD Ryzen 9 7950X (32) @ 5.88 GHz\nMemory: 3000MiB / 32000MiB\n"
           "GPU: AMD ATI Radeon RX 7600/7600 XT/7600M XT/7600S/7700S / PRO W7600\n Operating System: Ubuntu 25.10\n")
    form = issue_form.parse(neo)
    assert form.os[0] == "Ubuntu 25.10 x86_64" and form.cpu == ["AMD Ryzen 9 7950X (32) @ 5.88 GHz"]
    assert form.gpu == ["AMD ATI Radeon RX 7600/7600 XT/7600M XT/7600S/7700S / PRO W7600"]


def test_the_line_that_ends_an_inxi_report_is_read_as_usual():
    form = issue_form.parse(INXI_NEW + "OS: Ubuntu 24.04\n")
    assert form.os == ["Debian GNU/Linux 13 (trixie)", "Ubuntu 24.04"]


def test_inxi_reading_is_linear_on_hostile_input():
    """Many "System:" lines that start no report, then many two-line reports: each line is read once.  Run in a
    child with a bound (tests/detect/test_hostile_input.py's way): a quadratic walk over these 160 000 lines
    would take hours, the linear one a second."""
    import os
    import subprocess
    import sys

    code = ("from rocm_wizard.detect.parsers import issue_form\n"
            "f = issue_form.parse('System: x\\nfoo\\n' * 40000 + 'System: y\\nGraphics:\\n' * 40000)\n"
            "print(len(f.os), len(f.kernel))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["0", "0"]
