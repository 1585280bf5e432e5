"""(s12-heldav, held-out set AV) amdgpu_top's device list: the DevicePath struct it prints in Rust's Debug format
('amdgpu_top -d', its errors and its fallbacks) names the GPU's PCI address and, since 0.10, its device and revision
ids and name.  Read from the fixture (1247, Umio-Yasuno/amdgpu_top#92), from the other releases' forms (#46's
Some("..."), rjmalagon/ollama-linux-amd-apu#2's 0.10.3 line) and not from a DevicePath without an address."""
from __future__ import annotations

from rocm_wizard.detect.parsers import paste_facts
from rwtest import realrun
from rwtest.heldout import fixture


def _gpus(text):
    return [(g.how, g.bdf, g.device_id, g.revision, g.name) for g in paste_facts.parse(text).gpus]


def test_the_fixture_gives_the_address():
    assert "0000:04:00.0" in {g.bdf for g in realrun.snapshot(fixture("1247")).amd_gpus}


def test_amdgpu_top_0_9():
    line = '#0 DevicePath { render: "/dev/dri/renderD128", card: "/dev/dri/card1", pci: "0000:04:00.0" }'
    assert _gpus(line) == [("amdgpu_top", "0000:04:00.0", None, None, None)]


def test_amdgpu_top_0_10_adds_ids_and_name():
    line = ('#0 DevicePath { render: "/dev/dri/renderD128", card: "/dev/dri/card1", accel: "", pci: "0000:0a:00.0", '
            'sysfs_path: "/sys/bus/pci/devices/0000:0a:00.0", device_id: Some(5686), revision_id: Some(217), '
            'device_name: "AMD Radeon Graphics", device_type: AMDGPU }')
    assert _gpus(line) == [("amdgpu_top", "0000:0a:00.0", "1636", "d9", "AMD Radeon Graphics")]


def test_older_releases_wrap_the_address_in_some():
    line = 'Fallback: to: DevicePath { render: "/dev/dri/renderD129", card: "/dev/dri/card1", pci: Some("0000:04:00.0") }'
    assert [g[1] for g in _gpus(line)] == ["0000:04:00.0"]


def test_no_address_no_gpu():
    assert _gpus('Error: DevicePath { render: "/dev/dri/renderD128", card: "/dev/dri/card0", pci: None }') == []
    # a Rust program's own struct of that name without amdgpu_top's fields
    assert _gpus('DevicePath { path: "/dev/sda1" }') == []
