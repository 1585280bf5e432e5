"""A key file that holds AMD's public key plus another key's secret-key packets (apt versions that
verify with sqv would trust that other key) is refused by ``--yes`` and by the ``--plan-only``
script alike, and nothing is written; a key file with packets of no use in a keyring is reduced to
the expected key alone, and apt in the root then trusts that key and no other."""
from __future__ import annotations

import os
import shutil
from contextlib import contextmanager

from harness import aptrepo, checks, wizard

KEYRING = "/etc/apt/keyrings/rocm.gpg"


def upgrade_args(world):
    return ["--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-mirror", world.radeon_url, "--allow-http-mirror",
            "--rocm-key-fingerprint", world.site.radeon_key.fingerprint]


@contextmanager
def served_key(world, data: bytes):
    """The mirror serves ``data`` as rocm/rocm.gpg.key for the duration."""
    path = os.path.join(world.site.radeon_root, "rocm", "rocm.gpg.key")
    with open(path, "rb") as fh:
        old = fh.read()
    with open(path, "wb") as fh:
        fh.write(data)
    try:
        yield
    finally:
        with open(path, "wb") as fh:
            fh.write(old)


def _smuggled(world, tmp) -> bytes:
    """AMD's public key, then the rogue key's secret-key packets, binary (as issue 14 describes)."""
    rogue = world.rogue_key
    path = os.path.join(tmp, "rogue.sec")
    rogue._gpg("--output", path, "--export-secret-keys", rogue.fingerprint)
    with open(path, "rb") as fh:
        secret = fh.read()
    assert secret
    return _binary_export(world.site.radeon_key, tmp) + secret


def _binary_export(key, tmp) -> bytes:
    path = os.path.join(tmp, "k.gpg")
    key.write_keyring(path)
    with open(path, "rb") as fh:
        return fh.read()


def test_a_smuggled_secret_key_is_refused_by_the_executor_and_the_script(wroot, apt_site, tmp_path):
    root = wroot
    before = checks.apt_state(root)
    with served_key(apt_site, _smuggled(apt_site, str(tmp_path))):
        res = wizard.run(root, "--yes", "--no-verify", *upgrade_args(apt_site))
        assert res.returncode == 1, res.stderr
        assert "secret-key packet" in res.stderr and "nothing was written" in res.stderr
        assert checks.apt_state(root) == before and not root.exists(KEYRING)
        plan = wizard.run(root, "--plan-only", *upgrade_args(apt_site))
        assert plan.returncode == 2, plan.stderr
        root.write("/root/plan.sh", plan.stdout, mode=0o755)
        script = root.run(["bash", "/root/plan.sh"], timeout=300)
        assert script.returncode != 0
        assert "secret-key packet" in script.stderr and "nothing was written" in script.stderr
        assert checks.apt_state(root) == before and not root.exists(KEYRING)


def test_after_a_run_apt_trusts_the_expected_key_and_not_the_rogue_one(wroot, apt_site, tmp_path):
    root = wroot
    radeon = _binary_export(apt_site.site.radeon_key, str(tmp_path))
    # packets of no use in a keyring around the real key: a trust packet, a private-use packet
    junk = radeon + bytes((0xB0, 2, 0, 0)) + bytes((0xC0 | 60, 5)) + b"hello"
    with served_key(apt_site, junk):
        res = wizard.run(root, "--yes", "--no-verify", *upgrade_args(apt_site))
    assert res.returncode == 0, res.stderr
    with open(root.host_path(KEYRING), "rb") as fh:
        assert fh.read() == radeon  # the key alone, freshly exported
    assert oct(os.stat(root.host_path(KEYRING)).st_mode & 0o777) == "0o644"
    checks.assert_rocm_upgraded(root, apt_site.new)

    # a repository signed by the rogue key, configured with the very keyring the run wrote
    archive = os.path.join(apt_site.site.radeon_root, "rogue-test")
    os.makedirs(os.path.join(archive, "pool"), exist_ok=True)
    try:
        aptrepo.publish_archive(archive, "jammy", [], apt_site.rogue_key, "rogue", "rogue")
        root.write("/etc/apt/sources.list.d/rogue.list",
                   f"deb [arch=amd64 signed-by={KEYRING}] {apt_site.radeon_url}/rogue-test jammy main\n")
        upd = root.apt("update")
        out = upd.stdout + upd.stderr
        assert "rogue-test" in out and "NO_PUBKEY" in out and apt_site.rogue_key.long_id in out, out
        assert "is not signed" in out or upd.returncode != 0, out
    finally:
        shutil.rmtree(archive, ignore_errors=True)
        root.remove("/etc/apt/sources.list.d/rogue.list")
