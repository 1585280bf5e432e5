"""``--path clean`` for real in the Debian root (issue "Keep it ROCm and keep it clean"): two old
ROCm trees (one a package owns), the tree /opt/rocm names, two venvs a torch plan left beside its
link and the one it names, alice's caches.  Without --clean nothing goes; the picked ones go (as
alice for hers), the packaged tree is refused with the apt command, what is in use stays, and a
second run has nothing to do."""
from __future__ import annotations

from harness import checks, wizard

HOME = "/home/alice"


def _world(root):
    root.add_user("alice")
    for v in ("6.2.0", "6.4.3", "7.2.4"):
        root.write(f"/opt/rocm-{v}/.info/version", f"{v}-1\n")
        root.write(f"/opt/rocm-{v}/bin/hipcc", "x" * 4096)
    root.run(["ln", "-sfn", "/opt/rocm-7.2.4", "/opt/rocm"], check=True)
    # a dpkg database entry that owns /opt/rocm-6.4.3 (what dpkg-query -S reads)
    root.write("/var/lib/dpkg/info/rocm-core6.4.3.list", "/opt/rocm-6.4.3\n/opt/rocm-6.4.3/.info\n")
    status = root.read("/var/lib/dpkg/status")
    root.write("/var/lib/dpkg/status", status.rstrip("\n") + "\n\nPackage: rocm-core6.4.3\nStatus: install ok "
               "installed\nPriority: optional\nSection: devel\nMaintainer: x <x@example.invalid>\nArchitecture: "
               "amd64\nVersion: 6.4.3.60403-128~22.04\nDescription: stand-in\n")
    for n in ("venv-torch2.4.1-rocm6.1", "venv-torch2.5.1-rocm6.2", "venv-previous"):
        root.run(["python3", "-m", "venv", "--without-pip", f"{HOME}/{n}"], user="alice", check=True)
    root.run(["ln", "-s", f"{HOME}/venv-torch2.5.1-rocm6.2", f"{HOME}/venv"], user="alice", check=True)
    root.run(["sh", "-c", f"mkdir -p {HOME}/.cache/pip/http {HOME}/.cache/uv && head -c 300000 /dev/zero > "
              f"{HOME}/.cache/pip/http/blob"], user="alice", check=True)


def _args(*picks):
    out = ["--path", "clean", "--user", "alice", "--venv", HOME + "/venv"]
    for p in picks:
        out += ["--clean", p]
    return out


def test_clean_removes_only_what_was_picked_and_never_what_is_in_use(wroot):
    root = wroot
    _world(root)
    listing = wizard.run(root, "--plan-only", "--format", "json", *_args())
    assert listing.returncode == 0, listing.stderr  # nothing picked: nothing to do
    err = listing.stderr
    for item in ("rocm:/opt/rocm-6.2.0", "rocm:/opt/rocm-6.4.3", f"venv:{HOME}/venv-torch2.4.1-rocm6.1",
                 f"venv:{HOME}/venv-previous", "cache:pip", "cache:uv"):
        assert f"kept: {item}" in err, err
    assert "rocm-7.2.4" not in err and "venv-torch2.5.1-rocm6.2  " not in err

    res = wizard.run(root, "--yes", "--no-verify",
                     *_args("rocm:/opt/rocm-6.2.0", f"venv:{HOME}/venv-previous", "cache:pip"))
    assert res.returncode == 0, res.stderr
    assert not root.exists("/opt/rocm-6.2.0") and not root.exists(f"{HOME}/venv-previous")
    assert not root.exists(f"{HOME}/.cache/pip")
    for kept in ("/opt/rocm-7.2.4/bin/hipcc", "/opt/rocm-6.4.3/bin/hipcc", f"{HOME}/venv-torch2.5.1-rocm6.2/pyvenv.cfg",
                 f"{HOME}/venv-torch2.4.1-rocm6.1/pyvenv.cfg", f"{HOME}/.cache/uv"):
        assert root.exists(kept), kept
    assert "cannot be rolled back" in res.stderr

    packaged = wizard.run(root, "--yes", "--no-verify", *_args("rocm:/opt/rocm-6.4.3"))
    assert packaged.returncode != 0
    assert "belongs to packages (rocm-core6.4.3)" in packaged.stderr and "apt-get purge" in packaged.stderr
    assert root.exists("/opt/rocm-6.4.3/bin/hipcc")

    gone = wizard.run(root, "--plan-only", *_args("rocm:/opt/rocm-6.2.0"))
    # already removed: not offered again, and the same pick run again is nothing to do (a note, no step)
    assert gone.returncode == 0 and "already gone, nothing to do: rocm:/opt/rocm-6.2.0" in gone.stderr, gone.stderr
    assert "rocm:/opt/rocm-6.2.0  /opt/rocm-6.2.0" not in gone.stderr
    typo = wizard.run(root, "--plan-only", *_args("rocm:/opt/rocm-9.9.9-typo-but-absent"))
    assert typo.returncode == 0  # absent paths are gone either way: the root cannot tell a typo from a removal
    never = wizard.run(root, "--plan-only", *_args("nope"))
    assert never.returncode == 64 and "not on the list" in never.stderr
    again = wizard.run(root, "--yes", "--no-verify", *_args())
    assert again.returncode == 0, again.stderr
    assert checks.step_lines(again.stderr) == {}, again.stderr  # nothing picked, nothing run


def test_the_script_removes_as_the_executor_does(wroot):
    root = wroot
    _world(root)
    script = wizard.run(root, "--plan-only", *_args(f"venv:{HOME}/venv-torch2.4.1-rocm6.1", "cache:uv"))
    assert script.returncode == 2, script.stderr
    root.write("/root/clean.sh", script.stdout, mode=0o755)
    dry = root.run(["bash", "/root/clean.sh"], env={"DRY_RUN": "1"})
    assert dry.returncode == 2 and root.exists(f"{HOME}/.cache/uv"), dry.stderr
    res = root.run(["bash", "/root/clean.sh"], timeout=300)
    assert res.returncode == 0, res.stderr
    assert not root.exists(f"{HOME}/venv-torch2.4.1-rocm6.1") and not root.exists(f"{HOME}/.cache/uv")
    assert root.exists(f"{HOME}/venv-torch2.5.1-rocm6.2/pyvenv.cfg")


# ------------------------------------------------------------------------------ apt files
SL = "/etc/apt/sources.list.d"
DISABLED = "# disabled by rocm-wizard: deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] "


def _keyring() -> bytes:
    """A throwaway key, stored as rocm-wizard stores a repository key (one key, freshly exported)."""
    from harness.gpgkeys import TestKey

    from rocm_wizard.plan.openpgp import minimal_keyring

    key = TestKey("clean-test <clean@invalid>")
    try:
        path = key.write_keyring(key.home + "/k.gpg")
        with open(path, "rb") as fh:
            data = fh.read()
        return minimal_keyring(data, key.fingerprint)[1]
    finally:
        key.close()


def _apt_world(root):
    """What a ROCm 6.4.3 plan wrote and a later Core SDK plan disabled (rocm.list, amdgpu.list,
    the classic pin, the key no entry names any more), a list `amdgpu-install --accept-eula` left,
    and amdgpu-install itself removed but not purged (its conffile amdgpu-install.test.list kept)."""
    head = "# ROCm 6.4.3 for Ubuntu 22.04 (jammy). Written whole by rocm-wizard;\n"
    root.write(f"{SL}/rocm.list", head + DISABLED + "https://repo.radeon.com/rocm/apt/6.4.3 jammy main\n")
    root.write(f"{SL}/amdgpu.list", head + DISABLED + "https://repo.radeon.com/amdgpu/6.4.3/ubuntu jammy main\n")
    root.write(f"{SL}/amdgpu-proprietary.list", DISABLED + "https://repo.radeon.com/amdgpu/7.1/ubuntu jammy proprietary\n")
    root.write(f"{SL}/mine.list", "# deb https://repo.radeon.com/rocm/apt/6.2 jammy main\n")  # the user's: kept
    root.write("/etc/apt/keyrings/rocm.gpg", _keyring())
    root.write("/etc/apt/preferences.d/rocm-pin-600", "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n")


def _installer_left(root, tmp_path):
    """amdgpu-install, a stand-in with its lists as dpkg conffiles (as AMD's package has them), its
    entries disabled, then `dpkg -r`: dpkg keeps the conffiles (state config-files)."""
    from harness.debs import DebSpec, build_deb

    lists = {f"{SL}/amdgpu.list": DISABLED + "https://repo.radeon.com/amdgpu/6.4.3/ubuntu jammy main\n",
             f"{SL}/rocm.list": DISABLED + "https://repo.radeon.com/rocm/apt/6.4.3 jammy main\n"}
    deb = build_deb(DebSpec("amdgpu-install", "6.4.60403-1", arch="all", files=lists, conffiles=sorted(lists)),
                    str(tmp_path))
    root.write("/root/amdgpu-install.deb", open(deb, "rb").read())
    root.run(["dpkg", "-i", "/root/amdgpu-install.deb"], check=True)
    root.run(["dpkg", "-r", "amdgpu-install"], check=True)
    st = root.run(["dpkg-query", "-W", "-f=${db:Status-Status}", "amdgpu-install"]).stdout
    assert st == "config-files", st
    assert root.exists(f"{SL}/amdgpu.list")


APT_IDS = ("apt:/etc/apt/sources.list.d/rocm.list", "apt:/etc/apt/sources.list.d/amdgpu.list",
           "apt:/etc/apt/sources.list.d/amdgpu-proprietary.list", "apt:/etc/apt/keyrings/rocm.gpg",
           "apt:/etc/apt/preferences.d/rocm-pin-600")


def test_clean_removes_the_stale_apt_files_it_recognises_and_keeps_a_copy(wroot):
    root = wroot
    _apt_world(root)
    before = root.run(["apt-get", "update"], timeout=300)
    assert before.returncode == 0, before.stderr
    listing = wizard.run(root, "--plan-only", "--format", "json", "--path", "clean")
    assert listing.returncode == 0, listing.stderr
    for item in APT_IDS:
        assert f"kept: {item}" in listing.stderr, listing.stderr
    assert "mine.list" not in listing.stderr  # not the wizard's, not amdgpu-install's: never offered
    picks = [a for i in APT_IDS for a in ("--clean", i)]
    res = wizard.run(root, "--yes", "--no-verify", "--path", "clean", *picks)
    assert res.returncode == 0, res.stderr
    for i in APT_IDS:
        assert not root.exists(i[4:]), i
    assert root.exists(f"{SL}/mine.list")
    backups = root.run(["sh", "-c", "find /var/backups/rocm-wizard -type f | sort"]).stdout
    assert "/etc/apt/keyrings/rocm.gpg" in backups and "/etc/apt/sources.list.d/rocm.list" in backups, backups
    after = root.run(["apt-get", "update"], timeout=300)
    assert after.returncode == 0 and "W:" not in after.stderr, after.stderr  # apt is as happy as before
    # apt files can be rolled back: `rollback` puts them back as they were
    kept = {i[4:]: root.host_path(i[4:]) for i in APT_IDS}
    back = wizard.run(root, "rollback")
    assert back.returncode == 0, back.stderr
    assert "restored /etc/apt/keyrings/rocm.gpg" in back.stdout, back.stdout
    assert all(root.exists(p) for p in kept), back.stdout
    res = wizard.run(root, "--yes", "--no-verify", "--path", "clean", *picks)
    assert res.returncode == 0 and not any(root.exists(p) for p in kept), res.stderr
    again = wizard.run(root, "--yes", "--no-verify", "--path", "clean")
    assert again.returncode == 0 and checks.step_lines(again.stderr) == {}, again.stderr
    assert not any(i in again.stderr for i in APT_IDS)


def test_the_script_purges_a_removed_amdgpu_install_and_re_checks_each_apt_file(wroot, tmp_path):
    root = wroot
    _installer_left(root, tmp_path)
    root.write("/etc/apt/keyrings/rocm.gpg", _keyring())
    root.write("/etc/apt/preferences.d/rocm-pin-600", "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n")
    listing = wizard.run(root, "--plan-only", "--path", "clean")
    assert "kept: purge:amdgpu-install" in listing.stderr, listing.stderr
    assert f"apt:{SL}/amdgpu.list" not in listing.stderr  # a conffile: the package's purge removes it
    script = wizard.run(root, "--plan-only", "--path", "clean", "--clean", "purge:amdgpu-install",
                        "--clean", "apt:/etc/apt/keyrings/rocm.gpg", "--clean", "apt:/etc/apt/preferences.d/rocm-pin-600")
    assert script.returncode == 2, script.stderr
    root.write("/root/clean.sh", script.stdout, mode=0o755)
    dry = root.run(["bash", "/root/clean.sh"], env={"DRY_RUN": "1"})
    assert dry.returncode == 2, dry.stderr
    assert root.run(["dpkg-query", "-W", "-f=${db:Status-Status}", "amdgpu-install"]).stdout == "config-files"
    assert root.exists("/etc/apt/keyrings/rocm.gpg") and root.exists(f"{SL}/amdgpu.list")
    # between the plan and the run an enabled entry comes to name the key: the script refuses it
    root.write(f"{SL}/new.list", "deb [signed-by=/etc/apt/keyrings/rocm.gpg] http://127.0.0.9/x jammy main\n")
    refused = root.run(["bash", "/root/clean.sh"], timeout=300)
    assert refused.returncode != 0 and "in use again" in refused.stderr, refused.stderr
    assert root.exists("/etc/apt/keyrings/rocm.gpg")
    root.remove(f"{SL}/new.list")
    res = root.run(["bash", "/root/clean.sh"], timeout=300)
    assert res.returncode == 0, res.stderr
    st = root.run(["dpkg-query", "-W", "-f=${db:Status-Status}", "amdgpu-install"])
    assert st.stdout in ("", "not-installed"), st.stdout
    assert not root.exists(f"{SL}/amdgpu.list") and not root.exists(f"{SL}/rocm.list")
    assert not root.exists("/etc/apt/keyrings/rocm.gpg") and not root.exists("/etc/apt/preferences.d/rocm-pin-600")
    second = root.run(["bash", "/root/clean.sh"], timeout=300)
    assert second.returncode == 0 and "ok:" in second.stderr, second.stderr


def test_a_packaged_file_is_refused_with_the_apt_command(wroot, tmp_path):
    from harness.debs import DebSpec, build_deb

    root = wroot
    root.write(f"{SL}/rocm.list", "# ROCm 6.4.3 for Ubuntu 22.04 (jammy). Written whole by rocm-wizard;\n"
               + DISABLED + "https://repo.radeon.com/rocm/apt/6.4.3 jammy main\n")
    script = wizard.run(root, "--plan-only", "--path", "clean", "--clean", f"apt:{SL}/rocm.list")
    assert script.returncode == 2, script.stderr
    root.write("/root/clean.sh", script.stdout, mode=0o755)
    # a package comes to own the file (not as a conffile) after the plan was made
    deb = build_deb(DebSpec("rocm-lists-test", "1.0", arch="all",
                            files={f"{SL}/rocm.list": root.read(f"{SL}/rocm.list")}), str(tmp_path))
    root.write("/root/p.deb", open(deb, "rb").read())
    root.run(["dpkg", "-i", "--force-overwrite", "--force-confold", "/root/p.deb"], check=True)
    res = root.run(["bash", "/root/clean.sh"], timeout=300)
    assert res.returncode != 0, res.stderr
    assert "belongs to packages (rocm-lists-test)" in res.stderr and "apt-get purge rocm-lists-test" in res.stderr
    assert root.exists(f"{SL}/rocm.list")


def test_the_clean_playbook_checks_converges_and_changes_nothing_the_second_time(wroot, ansible_in, tmp_path):
    """``--format ansible`` for real under Debian's ansible-core and PyPI's (``ansible_in``):
    ``--check`` changes nothing, the run removes the picked items (alice's venv and cache as alice),
    purges amdgpu-install's leftovers, and a second run reports changed=0."""
    from harness import ansible

    root = wroot
    _world(root)
    _installer_left(root, tmp_path)
    root.write("/etc/apt/keyrings/rocm.gpg", _keyring())
    root.write("/etc/apt/preferences.d/rocm-pin-600", "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n")
    root.write(f"{SL}/amdgpu-proprietary.list", DISABLED + "https://repo.radeon.com/amdgpu/7.1/ubuntu jammy proprietary\n")
    ansible_in(root)
    picks = ("rocm:/opt/rocm-6.2.0", f"venv:{HOME}/venv-previous", "cache:pip", "purge:amdgpu-install",
             "apt:/etc/apt/keyrings/rocm.gpg", "apt:/etc/apt/preferences.d/rocm-pin-600",
             f"apt:{SL}/amdgpu-proprietary.list")
    res = wizard.run(root, "--plan-only", "--format", "ansible", *_args(*picks))
    assert res.returncode == 2, res.stderr
    root.write("/root/clean.yml", res.stdout)
    watched = ["/opt", HOME, "/etc/apt", "/var/lib/dpkg/status"]
    before = root.snapshot(watched)

    check = ansible.playbook(root, "/root/clean.yml", "--check", "--diff")
    assert check.returncode == 0, check.stdout[-6000:] + check.stderr[-3000:]
    assert root.snapshot(watched) == before

    run = ansible.playbook(root, "/root/clean.yml")
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert ansible.recap(run.stdout)["changed"] > 0
    for gone in ("/opt/rocm-6.2.0", f"{HOME}/venv-previous", f"{HOME}/.cache/pip", "/etc/apt/keyrings/rocm.gpg",
                 "/etc/apt/preferences.d/rocm-pin-600", f"{SL}/amdgpu-proprietary.list", f"{SL}/amdgpu.list"):
        assert not root.exists(gone), gone
    assert root.run(["dpkg-query", "-W", "-f=${db:Status-Status}", "amdgpu-install"]).stdout in ("", "not-installed")
    for kept in ("/opt/rocm-7.2.4/bin/hipcc", "/opt/rocm-6.4.3/bin/hipcc", f"{HOME}/venv-torch2.5.1-rocm6.2/pyvenv.cfg",
                 f"{HOME}/venv-torch2.4.1-rocm6.1/pyvenv.cfg", f"{HOME}/.cache/uv"):
        assert root.exists(kept), kept

    again = ansible.playbook(root, "/root/clean.yml")
    assert again.returncode == 0, again.stdout[-6000:] + again.stderr[-3000:]
    counts = ansible.recap(again.stdout)
    assert counts["changed"] == 0 and counts["failed"] == 0, ansible.changed_tasks(again.stdout)


# ------------------------------------------------------------------------------ in use without running
BESIDE = 'p=$1; shift; (cd "$p" && exec sleep 600) & s=$!; sleep 1; "$@"; rc=$?; kill "$s"; exit "$rc"'


def _beside(root, cwd, argv, env=None, timeout=600):
    """``argv`` run in the root while a program works in ``cwd`` there: in the same command, so both
    see one /proc as on a machine (each command of the harness has its own mount namespace, where
    another's working directory reads as a path outside the root)."""
    return root.run(["bash", "-c", BESIDE, "-", cwd, *argv], env=env, timeout=timeout)


def test_a_tree_or_venv_a_unit_or_shell_file_names_is_kept_by_the_plan_and_the_script(wroot):
    """Issue 24's 'never what is in use', beyond running processes: a service of root's runs a program
    of an old ROCm tree, alice's ~/.bashrc activates a left-behind venv.  Neither is offered (the list
    says which file and line), a pick of either is refused naming it, and the script refuses at run
    time a venv alice's ~/.profile came to name after the plan, and one a running program uses."""
    root = wroot
    _world(root)
    root.write("/etc/systemd/system/comfy.service", "[Unit]\nDescription=x\n[Service]\n"
               "ExecStart=/opt/rocm-6.2.0/bin/hipcc --version\n")
    root.run(["sh", "-c", f"printf '%s\\n' '# source ~/venv-torch2.4.1-rocm6.1/bin/activate (old)' "
              f"'source ~/venv-previous/bin/activate' >> {HOME}/.bashrc"], user="alice", check=True)
    n = len(root.read(f"{HOME}/.bashrc").splitlines())
    listing = wizard.run(root, "--plan-only", *_args())
    assert listing.returncode == 0, listing.stderr
    assert "not offered: rocm:/opt/rocm-6.2.0  /opt/rocm-6.2.0: named by /etc/systemd/system/comfy.service " \
           "line 4" in listing.stderr, listing.stderr
    assert f"not offered: venv:{HOME}/venv-previous  {HOME}/venv-previous: named by {HOME}/.bashrc line {n}" \
        in listing.stderr, listing.stderr
    assert f"kept: venv:{HOME}/venv-torch2.4.1-rocm6.1" in listing.stderr  # named only in a comment
    refused = wizard.run(root, "--yes", "--no-verify", *_args("rocm:/opt/rocm-6.2.0"))
    assert refused.returncode == 64 and "comfy.service line 4" in refused.stderr, refused.stderr
    assert root.exists("/opt/rocm-6.2.0/bin/hipcc")

    venv = f"{HOME}/venv-torch2.4.1-rocm6.1"
    script = wizard.run(root, "--plan-only", *_args(f"venv:{venv}"))
    assert script.returncode == 2, script.stderr
    root.write("/root/clean.sh", script.stdout, mode=0o755)
    root.run(["sh", "-c", f"echo 'export PATH=\"$HOME/venv-torch2.4.1-rocm6.1/bin:$PATH\"' >> {HOME}/.profile"],
             user="alice", check=True)
    m = len(root.read(f"{HOME}/.profile").splitlines())
    res = root.run(["bash", "/root/clean.sh"], timeout=300)
    assert res.returncode != 0 and f"named by {HOME}/.profile line {m}" in res.stderr, res.stderr
    assert root.exists(venv + "/pyvenv.cfg")

    root.run(["sed", "-i", "$d", f"{HOME}/.profile"], check=True)  # the line gone: a program running from it
    res = _beside(root, venv, ["bash", "/root/clean.sh"])
    assert res.returncode != 0 and f"{venv} is in use by process " in res.stderr, res.stderr
    assert root.exists(venv + "/pyvenv.cfg")
    res = root.run(["bash", "/root/clean.sh"], timeout=300)  # neither now: it goes
    assert res.returncode == 0, res.stderr
    assert not root.exists(venv)


def test_the_clean_playbook_refuses_what_is_in_use(wroot, ansible_in):
    """The playbook runs the script's own in-use check: a venv a running program works in, then a
    venv a systemd unit names (written after the plan), each refused naming the process or file,
    the venv kept; with neither, it converges."""
    from harness import ansible

    root = wroot
    _world(root)
    ansible_in(root)
    first, second = f"{HOME}/venv-previous", f"{HOME}/venv-torch2.4.1-rocm6.1"
    res = wizard.run(root, "--plan-only", "--format", "ansible", *_args(f"venv:{first}", f"venv:{second}"))
    assert res.returncode == 2, res.stderr
    root.write("/root/clean.yml", res.stdout)
    if not getattr(root, "rw_controller", None):  # the newest ansible-core runs from a controller root
        extra = {"PATH": root.rw_ansible_path} if getattr(root, "rw_ansible_path", None) else {}
        run = _beside(root, first, ["ansible-playbook", "-i", "localhost,", "-c", "local", "/root/clean.yml"],
                      env=ansible.env(extra), timeout=900)
        assert run.returncode != 0 and f"{first} is in use by process " in run.stdout, run.stdout[-4000:]
        assert root.exists(first + "/pyvenv.cfg") and root.exists(second + "/pyvenv.cfg")

    root.write("/etc/systemd/system/app.service", f"[Service]\nWorkingDirectory={second}\nExecStart=bin/python\n")
    run = ansible.playbook(root, "/root/clean.yml")
    assert run.returncode != 0 and "named by /etc/systemd/system/app.service line 2" in run.stdout, run.stdout[-4000:]
    assert not root.exists(first) and root.exists(second + "/pyvenv.cfg")

    root.remove("/etc/systemd/system/app.service")
    run = ansible.playbook(root, "/root/clean.yml")
    assert run.returncode == 0, run.stdout[-4000:]
    assert not root.exists(second)


# alice's side of the swap: once root's check has begun reading her ~/.bashrc (its look at every file
# is over), ~/.profile becomes a link to a root-only file that names the venv.  The pattern's [.] keeps
# grep from matching its own command line.
SWAP = r'''touch "$HOME/watching"
for _ in $(seq 12000); do
  if cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' ' ' | grep -qE 'head -c 1048576 -- /home/alice/[.]bashrc'; then
    ln -sfn /root/notes "$HOME/.profile.new" && mv -T "$HOME/.profile.new" "$HOME/.profile" && touch "$HOME/swapped"
    exit 0
  fi
  sleep 0.01
done
exit 1'''


def _plant_swap(root):
    """A root-only file naming venv-previous, alice's long ~/.bashrc (so reading it takes a while) and
    a plain ~/.profile; returns alice's watcher, started and looking."""
    import time

    root.write("/root/notes", f"source {HOME}/venv-previous/bin/activate\n", mode=0o600)
    root.run(["sh", "-c", f"for i in $(seq 20000); do echo \"alias a$i='ls'\"; done > {HOME}/.bashrc && "
              f"echo 'umask 022' > {HOME}/.profile && rm -f {HOME}/swapped {HOME}/watching"], user="alice", check=True)
    watcher = root.popen(["bash", "-c", SWAP], user="alice", env={"HOME": HOME})
    for _ in range(600):
        if root.exists(f"{HOME}/watching"):
            return watcher
        time.sleep(0.05)
    raise AssertionError("alice's watcher did not start")


def _swap_done(root, watcher):
    try:
        watcher.wait(timeout=10)
    except Exception:
        root.kill_group(watcher)
        watcher.wait()
    return root.exists(f"{HOME}/swapped")


def test_the_script_reads_alices_start_up_files_as_alice_not_through_her_links(wroot):
    """Issue 27's rule in the script's in-use check: alice swaps ~/.profile for a link to a root-only
    file naming the picked venv after the check has looked at it (between its look and its read).
    Read as alice, the link reaches nothing: the venv is not "in use" through it, the run does not
    fail, and the venv goes.  (The check that read as root reported the root-only file's line.)"""
    root = wroot
    _world(root)
    venv = f"{HOME}/venv-previous"
    script = wizard.run(root, "--plan-only", *_args(f"venv:{venv}"))
    assert script.returncode == 2, script.stderr
    root.write("/root/clean.sh", script.stdout, mode=0o755)
    watcher = _plant_swap(root)
    res = root.run(["bash", "/root/clean.sh"], timeout=600)
    assert _swap_done(root, watcher), "alice's swap did not happen during the check"
    assert root.run(["test", "-L", f"{HOME}/.profile"]).returncode == 0  # the link is there
    assert "named by" not in res.stderr and res.returncode == 0, res.stderr
    assert not root.exists(venv)
    assert root.exists(f"{HOME}/venv-torch2.4.1-rocm6.1/pyvenv.cfg")


def test_the_clean_playbook_reads_alices_start_up_files_as_alice(wroot, ansible_in):
    """The same swap under the playbook (its task runs the script's check): the venv is not "in use"
    through alice's link to a root-only file, the play does not fail, and the venv goes."""
    from harness import ansible

    root = wroot
    _world(root)
    ansible_in(root)
    venv = f"{HOME}/venv-previous"
    res = wizard.run(root, "--plan-only", "--format", "ansible", *_args(f"venv:{venv}"))
    assert res.returncode == 2, res.stderr
    root.write("/root/clean.yml", res.stdout)
    watcher = _plant_swap(root)
    run = ansible.playbook(root, "/root/clean.yml")
    assert _swap_done(root, watcher), "alice's swap did not happen during the check"
    assert "named by" not in run.stdout and run.returncode == 0, run.stdout[-4000:]
    assert not root.exists(venv)
