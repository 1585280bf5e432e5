"""The plan as an Ansible playbook, for a fleet of hosts like the one the plan was made for.

* One play, ``become: true``, rolling: ``serial`` is ``rocm_wizard_serial`` (default one host at
  a time when ``rocm_wizard_reboot`` is true, else 20%), ``max_fail_percentage: 0``.
* Every value of the plan is a play variable tagged ``!unsafe``: Ansible never templates it, so a
  path or URL holding ``{{ ... }}`` stays text.
* Per-host values come from the host: the kernel's release (headers for amdgpu-dkms, from
  /proc/sys/kernel/osrelease) and the group ids (getent), each read by a task before the one that
  needs it (the play gathers no facts); the GPU users from ``rocm_wizard_gpu_users`` (host_vars),
  defaulting to the detected user, who must already have an account (the play never creates one).
* Pre-tasks refuse hosts that run another distribution or release than the plan's, or whose AMD
  GPUs (PCI device ids, the ``gpus`` field of the plan's fingerprint) are not the ones the plan was
  made for: the ROCm release, the driver and the torch wheels were chosen for those GPUs.
* ``--check --diff`` changes nothing: tasks that change the host run in check mode; only tasks
  that read (the key downloaded and checked in a temporary directory, stat, find, package facts)
  run for real.  What check mode cannot predict it says: the package tasks are not checked when
  the package lists would first be refreshed from new repositories.
* Rebooting is off unless ``rocm_wizard_reboot`` is true; then a handler reboots the hosts whose
  kernel driver changed, after every other task.
* A step that must know what earlier steps changed (``apt-get update`` after the sources,
  ``ldconfig`` after the libraries) has a handler those steps' changing tasks notify.
"""
from __future__ import annotations

import json
import re
from typing import Any, Dict, Iterator, List

from ..termsafe import json_c1
from .core import Plan
from .shellquote import comment


class Unsafe(str):
    """A string emitted as ``!unsafe`` (never templated by Ansible)."""


# A fact read by a task (``ansible_distribution``, ``ansible_facts['os_family']``, the whole
# ``ansible_facts``), other than the ones tasks of the play set themselves (getent's, package_facts')
# and the magic variables the tasks use
_GATHERED_FACT = re.compile(r"\bansible_(?!facts\b|check_mode\b|become_[a-z_]+\b)[a-z]"
                            r"|\bansible_facts(?!(?:\[['\"]|\.)(?:getent_[a-z]+|packages)\b)")


def _texts(value: Any) -> Iterator[str]:
    """Every key and string in ``value`` (tasks, their arguments, their conditions)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _texts(v)
    elif isinstance(value, list):
        for v in value:
            yield from _texts(v)


def _fact_gathering(tasks: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The play's fact gathering: none where no task reads a gathered fact, else the default.
    Gathering starts the setup module, which loads every fact collector whatever subset is asked
    for (measured: a play's run costs ~0.85 CPU-s more with ``gather_subset: ['!all', '!min',
    'platform']`` than with none, as much as with all) and, by default, runs them all (every mount,
    every PCI device: seconds on a host with many GPUs and disks); the plays read what they need
    with one task each (getent, package_facts, slurp of /etc/os-release and of the kernel's
    release).  A task that reads a gathered fact keeps the default, so a renderer that comes to
    read one is never left without it."""
    if _GATHERED_FACT.search("\n".join(_texts(tasks))):
        return {}
    return {"gather_facts": False}


_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")


# What a plain YAML 1.1 scalar resolves to other than a string (numbers, booleans, null, dates):
# ansible-core 2.19+ resolves a ``!unsafe "..."`` scalar as if it were plain, so ``!unsafe "22.04"``
# becomes the float 22.04 and ``!unsafe "24.10"`` the float 24.1 (its YAML constructor,
# _resolve_and_construct_object).  Such a text carries no ``{`` (nothing Jinja could template), so
# it is written as a plain double-quoted string instead, a string on every version.
_NOT_A_STRING = re.compile(r"^(?:[-+]?[0-9][0-9a-fA-FxXoObB_.:eE+-]*|[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)|"
                           r"[0-9]{4}-[0-9].*|y|Y|n|N|yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|"
                           r"off|Off|OFF|null|Null|NULL|~|=|<<|)$")


def _needs_tag(text: str) -> bool:
    """Whether ``text`` must be tagged ``!unsafe``: it could start a template, or it is not one of
    the texts ansible-core 2.19+ would turn into another type under the tag."""
    return "{" in text or not _NOT_A_STRING.fullmatch(text)


def _unsafe(value: Any) -> Any:
    if isinstance(value, str):
        return Unsafe(value)
    if isinstance(value, list):
        return [_unsafe(v) for v in value]
    if isinstance(value, dict):
        return {k: _unsafe(v) for k, v in value.items()}
    return value


def _block_ok(text: str) -> bool:
    if "\n" not in text.rstrip("\n") or not text or text[0] in " \t\n":
        return False
    for line in text.split("\n"):
        if line != line.rstrip() or "\t" in line or len(line) > 150:
            return False
        if any(not (c.isprintable()) for c in line):
            return False
    return True


def _scalar(value: Any) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return str(value)
    text = json_c1(json.dumps(str(value), ensure_ascii=False))  # C0 and C1 escaped: no raw control byte in YAML
    return ("!unsafe " + text) if isinstance(value, Unsafe) and _needs_tag(str(value)) else text


def _fold(first: str, scalar: str, pad: str, limit: int = 150) -> List[str]:
    """``first`` + a double-quoted scalar, broken into lines of at most ``limit`` characters with
    escaped line breaks (YAML joins them without adding anything)."""
    if len(first) + len(scalar) <= limit or not scalar.endswith('"'):
        return [first + scalar]
    cont = pad + "  "
    tokens: List[str] = []
    i = 0
    while i < len(scalar):
        if scalar[i] == "\\":
            n = 6 if scalar[i + 1:i + 2] == "u" else 2
            tokens.append(scalar[i:i + n])
            i += n
        else:
            tokens.append(scalar[i])
            i += 1
    lines: List[str] = []
    cur = first
    width = limit - 1
    for tok in tokens:
        if len(cur) + len(tok) > width and cur.strip() not in ("", "-"):
            lines.append(cur + "\\")
            cur = cont + ("\\x20" if tok == " " else tok)
        else:
            cur += tok
    lines.append(cur)
    return lines


def _block(value: str, pad: str) -> List[str]:
    body = value.rstrip("\n")
    trailing = len(value) - len(body)
    chomp = "-" if trailing == 0 else ("" if trailing == 1 else "+")
    head = ("!unsafe |" if isinstance(value, Unsafe) and _needs_tag(str(value)) else "|") + chomp
    lines = [head]
    for line in body.split("\n"):
        lines.append((pad + "  " + line) if line else "")
    lines += [""] * (trailing - 1 if trailing > 1 else 0)
    return lines


def _key(k: str) -> str:
    return k if _PLAIN_KEY.match(k) else json.dumps(k)


def _emit(obj: Any, indent: int) -> List[str]:
    pad = " " * indent
    out: List[str] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "__noqa__":
                continue
            out += _emit_pair(_key(k), v, pad, indent)
        return out
    if isinstance(obj, list):
        for item in obj:
            if isinstance(item, dict) and item:
                inner = _emit(item, indent + 2)
                first = inner[0][indent + 2:]
                if "__noqa__" in item:
                    first += f"  # noqa: {item['__noqa__']}"
                out.append(pad + "- " + first)
                out += inner[1:]
            elif isinstance(item, (dict, list)) and not item:
                out.append(pad + "- " + ("{}" if isinstance(item, dict) else "[]"))
            elif isinstance(item, list):
                inner = _emit(item, indent + 2)
                out.append(pad + "- " + inner[0][indent + 2:])
                out += inner[1:]
            else:
                out += _fold(pad + "- ", _scalar(item), pad)
        return out
    return [pad + _scalar(obj)]


def _emit_pair(key: str, v: Any, pad: str, indent: int) -> List[str]:
    if isinstance(v, (dict, list)):
        if not v:
            return [f"{pad}{key}: " + ("{}" if isinstance(v, dict) else "[]")]
        return [f"{pad}{key}:"] + _emit(v, indent + 2)
    if isinstance(v, str) and _block_ok(v):
        lines = _block(v, pad)
        return [f"{pad}{key}: {lines[0]}"] + lines[1:]
    return _fold(f"{pad}{key}: ", _scalar(v), pad)


def to_yaml(docs: Any, header: List[str]) -> str:
    import textwrap

    lines = ["---"]
    for h in header:
        text = comment(h)
        if not text:
            lines.append("#")
            continue
        lines += ["# " + part for part in textwrap.wrap(text, 140, subsequent_indent="  ", break_long_words=True,
                                                         break_on_hyphens=False)]
    lines += _emit(docs, 0)
    return "\n".join(lines) + "\n"


# modules that only read: a task of these never notifies a handler
_READS = ("ansible.builtin.assert", "ansible.builtin.debug", "ansible.builtin.meta", "ansible.builtin.set_fact",
          "ansible.builtin.stat", "ansible.builtin.find", "ansible.builtin.getent", "ansible.builtin.package_facts",
          "ansible.builtin.slurp")


def _wire_handlers(plan: Plan, tasks_by_step: Dict[str, List[Dict[str, Any]]]) -> None:
    """A step with ``notify_from`` (``ldconfig`` after the libraries, ``apt-get update`` after the
    sources) has its first handler notified by every task of those steps that can change the host."""
    for step in plan.steps:
        after = getattr(step, "notify_from", None)
        handlers = step.ansible_handlers()
        if not after or not handlers:
            continue
        handler = handlers[0]["name"]
        for sid in after:
            for task in tasks_by_step.get(sid, []):
                if task.get("changed_when") is False or any(k in task for k in _READS):
                    continue
                notify = list(task.get("notify", []))
                if handler not in notify:
                    notify.append(handler)
                task["notify"] = notify
                for key in ("block", "rescue", "always"):  # a block's own keys last (ansible-lint's key order)
                    if key in task:
                        task[key] = task.pop(key)


def _venv_owner_tasks() -> List[Dict[str, Any]]:
    """The venv tasks run as the venv's owner on each host (root only for a root-owned venv that
    only root can change), by the one owner rule: ``rw_owner_rule_py`` is
    :mod:`rocm_wizard.ownerrule` as it is, run by the host's own ``/usr/bin/python3 -I -S`` (in
    ``--check`` too: it only reads).  Before the venv exists, the owner of the directory it will be
    made in."""
    st, parent, rule = "rw_venv_stat", "rw_venv_parent_stat", "rw_venv_rule"
    return [
        {"name": "Find the venv", "ansible.builtin.stat": {"path": "{{ rw_venv_owner_path }}", "follow": True},
         "register": st, "check_mode": False},
        {"name": "Find the owner of the directory the venv will be made in", "ansible.builtin.stat": {
            "path": "{{ rw_venv_owner_path | dirname }}", "follow": True},
         "register": parent, "check_mode": False, "when": f"not {st}.stat.exists"},
        {"name": "Judge who may run the venv (the owner rule of rocm_wizard/ownerrule.py; reads only)",
         "ansible.builtin.command": {"argv": ["/usr/bin/python3", "-I", "-S", "-c", "{{ rw_owner_rule_py }}", "venv",
                                              "{{ rw_venv_owner_path }}"]},
         "register": rule, "check_mode": False, "changed_when": False, "failed_when": False,
         "when": f"{st}.stat.exists"},
        {"name": "Refuse a venv that root must not run", "ansible.builtin.assert": {
            "that": [f"not {st}.stat.exists or {rule}.rc == 0"],
            "fail_msg": "{{ " + rule + ".stderr | default('') }}"}},
        {"name": "Run the venv tasks as the venv's owner (never as root for a user's venv)", "ansible.builtin.set_fact": {
            "rw_venv_owner_found": "{{ " + rule + ".stdout | trim if " + st + ".stat.exists else (" + parent
                                   + ".stat.pw_name | default('root')) }}"}},
    ]


# How a venv task becomes its owner (issue 27, findings 3, 8, 9): through ``setsid -w`` before the
# become program (``sudo`` unless rocm_wizard_venv_become_exe says otherwise), so that neither the
# module nor anything it starts has the controller's terminal (ansible-core before 2.17 runs its
# workers in the terminal's session, and sudo without use_pty keeps it); and every command of the
# owner's through rocm_wizard/ownerrun.py (``rw_owner_run_py``): a session of its own, stdin
# /dev/null, a minimal environment, output bounded so the controller is never flooded.
# A host with no sudo, or with sudoers' ``requiretty`` (sudo refuses without a terminal, and setsid
# leaves none), names su instead: ``-e rocm_wizard_venv_become_method=ansible.builtin.su``.  Root's su
# asks no password; setsid -w keeps the owner's processes off the controller's terminal the same way.
OWNER_BECOME_METHOD = "{{ rocm_wizard_venv_become_method | default('ansible.builtin.sudo') }}"
OWNER_BECOME_EXE = ("setsid -w {{ rocm_wizard_venv_become_exe | default('su' if (rocm_wizard_venv_become_method"
                    " | default('sudo')) is search('(^|[.])su$') else 'sudo') }}")
OWNER_RUN_ARGV = ["/usr/bin/python3", "-I", "-S", "-c", "{{ rw_owner_run_py }}", "--"]
# File modules that, under --diff, return the file's whole content to the controller (lineinfile and
# blockinfile with no bound at all; copy and template up to the controller's max_file_size_for_diff):
# run as the owner on the owner's files, they carry ``diff: false`` (closing note of issue 27: an
# owner's 1 GiB bin/activate went whole into ansible-playbook's memory and onto its terminal).
OWNER_NO_DIFF = ("ansible.builtin.lineinfile", "ansible.builtin.blockinfile", "ansible.builtin.copy",
                 "ansible.builtin.template")


def _as_owner(task: Dict[str, Any]) -> None:
    """Make ``task`` one of the venv owner's (see :data:`OWNER_BECOME_EXE`)."""
    task["become"] = True
    task["become_user"] = "{{ rocm_wizard_venv_owner | default(rw_venv_owner_found) }}"
    task["become_method"] = OWNER_BECOME_METHOD
    task["become_exe"] = OWNER_BECOME_EXE
    if any(m in task for m in OWNER_NO_DIFF):
        task["diff"] = False
    cmd = task.get("ansible.builtin.command")
    if not isinstance(cmd, dict) or "argv" not in cmd:
        return
    argv = cmd["argv"]
    if isinstance(argv, list):
        cmd["argv"] = OWNER_RUN_ARGV + argv
    else:  # one Jinja expression giving the list
        expr = argv.strip()
        assert expr.startswith("{{") and expr.endswith("}}"), argv
        cmd["argv"] = "{{ ['/usr/bin/python3', '-I', '-S', '-c', rw_owner_run_py, '--'] + (" + expr[2:-2].strip() + ") }}"


# the AMD GPUs of a host as the fingerprint's "gpus" field sees them: the vendor, class and device
# files of every PCI device (read by `find`, no shell), joined in _gpu_tasks
GPU_FIND_ARGV = ["find", "-L", "/sys/bus/pci/devices", "-mindepth", "2", "-maxdepth", "2", "(", "-name", "vendor",
                 "-o", "-name", "class", "-o", "-name", "device", ")", "-exec", "grep", "-H", ".", "{}", "+"]


def _gpu_tasks() -> List[Dict[str, Any]]:
    """Refuse a host whose AMD display/compute devices (PCI device ids, sorted, joined by commas:
    the plan fingerprint's ``gpus`` field, as the script's ``rw_check_fingerprint`` reads it)
    are not the ones the plan was made for."""
    lines = "rw_host_pci.stdout_lines"
    amd = f"({lines} | select('match', '.*/vendor:0x1002$') | map('regex_replace', '/vendor:0x1002$', '') | list)"
    gpu = f"({lines} | select('match', '.*/class:0x(03|12)') | map('regex_replace', '/class:.*$', '') | list)"
    ids = f"dict({lines} | select('match', '.*/device:0x') | map('regex_replace', '/device:0x', ' ') | map('split') | list)"
    return [
        {"name": "Read the PCI devices of this host (reads only; runs in --check too)",
         "ansible.builtin.command": {"argv": "{{ rw_gpu_find_argv }}"},
         "register": "rw_host_pci", "changed_when": False, "failed_when": False, "check_mode": False},
        {"name": "Note the AMD GPUs of this host", "ansible.builtin.set_fact": {
            "rw_host_gpus": "{{ " + amd + " | intersect(" + gpu + ") | map('extract', " + ids
                            + ") | unique | sort | join(',') }}"}},
        {"name": "Refuse hosts whose AMD GPUs are not the ones the plan was made for", "ansible.builtin.assert": {
            "that": ["rw_host_gpus | string in rw_plan_gpus | map('string') | list"],
            "fail_msg": "this host's AMD GPUs (PCI device ids: {{ rw_host_gpus or 'none found' }}) are not the ones "
                        "the plan was made for ({{ rw_plan_gpus | first }}): the ROCm release, driver and wheels were "
                        "chosen for those; make a plan for this host"}},
    ]


def render_ansible(plan: Plan) -> str:
    fp = plan.fingerprint
    # -e rocm_wizard_reboot=true turns rebooting on; the hosts then go one at a time unless
    # -e rocm_wizard_serial says otherwise (play variables: `serial` is decided before any host's)
    reboots = any(s.kind == "reboot-flag" for s in plan.steps)
    variables: Dict[str, Any] = {"rocm_wizard_reboot": False,
                                 "rocm_wizard_serial": "{{ 1 if rocm_wizard_reboot | bool else '20%' }}"} \
        if reboots else {"rocm_wizard_serial": "20%"}
    users = [plan.inputs["user"]] if plan.inputs.get("user") else []
    variables["rocm_wizard_default_gpu_users"] = _unsafe(users)
    os_value = (fp.fields.get("os") or [""])[0]
    os_id, _, os_version = os_value.partition(" ")
    variables["rw_plan_os_id"] = Unsafe(os_id)
    variables["rw_plan_os_version"] = Unsafe(os_version)
    gpus = fp.fields.get("gpus") or []
    if gpus:
        variables["rw_plan_gpus"] = _unsafe(list(gpus))
        variables["rw_gpu_find_argv"] = _unsafe(GPU_FIND_ARGV)
    tasks_by_step: Dict[str, List[Dict[str, Any]]] = {}
    handlers: List[Dict[str, Any]] = []
    for step in plan.steps:
        for k, v in step.ansible_vars().items():
            variables[k] = _unsafe(v)
        tasks_by_step[step.id] = [dict(t) for t in step.render_ansible()]
        for h in step.ansible_handlers():
            if all(h["name"] != x["name"] for x in handlers):
                handlers.append(h)
    _wire_handlers(plan, tasks_by_step)
    venv_kinds = ("venv", "venv-link", "pip-uninstall", "pip-install", "pip-restore", "env-persist", "pip-check",
                  "pip-guard", "wsl-hsa-remove")
    owner_tasks: List[Dict[str, Any]] = []
    if any(s.kind in venv_kinds for s in plan.steps):
        variables["rw_venv_owner_path"] = Unsafe(str(plan.inputs.get("venv") or "/"))
        from ..ownerrule import source

        variables["rw_owner_rule_py"] = Unsafe(source())
        from ..ownerrun import source as run_source

        variables["rw_owner_run_py"] = Unsafe(run_source())
        owner_tasks = _venv_owner_tasks()
        for step in plan.steps:
            if step.kind not in venv_kinds:
                continue
            for task in tasks_by_step[step.id]:
                if "ansible.builtin.debug" in task:
                    continue
                _as_owner(task)
    tasks: List[Dict[str, Any]] = [{
        "name": "Use the GPU users of this host",
        "ansible.builtin.set_fact": {
            "rocm_wizard_gpu_users": "{{ rocm_wizard_gpu_users | default(rocm_wizard_default_gpu_users) }}"}}]
    tasks += owner_tasks
    for step in plan.steps:
        tasks += tasks_by_step[step.id]
    pre_tasks: List[Dict[str, Any]] = []
    if os_id:
        # ID and VERSION_ID of /etc/os-release, as the fingerprint has them (Ansible's own
        # "distribution" fact names Pop!_OS or Linux Mint otherwise); strings on both sides
        text = "(rw_os_release.content | b64decode)"
        pre_tasks += [
            {"name": "Read /etc/os-release (reads only; runs in --check too)", "ansible.builtin.slurp": {
                "src": "/etc/os-release"}, "register": "rw_os_release"},
            {"name": "Refuse hosts that run another system than the plan was made for",
             "ansible.builtin.assert": {
                 "that": [f"{text} | regex_findall('^ID=[\"\\']?([^\"\\'\\n]*)', multiline=True) | first "
                          "| default('') | lower == rw_plan_os_id | string",
                          f"{text} | regex_findall('^VERSION_ID=[\"\\']?([^\"\\'\\n]*)', multiline=True) "
                          "| first | default('') == rw_plan_os_version | string"],
                 "fail_msg": "this plan was made for another distribution or release: make a plan for this host",
             }}]
    if gpus:
        pre_tasks += _gpu_tasks()
    play: Dict[str, Any] = {
        "name": f"Rocm-wizard {plan.path} plan {plan.plan_id}",
        "hosts": "all",
        "become": True,
        "serial": "{{ rocm_wizard_serial }}",
        "max_fail_percentage": 0,
    }
    play.update(_fact_gathering(pre_tasks + tasks + handlers))
    play["vars"] = variables
    if pre_tasks:
        play["pre_tasks"] = pre_tasks
    play["tasks"] = tasks
    if handlers:
        play["handlers"] = handlers
    header = [
        f"rocm-wizard plan: {plan.title}",
        f"path: {plan.path}   plan id: {plan.plan_id}   format: {plan.version}   rocm-wizard {plan.tool_version}",
        f"made for: {plan.system.get('summary', '')}",
        f"system fingerprint: {fp.digest}",
        "",
        "Run:   ansible-playbook -i INVENTORY THIS-FILE   (add --check --diff to see what would change)",
        "Per host: rocm_wizard_gpu_users (the users who get GPU access; they must have accounts: none is",
        "created), rocm_wizard_venv_owner (the user the venv tasks run as; default: the owner of the venv directory).",
    ]
    if owner_tasks:
        header += [
            "The venv tasks become its owner with `setsid -w sudo` (no terminal of the controller's; "
            "rocm_wizard_venv_become_exe",
            "names another sudo; rocm_wizard_venv_become_method=ansible.builtin.su where sudo is missing or requires a",
            "tty), and the owner's commands run with a minimal environment and bounded output.",
        ]
    header += [
        "For the play (-e): rocm_wizard_reboot (default false: hosts whose kernel driver changed are only told to",
        "reboot; true: they reboot at the end, one host at a time), rocm_wizard_serial (hosts per batch; default 1",
        "when rebooting, else 20%).",
    ] if reboots else ["For the play (-e): rocm_wizard_serial (hosts per batch; default 20%)."]
    header += [
        "--check changes nothing: only tasks that read run for real (the signing key is downloaded and checked in a",
        "temporary directory); where the package lists would first be refreshed from new repositories, the package",
        "tasks are not checked and the play says so.",
        "Hosts whose distribution, release or AMD GPUs differ from the ones the plan was made for are refused.",
    ]
    for s in plan.steps:
        header.append(f"Step {s.index}: {s.title}")
        if s.why:
            header.append(f"  why: {s.why}")
    header += [f"Note: {n}" for n in plan.notes]
    return to_yaml([play], header)
