"""BundleSource: snapshot bundles (directory / tarball), pasted files, safety limits, and the real
fixture folders read as pastes against their labels.toml ground truth."""
from __future__ import annotations

import io
import json
import os
import sys
import tarfile
from pathlib import Path

import pytest
from rwtest import ci

from rocm_wizard import limits
from rocm_wizard.detect import bundle
from rocm_wizard.detect.bundle import BundleSource, SnapshotError, open_snapshot
from rocm_wizard.detect.probes import gpus as gpus_probe
from rocm_wizard.detect.probes import rocm as rocm_probe
from rocm_wizard.detect.sources import command_key
from rocm_wizard.model import System

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REAL = ci.REAL

KFD1 = "cpu_cores_count 0\nsimd_count 192\ngfx_target_version 110000\nvendor_id 4098\ndevice_id 29772\nlocation_id 768\n"
ROCMINFO = ("ROCk module version 6.8.5 is loaded\n=====================\nHSA System Attributes\n=====================\n"
            "Runtime Version:         1.14\n==========\nHSA Agents\n==========\n*******\nAgent 2\n*******\n"
            "  Name:                    gfx1100\n  Marketing Name:          Radeon RX 7900 XTX\n"
            "  Node:                    1\n  Device Type:             GPU\n  Chip ID:                 29772(0x744c)\n"
            "  BDFID:                   768\n*** Done ***\n")


def _members() -> dict:
    rocminfo_key = command_key(["rocminfo"])
    dpkg_argv = ["dpkg-query", "-W", "-f=${Package}\t${Version}\t${db:Status-Abbrev}\n"]
    manifest = {
        "format": bundle.FORMAT, "version": 1, "created": "2025-01-01T00:00:00Z", "tool_version": "0.1.0",
        "commands": {
            rocminfo_key: {"argv": ["rocminfo"], "rc": 0, "error": None, "duration": 0.5},
            command_key(dpkg_argv): {"argv": dpkg_argv, "rc": 0, "error": None, "duration": 0.1},
            command_key(["amd-smi", "static", "--asic", "--bus", "--vram", "--driver"]): {
                "argv": ["amd-smi"], "rc": None, "error": "amd-smi: not installed", "duration": 0.0},
        },
        "files": {"/sys/module/amdgpu/version": {"error": "not found"}},
    }
    return {
        "manifest.json": json.dumps(manifest).encode(),
        "files/etc/os-release": b'ID=ubuntu\nVERSION_ID="24.04"\n',
        "files/sys/class/kfd/kfd/topology/nodes/1/properties": KFD1.encode(),
        "files/opt/rocm-6.2.4/.info/version": b"6.2.4-139\n",
        "dirs.json": json.dumps({"/opt": ["rocm", "rocm-6.2.4"], "/sys/class/kfd/kfd/topology/nodes": ["1"]}).encode(),
        "links.json": json.dumps({"/opt/rocm": "/opt/rocm-6.2.4", "/opt/rocm-6.2.4": None}).encode(),
        "stats.json": json.dumps({"/dev/kfd": {"mode": 8630, "uid": 0, "gid": 992, "is_dir": False}}).encode(),
        "env.json": json.dumps({"HSA_OVERRIDE_GFX_VERSION": "11.0.0", "SECRET_TOKEN": "x"}).encode(),
        "commands/%s.txt" % rocminfo_key: ROCMINFO.encode(),
        "commands/%s.txt" % command_key(dpkg_argv): b"rocm-core\t6.2.4.60204-139~24.04\tii \n",
    }


def _write_dir(root: Path, members: dict) -> Path:
    for name, data in members.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return root


def _write_tar(path: Path, members: dict, top: str = "rocm-wizard-snapshot", extra=()) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for name, data in members.items():
            info = tarfile.TarInfo((top + "/" if top else "") + name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        for info, data in extra:
            tf.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _check_bundle(src: BundleSource) -> None:
    assert src.is_snapshot and src.kind == "snapshot"
    assert src.read("/etc/os-release").text.startswith("ID=ubuntu")
    assert src.read("/etc/os-release").source == "file:/etc/os-release"
    assert src.read("/sys/module/amdgpu/version").error == "not found"
    assert src.read("/nope").error == "not in snapshot"
    assert src.listdir("/opt") == ["rocm", "rocm-6.2.4"]
    assert src.listdir("/sys/class/kfd/kfd/topology/nodes/1") == ["properties"]  # from the tree itself
    assert src.readlink("/opt/rocm") == "/opt/rocm-6.2.4" and src.readlink("/opt/rocm-6.2.4") is None
    assert src.exists("/opt/rocm") and src.exists("/opt/rocm-6.2.4/.info/version") and not src.exists("/opt/nothing")
    assert src.stat("/dev/kfd")["gid"] == 992 and src.stat("/dev/nothing") is None
    raw = src.run(["rocminfo"])
    assert raw.ok and raw.rc == 0 and "gfx1100" in raw.text and raw.source == "cmd:rocminfo"
    missing = src.run(["amd-smi", "static", "--asic", "--bus", "--vram", "--driver"])
    assert missing.text is None and missing.error == "amd-smi: not installed"
    assert src.run(["echo", "hi"]).error == "not in snapshot"
    assert [r.ok for r in src.outputs("rocminfo")] == [True]
    assert src.outputs("lshw") == []
    assert src.env() == {"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}  # only GPU-related names survive


def test_directory_bundle(tmp_path):
    _check_bundle(open_snapshot(str(_write_dir(tmp_path / "b", _members()))))


def test_tarball_with_top_folder(tmp_path):
    _check_bundle(open_snapshot(str(_write_tar(tmp_path / "b.tar.gz", _members()))))


def test_tarball_without_top_folder(tmp_path):
    _check_bundle(open_snapshot(str(_write_tar(tmp_path / "b.tgz", _members(), top=""))))


def test_probes_read_a_bundle(tmp_path):
    src = open_snapshot(str(_write_tar(tmp_path / "b.tar.gz", _members())))
    system = System(origin="snapshot")
    gpus_probe.probe(src, system)
    rocm_probe.probe(src, system)
    (g,) = system.gpus
    assert (g.gfx_target, g.device_id, g.bdf, g.kfd_node) == ("gfx1100", "744c", "0000:03:00.0", 1)
    assert g.sources["gfx_target"] == "file:/sys/class/kfd/kfd/topology/nodes/1/properties"
    r = system.rocm
    assert (r.version, r.opt_rocm_target, r.hsa_runtime_version, r.kfd_version) == ("6.2.4", "/opt/rocm-6.2.4", "1.14", "6.8.5")
    assert r.packages == {"rocm-core": "6.2.4.60204-139~24.04"}


def test_tarball_is_never_extracted_and_unsafe_members_are_ignored(tmp_path):
    evil = []
    for name in ("../../evil.txt", "/etc/passwd-abs", "rocm-wizard-snapshot/files/../../../escape"):
        info = tarfile.TarInfo(name)
        data = b"rocminfo\nROCk module is loaded\n"
        info.size = len(data)
        evil.append((info, data))
    link = tarfile.TarInfo("rocm-wizard-snapshot/files/etc/shadow")
    link.type = tarfile.SYMTYPE
    link.linkname = "/etc/shadow"
    evil.append((link, None))
    dev = tarfile.TarInfo("rocm-wizard-snapshot/files/dev/sda")
    dev.type = tarfile.BLKTYPE
    evil.append((dev, None))
    path = _write_tar(tmp_path / "evil.tar.gz", _members(), extra=evil)
    before = set(os.listdir(tmp_path))
    src = open_snapshot(str(path))
    assert set(os.listdir(tmp_path)) == before
    assert not (tmp_path.parent / "evil.txt").exists()
    assert src.read("/etc/shadow").text is None
    assert src.read("/../../escape").text is None
    assert all("evil" not in name and "escape" not in name for name, _t in src.pastes())


def test_tarball_size_limit(tmp_path, monkeypatch):
    path = _write_tar(tmp_path / "big.tar.gz", _members())
    monkeypatch.setattr(limits, "MAX_UNPACKED_BYTES", 100)
    with pytest.raises(SnapshotError, match="uncompressed"):
        open_snapshot(str(path))


def test_directory_bundle_does_not_follow_links_out(tmp_path):
    root = _write_dir(tmp_path / "b", _members())
    secret = tmp_path / "secret"
    secret.write_text("top secret\n")
    (root / "files" / "etc" / "hostname").symlink_to(secret)
    src = open_snapshot(str(root))
    assert src.read("/etc/hostname").text is None


def test_open_snapshot_errors(tmp_path):
    with pytest.raises(SnapshotError, match="no such file"):
        open_snapshot(str(tmp_path / "missing.tar.gz"))
    with pytest.raises(SnapshotError, match="no snapshot path"):
        open_snapshot("")
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(b"\x1f\x8b" + b"not really gzip" * 10)
    with pytest.raises(SnapshotError, match="tar"):
        open_snapshot(str(bad))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SnapshotError, match="neither a snapshot"):
        open_snapshot(str(empty))
    binary = tmp_path / "blob.bin"
    binary.write_bytes(bytes(range(256)) * 10)
    with pytest.raises(SnapshotError):
        open_snapshot(str(binary))


def test_bad_json_parts_are_notes_not_errors(tmp_path):
    m = _members()
    m["dirs.json"] = b"{not json"
    m["links.json"] = b"[1, 2]"
    src = open_snapshot(str(_write_dir(tmp_path / "b", m)))
    assert any("dirs.json" in n for n in src.notes)
    assert src.readlink("/opt/rocm") is None
    assert src.listdir("/opt") == ["rocm-6.2.4"]  # no usable listing: the bundle's own files/opt
    src2 = open_snapshot(str(_write_dir(tmp_path / "c", {**m, "manifest.json": b"garbage"})))
    assert src2.is_snapshot and src2.run(["rocminfo"]).text  # the output file is still there


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads everything")
def test_unreadable_path(tmp_path):
    p = tmp_path / "paste.txt"
    p.write_text(ROCMINFO)
    p.chmod(0)
    try:
        with pytest.raises(SnapshotError, match="permission denied"):
            open_snapshot(str(p))
    finally:
        p.chmod(0o644)


# -- pastes --------------------------------------------------------------------------------------------

def test_single_pasted_file_serves_outputs_and_run(tmp_path):
    p = tmp_path / "issue.md"
    p.write_text("My GPU:\n\n```\n$ rocminfo\n" + ROCMINFO + "```\n\n```\n$ cat /etc/os-release\n"
                 'NAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\nVERSION_CODENAME=jammy\n```\n')
    src = open_snapshot(str(p))
    assert not src.is_snapshot
    (raw,) = src.outputs("rocminfo")
    assert "gfx1100" in raw.text and raw.source == "paste:issue.md#rocminfo"
    assert src.run(["rocminfo"]).text == raw.text
    assert src.run(["lspci", "-nn", "-D"]).error == "not in snapshot"
    osr = src.read("/etc/os-release")
    assert "VERSION_ID" in osr.text and osr.source == "paste:issue.md#os-release"
    assert src.exists("/etc/os-release") and not src.exists("/opt/rocm")
    assert [k for k, _n, _t in src.recognized()] == [None, "rocminfo", "os-release"]


def test_paste_folder_next_to_a_bundle(tmp_path):
    root = _write_dir(tmp_path / "b", _members())
    (root / "lsmod.txt").write_text("amdgpu 19632128 0\namdkcl 32768 3 amd_sched,amdttm,amdgpu\n")
    src = open_snapshot(str(root))
    assert [r.source for r in src.outputs("lsmod")] == ["paste:lsmod.txt#lsmod"]
    assert all(not n.startswith(("files/", "commands/")) for n, _t in src.pastes())


# -- the real fixtures, as a user would hand them over --------------------------------------------------

HOST_LEVEL = ("dpkg", "dnf", "apt", "amd-smi", "rpm")


def _folders():
    return ci.field_fixtures()


def _base(name: str) -> str:
    n = name.split(" (")[0].strip().lower()
    return n[4:] if n.startswith("amd ") else n


@pytest.mark.parametrize("folder", _folders(), ids=lambda p: p.name)
def test_real_fixture_ground_truth(folder):
    labels = tomllib.loads((folder / "labels.toml").read_text(encoding="utf-8"))
    src = open_snapshot(str(folder))
    system = System(origin="snapshot")
    gpus_probe.probe(src, system)
    rocm_probe.probe(src, system)
    amd = system.amd_gpus
    if "gfx_targets" in labels:
        assert {g.gfx_target for g in amd if g.gfx_target} == set(labels["gfx_targets"])
    if "gpu_count" in labels:
        assert len(amd) == labels["gpu_count"]
    if "gpu_count_rocm" in labels:  # GPUs the ROCm stack reports (with a gfx target)
        assert len([g for g in amd if g.gfx_target]) == labels["gpu_count_rocm"]
    if labels.get("gfx_targets"):  # names come from tool output only when the tools spoke
        assert sorted(_base(g.name or "") for g in amd) == sorted(_base(n) for n in labels.get("gpu_names", []))
    for key in ("chip_ids", "device_ids"):
        if key in labels:
            assert {"0x" + g.device_id for g in amd if g.device_id} == {x.lower() for x in labels[key]}
    if "pci_ids" in labels:
        assert {g.pci_id for g in amd if g.pci_id} == set(labels["pci_ids"])
    for key in ("bdf", "pci_bus"):
        if key in labels:
            assert {g.bdf for g in amd if g.bdf} == {x.lower() for x in labels[key]}
    if "isa_names" in labels:
        assert {g.isa for g in amd} == set(labels["isa_names"])
    r = system.rocm
    if "rocm_version" in labels:
        src_text = labels.get("rocm_version_source", "")
        if any(word in src_text for word in HOST_LEVEL):
            assert r.version == labels["rocm_version"]
        else:  # the wheel's ROCm, an issue form or a path: never the host's release
            assert r.version != labels["rocm_version"] or r.version is None
    if "rocm_package_version" in labels:
        assert labels["rocm_package_version"] in r.packages.values()
    if "hsa_runtime_version" in labels:
        assert r.hsa_runtime_version == labels["hsa_runtime_version"]
    if "kfd_driver_version" in labels:
        assert r.kfd_version == labels["kfd_driver_version"]
    if "amdgpu_dkms_version" in labels:
        assert labels["amdgpu_dkms_version"] in (r.amdgpu_dkms or "")
    # every value has its provenance
    for g in system.gpus:
        for name in ("gfx_target", "name", "device_id", "bdf"):
            if getattr(g, name) is not None:
                assert g.sources.get(name), (g, name)
    if r.version is not None:
        assert r.sources.get("version")


def test_pasted_release_file_and_pacman_list(tmp_path):
    p = tmp_path / "report.txt"
    p.write_text("$ cat /opt/rocm/.info/version\n6.4.1-1\n$ pacman -Q | grep rocm\nrocm-core 6.4.1-1\nrocminfo 6.4.1-1\n")
    system = System(origin="snapshot")
    rocm_probe.probe(open_snapshot(str(p)), system)
    r = system.rocm
    assert r.version == "6.4.1" and r.sources["version"] == "paste:report.txt#rocm-info-version"
    assert r.packages == {"rocm-core": "6.4.1-1", "rocminfo": "6.4.1-1"}
    q = tmp_path / "arch.txt"
    q.write_text("$ pacman -Q | grep rocm\nrocm-core 6.4.1-1\nrocminfo 6.4.1-1\n")
    system = System(origin="snapshot")
    rocm_probe.probe(open_snapshot(str(q)), system)
    assert system.rocm.version == "6.4.1"
    assert any("distribution's own packages" in n for n in system.rocm.notes)


def test_paste_size_limit_is_a_note(tmp_path, monkeypatch):
    folder = tmp_path / "pastes"
    folder.mkdir()
    (folder / "a.txt").write_text(ROCMINFO)
    (folder / "b.txt").write_text("amdgpu 19632128 0\n" * 50)
    monkeypatch.setattr(limits, "MAX_PASTE_BYTES", len(ROCMINFO) + 10)
    src = open_snapshot(str(folder))
    assert [n for n, _t in src.pastes()] == ["a.txt"]
    assert src.outputs("lsmod") == [] and any("of pasted text" in n for n in src.notes)
