"""(s23) Archives and compressed logs among the pastes -- what a bug report's attachments come as (GitHub takes .zip,
.gz and .tgz attachments; logrotate and journald archives are .gz/.xz): a .zip, a compressed single file and a
tarball given as the snapshot or lying in a paste folder are read, one level deep, within the limits, never
extracted; a damaged one inside a folder is a note, not the end of the folder."""
from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from rwtest import ci, sandbox

from rocm_wizard import limits
from rocm_wizard.detect.bundle import SnapshotError, open_snapshot
from rocm_wizard.detect.sources import command_key

REAL = ci.REAL
# a real kernel log (tests/data/real/2950: ValveSoftware/SteamOS#1281, amdgpu's ring timeout) and a real rocminfo
KERN = next(REAL.glob("2950-*/kern.txt")).read_bytes()
ROCMINFO = ("ROCk module version 6.8.5 is loaded\n=====================\nHSA System Attributes\n=====================\n"
            "Runtime Version:         1.14\n==========\nHSA Agents\n==========\n*******\nAgent 2\n*******\n"
            "  Name:                    gfx1100\n  Marketing Name:          Radeon RX 7900 XTX\n"
            "  Node:                    1\n  Device Type:             GPU\n  Chip ID:                 29772(0x744c)\n"
            "  BDFID:                   768\n*** Done ***\n").encode()


def _zip(path: Path, members: dict, encrypted=()) -> Path:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    raw = bytearray(buf.getvalue())
    for name in encrypted:  # (said encrypted -- bit 0 of the general purpose flags -- in both headers: reading it would ask for a password)
        key = name.encode()
        for sig, flags, name_at in ((b"PK\x03\x04", 6, 30), (b"PK\x01\x02", 8, 46)):
            at = raw.find(sig)
            while at >= 0:
                if raw[at + name_at:at + name_at + len(key)] == key:
                    raw[at + flags] |= 0x1
                at = raw.find(sig, at + 4)
    path.write_bytes(bytes(raw))
    return path


def _kinds(src) -> dict:
    return {name: kind for kind, name, _text in src.recognized()}


def test_a_zip_given_as_the_snapshot_is_read_member_by_member(tmp_path):
    src = open_snapshot(str(_zip(tmp_path / "logs.zip", {"kern.txt": KERN, "tools/rocminfo.txt": ROCMINFO})))
    names = [n for n, _t in src.pastes()]
    assert names == ["kern.txt", "tools/rocminfo.txt"]
    kinds = _kinds(src)
    assert kinds["kern.txt"] == "dmesg" and kinds["tools/rocminfo.txt"] == "rocminfo"


@pytest.mark.parametrize("suffix,compress", [(".gz", gzip.compress), (".bz2", bz2.compress), (".xz", lzma.compress)])
def test_a_compressed_log_given_as_the_snapshot_is_its_text(tmp_path, suffix, compress):
    path = tmp_path / ("kern.log" + suffix)
    path.write_bytes(compress(KERN))
    src = open_snapshot(str(path))
    assert [n for n, _t in src.pastes()] == ["kern.log"]
    assert _kinds(src)["kern.log"] == "dmesg"


def test_archives_and_compressed_logs_in_a_paste_folder(tmp_path):
    folder = tmp_path / "attachments"
    folder.mkdir()
    _zip(folder / "logs.zip", {"a/rocminfo.txt": ROCMINFO, "readme.md": b"see the logs\n"})
    (folder / "dmesg.log.gz").write_bytes(gzip.compress(KERN))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        info = tarfile.TarInfo("inner/kern2.txt")
        info.size = len(KERN)
        tf.addfile(info, io.BytesIO(KERN))
    (folder / "more.tgz").write_bytes(buf.getvalue())
    (folder / "notes.txt").write_text("rocminfo hangs after the driver line\n")
    src = open_snapshot(str(folder))
    names = sorted(n for n, _t in src.pastes())
    assert names == ["dmesg.log", "logs.zip/a/rocminfo.txt", "logs.zip/readme.md", "more.tgz/inner/kern2.txt", "notes.txt"]
    kinds = _kinds(src)
    assert kinds["dmesg.log"] == kinds["more.tgz/inner/kern2.txt"] == "dmesg"
    assert kinds["logs.zip/a/rocminfo.txt"] == "rocminfo"


def test_a_zipped_snapshot_bundle_is_a_bundle(tmp_path):
    members = {
        "rocm-wizard-snapshot/manifest.json": json.dumps({"format": "rocm-wizard-snapshot", "version": 1,
                                                          "commands": {command_key(["rocminfo"]): {"argv": ["rocminfo"], "rc": 0}}}).encode(),
        "rocm-wizard-snapshot/commands/%s.txt" % command_key(["rocminfo"]): ROCMINFO,
    }
    src = open_snapshot(str(_zip(tmp_path / "snap.zip", members)))
    assert src.is_snapshot
    assert "gfx1100" in (src.run(["rocminfo"]).text or "")


def test_unsafe_or_encrypted_zip_members_are_left_out_and_nothing_is_extracted(tmp_path):
    path = _zip(tmp_path / "evil.zip", {"../../evil.txt": KERN, "/abs.txt": KERN, "ok.txt": ROCMINFO, "locked.txt": KERN},
                encrypted=("locked.txt",))
    before = set(os.listdir(tmp_path))
    src = open_snapshot(str(path))
    assert set(os.listdir(tmp_path)) == before and not (tmp_path.parent / "evil.txt").exists()
    assert [n for n, _t in src.pastes()] == ["ok.txt"]


def test_zip_limits(tmp_path, monkeypatch):
    big = _zip(tmp_path / "bomb.zip", {"zeros.txt": b"a" * 200_000, "ok.txt": ROCMINFO})
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 100_000)
    src = open_snapshot(str(big))  # (a member past the per-file limit is left out, however small it is packed)
    assert [n for n, _t in src.pastes()] == ["ok.txt"]
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 10_000_000)
    monkeypatch.setattr(limits, "MAX_UNPACKED_BYTES", 1000)
    with pytest.raises(SnapshotError, match="uncompressed"):
        open_snapshot(str(big))
    monkeypatch.setattr(limits, "MAX_UNPACKED_BYTES", 10_000_000)
    monkeypatch.setattr(limits, "MAX_MEMBERS", 1)
    with pytest.raises(SnapshotError, match="entries"):
        open_snapshot(str(big))


def test_a_compressed_log_past_the_file_limit_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "huge.log.gz"
    path.write_bytes(gzip.compress(b"x" * 50_000))
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 10_000)
    with pytest.raises(SnapshotError, match="uncompressed"):
        open_snapshot(str(path))


def test_damaged_archives(tmp_path):
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"PK\x03\x04" + b"not a zip at all" * 20)
    with pytest.raises(SnapshotError, match="zip"):
        open_snapshot(str(bad))
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "bad.zip").write_bytes(bad.read_bytes())
    (folder / "bad.log.gz").write_bytes(b"\x1f\x8b" + b"garbage" * 30)
    (folder / "kern.txt").write_bytes(KERN)
    (folder / "bzh.txt").write_bytes(b"BZh is how my notes start; rocminfo hangs\n")  # (bzip2's magic, but text)
    src = open_snapshot(str(folder))
    assert [n for n, _t in src.pastes()] == ["bzh.txt", "kern.txt"]
    assert any("bad.zip" in n and "not a readable" in n for n in src.notes)
    assert any("bad.log.gz" in n and "not a readable" in n for n in src.notes)


def test_an_archive_inside_an_archive_is_not_opened(tmp_path):
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as zf:
        zf.writestr("deep.txt", KERN)
    folder = tmp_path / "f"
    folder.mkdir()
    _zip(folder / "outer.zip", {"inner.zip": inner.getvalue(), "kern.log.gz": gzip.compress(KERN), "top.txt": ROCMINFO})
    src = open_snapshot(str(folder))
    assert [n for n, _t in src.pastes()] == ["outer.zip/top.txt"]
    assert sum("inside an archive" in n for n in src.notes) == 2


def test_doctor_reads_a_zipped_kernel_log(tmp_path):
    path = _zip(tmp_path / "attachments.zip", {"kern.txt": KERN})
    env = {**os.environ, "ROCM_WIZARD_LOG_DIR": str(tmp_path / "logs"), "TMPDIR": str(tmp_path)}
    cmd = sandbox.argv([sys.executable, "-m", "rocm_wizard", "doctor", "--snapshot", str(path), "--json"], writable=[tmp_path])
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, env=env)
    ids = [f["id"] for f in json.loads(proc.stdout)["findings"]]
    assert "gpu-hang-reset" in ids, proc.stderr
