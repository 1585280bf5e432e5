"""The clean-up step: remove one directory the user picked from ``--path clean``'s list (an old
ROCm tree no package owns, a venv a torch plan left behind, a cache).  Deleting cannot be rolled
back; the step says so, and re-checks at run time what made the item removable."""
from __future__ import annotations

import os
import re
from typing import Any, Dict, List

from ..core import CHANGE, CHANGED, FAILED, OK, UNKNOWN, CheckResult, Description, Result, Step
from ..shellquote import q
from ._util import J, check_abs_path

KINDS = ("cache", "venv", "rocm-tree", "apt-file", "apt-key", "apt-pin")
APT_KINDS = ("apt-file", "apt-key", "apt-pin")
APT_DIRS = ("/etc/apt/sources.list.d/", "/etc/apt/keyrings/", "/etc/apt/preferences.d/")
# the enabled entries apt reads, one a line (what plan/clean.py's enabled_entries reads)
ACTIVE_SOURCES = ('cat -- "$RW_ROOT"/etc/apt/sources.list "$RW_ROOT"/etc/apt/sources.list.d/*.list '
                  '"$RW_ROOT"/etc/apt/sources.list.d/*.sources 2>/dev/null '
                  "| grep -iE '^[[:space:]]*((deb|deb-src)[[:space:]]|URIs:|Signed-By:)'")


UNIT_NAMES = r"\( -name '*.service' -o -name '*.conf' -o -name '*.socket' -o -name '*.timer' -o -name '*.path' \)"
# The run-time "in use" check of a ROCm tree or venv, in bash: the script's step and the playbook's
# task run these same lines (with $path and $RW_ROOT set); they leave the reason in $why, or nothing.
# What plan/clean.py's held_reason judges: a running process (only on the machine itself, not in a
# root given by RW_ROOT), then a systemd unit or a shell start-up file with a line naming the path or
# something under it (a comment does not count; ~, $HOME, ${HOME}, %h are the file's home).  Links
# are not followed in a home (the rc files, ~/.config/systemd/user), and a home's files are listed
# and read as that home's user (setpriv to its uid and gid from the root's passwd, no supplementary
# groups, a new session with no terminal, an empty environment): a link swapped in after the look
# reads only what the user may read.  Only the file and line are said.
IN_USE_SH = [
    "why=",
    "rw_clean_as() {  # UID GID CMD...: CMD as that uid (root runs its own; a user's run has only its own rights)",
    '  if [[ $1 == 0 || $EUID -ne 0 ]]; then shift 2; "$@"; return; fi',
    '  env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin setsid -w setpriv --reuid="$1" --regid="$2" --clear-groups -- "${@:3}" </dev/null',
    "}",
    'if [[ -z $RW_ROOT ]]; then',
    '  for d in /proc/[0-9]*; do',
    '    e=$(readlink -- "$d/exe" 2>/dev/null) || e=',
    '    c=$(readlink -- "$d/cwd" 2>/dev/null) || c=',
    '    if [[ $e == "$path"/* || $c == "$path" || $c == "$path"/* ]] || grep -qsF -- " $path/" "$d/maps"; then',
    '      why="$path is in use by process ${d#/proc/} (its program, working directory or a loaded library; stop it first)"',
    "      break",
    "    fi",
    "  done",
    "fi",
    'if [[ -z $why && $EUID -eq 0 ]] && ! command -v setpriv >/dev/null 2>&1; then',
    '  why="$path: setpriv (util-linux) is missing, so users\' start-up files cannot be read as their users; install util-linux"',
    "fi",
    'if [[ -z $why ]]; then',
    "  fs=() hs=() us=() gs=()",
    "  for d in /etc/systemd/system /etc/systemd/user; do",
    '    [[ -d $RW_ROOT$d && ! -L $RW_ROOT$d ]] || continue',
    '    while IFS= read -r -d "" f; do fs+=("$f"); hs+=(""); us+=(0); gs+=(0); done < <(find -P "$RW_ROOT$d" -maxdepth 4 '
    rf'\( -type f -o -type l \) {UNIT_NAMES} -print0 2>/dev/null)',
    "  done",
    "  while IFS=: read -r _ _ uid gid _ h _; do",
    r'    if ! [[ $uid =~ ^[0-9]+$ && $gid =~ ^[0-9]+$ ]] || { [[ $uid != 0 ]] && (( uid < 1000 || uid >= 65534 )); }; then continue; fi',
    '    [[ $h == /?* && -d $RW_ROOT$h && ! -L $RW_ROOT$h ]] || continue',
    "    for r in .bashrc .profile .bash_profile .bash_login .zshrc .zprofile .zshenv; do",
    '      if [[ -f $RW_ROOT$h/$r && ! -L $RW_ROOT$h/$r ]]; then fs+=("$RW_ROOT$h/$r"); hs+=("$h"); us+=("$uid"); gs+=("$gid"); fi',
    "    done",
    '    u=$RW_ROOT$h/.config/systemd/user',
    '    if [[ -d $u && ! -L $RW_ROOT$h/.config && ! -L $RW_ROOT$h/.config/systemd && ! -L $u ]]; then',
    '      while IFS= read -r -d "" f; do fs+=("$f"); hs+=("$h"); us+=("$uid"); gs+=("$gid"); done < <(rw_clean_as "$uid" "$gid" '
    f'find -P "$u" -maxdepth 4 -type f {UNIT_NAMES} -print0 2>/dev/null)',
    "    fi",
    '  done < <(cat -- "$RW_ROOT/etc/passwd" 2>/dev/null)',
    """  b='(^|[[:space:]"'"'"'`:=;,()|&<>])' a='([/[:space:]"'"'"'`:=;,()|&<>]|$)'""",
    '  for k in "${!fs[@]}"; do',
    "    n=0 h=${hs[$k]}",
    "    while IFS= read -r line || [[ -n $line ]]; do",
    "      n=$((n + 1))",
    '      line=${line#"${line%%[![:space:]]*}"}',
    "      if [[ -z $line || $line == '#'* || $line == ';'* ]]; then continue; fi",
    '      if [[ -n $h ]]; then',
    "        line=${line//'${HOME}'/$h}; line=${line//'$HOME'/$h}; line=${line//'%h'/$h}",
    "        t='~'/  # a literal tilde and slash",
    '        if [[ $line == "$t"* ]]; then line=$h/${line#"$t"}; fi',
    r"""        for c in ' ' $'\t' '"' "'" '`' = : ';' ',' '(' ')' '|' '&' '<' '>'; do line=${line//"$c$t"/"$c$h/"}; done""",
    "      fi",
    '      if [[ $line =~ $b"$path"$a ]]; then',
    '        why="$path is named by ${fs[$k]#"$RW_ROOT"} line $n (a service or a shell start-up file uses it; '
    'remove that line or the unit first)"',
    "        break 2",
    "      fi",
    '    done < <(rw_clean_as "${us[$k]}" "${gs[$k]}" head -c 1048576 -- "${fs[$k]}" 2>/dev/null)',
    "  done",
    "fi",
]


class RemovePath(Step):
    kind = "remove-path"
    required = ("path", "what", "item_kind")
    # apt items: sha256 of the content judged stale at plan time; in_use: words (a keyring path,
    # //host/) whose presence in an enabled entry makes the file in use again
    defaults = {"owner": "", "link": "", "size": "", "sha256": "", "in_use": []}

    def validate(self) -> None:
        p = self.params
        check_abs_path(p["path"], "path")
        if p["item_kind"] not in KINDS:
            raise ValueError(f"remove-path: kind {p['item_kind']!r} is not one of {', '.join(KINDS)}")
        if os.path.normpath(p["path"]) in ("/", "/opt", "/home", "/root", "/usr", "/etc", "/var", "/tmp") \
                or p["path"].count("/") < 2:
            raise ValueError(f"remove-path: {p['path']} is not something clean removes")
        if p["owner"] and not re.fullmatch(r"[a-z_][a-z0-9_.-]*\$?", p["owner"]):
            raise ValueError(f"remove-path: owner {p['owner']!r} is not a user name")
        if p["link"]:
            check_abs_path(p["link"], "link")
        if p["item_kind"] in APT_KINDS:
            if not str(p["path"]).startswith(APT_DIRS) or p["path"].endswith("/") or "/../" in p["path"]:
                raise ValueError(f"remove-path: {p['path']} is not an apt file clean removes")
            if not re.fullmatch(r"[0-9a-f]{64}", str(p["sha256"])):
                raise ValueError("remove-path: an apt file needs the sha256 of the content judged stale")
            p["in_use"] = [str(w) for w in p["in_use"] or []]
            if any(not w or "\n" in w for w in p["in_use"]):
                raise ValueError("remove-path: in_use words must be non-empty single lines")

    def check(self, state) -> CheckResult:
        ctx = state.ctx
        if not ctx.filesystem:
            return CheckResult(UNKNOWN, f"{self.params['path']}: not known from a snapshot")
        if not os.path.lexists(ctx.p(self.params["path"])):
            return CheckResult(OK, f"{self.params['path']} is gone")
        return CheckResult(CHANGE, f"remove {self.params['path']}" + (f" ({self.params['size']})"
                                                                      if self.params["size"] else ""))

    def describe(self, state) -> Description:
        p = self.params
        if p["item_kind"] in APT_KINDS:
            return Description(self.title, [f"remove {p['path']} ({p['what']})" + (f", {p['size']}" if p["size"] else ""),
                                            "re-checked first: unchanged, not in use, no package owns it; a copy is "
                                            "kept in the run's backups"],
                               commands=[["rm", "-f", "--", p["path"]]])
        return Description(self.title, [f"remove {p['path']} ({p['what']})"
                                        + (f", {p['size']}" if p["size"] else ""),
                                        "cannot be rolled back: the files are deleted"],
                           commands=[["rm", "-rf", "--one-file-system", "--", p["path"]]])

    def _refusal(self, ctx) -> str:
        """Why the item may not go now ("" when it may): re-checked at run time."""
        p = self.params
        path = ctx.p(p["path"])
        st = os.lstat(path)
        import stat as st_mod

        if p["item_kind"] in APT_KINDS:
            return self._apt_refusal(ctx, st)
        if not st_mod.S_ISDIR(st.st_mode):
            return f"{p['path']} is a link or not a directory now: not removed"
        if p["item_kind"] == "rocm-tree":
            for link in ("/opt/rocm", "/opt/rocm/core"):
                real = os.path.realpath(ctx.p(link))
                if real == os.path.realpath(path) or real.startswith(os.path.realpath(path) + "/"):
                    return f"{link} points at {p['path']}: it is the ROCm in use"
            res = ctx.run(["dpkg-query", "-S", p["path"]], timeout=120)
            if res.rc == 0 and (res.stdout or "").strip():
                pkgs = sorted({ln.split(":", 1)[0] for ln in res.stdout.splitlines() if ":" in ln})
                return (f"{p['path']} belongs to packages ({', '.join(pkgs[:6])}): remove it with "
                        f"apt-get purge {' '.join(pkgs[:6])}")
        if p["item_kind"] == "venv" and p["link"]:
            if os.path.realpath(ctx.p(p["link"])) == os.path.realpath(path):
                return f"{p['link']} names {p['path']} now: it is the venv in use"
        if p["item_kind"] in ("rocm-tree", "venv"):
            from .. import clean

            why = clean.held_reason(p["path"], clean.processes_using(ctx.p("/")), clean.start_references(ctx.p("/")))
            if why is not None:
                return f"{p['path']} is {why}: not removed"
        return ""

    def _apt_refusal(self, ctx, st) -> str:
        import stat as st_mod

        from .. import clean

        p = self.params
        if not st_mod.S_ISREG(st.st_mode):
            return f"{p['path']} is a link or not a regular file now: not removed"
        data = clean._read_small(ctx.p(p["path"]))
        if data is None or clean.sha256(data) != p["sha256"]:
            return f"{p['path']} changed since the plan was made: not removed (plan again)"
        used = clean.in_use(p["in_use"], ctx.root, skip=[p["path"]])
        if used:
            return f"{p['path']} is in use again (an enabled entry names it: {used[0]}): not removed"
        res = ctx.run(["dpkg-query", "-S", p["path"]], timeout=120)
        if res.rc == 0 and (res.stdout or "").strip():
            pkgs = sorted({ln.split(":", 1)[0] for ln in res.stdout.splitlines() if ":" in ln})
            return (f"{p['path']} belongs to packages ({', '.join(pkgs[:6])}): remove it with "
                    f"apt-get purge {' '.join(pkgs[:6])}")
        return ""

    def apply(self, ctx) -> Result:
        p = self.params
        if not os.path.lexists(ctx.p(p["path"])):
            return Result(OK, f"{p['path']} is gone")
        why = self._refusal(ctx)
        if why:
            return Result(FAILED, why)
        if p["item_kind"] in APT_KINDS:
            saved = ctx.backup(p["path"])
            ctx.remove(p["path"])
            return Result(CHANGED, f"removed {p['path']}" + (f"; a copy is in {saved}" if saved else ""))
        ctx.check_call(["rm", "-rf", "--one-file-system", "--", ctx.p(p["path"])], user=p["owner"] or None,
                       timeout=3600)
        return Result(CHANGED, f"removed {p['path']}" + (f" ({p['size']})" if p["size"] else "")
                      + "; deleted files cannot be rolled back")

    def render_shell_body(self) -> List[str]:
        p = self.params
        if p["item_kind"] in APT_KINDS:
            return self._apt_shell()
        return [
            f"local path={q(p['path'])} kind={q(p['item_kind'])} owner={q(p['owner'])} link={q(p['link'])} real",
            'if [[ ! -e $RW_ROOT$path && ! -L $RW_ROOT$path ]]; then',
            '  rw_ok "$path is gone"',
            "  return 0",
            "fi",
            'if [[ -L $RW_ROOT$path || ! -d $RW_ROOT$path ]]; then rw_die "$path is a link or not a directory now: not removed"; fi',
            'real=$(readlink -f -- "$RW_ROOT$path")',
            'if [[ $kind == rocm-tree ]]; then',
            '  for l in /opt/rocm /opt/rocm/core; do',
            '    if [[ -e $RW_ROOT$l ]] && { [[ $(readlink -f -- "$RW_ROOT$l") == "$real" ]] || [[ $(readlink -f -- "$RW_ROOT$l") == "$real"/* ]]; }; then',
            '      rw_die "$l points at $path: it is the ROCm in use"',
            "    fi",
            "  done",
            '  if [[ -z $RW_ROOT ]] && dpkg-query -S "$path" >/dev/null 2>&1; then',
            '    rw_die "$path belongs to packages (dpkg-query -S $path): remove it with apt-get purge of those"',
            "  fi",
            "fi",
            'if [[ $kind == venv && -n $link && -e $RW_ROOT$link && $(readlink -f -- "$RW_ROOT$link") == "$real" ]]; then',
            '  rw_die "$link names $path now: it is the venv in use"',
            "fi",
            "# in use: a running program (its executable, working directory or a loaded library), a systemd",
            "# unit or a shell start-up file that names it",
            "local why d e c f fs hs us gs uid gid h r u b a k n t line",
            *IN_USE_SH,
            'if [[ -n $why ]]; then rw_die "$why: not removed"; fi',
            'rw_as "$owner" rm -rf --one-file-system -- "$RW_ROOT$path"',
            f"rw_mark {q(self.id)}",
        ]

    def _apt_shell(self) -> List[str]:
        p = self.params
        words = " ".join(q(w) for w in p["in_use"])
        return [
            f"local path={q(p['path'])} sum={q(p['sha256'])} w used",
            f"local -a words=({words})",
            'if [[ ! -e $RW_ROOT$path && ! -L $RW_ROOT$path ]]; then',
            '  rw_ok "$path is gone"',
            "  return 0",
            "fi",
            'if [[ -L $RW_ROOT$path || ! -f $RW_ROOT$path ]]; then rw_die "$path is a link or not a regular file now: not removed"; fi',
            'if [[ $(sha256sum < "$RW_ROOT$path") != "$sum  -" ]]; then rw_die "$path changed since the plan was made: not removed (plan again)"; fi',
            'for w in "${words[@]}"; do',
            f'  used=$({ACTIVE_SOURCES} | grep -F -e "$w" | head -n 1) || true',
            '  if [[ -n $used ]]; then rw_die "$path is in use again (an enabled entry names it: $used): not removed"; fi',
            "done",
            'if [[ -z $RW_ROOT ]] && used=$(dpkg-query -S "$path" 2>/dev/null); then',
            '  used=$(printf \'%s\\n\' "$used" | cut -d: -f1 | tr -d , | tr \' \' \'\\n\' | sort -u | tr \'\\n\' \' \')',
            '  rw_die "$path belongs to packages (${used% }): remove it with apt-get purge ${used% }"',
            "fi",
            "rw_need_root",
            'rw_remember "$RW_ROOT$path"',
            'if [[ $DRY_RUN == 1 ]]; then rw_would "remove $path"; else rm -f -- "$RW_ROOT$path"; rw_say "    removed $path"; fi',
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        out = {self.var("path"): self.params["path"]}
        if self.params["item_kind"] in APT_KINDS:
            out[self.var("sha256")] = self.params["sha256"]
            for k, w in enumerate(self.params["in_use"]):
                out[self.var(f"word{k}")] = w
        elif self.params["item_kind"] in ("rocm-tree", "venv"):
            # the same bash as the script's step (a play variable, never templated)
            out[self.var("in_use_sh")] = "\n".join(['path=$RW_CLEAN_PATH RW_ROOT=', *IN_USE_SH,
                                                    'printf "%s" "$why"']) + "\n"
        return out

    def _apt_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        p, st, own = self.var("path"), self.var("stat"), self.var("owned")
        tasks: List[Dict[str, Any]] = [
            {"name": f"{n}: look at it", "ansible.builtin.stat": {
                "path": J(p), "follow": False, "get_checksum": True, "checksum_algorithm": "sha256"}, "register": st},
            {"name": f"{n}: a regular file, unchanged since the plan", "ansible.builtin.assert": {
                "that": [f"not {st}.stat.exists or ({st}.stat.isreg and not {st}.stat.islnk and "
                         f"{st}.stat.checksum == {self.var('sha256')})"],
                "fail_msg": "{{ " + p + " }} is a link, not a regular file, or changed since the plan was made: "
                            "not removed (plan again)"}},
        ]
        for k, w in enumerate(self.params["in_use"]):
            used = self.var(f"used{k}")
            tasks += [
                {"name": f"{n}: no enabled repository entry names {w}", "ansible.builtin.shell": {
                    "cmd": ACTIVE_SOURCES.replace('"$RW_ROOT"', "") + " | grep -F -e {{ " + self.var(f"word{k}")
                           + " | quote }}"},
                 "register": used, "changed_when": False, "failed_when": False, "check_mode": False},
                {"name": f"{n}: refuse it while in use", "ansible.builtin.assert": {
                    "that": [f"{used}.rc != 0"],
                    "fail_msg": "{{ " + p + " }} is in use again ({{ " + used + ".stdout_lines | first | default('') }})"
                                ": not removed"}},
            ]
        tasks += [
            {"name": f"{n}: no package owns it", "ansible.builtin.command": {"argv": ["dpkg-query", "-S", J(p)]},
             "register": own, "changed_when": False, "failed_when": False, "check_mode": False},
            {"name": f"{n}: refuse a packaged file", "ansible.builtin.assert": {
                "that": [f"{own}.rc != 0"],
                "fail_msg": "{{ " + p + " }} belongs to packages ({{ " + own + ".stdout }}): remove it with apt-get "
                            "purge of those"}},
            {"name": f"{n}: keep a copy", "ansible.builtin.copy": {
                "src": J(p), "dest": "{{ " + p + " }}.rocm-wizard-backup", "remote_src": True, "mode": "preserve"},
             "when": f"{st}.stat.exists"},
            {"name": f"{n}: remove it", "ansible.builtin.file": {"path": J(p), "state": "absent"}},
        ]
        return tasks

    def render_ansible(self) -> List[Dict[str, Any]]:
        if self.params["item_kind"] in APT_KINDS:
            return self._apt_ansible()
        n = f"Step {self.index} {self.id}"
        p, st = self.var("path"), self.var("stat")
        tasks: List[Dict[str, Any]] = [
            {"name": f"{n}: look at it", "ansible.builtin.stat": {"path": J(p), "follow": False}, "register": st},
            {"name": f"{n}: a directory, not a link", "ansible.builtin.assert": {
                "that": [f"not {st}.stat.exists or ({st}.stat.isdir and not {st}.stat.islnk)"],
                "fail_msg": "{{ " + p + " }} is a link or not a directory now: not removed"}},
        ]
        if self.params["item_kind"] == "rocm-tree":
            own = self.var("owned")
            tasks += [
                {"name": f"{n}: no package owns it", "ansible.builtin.command": {"argv": ["dpkg-query", "-S", J(p)]},
                 "register": own, "changed_when": False, "failed_when": False, "check_mode": False},
                {"name": f"{n}: refuse a packaged tree", "ansible.builtin.assert": {
                    "that": [f"{own}.rc != 0"],
                    "fail_msg": "{{ " + p + " }} belongs to packages: remove it with apt-get purge of those"}},
            ]
        if self.params["item_kind"] in ("rocm-tree", "venv"):
            used = self.var("in_use")
            tasks += [
                {"name": f"{n}: in use? (a running program, a systemd unit or a shell start-up file naming it)",
                 "ansible.builtin.shell": {"cmd": J(self.var("in_use_sh")), "executable": "/bin/bash"},
                 "environment": {"RW_CLEAN_PATH": J(p)},
                 "register": used, "changed_when": False, "failed_when": False, "check_mode": False,
                 "when": f"{st}.stat.exists"},
                {"name": f"{n}: refuse it while in use", "ansible.builtin.assert": {
                    "that": [f"not {st}.stat.exists or ({used}.rc == 0 and {used}.stdout == '')"],
                    "fail_msg": "{{ " + used + ".stdout | default('') }}{{ " + used + ".stderr | default('') }}: not removed"}},
            ]
        rm = {"name": f"{n}: remove it (cannot be rolled back)", "ansible.builtin.file": {"path": J(p),
                                                                                           "state": "absent"}}
        if self.params["owner"]:
            rm.update({"become": True, "become_user": self.params["owner"]})
        tasks.append(rm)
        return tasks


class PurgeLeftover(Step):
    """``dpkg --purge`` of a package that `apt remove` left in dpkg's "config-files" state (its
    configuration files stay behind): what AMD's uninstall steps end with for amdgpu-install
    (``sudo apt purge amdgpu-install``).  Re-checked at run time: still in that state (a package
    installed again is refused) and none of its apt lists has an enabled entry."""

    kind = "purge-leftover"
    required = ("package",)
    defaults = {"size": "", "conffiles": []}

    def validate(self) -> None:
        p = self.params
        if not re.fullmatch(r"[a-z0-9][a-z0-9+.-]+", str(p["package"])):
            raise ValueError(f"purge-leftover: {p['package']!r} is not a package name")
        p["conffiles"] = [check_abs_path(c, "conffile") for c in p["conffiles"] or []]

    def _state(self, ctx) -> str:
        from .. import clean

        return clean._dpkg_status(ctx.root).get(self.params["package"], ("not-installed", []))[0] or "not-installed"

    def check(self, state) -> CheckResult:
        ctx = state.ctx
        if not ctx.filesystem:
            return CheckResult(UNKNOWN, f"{self.params['package']}: not known from a snapshot")
        st = self._state(ctx)
        if st == "not-installed":
            return CheckResult(OK, f"{self.params['package']} is purged")
        return CheckResult(CHANGE, f"purge {self.params['package']} ({st})")

    def describe(self, state) -> Description:
        p = self.params
        return Description(self.title, [
            f"purge {p['package']}, removed but not purged: dpkg deletes the configuration files it kept"
            + (f" ({', '.join(p['conffiles'])})" if p["conffiles"] else ""),
            "re-checked first: still in dpkg's config-files state, none of its lists enabled; "
            "cannot be rolled back by rocm-wizard (dpkg deletes the files)"],
            commands=[["dpkg", "--purge", p["package"]]])

    def apply(self, ctx) -> Result:
        from .. import clean

        p = self.params
        st = self._state(ctx)
        if st == "not-installed":
            return Result(OK, f"{p['package']} is purged")
        if st != "config-files":
            return Result(FAILED, f"{p['package']} is {st} now, not a removed package's leftovers: not purged")
        for c in p["conffiles"]:
            if c.startswith("/etc/apt/") and clean.entry_lines((clean._read_small(ctx.p(c)) or b"").decode(
                    "utf-8", "replace")):
                return Result(FAILED, f"{c} has an enabled entry now: {p['package']} not purged")
        ctx.check_call(["dpkg", "--purge", p["package"]], timeout=600)
        return Result(CHANGED, f"purged {p['package']}" + (f" ({p['size']})" if p["size"] else ""))

    def render_shell_body(self) -> List[str]:
        p = self.params
        lists = " ".join(q(c) for c in p["conffiles"] if c.startswith("/etc/apt/"))
        return [
            f"local pkg={q(p['package'])} st c",
            f"local -a lists=({lists})",
            "st=$(dpkg-query -W -f='${db:Status-Status}' \"$pkg\" 2>/dev/null) || st=not-installed",
            'if [[ -z $st || $st == not-installed ]]; then',
            '  rw_ok "$pkg is purged"',
            "  return 0",
            "fi",
            'if [[ $st != config-files ]]; then rw_die "$pkg is $st now, not a removed package\'s leftovers: not purged"; fi',
            'for c in "${lists[@]}"; do',
            "  if grep -qE '^[[:space:]]*((deb|deb-src)[[:space:]]|URIs:)' \"$RW_ROOT$c\" 2>/dev/null; then",
            '    rw_die "$c has an enabled entry now: $pkg not purged"',
            "  fi",
            "done",
            "rw_need_root",
            'rw_as "" dpkg --purge "$pkg"',
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        return {self.var("package"): self.params["package"]}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        pkg, st, en = self.var("package"), self.var("status"), self.var("enabled")
        lists = [c for c in self.params["conffiles"] if c.startswith("/etc/apt/")]
        tasks: List[Dict[str, Any]] = [
            {"name": f"{n}: its dpkg state", "ansible.builtin.command": {
                "argv": ["dpkg-query", "-W", "-f=${db:Status-Status}", J(pkg)]},
             "register": st, "changed_when": False, "failed_when": False, "check_mode": False},
            {"name": f"{n}: a removed package's leftovers, or gone", "ansible.builtin.assert": {
                "that": [f"{st}.rc != 0 or {st}.stdout in ['config-files', 'not-installed', '']"],
                "fail_msg": "{{ " + pkg + " }} is {{ " + st + ".stdout }} now: not purged"}},
        ]
        if lists:
            tasks += [
                {"name": f"{n}: none of its lists enabled", "ansible.builtin.command": {
                    "argv": ["grep", "-sE", "^[[:space:]]*((deb|deb-src)[[:space:]]|URIs:)"] + lists},
                 "register": en, "changed_when": False, "failed_when": False, "check_mode": False},
                {"name": f"{n}: refuse while a list is enabled", "ansible.builtin.assert": {
                    "that": [f"{en}.rc != 0"], "fail_msg": "an apt list of {{ " + pkg + " }} has an enabled entry"}},
            ]
        tasks.append({"name": f"{n}: purge it (dpkg deletes its configuration files)", "ansible.builtin.command": {
            "argv": ["dpkg", "--purge", J(pkg)]}, "when": f"{st}.rc == 0 and {st}.stdout == 'config-files'"})
        return tasks
