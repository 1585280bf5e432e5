"""zypper steps (SUSE Linux Enterprise Server): the signing key for rpm, AMD's ``.repo`` files,
``zypper refresh`` and packages.

The same contract as the apt steps (check / project / describe / apply / shell / Ansible), and the
safe way rather than AMD's page: the key is downloaded, checked packet by packet against its
fingerprint (:func:`~rocm_wizard.plan.openpgp.minimal_keyring`, the apt key's rule), stored as that
key alone, and only then imported with ``rpm --import``; zypper never runs with
``--gpg-auto-import-keys`` or ``--no-gpg-checks``, so a repository or package signed by any other key
is refused by zypper itself.  The ``.repo`` files carry ``gpgcheck=1``, ``pkg_gpgcheck=1`` and a
``priority`` below the default 99 so SUSE's own ROCm packages never win; packages are installed with
``--from <alias>``.  What zypper would remove is read from a ``--dry-run`` first, and anything that
is not ROCm's stops the step unless removals were allowed.

The key step itself is the dnf hosts' (:class:`~rocm_wizard.plan.steps.rpmcommon.RpmKey`, here
under the kind ``zypper-key``), with rpm's queries in the same module.
"""
from __future__ import annotations

import os
import re
from fnmatch import fnmatchcase
from typing import Any, Dict, List, Optional, Tuple

from ..core import (CHANGE, CHANGED, FAILED, OK, UNKNOWN, CheckResult, Description, FileChange, PackageChange,
                    Result, Step, unified_diff)
from ..shellquote import q
from ..state import ABSENT, PRESENT
from ._util import J, SAFE_PATTERN, SAFE_PKG, check_abs_path, shell_array
from .rpmcommon import RpmKey, rpm_versions

REPOS_DIR = "/etc/zypp/repos.d/"
# sh -c: run the zypper dry run given as arguments and print the names it would remove, one a line
# (the block after "The following ... going to be REMOVED:"); its own failure fails the task
REMOVALS_SH = ('out=$("$@" 2>&1) || { printf "%s\\n" "$out" >&2; exit 1; }; '
               'printf "%s\\n" "$out" | awk \'/going to be REMOVED:/ {g=1; next} '
               'g && /^[[:space:]]*$/ {if (n) exit; next} g && /^The following/ {exit} '
               'g {for (i = 1; i <= NF; i++) {print $i; n++}}\'')
ZYPPER = ["zypper", "--non-interactive"]
SAFE_ALIAS = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:+-]{0,80}$")


# ------------------------------------------------------------------ zypper output
def zypper_removals(text: str) -> List[str]:
    """Package names a ``zypper install --dry-run`` says it would remove (the block after "The
    following N package(s) is/are going to be REMOVED:")."""
    out: List[str] = []
    grab = False
    for line in (text or "").splitlines():
        s = line.strip()
        if re.match(r"^The following (\d+ )?(NEW )?packages? (is|are) going to be REMOVED:", s):
            grab = True
            continue
        if grab:
            if not s:
                if out:
                    grab = False
                continue
            if s.startswith("The following") or s.endswith(":") or re.match(r"^\d+ packages? to", s):
                grab = False
                continue
            for name in s.split():
                if SAFE_PKG.match(name) and name not in out:
                    out.append(name)
    return out


def repo_file(alias: str, name: str, baseurl: str, key_file: str, priority: int, repo_gpgcheck: Optional[int],
              head: str = "") -> str:
    """One ``.repo`` file (INI) as zypper reads it."""
    lines = [head.rstrip("\n")] if head else []
    lines += [f"[{alias}]", f"name={name}", f"baseurl={baseurl}", "enabled=1", "autorefresh=0", "type=rpm-md",
              f"priority={priority}", "gpgcheck=1"]
    if repo_gpgcheck is not None:
        lines.append(f"repo_gpgcheck={repo_gpgcheck}")
    lines += ["pkg_gpgcheck=1", f"gpgkey=file://{key_file}"]
    return "\n".join(lines) + "\n"


def repo_sections(text: str) -> List[Tuple[str, Dict[str, str]]]:
    """[(alias, {key: value})] of a .repo file."""
    out: List[Tuple[str, Dict[str, str]]] = []
    cur: Optional[Dict[str, str]] = None
    for line in (text or "").splitlines():
        s = line.strip()
        if not s or s.startswith(("#", ";")):
            continue
        if s.startswith("[") and s.endswith("]"):
            cur = {}
            out.append((s[1:-1].strip(), cur))
        elif cur is not None and "=" in s:
            k, _, v = s.partition("=")
            cur[k.strip().lower()] = v.strip()
    return out


# ------------------------------------------------------------------ steps
class ZypperKey(RpmKey):
    """The checked key for zypper: :class:`~rocm_wizard.plan.steps.rpmcommon.RpmKey` under the kind
    zypper plans name."""

    kind = "zypper-key"
    manager_note = ("only after the check; zypper never imports keys itself here: no --gpg-auto-import-keys, "
                    "no --no-gpg-checks")


class ZypperRepos(Step):
    """Write AMD's ``.repo`` files whole; other ``.repo`` files under /etc/zypp/repos.d that point
    at AMD's repositories (``markers``) are backed up and removed, so only this release is set up."""

    kind = "zypper-repos"
    required = ("files", "markers")

    def validate(self) -> None:
        files = self.params["files"]
        if not isinstance(files, list) or not files:
            raise ValueError("zypper-repos needs a non-empty list of files")
        for f in files:
            path = str(check_abs_path(f.get("path"), "repository file path"))
            if not path.startswith(REPOS_DIR) or not path.endswith(".repo") or "/" in path[len(REPOS_DIR):]:
                raise ValueError(f"{path}: zypper repository files live in {REPOS_DIR} and end in .repo")
            if not isinstance(f.get("content"), str):
                raise ValueError(f"{path}: content must be text")
            for alias, values in repo_sections(f["content"]):
                if not SAFE_ALIAS.match(alias):
                    raise ValueError(f"{path}: repository alias {alias!r} is not allowed")
                if values.get("gpgcheck") != "1" or values.get("pkg_gpgcheck", "1") != "1":
                    raise ValueError(f"{path}: [{alias}] must check signatures (gpgcheck=1, pkg_gpgcheck=1)")
        if not all(isinstance(m, str) and m.startswith("//") for m in self.params["markers"]):
            raise ValueError("markers must look like //host/path")

    @property
    def managed(self) -> List[str]:
        return [f["path"] for f in self.params["files"]]

    def aliases(self) -> List[str]:
        return [a for f in self.params["files"] for a, _ in repo_sections(f["content"])]

    def _conflicts(self, state) -> Tuple[Optional[List[str]], List[str]]:
        """(other .repo files naming AMD's repositories, to be removed; problems)."""
        names = state.listdir(REPOS_DIR.rstrip("/"))
        if names is None:
            return None, []
        out, problems = [], []
        for name in sorted(names):
            path = REPOS_DIR + name
            if not name.endswith(".repo") or path in self.managed:
                continue
            view = state.file(path)
            if view.state != PRESENT:
                continue
            sections = repo_sections(view.text or "")
            amd = [a for a, v in sections if any(m in v.get("baseurl", "") for m in self.params["markers"])]
            if not amd:
                continue
            if len(amd) != len(sections):
                problems.append(f"{path} names AMD's repositories and others too: edit it by hand")
            out.append(path)
        return out, problems

    def check(self, state) -> CheckResult:
        details, unknown = [], False
        for f in self.params["files"]:
            view = state.file(f["path"])
            if view.state == ABSENT or (view.state == PRESENT and view.data != f["content"].encode()):
                details.append(f"{f['path']} will be written")
            elif view.state != PRESENT:
                unknown = True
                details.append(f"{f['path']}: not known")
        conflicts, problems = self._conflicts(state)
        if conflicts is None:
            unknown = True
            details.append("other repository files: not known")
        else:
            details += [f"{p}: names AMD's repositories, will be removed (backed up)" for p in conflicts]
        if problems:
            return CheckResult(UNKNOWN, "; ".join(details + problems))
        if any("will be" in d for d in details):
            return CheckResult(CHANGE, "; ".join(details))
        if unknown:
            return CheckResult(UNKNOWN, "; ".join(details))
        return CheckResult(OK, "the repository files are as planned and no other file names AMD's repositories")

    def project(self, state) -> None:
        conflicts, _ = self._conflicts(state)
        for path in conflicts or []:
            state.set_file(path, None, self.id)
        for f in self.params["files"]:
            state.set_file(f["path"], f["content"].encode(), self.id)

    def describe(self, state) -> Description:
        desc = Description(self.title)
        conflicts, problems = self._conflicts(state)
        for path in conflicts or []:
            before = state.file(path)
            desc.actions.append(f"back up {path}, then remove it (it names AMD's repositories)")
            desc.files.append(FileChange(path, "remove", unified_diff(path, before.data, None), note="backed up first"))
        if conflicts is None:
            desc.actions.append("remove any other repository file naming AMD's repositories (none known now)")
        desc.actions += problems
        for f in self.params["files"]:
            view = state.file(f["path"])
            new = f["content"].encode()
            if view.state == PRESENT and view.data == new:
                continue
            desc.actions.append(f"write {f['path']} whole" + (" (backing up the old one)" if view.state == PRESENT else ""))
            desc.files.append(FileChange(f["path"], "write", unified_diff(
                f["path"], view.data if view.state == PRESENT else None, new),
                "replaced whole, old file backed up" if view.state == PRESENT else ""))
        return desc

    def apply(self, ctx) -> Result:
        from ..state import PlanState

        conflicts, problems = self._conflicts(PlanState(ctx))
        if problems:
            return Result(FAILED, "; ".join(problems))
        done = []
        for path in conflicts or []:
            ctx.backup(path)
            ctx.remove(path)
            done.append(f"removed {path}")
        for f in self.params["files"]:
            new = f["content"].encode()
            cur = ctx.read_bytes(f["path"])
            if cur == new:
                continue
            if cur is not None:
                ctx.backup(f["path"])
            ctx.makedirs(REPOS_DIR.rstrip("/"))
            ctx.write_atomic(f["path"], new, 0o644)
            done.append(f"wrote {f['path']}")
        if not done:
            return Result(OK, "repository files already as planned")
        return Result(CHANGED, "; ".join(done))

    def render_shell_body(self) -> List[str]:
        paths = [f["path"] for f in self.params["files"]]
        contents = [f["content"] for f in self.params["files"]]
        return [
            shell_array("markers", self.params["markers"]),
            shell_array("paths", paths),
            shell_array("contents", contents),
            "local i todo=0 f m other amd n",
            "local -a found=()",
            f'for f in "$RW_ROOT"{q(REPOS_DIR)}*.repo; do',
            '  for i in "${!paths[@]}"; do if [[ $f == "$RW_ROOT${paths[i]}" ]]; then continue 2; fi; done',
            "  amd=0 other=0 n=0",
            "  while IFS= read -r m; do",
            "    n=$((n + 1))",
            '    for i in "${markers[@]}"; do if [[ $m == *"$i"* ]]; then amd=$((amd + 1)); continue 2; fi; done',
            "    other=1",
            "  done < <(sed -n 's/^[[:space:]]*baseurl[[:space:]]*=[[:space:]]*//p' -- \"$f\")",
            "  if [[ $amd -gt 0 && $other == 1 ]]; then",
            '    rw_die "${f#"$RW_ROOT"} names AMD\'s repositories and others too: edit it by hand, then run this script again"',
            "  fi",
            '  if [[ $amd -gt 0 ]]; then found+=("$f"); fi',
            "done",
            'if [[ ${#found[@]} -gt 0 ]]; then todo=1; fi',
            'for i in "${!paths[@]}"; do',
            '  if ! rw_same "$RW_ROOT${paths[i]}" "${contents[i]}"; then todo=1; fi',
            "done",
            "if [[ $todo == 0 ]]; then",
            "  rw_ok 'the repository files are as planned and no other file names these repositories'",
            "  return 0",
            "fi",
            "rw_need_root",
            'for f in "${found[@]}"; do',
            '  rw_remember "$f"',
            '  if [[ $DRY_RUN == 1 ]]; then rw_would "remove ${f#"$RW_ROOT"}"; else rm -f -- "$f"; fi',
            "done",
            'for i in "${!paths[@]}"; do',
            '  if rw_same "$RW_ROOT${paths[i]}" "${contents[i]}"; then continue; fi',
            '  rw_remember "$RW_ROOT${paths[i]}"',
            '  rw_put "$RW_ROOT${paths[i]}" 0644 "${contents[i]}"',
            "done",
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        alt = "|".join(re.escape(m) for m in self.params["markers"])
        return {
            self.var("files"): [{"path": f["path"], "content": f["content"]} for f in self.params["files"]],
            self.var("managed"): [os.path.basename(p) for p in self.managed],
            self.var("pattern"): r"^[ \t]*baseurl[ \t]*=.*(" + alt + ")",
        }

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        found = self.var("found")
        return [
            {"name": f"{n}: find other repository files naming these repositories", "ansible.builtin.find": {
                "paths": [REPOS_DIR.rstrip("/")], "patterns": ["*.repo"], "contains": J(self.var("pattern")),
                "excludes": J(self.var("managed"))}, "register": found},
            {"name": f"{n}: back up those files", "ansible.builtin.copy": {
                "src": "{{ item }}", "dest": "{{ item }}.rocm-wizard-backup", "remote_src": True, "mode": "0644"},
             "loop": "{{ " + found + ".files | map(attribute='path') | list }}"},
            {"name": f"{n}: remove those files", "ansible.builtin.file": {"path": "{{ item }}", "state": "absent"},
             "loop": "{{ " + found + ".files | map(attribute='path') | list }}"},
            {"name": f"{n}: write the repository files whole", "ansible.builtin.copy": {
                "dest": "{{ item.path }}", "content": "{{ item.content }}", "owner": "root", "group": "root",
                "mode": "0644", "backup": True},
             "loop": J(self.var("files")), "loop_control": {"label": "{{ item.path }}"}},
        ]


class ZypperRefresh(Step):
    """``zypper refresh`` of the plan's repositories when a key or repository file changed in this
    run (or a planned package is missing).  zypper checks the metadata's signature against the rpm
    database's keys: an unknown key is refused (non-interactive, no auto-import)."""

    kind = "zypper-refresh"
    required = ("aliases",)
    defaults = {"after": [], "packages": []}

    def validate(self) -> None:
        for a in self.params["aliases"]:
            if not SAFE_ALIAS.match(str(a)):
                raise ValueError(f"repository alias {a!r} is not allowed")
        if not all(isinstance(n, str) and SAFE_PKG.match(n) for n in self.params["packages"]):
            raise ValueError("zypper-refresh: packages must be package names")

    def check(self, state) -> CheckResult:
        changed = state.any_changed(self.params["after"])
        if changed:
            return CheckResult(CHANGE, "the repositories or key changed: zypper refresh")
        missing = [n for n in self.params["packages"] if _installed(state, n) in (None, [])]
        if missing:
            return CheckResult(CHANGE, f"{', '.join(missing)} not installed: zypper refresh first")
        if changed is None:
            return CheckResult(UNKNOWN, "whether the repositories change is not known")
        return CheckResult(OK, "nothing changed since the last refresh")

    def describe(self, state) -> Description:
        argv = ZYPPER + ["refresh"] + list(self.params["aliases"])
        return Description(self.title, [" ".join(argv) + " (signatures checked; no key is imported)"],
                           commands=[argv])

    def apply(self, ctx) -> Result:
        missing = [n for n in self.params["packages"] if not rpm_versions(ctx, n)]
        if not (set(self.params["after"]) & ctx.changed) and not missing:
            return Result(OK, "nothing changed since the last refresh")
        res = ctx.run(ZYPPER + ["refresh"] + list(self.params["aliases"]), timeout=1800)
        if res.rc != 0:
            tail = " ".join((res.stderr or res.stdout or res.error or "").strip().splitlines()[-3:])
            return Result(FAILED, f"zypper refresh failed (exit {res.rc}): {tail}")
        return Result(CHANGED, "refreshed " + ", ".join(self.params["aliases"]))

    def render_shell_body(self) -> List[str]:
        after = " ".join(q(a) for a in self.params["after"]) or "''"
        return [
            shell_array("pkgs", self.params["packages"]),
            "local p missing=0",
            'for p in "${pkgs[@]}"; do if ! rpm -q "$p" >/dev/null 2>&1; then missing=1; fi; done',
            f"if ! rw_changed {after} && [[ $missing == 0 ]]; then",
            "  rw_ok 'nothing changed since the last refresh'",
            "  return 0",
            "fi",
            "rw_need_root",
            "rw_run " + " ".join(q(a) for a in ZYPPER + ["refresh"] + list(self.params["aliases"])),
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        return {self.var("argv"): ZYPPER + ["refresh"] + list(self.params["aliases"])}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        return [{"name": f"{n}: zypper refresh (signatures checked against the rpm database's keys)",
                 "ansible.builtin.command": {"argv": J(self.var("argv"))}, "changed_when": False,
                 "when": "not ansible_check_mode"}]


def _installed(state, name: str):
    """Installed versions after the earlier steps ([] not installed; None unknown)."""
    if name in state.packages:
        return [state.packages[name]]
    return rpm_versions(state.ctx, name)


def _matches(versions: Optional[List[str]], prefix: str) -> bool:
    return bool(versions) and (not prefix or any(v.startswith(prefix) for v in versions or []))


class ZypperInstall(Step):
    """Install packages with zypper (``--from`` the plan's repository when given); the removals a
    ``--dry-run`` shows are checked first: anything not ROCm's stops the step unless allowed."""

    kind = "zypper-install"
    required = ("packages",)
    defaults = {"from_repo": "", "related": [], "allow_removals": False, "notify_reboot": False}

    def validate(self) -> None:
        specs = []
        for item in self.params["packages"]:
            item = {"name": item} if isinstance(item, str) else dict(item)
            if not SAFE_PKG.match(str(item.get("name", ""))):
                raise ValueError(f"bad package name {item.get('name')!r}")
            v = str(item.get("version", "") or "").rstrip("*")
            if v and not re.match(r"^[A-Za-z0-9._+~-]+$", v):
                raise ValueError(f"bad version prefix {v!r}")
            specs.append({"name": item["name"], "version": v})
        if not specs:
            raise ValueError("zypper-install needs packages")
        self.params["packages"] = specs
        if self.params["from_repo"] and not SAFE_ALIAS.match(self.params["from_repo"]):
            raise ValueError(f"repository alias {self.params['from_repo']!r} is not allowed")
        for pat in self.params["related"]:
            if not SAFE_PATTERN.match(pat):
                raise ValueError(f"bad package pattern {pat!r}")
        self.params["allow_removals"] = bool(self.params["allow_removals"])

    def _argv(self, names: List[str], dry: bool = False) -> List[str]:
        argv = ZYPPER + ["install", "--auto-agree-with-licenses"]
        if dry:
            argv.append("--dry-run")
        if self.params["from_repo"]:
            argv += ["--from", self.params["from_repo"]]
        return argv + names

    def unrelated(self, names: List[str]) -> List[str]:
        return [n for n in names if not any(fnmatchcase(n, p) for p in self.params["related"])]

    def _pending(self, state) -> Tuple[List[Tuple[Dict[str, str], Any]], bool]:
        todo, unknown = [], False
        for spec in self.params["packages"]:
            cur = _installed(state, spec["name"])
            if cur is None:
                unknown = True
                continue
            if not _matches(cur, spec["version"]):
                todo.append((spec, cur))
        return todo, unknown

    def check(self, state) -> CheckResult:
        todo, unknown = self._pending(state)
        if todo:
            return CheckResult(CHANGE, "; ".join(f"{s['name']} {', '.join(c) if c else '(not installed)'} -> "
                                                 f"{s['version'] + '*' if s['version'] else 'the repository version'}"
                                                 for s, c in todo))
        if unknown:
            return CheckResult(UNKNOWN, "installed versions not known (rpm cannot be asked)")
        return CheckResult(OK, "installed: " + ", ".join(s["name"] for s in self.params["packages"]))

    def project(self, state) -> None:
        for spec, _ in self._pending(state)[0]:
            state.set_package(spec["name"], (spec["version"] or "(candidate)") + "-planned", self.id)

    def describe(self, state) -> Description:
        todo, _ = self._pending(state)
        desc = Description(self.title)
        for spec, cur in todo:
            desc.packages.append(PackageChange(spec["name"], ", ".join(cur) if cur else None,
                                               (spec["version"] + "*") if spec["version"] else "repository version",
                                               f"from {self.params['from_repo']}" if self.params["from_repo"] else ""))
        if todo:
            argv = self._argv([s["name"] for s, _ in todo])
            desc.actions.append(" ".join(argv))
            desc.actions.append("first `" + " ".join(self._argv([s["name"] for s, _ in todo], dry=True)) + "`: what it "
                                "would remove is shown, and " + ("allowed (--allow-apt-removals)"
                                                                 if self.params["allow_removals"] else
                                                                 "anything that is not ROCm's stops the step"))
            desc.commands.append(argv)
        return desc

    def apply(self, ctx) -> Result:
        todo = [(s, c) for s, c in ((s, rpm_versions(ctx, s["name"])) for s in self.params["packages"])
                if not _matches(c, s["version"])]
        if not todo:
            return Result(OK, "already installed")
        names = [s["name"] for s, _ in todo]
        sim = ctx.run(self._argv(names, dry=True), timeout=1800)
        if sim.rc not in (0,):
            tail = " ".join((sim.stdout + "\n" + sim.stderr).strip().splitlines()[-4:])
            return Result(FAILED, f"zypper cannot install {' '.join(names)} (dry run, exit {sim.rc}): {tail}; "
                                  "nothing was installed")
        removed = zypper_removals(sim.stdout)
        other = self.unrelated(removed)
        if other and not self.params["allow_removals"]:
            return Result(FAILED, f"to install {' '.join(names)}, zypper would remove packages that are not part of "
                                  f"ROCm: {', '.join(other)}; nothing was installed or removed. See why with  "
                                  f"{' '.join(self._argv(names, dry=True))}; to let it remove them, run again with "
                                  "--allow-apt-removals (answers file: allow_apt_removals = true)")
        ctx.check_call(self._argv(names), timeout=7200)
        for spec, _ in todo:
            now = rpm_versions(ctx, spec["name"])
            if not _matches(now, spec["version"]):
                return Result(FAILED, f"zypper ran, but {spec['name']} is {', '.join(now or []) or 'not installed'}, "
                                      f"not {spec['version']}*")
        return Result(CHANGED, "installed " + " ".join(names) + (f"; zypper removed {', '.join(removed)}" if removed else ""))

    def render_shell_body(self) -> List[str]:
        names = [s["name"] for s in self.params["packages"]]
        prefixes = [s["version"] for s in self.params["packages"]]
        argv = [q(a) for a in self._argv([])]
        dry = [q(a) for a in self._argv([], dry=True)]
        return [
            shell_array("names", names),
            shell_array("prefixes", prefixes),
            shell_array("related", self.params["related"]),
            "local -a want=() removed=() other=()",
            "local i v ok line grab=0 r p allow=" + ("1" if self.params["allow_removals"] else "0"),
            'for i in "${!names[@]}"; do',
            "  ok=0",
            '  if rpm -q "${names[i]}" >/dev/null 2>&1; then',
            '    while IFS= read -r v; do if [[ -n $v && $v == "${prefixes[i]}"* ]]; then ok=1; fi; done '
            '< <(rpm -q --qf \'%{VERSION}-%{RELEASE}\\n\' "${names[i]}" 2>/dev/null || true)',
            "  fi",
            '  if [[ $ok == 0 ]]; then want+=("${names[i]}"); fi',
            "done",
            'if [[ ${#want[@]} -eq 0 ]]; then',
            '  rw_ok "installed: ${names[*]}"',
            "  return 0",
            "fi",
            "rw_need_root",
            "rw_tmp",
            f'printf \'    +\' >&2; printf \' %q\' {" ".join(dry)} "${{want[@]}}" >&2; printf \'\\n\' >&2',
            f'if ! {" ".join(dry)} "${{want[@]}}" >"$RW_TMP/zypper-dry" 2>&1; then',
            '  rw_clean <"$RW_TMP/zypper-dry" >&2',
            '  if [[ $DRY_RUN == 1 ]]; then rw_warn "zypper cannot install ${want[*]} now (the repositories are not set up yet?)"; '
            f"rw_mark {q(self.id)}; return 0; fi",
            '  rw_die "zypper cannot install ${want[*]}: nothing was installed"',
            "fi",
            "while IFS= read -r line; do",
            '  if [[ $line =~ ^The\\ following\\ .*going\\ to\\ be\\ REMOVED: ]]; then grab=1; continue; fi',
            '  if [[ $grab == 1 ]]; then',
            '    if [[ -z ${line//[[:space:]]/} ]]; then if [[ ${#removed[@]} -gt 0 ]]; then grab=0; fi; continue; fi',
            '    if [[ $line == The\\ following* || $line == *: ]]; then grab=0; continue; fi',
            '    for r in $line; do removed+=("$r"); done',
            "  fi",
            'done <"$RW_TMP/zypper-dry"',
            'for r in "${removed[@]}"; do',
            '  ok=0',
            '  for p in "${related[@]}"; do',
            '    # shellcheck disable=SC2254  # the related names are shell patterns',
            '    case $r in $p) ok=1 ;; esac',
            '  done',
            '  if [[ $ok == 0 ]]; then other+=("$r"); fi',
            "done",
            'if [[ ${#removed[@]} -gt 0 ]]; then rw_say "    zypper would remove: ${removed[*]}"; fi',
            'if [[ ${#other[@]} -gt 0 && $allow == 0 ]]; then',
            '  rw_die "to install ${want[*]}, zypper would remove packages that are not part of ROCm: ${other[*]}; '
            'nothing was installed or removed"',
            "fi",
            "rw_run " + " ".join(argv) + ' "${want[@]}"',
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        return {self.var("names"): [s["name"] for s in self.params["packages"]],
                self.var("prefixes"): [s["version"] for s in self.params["packages"]],
                self.var("argv"): self._argv([]), self.var("dry"): self._argv([], dry=True),
                self.var("removals_sh"): REMOVALS_SH,
                self.var("related"): list(self.params["related"])}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        have, want, sim = self.var("have"), self.var("want"), self.var("sim")
        removed = f"{sim}.stdout_lines"
        related = "|".join(p.replace(".", "[.]").replace("*", ".*").replace("?", ".") for p in self.params["related"])
        wanted = f"{want} | length > 0"
        tasks: List[Dict[str, Any]] = [
            {"name": f"{n}: the installed versions (reads only; runs in --check too)", "ansible.builtin.command": {
                "argv": ["rpm", "-q", "--qf", "%{VERSION}-%{RELEASE}\\n", "{{ item }}"]},
             "loop": J(self.var("names")), "register": have, "changed_when": False, "failed_when": False,
             "check_mode": False},
            # wanted: what rpm lacks, or where no installed version starts with the planned prefix
            {"name": f"{n}: start from nothing wanted", "ansible.builtin.set_fact": {want: []}},
            {"name": f"{n}: what is missing or at another version", "ansible.builtin.set_fact": {
                want: "{{ " + want + " + ([item.0.item] if item.0.rc != 0 or (item.0.stdout_lines "
                      "| select('match', item.1 | regex_escape) | list | length) == 0 else []) }}"},
             "loop": "{{ " + have + ".results | zip(" + self.var("prefixes") + ") | list }}",
             "loop_control": {"label": "{{ item.0.item }}"}},
            # the dry run, its output reduced to the names zypper would remove (one a line)
            {"name": f"{n}: what zypper would remove (a dry run)", "ansible.builtin.command": {
                "argv": "{{ ['sh', '-c', " + self.var("removals_sh") + ", 'sh'] + " + self.var("dry") + " + " + want
                        + " }}"},
             "register": sim, "changed_when": False, "check_mode": False,
             "when": f"{wanted} and not ansible_check_mode"},
            {"name": f"{n}: --check: zypper's dry run needs the repositories this play sets up; not run",
             "ansible.builtin.debug": {"msg": "would install {{ " + want + " | join(' ') }}"},
             "when": f"{wanted} and ansible_check_mode"},
            {"name": f"{n}: show what zypper would remove", "ansible.builtin.debug": {
                "msg": "zypper would remove: {{ " + removed + " | join(', ') or 'nothing' }}"},
             "when": f"{wanted} and {sim} is not skipped"},
        ]
        if not self.params["allow_removals"]:
            tasks.append({"name": f"{n}: refuse removals of packages that are not ROCm's", "ansible.builtin.assert": {
                "that": ["(" + removed + " | reject('match', '^(" + (related or "$^") + ")$') | list | length) == 0"],
                "fail_msg": "zypper would remove packages that are not part of ROCm; nothing was installed or removed"},
                "when": f"{wanted} and {sim} is not skipped"})
        install: Dict[str, Any] = {"name": f"{n}: zypper install", "ansible.builtin.command": {
            "argv": "{{ " + self.var("argv") + " + " + want + " }}"},
            "when": f"{wanted} and not ansible_check_mode", "changed_when": True}
        if self.params["notify_reboot"]:
            from .files import REBOOT_HANDLER

            install["notify"] = [REBOOT_HANDLER]
        tasks.append(install)
        return tasks
