"""snapshot -> detect --snapshot gives the same System; the bundle holds nothing private."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile

import pytest

from rocm_wizard import snapshot
from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.detect.sources import GPU_ENV_NAMES, is_gpu_env
from rocm_wizard.model import to_dict

from _detect_core_support import REPO, FakeSource, FakeSystem

HOST = "secret-box-42"
HOME = "/home/alice"
ENV = {"HOME": HOME, "USER": "alice", "PATH": "/home/alice/.local/bin:/usr/bin:/opt/rocm/bin",
       "HSA_OVERRIDE_GFX_VERSION": "11.0.0", "VIRTUAL_ENV": HOME + "/proj/venv", "PWD": HOME + "/proj",
       "SSH_CONNECTION": "10.1.2.3 51234 10.0.0.9 22", "STY": "4242.pts-0." + HOST,
       "SECRET_TOKEN": "hunter2-do-not-leak", "AWS_SECRET_ACCESS_KEY": "AKIAXXXXXXXX"}
UNAME = "Linux %s 6.8.0-45-generic #45~22.04.1-Ubuntu SMP PREEMPT_DYNAMIC Wed Sep 11 x86_64 x86_64 x86_64 GNU/Linux\n" % HOST
DMESG = ("[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075) (gcc) #45~22.04.1-Ubuntu SMP\n"
         "[    2.100000] usb 1-1: SerialNumber: ZX81-PRIVATE-SERIAL\n"
         "[    2.200000] e1000e 0000:00:1f.6 eth0: MAC: 12:34:56:78:9a:bc\n"
         "[    4.123456] amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init\n"
         "[    9.000000] Out of memory: Killed process 4242 (python) total-vm:1234kB\n")
COMMANDS = {
    ("uname", "-a"): UNAME,
    ("id",): "uid=1000(alice) gid=1000(alice) groups=1000(alice),44(video),992(render),998(docker)\n",
    ("id", "alice"): "uid=1000(alice) gid=1000(alice) groups=1000(alice),44(video),992(render),998(docker)\n",
    ("docker", "version", "--format", "{{.Client.Version}} {{.Server.Version}}"): "27.3.1 27.3.1\n",
    ("docker", "images", "--format", "{{.Repository}}:{{.Tag}}"): "mycorp/secret-app:latest\nrocm/pytorch:latest\n",
    ("dmesg",): DMESG,
}
STATS = {"/dev/kfd": {"mode": 0o20660, "uid": 0, "gid": 992, "is_dir": False, "access_rw": True},
         "/var/run/docker.sock": {"mode": 0o140660, "uid": 0, "gid": 998, "is_dir": False, "access_rw": True}}


def make_system(tmp_path):
    fs = FakeSystem(tmp_path / "root")
    fs.ubuntu("22.04", "jammy", "6.8.0-45-generic")
    (fs.p("/proc/sys/kernel/arch")).unlink()  # so uname -a (with the host name) is run
    fs.write("/etc/group", "root:x:0:\nvideo:x:44:alice,bob\nrender:x:992:alice,bob\ndocker:x:998:alice\n"
                           "secret-project:x:5000:bob,carol\nalice:x:1000:\n")
    fs.venv(HOME + "/proj/venv", "3.12", torch="2.5.1+rocm6.2", hip="6.2.41133-dd7f95766",
            triton={"pytorch-triton-rocm": "3.1.0"}, requires_triton="pytorch-triton-rocm==3.1.0",
            extra={"numpy": "1.26.4"})
    fs.write(HOME + "/proj/venv/pyvenv.cfg", "home = /usr/bin\nversion = 3.12.3\ncommand = /usr/bin/python3 -m venv %s/proj/venv\n" % HOME)
    fs.venv("/opt/venv-cuda", "3.11", torch="2.4.1+cu121", cuda="12.1")
    fs.mkdir(HOME + "/tax-returns-2024")
    fs.mkdir(HOME + "/diary")
    fs.mkdir("/dev/dri")
    # a ROCm install with its version file, and a /opt/rocm tree (TheRock style) that detection
    # only knows by its bin/ directory existing
    fs.write("/opt/rocm-6.2.4/.info/version", "6.2.4-76\n").mkdir("/opt/rocm-6.2.4/bin")
    fs.mkdir("/opt/rocm/bin")
    return fs


def source(fs):
    return FakeSource(str(fs.root), dict(ENV), COMMANDS, STATS)


def normalise(d: dict) -> str:
    text = json.dumps(d, sort_keys=True)
    return text.replace(HOME, "~").replace('"origin": "live"', '"origin": "snapshot"')


@pytest.fixture
def taken(tmp_path):
    fs = make_system(tmp_path)
    out = tmp_path / "bundle.tar.gz"
    system, bundle, data = snapshot.take(str(out), source=source(fs))
    return fs, out, system, bundle, data


def members(path) -> dict:
    with tarfile.open(path, "r:gz") as tf:
        return {m.name: tf.extractfile(m).read() for m in tf.getmembers() if m.isfile()}


def test_roundtrip_same_system(taken):
    _fs, out, live, _bundle, _data = taken
    assert live.os.id == "ubuntu" and live.torch and live.access.kfd.exists and live.errors
    assert live.rocm.installs, "the fake ROCm trees are seen"
    replay = detect_snapshot(str(out))
    assert replay.origin == "snapshot"
    assert normalise(to_dict(replay)) == normalise(to_dict(live))


def test_roundtrip_detail(taken):
    _fs, out, live, _bundle, _data = taken
    r = detect_snapshot(str(out))
    assert r.os.kernel == "6.8.0-45-generic" and r.os.hwe is True and r.os.arch == "x86_64"
    active = r.torch[0]
    assert active.active and active.path == "~/proj/venv" and active.version == "2.5.1+rocm6.2"
    assert active.triton == {"pytorch-triton-rocm": "3.1.0"} and active.packages == {"numpy": "1.26.4"}
    assert any(t.path == "/opt/venv-cuda" and t.build == "cuda" for t in r.torch)
    assert r.docker.images == ["rocm/pytorch:latest"] and r.docker.daemon is True
    assert r.access.groups == ["alice", "video", "render", "docker"] and r.access.kfd.group == "render"
    assert r.access.env == {"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}
    assert sorted(e.signature for e in r.errors if error_signatures.failure(e.signature) is None) == ["amdgpu_init_failed", "host_oom_killer"]


def test_bundle_layout(taken):
    _fs, out, _live, bundle, data = taken
    names = members(out)
    top = snapshot.TOP + "/"
    for part in ("manifest.json", "dirs.json", "links.json", "stats.json", "env.json"):
        assert top + part in names
    assert top + "files/etc/os-release" in names
    assert top + "commands/uname__-a.txt" in names
    manifest = json.loads(names[top + "manifest.json"])
    assert manifest["format"] == "rocm-wizard-snapshot" and manifest["version"] == 1
    assert manifest["commands"]["uname__-a"]["argv"] == ["uname", "-a"]
    assert manifest["files"]["/proc/sys/kernel/arch"]["error"] == "not found"
    assert open(out, "rb").read() == data


def test_privacy(taken):
    _fs, out, _live, _bundle, _data = taken
    names = members(out)
    blob = b"\n".join(names.values()) + "\n".join(names).encode()
    for secret in (HOST, HOME, "hunter2-do-not-leak", "AKIAXXXXXXXX", "SECRET_TOKEN", "AWS_SECRET",
                   "10.1.2.3", "ZX81-PRIVATE-SERIAL", "12:34:56:78:9a:bc", "mycorp/secret-app",
                   "secret-project", "carol", "bob", "tax-returns", "diary"):
        assert secret.encode() not in blob, secret
    env = json.loads(names[snapshot.TOP + "/env.json"])
    assert env and all(is_gpu_env(k) for k in env)
    assert set(env) <= set(GPU_ENV_NAMES) | {"HSA_OVERRIDE_GFX_VERSION"}
    assert env["HOME"] == "~" and env["SSH_CONNECTION"] == snapshot.MASK and env["PATH"].startswith("~/.local/bin")
    uname = names[snapshot.TOP + "/commands/uname__-a.txt"].decode()
    assert uname.startswith("Linux %s 6.8.0-45-generic" % snapshot.HOST_MASK)
    dmesg = names[snapshot.TOP + "/commands/dmesg.txt"].decode()
    assert "Fatal error during GPU init" in dmesg and "Out of memory" in dmesg and "usb" not in dmesg


def test_include_hostname(tmp_path):
    fs = make_system(tmp_path)
    out = tmp_path / "with-host.tar.gz"
    snapshot.take(str(out), source=source(fs), include_hostname=True)
    names = members(out)
    assert HOST in names[snapshot.TOP + "/commands/uname__-a.txt"].decode()
    assert json.loads(names[snapshot.TOP + "/manifest.json"])["hostname_included"] is True


def test_generic_hostname_only_scrubbed_in_uname():
    s = snapshot.Scrubber(homes=[HOME], hostname="ubuntu")
    assert s.text("ID=ubuntu") == "ID=ubuntu"
    assert s.uname("Linux ubuntu 6.8.0-45-generic #45 x86_64") == "Linux HOSTNAME 6.8.0-45-generic #45 x86_64"
    s2 = snapshot.Scrubber(homes=[HOME], hostname="gpu-box")
    assert s2.text("ssh gpu-box.local and gpu-boxer") == "ssh HOSTNAME.local and gpu-boxer"
    assert s2.text("deb https://user:pa55@mirror.example/rocm jammy main") == "deb https://%s@mirror.example/rocm jammy main" % snapshot.MASK
    assert s2.path(HOME + "/x") == "~/x" and s2.path("/home/alice2/x") == "/home/alice2/x" and s2.path(HOME) == "~"


def test_write_is_atomic_and_errors_are_clear(tmp_path):
    target = tmp_path / "b.tar.gz"
    target.write_bytes(b"old")
    snapshot.write_atomic(str(target), b"new-bundle")
    assert target.read_bytes() == b"new-bundle"
    assert [p.name for p in tmp_path.iterdir()] == ["b.tar.gz"], "no temporary file left behind"
    with pytest.raises(snapshot.SnapshotWriteError, match="does not exist"):
        snapshot.write_atomic(str(tmp_path / "missing" / "b.tar.gz"), b"x")
    with pytest.raises(snapshot.SnapshotWriteError, match="is a directory"):
        snapshot.write_atomic(str(tmp_path), b"x")


def test_failed_write_keeps_old_file(tmp_path, monkeypatch):
    target = tmp_path / "b.tar.gz"
    target.write_bytes(b"old")

    def broken_replace(a, b, **_dir_fds):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(snapshot.SnapshotWriteError, match="No space left"):
        snapshot.write_atomic(str(target), b"new")
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["b.tar.gz"]


def run_cli(*args, cwd=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "rocm_wizard", *args], capture_output=True, cwd=cwd, env=env, timeout=120)


def test_cli_snapshot_then_detect(tmp_path):
    fs = make_system(tmp_path)
    out = tmp_path / "cli.tar.gz"
    r = run_cli("snapshot", "-o", str(out), "--root", str(fs.root))
    assert r.returncode == 0, r.stderr
    assert r.stdout == b"" and b"wrote" in r.stderr and out.is_file()
    r2 = run_cli("detect", "--json", "--snapshot", str(out))
    assert r2.returncode == 0, r2.stderr
    data = json.loads(r2.stdout)
    assert data["origin"] == "snapshot" and data["os"]["id"] == "ubuntu"
    r3 = run_cli("snapshot", "-o", str(tmp_path / "nodir" / "x.tar.gz"), "--root", str(fs.root))
    assert r3.returncode == 1 and b"does not exist" in r3.stderr and r3.stdout == b""
    r4 = run_cli("snapshot")
    assert r4.returncode == 64


def test_cli_snapshot_to_stdout(tmp_path):
    fs = make_system(tmp_path)
    r = run_cli("snapshot", "-o", "-", "--root", str(fs.root))
    assert r.returncode == 0, r.stderr
    with tarfile.open(fileobj=io.BytesIO(r.stdout), mode="r:gz") as tf:
        assert snapshot.TOP + "/manifest.json" in tf.getnames()
