"""The ``--format ansible`` playbook run for real with ``ansible-playbook -c local`` inside the Debian
root (Debian's own ansible-core 2.14, and the newest ansible-core on PyPI the root's Python 3.11 can
run, 2.19.x: ``ansible_in``): the 6.2 -> 6.4.3 upgrade in the apt lab, the molecule-style
sequence an Ansible user expects -- ``--check --diff`` changes nothing, the run converges, a second
run reports ``changed=0`` -- and the refusals (another GPU, a GPU user with no account)."""
from __future__ import annotations

import json

from harness import ansible, checks, wizard

# what --check must leave as it was: every file under /etc (accounts, groups, apt sources, keys,
# pins, linker configuration), what dpkg knows and apt's package lists
WATCHED = ["/etc", "/var/lib/dpkg/status", "/var/lib/apt/lists", "/opt"]


def upgrade_args(world):
    return ["--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-mirror", world.radeon_url, "--allow-http-mirror",
            "--rocm-key-fingerprint", world.site.radeon_key.fingerprint]


def make_playbook(root, world, name="/root/site.yml"):
    res = wizard.run(root, "--plan-only", "--format", "ansible", *upgrade_args(world))
    assert res.returncode in (0, 2), res.stderr
    assert res.stdout.startswith("---\n")
    root.write(name, res.stdout)
    return name


def users(*names):
    return ["-e", json.dumps({"rocm_wizard_gpu_users": list(names)})]


def test_check_changes_nothing_the_run_converges_and_a_second_run_changes_nothing(rocm_old, apt_site, ansible_in, request):
    root = rocm_old
    ansible_in(root)
    root.add_user("alice")
    root.run(["groupadd", "--system", "render"], check=True)  # udev makes it on Ubuntu; not in this root
    book = make_playbook(root, apt_site)
    before = root.snapshot(WATCHED)

    apt_site.radeon.requests.clear()
    check = ansible.playbook(root, book, "--check", "--diff", *users("alice"))
    assert check.returncode == 0, check.stdout[-6000:] + check.stderr[-3000:]
    assert ansible.recap(check.stdout)["failed"] == 0
    # it predicts: the new repository lines in the diff, the refresh it cannot run, the key checked
    assert f"+deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] {apt_site.radeon_url}/rocm/apt/6.4.3" in check.stdout
    assert "--check: the package lists would be refreshed here (the sources change)" in check.stdout
    assert apt_site.radeon.fetched("rocm.gpg.key") and not apt_site.radeon.fetched("InRelease")
    after = root.snapshot(WATCHED)
    assert {k for k in set(before) | set(after) if before.get(k) != after.get(k)} == set()
    assert root.installed_version("rocm") == apt_site.old.deb_version("jammy")
    if not ansible.converges_under(request):
        return  # (2.19: its host checks ran in --check, above)

    run = ansible.playbook(root, book, *users("alice"))
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    checks.assert_rocm_upgraded(root, apt_site.new)
    checks.assert_dpkg_healthy(root)
    assert root.read("/etc/ld.so.conf.d/rocm.conf") == "/opt/rocm/lib\n/opt/rocm/lib64\n"
    groups = {line.split(":")[0]: line.split(":")[3].strip().split(",") for line in root.read("/etc/group").splitlines()}
    assert "alice" in groups["render"] and "alice" in groups["video"]
    assert root.exists("/run/reboot-required")
    assert "a reboot is needed: the amdgpu kernel driver changed" in run.stdout
    assert "rocm-wizard: rebooting" not in run.stdout  # rebooting is off unless asked
    changed = ansible.changed_tasks(run.stdout)
    # (the keyring the lab installed is already the key alone, as gpg exports it: not rewritten)
    for task in ("Step 2 rocm-repos: write the repository lists whole",
                 "Step 4 apt-update: refresh the package lists",
                 "Step 5 kernel-driver: install the packages from the configured repository",
                 "Step 6 rocm-packages: install the packages at their exact versions",
                 "Step 9 gpu-groups: add the GPU users to the groups this host has"):
        assert task in changed, changed

    apt_site.radeon.requests.clear()
    again = ansible.playbook(root, book, *users("alice"))
    assert again.returncode == 0, again.stdout[-6000:] + again.stderr[-3000:]
    counts = ansible.recap(again.stdout)
    assert counts["changed"] == 0 and counts["failed"] == 0, ansible.changed_tasks(again.stdout)
    assert not apt_site.radeon.fetched("InRelease"), "a converged run must not refresh the package lists"

    # --check on the converged host checks the package tasks too (nothing pending) and finds nothing
    converged = root.snapshot(WATCHED)
    check2 = ansible.playbook(root, book, "--check", "--diff", "-e", "rocm_wizard_reboot=true", *users("alice"))
    assert check2.returncode == 0, check2.stdout[-6000:]
    assert ansible.recap(check2.stdout)["changed"] == 0, ansible.changed_tasks(check2.stdout)
    assert "--check: the package lists" not in check2.stdout
    assert root.snapshot(WATCHED) == converged

    # a GPU user without an account is an error, and none is created, in a real run too
    passwd = root.read("/etc/passwd")
    res = ansible.playbook(root, book, *users("alice", "bob"))
    assert res.returncode != 0
    assert "no account on this host for: bob" in res.stdout
    assert root.read("/etc/passwd") == passwd and ":bob:" not in root.read("/etc/group")


def test_hosts_with_other_gpus_or_missing_users_are_refused_and_nothing_changes(wroot, apt_site, ansible_in):
    root = wroot
    ansible_in(root)
    book = make_playbook(root, apt_site)
    before = root.snapshot(WATCHED)

    # a user with no account: --check stops at the group step, before any account could be made
    res = ansible.playbook(root, book, "--check", *users("nobody-here"))
    assert res.returncode != 0
    assert "no account on this host for: nobody-here" in res.stdout
    assert root.snapshot(WATCHED) == before

    # another AMD GPU than the plan's (a Radeon RX 6900 XT, 73bf): refused before any task runs
    root.write("/sys/bus/pci/devices/0000:03:00.0/device", "0x73bf\n")
    res = ansible.playbook(root, book, "--check")
    assert res.returncode != 0
    assert "this host's AMD GPUs (PCI device ids: 73bf) are not the ones the plan was made for (744c)" in res.stdout
    assert "Step 1 " not in res.stdout
    res = ansible.playbook(root, book)
    assert res.returncode != 0 and "Step 1 " not in res.stdout
    assert root.snapshot(WATCHED) == before
