"""Put back what a run changed that can be put back, and say plainly what cannot.

Restored: every file the run wrote, removed or re-pointed (apt sources, keyring, pin, linker
configuration, the venv's activate script and env file, the venv link, a venv directory moved aside
for it), from the state recorded in
the journal before the first change.  Not undone: packages (apt, dnf or zypper, pip) and the kernel module; for
those the exact commands that would go back are printed.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..fsutil import copy_atomic
from ..plan.shellquote import q
from ..runas import LINK_AS_SH, MOVE_AS_SH, REMOVE_AS_SH, WRITE_AS_SH, run_as, state_as


@dataclass
class RestoreResult:
    restored: List[str] = field(default_factory=list)  # plain-language lines
    problems: List[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _p(root: str, path: str) -> str:
    return path if root in ("", "/") else os.path.join(root, path.lstrip("/"))


FREEZE_SAVED = "saved pip freeze to "


def kept_files(journal_data: Dict[str, Any]) -> List[str]:
    """Files the run created that rollback keeps because its account tells the user to use them:
    the ``pip freeze`` files the run saved (a changed ``venv`` step's detail names each)."""
    out = []
    for step in journal_data.get("steps", []):
        detail = step.get("detail") or ""
        if step.get("status") == "changed" and step.get("kind") == "venv" and FREEZE_SAVED in detail:
            out.append(detail.split(FREEZE_SAVED, 1)[1].strip())
    return out


def _state(real: str, user: Optional[str]) -> Tuple[str, bytes]:
    """What is at ``real`` now: ("absent" | "other" | "link" | "file", the target or content); as
    ``user`` when given (no link of theirs followed by root)."""
    if user:
        kind, _, data = state_as(user, real)
        return kind, data
    if os.path.islink(real):
        return "link", os.fsencode(os.readlink(real))
    if os.path.isfile(real):
        with open(real, "rb") as fh:
            return "file", fh.read()
    return ("other" if os.path.lexists(real) else "absent"), b""


def restore_files(files: List[Dict[str, Any]], root: str = "/", dry_run: bool = False,
                  keep: Sequence[str] = ()) -> RestoreResult:
    """Bring each recorded file back to its state before the run (newest change undone first);
    a file in ``keep`` that did not exist before stays (and is said to).  A file recorded with a
    ``user`` (inside a venv, which its owner controls) is looked at and put back by that user, so
    a link they planted since leads only where they could write anyway."""
    res = RestoreResult()
    for entry in reversed(files):
        path = entry.get("path")
        if not isinstance(path, str) or not path.startswith("/"):
            res.problems.append(f"journal entry without a valid path: {entry!r}")
            continue
        user = entry.get("user")
        user = user if isinstance(user, str) and user != "root" and os.geteuid() == 0 else None
        real = _p(root, path)
        before = entry.get("before")
        try:
            kind, cur = _state(real, user)
            if path in keep and before == "absent":
                if kind != "absent":
                    res.restored.append(f"kept {path} (the package list from before the run)")
                continue
            if before == "absent":
                if kind != "absent":
                    if kind == "other":
                        res.problems.append(f"{path} is now a directory; not removing it")
                        continue
                    if not dry_run:
                        if user:
                            run_as(user, REMOVE_AS_SH, real)
                        else:
                            os.unlink(real)
                    res.restored.append(f"removed {path} (it did not exist before)")
            elif before == "link":
                target = entry.get("link")
                if not isinstance(target, str):
                    res.problems.append(f"{path}: the journal lacks the link's old target")
                    continue
                if kind == "link" and cur == os.fsencode(target):
                    continue
                if kind not in ("link", "absent"):
                    res.problems.append(f"{path} is no longer a symbolic link; not replacing it")
                    continue
                if not dry_run:
                    if user:
                        run_as(user, LINK_AS_SH, real, target)
                    else:
                        tmp = real + ".rocm-wizard-rollback"
                        if os.path.lexists(tmp):
                            os.unlink(tmp)
                        os.symlink(target, tmp)
                        os.replace(tmp, real)
                res.restored.append(f"pointed {path} back at {target}")
            elif before == "dir":  # a directory moved aside (a real venv before the venv link)
                moved = entry.get("moved")
                if not isinstance(moved, str) or not moved.startswith("/"):
                    res.problems.append(f"{path}: the journal lacks where the directory was moved")
                    continue
                if not os.path.lexists(_p(root, moved)):
                    if kind == "other":
                        continue  # moved back already
                    res.problems.append(f"{path}: the directory moved to {moved} is no longer there")
                    continue
                if kind not in ("link", "absent"):
                    res.problems.append(f"{path} is neither the run's link nor absent; not moving {moved} back")
                    continue
                if not dry_run:
                    if user:
                        if kind == "link":
                            run_as(user, REMOVE_AS_SH, real)
                        run_as(user, MOVE_AS_SH, _p(root, moved), real)
                    else:
                        if kind == "link":
                            os.unlink(real)
                        os.rename(_p(root, moved), real)
                res.restored.append(f"moved {moved} back to {path}")
            elif before == "file":
                backup = entry.get("backup")
                if not isinstance(backup, str) or not os.path.isfile(_p(root, backup)):
                    res.problems.append(f"{path}: its backup {backup} is missing; cannot restore it")
                    continue
                src = _p(root, backup)
                with open(src, "rb") as fh:
                    old = fh.read()
                if kind == "file" and cur == old:
                    continue
                if not dry_run:
                    if user:
                        run_as(user, WRITE_AS_SH, real, format(os.stat(src).st_mode & 0o7777, "o"), input=old)
                    else:
                        copy_atomic(src, real)
                res.restored.append(f"restored {path} from {backup}")
            else:
                res.problems.append(f"{path}: unknown earlier state {before!r} in the journal")
        except OSError as exc:
            res.problems.append(f"{path}: {exc.strerror or exc}")
    return res


def package_changes(before: Optional[Dict[str, str]], after: Optional[Dict[str, str]]) -> List[Dict[str, Any]]:
    if before is None or after is None:
        return []
    out = []
    for name in sorted(set(before) | set(after)):
        if before.get(name) != after.get(name):
            out.append({"name": name, "before": before.get(name), "after": after.get(name)})
    return out


def _rpm_cannot_undo(changes: List[Dict[str, Any]], tool: str) -> List[str]:
    """The rpm packages a dnf or zypper run changed, and the commands that would go back: dnf
    ``downgrade``/``install``/``remove`` of the exact versions (zypper: ``install --oldpackage``), once
    rollback has put the old ``.repo`` files back; signing keys the run imported with ``rpm -e``."""
    if not changes:
        return []
    keys = [c for c in changes if c["name"].startswith("gpg-pubkey-")]
    pkgs = [c for c in changes if not c["name"].startswith("gpg-pubkey-")]
    lines = ["Packages are not changed back by rollback:"]
    for c in pkgs + keys:
        what = c["name"] if c not in keys else f"signing key {c['name']}"
        lines.append(f"  {what}: {c['before'] or '(not installed)'} -> {c['after'] or '(removed)'}")

    def nevr(c: Dict[str, Any]) -> Optional[str]:
        if ", " in c["before"]:  # several versions were installed: which to go back to is a choice
            return None
        return f"{c['name']}={c['before']}" if tool == "zypper" else f"{c['name']}-{c['before']}"

    older = [c for c in pkgs if c["before"] and c["after"]]
    removed = [c for c in pkgs if c["before"] and not c["after"]]
    added = [c["name"] for c in pkgs if not c["before"] and c["after"]]
    by_hand = [c["name"] for c in older + removed if nevr(c) is None]
    lines.append("  To go back (with the old repositories restored):")
    if tool == "zypper":
        if older or removed:
            lines.append("    sudo zypper refresh")
            old = [nevr(c) for c in older + removed if nevr(c)]
            if old:
                lines.append("    sudo zypper install --oldpackage " + " ".join(q(x) for x in old))
        if added:
            lines.append("    sudo zypper remove " + " ".join(q(x) for x in added))
    else:
        down = [nevr(c) for c in older if nevr(c)]
        back = [nevr(c) for c in removed if nevr(c)]
        if down:
            lines.append("    sudo dnf --refresh downgrade " + " ".join(q(x) for x in down))
        if back:
            lines.append("    sudo dnf --refresh install " + " ".join(q(x) for x in back))
        if added:
            lines.append("    sudo dnf remove " + " ".join(q(x) for x in added))
    if by_hand:
        lines.append("    (" + ", ".join(by_hand) + ": several versions were installed before; pick them by hand)")
    for c in keys:
        if not c["before"] and c["after"] and ", " not in c["after"]:
            lines.append(f"    sudo rpm -e {q('gpg-pubkey-' + c['after'])}   (only if no other repository is signed "
                         "with this key)")
    return lines


def cannot_undo(changes: List[Dict[str, Any]], journal_data: Dict[str, Any]) -> List[str]:
    """Lines saying what rollback leaves as it is, with the commands that would go back."""
    from .pkgdb import APT, tool_of

    lines: List[str] = []
    tool = tool_of(s.get("kind", "") for s in journal_data.get("steps", []))
    if tool != APT:
        lines += _rpm_cannot_undo(changes, tool)
    elif changes:
        downgrade = [f"{c['name']}={c['before']}" for c in changes if c["before"] and c["after"]]
        added = [c["name"] for c in changes if not c["before"] and c["after"]]
        removed = [f"{c['name']}={c['before']}" for c in changes if c["before"] and not c["after"]]
        lines.append("Packages are not changed back by rollback:")
        for c in changes:
            lines.append(f"  {c['name']}: {c['before'] or '(not installed)'} -> {c['after'] or '(removed)'}")
        lines.append("  To go back (with the old repositories restored):")
        lines.append("    sudo apt-get update")
        if downgrade or removed:
            lines.append("    sudo apt-get install --allow-downgrades " + " ".join(q(x) for x in downgrade + removed))
        if added:
            lines.append("    sudo apt-get remove " + " ".join(q(x) for x in added))
    kernel = [c for c in changes if c["name"].startswith("amdgpu-dkms")]
    if kernel:
        k = kernel[0]
        lines.append(f"The amdgpu kernel module stays the new one ({k['after'] or 'removed'}) until the packages "
                     "above are changed back and the machine reboots: sudo reboot")
    for step in journal_data.get("steps", []):
        if step.get("status") != "changed":
            continue
        if step.get("kind") in ("pip-install", "pip-uninstall", "pip-restore"):
            lines.append(f"The packages of the venv changed in step {step['id']} ({step.get('detail', '')}).")
        if step.get("kind") == "venv" and FREEZE_SAVED in (step.get("detail") or ""):
            freeze = step["detail"].split(FREEZE_SAVED, 1)[1].strip()
            venv = os.path.dirname(os.path.dirname(freeze))
            lines.append(f"  To go back: {q(venv + '/bin/python')} -m pip install --force-reinstall -r {q(freeze)}"
                         " --extra-index-url <the PyTorch index of the old torch build>")
        if step.get("kind") == "venv" and (step.get("detail") or "").startswith("created "):
            lines.append(f"The new venv {step['detail'][8:]} is kept (remove it by hand if it is not wanted).")
        if step.get("kind") == "user-groups":
            lines.append(f"Group membership is not changed back ({step.get('detail', '')}); "
                         "to undo: sudo gpasswd -d USER GROUP")
    return lines
