"""A root run never runs a user's venv as root, nor writes through what the venv's owner controls.

The venv belongs to alice and holds a ``.pth`` file that records the user id of every interpreter
start in it (what a hostile ``.pth`` would do as root): after ``--yes`` with the GPU smoke test,
and after the generated script with and without DRY_RUN=1, root's id is never among them.  Links
the owner planted in ``<venv>/rocm-wizard/`` are not followed by root, and nothing in the venv
becomes root's."""
from __future__ import annotations

import json
import os

from harness import wizard
from test_exec_torch import make_torch_venv, site, torch_args
from test_plan_script import make_script, run_script

VENV = "/home/alice/ml env"
SPY = "/tmp/venv-uids"
FREEZE = "pip-freeze-before-torch-2.4.1+rocm6.1.txt"


def spy_on(root, venv, owner="alice"):
    """A .pth in the venv that appends the user id of each interpreter start to SPY."""
    root.write(SPY, "", mode=0o666)
    os.chmod(root.host_path(SPY), 0o666)
    pth = site(root, venv)[len(root.host_path("/")):].lstrip("/")
    line = f"import os; open({SPY!r}, 'a').write('%d\\n' % os.getuid())\n"
    root.run(["sh", "-c", 'printf "%s" "$1" >"$0"', "/" + pth + "/zz-uid-spy.pth", line], user=owner, check=True)


def started_as(root):
    return [int(x) for x in root.read(SPY).split()]


def alice_venv(root, pyindex):
    root.add_user("alice")
    make_torch_venv(root, pyindex, VENV, user="alice")
    spy_on(root, VENV)
    return int(root.run("id -u alice").stdout)


def root_owned_in(root, venv):
    top = root.host_path(venv)
    found = []
    for d, dirs, files in os.walk(top):
        for name in dirs + files:
            if os.lstat(os.path.join(d, name)).st_uid == 0:
                found.append(os.path.join(d, name)[len(top):])
    return found


def test_yes_and_its_smoke_test_run_the_venv_as_its_owner(wroot, pyindex):
    root = wroot
    alice = alice_venv(root, pyindex)
    res = wizard.run(root, "--yes", *torch_args(pyindex, VENV))
    # the stand-in torch has no GPU code: the smoke test ran (as alice) and failed
    assert res.returncode == 2, res.stderr
    assert "verifying: GPU smoke test" in res.stderr and "the GPU smoke test failed" in res.stderr
    uids = started_as(root)
    assert uids and set(uids) == {alice}, uids
    freeze = VENV + "/rocm-wizard/" + FREEZE
    assert "torch==2.5.1+rocm6.2" in root.read(freeze)
    assert os.stat(root.host_path(VENV + "/rocm-wizard")).st_uid == alice
    assert root_owned_in(root, VENV) == []
    # rollback keeps the package list: it is how to go back
    back = wizard.run(root, "rollback")
    assert back.returncode == 0, back.stderr
    assert root.exists(freeze) and FREEZE in back.stdout


def test_the_script_runs_the_venv_as_its_owner_dry_or_not(wroot, pyindex):
    root = wroot
    alice = alice_venv(root, pyindex)
    script = make_script(root, *torch_args(pyindex, VENV))
    dry = run_script(root, script, env={"DRY_RUN": "1"})
    assert dry.returncode == 2, dry.stderr
    uids = started_as(root)
    assert uids and set(uids) == {alice}, uids  # the pin and Triton checks ran, as alice
    res = run_script(root, script)
    assert res.returncode == 0, res.stderr
    uids = started_as(root)
    assert set(uids) == {alice} and len(uids) > 3, uids
    assert "torch==2.5.1+rocm6.2" in root.read(VENV + "/rocm-wizard/" + FREEZE)
    assert root_owned_in(root, VENV) == []


def test_links_the_owner_planted_are_not_followed(wroot, pyindex):
    root = wroot
    alice_venv(root, pyindex)
    before = sorted(os.listdir(root.host_path("/etc")))
    root.run(["ln", "-s", "/etc", VENV + "/rocm-wizard"], user="alice", check=True)
    res = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, VENV))
    assert res.returncode == 1, res.stderr
    assert "venv-backup" in res.stderr and "Permission denied" in res.stderr
    assert sorted(os.listdir(root.host_path("/etc"))) == before  # nothing written into /etc

    script = make_script(root, *torch_args(pyindex, VENV))
    res = run_script(root, script)
    assert res.returncode != 0 and "Permission denied" in res.stderr, res.stderr
    assert sorted(os.listdir(root.host_path("/etc"))) == before
    assert 0 not in started_as(root)


def test_rollback_puts_the_venvs_files_back_as_its_owner(wroot, pyindex):
    """The journal says whose the venv's files are; rollback restores them as that user, so a
    link she plants afterwards (bin/ made a link to /etc) leads root nowhere she cannot write."""
    root = wroot
    alice = alice_venv(root, pyindex)
    activate = VENV + "/bin/activate"
    old = root.read(activate)
    res = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, VENV))
    assert res.returncode == 0, res.stderr
    assert root.read(activate) != old
    files = json.loads(root.read("/var/log/rocm-wizard/latest/journal.json"))["files"]
    mine = {f["path"]: f for f in files if f["path"].startswith(VENV + "/")}
    assert mine[activate]["before"] == "file" and all(f.get("user") == "alice" for f in mine.values()), mine
    assert root.read(mine[activate]["backup"]) == old

    etc = sorted(os.listdir(root.host_path("/etc")))
    root.run(["sh", "-c", 'mv -- "$0/bin" "$0/bin.real" && ln -s /etc "$0/bin"', VENV], user="alice", check=True)
    back = wizard.run(root, "rollback")
    assert back.returncode == 1 and "could not restore: " + activate in back.stdout, back.stdout + back.stderr
    assert "Permission denied" in back.stdout
    assert sorted(os.listdir(root.host_path("/etc"))) == etc  # nothing written into /etc as root

    root.run(["sh", "-c", 'rm -- "$0/bin" && mv -- "$0/bin.real" "$0/bin"', VENV], user="alice", check=True)
    back = wizard.run(root, "rollback")
    assert back.returncode == 0, back.stdout + back.stderr
    assert root.read(activate) == old and os.stat(root.host_path(activate)).st_uid == alice
    assert root_owned_in(root, VENV) == []


def test_a_venv_two_accounts_control_is_refused(wroot, pyindex):
    """Root's venv whose site-packages alice can change: running it as root would run her code."""
    root = wroot
    root.add_user("alice")
    venv = "/srv/shared"
    make_torch_venv(root, pyindex, venv)
    root.run(["chown", "-R", "alice:", site(root, venv)[len(root.host_path("/")) - 1:]], check=True)
    spy_on(root, venv)
    res = wizard.run(root, "--yes", *torch_args(pyindex, venv))
    assert res.returncode == 1, res.stderr
    assert "belongs to alice but the venv /srv/shared to root" in res.stderr
    dry = run_script(root, make_script(root, *torch_args(pyindex, venv)), env={"DRY_RUN": "1"})
    assert dry.returncode == 1 and "will not run an interpreter that two accounts control" in dry.stderr, dry.stderr
    verify = wizard.run(root, "verify", "--json", "--venv", venv)
    assert verify.returncode == 1 and "two accounts control" in verify.stderr, verify.stderr
    assert started_as(root) == []


SECRET = "ROOT-ONLY-SECRET-5f3a"


def plant_activate_link(root):
    """alice makes her venv's bin/activate a link to a file only root can read."""
    root.write("/root/secret.txt", SECRET + "\n", mode=0o600)
    os.chmod(root.host_path("/root/secret.txt"), 0o600)
    root.run(["ln", "-sfn", "/root/secret.txt", VENV + "/bin/activate"], user="alice", check=True)


def copies_of_the_secret(root):
    found = []
    for top in ("/home/alice", "/tmp"):
        for d, _dirs, files in os.walk(root.host_path(top)):
            for name in files:
                path = os.path.join(d, name)
                if os.path.islink(path):
                    continue
                try:
                    with open(path, "rb") as fh:
                        if SECRET.encode() in fh.read():
                            found.append(path)
                except OSError:
                    continue
    return found


def test_a_linked_activate_is_not_read_for_its_owner(wroot, pyindex):
    """bin/activate is alice's: a root run reads it as alice, so a link to a root-only file gives
    her no copy of it (--yes, and the script with and without DRY_RUN=1)."""
    root = wroot
    alice_venv(root, pyindex)
    plant_activate_link(root)
    res = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, VENV))
    assert copies_of_the_secret(root) == [], res.stderr
    assert res.returncode == 1 and "not a regular file" in res.stderr, res.stderr
    assert os.path.islink(root.host_path(VENV + "/bin/activate"))

    plant_activate_link(root)
    script = make_script(root, *torch_args(pyindex, VENV))
    for env in ({"DRY_RUN": "1"}, None):
        out = run_script(root, script, env=env)
        assert copies_of_the_secret(root) == [], out.stderr
        assert SECRET not in out.stdout + out.stderr
        assert out.returncode != 0 and "cannot read" in out.stderr, out.stderr
        assert os.path.islink(root.host_path(VENV + "/bin/activate"))


TTY_SPY = "/tmp/venv-ttys"


def test_the_owners_processes_get_no_terminal_of_roots(wroot, pyindex):
    """The script run by root on a terminal (a pty, as `script` gives it): every start of alice's
    interpreter is in a session of its own with no controlling terminal (tty_nr 0 in
    /proc/self/stat), DRY_RUN=1 or not, so it cannot push keystrokes into root's shell; and root's
    HF_TOKEN is not in its environment."""
    root = wroot
    alice_venv(root, pyindex)
    root.write(TTY_SPY, "", mode=0o666)
    os.chmod(root.host_path(TTY_SPY), 0o666)
    pth = site(root, VENV)[len(root.host_path("/")):].lstrip("/")
    line = (f"import os; f = open('/proc/self/stat').read().rsplit(')', 1)[1].split(); "
            f"open({TTY_SPY!r}, 'a').write('%s %s %d\\n' % (f[4], os.environ.get('HF_TOKEN', '-'), os.getpid()))\n")
    root.run(["sh", "-c", 'printf "%s" "$1" >"$0"', "/" + pth + "/zz-tty-spy.pth", line], user="alice", check=True)
    script = make_script(root, *torch_args(pyindex, VENV))
    root.bind("/dev/pts", "/dev/pts", read_only=False)  # `script` needs ptys (a pty of its own, gone after)
    if not os.path.lexists(root.host_path("/dev/ptmx")):
        os.symlink("pts/ptmx", root.host_path("/dev/ptmx"))
    for dry in ("1", "0"):
        res = root.run(["script", "-qec", f"DRY_RUN={dry} HF_TOKEN=hf_roots bash {script}", "/dev/null"], timeout=300)
        assert "Traceback" not in res.stdout, res.stdout
        seen = [x.split() for x in root.read(TTY_SPY).splitlines()]
        assert seen, res.stdout + res.stderr
        assert all(tty == "0" for tty, _token, _pid in seen), seen
        assert all(token == "-" for _tty, token, _pid in seen), seen  # root's token stays root's (finding 9)


PAD_LINE = "# alice-pad-c0de\n"


def test_a_huge_activate_is_refused_not_read_whole_by_root(wroot, pyindex):
    """Finding 8's flood through a file (the playbook's pip.conf had it): root read alice's
    ``bin/activate`` whole -- into the executor's memory, and into the script's bash variable and a
    line loop over it.  Files of hers that root reads for her are read as her and at most 1 MiB
    (one byte more tells a larger one), and a larger one is refused naming the bound: ``--yes``, and
    the script with and without DRY_RUN=1.  (Before, a 16 MiB activate was read whole and the run
    went on.)"""
    root = wroot
    alice_venv(root, pyindex)
    root.run(["sh", "-c", 'yes "$1" | head -c 16777216 >>"$0"', VENV + "/bin/activate", PAD_LINE.strip()],
             user="alice", check=True)
    res = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, VENV))
    assert res.returncode == 1 and "larger than 1 MiB" in res.stderr, (res.returncode, res.stderr[-3000:])
    script = make_script(root, *torch_args(pyindex, VENV))
    for env in ({"DRY_RUN": "1"}, None):
        out = run_script(root, script, env=env)
        assert out.returncode != 0 and "larger than 1 MiB" in out.stderr, (env, out.returncode, out.stderr[-3000:])
        assert PAD_LINE.strip() not in out.stdout + out.stderr, env
