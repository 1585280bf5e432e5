"""The keyring of AMD's repository-setup package (``amdrocm-repo*``), checked where it lies.

When the Core SDK plan adopts the package's apt entry (``plan/build.py _adopt_repo_package``), apt
trusts whatever key the file that entry's ``Signed-By`` names holds.  This step checks that file
with the same packet-by-packet rule as a downloaded key (``plan/openpgp.py minimal_keyring``: exactly
the pinned primary key, neither expired nor revoked, no other primary key, no secret-key packet) and
never writes anything: the file is the package's.  A keyring that does not pass stops the run before
anything changes (the step is the plan's first); the script (``rw_key_is``) and the playbook (gpg's
``--show-keys`` and an assert) apply the same rule."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from ..context import StepError
from ..core import FAILED, OK, UNKNOWN, CheckResult, Description, Result, Step
from ..shellquote import q
from ..state import ABSENT, PRESENT
from ._util import J, SAFE_PKG, check_abs_path, rooted


class AptKeyCheck(Step):
    """Check, without writing, that each keyring in ``keyrings`` holds exactly key ``fingerprint``."""

    kind = "apt-key-check"
    required = ("keyrings", "fingerprint", "package")

    def validate(self) -> None:
        from ..openpgp import normalize_fingerprint

        keyrings = self.params["keyrings"]
        if not isinstance(keyrings, list) or not keyrings:
            raise ValueError("keyrings must be a non-empty list of paths")
        for k in keyrings:
            check_abs_path(k, "keyring")
        fpr = normalize_fingerprint(self.params["fingerprint"])
        if fpr is None:
            raise ValueError(f"key fingerprint {self.params['fingerprint']!r} is not 40 (or 64) hex digits")
        self.params["fingerprint"] = fpr
        if not SAFE_PKG.match(str(self.params["package"])):
            raise ValueError(f"package name {self.params['package']!r} is not valid")

    def _why_not(self, data: Optional[bytes], now: Optional[float]) -> Optional[str]:
        """None when ``data`` is exactly the pinned key; else why not."""
        from ..openpgp import KeyFormatError, minimal_keyring

        if data is None:
            return "does not exist"
        try:
            minimal_keyring(data, self.params["fingerprint"], now)
        except KeyFormatError as exc:
            return f"is refused: {exc}"
        return None

    def _refusal(self, keyring: str, why: str) -> str:
        p = self.params
        return (f"{keyring}, the keyring that AMD's repository-setup package {p['package']} names in its Signed-By, "
                f"{why}: apt would trust it for the Core SDK repository, and it must hold exactly the Core SDK key "
                f"{p['fingerprint']}. Nothing was changed. If the file was altered, reinstall the package from AMD "
                f"(apt-get install --reinstall {p['package']}); or remove it (apt-get purge {p['package']}) and plan "
                "again: rocm-wizard then writes its own entry and its own checked key")

    def check(self, state) -> CheckResult:
        now = getattr(state.ctx, "now", None)
        for k in self.params["keyrings"]:
            view = state.file(k)
            if view.state == ABSENT:
                return CheckResult(UNKNOWN, self._refusal(k, "does not exist") + " (the run stops at this step)")
            if view.state != PRESENT:
                return CheckResult(UNKNOWN, f"{k}: not known here; checked on the machine against key "
                                   f"{self.params['fingerprint']} before anything changes")
            why = self._why_not(view.data or b"", now)
            if why is not None:
                return CheckResult(UNKNOWN, self._refusal(k, why) + " (the run stops at this step)")
        return CheckResult(OK, f"{', '.join(self.params['keyrings'])} holds key {self.params['fingerprint']}")

    def describe(self, state) -> Description:
        p = self.params
        return Description(self.title, [
            f"check that {', '.join(p['keyrings'])} (AMD's repository-setup package {p['package']}: its entry's "
            f"Signed-By) holds exactly the key {p['fingerprint']}, neither expired nor revoked, and no other key or "
            "secret-key packet",
            "nothing is written (the file is the package's); anything else stops the run here, before any change",
        ])

    def apply(self, ctx) -> Result:
        for k in self.params["keyrings"]:
            try:
                data = ctx.read_bytes(k)
            except StepError as exc:
                return Result(FAILED, str(exc))
            why = self._why_not(data, ctx.now)
            if why is not None:
                return Result(FAILED, self._refusal(k, why))
        return Result(OK, f"{', '.join(self.params['keyrings'])} holds key {self.params['fingerprint']}")

    def render_shell_body(self) -> List[str]:
        p = self.params
        lines = [f"local fpr={q(p['fingerprint'])} pkg={q(p['package'])} keyring"]
        for k in p["keyrings"]:
            lines += [
                f"keyring={rooted(k)}",
                'if ! rw_key_is "$keyring" "$fpr"; then',
                '  rw_die "${keyring#"$RW_ROOT"}, the keyring that AMD\'s repository-setup package $pkg names in its '
                'Signed-By, is not exactly the Core SDK key $fpr (missing, another key, a secret-key packet, or it '
                'expired or was revoked). Nothing was changed. Reinstall the package from AMD (apt-get install '
                '--reinstall $pkg) if the file was altered, or remove it (apt-get purge $pkg) and plan again"',
                "fi",
            ]
        lines.append(f'rw_ok {q(", ".join(p["keyrings"]))}" holds key $fpr"')
        return lines

    def ansible_vars(self) -> Dict[str, Any]:
        p = self.params
        out: Dict[str, Any] = {self.var("fingerprint"): p["fingerprint"], self.var("package"): p["package"]}
        for i, k in enumerate(p["keyrings"]):
            out[self.var(f"keyring{i}")] = k
        return out

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        tmp = self.var("tmp")
        tasks: List[Dict[str, Any]] = [
            {"name": f"{n}: make a temporary GnuPG home (runs in --check too)", "ansible.builtin.tempfile":
                {"state": "directory", "suffix": ".rocm-wizard"},
             "register": tmp, "changed_when": False, "check_mode": False}]
        for i, _k in enumerate(self.params["keyrings"]):
            shown = self.var(f"shown{i}")
            lines = f"{shown}.stdout_lines | select('match', '^(pub|fpr):') | list"
            pubs = f"{shown}.stdout_lines | select('match', '^pub:') | list"
            tasks += [
                {"name": f"{n}: read the fingerprints of the package's keyring (reads only; runs in --check too)",
                 "ansible.builtin.command":
                    {"argv": ["gpg", "--batch", "--with-colons", "--show-keys", J(self.var(f"keyring{i}"))]},
                 "environment": {"GNUPGHOME": "{{ " + tmp + ".path }}"},
                 "register": shown, "changed_when": False, "failed_when": False, "check_mode": False},
                {"name": f"{n}: refuse a keyring that is not exactly the Core SDK key", "ansible.builtin.assert": {
                    "that": [f"{shown}.rc == 0",
                             f"({pubs} | length) == 1",
                             f"({shown}.stdout_lines | select('match', '^(sec|ssb):') | list | length) == 0",
                             f"({lines})[1].split(':')[9] == {self.var('fingerprint')} | string",
                             f"({pubs} | first).split(':')[1] not in ['e', 'r']"],
                    "fail_msg": "the keyring that AMD's repository-setup package {{ " + self.var("package") + " }} "
                                "names in its Signed-By ({{ " + self.var(f"keyring{i}") + " }}) is not exactly the "
                                "Core SDK key {{ " + self.var("fingerprint") + " }}; nothing was changed. Reinstall "
                                "the package from AMD, or purge it and plan again"}},
            ]
        tasks.append({"name": f"{n}: remove the temporary GnuPG home (runs in --check too)", "ansible.builtin.file":
                      {"path": "{{ " + tmp + ".path }}", "state": "absent"},
                      "changed_when": False, "check_mode": False})
        return tasks
