"""``--detach`` passes nothing secret on a command line or in an environment other users can read:
the run's own command line and kept environment travel in a private launch file."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from rocm_wizard.execute import detach

SECRET = "s3cret-Tok"
ARGV = ["--yes", "--detach", "--rocm-mirror", f"https://alice:{SECRET}@mirror.example.org/radeon",
        "--torch-index-url", f"https://tok:{SECRET}@pypi.example.org/simple"]


@pytest.fixture
def proxy_env(monkeypatch):
    # the process's own environment is the input here (what a user's shell exported)
    monkeypatch.setenv("https_proxy", f"http://bob:{SECRET}@proxy.example.org:3128")
    monkeypatch.setenv("HTTP_PROXY", f"http://bob:{SECRET}@proxy.example.org:3128")


def test_nothing_secret_on_the_command_lines_or_in_the_environment(tmp_path, proxy_env):
    console, cmd, env, sd = detach.prepare(ARGV, "20260101-000000-1", str(tmp_path))
    for text in cmd + sd + [f"{k}={v}" for k, v in env.items()]:
        assert SECRET not in text, text
    assert "--detach" not in cmd
    launch = env[detach.LAUNCH_ENV]
    assert os.stat(launch).st_mode & 0o777 == 0o600
    data = json.loads(open(launch).read())
    assert data["argv"] == [a for a in ARGV if a != "--detach"]
    assert SECRET in data["env"]["https_proxy"]
    argv, kept = detach.take_launch(launch)
    assert argv == data["argv"] and kept["HTTP_PROXY"].startswith("http://bob:")
    assert not os.path.exists(launch)  # read once, then gone


def test_a_launch_file_others_can_read_is_not_believed(tmp_path):
    path = tmp_path / "launch.json"
    path.write_text(json.dumps({"argv": ["--version"], "env": {}}))
    os.chmod(path, 0o644)
    with pytest.raises(ValueError, match="not a private file"):
        detach.take_launch(str(path))
    assert path.exists()
    os.symlink(path, tmp_path / "link.json")
    with pytest.raises(ValueError):
        detach.take_launch(str(tmp_path / "link.json"))


def test_the_detached_process_runs_what_the_launch_file_says(tmp_path):
    """A real detached start (setsid) of a harmless command line: ``--version``."""
    how, console = detach.start(["--version"], "20260101-000000-2", str(tmp_path), prefer_systemd=False)
    assert "(setsid)" in how
    launch = os.path.join(os.path.dirname(console), "launch.json")
    end = time.monotonic() + 60
    while time.monotonic() < end and (os.path.exists(launch) or not open(console).read().strip()):
        time.sleep(0.1)
    from rocm_wizard import __version__

    assert __version__ in open(console).read()
    assert not os.path.exists(launch)


def test_a_detached_start_without_a_launch_file_fails_cleanly(tmp_path):
    env = dict(os.environ, **{detach.LAUNCH_ENV: str(tmp_path / "missing.json")})
    res = subprocess.run([sys.executable, "-m", "rocm_wizard"], env=env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 1 and "cannot start the detached run" in res.stderr
