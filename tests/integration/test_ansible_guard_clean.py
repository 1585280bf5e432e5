"""The guard way's playbook (``--format ansible``) run for real inside the Debian root under each
ansible-core (``ansible_in``: Debian's 2.14 and the newest on PyPI from a Debian 13 controller):
``--check`` changes nothing, the run converges (pins written and obeyed by pip), a second run reports
``changed=0``.  (The clean way's playbook: test_exec_clean.py's
``test_the_clean_playbook_checks_converges_and_changes_nothing_the_second_time``, on the same
world with more picks -- the picks this file's clean test made were a subset of its, with the same
check, converge and ``changed=0`` runs under the same ansible-cores, so that test was dropped.)"""
from __future__ import annotations

from harness import ansible, wizard

from test_exec_guard import VENV, _pip_swap, _torch  # noqa: E402
from test_exec_torch import make_torch_venv  # noqa: E402


def _converges(root, book, watched, after):
    before = root.snapshot(watched)
    check = ansible.playbook(root, book, "--check", "--diff")
    assert check.returncode == 0, check.stdout[-6000:] + check.stderr[-3000:]
    assert root.snapshot(watched) == before

    run = ansible.playbook(root, book)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert ansible.recap(run.stdout)["changed"] > 0
    after()

    again = ansible.playbook(root, book)
    assert again.returncode == 0, again.stdout[-6000:] + again.stderr[-3000:]
    counts = ansible.recap(again.stdout)
    assert counts["changed"] == 0 and counts["failed"] == 0, ansible.changed_tasks(again.stdout)


def test_guard_playbook_check_converge_and_changed_0(wroot, pyindex, ansible_in):
    root = wroot
    make_torch_venv(root, pyindex, VENV)  # torch 2.5.1+rocm6.2
    ansible_in(root)
    res = wizard.run(root, "--plan-only", "--format", "ansible", "--path", "guard", "--venv", VENV)
    assert res.returncode in (0, 2), res.stderr
    root.write("/root/guard.yml", res.stdout)

    def guarded():
        pins = set(root.read(VENV + "/rocm-wizard-guard.txt").splitlines())
        assert {"torch==2.5.1+rocm6.2", "torchvision==0.20.1+rocm6.2"} <= pins, pins
        swap = _pip_swap(root, pyindex, "torch==2.5.0")
        assert swap.returncode != 0 and _torch(root) == "2.5.1+rocm6.2", swap.stdout

    _converges(root, "/root/guard.yml", [VENV, "/etc"], guarded)
