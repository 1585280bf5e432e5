"""The generated playbooks: ansible-playbook --syntax-check and ansible-lint's production profile
on every golden playbook, and no plan value can reach Ansible's templating (all that could are
!unsafe), and every plan value stays a string under the YAML loader of ansible-core 2.19+."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from rwtest import ci
import yaml

from plan_helpers import GOLDEN, SYSTEMS, run_cli

SEED = str(SYSTEMS / "seed-rx7900xt-jammy-rocm6.2.json")
PLAYBOOKS = sorted(p.name for p in GOLDEN.glob("*.yml"))


def _need(name: str) -> str:
    return ci.tool(name, "pip install ansible-core ansible-lint; or set ROCM_WIZARD_TOOLS_DIR")


def _env(tmp: Path) -> dict:
    env = dict(os.environ)
    env.update({"ANSIBLE_LOCAL_TEMP": str(tmp / "ansible-tmp"), "ANSIBLE_HOME": str(tmp / "ansible-home"),
                "ANSIBLE_NOCOLOR": "1", "NO_COLOR": "1", "HOME": str(tmp)})
    bindir = os.path.dirname(_need("ansible-playbook"))
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    return env


def _syntax_check(path: Path, tmp: Path) -> None:
    res = subprocess.run([_need("ansible-playbook"), "--syntax-check", "-i", "localhost,", str(path)],
                         capture_output=True, text=True, env=_env(tmp), timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.parametrize("name", PLAYBOOKS)
def test_golden_playbook_syntax(name, tmp_path):
    _syntax_check(GOLDEN / name, tmp_path)


def test_golden_playbooks_pass_ansible_lint_production(tmp_path):
    lint = _need("ansible-lint")
    work = tmp_path / "playbooks"
    work.mkdir()
    for name in PLAYBOOKS:
        shutil.copy(GOLDEN / name, work / name)
    res = subprocess.run([lint, "--profile", "production", "--offline", "--nocolor", "-q"] + PLAYBOOKS,
                         cwd=work, capture_output=True, text=True, env=_env(tmp_path), timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr


class _Unsafe(str):
    pass


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_constructor("!unsafe", lambda loader, node: _Unsafe(loader.construct_scalar(node)))


def _strings(obj, path=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _strings(v, f"{path}[{i}]")
    elif isinstance(obj, str):
        yield path, obj


def test_plan_values_are_never_templated(tmp_path):
    payload = "{{ lookup('pipe', 'touch /tmp/rw-pwned') }}"
    venv = f"/opt/venvs/{payload}/x"
    rc, out, err = run_cli(["--plan-only", "--format", "ansible", "--snapshot", SEED, "--path", "torch-reinstall",
                            "--torch", "2.4.1", "--venv", venv])
    assert rc == 2, err
    (play,) = yaml.load(out, Loader=_Loader)
    seen = 0
    for where, text in _strings(play):
        if "lookup('pipe'" in text:
            assert where.startswith(".vars.") and isinstance(text, _Unsafe), where
            seen += 1
    assert seen >= 3
    assert play["vars"]["rw_venv_path"] == venv + "-torch2.4.1-rocm6.1"
    path = tmp_path / "p.yml"
    path.write_text(out)
    _syntax_check(path, tmp_path)


def _ansible_loads(text: str):
    """``text`` as the installed ansible-core's own YAML loader reads it (its ``!unsafe`` too)."""
    pytest.importorskip("ansible")
    from ansible.parsing.utils.yaml import from_yaml

    return from_yaml(text)


@pytest.mark.parametrize("name", PLAYBOOKS)
def test_plan_values_stay_strings_under_ansibles_own_loader(name):
    """ansible-core 2.19+ resolves ``!unsafe "22.04"`` like a plain scalar (the float 22.04, and
    ``"24.10"`` the float 24.1): every value of the plan must still reach Jinja as the string it is."""
    text = (GOLDEN / name).read_text()
    (ours,) = yaml.load(text, Loader=_Loader)
    (theirs,) = _ansible_loads(text)
    def leaves(obj, path):
        if isinstance(obj, dict):
            for k, v in obj.items():
                yield from leaves(v, f"{path}.{k}")
        elif isinstance(obj, list):
            for i, v in enumerate(obj):
                yield from leaves(v, f"{path}[{i}]")
        else:
            yield path, obj

    mine, got = dict(leaves(ours["vars"], "")), dict(leaves(theirs["vars"], ""))
    assert mine.keys() == got.keys()
    for where, value in mine.items():
        if isinstance(value, str):
            assert isinstance(got[where], str) and got[where] == value, (where, value, got[where])


def test_numeric_looking_values_are_strings_and_templates_stay_unsafe():
    from rocm_wizard.plan.ansible import Unsafe, _scalar

    for text in ("22.04", "24.10", "7480", "0755", "0x12", "yes", "off", "null", "~", "", ".inf", "2026-01-01",
                 "1e3", "6.4.3"):
        assert _scalar(Unsafe(text)).startswith('"'), text
        (got,) = _ansible_loads(f"- {_scalar(Unsafe(text))}\n")
        assert got == text and isinstance(got, str), (text, got)
    for text in ("{{ lookup('pipe', 'id') }}", "7{{ x }}", "a{%b", "/opt/venvs/x"):
        assert _scalar(Unsafe(text)).startswith("!unsafe") == ("{" in text) or text == "/opt/venvs/x"


def _changes(task) -> bool:
    reads = ("ansible.builtin.assert", "ansible.builtin.debug", "ansible.builtin.meta", "ansible.builtin.set_fact",
             "ansible.builtin.stat", "ansible.builtin.find", "ansible.builtin.getent", "ansible.builtin.package_facts")
    return not any(k in task for k in reads)


def test_playbook_structure(tmp_path):
    rc, out, _ = run_cli(["--plan-only", "--format", "ansible", "--snapshot", SEED, "--path", "rocm-upgrade",
                          "--rocm", "6.4.3"])
    (play,) = yaml.load(out, Loader=_Loader)
    assert play["become"] is True and play["max_fail_percentage"] == 0
    # rebooting is off unless asked; the batch size is a variable, one host at a time when rebooting
    assert play["vars"]["rocm_wizard_reboot"] is False
    assert play["serial"] == "{{ rocm_wizard_serial }}"
    assert play["vars"]["rocm_wizard_serial"] == "{{ 1 if rocm_wizard_reboot | bool else '20%' }}"
    pre = play["pre_tasks"]
    # the host's /etc/os-release ID and VERSION_ID (as the fingerprint has them), compared as strings
    assert pre[0]["ansible.builtin.slurp"] == {"src": "/etc/os-release"}
    that = pre[1]["ansible.builtin.assert"]["that"]
    assert that[0].endswith("| lower == rw_plan_os_id | string") and "^ID=" in that[0]
    assert that[1].endswith("== rw_plan_os_version | string") and "^VERSION_ID=" in that[1]
    # the host's AMD GPUs against the plan's fingerprint (PCI device ids of the RX 7900 XT)
    assert play["vars"]["rw_plan_gpus"] == ["744c"]
    assert pre[-1]["ansible.builtin.assert"]["that"] == ["rw_host_gpus | string in rw_plan_gpus | map('string') | list"]
    tasks = play["tasks"]
    # --check changes nothing: a task that changes the host never runs for real in check mode; the
    # ones that do run for real only read (or work in their own temporary directory) and say so
    for t in tasks + pre:
        if t.get("check_mode") is False:
            assert "--check too" in t["name"] or t.get("changed_when") is False, t["name"]
            assert not any(k in t for k in ("ansible.builtin.copy", "ansible.builtin.apt", "ansible.builtin.replace",
                                            "ansible.builtin.user")), t["name"]
    # what the key, sources and pin steps change is noted for the refresh of the package lists
    handlers = {h["name"]: h for h in play["handlers"]}
    note = "Note that the sources of step 4 apt-update changed"
    assert handlers[note]["ansible.builtin.set_fact"] == {"rw_apt_update_sources_changed": True}
    early = [t for t in tasks if t["name"].startswith(("Step 1 ", "Step 2 ", "Step 3 "))]
    changers = [t for t in early if _changes(t) and t.get("changed_when") is not False]
    assert len(changers) >= 5 and all(note in t["notify"] for t in changers)
    refresh = next(t for t in tasks if t["name"] == "Step 4 apt-update: refresh the package lists")
    assert refresh["when"] == "rw_apt_lists_pending | bool" and "check_mode" not in refresh
    installs = [t for t in tasks if "ansible.builtin.apt" in t and "name" in t["ansible.builtin.apt"]]
    assert installs and all(t["when"] == "not (ansible_check_mode and rw_apt_lists_pending | default(false) | bool)"
                            for t in installs)
    headers = next(t for t in tasks if "headers" in t["name"])
    release = "{{ rw_kernel_driver_kernel_release.content | b64decode | trim }}"
    assert headers["ansible.builtin.apt"]["name"] == ["linux-headers-" + release, "linux-modules-extra-" + release]
    # the kernel's release is read by one task (the play gathers no facts), in --check too
    kernel = tasks[tasks.index(headers) - 1]
    assert kernel["ansible.builtin.slurp"] == {"src": "/proc/sys/kernel/osrelease"}, kernel
    assert kernel["register"] == "rw_kernel_driver_kernel_release" and "when" not in kernel and "notify" not in kernel
    assert play["gather_facts"] is False
    # the reboot: the driver's installation notes it; the reboot-flag step, last, notifies the reboot
    # handler only when asked (changed_when), and the handler itself checks the variable again
    driver = next(t for t in tasks if t["name"].startswith("Step 5 ") and "configured repository" in t["name"])
    assert driver["notify"] == ["Note that the kernel driver changed"]
    assert [t["name"] for t in tasks if "Reboot for the new kernel driver" in t.get("notify", [])] == [
        "Step 10 reboot-flag: reboot at the end (rocm_wizard_reboot), or say that a reboot is needed"]
    assert tasks[-1]["changed_when"] == "rocm_wizard_reboot | bool"
    assert handlers["Reboot for the new kernel driver"]["when"] == "rocm_wizard_reboot | bool"
    assert "Refresh the dynamic linker cache" in handlers
    # group membership never creates an account: the users are checked against getent first
    groups = [t for t in tasks if t["name"].startswith("Step 9 ")]
    assert [next(k for k in t if k.startswith("ansible.builtin.")) for t in groups] == [
        "ansible.builtin.getent", "ansible.builtin.getent", "ansible.builtin.assert", "ansible.builtin.user"]
    assert groups[3]["ansible.builtin.user"]["append"] is True and "state" not in groups[3]["ansible.builtin.user"]


@pytest.mark.parametrize("name", PLAYBOOKS)
def test_check_mode_never_changes_the_host(name):
    """In every golden playbook a task forced to run for real under --check (check_mode: false) is
    one that reads (a module that only reads, or changed_when: false) or works in its own temporary directory and says so; no
    task that writes the system's files, packages or accounts is among them."""
    (play,) = yaml.load((GOLDEN / name).read_text(), Loader=_Loader)
    forced = [t for t in play.get("pre_tasks", []) + play["tasks"] + play.get("handlers", [])
              if t.get("check_mode") is False]
    for t in forced:
        assert (t.get("changed_when") is False or not _changes(t)
                or t["name"].endswith("(runs in --check too)")), t["name"]
        assert not any(k in t for k in ("ansible.builtin.copy", "ansible.builtin.apt", "ansible.builtin.replace",
                                        "ansible.builtin.user", "ansible.builtin.pip", "ansible.builtin.reboot")), t["name"]
        if "ansible.builtin.file" in t:
            assert t["ansible.builtin.file"]["path"].endswith("_tmp.path }}"), t["name"]
    assert play["vars"].get("rocm_wizard_reboot", False) is False


def test_venv_tasks_run_as_the_owner_found_on_the_host():
    """Every task that runs the venv's interpreter or writes in it runs as the owner of the venv
    directory on that host (stat), not as a user guessed when the plan was made, nor as root."""
    rc, out, err = run_cli(["--plan-only", "--format", "ansible", "--snapshot", SEED, "--path", "torch-reinstall",
                            "--torch", "2.4.1"])
    assert rc == 2, err
    (play,) = yaml.load(out, Loader=_Loader)
    tasks = play["tasks"]
    first_step = next(i for i, t in enumerate(tasks) if t["name"].startswith("Step "))
    found = [t for t in tasks[:first_step] if "rw_venv_owner_found" in t.get("ansible.builtin.set_fact", {})]
    assert found and "rw_venv_rule.stdout" in found[0]["ansible.builtin.set_fact"]["rw_venv_owner_found"]
    # the owner rule is rocm_wizard/ownerrule.py itself, run by the host's own Python (one rule, not a copy)
    from rocm_wizard.ownerrule import source
    assert str(play["vars"]["rw_owner_rule_py"]) == source()
    (judge,) = [t for t in tasks[:first_step] if "ansible.builtin.command" in t]
    assert judge["ansible.builtin.command"]["argv"][:5] == ["/usr/bin/python3", "-I", "-S", "-c", "{{ rw_owner_rule_py }}"]
    assert judge["check_mode"] is False and judge["register"] == "rw_venv_rule"
    assert any(t.get("ansible.builtin.stat", {}).get("path") == "{{ rw_venv_owner_path }}" for t in tasks[:first_step])
    venv_tasks = [t for t in tasks[first_step:] if not t["name"].startswith("Step 0") and "gpu-groups" not in t["name"]
                  and "ansible.builtin.debug" not in t]
    assert venv_tasks and all(t.get("become_user") == "{{ rocm_wizard_venv_owner | default(rw_venv_owner_found) }}"
                              for t in venv_tasks), [t["name"] for t in venv_tasks if "become_user" not in t]
    # issue 27: her files never go to the controller under --diff (lineinfile/blockinfile return the
    # whole file, unbounded), and a host without sudo or with requiretty can name su
    file_tasks = [t for t in venv_tasks if any(m in t for m in ("ansible.builtin.lineinfile", "ansible.builtin.blockinfile",
                                                                "ansible.builtin.copy", "ansible.builtin.template"))]
    assert any("ansible.builtin.blockinfile" in t for t in file_tasks), [t["name"] for t in venv_tasks]
    assert all(t.get("diff") is False for t in file_tasks), [t["name"] for t in file_tasks if t.get("diff") is not False]
    assert all(t["become_method"] == "{{ rocm_wizard_venv_become_method | default('ansible.builtin.sudo') }}"
               and t["become_exe"].startswith("setsid -w ") for t in venv_tasks)


def test_the_os_check_reads_os_release_as_the_fingerprint_does(tmp_path):
    """Run the pre-tasks with the installed ansible-playbook against os-release files: Pop!_OS 24.04
    (whose Ansible "distribution" is "Pop!_OS") passes a plan made for it, Ubuntu 24.10 ("24.10",
    the float 24.1 under 2.19's !unsafe) passes its own, another release is refused."""
    import json
    import sys

    from rocm_wizard.plan.ansible import render_ansible
    from rocm_wizard.plan.core import Fingerprint, Plan

    def play_for(os_value: str, release: str) -> int:
        plan = Plan(path="docker", title="t", steps=[], fingerprint=Fingerprint({"os": [os_value]}))
        (play,) = yaml.load(render_ansible(plan), Loader=_Loader)
        rel = tmp_path / "os-release"
        rel.write_text(release)
        pre = json.loads(json.dumps(play["pre_tasks"][:2]).replace("/etc/os-release", str(rel)))
        book = [{"hosts": "localhost", "gather_facts": False, "vars": {k: str(v) for k, v in play["vars"].items()
                                                                        if k.startswith("rw_plan_os")},
                 "tasks": pre}]
        path = tmp_path / "os.yml"
        path.write_text(yaml.safe_dump(book))
        env = dict(_env(tmp_path), ANSIBLE_PYTHON_INTERPRETER=sys.executable)
        res = subprocess.run([_need("ansible-playbook"), "-i", "localhost,", "-c", "local", str(path)],
                             capture_output=True, text=True, env=env, timeout=300)
        return res.returncode

    pop = (Path(__file__).resolve().parents[1] / "data/os-release/pop-24.04").read_text()
    assert play_for("pop 24.04", pop) == 0
    assert play_for("ubuntu 24.10", 'NAME="Ubuntu"\nID=ubuntu\nVERSION_ID="24.10"\n') == 0
    assert play_for("ubuntu 24.04", 'NAME="Ubuntu"\nID=ubuntu\nVERSION_ID="24.10"\n') != 0


def test_a_play_gathers_facts_only_where_a_task_reads_a_gathered_one():
    """Fact gathering starts the setup module (~0.85 CPU-s a run whatever the subset): a play whose
    tasks read only what tasks of its own set (getent's, package_facts', registered results) gathers
    none; one whose task reads a gathered fact, in any spelling, keeps Ansible's default."""
    from rocm_wizard.plan.ansible import _fact_gathering

    def task(text):
        return [{"name": "t", "ansible.builtin.debug": {"msg": "{{ " + text + " }}"}, "when": "ansible_check_mode"}]

    for own in ("ansible_facts['getent_group']", 'ansible_facts["getent_passwd"]', "ansible_facts.packages[p.name]",
                "rw_kernel_release.content | b64decode", "rw_ansible_distribution", "ansible_become_user"):
        assert _fact_gathering(task(own)) == {"gather_facts": False}, own
    for gathered in ("ansible_facts['kernel']", "ansible_facts.distribution", "ansible_distribution_major_version",
                     "ansible_facts | dict2items", "ansible_kernel", "ansible_facts['os_family']"):
        assert _fact_gathering(task(gathered)) == {}, gathered
    # in a block, a handler or a condition too
    assert _fact_gathering([{"block": [{"ansible.builtin.command": "true", "when": "ansible_os_family == 'Debian'"}]}]) == {}
