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

KINDS = ("cache", "venv", "rocm-tree")


class RemovePath(Step):
    kind = "remove-path"
    required = ("path", "what", "item_kind")
    defaults = {"owner": "", "link": "", "size": ""}

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
        return ""

    def apply(self, ctx) -> Result:
        p = self.params
        if not os.path.lexists(ctx.p(p["path"])):
            return Result(OK, f"{p['path']} is gone")
        why = self._refusal(ctx)
        if why:
            return Result(FAILED, why)
        ctx.check_call(["rm", "-rf", "--one-file-system", "--", ctx.p(p["path"])], user=p["owner"] or None,
                       timeout=3600)
        return Result(CHANGED, f"removed {p['path']}" + (f" ({p['size']})" if p["size"] else "")
                      + "; deleted files cannot be rolled back")

    def render_shell_body(self) -> List[str]:
        p = self.params
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
            'rw_as "$owner" rm -rf --one-file-system -- "$RW_ROOT$path"',
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        return {self.var("path"): self.params["path"]}

    def render_ansible(self) -> List[Dict[str, Any]]:
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
        rm = {"name": f"{n}: remove it (cannot be rolled back)", "ansible.builtin.file": {"path": J(p),
                                                                                           "state": "absent"}}
        if self.params["owner"]:
            rm.update({"become": True, "become_user": self.params["owner"]})
        tasks.append(rm)
        return tasks
