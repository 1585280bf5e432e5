"""The signing-key check, three ways alike: the Python step (``plan/openpgp.py``), the shell
script's ``rw_key_is``/``rw_key_export`` and the playbook's tasks accept a key file only when it
holds exactly the expected primary public key (with its own user ids, subkeys and signatures), and
write a freshly exported keyring of that key alone.

Refused: another primary key beside it, secret-key packets (of another key, or of the expected one:
apt versions that verify with sqv would trust a key smuggled in as secret-key packets), a file
without the expected key.  Dropped: packets that have no place in a keyring (trust packets,
unknown or private packet types).  Every case runs through all three paths; their keyrings are
byte for byte the same (``gpg --export``'s)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from plan_helpers import tool
from rocm_wizard.plan.openpgp import KeyFormatError, _header, _packets, dearmor, minimal_keyring
from rocm_wizard.plan.shell import _prelude
from rocm_wizard.plan.steps import AptKey


class Gpg:
    def __init__(self, home: Path) -> None:
        if tool("gpg") is None:
            pytest.skip("gpg is not installed")
        home.mkdir(mode=0o700)
        self.env = {"GNUPGHOME": str(home), "PATH": os.environ["PATH"], "LC_ALL": "C"}

    def __call__(self, *args: str) -> bytes:
        return subprocess.run(["gpg", "--batch", "--no-tty", "--pinentry-mode", "loopback", "--passphrase", "",
                               *args], env=self.env, check=True, capture_output=True, timeout=120).stdout

    def new_key(self, uid: str) -> str:
        self("--quick-gen-key", uid, "ed25519", "sign", "never")
        out = self("--with-colons", "--list-keys", uid).decode()
        return next(ln.split(":")[9] for ln in out.splitlines() if ln.startswith("fpr:"))


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("keys")
    gpg = Gpg(tmp / "home")
    amd = gpg.new_key("AMD stand-in <amd@example.invalid>")
    rogue = gpg.new_key("rogue <rogue@example.invalid>")
    gpg("--quick-add-key", amd, "cv25519", "encr", "never")  # a subkey of its own: kept
    public = gpg("--export", amd)
    armored = gpg("--armor", "--export", amd)
    packets = list(_packets(public))
    junk = b"".join(_header(t, len(b)) + b for t, b in packets[:2]) + _header(60, 5) + b"hello" + \
        _header(12, 2) + b"\x00\x00" + b"".join(_header(t, len(b)) + b for t, b in packets[2:])
    files = {
        "good-armored": (armored, True),
        "good-binary": (public, True),
        "junk-packets-dropped": (junk, True),
        "rogue-secret-key": (public + gpg("--export-secret-keys", rogue), False),
        "rogue-secret-key-armored": (armored + gpg("--armor", "--export-secret-keys", rogue), False),
        "own-secret-key": (gpg("--export-secret-keys", amd), False),
        "rogue-secret-subkey": (public + gpg("--export-secret-subkeys", rogue), False),
        "rogue-public-key": (armored + gpg("--armor", "--export", rogue), False),
        "rogue-only": (gpg("--export", rogue), False),
    }
    for name, (data, _ok) in files.items():
        (tmp / name).write_bytes(data)
    return {"tmp": tmp, "amd": amd, "public": public, "files": files}


CASES = ["good-armored", "good-binary", "junk-packets-dropped", "rogue-secret-key", "rogue-secret-key-armored",
         "own-secret-key", "rogue-secret-subkey", "rogue-public-key", "rogue-only"]


def _python(world, name):
    try:
        return minimal_keyring(world["files"][name][0], world["amd"], now=0)[1]
    except KeyFormatError:
        return None


def _shell(world, name, tmp_path):
    out = tmp_path / "shell.gpg"
    lib = tmp_path / "lib.bash"
    lib.write_text(_prelude())
    script = ('source "$1"; trap - EXIT ERR; set +e\n'
              'if rw_key_is "$2" "$3" && rw_key_export "$2" "$3" "$4" && rw_key_is "$4" "$3"; then exit 0; fi\n'
              'rm -f -- "$4"; exit 1\n')
    res = subprocess.run(["bash", "-c", script, "x", str(lib), str(world["tmp"] / name), world["amd"], str(out)],
                         capture_output=True, text=True, timeout=120, env={"PATH": os.environ["PATH"]})
    assert res.returncode in (0, 1), res.stderr
    return out.read_bytes() if res.returncode == 0 else None


def _ansible(world, name, tmp_path):
    playbook_bin = tool("ansible-playbook")
    if playbook_bin is None:
        pytest.skip("ansible-playbook is not installed")
    keyring = tmp_path / "keyrings" / "rocm.gpg"
    step = AptKey("rocm-key", "t", url=(world["tmp"] / name).as_uri(), fingerprint=world["amd"],
                  keyring=str(keyring))
    step.index = 1
    step.validate()
    tasks = step.render_ansible()
    flat = [u for t in tasks for u in ([t] if "block" not in t else t["block"] + t["always"])]
    for t in flat:  # a test writes nowhere but under tmp_path, as the user running it
        t.get("ansible.builtin.copy", {}).pop("owner", None)
        t.get("ansible.builtin.copy", {}).pop("group", None)
    keyring.parent.mkdir()
    play = [{"name": "key", "hosts": "localhost", "connection": "local", "gather_facts": False,
             "vars": step.ansible_vars(), "tasks": tasks}]
    (tmp_path / "play.yml").write_text(yaml.safe_dump(play))
    # the play's temporary directory (gpg's home, whose agent socket must fit a socket path's 108 bytes) goes
    # under a short directory of its own: pytest's tmp_path under xdist and a long TMPDIR can exceed that
    short = Path(tempfile.mkdtemp(prefix="rwk-"))
    try:
        env = dict(os.environ, ANSIBLE_LOCAL_TEMP=str(tmp_path / "at"), ANSIBLE_HOME=str(tmp_path / "ah"),
                   HOME=str(tmp_path), ANSIBLE_NOCOLOR="1", TMPDIR=str(short))
        res = subprocess.run([playbook_bin, "-i", "localhost,", "-e", "ansible_python_interpreter=" + sys.executable,
                              str(tmp_path / "play.yml")], capture_output=True,
                             text=True, env=env, timeout=600)
        if res.returncode != 0:
            assert "the downloaded key is not exactly the expected key" in res.stdout, res.stdout + res.stderr
            assert not keyring.exists()
            # the temporary directory goes with a refused key too (the block's always)
            assert not list(short.glob("ansible.*.rocm-wizard")), sorted(short.iterdir())
            return None
        assert not list(short.glob("ansible.*.rocm-wizard")), sorted(short.iterdir())
        return keyring.read_bytes()
    finally:
        shutil.rmtree(short, ignore_errors=True)


@pytest.mark.parametrize("name", CASES)
def test_python_and_shell_decide_alike(world, name, tmp_path):
    want_ok = world["files"][name][1]
    py = _python(world, name)
    sh = _shell(world, name, tmp_path)
    assert (py is not None) == want_ok, name
    assert (sh is not None) == want_ok, name
    if want_ok:
        # the keyring written is the expected key alone, exactly as gpg exports it
        assert py == sh == world["public"]


@pytest.mark.parametrize("name", ["good-armored", "junk-packets-dropped", "rogue-secret-key", "rogue-public-key"])
def test_ansible_decides_like_python(world, name, tmp_path):
    got = _ansible(world, name, tmp_path)
    py = _python(world, name)
    assert (got is None) == (py is None)
    if got is not None:
        assert got == py == world["public"]


def test_the_refusal_says_why(world):
    with pytest.raises(KeyFormatError, match="secret-key packet"):
        minimal_keyring(world["files"]["rogue-secret-key"][0], world["amd"])
    with pytest.raises(KeyFormatError, match="expected exactly"):
        minimal_keyring(world["files"]["rogue-public-key"][0], world["amd"])
    assert dearmor(world["files"]["good-armored"][0]) == world["public"]
