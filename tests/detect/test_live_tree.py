"""A fake /sys, /proc, /opt and /etc tree read through ``LiveSource(root=tmp, commands=False)``:
GPUs from PCI sysfs + KFD + IP discovery + the PCI table, non-AMD GPUs, skipped functions, ROCm
installs, apt configuration -- and the same tree through ``rocm-wizard snapshot`` and back."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from rocm_wizard.detect.probes import gpus as gpus_probe
from rocm_wizard.detect.probes import rocm as rocm_probe
from rocm_wizard.detect.sources import LiveSource
from rocm_wizard.model import System, to_dict

PCI = "sys/bus/pci/devices"
NODES = "sys/class/kfd/kfd/topology/nodes"


def _w(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def _pci(root: Path, bdf: str, cls: str, vendor: str, device: str, rev: str, driver: str = None, **extra) -> None:
    base = "%s/%s" % (PCI, bdf)
    _w(root, base + "/class", "0x%s\n" % cls)
    _w(root, base + "/vendor", "0x%s\n" % vendor)
    _w(root, base + "/device", "0x%s\n" % device)
    _w(root, base + "/revision", "0x%s\n" % rev)
    if driver:
        drv = root / "sys/bus/pci/drivers" / driver
        drv.mkdir(parents=True, exist_ok=True)
        os.symlink("../../../../bus/pci/drivers/" + driver, root / base / "driver")
    for name, value in extra.items():
        _w(root, base + "/" + name.replace("__", "/"), value)


def build_tree(root: Path) -> Path:
    # 1: RX 7900 XTX (744c rev c8) with a KFD node, IP discovery and VRAM size
    _pci(root, "0000:03:00.0", "030000", "1002", "744c", "c8", "amdgpu", mem_info_vram_total="25753026560\n",
         ip_discovery__die__0__GC__0__major="11\n", ip_discovery__die__0__GC__0__minor="0\n",
         ip_discovery__die__0__GC__0__revision="0\n")
    # its HDMI audio function: not a GPU
    _pci(root, "0000:03:00.1", "040300", "1002", "ab30", "00", "snd_hda_intel")
    # 2: RX 7800 XT (747e) without KFD (driver not bound): gfx from IP discovery, GC 11.0.3 = gfx1101
    _pci(root, "0000:08:00.0", "030000", "1002", "747e", "c8", ip_discovery__die__0__GC__0__major="11\n",
         ip_discovery__die__0__GC__0__minor="0\n", ip_discovery__die__0__GC__0__revision="3\n")
    # 3: RX 6800 (73bf rev c3): neither KFD nor IP discovery -> the PCI table
    _pci(root, "0000:0a:00.0", "030000", "1002", "73bf", "c3", "amdgpu")
    # 4: Granite Ridge iGPU (13c0) as a display controller with a KFD node
    _pci(root, "0000:0c:00.0", "038000", "1002", "13c0", "c2", "amdgpu")
    # 5: Intel iGPU and 6: NVIDIA card: listed, not AMD
    _pci(root, "0000:00:02.0", "030000", "8086", "a780", "04", "i915")
    _pci(root, "0000:01:00.0", "030200", "10de", "2684", "a1", "nvidia")
    # a PCIe switch port of the Navi card: not a GPU
    _pci(root, "0000:02:00.0", "060400", "1002", "1478", "10", "pcieport")

    # KFD: CPU node 0, dGPU node 1, iGPU node 2
    _w(root, NODES + "/0/properties", "cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\nvendor_id 0\n")
    _w(root, NODES + "/1/properties", "cpu_cores_count 0\nsimd_count 192\ngfx_target_version 110000\n"
       "vendor_id 4098\ndevice_id 29772\nlocation_id 768\ndomain 0\ndrm_render_minor 128\n")
    _w(root, NODES + "/1/mem_banks/0/properties", "heap_type 1\nsize_in_bytes 25753026560\n")
    _w(root, NODES + "/2/properties", "cpu_cores_count 0\nsimd_count 4\ngfx_target_version 100306\n"
       "vendor_id 4098\ndevice_id 5056\nlocation_id 3072\ndomain 0\n")

    # drm cards: card0 -> the 7900 XTX (uevent gives the slot)
    (root / "sys/class/drm/card0").mkdir(parents=True)
    os.symlink("../../../bus/pci/devices/0000:03:00.0", root / "sys/class/drm/card0/device")
    _w(root, PCI + "/0000:03:00.0/uevent", "DRIVER=amdgpu\nPCI_CLASS=30000\nPCI_ID=1002:744C\n"
       "PCI_SLOT_NAME=0000:03:00.0\n")
    (root / "sys/class/drm/renderD128").mkdir(parents=True)

    # kernel driver: AMD's DKMS build
    _w(root, "proc/modules", "amdgpu 19632128 0 - Live 0x0000000000000000 (OE)\n"
       "amdkcl 32768 3 amd_sched,amdttm,amdgpu, Live 0x0000000000000000 (OE)\n"
       "snd_hda_intel 61440 3 - Live 0x0000000000000000\n")
    _w(root, "sys/module/amdgpu/version", "6.8.5\n")

    # ROCm: two releases, /opt/rocm -> /etc/alternatives/rocm -> /opt/rocm-6.2.4
    _w(root, "opt/rocm-6.2.4/.info/version", "6.2.4-139\n")
    (root / "opt/rocm-6.2.4/bin").mkdir(parents=True)
    _w(root, "opt/rocm-6.1.3/include/rocm-core/rocm_version.h",
       "#define ROCM_VERSION_MAJOR 6\n#define ROCM_VERSION_MINOR 1\n#define ROCM_VERSION_PATCH 3\n")
    (root / "etc/alternatives").mkdir(parents=True)
    os.symlink("/opt/rocm-6.2.4", root / "etc/alternatives/rocm")
    os.symlink("/etc/alternatives/rocm", root / "opt/rocm")
    (root / "opt/google").mkdir()

    # apt
    _w(root, "etc/apt/sources.list.d/rocm.list",
       "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.2.4 noble main\n"
       "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/graphics/6.2.4/ubuntu noble main\n")
    _w(root, "etc/apt/sources.list.d/amdgpu.list",
       "deb [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/amdgpu/6.2.4/ubuntu noble main\n"
       "#deb-src [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/amdgpu/6.2.4/ubuntu noble main\n")
    _w(root, "etc/apt/sources.list.d/ubuntu.sources",
       "Types: deb\nURIs: http://archive.ubuntu.com/ubuntu/\nSuites: noble noble-updates\nComponents: main universe\n")
    _w(root, "etc/apt/preferences.d/rocm-pin-600", "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n")
    _w(root, "etc/apt/preferences.d/firefox", "Package: firefox*\nPin: release o=LP-PPA-mozillateam\nPin-Priority: 1001\n")
    _w(root, "etc/os-release", 'NAME="Ubuntu"\nID=ubuntu\nVERSION_ID="24.04"\nVERSION_CODENAME=noble\n')
    _w(root, "proc/sys/kernel/hostname", "testbox\n")
    return root


@pytest.fixture
def tree(tmp_path):
    return build_tree(tmp_path / "root")


def _detect(source) -> System:
    system = System(origin="live")
    gpus_probe.probe(source, system)
    rocm_probe.probe(source, system)
    return system


def _by_bdf(system: System):
    return {g.bdf: g for g in system.gpus}


def test_gpus_from_a_live_tree(tree):
    system = _detect(LiveSource(root=str(tree), commands=False))
    gpus = _by_bdf(system)
    assert set(gpus) == {"0000:03:00.0", "0000:08:00.0", "0000:0a:00.0", "0000:0c:00.0", "0000:00:02.0", "0000:01:00.0"}
    xtx = gpus["0000:03:00.0"]
    assert (xtx.pci_id, xtx.revision, xtx.gfx_target, xtx.kfd_node, xtx.driver) == ("1002:744c", "c8", "gfx1100", 1, "amdgpu")
    assert xtx.sources["gfx_target"] == "file:/sys/class/kfd/kfd/topology/nodes/1/properties"
    assert xtx.name == "AMD Radeon RX 7900 XTX" and xtx.sources["name"] == "catalog:gpus.csv"  # 744c rev c8
    assert (xtx.kind, xtx.chip_family, xtx.segment, xtx.vram_bytes) == ("dgpu", "NAVI31", "radeon", 25753026560)
    navi32 = gpus["0000:08:00.0"]
    assert navi32.gfx_target == "gfx1101" and "IP discovery GC 11.0.3" in navi32.sources["gfx_target"]
    assert navi32.name == "AMD Radeon RX 7800 XT" and navi32.kfd_node is None and navi32.driver is None
    rx6800 = gpus["0000:0a:00.0"]
    assert (rx6800.gfx_target, rx6800.sources["gfx_target"], rx6800.name) == ("gfx1030", "catalog:gpus.csv", "AMD Radeon RX 6800")
    igpu = gpus["0000:0c:00.0"]
    assert (igpu.gfx_target, igpu.kfd_node, igpu.kind, igpu.chip_family) == ("gfx1036", 2, "igpu", "RAPHAEL_MENDOCINO")
    intel, nvidia = gpus["0000:00:02.0"], gpus["0000:01:00.0"]
    assert not intel.is_amd and not nvidia.is_amd
    assert (intel.driver, nvidia.driver, nvidia.pci_id, nvidia.gfx_target) == ("i915", "nvidia", "10de:2684", None)
    assert nvidia.name.startswith("NVIDIA")
    assert len(system.amd_gpus) == 4  # audio function, switch port and CPU node are not GPUs


def test_rocm_from_a_live_tree(tree):
    r = _detect(LiveSource(root=str(tree), commands=False)).rocm
    assert r.version == "6.2.4" and r.sources["version"] == "file:/opt/rocm-6.2.4/.info/version"
    assert r.opt_rocm_target == "/opt/rocm-6.2.4"
    assert sorted((i.path, i.version, i.build) for i in r.installs) == [
        ("/opt/rocm-6.1.3", "6.1.3", None), ("/opt/rocm-6.2.4", "6.2.4", "139")]
    assert any("several ROCm releases" in n for n in r.notes)
    assert (r.amdgpu_loaded, r.amdgpu_version) == (True, "6.8.5")
    assert any("DKMS build" in n for n in r.notes)
    radeon = [(s.repo_kind, s.release, s.enabled) for s in r.apt_sources if s.radeon]
    assert sorted(radeon) == [("amdgpu", "6.2.4", False), ("amdgpu", "6.2.4", True), ("graphics", "6.2.4", True),
                              ("rocm", "6.2.4", True)]
    assert not any("archive.ubuntu.com" in (s.uri or "") for s in r.apt_sources)
    assert [(p.package, p.pin, p.priority) for p in r.apt_pins] == [("*", "release o=repo.radeon.com", 600)]
    # no commands ran: no package list, no HSA runtime; said so, not guessed
    assert r.packages == {} and r.hsa_runtime_version is None and r.distro_offers_rocm is None
    assert any("HSA runtime" in n for n in r.notes)


def test_empty_tree_gives_notes_not_errors(tmp_path):
    system = _detect(LiveSource(root=str(tmp_path), commands=False))
    assert system.gpus == [] and any("no GPU found" in n for n in system.notes)
    assert system.rocm.version is None and system.rocm.installs == []
    assert any("no host ROCm release" in n for n in system.rocm.notes)


def test_garbage_sysfs_values_do_not_break_detection(tree):
    (tree / PCI / "0000:03:00.0/device").write_bytes(b"\xff\xfe garbage")
    (tree / NODES / "1/properties").write_text("gfx_target_version banana\nsimd_count 192\n")
    (tree / "opt/rocm-6.2.4/.info/version").write_text("not a version\n")
    system = _detect(LiveSource(root=str(tree), commands=False))
    assert len(system.amd_gpus) >= 4
    assert system.rocm.installs  # still listed, with a note


def test_snapshot_round_trip(tree, tmp_path):
    from rocm_wizard import snapshot
    from rocm_wizard.detect.bundle import open_snapshot

    live = LiveSource(root=str(tree), commands=False)
    direct = _detect(live)
    out = tmp_path / "bundle.tar.gz"
    snapshot.take(str(out), source=LiveSource(root=str(tree), commands=False))
    assert out.is_file()
    replay = _detect(open_snapshot(str(out)))
    assert to_dict(replay.gpus) == to_dict(direct.gpus)
    a, b = to_dict(direct.rocm), to_dict(replay.rocm)
    assert a == b
