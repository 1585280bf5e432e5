"""Generic steps: a whole file, a command that runs after other steps changed something, and the
reboot-needed flag."""
from __future__ import annotations

import os
import stat as _stat
from typing import Any, Dict, List, Optional

from ..context import file_mode
from ..core import CHANGE, CHANGED, OK, UNKNOWN, CheckResult, Description, FileChange, Result, Step, unified_diff
from ..shellquote import q
from ..state import ABSENT, PRESENT
from ._util import J, SAFE_USER, check_abs_path, rooted

# the handler the kernel driver's installation notifies (it notes the change for the reboot-flag step)
REBOOT_HANDLER = "Note that the kernel driver changed"
REBOOT_NOW = "Reboot for the new kernel driver"


class FileContent(Step):
    """One file with exactly this content (written whole and atomically; the old one backed up)."""

    kind = "file"
    required = ("path", "content")
    defaults = {"mode": "0644", "owner": ""}

    def validate(self) -> None:
        check_abs_path(self.params["path"], "file path")
        if not isinstance(self.params["content"], str):
            raise ValueError("file content must be text")
        self.params["mode"] = "%04o" % file_mode(self.params["mode"])
        if self.params["owner"] and not SAFE_USER.match(self.params["owner"]):
            raise ValueError(f"owner {self.params['owner']!r} is not a valid user name")

    def check(self, state) -> CheckResult:
        p = self.params
        view = state.file(p["path"])
        if view.state == ABSENT:
            return CheckResult(CHANGE, f"{p['path']} does not exist")
        if view.state != PRESENT:
            return CheckResult(UNKNOWN, f"{p['path']}: not known")
        if view.data == p["content"].encode():
            return CheckResult(OK, f"{p['path']} is as planned")
        return CheckResult(CHANGE, f"{p['path']} differs")

    def project(self, state) -> None:
        state.set_file(self.params["path"], self.params["content"].encode(), self.id)

    def describe(self, state) -> Description:
        p = self.params
        view = state.file(p["path"])
        before = view.data if view.state == PRESENT else None
        note = "" if view.state in (PRESENT, ABSENT) else "current content not known"
        return Description(self.title, [f"write {p['path']} whole (mode {p['mode']})"], files=[
            FileChange(p["path"], "write", unified_diff(p["path"], before, p["content"].encode()), note)])

    def apply(self, ctx) -> Result:
        p = self.params
        new = p["content"].encode()
        if ctx.read_bytes(p["path"]) == new:
            return Result(OK, f"{p['path']} is as planned")
        if ctx.exists(p["path"]):
            ctx.backup(p["path"])
        ctx.write_atomic(p["path"], new, file_mode(p["mode"]), owner=p["owner"] or None)
        return Result(CHANGED, f"wrote {p['path']}")

    def render_shell_body(self) -> List[str]:
        p = self.params
        return [
            f"local path={rooted(p['path'])} content={q(p['content'])}",
            'if rw_same "$path" "$content"; then',
            '  rw_ok "${path#"$RW_ROOT"} is as planned"',
            "  return 0",
            "fi",
            "rw_need_root",
            'rw_backup "$path"',
            f'rw_put "$path" {q(p["mode"])} "$content" {q(p["owner"])}',
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        return {self.var("path"): self.params["path"], self.var("content"): self.params["content"]}

    def render_ansible(self) -> List[Dict[str, Any]]:
        p = self.params
        return [{"name": f"Step {self.index} {self.id}: write the file", "ansible.builtin.copy": {
            "dest": J(self.var("path")), "content": J(self.var("content")), "owner": p["owner"] or "root",
            "group": p["owner"] or "root", "mode": p["mode"], "backup": True}}]


def newer_than(ctx, ref_ns: int, path: str, limit: int = 40) -> Optional[str]:
    """``path``, a symbolic link on the way to it (the chain of its last component) or what it
    points at, when its inode changed (ctime: dpkg cannot set it) after ``ref_ns``; else None.
    The Python twin of the script's ``rw_newer_than``."""
    import posixpath

    p = path
    for _ in range(limit + 1):
        try:
            st = os.lstat(ctx.p(p))
        except OSError:
            return None
        if st.st_ctime_ns > ref_ns:
            return p
        if not _stat.S_ISLNK(st.st_mode):
            return None
        target = ctx.readlink(p)
        if target is None:
            return None
        p = posixpath.normpath(target if target.startswith("/") else posixpath.join(posixpath.dirname(p), target))
    return None


class Command(Step):
    """A command that runs when one of the ``after`` steps changed something in this run
    (``ldconfig`` after the linker configuration or the libraries changed) or, with ``output`` and
    ``inputs``, when its output is older than one of its inputs, like make: a run cut off between
    the package installation and ``ldconfig`` leaves /etc/ld.so.cache older than the ROCm
    libraries, and the next run sees it (``after`` alone only knows about the current run)."""

    kind = "command"
    required = ("argv", "after")
    defaults = {"handler": "", "output": "", "inputs": []}

    def validate(self) -> None:
        argv = self.params["argv"]
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
            raise ValueError("command argv must be a non-empty list of strings")
        if not self.params["after"]:
            raise ValueError("command needs the steps it follows (after)")
        if not self.params["handler"]:
            self.params["handler"] = f"Run {argv[0]} after step changes"
        if self.params["output"]:
            check_abs_path(self.params["output"], "command output")
        inputs = self.params["inputs"]
        if not isinstance(inputs, list) or (inputs and not self.params["output"]):
            raise ValueError("command inputs must be a list of paths, with an output")
        for p in inputs:
            check_abs_path(p, "command input")

    def stale(self, ctx) -> Optional[str]:
        """Why the output is out of date (None: up to date, or no output to judge)."""
        out = self.params["output"]
        if not out or not ctx.filesystem:
            return None
        try:
            ref = os.stat(ctx.p(out)).st_mtime_ns
        except FileNotFoundError:
            return f"{out} does not exist"
        except OSError:
            return None
        for path in self.params["inputs"]:
            hit = newer_than(ctx, ref, path)
            if hit is not None:
                return f"{hit} changed after {out} was written"
        return None

    def check(self, state) -> CheckResult:
        changed = state.any_changed(self.params["after"])
        if changed:
            return CheckResult(CHANGE, "runs because an earlier step changes something")
        why = self.stale(state.ctx)
        if why:
            return CheckResult(CHANGE, why)
        if changed is None:
            return CheckResult(UNKNOWN, "runs if an earlier step changes something")
        if self.params["output"] and state.ctx.filesystem:
            return CheckResult(OK, f"{self.params['output']} is newer than what it is made from")
        return CheckResult(OK, "nothing it depends on changes")

    def describe(self, state) -> Description:
        return Description(self.title, ["run " + " ".join(self.params["argv"])], commands=[list(self.params["argv"])])

    def apply(self, ctx) -> Result:
        why = None
        if not set(self.params["after"]) & ctx.changed:
            why = self.stale(ctx)
            if not why:
                return Result(OK, "nothing it depends on changed")
        ctx.check_call(self.params["argv"])
        return Result(CHANGED, "ran " + " ".join(self.params["argv"]) + (f" ({why})" if why else ""))

    def render_shell_body(self) -> List[str]:
        p = self.params
        after = " ".join(q(a) for a in p["after"])
        run = ["rw_need_root", "rw_run " + " ".join(q(a) for a in p["argv"]), f"rw_mark {q(self.id)}"]
        if not p["output"]:
            return [
                f"if ! rw_changed {after}; then",
                "  rw_ok 'nothing it depends on changed in this run'",
                "  return 0",
                "fi",
            ] + run
        return [
            f"local out={rooted(p['output'])} i stale=''",
            "local -a inputs=(" + " ".join(rooted(i) for i in p["inputs"]) + ")",
            f"if ! rw_changed {after}; then",
            '  if [[ ! -e $out ]]; then',
            '    stale="${out#"$RW_ROOT"} does not exist"',
            "  else",
            '    for i in "${inputs[@]}"; do',
            '      if rw_newer_than "$out" "$i"; then',
            '        stale="${i#"$RW_ROOT"} changed after ${out#"$RW_ROOT"} was written"',
            "        break",
            "      fi",
            "    done",
            "  fi",
            '  if [[ -z $stale ]]; then',
            '    rw_ok "nothing it depends on changed in this run, and ${out#"$RW_ROOT"} is up to date"',
            "    return 0",
            "  fi",
            '  rw_say "    $stale"',
            "fi",
        ] + run

    def render_ansible(self) -> List[Dict[str, Any]]:
        tasks: List[Dict[str, Any]] = [{"name": f"Step {self.index} {self.id}: run the pending handlers now",
                                        "ansible.builtin.meta": "flush_handlers"}]
        if self.params["output"]:
            # an earlier run cut off before its handlers ran: the output is older than its inputs
            found = self.var("stale")
            tasks += [
                {"name": f"Step {self.index} {self.id}: find inputs changed after the output was written",
                 "ansible.builtin.command": {"argv": J(self.var("find_argv"))},
                 "register": found, "changed_when": False, "failed_when": False, "check_mode": False},
                {"name": f"Step {self.index} {self.id}: run it when the output is out of date",
                 "ansible.builtin.command": {"argv": J(self.var("argv"))},
                 "when": f"{found}.stdout | length > 0", "changed_when": True},
            ]
        return tasks

    def ansible_vars(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {self.var("argv"): list(self.params["argv"])}
        if self.params["output"]:
            out[self.var("find_argv")] = (["find", "-L"] + list(self.params["inputs"])
                                          + ["-maxdepth", "0", "-cnewer", self.params["output"]])
        return out

    def ansible_handlers(self) -> List[Dict[str, Any]]:
        return [{"name": self.params["handler"], "ansible.builtin.command": {"argv": J(self.var("argv"))},
                 "changed_when": True}]

    @property
    def notify_from(self) -> List[str]:
        return list(self.params["after"])


class RebootFlag(Step):
    """Mark that a reboot is needed when the kernel driver changed (``/run/reboot-required``, the
    file Ubuntu's login message reads; it lives in /run, so a reboot clears it)."""

    kind = "reboot-flag"
    required = ("after",)
    defaults = {"path": "/run/reboot-required", "reason": "the amdgpu kernel driver changed"}

    CONTENT = "*** System restart required ***\n"

    def validate(self) -> None:
        check_abs_path(self.params["path"], "flag path")

    def check(self, state) -> CheckResult:
        changed = state.any_changed(self.params["after"])
        if changed:
            return CheckResult(CHANGE, f"a reboot will be needed: {self.params['reason']}")
        if changed is None:
            return CheckResult(UNKNOWN, "a reboot is needed if the kernel driver changes")
        return CheckResult(OK, "the kernel driver does not change")

    def describe(self, state) -> Description:
        return Description(self.title, [f"write {self.params['path']} ({self.params['reason']}); reboot afterwards"],
                           files=[FileChange(self.params["path"], "write")])

    def apply(self, ctx) -> Result:
        if not set(self.params["after"]) & ctx.changed:
            return Result(OK, "the kernel driver did not change")
        if ctx.read_bytes(self.params["path"]) is None:
            ctx.write_atomic(self.params["path"], self.CONTENT.encode(), 0o644)
        return Result(CHANGED, "reboot needed: " + self.params["reason"])

    def render_shell_body(self) -> List[str]:
        after = " ".join(q(a) for a in self.params["after"])
        return [
            f"local path={rooted(self.params['path'])}",
            f"if ! rw_changed {after}; then",
            "  rw_ok 'the kernel driver did not change in this run'",
            "  return 0",
            "fi",
            'if [[ ! -e $path ]]; then',
            f'  rw_put "$path" 0644 {q(self.CONTENT)}',
            "fi",
            f"rw_say {q('    a reboot is needed: ' + self.params['reason'])}",
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        return {self.var("path"): self.params["path"], self.var("content"): self.CONTENT,
                self.var("reason"): self.params["reason"]}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        needed = self.var("needed") + " | default(false)"
        return [
            {"name": f"{n}: run the pending handlers now", "ansible.builtin.meta": "flush_handlers"},
            {"name": f"{n}: flag the reboot the new kernel driver needs", "ansible.builtin.copy": {
                "dest": J(self.var("path")), "content": J(self.var("content")), "force": False, "owner": "root",
                "group": "root", "mode": "0644"}, "when": needed},
            {"name": f"{n}: reboot at the end (rocm_wizard_reboot), or say that a reboot is needed",
             "ansible.builtin.debug": {"msg": "a reboot is needed: {{ " + self.var("reason") + " }}; {{ 'this host "
                                       "reboots at the end of the play' if rocm_wizard_reboot | bool else 'reboot this "
                                       "host when convenient (or run with -e rocm_wizard_reboot=true)' }}"},
             "when": needed, "changed_when": "rocm_wizard_reboot | bool", "notify": [REBOOT_NOW]},
        ]

    def ansible_handlers(self) -> List[Dict[str, Any]]:
        return [
            {"name": REBOOT_HANDLER, "ansible.builtin.set_fact": {self.var("needed"): True}},
            {"name": REBOOT_NOW, "ansible.builtin.reboot": {
                "reboot_timeout": 1800, "msg": "rocm-wizard: rebooting for the new amdgpu kernel driver"},
             "when": "rocm_wizard_reboot | bool"},
        ]

    @property
    def notify_from(self) -> List[str]:
        return list(self.params["after"])
