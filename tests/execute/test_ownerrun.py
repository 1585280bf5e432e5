"""rocm_wizard/ownerrun.py, the runner the playbook starts the venv owner's commands through (issue 27,
findings 3, 8, 9): run as the playbook runs it (``/usr/bin/python3 -I -S -c SOURCE -- ARGV``) on
real processes: the command is in a session of its own with no controlling terminal and stdin
/dev/null, gets only the kept environment, and its output is bounded (the process group killed,
exit 125, the bound named)."""
from __future__ import annotations

import os
import subprocess
import sys

from rocm_wizard import ownerrun, runas

PY = sys.executable


def run(*argv, env=None, **kw):
    return subprocess.run([PY, "-I", "-S", "-c", ownerrun.source(), "--", *argv], capture_output=True,
                          env=env, timeout=60, **kw)


def test_a_new_session_without_a_terminal_and_stdin_devnull():
    probe = ("import os; s = open('/proc/self/stat').read().rsplit(')', 1)[1].split(); "
             "print(os.getsid(0) == os.getpid(), s[4], os.path.realpath('/proc/self/fd/0'))")
    res = run(PY, "-c", probe)
    assert res.returncode == 0, res.stderr
    assert res.stdout.decode().split() == ["True", "0", "/dev/null"]


def test_roots_secrets_stay_out_and_what_pip_needs_goes_in():
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/home/alice", "HF_TOKEN": "hf_x",
           "AWS_SECRET_ACCESS_KEY": "aws_x", "RW_MIRROR_PASSWORD": "pw", "PIP_INDEX_URL": "http://127.0.0.1/simple",
           "https_proxy": "http://user:secret@proxy:3128", "LANG": "C.UTF-8"}
    res = run(PY, "-c", "import os, json; print(json.dumps(dict(os.environ)))", env=env)
    got = __import__("json").loads(res.stdout)
    assert not {"HF_TOKEN", "AWS_SECRET_ACCESS_KEY", "RW_MIRROR_PASSWORD", "https_proxy"} & set(got), got
    assert got["PIP_INDEX_URL"] == "http://127.0.0.1/simple" and got["HOME"] == "/home/alice" and got["LANG"] == "C.UTF-8"


def test_the_kept_names_are_the_executors_plus_the_accounts_and_the_index():
    assert runas.OWNER_ENV_NAMES <= ownerrun.KEEP
    assert ownerrun.KEEP - runas.OWNER_ENV_NAMES == {"HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "PIP_INDEX_URL",
                                                      "UV_INDEX_URL", "UV_DEFAULT_INDEX"}


def test_output_beyond_the_bound_stops_the_command_and_its_group():
    # one huge line, then a grandchild that would outlive it: both go
    code = ("import os, subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
            "sys.stdout.write('A' * (%d * 3)); sys.stdout.flush(); time.sleep(60)" % ownerrun.LIMIT)
    res = run(PY, "-c", code)
    assert res.returncode == ownerrun.OVER
    assert len(res.stdout) == ownerrun.LIMIT
    assert b"wrote more than %d bytes on stdout: stopped" % ownerrun.LIMIT in res.stderr


def test_the_exit_status_and_output_pass_through():
    res = run("sh", "-c", "echo out; echo err >&2; exit 7")
    assert (res.returncode, res.stdout, res.stderr) == (7, b"out\n", b"err\n")
    missing = run("/nonexistent/bin/python")
    assert missing.returncode == 127 and b"cannot start" in missing.stderr
    killed = run("sh", "-c", "kill -TERM $$")
    assert killed.returncode == 128 + 15
