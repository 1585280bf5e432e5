"""An old copy of a repository key whose binding signatures are SHA-1 only is replaced even though
its fingerprint matches (Debian 13's sqv rejects SHA-1 bindings since 2026-02-01,
ROCm/legacy-rocm-build#5619): the packet parser reads each self-signature's hash algorithm."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from plan_helpers import gpg_cleanup
from rwtest import ci

from rocm_wizard.plan.context import Context
from rocm_wizard.plan.core import CHANGE, CHANGED, OK
from rocm_wizard.plan.openpgp import minimal_keyring, read_keys
from rocm_wizard.plan.steps import AptKey
from rocm_wizard.plan.state import PlanState


def _old_and_new(tmp: Path):
    """The same key exported twice: first with SHA-1 self-signatures only (as gpg made them years
    ago), then after a fresh SHA-256 self-signature (the expiry set again)."""
    gpg = ci.tool("gpg")
    home = tmp / "gnupg-sha1"
    home.mkdir(mode=0o700)
    env = {"GNUPGHOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    run = lambda *a: subprocess.run([gpg, "--batch", "--pinentry-mode", "loopback", "--passphrase", "", *a],  # noqa: E731
                                    env=env, check=True, capture_output=True, timeout=60)
    try:
        run("--cert-digest-algo", "SHA1", "--quick-gen-key", "old key <old@example.invalid>", "rsa2048", "sign", "never")
        fpr = next(ln.split(":")[9] for ln in run("--with-colons", "--list-keys").stdout.decode().splitlines()
                   if ln.startswith("fpr:"))
        old = run("--export", fpr).stdout
        run("--cert-digest-algo", "SHA256", "--quick-set-expire", fpr, "0")
        new = run("--export", fpr).stdout
    finally:
        gpg_cleanup(home)
    return fpr, old, new


def test_sha1_only_key_copy_is_replaced_though_the_fingerprint_matches(tmp_path):
    fpr, old, new = _old_and_new(tmp_path)
    (old_key,), (new_key,) = read_keys(old), read_keys(new)
    assert old_key.fingerprint == new_key.fingerprint == fpr
    assert old_key.sha1_only and 2 in old_key.binding_hashes
    assert not new_key.sha1_only and 8 in new_key.binding_hashes  # SHA-256
    _k, old_ring = minimal_keyring(old, fpr)
    _k, new_ring = minimal_keyring(new, fpr)

    root = tmp_path / "root"
    (root / "etc/apt/keyrings").mkdir(parents=True)
    keyring = root / "etc/apt/keyrings/rocm.gpg"
    keyring.write_bytes(old_ring)
    served = tmp_path / "rocm.gpg.key"
    served.write_bytes(new)
    ctx = Context(root=str(root), env={})
    step = AptKey("rocm-key", "t", url=served.as_uri(), fingerprint=fpr, keyring="/etc/apt/keyrings/rocm.gpg")
    check = step.check(PlanState(ctx))
    assert check.status == CHANGE and "SHA-1 only" in check.detail
    assert step.apply(ctx).status == CHANGED
    assert keyring.read_bytes() == new_ring
    assert not read_keys(keyring.read_bytes())[0].sha1_only
    assert step.check(PlanState(ctx)).status == OK
    assert step.apply(ctx).status == OK


def test_the_script_treats_a_sha1_only_copy_as_stale(tmp_path, seed_system):
    """The script's rule (rw_key_sha1_only, used before rw_key_is says the key is there)."""
    from rocm_wizard.plan import Choices, build_plan
    from rocm_wizard.plan.shell import render_shell

    fpr, old, new = _old_and_new(tmp_path)
    script = render_shell(build_plan(seed_system("seed-rx7900xt-jammy-rocm6.2"),
                                     Choices(path="rocm-upgrade", rocm="6.4.3")))
    start = script.index("rw_gpg() {")
    end = script.index("\n}\n", script.index("rw_key_sha1_only() {")) + 3
    (tmp_path / "old.gpg").write_bytes(old)
    (tmp_path / "new.gpg").write_bytes(new)

    def sha1_only(name: str) -> int:
        return subprocess.run(["bash", "-c", script[start:end] + f'\nrw_key_sha1_only "$1"', "x",
                               str(tmp_path / name)], capture_output=True, timeout=60).returncode

    assert sha1_only("old.gpg") == 0 and sha1_only("new.gpg") != 0
    assert 'if rw_key_is "$keyring" "$fpr" && ! rw_key_sha1_only "$keyring"; then' in script
