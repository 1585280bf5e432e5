"""Secrets never reach a log: URL credentials, secret options, secret-looking assignments."""
from __future__ import annotations

from hypothesis import given, strategies as st

from rocm_wizard.execute.redact import MASK, redact, redact_argv

SECRET = st.text(alphabet="ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!$%^*()_+", min_size=8,
                 max_size=30).filter(lambda s: "http" not in s)


def test_url_credentials_are_masked_but_the_url_stays_readable():
    text = "Looking in indexes: https://builder:hunter2pass@pypi.example.com:8443/simple/torch"
    assert redact(text) == f"Looking in indexes: https://{MASK}@pypi.example.com:8443/simple/torch"
    assert redact("http://token-only@host/x") == f"http://{MASK}@host/x"


def test_secret_options_and_assignments():
    argv = ["pip", "install", "--password", "p4ss", "--token=abc123", "--index-url", "http://u:p@h/s", "torch==2.4.1"]
    assert redact_argv(argv) == ["pip", "install", "--password", MASK, f"--token={MASK}", "--index-url",
                                 f"http://{MASK}@h/s", "torch==2.4.1"]
    assert redact("HF_TOKEN=hf_abcdef and API_KEY: zzz9") == f"HF_TOKEN={MASK} and API_KEY: {MASK}"
    assert redact("Authorization: Bearer eyJhbGciOi") == f"Authorization: {MASK}"


def test_ordinary_text_is_untouched():
    for text in ("apt-get install -y -o DPkg::Lock::Timeout=600 rocm=6.4.3.60403-128~22.04",
                 "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.4.3 jammy main",
                 "--rocm-key-fingerprint CA8BB4727A47B4D09B4EE8969386B48A1A693C5C", ""):
        assert redact(text) == text
    assert redact_argv(["--rocm-key-fingerprint", "CA8BB4727A47B4D09B4EE8969386B48A1A693C5C"]) == [
        "--rocm-key-fingerprint", "CA8BB4727A47B4D09B4EE8969386B48A1A693C5C"]


@given(user=st.from_regex(r"[a-z][a-z0-9]{2,10}", fullmatch=True), secret=SECRET,
       scheme=st.sampled_from(["http", "https", "git+https", "s3"]))
def test_no_url_secret_survives(user, secret, scheme):
    if "@" in secret or "/" in secret or ":" in secret or " " in secret:
        return
    url = f"{scheme}://{user}:{secret}@example.org/path"
    assert secret not in redact(f"fetching {url} now")
    assert secret not in " ".join(redact_argv(["curl", url]))


@given(name=st.sampled_from(["--password", "--passwd", "--api-key", "--secret", "--auth-token"]), secret=SECRET)
def test_no_option_secret_survives(name, secret):
    assert secret not in redact_argv(["tool", name, secret])
    assert secret not in " ".join(redact_argv(["tool", f"{name}={secret}"]))
