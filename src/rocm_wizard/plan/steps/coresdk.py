"""Steps of the ROCm Core SDK upgrade that the legacy path has no use for: removing the legacy
``rocm-*`` packages first (AMD's transition guide), every one of them named before it goes, and
checking that the ``core`` alternative (``/opt/rocm/core``) points at the release installed."""
from __future__ import annotations

import fnmatch
import re
from typing import Any, Dict, List, Optional

from ..context import StepError
from ..core import CHANGE, CHANGED, FAILED, OK, UNKNOWN, CheckResult, Description, Result, Step
from ..shellquote import q
from ..state import UNKNOWN as UNK
from ._util import J, SAFE_PKG, check_abs_path, describe_legacy_removal, rooted, shell_array

_GLOB = re.compile(r"^[a-z0-9][a-z0-9.+*-]*$")
_REMV = re.compile(r"^Remv (\S+)", re.M)


def _installed(state) -> Any:
    """name -> version of the installed packages after the earlier steps; UNK when not known."""
    if state.ctx.filesystem:
        status = state._dpkg_status()
        if status is None:
            return UNK
        out = dict(status)
    else:
        rocm = getattr(state.system, "rocm", None) if state.system is not None else None
        if rocm is None or not ("packages" in (rocm.sources or []) or rocm.packages):
            return UNK
        out = dict(rocm.packages)
    for name, ver in state.packages.items():
        if ver:
            out[name] = ver
        else:
            out.pop(name, None)
    return out


class AptRemove(Step):
    """Remove the installed packages whose names match ``patterns`` (globs), exactly those: the list
    is in the plan's description, JSON and script before anything happens, and apt's own simulation
    is read first; when apt would take any other package with them, nothing is removed."""

    kind = "apt-remove"
    uses_dpkg = True
    required = ("patterns",)
    defaults = {"reason": ""}

    def validate(self) -> None:
        pats = self.params["patterns"]
        if not isinstance(pats, list) or not pats or not all(isinstance(p, str) and _GLOB.match(p) for p in pats):
            raise ValueError("apt-remove needs a list of package name patterns (letters, digits, . + - and *)")

    def targets(self, installed: Dict[str, str]) -> List[str]:
        return sorted(n for n in installed if any(fnmatch.fnmatchcase(n, p) for p in self.params["patterns"]))

    def check(self, state) -> CheckResult:
        installed = _installed(state)
        if installed is UNK:
            return CheckResult(UNKNOWN, "the installed packages are not known; any matching "
                               + " ".join(self.params["patterns"]) + " is removed at run time")
        todo = self.targets(installed)
        if not todo:
            return CheckResult(OK, "no legacy ROCm package is installed")
        return CheckResult(CHANGE, "remove " + ", ".join(todo))

    def project(self, state) -> None:
        installed = _installed(state)
        for name in self.targets(installed) if installed is not UNK else []:
            state.set_package(name, "", self.id)

    def describe(self, state) -> Description:
        installed = _installed(state)
        return describe_legacy_removal(
            self, None if installed is UNK else self.targets(installed),
            "apt's simulation is read first: if it would remove any other package, nothing is removed",
            lambda name: installed[name], ["apt-get", "remove", "-y"])

    def apply(self, ctx) -> Result:
        from ..state import PlanState

        installed = _installed(PlanState(ctx))
        if installed is UNK:
            return Result(FAILED, "cannot read the dpkg status")
        todo = self.targets(installed)
        if not todo:
            return Result(OK, "no legacy ROCm package is installed")
        sim = ctx.run(["apt-get", "-s", "remove"] + todo, timeout=600)
        if sim.error or sim.rc != 0:
            return Result(FAILED, f"apt-get -s remove failed: {(sim.error or sim.stderr or sim.stdout).strip()[-400:]}")
        extra = sorted(set(_REMV.findall(sim.stdout)) - set(todo))
        if extra:
            return Result(FAILED, "apt would also remove " + ", ".join(extra) + " (they depend on the legacy packages); "
                                  "nothing was removed: remove or keep them by hand, then run again")
        try:
            ctx.check_call(["apt-get", "remove", "-y", "-o", "DPkg::Lock::Timeout=600"] + todo, timeout=3600)
        except StepError as exc:
            return Result(FAILED, str(exc))
        return Result(CHANGED, "removed " + " ".join(todo))

    def render_shell_body(self) -> List[str]:
        return [
            shell_array("patterns", self.params["patterns"]),
            "local -a todo=() extra=()",
            "local name st p",
            "while IFS='|' read -r st name; do",
            "  [[ $st == ii* ]] || continue",
            '  for p in "${patterns[@]}"; do',
            '    # shellcheck disable=SC2053',
            '    if [[ $name == $p ]]; then todo+=("$name"); break; fi',
            "  done",
            "done < <(dpkg-query --admindir=\"${RW_ROOT}/var/lib/dpkg\" -W -f='${db:Status-Abbrev}|${Package}\\n' "
            "2>/dev/null | sort)",
            'if [[ ${#todo[@]} -eq 0 ]]; then',
            "  rw_ok 'no legacy ROCm package is installed'",
            "  return 0",
            "fi",
            'rw_say "    removes: ${todo[*]}"',
            "rw_need_root",
            "while read -r _ name _; do",
            '  for p in "${todo[@]}" ""; do [[ $p == "$name" ]] && break; done',
            '  if [[ $p != "$name" ]]; then extra+=("$name"); fi',
            'done < <(rw_apt apt-get -s remove "${todo[@]}" 2>/dev/null | grep "^Remv ")',
            'if [[ ${#extra[@]} -gt 0 ]]; then',
            '  rw_die "apt would also remove ${extra[*]}; nothing was removed: remove or keep them by hand, then run '
            'this script again"',
            "fi",
            'rw_dpkg_run apt-get remove -y -o DPkg::Lock::Timeout=600 "${todo[@]}"',
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        import fnmatch

        # the patterns as one anchored regular expression over installed package names: apt's
        # "absent" with a pattern that matches nothing fails ("No package(s) matching ... available")
        regex = "^(" + "|".join(fnmatch.translate(g).replace("(?s:", "(?:") for g in self.params["patterns"]) + ")$"
        return {self.var("patterns"): list(self.params["patterns"]), self.var("regex"): regex}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        found = self.var("installed")
        return [
            {"name": f"{n}: show the packages removed", "ansible.builtin.debug": {
                "msg": "removes every installed package matching {{ " + self.var("patterns") + " | join(' ') }}"}},
            {"name": f"{n}: read the installed packages (reads only)", "ansible.builtin.package_facts": {
                "manager": "auto"}},
            {"name": f"{n}: note the installed packages that match", "ansible.builtin.set_fact": {
                found: "{{ ansible_facts.packages | default({}) | list | select('match', " + self.var("regex")
                       + ") | list }}"}},
            {"name": f"{n}: remove them", "ansible.builtin.apt": {
                "name": "{{ " + found + " }}", "state": "absent", "lock_timeout": 600},
             "when": found + " | length > 0"},
        ]


class Alternative(Step):
    """The ``update-alternatives`` link group ``name`` (``/opt/rocm/core``) points at ``path``
    (``/opt/rocm/core-10.0``), whose version file names the release: set it when another one is
    chosen (AMD's packages register every installed release; the newest wins by priority)."""

    kind = "alternative"
    required = ("name", "link", "path", "version_file", "version")

    def validate(self) -> None:
        for key in ("link", "path", "version_file"):
            check_abs_path(self.params[key], key)
        if not SAFE_PKG.match(self.params["name"]):
            raise ValueError(f"alternative name {self.params['name']!r} is not valid")

    def _state(self, ctx) -> Optional[str]:
        """Where the link leads now, as a path inside the root (None: nowhere)."""
        import os

        if not ctx.exists(self.params["link"]):
            return None
        real = os.path.realpath(ctx.p(self.params["link"]))
        root = ctx.p("/").rstrip("/")
        return (real[len(root):] or "/") if root and real.startswith(root + "/") else real

    def _version_ok(self, ctx) -> Optional[bool]:
        text = ctx.read_text(self.params["version_file"])
        if text is None:
            return None
        return text.strip().split("-")[0] == self.params["version"]

    def check(self, state) -> CheckResult:
        p = self.params
        ctx = state.ctx
        if not ctx.filesystem:
            return CheckResult(UNKNOWN, f"{p['link']}: checked on the machine (-> {p['path']})")
        here = self._state(ctx)
        if here == p["path"] and self._version_ok(ctx):
            return CheckResult(OK, f"{p['link']} -> {p['path']} ({p['version']})")
        if not ctx.exists(p["path"]):
            return CheckResult(CHANGE, f"{p['link']} is checked after the packages put {p['path']} in place")
        return CheckResult(CHANGE, f"{p['link']} leads to {here or 'nothing'}, not {p['path']}")

    def describe(self, state) -> Description:
        p = self.params
        return Description(self.title, [
            f"check that {p['link']} leads to {p['path']} and that {p['version_file']} says {p['version']}",
            f"if another release is chosen: update-alternatives --set {p['name']} {p['path']}"],
            commands=[["update-alternatives", "--set", p["name"], p["path"]]])

    def apply(self, ctx) -> Result:
        p = self.params
        if not ctx.exists(p["path"]):
            return Result(FAILED, f"{p['path']} does not exist: the packages did not install release {p['version']}")
        changed = False
        if self._state(ctx) != p["path"]:
            try:
                ctx.check_call(["update-alternatives", "--set", p["name"], p["path"]])
            except StepError as exc:
                return Result(FAILED, str(exc))
            changed = True
        if self._state(ctx) != p["path"]:
            return Result(FAILED, f"{p['link']} still does not lead to {p['path']}")
        if not self._version_ok(ctx):
            return Result(FAILED, f"{p['version_file']} does not say {p['version']}")
        return Result(CHANGED if changed else OK, f"{p['link']} -> {p['path']} ({p['version']})")

    def render_shell_body(self) -> List[str]:
        p = self.params
        return [
            f"local link={rooted(p['link'])} dest={q(p['path'])} vfile={rooted(p['version_file'])} "
            f"version={q(p['version'])} name={q(p['name'])} here v",
            'here=$(readlink -f -- "$link" 2>/dev/null || true); here=${here#"$RW_ROOT"}',
            'v=$(cat -- "$vfile" 2>/dev/null || true); v=${v%%-*}',
            'if [[ $here == "$dest" && $v == "$version" ]]; then',
            '  rw_ok "${link#"$RW_ROOT"} -> $dest ($version)"',
            "  return 0",
            "fi",
            "if [[ $DRY_RUN == 1 ]]; then",
            '  rw_would "check ${link#"$RW_ROOT"} -> $dest once the packages are installed"',
            f"  rw_mark {q(self.id)}",
            "  return 0",
            "fi",
            "rw_need_root",
            'if [[ ! -d $RW_ROOT$dest ]]; then rw_die "$dest does not exist: the packages did not install '
            '$version"; fi',
            'if [[ $here != "$dest" ]]; then rw_run update-alternatives --set "$name" "$dest"; fi',
            'here=$(readlink -f -- "$link" 2>/dev/null || true); here=${here#"$RW_ROOT"}',
            'v=$(cat -- "$vfile" 2>/dev/null || true); v=${v%%-*}',
            'if [[ $here != "$dest" || $v != "$version" ]]; then rw_die "${link#"$RW_ROOT"} leads to $here '
            '(version $v), not $dest ($version)"; fi',
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        p = self.params
        return {self.var("name"): p["name"], self.var("path"): p["path"], self.var("link"): p["link"]}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        here = self.var("here")
        return [
            {"name": f"{n}: where the link leads", "ansible.builtin.command": {
                "argv": ["readlink", "-f", J(self.var("link"))]},
             "register": here, "changed_when": False, "failed_when": False, "check_mode": False},
            {"name": f"{n}: choose the release", "ansible.builtin.command": {
                "argv": ["update-alternatives", "--set", J(self.var("name")), J(self.var("path"))]},
             "when": here + ".stdout != " + self.var("path") + " | string", "changed_when": True},
        ]
