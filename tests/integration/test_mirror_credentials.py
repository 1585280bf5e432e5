"""A mirror that needs a login: the password given in the mirror URL goes to
/etc/apt/auth.conf.d (mode 0600) and nowhere else: not into a sources file, not into the plan,
the script, the run's logs or any command line rocm-wizard runs; apt logs in with it."""
from __future__ import annotations

import os

from harness import checks, wizard

LOGIN, PASSWORD = "alice", "s3cret-Pw"
AUTH = "/etc/apt/auth.conf.d/rocm-wizard-mirror.conf"


def _args(world):
    url = world.radeon_url.replace("http://", f"http://{LOGIN}:{PASSWORD}@")
    return ["--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-mirror", url, "--allow-http-mirror",
            "--rocm-key-fingerprint", world.site.radeon_key.fingerprint]


def _files_with(root, top, needle):
    hits = []
    for dirpath, _dirs, files in os.walk(root.host_path(top)):
        for name in files:
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                continue
            with open(path, "rb") as fh:
                if needle.encode() in fh.read():
                    hits.append(path)
    return hits


def _auth_file_ok(root, world):
    path = root.host_path(AUTH)
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    assert root.read(AUTH) == f"machine http://127.0.0.1:{world.radeon.port} login {LOGIN} password {PASSWORD}\n"


def test_yes_puts_the_password_in_the_auth_file_only(wroot, apt_site):
    root = wroot
    apt_site.radeon.credentials = (LOGIN, PASSWORD)
    res = wizard.run(root, "--yes", "--no-verify", *_args(apt_site))
    assert res.returncode == 0, res.stderr
    checks.assert_rocm_upgraded(root, apt_site.new)
    _auth_file_ok(root, apt_site)
    assert PASSWORD not in res.stdout + res.stderr
    assert _files_with(root, "/etc/apt", PASSWORD) == [root.host_path(AUTH)]
    assert _files_with(root, "/var/log/rocm-wizard", PASSWORD) == []
    assert f"{apt_site.radeon_url}/rocm/apt/6.4.3 jammy main" in root.read("/etc/apt/sources.list.d/rocm.list")


def test_the_script_asks_for_the_password_and_keeps_it_out_of_itself(wroot, apt_site):
    root = wroot
    apt_site.radeon.credentials = (LOGIN, PASSWORD)
    plan = wizard.run(root, "--plan-only", *_args(apt_site))
    assert plan.returncode == 2, plan.stderr
    assert PASSWORD not in plan.stdout + plan.stderr
    for fmt in ("json", "ansible"):
        other = wizard.run(root, "--plan-only", "--format", fmt, *_args(apt_site))
        assert other.returncode == 2 and PASSWORD not in other.stdout + other.stderr
    root.write("/root/plan.sh", plan.stdout, mode=0o755)
    before = checks.apt_state(root)
    no_pw = root.run(["bash", "/root/plan.sh"], timeout=300)
    assert no_pw.returncode != 0 and "RW_MIRROR_PASSWORD" in no_pw.stderr
    assert checks.apt_state(root) == before
    res = root.run(["bash", "/root/plan.sh"], env={"RW_MIRROR_PASSWORD": PASSWORD}, timeout=600)
    assert res.returncode == 0, res.stderr
    assert PASSWORD not in res.stderr + res.stdout
    checks.assert_rocm_upgraded(root, apt_site.new)
    _auth_file_ok(root, apt_site)
    assert _files_with(root, "/etc/apt", PASSWORD) == [root.host_path(AUTH)]


def test_an_index_token_reaches_pip_through_its_environment_only(wroot, pyindex):
    from test_exec_torch import make_torch_venv

    root = wroot
    venv = "/srv/venv"
    make_torch_venv(root, pyindex, venv)
    pyindex.server.credentials = ("tok", PASSWORD)
    url = pyindex.url("rocm6.1").replace("http://", f"http://tok:{PASSWORD}@")
    args = ["--path", "torch-reinstall", "--torch", "2.4.1+rocm6.1", "--venv", venv, "--venv-mode", "existing",
            "--torch-index-url", url]
    plan = wizard.run(root, "--plan-only", *args)
    assert plan.returncode == 2 and PASSWORD not in plan.stdout + plan.stderr
    res = wizard.run(root, "--yes", "--no-verify", *args)
    assert res.returncode == 0, res.stderr
    assert PASSWORD not in res.stdout + res.stderr
    assert _files_with(root, "/var/log/rocm-wizard", PASSWORD) == []
    assert _files_with(root, venv, PASSWORD) == []
    commands = [e["argv"] for e in checks.events(root, checks.latest_run(root)) if e.get("argv")]
    pip = [a for a in commands if "install" in a and "torch==2.4.1+rocm6.1" in a]
    assert pip and not any("--index-url" in a or "127.0.0.3" in " ".join(a) for a in pip), pip
    out = root.run([venv + "/bin/python", "-c", "import torch; print(torch.__version__)"], check=True).stdout
    assert out.strip() == "2.4.1+rocm6.1"
