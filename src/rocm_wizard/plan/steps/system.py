"""Users and groups."""
from __future__ import annotations

from typing import Any, Dict, List

from ..core import CHANGE, CHANGED, FAILED, OK, UNKNOWN, CheckResult, Description, Result, Step
from ..shellquote import q
from ..state import UNKNOWN as UNK, groups_from_files
from ._util import J, SAFE_GROUP, SAFE_USER, shell_array


class UserGroups(Step):
    """Add the invoking user (``SUDO_USER`` under sudo, else the user detection saw) to groups
    such as render and video, so /dev/kfd and /dev/dri/renderD* are usable without root."""

    kind = "user-groups"
    required = ("groups",)
    defaults = {"user": ""}

    def validate(self) -> None:
        for g in self.params["groups"]:
            if not SAFE_GROUP.match(str(g)):
                raise ValueError(f"group name {g!r} is not valid")
        user = self.params["user"]
        if user and not SAFE_USER.match(user):
            raise ValueError(f"user name {user!r} is not valid")

    def _user(self, ctx) -> str:
        user = ctx.invoking_user(self.params["user"] or None) or ""
        return user if SAFE_USER.match(user) else ""

    def check(self, state) -> CheckResult:
        user = self._user(state.ctx)
        if not user:
            if state.ctx.filesystem and state.ctx.commands and state.ctx.euid == 0:
                return CheckResult(OK, "run as root without sudo: no user to add")
            return CheckResult(UNKNOWN, "the user who runs the script with sudo is added at run time")
        if user == "root":
            return CheckResult(OK, "no user to add (root needs no group membership)")
        have = state.groups_of(user)
        if have is UNK:
            return CheckResult(UNKNOWN, f"the groups of {user} are not known")
        missing = [g for g in self.params["groups"] if g not in have and state.group_exists(g) is not False]
        if not missing:
            return CheckResult(OK, f"{user} is in {', '.join(self.params['groups'])}")
        return CheckResult(CHANGE, f"add {user} to {', '.join(missing)}")

    def project(self, state) -> None:
        user = self._user(state.ctx)
        have = state.groups_of(user) if user else UNK
        if user and have is not UNK:
            state.set_groups(user, set(have) | set(self.params["groups"]))

    def describe(self, state) -> Description:
        user = self._user(state.ctx) or "(the user who runs sudo)"
        groups = ",".join(self.params["groups"])
        return Description(self.title, [f"usermod -a -G {groups} {user}; the user logs out and in again"],
                           commands=[["usermod", "-a", "-G", groups, user]])

    def apply(self, ctx) -> Result:
        user = self._user(ctx)
        if not user or user == "root":
            return Result(OK, "no user to add")
        group_text = ctx.read_text("/etc/group")
        have = groups_from_files(ctx.read_text("/etc/passwd"), group_text, user)
        if have is None:
            return Result(FAILED, f"user {user} does not exist")
        existing = {line.split(":", 1)[0] for line in (group_text or "").splitlines()}
        missing = [g for g in self.params["groups"] if g in existing and g not in have]
        if not missing:
            return Result(OK, f"{user} is already in {', '.join(self.params['groups'])}")
        ctx.check_call(["usermod", "-a", "-G", ",".join(missing), user])
        return Result(CHANGED, f"added {user} to {', '.join(missing)} (log out and in again)")

    def render_shell_body(self) -> List[str]:
        return [
            f"local user=${{SUDO_USER:-}} fallback={q(self.params['user'])} g",
            shell_array("groups", self.params["groups"]),
            "local -a missing=()",
            'if [[ -z $user || $user == root ]]; then user=$fallback; fi',
            'if [[ -z $user || $user == root ]]; then',
            "  rw_ok 'no user to add (root needs no group membership)'",
            "  return 0",
            "fi",
            'if ! rw_user_exists "$user"; then',
            '  rw_warn "user $user does not exist on this system; not changed"',
            "  return 0",
            "fi",
            'for g in "${groups[@]}"; do',
            '  if ! rw_gid "$g" >/dev/null; then',
            '    rw_warn "group $g does not exist on this system; skipped"',
            "    continue",
            "  fi",
            '  if ! rw_in_group "$user" "$g"; then missing+=("$g"); fi',
            "done",
            'if [[ ${#missing[@]} -eq 0 ]]; then',
            '  rw_ok "$user is in ${groups[*]}"',
            "  return 0",
            "fi",
            'if [[ $DRY_RUN != 1 && $EUID -ne 0 ]]; then',
            '  rw_warn "$user is not in ${missing[*]}: run  sudo usermod -a -G $(IFS=,; printf \'%s\' "${missing[*]}") $user"',
            "  return 0",
            "fi",
            'rw_run usermod -a -G "$(IFS=,; printf \'%s\' "${missing[*]}")" "$user"',
            'rw_say "    $user must log out and in again (or reboot) for the new groups to apply"',
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        return {self.var("groups"): list(self.params["groups"])}

    def render_ansible(self) -> List[Dict[str, Any]]:
        # never creates an account: a GPU user without one is an error before anything is changed;
        # groups this host lacks are left out (as the script does)
        n = f"Step {self.index} {self.id}"
        return [
            {"name": f"{n}: read the accounts of this host", "ansible.builtin.getent": {"database": "passwd"}},
            {"name": f"{n}: read the groups of this host", "ansible.builtin.getent": {"database": "group"}},
            {"name": f"{n}: refuse GPU users who have no account (none is created)", "ansible.builtin.assert": {
                "that": ["rocm_wizard_gpu_users | difference(ansible_facts['getent_passwd'] | list) | length == 0"],
                "fail_msg": "no account on this host for: {{ rocm_wizard_gpu_users | difference(ansible_facts["
                            "'getent_passwd'] | list) | join(', ') }}; create it first, or set rocm_wizard_gpu_users "
                            "for this host"}},
            {"name": f"{n}: add the GPU users to the groups this host has", "ansible.builtin.user": {
                "name": "{{ item }}", "groups": "{{ " + self.var("groups") + " | select('in', ansible_facts['getent_group'])"
                                                " | list }}", "append": True},
             "loop": "{{ rocm_wizard_gpu_users }}", "when": "item != 'root'"},
        ]
