"""Test keys leave nothing running or lying around: no gpg-agent, no secret-key directory."""
from __future__ import annotations

import subprocess

from plan_helpers import make_gpg_key
from rwtest import ci, leaks


def test_a_test_key_leaves_no_agent_and_no_secret_keys(tmp_path):
    key = make_gpg_key(tmp_path, uid="cleanup <cleanup@example.invalid>")
    assert len(key.fingerprint) == 40
    assert not list(tmp_path.glob("gnupg-*")), "the GNUPGHOME with the secret key is still there"
    assert not [h for h in leaks.agents() if h.startswith(str(tmp_path))]


def test_the_fixture_stops_an_agent_a_test_left_running(tmp_path):
    home = tmp_path / "g"
    home.mkdir(mode=0o700)
    env = {"GNUPGHOME": str(home), "PATH": "/usr/bin:/bin"}
    subprocess.run([ci.tool("gpg"), "--batch", "--passphrase", "", "--pinentry-mode", "loopback", "--quick-gen-key",
                    "left <left@example.invalid>", "ed25519", "sign", "never"], env=env, check=True, capture_output=True,
                   timeout=60)
    assert str(home) in leaks.agents()  # running now: gpg started it
    assert str(home) in leaks.homes  # and noted, so the gpg_agents fixture stops it
    start = leaks.homes.index(str(home))
    leaks.stop_agents(start)
    assert str(home) not in leaks.agents()
