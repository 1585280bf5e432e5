"""The small OpenPGP reader used to check the signing key before anything is written."""
from __future__ import annotations

import os
import subprocess

import pytest

from plan_helpers import make_gpg_key
from rocm_wizard.plan.openpgp import KeyFormatError, dearmor, normalize_fingerprint, read_keys


def test_fingerprint_and_dearmor_agree_with_gpg(tmp_path):
    key = make_gpg_key(tmp_path)
    keys = read_keys(key.armored)
    assert [k.fingerprint for k in keys] == [key.fingerprint]
    assert keys[0].expires is None and not keys[0].revoked
    assert keys[0].user_ids == ["rocm-wizard test <test@example.invalid>"]
    binary = dearmor(key.armored)
    (tmp_path / "k.asc").write_bytes(key.armored)
    home = tmp_path / "h"
    home.mkdir(mode=0o700)
    subprocess.run(["gpg", "--batch", "--yes", "--dearmor", "-o", str(tmp_path / "k.gpg"), str(tmp_path / "k.asc")],
                   env={"GNUPGHOME": str(home), "PATH": os.environ["PATH"]}, check=True, capture_output=True)
    assert binary == (tmp_path / "k.gpg").read_bytes()
    assert [k.fingerprint for k in read_keys(binary)] == [key.fingerprint]


def test_expired_key_is_seen(tmp_path):
    key = make_gpg_key(tmp_path, uid="old <old@example.invalid>", expired=True)
    (k,) = read_keys(key.armored)
    assert k.expires is not None and k.expired(now=2_000_000_000)
    assert not k.expired(now=k.created + 10)


def test_two_keys_in_one_file_are_both_reported(tmp_path):
    a = make_gpg_key(tmp_path, uid="a <a@example.invalid>")
    b = make_gpg_key(tmp_path, uid="b <b@example.invalid>")
    assert [k.fingerprint for k in read_keys(a.armored + b.armored)] == [a.fingerprint, b.fingerprint]


@pytest.mark.parametrize("data", [b"", b"hello", b"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n!!!!\n",
                                  b"\x99\x00\x05\x04", b"-----BEGIN PGP PUBLIC KEY BLOCK-----\nabc"])
def test_garbage_is_an_error_not_a_crash(data):
    with pytest.raises(KeyFormatError):
        read_keys(data)


def test_normalize_fingerprint():
    assert normalize_fingerprint("ca8b b472 7a47 b4d0 9b4e  e896 9386 b48a 1a69 3c5c") == \
        "CA8BB4727A47B4D09B4EE8969386B48A1A693C5C"
    assert normalize_fingerprint("0x" + "A" * 40) == "A" * 40
    assert normalize_fingerprint("9386B48A1A693C5C") is None
    assert normalize_fingerprint("Z" * 40) is None
