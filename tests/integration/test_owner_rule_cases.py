"""Finding 5 and the LOW ownership items of issue 27, each against ``--yes`` (the executor), the
generated script (``DRY_RUN=1``) and the playbook (``--check`` with PyPI's ansible-core), inside
the Debian root with a second user, alice.  Root's venv ``/srv/shared`` holds a ``.pth`` that
records the user id of every interpreter start; each case makes one thing of it changeable by
alice (or others), and root must refuse, naming the path and the fix -- never start it as root:

* site-packages group-writable by alice's group (finding 5: the playbook ran it four times);
* an ACL grant of write on site-packages to alice;
* a package directory of alice's in site-packages;
* a world-writable ``.pth``;
* a ``--copies`` venv of root's made from alice's own Python build: its standard library is hers,
  so it runs as alice (the one non-root user involved), never as root (``verify``, the script with
  ``DRY_RUN=1`` and the playbook's ``--check``).

All three frontends run the same rule (rocm_wizard/ownerrule.py): the executor imports it, the
script and the playbook run its source with the host's ``/usr/bin/python3 -I -S``."""
from __future__ import annotations

import contextlib
import glob
import os

from harness import ansible, wizard

from test_exec_torch import make_torch_venv, site, torch_args
from test_plan_script import make_script, run_script

VENV = "/srv/shared"
SPY = "/tmp/venv-uids"


def spy_in(root, venv):
    """A root-owned .pth in the venv that records the user id of each interpreter start."""
    root.write(SPY, "", mode=0o666)
    os.chmod(root.host_path(SPY), 0o666)
    path = os.path.join(site(root, venv), "zz-uid-spy.pth")
    with open(path, "w") as f:
        f.write(f"import os; open({SPY!r}, 'a').write('%d\\n' % os.getuid())\n")
    os.chmod(path, 0o644)
    return path


def started_as(root):
    return [int(x) for x in root.read(SPY).split()]


def acl_grant(path, uid):
    """setfacl -m u:UID:rwx PATH, written as the xattr itself (the root has no acl package)."""
    import struct

    mode = os.stat(path).st_mode
    entries = [(0x01, (mode >> 6) & 7, 0xFFFFFFFF), (0x02, 7, uid), (0x04, (mode >> 3) & 7, 0xFFFFFFFF),
               (0x10, 7, 0xFFFFFFFF), (0x20, mode & 7, 0xFFFFFFFF)]
    os.setxattr(path, "system.posix_acl_access",
                struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries))


@contextlib.contextmanager
def case(root, name, alice):
    sp = site(root, VENV)
    if name == "group":
        os.chown(sp, 0, alice)
        os.chmod(sp, 0o775)
    elif name == "acl":
        acl_grant(sp, alice)
    elif name == "pkgdir":
        os.chown(os.path.join(sp, "torch"), alice, alice)
    elif name == "pth":
        os.chmod(os.path.join(sp, "zz-uid-spy.pth"), 0o666)
    try:
        yield
    finally:
        if name == "group":
            os.chown(sp, 0, 0)
            os.chmod(sp, 0o755)
        elif name == "acl":
            os.removexattr(sp, "system.posix_acl_access")
            os.chmod(sp, 0o755)
        elif name == "pkgdir":
            os.chown(os.path.join(sp, "torch"), 0, 0)
        elif name == "pth":
            os.chmod(os.path.join(sp, "zz-uid-spy.pth"), 0o644)


# what each case's refusal names: the path and the fix
EXPECTED = {
    "group": ("site-packages can be changed by other users (the group alice", "chmod g-w"),
    "acl": ("site-packages can be changed by other users (alice (an ACL grant)", "setfacl -b"),
    "pkgdir": ("site-packages/torch belongs to alice but the venv /srv/shared to root", "chown -R root /srv/shared"),
    "pth": ("zz-uid-spy.pth can be changed by other users (all users", "chmod o-w"),
}


def shared_venv(root, pyindex):
    root.add_user("alice")
    make_torch_venv(root, pyindex, VENV)
    spy_in(root, VENV)
    return int(root.run("id -u alice").stdout)


def copies_venv(root, alice):
    """Root's --copies venv made from alice's own build of Python (a copy of the system's, hers)."""
    root.run(["sh", "-c", "mkdir -p /home/alice/py/bin /home/alice/py/lib && cp /usr/bin/python3.11 /home/alice/py/bin/"
              " && cp -r /usr/lib/python3.11 /home/alice/py/lib/"], user="alice", check=True)
    root.run(["/home/alice/py/bin/python3.11", "-m", "venv", "--copies", "--without-pip", "/srv/copies"], check=True)
    cfg = root.read("/srv/copies/pyvenv.cfg")
    assert "home = /home/alice/py/bin" in cfg, cfg
    found = glob.glob(root.host_path("/srv/copies") + "/lib/python3*/site-packages")
    assert found
    with open(os.path.join(found[0], "zz-uid-spy.pth"), "w") as f:
        f.write(f"import os; open({SPY!r}, 'a').write('%d\\n' % os.getuid())\n")


def test_yes_refuses_each_case_and_runs_a_users_stdlib_as_that_user(wroot, pyindex):
    root = wroot
    alice = shared_venv(root, pyindex)
    for name, (path_text, fix) in EXPECTED.items():
        with case(root, name, alice):
            res = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, VENV))
            verify = wizard.run(root, "verify", "--json", "--venv", VENV)
        assert res.returncode == 1, (name, res.stderr[-3000:])
        assert path_text in res.stderr and fix in res.stderr, (name, res.stderr[-3000:])
        assert verify.returncode == 1 and fix in verify.stderr, (name, verify.stderr[-3000:])
        assert started_as(root) == [], name
    copies_venv(root, alice)
    verify = wizard.run(root, "verify", "--json", "--venv", "/srv/copies")
    uids = started_as(root)
    assert uids and set(uids) == {alice}, (uids, verify.stderr[-2000:])


def test_the_script_refuses_each_case_dry_or_not(wroot, pyindex):
    root = wroot
    alice = shared_venv(root, pyindex)
    script = make_script(root, *torch_args(pyindex, VENV))
    for name, (path_text, fix) in EXPECTED.items():
        with case(root, name, alice):
            dry = run_script(root, script, env={"DRY_RUN": "1"})
            assert dry.returncode == 1, (name, dry.stderr[-3000:])
            assert path_text in dry.stderr and fix in dry.stderr, (name, dry.stderr[-3000:])
            real = run_script(root, script)
            assert real.returncode == 1 and fix in real.stderr, (name, real.stderr[-3000:])
        assert started_as(root) == [], name
    # the --copies venv whose standard library is alice's: the script starts it as alice, never as root
    copies_venv(root, alice)
    root.write(SPY, "", mode=0o666)
    copies = make_script(root, *torch_args(pyindex, "/srv/copies"))
    dry = run_script(root, copies, env={"DRY_RUN": "1"})
    uids = started_as(root)
    assert 0 not in uids, (uids, dry.stderr[-3000:])
    assert uids and set(uids) == {alice}, (uids, dry.returncode, dry.stderr[-3000:])


def test_the_playbook_refuses_each_case_in_check_mode_and_for_real(wroot, pyindex, ansible_debs, ansible_pypi_wheels):
    root = wroot
    alice = shared_venv(root, pyindex)
    ansible.install_pypi(root, ansible_debs, ansible_pypi_wheels)
    res = wizard.run(root, "--plan-only", "--format", "ansible", *torch_args(pyindex, VENV))
    assert res.returncode in (0, 2), res.stderr
    root.write("/root/torch.yml", res.stdout)
    for name, (path_text, fix) in EXPECTED.items():
        with case(root, name, alice):
            for args in (("--check",), ()) if name == "group" else (("--check",),):  # for real: once
                run = ansible.playbook(root, "/root/torch.yml", *args)
                assert run.returncode != 0, (name, args, run.stdout[-4000:])
                assert path_text in run.stdout and fix in run.stdout, (name, args, run.stdout[-4000:])
        assert started_as(root) == [], name
    # the --copies venv whose standard library is alice's: the playbook starts it as alice, never as root
    copies_venv(root, alice)
    root.write(SPY, "", mode=0o666)
    res = wizard.run(root, "--plan-only", "--format", "ansible", *torch_args(pyindex, "/srv/copies"))
    assert res.returncode in (0, 2), res.stderr
    root.write("/root/copies.yml", res.stdout)
    run = ansible.playbook(root, "/root/copies.yml", "--check")
    uids = started_as(root)
    assert 0 not in uids, (uids, run.stdout[-4000:])
    assert uids and set(uids) == {alice}, (uids, run.returncode, run.stdout[-4000:])
