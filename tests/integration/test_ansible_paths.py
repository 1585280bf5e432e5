"""The torch-reinstall playbook (``--format ansible``) run for real with ``ansible-playbook -c local``
inside the Debian root, under Debian's ansible-core and the newest from PyPI the root can run
(``ansible_in``): ``--check`` changes nothing in the venv, the run converges (torch 2.5.1+rocm6.2 ->
2.4.1+rocm6.1 from the local index), a second run reports ``changed=0``."""
from __future__ import annotations

from harness import ansible, wizard
from harness.wheels import read_version_py

from test_exec_torch import make_torch_venv, site, torch_args  # noqa: E402

VENV = "/srv/venvs/ml"


def test_torch_playbook_check_converge_and_changed_0(wroot, pyindex, ansible_in):
    root = wroot
    make_torch_venv(root, pyindex, VENV)
    ansible_in(root)
    res = wizard.run(root, "--plan-only", "--format", "ansible", *torch_args(pyindex, VENV))
    assert res.returncode in (0, 2), res.stderr
    root.write("/root/torch.yml", res.stdout)
    watched = [VENV, "/etc"]
    before = root.snapshot(watched)

    check = ansible.playbook(root, "/root/torch.yml", "--check", "--diff")
    assert check.returncode == 0, check.stdout[-6000:] + check.stderr[-3000:]
    assert root.snapshot(watched) == before
    assert read_version_py(site(root, VENV))["__version__"] == "2.5.1+rocm6.2"

    run = ansible.playbook(root, "/root/torch.yml")
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert ansible.recap(run.stdout)["changed"] > 0
    assert read_version_py(site(root, VENV))["__version__"] == "2.4.1+rocm6.1"

    again = ansible.playbook(root, "/root/torch.yml")
    assert again.returncode == 0, again.stdout[-6000:] + again.stderr[-3000:]
    counts = ansible.recap(again.stdout)
    assert counts["changed"] == 0 and counts["failed"] == 0, ansible.changed_tasks(again.stdout)


def test_core_sdk_playbook_check_converge_and_changed_0(resolute_root, core_site, ansible_in):
    """The Core SDK branch of rocm-upgrade on a fresh Ubuntu 26.04 look-alike: "26.04" is the
    version ansible-core 2.19+ would have turned into a float."""
    from test_exec_coresdk import assert_core_installed, core_args

    root = resolute_root
    ansible_in(root)
    res = wizard.run(root, "--plan-only", "--format", "ansible", *core_args(core_site))
    assert res.returncode in (0, 2), res.stderr
    root.write("/root/core.yml", res.stdout)
    watched = ["/etc", "/var/lib/dpkg/status", "/var/lib/apt/lists", "/opt"]
    before = root.snapshot(watched)
    nobody = ["-e", '{"rocm_wizard_gpu_users": []}']

    check = ansible.playbook(root, "/root/core.yml", "--check", "--diff", *nobody)
    assert check.returncode == 0, check.stdout[-6000:] + check.stderr[-3000:]
    assert root.snapshot(watched) == before

    run = ansible.playbook(root, "/root/core.yml", *nobody)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert_core_installed(root)

    core_site.radeon.requests.clear()
    again = ansible.playbook(root, "/root/core.yml", *nobody)
    assert again.returncode == 0, again.stdout[-6000:] + again.stderr[-3000:]
    counts = ansible.recap(again.stdout)
    assert counts["changed"] == 0 and counts["failed"] == 0, ansible.changed_tasks(again.stdout)
