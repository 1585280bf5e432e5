"""dnf steps (RHEL, Rocky, AlmaLinux, Oracle Linux with AMD's repositories; Fedora with its own).

* :class:`DnfInstall` (kind ``dnf-install``): packages at a release's version (``name`` plus a
  version prefix ending in ``*``), or by what they provide (``kernel-devel-uname-r = $(uname -r)``),
  or whatever the enabled repositories hold (Fedora).  Before it installs, ``dnf --assumeno``
  shows the transaction: packages dnf would remove stop the step unless they are ROCm's own
  (``related``) or removals were allowed; after it, the installed version is checked again, so a
  package from another repository never passes for the planned one.
"""
from __future__ import annotations

import fnmatch
from typing import Any, Dict, List, Optional, Tuple

from ..context import StepError
from ..core import CHANGE, CHANGED, FAILED, OK, UNKNOWN, CheckResult, Description, PackageChange, Result, Step
from ..shellquote import q
from ._util import SAFE_PATTERN, SAFE_PKG, SAFE_VERSION, shell_array, version_matches
from .files import REBOOT_HANDLER
from .rpmcommon import rpm_query

import re

_EQUALS = re.compile(r"^[A-Za-z0-9._+~:-]+$")
DNF_OPTS = ["-y", "--setopt=install_weak_deps=False"]
_ARCHES = {"x86_64", "noarch", "i686", "aarch64", "ppc64le", "s390x", "src"}


def dnf_removals(output: str) -> List[str]:
    """The packages a ``dnf install``/``--assumeno`` transaction table says it would remove
    (sections ``Removing:``, ``Removing dependent packages:``, ``Removing unused dependencies:``,
    ``Erasing:``, and the ``replacing NAME.ARCH VERSION`` lines of packages another one obsoletes;
    ``Downgrading`` is not a removal)."""
    out: List[str] = []
    section = ""
    for line in (output or "").splitlines():
        if line and not line[0].isspace():
            section = line.strip().rstrip(":").lower() if line.rstrip().endswith(":") else ""
            continue
        words = line.split()
        if len(words) >= 2 and words[0] == "replacing":  # an obsoleted package, under Installing/Upgrading
            name = words[1].rsplit(".", 1)[0] if "." in words[1] else words[1]
            if name not in out:
                out.append(name)
            continue
        if not section.startswith(("removing", "erasing")):
            continue
        if not words or words[0] in _ARCHES or words[0].startswith(("=", "-")):
            continue
        if len(words) in (1,) or len(words) >= 5:
            if words[0] not in out:
                out.append(words[0])
    return out


def _spec(pkg: Dict[str, str]) -> str:
    if pkg.get("provides"):
        return f"{pkg['provides']} = {pkg['equals']}"
    ver = pkg.get("version") or ""
    return f"{pkg['name']}-{ver}" if ver else pkg["name"]


class DnfInstall(Step):
    kind = "dnf-install"
    required = ("packages",)
    defaults = {"related": [], "allow_removals": False, "notify_reboot": False, "refresh": True}

    def validate(self) -> None:
        pkgs = self.params["packages"]
        if not isinstance(pkgs, list) or not pkgs:
            raise ValueError("dnf-install needs a list of packages")
        for p in pkgs:
            if not isinstance(p, dict):
                raise ValueError("each package is a table with name (and version) or provides/equals")
            if p.get("provides"):
                if not SAFE_PKG.match(str(p["provides"])) or not _EQUALS.match(str(p.get("equals") or "")) \
                        or not p.get("equals"):
                    raise ValueError(f"provides {p.get('provides')!r} = {p.get('equals')!r} is not valid")
                continue
            if not SAFE_PKG.match(str(p.get("name") or "")):
                raise ValueError(f"package name {p.get('name')!r} is not valid")
            ver = str(p.get("version") or "")
            if ver and (not ver.endswith("*") or not SAFE_VERSION.match(ver[:-1])):
                raise ValueError(f"version {ver!r} of {p['name']} must be a version prefix ending in '*'")
        for pat in self.params["related"]:
            if not SAFE_PATTERN.match(str(pat)):
                raise ValueError(f"package pattern {pat!r} is not valid")

    # ------------------------------------------------------------ what is installed
    def _installed(self, ctx, pkg: Dict[str, str]) -> Tuple[Optional[bool], str]:
        """(satisfied?, what is there) for one package; None when rpm cannot say."""
        if pkg.get("provides"):
            # rpm -q --whatprovides takes a capability's name only ("NAME = VERSION" is read as a name):
            # the providers' own Provides lines say whether one provides that exact version
            rc, out = rpm_query(ctx, "--whatprovides", pkg["provides"], "--provides")
            if rc is None:
                return None, ""
            found = rc == 0 and _spec(pkg) in [ln.strip() for ln in out.splitlines()]
            return found, _spec(pkg) if found else "(not installed)"
        rc, out = rpm_query(ctx, pkg["name"], "--qf", "%{VERSION}-%{RELEASE}\n")
        if rc is None:
            return None, ""
        have = [v for v in out.split() if v] if rc == 0 else []
        if not have:
            return False, "(not installed)"
        want = pkg.get("version") or ""
        return (any(version_matches(v, want) for v in have) if want else True), " ".join(have)

    def _pending(self, ctx) -> Tuple[Optional[List[Dict[str, str]]], List[str]]:
        missing, seen = [], []
        for pkg in self.params["packages"]:
            ok, have = self._installed(ctx, pkg)
            if ok is None:
                return None, []
            seen.append(f"{_spec(pkg)}: {have}")
            if not ok:
                missing.append(pkg)
        return missing, seen

    def check(self, state) -> CheckResult:
        if not state.ctx.commands:
            return CheckResult(UNKNOWN, "the installed rpm packages are not known from a snapshot")
        if any(state.packages.get(_spec(p)) for p in self.params["packages"]):
            return CheckResult(CHANGE, "planned by an earlier step")
        missing, seen = self._pending(state.ctx)
        if missing is None:
            return CheckResult(UNKNOWN, "rpm cannot be run to see the installed packages")
        if not missing:
            return CheckResult(OK, "installed: " + "; ".join(seen))
        return CheckResult(CHANGE, "to install: " + ", ".join(_spec(p) for p in missing))

    def project(self, state) -> None:
        for p in self.params["packages"]:
            state.set_package(_spec(p), p.get("version") or "*", self.id)

    def describe(self, state) -> Description:
        specs = [_spec(p) for p in self.params["packages"]]
        pkgs = []
        for p in self.params["packages"]:
            before = None
            if state.ctx.commands:
                ok, have = self._installed(state.ctx, p)
                before = have if ok is not None and have != "(not installed)" else None
            pkgs.append(PackageChange(p.get("name") or _spec(p), before, p.get("version") or "(the repositories' newest)"))
        actions = [f"dnf install {' '.join(specs)}",
                   "first `dnf --assumeno install` shows the transaction: a removal of anything but ROCm's own packages "
                   + ("is allowed (--allow-apt-removals)" if self.params["allow_removals"] else "stops the step")]
        if self.params["notify_reboot"]:
            actions.append("a new kernel driver needs a reboot")
        return Description(self.title, actions, packages=pkgs,
                           commands=[["dnf", *DNF_OPTS, "install", *specs]])

    # ------------------------------------------------------------ apply
    def _unrelated(self, names: List[str]) -> List[str]:
        return [n for n in names if not any(fnmatch.fnmatchcase(n, pat) for pat in self.params["related"])]

    def apply(self, ctx) -> Result:
        missing, _seen = self._pending(ctx)
        if missing is None:
            return Result(FAILED, "rpm cannot be run to see the installed packages")
        if not missing:
            return Result(OK, "already installed")
        specs = [_spec(p) for p in missing]
        refresh = ["--refresh"] if self.params["refresh"] else []
        preview = ctx.run(["dnf", *refresh, "--assumeno", "--setopt=install_weak_deps=False", "install", *specs])
        if preview.error:
            return Result(FAILED, preview.error)
        text = (preview.stdout or "") + "\n" + (preview.stderr or "")
        if "Operation aborted" not in text and preview.rc != 0 or "Error:" in text:
            tail = " | ".join(text.strip().splitlines()[-5:])
            return Result(FAILED, f"dnf cannot resolve {' '.join(specs)}: {tail}")
        removals = dnf_removals(preview.stdout or "")
        other = self._unrelated(removals)
        if other and not self.params["allow_removals"]:
            return Result(FAILED, f"dnf would remove {', '.join(other)} to install {' '.join(specs)}; nothing was "
                                  "changed. Allow it with --allow-apt-removals (answers: allow_apt_removals = true) "
                                  "after reading that list")
        try:
            ctx.check_call(["dnf", *DNF_OPTS, "install", *specs])
        except StepError as exc:
            return Result(FAILED, str(exc))
        still, seen = self._pending(ctx)
        if still:
            return Result(FAILED, "after dnf install, still not the planned packages: " + "; ".join(seen))
        return Result(CHANGED, "installed " + ", ".join(specs) + (f" (removed {', '.join(removals)})" if removals else ""))

    # ------------------------------------------------------------ shell
    def render_shell_body(self) -> List[str]:
        p = self.params
        rows = []
        for pkg in p["packages"]:
            if pkg.get("provides"):
                rows.append(f"provides\t{pkg['provides']}\t{pkg['equals']}")
            else:
                rows.append(f"name\t{pkg['name']}\t{pkg.get('version') or ''}")
        refresh = "--refresh" if p["refresh"] else ""
        return [
            shell_array("rows", rows),
            shell_array("related", p["related"]),
            "local -a specs=()",
            "local row kind what want have ok name removals unasked='' pat",
            "# the versions and ROCm's package names are glob patterns: == matches them unquoted",
            "# shellcheck disable=SC2053",
            'for row in "${rows[@]}"; do',
            "  IFS=$'\\t' read -r kind what want <<<\"$row\"",
            "  ok=0",
            '  if [[ $kind == provides ]]; then',
            "    # rpm -q --whatprovides takes a name only: the providers' Provides lines say the version",
            '    if rpm -q --whatprovides "$what" --provides 2>/dev/null | grep -qxF -- "$what = $want"; then ok=1; fi',
            '    if [[ $ok == 0 ]]; then specs+=("$what = $want"); fi',
            "  else",
            "    for have in $(rpm -q \"$what\" --qf '%{VERSION}-%{RELEASE}\\n' 2>/dev/null || true); do",
            '      if [[ -z $want || $have == $want ]]; then ok=1; fi',
            "    done",
            '    if [[ $ok == 0 ]]; then if [[ -n $want ]]; then specs+=("$what-$want"); else specs+=("$what"); fi; fi',
            "  fi",
            "done",
            'if [[ ${#specs[@]} == 0 ]]; then',
            '  rw_ok "installed"',
            "  return 0",
            "fi",
            "rw_need_root",
            "if [[ $DRY_RUN == 1 ]]; then",
            '  rw_would "dnf install ${specs[*]}"',
            f"  rw_mark {q(self.id)}",
            "  return 0",
            "fi",
            "# the transaction first, changing nothing: what would dnf remove?",
            f"removals=$(dnf {refresh} --assumeno --setopt=install_weak_deps=False install \"${{specs[@]}}\" 2>&1 \\",
            "  | awk '/^[^ ].*:$/ {s=tolower($0); next} $1 == \"replacing\" {n=$2; sub(/\\.[^.]*$/, \"\", n); print n; next}"
            " s ~ /^(removing|erasing)/ && NF >= 5 {print $1}' || true)",
            "# shellcheck disable=SC2053",
            "for name in $removals; do",
            '  ok=0; for pat in "${related[@]}"; do if [[ $name == $pat ]]; then ok=1; fi; done',
            '  if [[ $ok == 0 ]]; then unasked+=" $name"; fi',
            "done",
        ] + ([] if p["allow_removals"] else [
            'if [[ -n $unasked ]]; then',
            '  rw_die "dnf would remove$unasked to install ${specs[*]}; nothing was changed (plan again with '
            '--allow-apt-removals after reading that list)"',
            "fi",
        ]) + [
            f'dnf {" ".join(DNF_OPTS)} install "${{specs[@]}}"',
            "# shellcheck disable=SC2053",
            'for row in "${rows[@]}"; do',
            "  IFS=$'\\t' read -r kind what want <<<\"$row\"",
            '  if [[ $kind == provides ]]; then rpm -q --whatprovides "$what" --provides 2>/dev/null | grep -qxF -- '
            '"$what = $want" || rw_die "after dnf install, nothing provides $what = $want"; continue; fi',
            "  ok=0",
            "  for have in $(rpm -q \"$what\" --qf '%{VERSION}-%{RELEASE}\\n' 2>/dev/null || true); do",
            '    if [[ -z $want || $have == $want ]]; then ok=1; fi',
            "  done",
            '  if [[ $ok == 0 ]]; then rw_die "after dnf install, $what is not at ${want:-any version} (another repository won?)"; fi',
            "done",
            f"rw_mark {q(self.id)}",
        ]

    # ------------------------------------------------------------ Ansible
    def ansible_vars(self) -> Dict[str, Any]:
        return {self.var("specs"): [_spec(p) for p in self.params["packages"]],
                self.var("related"): list(self.params["related"])}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        preview = self.var("preview")
        specs = self.var("specs")
        tasks: List[Dict[str, Any]] = [
            {"name": f"{n}: show the transaction, changing nothing (runs in --check too)", "ansible.builtin.command":
                {"argv": ["dnf", "--assumeno", "--setopt=install_weak_deps=False", "install", "{{ item }}"]},
             "loop": "{{ " + specs + " }}", "register": preview + "_items", "changed_when": False,
             "failed_when": False, "check_mode": False},
        ]
        if not self.params["allow_removals"]:
            tasks.append({"name": f"{n}: dnf must remove nothing but ROCm's own packages", "ansible.builtin.assert": {
                "that": ["(" + preview + "_items.results | map(attribute='stdout') | join('\\n') "
                         "| regex_findall('(?m)^Removing[^\\n]*:\\n((?: [^\\n]*\\n)+)') | length) == 0"],
                "fail_msg": "dnf would remove packages to install these (the playbook allows no removal, not even "
                            "of ROCm's own packages); nothing was changed: read the transaction, or plan again with "
                            "--allow-apt-removals"}})
        args: Dict[str, Any] = {"name": "{{ " + specs + " }}", "state": "present", "install_weak_deps": False,
                                "update_cache": bool(self.params["refresh"])}
        unresolved = ("(" + preview + "_items.results | map(attribute='stderr') | select('search', "
                      "'(Error|No match|Unable to find)') | list | length > 0)")
        tasks.append({"name": f"{n}: say what --check cannot predict", "ansible.builtin.debug": {
            "msg": "--check: dnf cannot resolve these packages before the repositories of the earlier steps are "
                   "written; the install is not checked in this run"},
            "when": "ansible_check_mode and " + unresolved})
        task: Dict[str, Any] = {"name": f"{n}: install", "ansible.builtin.dnf": args,
                                "when": "not (ansible_check_mode and " + unresolved + ")"}
        if self.params["notify_reboot"]:
            task["notify"] = [REBOOT_HANDLER]
        tasks.append(task)
        return tasks
