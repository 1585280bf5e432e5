"""``rocm-wizard --yes`` on the ROCm upgrade path, run inside a Debian root that says it is Ubuntu
22.04, against the signed radeon-like repository: real apt, dpkg, gpgv."""
from __future__ import annotations

import os
import re
import stat
import subprocess

from harness import checks, wizard


def upgrade_args(world, fingerprint=None):
    return ["--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-mirror", world.radeon_url, "--allow-http-mirror",
            "--rocm-key-fingerprint", fingerprint or world.site.radeon_key.fingerprint]


def test_upgrade_6_2_to_6_4_then_a_second_run_is_all_ok(rocm_old, apt_site):
    root = rocm_old
    before_list = root.read("/etc/apt/sources.list.d/rocm.list")
    res = wizard.run(root, "--yes", "--no-verify", *upgrade_args(apt_site))
    assert res.returncode == 0, res.stderr
    assert res.stdout == ""  # the console account goes to stderr
    checks.assert_rocm_upgraded(root, apt_site.new)
    checks.assert_dpkg_healthy(root)
    assert root.read("/etc/ld.so.conf.d/rocm.conf") == "/opt/rocm/lib\n/opt/rocm/lib64\n"
    words = checks.step_lines(res.stderr)
    assert len(words) == 10 and set(words.values()) <= {"ok", "changed"}
    assert words["2"] == "changed" and words["6"] == "changed"
    assert re.search(r"summary: 10 steps: \d+ changed, \d+ ok, 0 failed, 0 skipped", res.stderr)
    assert "a reboot is needed" in res.stderr

    run1 = checks.latest_run(root)
    j = checks.journal(root, run1)
    assert j["state"] == "finished" and all(s["status"] in ("ok", "changed") for s in j["steps"])
    # the replaced list was backed up before it was rewritten, and the journal knows where
    entry = next(f for f in j["files"] if f["path"] == "/etc/apt/sources.list.d/rocm.list")
    assert entry["before"] == "file" and root.read(entry["backup"]) == before_list
    assert next(f for f in j["files"] if f["path"] == "/etc/ld.so.conf.d/rocm.conf")["before"] == "absent"
    # command history: argv, exit status and duration of every command, step start/finish events
    ev = checks.events(root, run1)
    cmds = [e for e in ev if e["event"] == "command"]
    install = next(e for e in cmds if e["argv"][:2] == ["apt-get", "install"] and e["step"] == "rocm-packages")
    assert install["rc"] == 0 and install["duration"] > 0
    assert "rocm=6.4.3.60403-128~22.04" in install["argv"]
    assert [e["step"] for e in ev if e["event"] == "step-start"] == [s["id"] for s in j["steps"]]
    assert {e["status"] for e in ev if e["event"] == "step-end"} <= {"ok", "changed"}
    assert "apt-get install" in root.read(os.path.join(run1, "run.log"))
    # state files are private (a mirror URL may carry credentials)
    assert stat.S_IMODE(os.stat(root.host_path(os.path.join(run1, "plan.json"))).st_mode) == 0o600

    apt_site.radeon.requests.clear()
    again = wizard.run(root, "--yes", "--no-verify", *upgrade_args(apt_site))
    assert again.returncode == 0, again.stderr
    words = checks.step_lines(again.stderr)
    assert len(words) == 10 and set(words.values()) == {"ok"}, again.stderr
    assert not apt_site.radeon.fetched("InRelease"), "a converged re-run must not run apt-get update"
    assert checks.latest_run(root) != run1  # the latest link moved to the new run
    checks.assert_rocm_upgraded(root, apt_site.new)


def test_dry_run_shows_the_changes_and_changes_nothing(rocm_old, apt_site):
    root = rocm_old
    before = checks.apt_state(root)
    res = wizard.run(root, "--dry-run", *upgrade_args(apt_site))
    assert res.returncode == 2, res.stderr
    assert "would change" in res.stdout
    assert "+deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] " + apt_site.radeon_url + "/rocm/apt/6.4.3" in res.stdout
    assert checks.apt_state(root) == before
    assert not root.exists("/var/log/rocm-wizard/latest")


def test_wrong_key_fingerprint_changes_nothing(rocm_old, apt_site):
    root = rocm_old
    before = checks.apt_state(root)
    wrong = apt_site.rogue_key.fingerprint
    res = wizard.run(root, "--yes", "--no-verify", *upgrade_args(apt_site, fingerprint=wrong))
    assert res.returncode == 1
    assert wrong in res.stderr and "nothing was written" in res.stderr
    assert checks.apt_state(root) == before
    assert checks.journal(root)["state"] == "restored"


def test_unreachable_repository_restores_the_sources(rocm_old, apt_site):
    root = rocm_old
    before = checks.apt_state(root)
    apt_site.radeon.stop()
    res = wizard.run(root, "--yes", "--no-verify", *upgrade_args(apt_site))
    assert res.returncode == 1
    assert "apt-get update" in res.stderr and "failed" in res.stderr
    assert "the system is as before the run" in res.stderr
    assert "restored /etc/apt/sources.list.d/rocm.list" in res.stderr
    after = checks.apt_state(root)
    assert after == before
    assert checks.journal(root)["state"] == "restored"
    assert root.installed_version("rocm") == apt_site.old.deb_version("jammy")


def test_unclean_dpkg_refuses_to_start(rocm_old, apt_site):
    root = rocm_old
    deb = os.path.join(apt_site.site.radeon_root, "amdgpu", "6.4.3", "ubuntu", "pool", "main", "a",
                       "amdgpu-dkms-firmware")
    name = os.listdir(deb)[0]
    root.write("/root/" + name, open(os.path.join(deb, name), "rb").read())
    root.run(["dpkg", "--unpack", "/root/" + name], check=True)  # unpacked, never configured
    assert root.dpkg_audit() != ""
    before = checks.apt_state(root)
    res = wizard.run(root, "--yes", "--no-verify", *upgrade_args(apt_site))
    assert res.returncode == 1
    assert "dpkg --audit" in res.stderr and "dpkg --configure -a" in res.stderr
    assert "amdgpu-dkms-firmware" in res.stderr
    assert checks.apt_state(root) == before


def _hold_lock(root, seconds=None):
    """A process in the root holding dpkg's frontend lock for ``seconds``, or (None) until a line
    arrives on its stdin."""
    release = f"time.sleep({seconds})" if seconds is not None else "sys.stdin.readline()"
    holder = root.popen(["python3", "-c",
                         "import fcntl, sys, time\n"
                         "f = open('/var/lib/dpkg/lock-frontend', 'w')\n"
                         "fcntl.lockf(f, fcntl.LOCK_EX)\n"
                         "print('locked', flush=True)\n"
                         f"{release}\n"], stdin=subprocess.PIPE)
    assert holder.stdout.readline().strip() == "locked"
    return holder


def test_waits_for_the_dpkg_lock_then_goes_on(rocm_old, apt_site):
    root = rocm_old
    holder = _hold_lock(root)
    try:
        run = wizard.popen(root, "--yes", "--no-verify", *upgrade_args(apt_site), stdout=subprocess.DEVNULL)
        said = []
        for line in run.stderr:  # the lock is let go once the wizard says it waits: no clock involved
            said.append(line)
            if "to release /var/lib/dpkg/lock-frontend" in line:
                break
        holder.stdin.write("release\n")
        holder.stdin.flush()
        said.append(run.stderr.read())
        assert run.wait(timeout=900) == 0, "".join(said)
    finally:
        root.kill_group(holder)
        holder.wait(timeout=30)
    stderr = "".join(said)
    assert re.search(r"waiting for python3 \(pid \d+\) to release /var/lib/dpkg/lock-frontend", stderr)
    assert "the package manager lock is free" in stderr
    checks.assert_rocm_upgraded(root, apt_site.new)


def test_gives_up_waiting_for_the_lock_after_the_bound(rocm_old, apt_site):
    root = rocm_old
    before = checks.apt_state(root)
    holder = _hold_lock(root, 60)
    try:
        res = wizard.run(root, "--yes", "--no-verify", "--lock-timeout", "2", *upgrade_args(apt_site))
    finally:
        root.kill_group(holder)
    assert res.returncode == 1
    assert "still holds /var/lib/dpkg/lock-frontend after 2s" in res.stderr
    assert checks.apt_state(root) == before


def test_rollback_restores_the_apt_files_and_says_what_stays(rocm_old, apt_site):
    root = rocm_old
    before = checks.apt_state(root)
    assert wizard.run(root, "--yes", "--no-verify", *upgrade_args(apt_site)).returncode == 0
    res = wizard.run(root, "rollback")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "restored /etc/apt/sources.list.d/rocm.list" in out
    assert "removed /etc/ld.so.conf.d/rocm.conf (it did not exist before)" in out
    assert "Packages are not changed back by rollback" in out
    assert "amdgpu kernel module stays" in out
    after = checks.apt_state(root)
    del after["dpkg"], before["dpkg"]
    assert after == before  # every apt and linker file as before the run
    assert checks.journal(root)["state"] == "rolled-back"
    # the commands it prints really go back
    cmd = next(ln.strip() for ln in out.splitlines() if "apt-get install --allow-downgrades" in ln)
    shell = "apt-get update -q && " + cmd.replace("sudo ", "").replace("apt-get install", "apt-get install -y", 1)
    assert root.run(shell).returncode == 0
    assert root.installed_version("rocm") == apt_site.old.deb_version("jammy")
    assert root.resolve("/opt/rocm") == "/opt/rocm-6.2.4"
    # a second rollback finds nothing to do
    again = wizard.run(root, "rollback")
    assert again.returncode == 0 and "no file to restore" in again.stdout
