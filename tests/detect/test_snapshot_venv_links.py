"""snapshot --venv as root reads a user's venv: a link alice planted there to a file only root can
read (root's key) must not put that file into the bundle (which is 0644 and shared).  The venv
lives in a re-rooted tree (no command runs); ownership is real (chown: needs root)."""
from __future__ import annotations

import io
import os
import tarfile

import pytest

from rocm_wizard import snapshot

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root")

KEY = "-----BEGIN OPENSSH PRIVATE KEY----- root-key-7c1e"
ALICE = 4242


def bundle_text(data: bytes) -> str:
    out = []
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for member in tar.getmembers():
            fh = tar.extractfile(member)
            if fh is not None:
                out.append(fh.read().decode("utf-8", "replace"))
    return "\n".join(out)


def test_a_link_out_of_the_venv_does_not_bring_roots_key_into_the_bundle(tmp_path):
    tree = tmp_path / "tree"
    (tree / "root" / ".ssh").mkdir(parents=True)
    key = tree / "root" / ".ssh" / "id_ed25519"
    key.write_text(KEY + "\n")
    key.chmod(0o600)
    venv = tree / "home" / "alice" / "venv"
    meta = venv / "lib" / "python3.11" / "site-packages" / "torch-2.5.1.dist-info"
    meta.mkdir(parents=True)
    (venv / "bin").mkdir()
    (venv / "pyvenv.cfg").symlink_to(key)
    (meta / "METADATA").symlink_to(key)
    (venv / "lib" / "python3.11" / "site-packages" / "ok.txt").write_text("fine\n")
    for d, dirs, files in os.walk(tree / "home"):
        os.lchown(d, ALICE, ALICE)
        for name in dirs + files:
            os.lchown(os.path.join(d, name), ALICE, ALICE)
    _system, _bundle, data = snapshot.take(None, venvs=["/home/alice/venv"], root=str(tree))
    assert KEY not in bundle_text(data)


def test_files_in_the_venv_are_still_read(tmp_path):
    tree = tmp_path / "tree"
    venv = tree / "home" / "alice" / "venv"
    meta = venv / "lib" / "python3.11" / "site-packages" / "torch-2.5.1.dist-info"
    meta.mkdir(parents=True)
    (venv / "bin").mkdir()
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.2\n")
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1+rocm6.2\n")
    for d, dirs, files in os.walk(tree / "home"):
        os.lchown(d, ALICE, ALICE)
        for name in dirs + files:
            os.lchown(os.path.join(d, name), ALICE, ALICE)
    _system, _bundle, data = snapshot.take(None, venvs=["/home/alice/venv"], root=str(tree))
    text = bundle_text(data)
    assert "2.5.1+rocm6.2" in text and "version = 3.11.2" in text
