"""Mirrors: an http:// mirror needs an explicit opt-in (the key would come over plain HTTP), and
credentials in a mirror URL reach no plan output, no sources file and no message."""
from __future__ import annotations

from plan_helpers import SYSTEMS, run_cli

SEED = str(SYSTEMS / "seed-rx7900xt-jammy-rocm6.2.json")
UPGRADE = ["--snapshot", SEED, "--path", "rocm-upgrade", "--rocm", "6.4.3"]


def test_an_http_mirror_is_refused_without_the_opt_in():
    rc, out, err = run_cli(["--plan-only"] + UPGRADE + ["--rocm-mirror", "http://mirror.example.org/radeon"])
    assert rc == 64 and out == ""
    assert "plain http" in err and "--allow-http-mirror" in err


def test_an_http_mirror_with_the_opt_in_is_planned_with_a_warning():
    rc, out, err = run_cli(["--plan-only"] + UPGRADE + ["--rocm-mirror", "http://mirror.example.org/radeon",
                                                       "--allow-http-mirror"])
    assert rc == 2, err
    assert "http://mirror.example.org/radeon/rocm/apt/6.4.3 jammy main" in out
    assert "WARNING: the mirror is plain http" in err and "fingerprint is then the only protection" in err
    assert "# Note: WARNING: the mirror is plain http" in out  # and in the script's header


def test_https_and_file_mirrors_need_no_opt_in():
    for mirror in ("https://mirror.example.org/radeon", "file:///srv/radeon"):
        rc, out, err = run_cli(["--plan-only"] + UPGRADE + ["--rocm-mirror", mirror])
        assert rc == 2, err
        assert "WARNING" not in err


def test_the_answers_file_can_opt_in(tmp_path):
    answers = tmp_path / "a.toml"
    answers.write_text('format = 1\nrocm_mirror = "http://mirror.example.org/radeon"\n')
    from rocm_wizard.execute.answers import load
    from rocm_wizard.plan.build import Choices

    assert Choices(**load(str(answers))).allow_http_mirror is False
    answers.write_text('format = 1\nrocm_mirror = "http://mirror.example.org/radeon"\nallow_http_mirror = true\n')
    assert Choices(**load(str(answers))).allow_http_mirror is True


SECRET = "s3cr%2Ft"  # "s3cr/t", percent-encoded in the URL
MIRROR = f"https://alice:{SECRET}@mirror.example.org/radeon"


def test_credentials_reach_no_rendering_of_the_plan():
    for fmt in ("shell", "json", "ansible"):
        rc, out, err = run_cli(["--plan-only", "--format", fmt] + UPGRADE + ["--rocm-mirror", MIRROR])
        assert rc == 2, err
        for text in (out, err):
            assert "s3cr" not in text and "alice:" not in text
        assert "https://mirror.example.org/radeon/rocm/apt/6.4.3 jammy main" in out.replace("\\n", "\n")
    import json

    rc, out, _ = run_cli(["--plan-only", "--format", "json"] + UPGRADE + ["--rocm-mirror", MIRROR])
    plan = json.loads(out)
    auth = plan["steps"][0]
    assert auth["kind"] == "apt-auth" and auth["params"]["password"] == "***"
    assert auth["params"]["machine"] == "mirror.example.org/radeon" and auth["params"]["login"] == "alice"
    key = plan["steps"][1]
    assert key["params"]["auth_file"] == auth["params"]["path"] and "@" not in key["params"]["url"]
    assert plan["inputs"]["rocm_mirror"] == "https://mirror.example.org/radeon"


def test_a_bad_url_with_credentials_is_refused_without_showing_them():
    rc, out, err = run_cli(["--plan-only"] + UPGRADE + ["--rocm-mirror", "https://alice:s3cr@h/x y"])
    assert rc == 64 and "s3cr" not in err and "***@h" in err


def test_auth_and_key_steps_log_in_with_the_credentials(tmp_path):
    """The executor's side, against a local server that wants a login: the auth file is written
    mode 0600 and the key downloaded with its credentials."""
    import base64
    import functools
    import http.server
    import threading

    from plan_helpers import make_gpg_key, make_root
    from rocm_wizard.plan.context import Context
    from rocm_wizard.plan.core import CHANGED
    from rocm_wizard.plan.steps import AptAuth, AptKey

    key = make_gpg_key(tmp_path)
    site = tmp_path / "site"
    (site / "rocm").mkdir(parents=True)
    (site / "rocm/rocm.gpg.key").write_bytes(key.armored)
    seen = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            seen.append(self.headers.get("Authorization"))
            if self.headers.get("Authorization") != "Basic " + base64.b64encode(b"alice:s3cr/t").decode():
                self.send_response(401)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            super().do_GET()

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        root = make_root(tmp_path / "root")
        ctx = Context(root=str(root), env={})
        path = "/etc/apt/auth.conf.d/rocm-wizard-mirror.conf"
        no_login = AptKey("rocm-key", "t", url=base + "/rocm/rocm.gpg.key", fingerprint=key.fingerprint,
                          keyring="/etc/apt/keyrings/rocm.gpg")
        assert no_login.apply(ctx).status == "failed" and seen == [None]
        auth = AptAuth("mirror-auth", "t", path=path, machine=base, login="alice", password="s3cr/t")
        assert auth.apply(ctx).status == CHANGED
        assert (root / path[1:]).stat().st_mode & 0o777 == 0o600
        assert (root / path[1:]).read_text() == f"machine {base} login alice password s3cr/t\n"
        assert auth.apply(ctx).status == "ok"
        step = AptKey("rocm-key", "t", url=base + "/rocm/rocm.gpg.key", fingerprint=key.fingerprint,
                      keyring="/etc/apt/keyrings/rocm.gpg", auth_file=path)
        assert step.apply(ctx).status == CHANGED
        assert (root / "etc/apt/keyrings/rocm.gpg").exists()
        assert "s3cr" not in str(auth.to_dict()) and "s3cr" not in auth.describe(None).text()
    finally:
        server.shutdown()
