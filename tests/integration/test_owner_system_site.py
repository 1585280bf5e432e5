"""Issue 27, round two, item 1: a venv with ``include-system-site-packages = true`` imports the
system's ``dist-packages`` too, so root's ``--yes``, the generated script and the playbook judge
those directories (and every directory on the way to them, and each entry) like the venv's own,
inside the Debian root with a second user, alice:

* a ``.pth`` of alice's in ``/usr/local/lib/python3.11/dist-packages`` is refused, naming the fix
  (``include-system-site-packages = false`` in the venv's pyvenv.cfg);
* Debian's ``/etc/staff-group-for-usr-local`` layout (``/usr/local/lib`` root:staff 2775): refused
  once alice is in ``staff`` (she could rename ``python3.11`` away and put hers there), accepted
  while no account but root holds ``staff`` (Debian's default group table: ``staff:x:50:``).

All three frontends run the same rule (rocm_wizard/ownerrule.py)."""
from __future__ import annotations

import contextlib
import os

from harness import ansible, wizard

from test_exec_torch import torch_args
from test_owner_rule_cases import SPY, VENV, shared_venv, started_as
from test_plan_script import make_script, run_script

LOCAL_SITE = "/usr/local/lib/python3.11/dist-packages"


def system_site_on(root):
    cfg = root.read(VENV + "/pyvenv.cfg")
    assert "include-system-site-packages = false" in cfg, cfg
    root.write(VENV + "/pyvenv.cfg", cfg.replace("include-system-site-packages = false",
                                                  "include-system-site-packages = true"))


@contextlib.contextmanager
def case(root, name, alice):
    pth = root.host_path(LOCAL_SITE + "/alice.pth")
    lib = root.host_path("/usr/local/lib")
    if name == "pth":
        with open(pth, "w") as f:
            # only the venv's starts count: the wizard's own /usr/bin/python3 reads this directory too
            f.write(f"import os, sys; sys.prefix == {VENV!r} and open({SPY!r}, 'a').write('%d\\n' % os.getuid())\n")
        os.chown(pth, alice, alice)
    elif name in ("staff", "staff-empty"):
        os.chown(lib, 0, 50)
        os.chmod(lib, 0o2775)
        if name == "staff":
            root.run(["gpasswd", "-a", "alice", "staff"], check=True)
    try:
        yield
    finally:
        if name == "pth":
            os.unlink(pth)
        elif name in ("staff", "staff-empty"):
            os.chown(lib, 0, 0)
            os.chmod(lib, 0o755)
            if name == "staff":
                root.run(["gpasswd", "-d", "alice", "staff"], check=True)


EXPECTED = {
    "pth": ("dist-packages/alice.pth belongs to alice and the venv /srv/shared imports from it as root",
            "include-system-site-packages = false in /srv/shared/pyvenv.cfg"),
    "staff": ("/usr/local/lib can be changed by other users (the group staff",
              "take every account but root out of the group staff"),
}


def test_yes_and_verify_judge_the_systems_packages(wroot, pyindex):
    root = wroot
    alice = shared_venv(root, pyindex)
    system_site_on(root)
    for name, (path_text, fix) in EXPECTED.items():
        with case(root, name, alice):
            res = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, VENV))
            verify = wizard.run(root, "verify", "--json", "--venv", VENV)
        assert res.returncode == 1, (name, res.stderr[-3000:])
        assert path_text in res.stderr and fix in res.stderr, (name, res.stderr[-3000:])
        assert verify.returncode == 1 and fix in verify.stderr, (name, verify.stderr[-3000:])
        assert started_as(root) == [], name
    with case(root, "pth", alice):  # the system's own interpreter imports the same directory
        plain = wizard.run(root, "verify", "--json", "--python", "/usr/bin/python3")
    assert plain.returncode == 1, plain.stderr[-3000:]
    assert "dist-packages/alice.pth belongs to alice and the interpreter /usr/bin/python3 imports from it" \
        in plain.stderr, plain.stderr[-3000:]
    with case(root, "staff-empty", alice):  # staff held by no one but root: root's own
        verify = wizard.run(root, "verify", "--json", "--venv", VENV)
    assert "can be changed by other users" not in verify.stderr, verify.stderr[-3000:]
    assert started_as(root) and set(started_as(root)) == {0}, verify.stderr[-3000:]


def test_the_script_judges_the_systems_packages_dry_or_not(wroot, pyindex):
    root = wroot
    alice = shared_venv(root, pyindex)
    system_site_on(root)
    script = make_script(root, *torch_args(pyindex, VENV))
    for name, (path_text, fix) in EXPECTED.items():
        with case(root, name, alice):
            dry = run_script(root, script, env={"DRY_RUN": "1"})
            assert dry.returncode == 1, (name, dry.stderr[-3000:])
            assert path_text in dry.stderr and fix in dry.stderr, (name, dry.stderr[-3000:])
            real = run_script(root, script)
            assert real.returncode == 1 and fix in real.stderr, (name, real.stderr[-3000:])
        assert started_as(root) == [], name
    with case(root, "staff-empty", alice):
        dry = run_script(root, script, env={"DRY_RUN": "1"})
    assert "can be changed by other users" not in dry.stderr, dry.stderr[-3000:]


def test_the_playbook_judges_the_systems_packages(wroot, pyindex, ansible_debs, ansible_pypi_wheels):
    root = wroot
    alice = shared_venv(root, pyindex)
    system_site_on(root)
    ansible.install_pypi(root, ansible_debs, ansible_pypi_wheels)
    res = wizard.run(root, "--plan-only", "--format", "ansible", *torch_args(pyindex, VENV))
    assert res.returncode in (0, 2), res.stderr
    root.write("/root/torch.yml", res.stdout)
    for name, (path_text, fix) in EXPECTED.items():
        with case(root, name, alice):
            run = ansible.playbook(root, "/root/torch.yml", "--check")
            assert run.returncode != 0, (name, run.stdout[-4000:])
            assert path_text in run.stdout and fix in run.stdout, (name, run.stdout[-4000:])
        assert started_as(root) == [], name
