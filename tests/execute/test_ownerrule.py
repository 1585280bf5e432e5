"""The one owner rule (rocm_wizard.ownerrule) on what the issue's findings name: directories above
the venv, POSIX ACL grants, site-packages entries (``.pth`` files, package directories), the
standard library a ``--copies`` venv starts with, links.  Ownership is real (chown in a temporary
directory; root needed), accounts come from the test's own table.  The same source is what the
script and the playbook run (checked here by running it as ``python3 -I -S -c SOURCE``)."""
from __future__ import annotations

import os
import struct
import subprocess
import sys

import pytest

from rocm_wizard.ownerrule import RuleError, acl_writers, judge_interpreter, judge_venv, source

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root")

ALICE, BOB = 4242, 4343
NAMES = {ALICE: "alice", BOB: "bob"}


def make_venv(base, uid=0, home="/usr/bin", version=None, system_site="false"):
    venv = base / "venv"
    site = venv / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (venv / "bin").mkdir()
    cfg = f"home = {home}\n" + (f"version = {version}\n" if version else "")
    if system_site is not None:  # python3 -m venv writes the key; None: a pyvenv.cfg without it
        cfg += f"include-system-site-packages = {system_site}\n"
    (venv / "pyvenv.cfg").write_text(cfg)
    py = venv / "bin" / "python"
    py.write_text("#!/bin/sh\n")
    py.chmod(0o755)
    (site / "pkg").mkdir()
    (site / "pkg" / "__init__.py").write_text("")
    (site / "distutils-precedence.pth").write_text("import os\n")
    for d, dirs, files in os.walk(venv):
        for name in [d] + [os.path.join(d, n) for n in dirs + files]:
            os.chown(name, uid, uid)
    return venv, site


def acl(*entries):
    """A system.posix_acl_access value: (tag, perm, id) entries after the version header."""
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, p, i) for t, p, i in entries)


def set_acl(path, *named):
    """Give ``named`` (("u"|"g", id)) rwx on ``path`` by an ACL, with a mask that lets them write."""
    mode = os.stat(path).st_mode
    entries = [(0x01, (mode >> 6) & 7, 0xFFFFFFFF)]
    entries += [(0x02 if k == "u" else 0x08, 7, i) for k, i in named if k == "u"]
    entries += [(0x04, (mode >> 3) & 5, 0xFFFFFFFF)]
    entries += [(0x08, 7, i) for k, i in named if k == "g"]
    entries += [(0x10, 7, 0xFFFFFFFF), (0x20, mode & 5, 0xFFFFFFFF)]
    try:
        os.setxattr(path, "system.posix_acl_access", acl(*entries))
    except OSError as exc:
        pytest.skip(f"this file system takes no POSIX ACL: {exc}")


def as_script(kind, path):
    """The rule as the script and the playbook run it: the module's source, isolated."""
    return subprocess.run([sys.executable, "-I", "-S", "-c", source(), kind, str(path)], capture_output=True, text=True)


def test_acl_writers_reads_named_grants_within_the_mask():
    value = acl((0x01, 7, 0xFFFFFFFF), (0x02, 6, ALICE), (0x04, 5, 0xFFFFFFFF), (0x08, 2, BOB),
                (0x10, 7, 0xFFFFFFFF), (0x20, 5, 0xFFFFFFFF))
    assert acl_writers(value) == ({ALICE}, {BOB}, False)
    masked = acl((0x01, 7, 0xFFFFFFFF), (0x02, 7, ALICE), (0x04, 5, 0xFFFFFFFF), (0x10, 5, 0xFFFFFFFF),
                 (0x20, 5, 0xFFFFFFFF))
    assert acl_writers(masked) == (set(), set(), False)  # the mask takes write away


def test_a_clean_root_venv_runs_as_root_and_the_script_agrees(tmp_path):
    venv, _ = make_venv(tmp_path)
    assert judge_venv(str(venv), NAMES.get) == "root"
    res = as_script("venv", venv)
    assert res.returncode == 0 and res.stdout == "root\n", res.stderr


def test_group_writable_site_packages_of_a_root_venv_is_refused(tmp_path):
    """Finding 5: a group that is not root's can write site-packages: root would run its .pth."""
    venv, site = make_venv(tmp_path)
    os.chown(site, 0, BOB)
    site.chmod(0o775)
    with pytest.raises(RuleError, match=r"site-packages can be changed by other users \(the group .*chmod g-w"):
        judge_venv(str(venv), NAMES.get)
    res = as_script("venv", venv)
    assert res.returncode == 1 and "chmod g-w" in res.stderr and res.stdout == "", res


def test_an_acl_grant_in_a_root_venv_is_refused(tmp_path):
    venv, site = make_venv(tmp_path)
    set_acl(str(site), ("u", ALICE))
    with pytest.raises(RuleError, match=r"alice \(an ACL grant\).*setfacl -b"):
        judge_venv(str(venv), NAMES.get)
    os.removexattr(str(site), "system.posix_acl_access")
    os.chmod(site, 0o755)
    set_acl(str(venv / "bin"), ("g", BOB))
    with pytest.raises(RuleError, match=r"/bin can be changed by other users .*ACL grant.*setfacl -b"):
        judge_venv(str(venv), NAMES.get)
    assert as_script("venv", venv).returncode == 1


def test_a_user_owned_package_directory_in_a_root_venv_is_refused(tmp_path):
    venv, site = make_venv(tmp_path)
    os.chown(site / "pkg", ALICE, ALICE)
    with pytest.raises(RuleError, match=r"site-packages/pkg belongs to alice but the venv .* to root.*chown -R"):
        judge_venv(str(venv), NAMES.get)


def test_a_world_writable_pth_in_a_root_venv_is_refused(tmp_path):
    venv, site = make_venv(tmp_path)
    (site / "distutils-precedence.pth").chmod(0o666)
    with pytest.raises(RuleError, match=r"distutils-precedence.pth can be changed by other users \(all users.*chmod o-w"):
        judge_venv(str(venv), NAMES.get)
    res = as_script("venv", venv)
    assert res.returncode == 1 and "chmod o-w" in res.stderr


def test_the_standard_library_of_a_copies_venv_decides_too(tmp_path):
    """A root venv made with --copies from alice's own build starts alice's site.py: it runs as
    alice, never as root; with a venv of bob's it is refused."""
    build = tmp_path / "alice-py"
    (build / "bin").mkdir(parents=True)
    (build / "lib" / "python3.11").mkdir(parents=True)
    (build / "lib" / "python3.11" / "site.py").write_text("")
    for d, dirs, files in os.walk(build):
        for name in [d] + [os.path.join(d, n) for n in dirs + files]:
            os.chown(name, ALICE, ALICE)
    os.chown(build / "lib", 0, 0)  # only the standard library itself is hers
    os.chown(build, 0, 0)
    os.chown(build / "bin", 0, 0)
    venv, _ = make_venv(tmp_path / "r", home=str(build / "bin"), version="3.11.2")
    assert judge_venv(str(venv), NAMES.get) == "alice"
    for d, dirs, files in os.walk(venv):
        for name in [d] + [os.path.join(d, n) for n in dirs + files]:
            os.chown(name, BOB, BOB)
    with pytest.raises(RuleError, match=r"python3.11 belongs to alice but the venv .* to bob"):
        judge_venv(str(venv), NAMES.get)


def test_directories_above_the_venv_decide_who_runs_it(tmp_path):
    """sudo python3 -m venv ~/venv: a root venv in alice's home runs as alice (she can swap it
    for her own at any time); a venv of alice's under bob's directory is refused."""
    home = tmp_path / "home"
    home.mkdir()
    os.chown(home, ALICE, ALICE)
    venv, _ = make_venv(home)
    assert judge_venv(str(venv), NAMES.get) == "alice"
    os.chown(home, 0, 0)
    assert judge_venv(str(venv), NAMES.get) == "root"
    home.chmod(0o777)  # anyone may rename the venv away and put theirs there
    with pytest.raises(RuleError, match=r"home can be changed by other users \(all users"):
        judge_venv(str(venv), NAMES.get)
    home.chmod(0o2775)
    os.chown(home, 0, BOB)  # a shared directory of a team's group: any member may swap the venv
    with pytest.raises(RuleError, match=r"home can be changed by other users \(the group .*chmod g-w"):
        judge_venv(str(venv), NAMES.get)
    os.chown(home, 0, 0)
    home.chmod(0o1777)  # sticky, as /tmp: only the venv's owner may replace it
    assert judge_venv(str(venv), NAMES.get) == "root"
    home.chmod(0o755)
    os.chown(home, BOB, BOB)
    for d, dirs, files in os.walk(venv):
        for name in [d] + [os.path.join(d, n) for n in dirs + files]:
            os.chown(name, ALICE, ALICE)
    with pytest.raises(RuleError, match=r"home belongs to bob but the venv .* to alice"):
        judge_venv(str(venv), NAMES.get)


def test_a_users_link_to_a_root_venv_runs_as_that_user(tmp_path):
    venv, _ = make_venv(tmp_path)
    mine = tmp_path / "alice"
    mine.mkdir()
    os.chown(mine, ALICE, ALICE)
    link = mine / "venv"
    link.symlink_to(venv)
    os.lchown(link, ALICE, ALICE)
    assert judge_venv(str(link), NAMES.get) == "alice"  # she may point it elsewhere at any time
    assert judge_interpreter(str(link / "bin" / "python"), NAMES.get) == "alice"
    assert judge_venv(str(venv), NAMES.get) == "root"


# ------------------------------------------------------------------ the system's site-packages
def fake_prefix(tmp_path, uid=0):
    """A Python installed under ``tmp_path/usr`` the Debian way: ``bin/python3.11``, its standard
    library, ``local/lib/python3.11/dist-packages`` and ``lib/python3/dist-packages``, root's."""
    prefix = tmp_path / "usr"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "lib" / "python3.11").mkdir(parents=True)
    (prefix / "lib" / "python3.11" / "os.py").write_text("")
    (prefix / "bin" / "python3.11").write_text("#!/bin/sh\n")
    (prefix / "bin" / "python3.11").chmod(0o755)
    local = prefix / "local" / "lib" / "python3.11" / "dist-packages"
    local.mkdir(parents=True)
    deb = prefix / "lib" / "python3" / "dist-packages"
    deb.mkdir(parents=True)
    (deb / "apt_pkg.py").write_text("")
    return prefix, local, deb


def test_a_venv_with_the_systems_packages_is_judged_on_them_too(tmp_path):
    """include-system-site-packages = true: root's venv imports the system's dist-packages; one of
    alice's there (or a .pth she can write) would run as root.  Refused, naming the venv's fix."""
    prefix, local, deb = fake_prefix(tmp_path)
    venv, _ = make_venv(tmp_path / "r", home=str(prefix / "bin"), version="3.11.2", system_site="true")
    assert judge_venv(str(venv), NAMES.get) == "root"
    pth = local / "alice.pth"
    pth.write_text("import os\n")
    os.chown(pth, ALICE, ALICE)
    with pytest.raises(RuleError, match=r"dist-packages/alice.pth belongs to alice and the venv .* imports from it "
                                        r"as root.*include-system-site-packages = false in .*pyvenv.cfg"):
        judge_venv(str(venv), NAMES.get)
    res = as_script("venv", venv)
    assert res.returncode == 1 and "include-system-site-packages = false" in res.stderr, res
    pth.unlink()
    deb.chmod(0o777)
    with pytest.raises(RuleError, match=r"python3/dist-packages can be changed by other users \(all users.*chmod o-w"):
        judge_venv(str(venv), NAMES.get)
    deb.chmod(0o755)
    # the same venv without the system's packages does not read them: root again
    cfg = venv / "pyvenv.cfg"
    os.chown(local, ALICE, ALICE)
    cfg.write_text(cfg.read_text().replace("include-system-site-packages = true", "include-system-site-packages = false"))
    assert judge_venv(str(venv), NAMES.get) == "root"
    # a pyvenv.cfg without the key includes them (site.py reads an absent key as true)
    cfg.write_text(cfg.read_text().replace("include-system-site-packages = false\n", ""))
    with pytest.raises(RuleError, match=r"local/lib/python3.11/dist-packages belongs to alice"):
        judge_venv(str(venv), NAMES.get)


def test_a_directory_not_there_yet_is_judged_by_who_could_create_it(tmp_path):
    """/usr/local/lib/python3.11/dist-packages may be missing: whoever can write the directory it
    would be made in chooses what root imports from it."""
    prefix, local, _ = fake_prefix(tmp_path)
    local.rmdir()
    venv, _ = make_venv(tmp_path / "r", home=str(prefix / "bin"), version="3.11.2", system_site="true")
    assert judge_venv(str(venv), NAMES.get) == "root"
    local.parent.chmod(0o777)
    with pytest.raises(RuleError, match=r"local/lib/python3.11 can be changed by other users"):
        judge_venv(str(venv), NAMES.get)


def test_bin_pyvenv_cfg_is_the_one_python_reads(tmp_path):
    """CPython reads pyvenv.cfg beside the executable first: a bin/pyvenv.cfg that turns the
    system's packages on decides, whatever the venv's own says."""
    prefix, local, _ = fake_prefix(tmp_path)
    os.chown(local, ALICE, ALICE)
    venv, _ = make_venv(tmp_path / "r", home=str(prefix / "bin"), version="3.11.2", system_site="false")
    assert judge_venv(str(venv), NAMES.get) == "root"
    (venv / "bin" / "pyvenv.cfg").write_text(f"home = {prefix / 'bin'}\ninclude-system-site-packages = true\n")
    with pytest.raises(RuleError, match=r"dist-packages belongs to alice"):
        judge_venv(str(venv), NAMES.get)


def test_a_system_interpreter_is_judged_on_its_own_prefixs_packages(tmp_path):
    """verify --python /usr/bin/python3.11 as root imports that prefix's dist-packages."""
    prefix, _, deb = fake_prefix(tmp_path)
    python = str(prefix / "bin" / "python3.11")
    assert judge_interpreter(python, NAMES.get) == "root"
    os.chown(deb / "apt_pkg.py", ALICE, ALICE)
    with pytest.raises(RuleError, match=r"apt_pkg.py belongs to alice and the interpreter .* imports from it as root"):
        judge_interpreter(python, NAMES.get)
    res = as_script("python", python)
    assert res.returncode == 1 and "apt_pkg.py" in res.stderr, res


def test_a_system_group_no_one_but_root_holds_counts_as_root(tmp_path, monkeypatch):
    """Debian's /etc/staff-group-for-usr-local makes /usr/local root:staff 2775.  While no account
    but root holds staff, its write is root's; once someone does, the directory is refused, naming
    both fixes.  A group outside the system range never counts as root's."""
    from rocm_wizard import ownerrule

    holders = {50: set()}
    monkeypatch.setattr(ownerrule, "group_holders", lambda gid: holders.get(gid))
    prefix, local, _ = fake_prefix(tmp_path)
    venv, _ = make_venv(tmp_path / "r", home=str(prefix / "bin"), version="3.11.2", system_site="true")
    usr_local = prefix / "local"
    os.chown(usr_local, 0, 50)
    usr_local.chmod(0o2775)
    assert judge_venv(str(venv), NAMES.get) == "root"
    holders[50] = {"alice"}
    with pytest.raises(RuleError, match=r"usr/local can be changed by other users \(the group .*chmod g-w .*take every "
                                        r"account but root out of the group .*include-system-site-packages = false"):
        judge_venv(str(venv), NAMES.get)
    holders[4343] = set()  # memberless, but not a system group: could be anyone's tomorrow
    os.chown(usr_local, 0, BOB)
    with pytest.raises(RuleError, match=r"usr/local can be changed by other users"):
        judge_venv(str(venv), NAMES.get)


def test_root_only_group_reads_the_account_databases():
    """The real databases: root's group (gid 0) is never asked; a gid no account holds outside the
    system range is not root's."""
    from rocm_wizard.ownerrule import group_holders, root_only_group

    assert root_only_group(4343) is False
    import grp

    for g in grp.getgrall():
        if 0 < g.gr_gid <= 999:
            holders = group_holders(g.gr_gid)
            assert holders is not None and "root" not in holders
            assert root_only_group(g.gr_gid) == (not holders)
            break
