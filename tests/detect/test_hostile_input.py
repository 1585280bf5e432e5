"""Hostile snapshots and pastes (issue 14, item 5): every input limit is a clear error or a note,
never a traceback, an unbounded allocation or a hang.  The hostile inputs are built here; the
heavy ones run in a child process so that its peak memory can be measured and a hang would end
at the child's timeout (a bound on a run, not a timing assertion)."""
from __future__ import annotations

import bz2
import io
import json
import os
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path

import pytest

from rocm_wizard import exitcodes, limits
from rocm_wizard.detect.bundle import SnapshotError, open_snapshot
from rocm_wizard.detect.parsers import _paste, os_release

MiB = 1024 * 1024
CHILD_TIMEOUT = 120  # a child that has not finished by then hangs (quadratic inputs take hours)


def _child(code: str, *args: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (PYTHONPATH inherited: this worktree's package)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True,
                          timeout=CHILD_TIMEOUT, env=dict(os.environ))


# The peak is this process's own: ru_maxrss would carry the parent's high-water mark over fork and
# exec (a pytest grown large in a long run), so the child resets it (clear_refs 5) and reads VmHWM.
OPEN_AND_MEASURE = """
    import sys
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    from rocm_wizard.detect.bundle import SnapshotError, open_snapshot
    try:
        open_snapshot(sys.argv[1])
        print("opened")
    except SnapshotError as exc:
        print("error:", exc)
    with open("/proc/self/status") as fh:
        print("peak_kib", next(int(ln.split()[1]) for ln in fh if ln.startswith("VmHWM:")))
"""


def _open_in_child(path: Path):
    res = _child(OPEN_AND_MEASURE, str(path))
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    lines = res.stdout.splitlines()
    return lines[0], int(lines[-1].split()[-1]) * 1024


def _ustar_header(name: str, size: int, type_: bytes) -> bytes:
    info = tarfile.TarInfo(name)
    info.size = size
    info.type = type_
    return info.tobuf(format=tarfile.USTAR_FORMAT)


def _cli(*args: str, timeout: float = CHILD_TIMEOUT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rocm_wizard", *args], capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ), stdin=subprocess.DEVNULL)


# -- decompression and tar headers ------------------------------------------------------------------

def test_bz2_bomb_stops_at_the_decompression_cap(tmp_path):
    # a tar member claiming 1 GiB of zeros, as 64 bz2 streams of 16 MiB each (a few KiB on disk)
    block = 16 * MiB
    first = _ustar_header("bundle/zeros.bin", 64 * block, tarfile.REGTYPE) + bytes(block - 512)
    data = bz2.compress(first, 9) + bz2.compress(bytes(block), 9) * 63
    path = tmp_path / "bomb.tar.bz2"
    path.write_bytes(data)
    assert path.stat().st_size < 64 * 1024
    result, rss = _open_in_child(path)
    assert result.startswith("error:") and "uncompressed" in result and "256 MiB" in result
    assert rss < 200 * MiB  # read as a stream: nothing of the bomb is held


def test_gnu_long_name_header_claiming_2_gib_is_refused_before_reading(tmp_path):
    data = _ustar_header("././@LongLink", 2 * 1024 ** 3, tarfile.GNUTYPE_LONGNAME) + b"a" * 1300
    path = tmp_path / "longname.tar"
    path.write_bytes(data)
    assert len(data) < 2048
    result, rss = _open_in_child(path)
    assert result.startswith("error:") and "header claims 2147483648 bytes" in result
    assert rss < 200 * MiB
    res = _cli("detect", "--snapshot", str(path))
    assert res.returncode == exitcodes.ERROR
    assert "header claims" in res.stderr and "Traceback" not in res.stderr and "MemoryError" not in res.stderr


def test_pax_header_claiming_too_much_is_refused(tmp_path):
    data = _ustar_header("pax", 10 * MiB, tarfile.XHDTYPE) + b"x" * 2000
    path = tmp_path / "pax.tar"
    path.write_bytes(data)
    with pytest.raises(SnapshotError, match="header claims"):
        open_snapshot(str(path))


def _tar_with(path: Path, names) -> Path:
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tf:
        for name in names:
            info = tarfile.TarInfo(name)
            info.size = 5
            tf.addfile(info, io.BytesIO(b"hello"))
    return path


def test_deep_and_long_member_paths_are_refused(tmp_path):
    deep = _tar_with(tmp_path / "deep.tar.gz", ["/".join(["d"] * 20000) + "/f.txt"])
    with pytest.raises(SnapshotError, match="longer than 1024 characters"):
        open_snapshot(str(deep))
    deeper = _tar_with(tmp_path / "deeper.tar.gz", ["/".join(["d"] * 40) + "/f.txt"])
    with pytest.raises(SnapshotError, match="deeper than 32 folders"):
        open_snapshot(str(deeper))


def test_deep_but_allowed_paths_stay_linear_in_memory(tmp_path):
    # many members at the allowed depth: the folder tree holds each name once (no prefix copies)
    names = ["%d/" % i + "/".join(["x" * 30] * 30) + "/f.txt" for i in range(2000)]
    path = _tar_with(tmp_path / "many.tar.gz", names)
    result, rss = _open_in_child(path)
    assert result == "opened"  # 2000 pasted "hello"s
    assert rss < 200 * MiB


def test_member_count_limit(tmp_path, monkeypatch):
    path = _tar_with(tmp_path / "many.tar.gz", ["f%d.txt" % i for i in range(20)])
    monkeypatch.setattr(limits, "MAX_MEMBERS", 10)
    with pytest.raises(SnapshotError, match="more than 10 entries"):
        open_snapshot(str(path))


# -- JSON nesting -----------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["[" * 200000 + "]" * 200000,
                                  '{"format": "rocm-wizard-snapshot", "x": ' + "[" * 100 + "]" * 100 + "}"],
                         ids=["recursion", "depth"])
def test_deeply_nested_manifest_is_a_clear_error(tmp_path, text):
    folder = tmp_path / "bundle"
    folder.mkdir()
    (folder / "manifest.json").write_text(text)
    with pytest.raises(SnapshotError, match="nested more than 64 levels"):
        open_snapshot(str(folder))
    res = _cli("doctor", "--snapshot", str(folder))
    assert res.returncode == exitcodes.ERROR
    assert "nested more than 64 levels" in res.stderr and "RecursionError" not in res.stderr


def test_loads_json_limits():
    assert limits.loads_json('{"a": [1, {"b": 2}]}') == {"a": [1, {"b": 2}]}
    assert limits.json_depth([[[]]]) == 3 and limits.json_depth(1) == 0 and limits.json_depth({}) == 1
    with pytest.raises(limits.LimitError):
        limits.loads_json("[" * 65 + "]" * 65)
    limits.loads_json("[" * 64 + "]" * 64)
    with pytest.raises(ValueError):
        limits.loads_json("{nope")


# -- pseudo-filesystems and special files -----------------------------------------------------------

@pytest.mark.parametrize("path", ["/proc", "/proc/self", "/proc/kmsg", "/sys", "/sys/kernel"])
def test_snapshot_on_proc_or_sys_returns_promptly_with_a_clear_error(path):
    if not os.path.exists(path):
        pytest.fail(f"{path} is missing on this machine")
    res = _cli("detect", "--snapshot", path, timeout=60)
    assert res.returncode == exitcodes.ERROR
    assert "pseudo-filesystem" in res.stderr and "Traceback" not in res.stderr


def test_fifo_and_devices_in_a_paste_folder_are_not_read(tmp_path):
    folder = tmp_path / "pastes"
    folder.mkdir()
    os.mkfifo(folder / "blocked.txt")  # opening it for reading would wait for a writer
    (folder / "os.txt").write_text('NAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\n')
    res = _child("""
        import sys
        from rocm_wizard.detect.bundle import open_snapshot
        print([n for n, _t in open_snapshot(sys.argv[1]).pastes()])
    """, str(folder))
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "['os.txt']"
    with pytest.raises(SnapshotError, match="not a regular file or a directory"):
        open_snapshot(str(folder / "blocked.txt"))


def test_a_file_never_read_past_its_size(tmp_path):
    p = tmp_path / "f.txt"
    p.write_bytes(b"x" * 100)
    assert limits.read_regular(str(p), 10) == b"x" * 10
    assert limits.read_regular(str(p), 1000) == b"x" * 100
    assert limits.read_regular(str(tmp_path), 10) is None
    assert limits.read_regular("/dev/zero", 10) is None


# -- the two quadratic patterns -----------------------------------------------------------------------

def test_tmux_marks_and_release_lines_still_parse():
    assert _paste.clean_lines("abc      [391/1815]\nfoo [1/2]\nbar\t\t\t\t[12/34]  ") == ["abc", "foo [1/2]", "bar"]
    assert os_release.release_line("Rocky Linux release 9.0 (Blue Onyx)") == ("Rocky Linux", "9.0", "Blue Onyx")
    assert os_release.release_line("  CentOS Linux RELEASE 7.9.2009 (Core) ") == ("CentOS Linux", "7.9.2009", "Core")
    assert os_release.release_line("Fedora release 39") == ("Fedora", "39", None)
    assert os_release.release_line("xrelease 9") is None
    assert os_release.release_line("a release notes") is None
    assert os_release.release_line("Bad;name release 9") is None
    r = os_release.parse("Rocky Linux release 9.0 (Blue Onyx)\n")
    assert (r.id, r.version_id, r.codename, r.format) == ("rocky", "9.0", "Blue Onyx", "system-release")
    assert os_release.from_pretty("Ubuntu 24.04.2 LTS (x86_64)").pretty_name == "Ubuntu 24.04.2 LTS"


HOSTILE_PASTES = """
    import sys
    from rocm_wizard.detect.parsers import _paste, os_release
    n = 1024 * 1024
    for text in ("x" + " " * n + "]", "a" + " " * n + "release" + "x", "Ubuntu " + "(" * n,
                 "Ubuntu" + " " * n + "(x86_64)z", ("Rocky release 9 " + " " * 60 + "[1/2" + " " * 40 + "]\\n") * (n // 120)):
        _paste.clean_lines(text)
        os_release.parse(text)
        os_release.from_pretty(text)
    print("done")
"""


def test_one_mib_hostile_pastes_parse(tmp_path):
    # each took minutes at 100 KB with the old patterns (quadratic); the child's timeout bounds it
    res = _child(HOSTILE_PASTES)
    assert res.returncode == 0 and res.stdout.strip() == "done", res.stderr


def test_one_mib_hostile_paste_through_detect(tmp_path):
    p = tmp_path / "paste.txt"
    p.write_text(("os-release: " + " " * 500 + "[1/2" + " " * 500 + "]\n") * 1000 + "a" + " " * 500000 + "release x\n")
    res = _cli("detect", "--json", "--snapshot", str(p))
    # nothing in it is a tool's output: "describes no system" (exit 1, README's table), said cleanly
    assert res.returncode in (exitcodes.OK, exitcodes.ERROR), res.stderr
    assert "Traceback" not in res.stderr
    if res.returncode == exitcodes.OK:
        json.loads(res.stdout)
    else:
        assert "describes no system" in res.stderr
