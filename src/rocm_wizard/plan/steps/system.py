"""Users and groups; the Secure Boot key a DKMS driver needs."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from ..context import StepError
from ..core import CHANGE, CHANGED, FAILED, OK, UNKNOWN, CheckResult, Description, Result, Step
from ..shellquote import q
from ..state import UNKNOWN as UNK, groups_from_files
from ._util import J, SAFE_GROUP, SAFE_USER, check_abs_path, rooted, shell_array


class UserGroups(Step):
    """Add the user chosen when the plan was made (``--user``, the answers file, the TUI; by default
    the user who ran sudo when detecting, else the user detection saw) to groups such as render and
    video, so /dev/kfd and /dev/dri/renderD* are usable without root.  ``SUDO_USER`` at run time
    counts only for a plan that names no user.  A user that does not exist is an error: accounts are
    never created."""

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
        user = self.params["user"] or ctx.invoking_user(None) or ""
        return user if SAFE_USER.match(user) else ""

    def _missing(self, user: str) -> str:
        return (f"user {user} does not exist on this system: rocm-wizard adds an existing account to "
                f"{', '.join(self.params['groups'])} and never creates one; create it (adduser {user}) or choose "
                "another with --user NAME (answers file: user)")

    def check(self, state) -> CheckResult:
        user = self._user(state.ctx)
        if not user:
            if state.ctx.filesystem and state.ctx.commands and state.ctx.euid == 0:
                return CheckResult(OK, "run as root without sudo: no user to add")
            return CheckResult(UNKNOWN, "the user who runs the script with sudo is added at run time")
        if user == "root":
            return CheckResult(OK, "no user to add (root needs no group membership)")
        have = state.groups_of(user)
        if have is UNK and state.ctx.filesystem and state.ctx.read_text("/etc/passwd") is not None:
            return CheckResult(UNKNOWN, self._missing(user) + " (the step will stop the run)")
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
            return Result(FAILED, self._missing(user))
        existing = {line.split(":", 1)[0] for line in (group_text or "").splitlines()}
        missing = [g for g in self.params["groups"] if g in existing and g not in have]
        if not missing:
            return Result(OK, f"{user} is already in {', '.join(self.params['groups'])}")
        ctx.check_call(["usermod", "-a", "-G", ",".join(missing), user])
        return Result(CHANGED, f"added {user} to {', '.join(missing)} (log out and in again)")

    def render_shell_body(self) -> List[str]:
        return [
            f"local user={q(self.params['user'])} g",
            shell_array("groups", self.params["groups"]),
            "local -a missing=()",
            "# the user chosen when the plan was made; the one who runs sudo only when the plan names none",
            'if [[ -z $user ]]; then user=${SUDO_USER:-}; fi',
            'if [[ -z $user || $user == root ]]; then',
            "  rw_ok 'no user to add (root needs no group membership)'",
            "  return 0",
            "fi",
            'if ! rw_user_exists "$user"; then',
            '  if [[ $DRY_RUN == 1 ]]; then',
            '    rw_would "stop here: user $user does not exist (accounts are never created)"',
            "    return 0",
            "  fi",
            f'  rw_die "user $user does not exist on this system: this script adds an existing account to '
            f'{",".join(self.params["groups"])} and never creates one; create it (adduser $user) or make the plan '
            'again with --user NAME"',
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


SECURE_BOOT_VAR = "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"


class SecureBootKey(Step):
    """Before amdgpu-dkms is built: with UEFI Secure Boot on, the kernel loads a module DKMS builds
    only when it is signed by an enrolled key (a Machine Owner Key).  This step passes when Secure
    Boot is off or one of ``keys`` (the keys DKMS signs with) is enrolled; otherwise it stops the run
    before the driver is built and says how to enrol the key, or to plan with ``--no-dkms`` (the
    distribution kernel's own amdgpu, signed by the distribution).  Enrolling needs a password typed
    at the next boot, so no run can do it unattended.  Sources: AMD GPU Operator's Secure Boot guide
    (ROCm/gpu-operator docs/drivers/secure-boot.md: modules signed, public key in the MOK database;
    mokutil --sb-state, mokutil --list-enrolled, modinfo -F signer amdgpu), which points at the OS
    vendor's signing guide: Ubuntu's DKMS signs with /var/lib/shim-signed/mok/MOK.der
    (update-secureboot-policy, shim-signed) or, with dkms 3, /var/lib/dkms/mok.pub."""

    kind = "secure-boot-mok"
    required = ("keys",)

    def validate(self) -> None:
        keys = self.params["keys"]
        if not isinstance(keys, list) or not keys:
            raise ValueError("secure-boot-mok needs the list of keys DKMS signs with")
        for k in keys:
            check_abs_path(k, "MOK key")
            if any(c.isspace() or ord(c) < 32 for c in k):
                raise ValueError(f"MOK key path {k!r} must not contain spaces or control characters")

    def _live(self, ctx) -> Tuple[Optional[bool], str]:
        """(Secure Boot on? None when not known, and an enrolled key ("" when none), or what is pending)."""
        sb: Optional[bool] = None
        try:
            data = ctx.read_bytes(SECURE_BOOT_VAR) if ctx.filesystem else None
        except StepError:
            data = None
        if data is not None and len(data) == 5 and data[4] in (0, 1):
            sb = data[4] == 1
        elif ctx.filesystem and ctx.exists("/sys/bus") and not ctx.exists("/sys/firmware/efi"):
            sb = False  # booted without UEFI
        elif ctx.commands:
            from ...detect.probes.os import secure_boot_of

            res = ctx.run(["mokutil", "--sb-state"], timeout=60)
            sb = None if res.error else secure_boot_of(res.stdout + "\n" + res.stderr)
        if not sb or not ctx.commands:
            return sb, ""
        for key in self.params["keys"]:
            if not ctx.exists(key):
                continue
            res = ctx.run(["mokutil", "--test-key", key], timeout=60)
            said = (res.stdout or "") + (res.stderr or "")
            if "already enrolled" in said:
                return True, key
            if "enroll request" in said:
                return True, "pending:" + key
        return True, ""

    def _how(self) -> List[str]:
        keys = self.params["keys"]
        k = keys[0]
        return [
            f"if none of {', '.join(keys)} exists yet: sudo update-secureboot-policy --new-key (Ubuntu's shim-signed "
            f"makes {k}; DKMS signs the modules it builds with it)",
            f"sudo mokutil --import {k}  (choose a one-time password)",
            "reboot; in the blue MokManager screen: Enroll MOK, Continue, Yes, the password, Reboot",
            f"check: mokutil --test-key {k} says it is already enrolled; then run rocm-wizard again (after the "
            "install, modinfo -F signer amdgpu names the key)",
            "or plan again with --no-dkms: the distribution kernel's own amdgpu driver, signed by the distribution",
        ]

    def check(self, state) -> CheckResult:
        ctx = state.ctx
        if ctx.filesystem or ctx.commands:
            sb, key = self._live(ctx)
        else:
            sb, key = getattr(getattr(state.system, "os", None), "secure_boot", None), ""
        if sb is False:
            return CheckResult(OK, "Secure Boot is off: the module DKMS builds loads unsigned")
        if sb and key and not key.startswith("pending:"):
            return CheckResult(OK, f"Secure Boot is on and {key} (the key DKMS signs with) is enrolled")
        if sb:
            return CheckResult(CHANGE, "Secure Boot is on: the key DKMS signs amdgpu with must be enrolled (MOK) "
                                       "before the driver is built; the run stops here until it is (or --no-dkms)")
        return CheckResult(UNKNOWN, "the Secure Boot state is read when the plan runs")

    def describe(self, state) -> Description:
        return Description(self.title, [
            "with Secure Boot on, stop before amdgpu-dkms is built unless a key DKMS signs with is enrolled:",
        ] + self._how(), commands=[["mokutil", "--sb-state"], ["mokutil", "--test-key", self.params["keys"][0]]])

    def apply(self, ctx) -> Result:
        sb, key = self._live(ctx)
        if sb is False:
            return Result(OK, "Secure Boot is off")
        if sb is None:
            return Result(OK, "the Secure Boot state could not be read (no EFI variable, no mokutil): if it is on, "
                              "amdgpu will not load after the reboot until a key is enrolled: " + "; ".join(self._how()))
        if key and not key.startswith("pending:"):
            return Result(OK, f"Secure Boot is on and {key} is enrolled")
        if key:
            return Result(FAILED, f"Secure Boot is on and {key[8:]} waits to be enrolled: reboot and finish it in "
                                  "MokManager (Enroll MOK, Continue, Yes, the password), then run again; nothing was "
                                  "installed")
        return Result(FAILED, "Secure Boot is on and no key DKMS signs with is enrolled, so the amdgpu module built "
                              "now would not load after the reboot; nothing was installed. " + "; ".join(self._how()))

    def render_shell_body(self) -> List[str]:
        how = "; ".join(self._how())
        return [
            shell_array("keys", self.params["keys"]),
            f"local var={rooted(SECURE_BOOT_VAR)} sb='' k out",
            'if [[ -r $var ]]; then',
            '  sb=$(od -An -t u1 -j4 -N1 -- "$var" | tr -d " ")',
            "elif command -v mokutil >/dev/null 2>&1; then",
            '  case $(mokutil --sb-state 2>&1 || true) in',
            "    *'SecureBoot enabled'*) sb=1 ;;",
            "    *'SecureBoot disabled'* | *\"doesn't support Secure Boot\"* | *'not supported'*) sb=0 ;;",
            "  esac",
            'elif [[ -d $RW_ROOT/sys/bus && ! -e $RW_ROOT/sys/firmware/efi ]]; then',
            "  sb=0",
            "fi",
            'if [[ $sb == 0 ]]; then',
            "  rw_ok 'Secure Boot is off: the module DKMS builds loads unsigned'",
            "  return 0",
            "fi",
            'if [[ -z $sb ]]; then',
            f"  rw_warn {q('the Secure Boot state could not be read: if it is on, amdgpu will not load after the reboot until a key is enrolled: ' + how)}",
            "  return 0",
            "fi",
            'for k in "${keys[@]}"; do',
            '  [[ -e $RW_ROOT$k ]] || continue',
            '  out=$(mokutil --test-key "$k" 2>&1 || true)',
            '  if [[ $out == *"already enrolled"* ]]; then',
            '    rw_ok "Secure Boot is on and $k (the key DKMS signs with) is enrolled"',
            "    return 0",
            "  fi",
            "done",
            "if [[ $DRY_RUN == 1 ]]; then",
            f"  rw_would {q('stop here: Secure Boot is on and no key DKMS signs with is enrolled: ' + how)}",
            f"  rw_mark {q(self.id)}",
            "  return 0",
            "fi",
            f"rw_die {q('Secure Boot is on and no key DKMS signs with is enrolled, so the amdgpu module built now would not load after the reboot; nothing was installed. ' + how)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        return {self.var("keys"): list(self.params["keys"])}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        sb, tested = self.var("sb"), self.var("tested")
        on = f"'SecureBoot enabled' in ({sb}.stdout | default(''))"
        return [
            {"name": f"{n}: read the Secure Boot state", "ansible.builtin.command": {"argv": ["mokutil", "--sb-state"]},
             "register": sb, "changed_when": False, "failed_when": False, "check_mode": False},
            {"name": f"{n}: ask whether a key DKMS signs with is enrolled", "ansible.builtin.command": {
                "argv": ["mokutil", "--test-key", "{{ item }}"]},
             "loop": J(self.var("keys")), "register": tested, "changed_when": False, "failed_when": False,
             "check_mode": False, "when": on},
            {"name": f"{n}: with Secure Boot on, a key DKMS signs with must be enrolled", "ansible.builtin.assert": {
                "that": [f"not ({on}) or ({tested}.results | default([]) | selectattr('stdout', 'defined') "
                         "| selectattr('stdout', 'search', 'already enrolled') | list | length > 0)"],
                "fail_msg": "Secure Boot is on and no key DKMS signs with is enrolled, so the amdgpu module would not "
                            "load after the reboot: " + "; ".join(self._how())}},
        ]
