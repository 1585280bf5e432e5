"""Whom a root run trusts with a venv's interpreter (rocm_wizard.runas), and the places that use
the rule: the step context (commands and writes as the owner) and the smoke-test launcher.
Ownership is real (chown in a temporary directory; the tests need root for that), accounts come
from the test's own passwd text, commands go to a recording runner and are not run."""
from __future__ import annotations

import os
import subprocess

import pytest

from rocm_wizard.detect.sources import CommandResult
from rocm_wizard.plan.context import Context, StepError
from rocm_wizard.runas import WRITE_AS_SH, OwnerError, as_user, interpreter_owner, venv_owner

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root")

ALICE, BOB = 4242, 4343
NAMES = {ALICE: "alice", BOB: "bob"}


def make_venv(base, uid: int = ALICE):
    venv = base / "venv"
    site = venv / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (venv / "bin").mkdir()
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    py = venv / "bin" / "python"
    py.write_text("#!/bin/sh\n")
    py.chmod(0o755)
    for p in (venv, venv / "lib", venv / "lib" / "python3.11", site, venv / "bin", venv / "pyvenv.cfg", py):
        os.chown(p, uid, uid)
    return venv, site


def test_the_owner_of_the_venv_directory_runs_it(tmp_path):
    venv, site = make_venv(tmp_path)
    assert venv_owner(str(venv), NAMES.get) == "alice"
    site.chmod(0o777)  # the owner's own business: it runs with their rights only
    assert venv_owner(str(venv), NAMES.get) == "alice"
    link = tmp_path / "venv-link"
    link.symlink_to(venv)  # a link made by root does not make it root's
    assert venv_owner(str(link), NAMES.get) == "alice"
    assert interpreter_owner(str(venv / "bin" / "python"), NAMES.get) == "alice"


def test_a_root_venv_runs_as_root_unless_others_can_change_it(tmp_path):
    venv, site = make_venv(tmp_path, uid=0)
    assert venv_owner(str(venv), NAMES.get) == "root"
    site.chmod(0o757)
    with pytest.raises(OwnerError, match="can be changed by other users.*not run it as root"):
        venv_owner(str(venv), NAMES.get)
    site.chmod(0o775)
    os.chown(site, 0, BOB)  # group-writable by a group that is not root's
    with pytest.raises(OwnerError, match="can be changed by other users"):
        venv_owner(str(venv), NAMES.get)


@pytest.mark.parametrize("venv_uid,other", [(0, ALICE), (ALICE, BOB)])
def test_a_venv_that_two_accounts_control_is_refused(tmp_path, venv_uid, other):
    venv, site = make_venv(tmp_path, uid=venv_uid)
    os.chown(site, other, other)
    with pytest.raises(OwnerError, match=f"belongs to {NAMES[other]} but the venv .* to "):
        venv_owner(str(venv), NAMES.get)


def test_an_owner_without_an_account_is_refused(tmp_path):
    venv, _ = make_venv(tmp_path, uid=5555)
    with pytest.raises(OwnerError, match="user id 5555, which has no account here"):
        venv_owner(str(venv), NAMES.get)


class Recorder:
    def __init__(self):
        self.calls = []

    def __call__(self, argv, input=None, env=None, timeout=None):
        self.calls.append((list(argv), input))
        return CommandResult(tuple(argv), "", "", 0, None, 0.0)


def rooted_ctx(tmp_path, euid: int):
    (tmp_path / "etc").mkdir(exist_ok=True)
    (tmp_path / "etc" / "passwd").write_text(f"root:x:0:0::/root:/bin/sh\nalice:x:{ALICE}:{ALICE}::/home/alice:/bin/sh\n")
    rec = Recorder()
    return Context(root=str(tmp_path), runner=rec, euid=euid), rec


def test_the_step_context_runs_and_writes_as_the_owner(tmp_path):
    venv, _ = make_venv(tmp_path)
    ctx, rec = rooted_ctx(tmp_path, euid=0)
    assert ctx.venv_user("/venv") == "alice"
    ctx.run(["/venv/bin/python", "-c", "pass"], user=ctx.venv_user("/venv"))
    ctx.write_as("alice", "/venv/rocm-wizard/freeze.txt", b"a==1\n", 0o644)
    assert rec.calls[0][0] == ["runuser", "-u", "alice", "--", "/venv/bin/python", "-c", "pass"]
    assert rec.calls[1] == (["runuser", "-u", "alice", "--", "sh", "-c", WRITE_AS_SH, "sh",
                             "/venv/rocm-wizard/freeze.txt", "644"], b"a==1\n")
    assert not (venv / "rocm-wizard").exists()  # root itself wrote nothing there
    for d, dirs, files in os.walk(venv):  # root's venv now, one directory of it writable by all
        for name in [d] + [os.path.join(d, n) for n in dirs + files]:
            os.chown(name, 0, 0)
    (venv / "bin").chmod(0o777)
    with pytest.raises(StepError, match="can be changed by other users"):
        ctx.venv_user("/venv")
    user_ctx, _ = rooted_ctx(tmp_path, euid=ALICE)
    assert user_ctx.venv_user("/venv") is None  # not root: runs as itself, nothing to switch


def test_the_owner_write_is_whole_and_makes_the_directory(tmp_path):
    dest = tmp_path / "venv" / "rocm-wizard" / "freeze.txt"
    (tmp_path / "venv").mkdir()
    argv = ["sh", "-c", WRITE_AS_SH, "sh", str(dest), "640"]
    subprocess.run(argv, input=b"x==1\n", check=True)
    assert dest.read_bytes() == b"x==1\n" and oct(dest.stat().st_mode & 0o777) == "0o640"
    assert [p.name for p in dest.parent.iterdir()] == ["freeze.txt"]  # no temporary file left
    assert as_user(["id"], "root") == ["id"] and as_user(["id"], None) == ["id"]


def test_an_interpreter_is_judged_by_the_path_as_given(tmp_path):
    """alice's ~/x/python3 is a link to the system interpreter, with a pyvenv.cfg beside it: Python
    started as ~/x/python3 takes its prefix (site-packages, .pth files) from ~/x, so it is hers."""
    real = tmp_path / "usr" / "bin"
    real.mkdir(parents=True)
    sys_py = real / "python3"
    sys_py.write_text("#!/bin/sh\n")
    sys_py.chmod(0o755)
    home = tmp_path / "alice"
    x = home / "x"
    (x / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    (x / "pyvenv.cfg").write_text(f"home = {real}\n")
    (x / "python3").symlink_to(sys_py)
    for d, _dirs, files in os.walk(home):
        os.chown(d, ALICE, ALICE)
        for f in files:
            os.lchown(os.path.join(d, f), ALICE, ALICE)
    assert interpreter_owner(str(x / "python3"), NAMES.get) == "alice"
    (x / "pyvenv.cfg").unlink()  # even without one: she can put it there at any time
    assert interpreter_owner(str(x / "python3"), NAMES.get) == "alice"
    assert interpreter_owner(str(sys_py), NAMES.get) == "root"
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # anyone may drop a pyvenv.cfg beside a root-owned link there
    (shared / "python3").symlink_to(sys_py)
    with pytest.raises(OwnerError, match="can be changed by other users"):
        interpreter_owner(str(shared / "python3"), NAMES.get)
    os.chown(home, BOB, BOB)  # two accounts on the way
    with pytest.raises(OwnerError, match="two accounts"):
        interpreter_owner(str(x / "python3"), NAMES.get)


SECRETS = {"HF_TOKEN": "hf_root", "AWS_SECRET_ACCESS_KEY": "aws_root", "RW_MIRROR_PASSWORD": "pw_root",
           "PIP_EXTRA_INDEX_URL": "https://root:pw@example.invalid/simple",
           "https_proxy": "http://root:pw@proxy.invalid:3128"}


def test_the_owners_commands_get_none_of_roots_secrets(tmp_path):
    """Executor: a command run as the venv's owner gets a minimal environment (plus what the step
    passes, like the index URL), a command of root's own keeps root's."""
    seen = []

    def runner(argv, input=None, env=None, timeout=None):
        seen.append((list(argv), dict(env or {})))
        return CommandResult(tuple(argv), "", "", 0, None, 0.0)

    env = dict(SECRETS, PATH="/usr/bin:/bin", HIP_VISIBLE_DEVICES="0", http_proxy="http://proxy.invalid:3128")
    ctx = Context(root=str(tmp_path), runner=runner, euid=0, env=env)
    ctx.run(["pip", "install", "x"], user="alice", env={"PIP_INDEX_URL": "https://u:p@idx.invalid/simple"})
    argv, got = seen[-1]
    assert argv[:3] == ["runuser", "-u", "alice"]
    assert not set(SECRETS) & set(got), got
    assert got["PIP_INDEX_URL"] == "https://u:p@idx.invalid/simple" and got["HIP_VISIBLE_DEVICES"] == "0"
    assert got["http_proxy"] == "http://proxy.invalid:3128" and got["PATH"] == "/usr/bin:/bin"
    ctx.run(["apt-get", "update"])
    assert seen[-1][1]["HF_TOKEN"] == "hf_root"


def test_the_smoke_test_as_the_owner_gets_none_of_roots_secrets(tmp_path, monkeypatch):
    from rocm_wizard.verify import runner as vr

    seen = []
    monkeypatch.setattr(vr, "_run", lambda target, argv, timeout, on_progress, env, *rest: seen.append((argv, env)))
    for k, v in SECRETS.items():
        monkeypatch.setenv(k, v)
    vr._run_as_user("alice", vr.Target(kind="python", python="/usr/bin/python3"), [vr.SMOKE_PATH], 5.0, None, None, 60.0)
    argv, env = seen[-1]
    assert argv[:3] == ["runuser", "-u", "alice"]
    assert not set(SECRETS) & set(env), env


def test_a_file_of_the_owners_is_read_up_to_the_bound_and_refused_beyond(tmp_path):
    """Issue 27, finding 8 through a file: what root reads for a venv's owner (bin/activate,
    pip.conf) is read at most OWNER_FILE_BYTES + 1 bytes; a larger file is refused, never read whole."""
    from rocm_wizard.runas import OWNER_FILE_BYTES, state_as

    ok = tmp_path / "activate"
    ok.write_bytes(b"a" * OWNER_FILE_BYTES)
    kind, mode, data = state_as(None, str(ok))
    assert kind == "file" and len(data) == OWNER_FILE_BYTES
    big = tmp_path / "big"
    with open(big, "wb") as fh:
        fh.truncate(64 * OWNER_FILE_BYTES)  # sparse: 64 MiB of zeros
    with pytest.raises(OSError, match="larger than 1 MiB"):
        state_as(None, str(big))
