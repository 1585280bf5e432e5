"""Removing the legacy ROCm packages on an rpm host before the Core SDK is installed (AMD's transition
guide), the rpm side of :class:`~rocm_wizard.plan.steps.coresdk.AptRemove` (issue 26).

:class:`RpmRemove` (kind ``rpm-remove``): the installed packages whose names match ``patterns``,
exactly those, are named in the plan before anything happens.  ``rpm -e --test`` on that list is
read first: when any other installed package needs one of them, nothing is removed and the step
names those packages.  Then dnf (``remove --noautoremove``: no "unused dependency" goes with them)
or zypper (``remove``, which takes no dependency unasked) removes exactly the list.
"""
from __future__ import annotations

import fnmatch
import re
from typing import Any, Dict, List

from ..context import StepError
from ..core import CHANGE, CHANGED, FAILED, OK, UNKNOWN, CheckResult, Description, Result, Step
from ..shellquote import q
from ._util import describe_legacy_removal, shell_array

_GLOB = re.compile(r"^[a-z0-9][a-z0-9.+*-]*$")
# rpm -e --test: "\tNAME is needed by (installed) OTHER-VERSION-RELEASE.ARCH"
_NEEDED = re.compile(r"is needed by \(installed\) (\S+)")
MANAGERS = {
    "dnf": ["dnf", "-y", "remove", "--noautoremove"],
    "zypper": ["zypper", "--non-interactive", "remove"],
}


def needed_by(text: str) -> List[str]:
    """The installed packages ``rpm -e --test`` says need one of the packages (NAME-VERSION-RELEASE.ARCH
    as rpm writes them), in order, once each."""
    return list(dict.fromkeys(_NEEDED.findall(text or "")))


def _rpm_names(ctx):
    """Installed package names (a set), None when rpm cannot be asked."""
    if not getattr(ctx, "commands", True):
        return None
    res = ctx.run(["rpm", "-qa", "--qf", "%{NAME}\\n"], timeout=300)
    if res.error or res.rc != 0:
        return None
    return {n.strip() for n in (res.stdout or "").splitlines() if n.strip()}


class RpmRemove(Step):
    kind = "rpm-remove"
    required = ("patterns", "manager")
    defaults = {"reason": ""}

    def validate(self) -> None:
        pats = self.params["patterns"]
        if not isinstance(pats, list) or not pats or not all(isinstance(p, str) and _GLOB.match(p) for p in pats):
            raise ValueError("rpm-remove needs a list of package name patterns (letters, digits, . + - and *)")
        if self.params["manager"] not in MANAGERS:
            raise ValueError(f"rpm-remove: manager must be one of {', '.join(MANAGERS)}")

    def targets(self, installed) -> List[str]:
        return sorted(n for n in installed if any(fnmatch.fnmatchcase(n, p) for p in self.params["patterns"]))

    def _installed(self, state):
        names = _rpm_names(state.ctx) if state.ctx.commands else None
        if names is None:
            rocm = getattr(state.system, "rocm", None) if state.system is not None else None
            if rocm is None or not (getattr(rocm, "packages", None)):
                return None
            names = set(rocm.packages)
        for name, ver in state.packages.items():
            if ver:
                names.add(name)
            else:
                names.discard(name)
        return names

    def check(self, state) -> CheckResult:
        installed = self._installed(state)
        if installed is None:
            return CheckResult(UNKNOWN, "the installed packages are not known; any matching "
                               + " ".join(self.params["patterns"]) + " is removed at run time")
        todo = self.targets(installed)
        if not todo:
            return CheckResult(OK, "no legacy ROCm package is installed")
        return CheckResult(CHANGE, "remove " + ", ".join(todo))

    def project(self, state) -> None:
        installed = self._installed(state)
        for name in self.targets(installed) if installed is not None else []:
            state.set_package(name, "", self.id)

    def describe(self, state) -> Description:
        installed = self._installed(state)
        return describe_legacy_removal(
            self, None if installed is None else self.targets(installed),
            "`rpm -e --test` is read first: if another installed package needs one of them, nothing is removed",
            lambda name: "installed", MANAGERS[self.params["manager"]])

    def apply(self, ctx) -> Result:
        names = _rpm_names(ctx)
        if names is None:
            return Result(FAILED, "rpm cannot be asked for the installed packages")
        todo = self.targets(names)
        if not todo:
            return Result(OK, "no legacy ROCm package is installed")
        test = ctx.run(["rpm", "-e", "--test", *todo], timeout=600)
        if test.error:
            return Result(FAILED, f"rpm -e --test failed: {test.error}")
        if test.rc != 0:
            other = needed_by((test.stdout or "") + "\n" + (test.stderr or ""))
            detail = ", ".join(other) if other else (test.stderr or test.stdout or "").strip()[-400:]
            return Result(FAILED, f"removing {' '.join(todo)} would break {detail} (it needs them); nothing was "
                                  "removed: remove or keep those by hand, then run again")
        try:
            ctx.check_call(MANAGERS[self.params["manager"]] + todo, timeout=3600)
        except StepError as exc:
            return Result(FAILED, str(exc))
        left = self.targets(_rpm_names(ctx) or set())
        if left:
            return Result(FAILED, "still installed after the removal: " + " ".join(left))
        return Result(CHANGED, "removed " + " ".join(todo))

    def render_shell_body(self) -> List[str]:
        argv = " ".join(q(a) for a in MANAGERS[self.params["manager"]])
        return [
            shell_array("patterns", self.params["patterns"]),
            "local -a todo=()",
            "local name p out",
            "while read -r name; do",
            '  for p in "${patterns[@]}"; do',
            '    # shellcheck disable=SC2053',
            '    if [[ $name == $p ]]; then todo+=("$name"); break; fi',
            "  done",
            "done < <(rpm -qa --qf '%{NAME}\\n' | sort -u)",
            'if [[ ${#todo[@]} -eq 0 ]]; then',
            "  rw_ok 'no legacy ROCm package is installed'",
            "  return 0",
            "fi",
            'rw_say "    removes: ${todo[*]}"',
            "rw_need_root",
            'if ! out=$(rpm -e --test "${todo[@]}" 2>&1); then',
            '  rw_die "removing ${todo[*]} would break what needs them; nothing was removed: $(printf \'%s\\n\' '
            '"$out" | sed -n \'s/.*is needed by (installed) //p\' | sort -u | tr \'\\n\' \' \')"',
            "fi",
            f'rw_run {argv} "${{todo[@]}}"',
            "if [[ $DRY_RUN != 1 ]]; then",
            "  while read -r name; do",
            '    for p in "${todo[@]}"; do if [[ $p == "$name" ]]; then rw_die "$name is still installed"; fi; done',
            "  done < <(rpm -qa --qf '%{NAME}\\n')",
            "fi",
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        regex = "^(" + "|".join(fnmatch.translate(g).replace("(?s:", "(?:") for g in self.params["patterns"]) + ")$"
        return {self.var("patterns"): list(self.params["patterns"]), self.var("regex"): regex,
                self.var("argv"): list(MANAGERS[self.params["manager"]])}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        names = self.var("names")
        found = self.var("installed")
        test = self.var("test")
        return [
            {"name": f"{n}: show the packages removed", "ansible.builtin.debug": {
                "msg": "removes every installed package matching {{ " + self.var("patterns") + " | join(' ') }}"}},
            {"name": f"{n}: read the installed packages (reads only)", "ansible.builtin.command": {
                "argv": ["rpm", "-qa", "--qf", "%{NAME}\\n"]},
             "register": names, "changed_when": False, "check_mode": False},
            {"name": f"{n}: note the installed packages that match", "ansible.builtin.set_fact": {
                found: "{{ " + names + ".stdout_lines | select('match', " + self.var("regex") + ") | unique | sort "
                       "| list }}"}},
            {"name": f"{n}: nothing else may need them (rpm -e --test, changes nothing)", "ansible.builtin.command": {
                "argv": "{{ ['rpm', '-e', '--test'] + " + found + " }}"},
             "register": test, "changed_when": False, "failed_when": False, "check_mode": False,
             "when": found + " | length > 0"},
            {"name": f"{n}: stop when another package needs them", "ansible.builtin.fail": {
                "msg": "removing {{ " + found + " | join(' ') }} would break what needs them; nothing was removed: "
                       "{{ " + test + ".stderr }}"},
             "when": found + " | length > 0 and " + test + ".rc != 0"},
            {"name": f"{n}: remove them", "ansible.builtin.command": {
                "argv": "{{ " + self.var("argv") + " + " + found + " }}"},
             "changed_when": True, "when": found + " | length > 0"},
        ]
