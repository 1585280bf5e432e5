"""What dnf and zypper hosts share: the signing key imported into rpm's database only after it was
checked packet by packet against its fingerprint (the same rule as the apt keyring,
:func:`rocm_wizard.plan.openpgp.minimal_keyring`), and the INI ``.repo`` files both read.

* :class:`RpmKey` (kind ``rpm-key``; zypper plans' ``zypper-key`` is the same step): fetch the
  key, refuse anything but exactly the expected primary key (no other key, no secret-key packet, not expired, not revoked), write that key alone,
  ASCII-armoured, to a file under ``/etc/pki/rpm-gpg`` (the ``gpgkey=file://`` of the ``.repo``
  files, so the package manager never imports a key it downloaded itself), then ``rpm --import`` it.
* :func:`repo_ini`: the text of a ``.repo`` file (dnf's ``/etc/yum.repos.d`` and zypper's
  ``/etc/zypp/repos.d`` read the same INI keys ``name``, ``baseurl``, ``enabled``, ``priority``,
  ``gpgcheck``, ``repo_gpgcheck``, ``gpgkey``); written whole by the ``file`` step, so its dry run,
  backup and rollback are that step's.
"""
from __future__ import annotations

import base64
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..context import StepError
from ..core import CHANGE, CHANGED, FAILED, OK, UNKNOWN, CheckResult, Description, FileChange, Result, Step
from ..shellquote import q
from ..state import ABSENT, PRESENT
from ._util import J, check_abs_path, check_url, rooted, with_temp_dir

_INI_KEYS = ("name", "baseurl", "enabled", "priority", "gpgcheck", "repo_gpgcheck", "gpgkey", "skip_if_unavailable",
             "type", "autorefresh")


def repo_ini(sections: Sequence[Dict[str, Any]], header: str = "") -> str:
    """The text of a ``.repo`` file with ``sections`` (each a dict with ``id`` and INI keys, written in
    a fixed order; booleans as 1/0).  Values are checked: one line, no ``[``/``]`` in ids."""
    out: List[str] = [ln if ln.startswith("#") else "# " + ln for ln in header.splitlines()]
    for sec in sections:
        ident = str(sec["id"])
        if not ident or any(c in ident for c in "[]\n\r ") or not ident.isprintable():
            raise ValueError(f"repository id {ident!r} is not valid")
        if out:
            out.append("")
        out.append(f"[{ident}]")
        for key in _INI_KEYS:
            if key not in sec or sec[key] is None:
                continue
            value = sec[key]
            text = ("1" if value else "0") if isinstance(value, bool) else str(value)
            if "\n" in text or "\r" in text or not text.isprintable():
                raise ValueError(f"{key} of repository {ident} must be one printable line")
            out.append(f"{key}={text}")
    return "\n".join(out) + "\n"


def rpm_key_name(fingerprint: str) -> str:
    """The name rpm gives an imported v4 key: ``gpg-pubkey-<last 8 hex digits, lower case>``."""
    return "gpg-pubkey-" + fingerprint[-8:].lower()


def _crc24(data: bytes) -> int:
    crc = 0xB704CE
    for byte in data:
        crc ^= byte << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


def armor_public_key(binary: bytes) -> bytes:
    """RFC 4880 ASCII armour of a binary public key (``rpm --import`` reads armoured keys only)."""
    body = base64.b64encode(binary).decode()
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    crc = base64.b64encode(_crc24(binary).to_bytes(3, "big")).decode()
    return ("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n" + "\n".join(lines) + "\n=" + crc +
            "\n-----END PGP PUBLIC KEY BLOCK-----\n").encode()


def rpm_query(ctx, *args: str, timeout: float = 120) -> Tuple[Optional[int], str]:
    """``rpm -q ARGS`` on the target: (exit status, stdout); (None, "") when rpm cannot be asked (a
    snapshot's context runs no commands, or rpm cannot be started)."""
    if not getattr(ctx, "commands", True):
        return None, ""
    res = ctx.run(["rpm", "-q", *args], timeout=timeout)
    if res.error or res.rc is None:
        return None, ""
    return res.rc, res.stdout or ""


def rpm_has_key(ctx, fingerprint: str) -> Optional[bool]:
    """Whether rpm's database holds the key (None when rpm cannot be asked)."""
    rc, _out = rpm_query(ctx, rpm_key_name(fingerprint))
    return None if rc is None else rc == 0


def rpm_import_key(ctx, key_file: str, fingerprint: str) -> None:
    """``rpm --import`` of a key file that was already checked; then the database must hold it."""
    ctx.check_call(["rpm", "--import", key_file], timeout=300)
    if rpm_has_key(ctx, fingerprint) is False:
        raise StepError(f"rpm --import {key_file} ran, but rpm's database does not hold {rpm_key_name(fingerprint)}")


def rpm_versions(ctx, name: str) -> Optional[List[str]]:
    """Installed ``VERSION-RELEASE`` of ``name`` (empty: not installed; None: rpm cannot be asked)."""
    rc, out = rpm_query(ctx, "--qf", "%{VERSION}-%{RELEASE}\\n", name)
    if rc is None:
        return None
    if rc != 0:
        return []
    return [ln.strip() for ln in out.splitlines() if ln.strip() and " " not in ln.strip()]


class RpmKey(Step):
    """Fetch the repository signing key, check it against its fingerprint *before* anything is
    written or imported, store it alone (armoured) as ``key_file``, then ``rpm --import`` that file.
    One step for dnf and zypper hosts; the kinds differ only in their name (plans name them) and in
    what ``describe`` says of the package manager (``manager_note``)."""

    kind = "rpm-key"
    required = ("url", "fingerprint", "key_file")
    manager_note = "dnf reads it through the gpgkey=file:// of AMD's .repo files; it never downloads a key itself"

    def validate(self) -> None:
        from ..openpgp import normalize_fingerprint

        check_url(self.params["url"], "key URL")
        fpr = normalize_fingerprint(self.params["fingerprint"])
        if fpr is None or len(fpr) != 40:
            raise ValueError(f"key fingerprint {self.params['fingerprint']!r} is not 40 hex digits (an OpenPGP v4 key)")
        self.params["fingerprint"] = fpr
        check_abs_path(self.params["key_file"], "key file")

    def _judge(self, data: bytes, now: float) -> Tuple[Optional[bytes], str]:
        """(the key alone, binary; why) or (None, why not): armoured or binary input."""
        from ..openpgp import KeyFormatError, dearmor, is_armored, minimal_keyring

        try:
            raw = dearmor(data) if is_armored(data) else data
            _key, keyring = minimal_keyring(raw, self.params["fingerprint"], now)
        except (KeyFormatError, ValueError) as exc:
            return None, f"is refused: {exc}"
        return keyring, f"holds key {self.params['fingerprint']}"

    def check(self, state) -> CheckResult:
        p = self.params
        view = state.file(p["key_file"])
        if view.state == ABSENT:
            return CheckResult(CHANGE, f"{p['key_file']} does not exist")
        if view.state != PRESENT:
            return CheckResult(UNKNOWN, f"{p['key_file']}: not known from the snapshot")
        if view.source.startswith("plan:"):
            return CheckResult(CHANGE, "written by an earlier step")
        good, why = self._judge(view.data or b"", state.ctx.now)
        if good is None:
            return CheckResult(CHANGE, f"{p['key_file']} {why}")
        has = rpm_has_key(state.ctx, p["fingerprint"])
        if has is None:
            return CheckResult(UNKNOWN, f"{p['key_file']} {why}; whether rpm's database holds it is not known")
        if not has:
            return CheckResult(CHANGE, f"{p['key_file']} {why}, not yet imported into rpm's database")
        return CheckResult(OK, f"{p['key_file']} {why}; rpm's database holds it ({rpm_key_name(p['fingerprint'])})")

    def project(self, state) -> None:
        state.set_file(self.params["key_file"], b"(key " + self.params["fingerprint"].encode() + b")", self.id)

    def describe(self, state) -> Description:
        p = self.params
        return Description(self.title, [
            f"download {p['url']}",
            f"refuse it unless it holds exactly the key {p['fingerprint']}, neither expired nor revoked, "
            "and no other key or secret-key packet; nothing is written or imported before that",
            f"store that key alone, freshly exported and ASCII-armoured, as {p['key_file']} (mode 0644)",
            f"rpm --import {p['key_file']} (rpm's database then holds {rpm_key_name(p['fingerprint'])}; "
            f"{self.manager_note})",
        ], files=[FileChange(p["key_file"], "write", note="armoured public key")],
            commands=[["rpm", "--import", p["key_file"]]])

    def apply(self, ctx) -> Result:
        p = self.params
        try:
            current = ctx.read_bytes(p["key_file"])
        except StepError as exc:
            return Result(FAILED, str(exc))
        done = []
        if current is None or self._judge(current, ctx.now)[0] is None:
            try:
                data = ctx.fetch(p["url"])
            except StepError as exc:
                return Result(FAILED, str(exc))
            keyring, why = self._judge(data, ctx.now)
            if keyring is None:
                return Result(FAILED, f"the key downloaded from {p['url']} {why}; nothing was written or imported")
            if current is not None:
                ctx.backup(p["key_file"])
            ctx.makedirs(os.path.dirname(p["key_file"]))
            ctx.write_atomic(p["key_file"], armor_public_key(keyring), 0o644)
            done.append(f"wrote {p['key_file']} (key {p['fingerprint']})")
        has = rpm_has_key(ctx, p["fingerprint"])
        if has is None:
            return Result(FAILED, "rpm cannot be run: the key cannot be imported")
        if not has:
            try:
                rpm_import_key(ctx, p["key_file"], p["fingerprint"])
            except StepError as exc:
                return Result(FAILED, str(exc))
            done.append(f"imported it with rpm --import ({rpm_key_name(p['fingerprint'])})")
        if not done:
            return Result(OK, f"{p['key_file']} holds key {p['fingerprint']}; rpm's database holds it")
        return Result(CHANGED, "; ".join(done))

    def render_shell_body(self) -> List[str]:
        p = self.params
        return [
            f"local url={q(p['url'])} fpr={q(p['fingerprint'])} keyfile={rooted(p['key_file'])} "
            f"rpmname={q(rpm_key_name(p['fingerprint']))} home rc=0",
            'if rw_key_is "$keyfile" "$fpr" && rpm -q "$rpmname" >/dev/null 2>&1; then',
            '  rw_ok "${keyfile#"$RW_ROOT"} holds key $fpr; rpm\'s database holds it ($rpmname)"',
            "  return 0",
            "fi",
            "rw_need_root",
            'if ! rw_key_is "$keyfile" "$fpr"; then',
            "  if [[ $DRY_RUN == 1 ]]; then",
            '    rw_would "download $url, check that it holds only key $fpr, write that key alone to '
            '${keyfile#"$RW_ROOT"}, then rpm --import it"',
            f"    rw_mark {q(self.id)}",
            "    return 0",
            "  fi",
            "  rw_tmp",
            '  rw_fetch "$url" "$RW_TMP/key"',
            '  if ! rw_key_is "$RW_TMP/key" "$fpr" || ! rw_key_export "$RW_TMP/key" "$fpr" "$RW_TMP/key.gpg" \\',
            '    || ! rw_key_is "$RW_TMP/key.gpg" "$fpr"; then',
            '    rw_die "the key downloaded from $url is not exactly key $fpr (another key, a secret-key packet, or it '
            'expired or was revoked): nothing was written or imported"',
            "  fi",
            "  # rpm --import reads armoured keys only: armour the checked key in a throw-away gpg home",
            "  home=$(mktemp -d)",
            '  GNUPGHOME=$home gpg --batch --no-tty --no-autostart --quiet --import -- "$RW_TMP/key.gpg" 2>/dev/null || rc=$?',
            '  if [[ $rc == 0 ]]; then GNUPGHOME=$home gpg --batch --no-tty --no-autostart --quiet --yes --armor '
            '-o "$RW_TMP/key.asc" --export -- "$fpr" || rc=$?; fi',
            '  rm -rf -- "$home"',
            '  if [[ $rc != 0 ]] || ! rw_key_is "$RW_TMP/key.asc" "$fpr"; then '
            'rw_die "could not armour key $fpr: nothing was imported"; fi',
            '  rw_remember "$keyfile"',
            '  mkdir -p -- "$(dirname -- "$keyfile")"',
            '  rw_put_from "$RW_TMP/key.asc" "$keyfile" 0644',
            "fi",
            'if ! rpm -q "$rpmname" >/dev/null 2>&1; then',
            '  rw_run rpm --import "${keyfile#"$RW_ROOT"}"',
            '  if [[ $DRY_RUN != 1 ]] && ! rpm -q "$rpmname" >/dev/null 2>&1; then',
            '    rw_die "rpm --import ${keyfile#"$RW_ROOT"} ran, but rpm\'s database does not hold $rpmname"',
            "  fi",
            "fi",
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        p = self.params
        return {self.var("url"): p["url"], self.var("fingerprint"): p["fingerprint"],
                self.var("key_file"): p["key_file"], self.var("key_dir"): os.path.dirname(p["key_file"])}

    def render_ansible(self) -> List[Dict[str, Any]]:
        tmp, shown, keydir = self.var("tmp"), self.var("shown"), self.var("dir")
        lines = f"{shown}.stdout_lines | select('match', '^(pub|fpr):') | list"
        pubs = f"{shown}.stdout_lines | select('match', '^pub:') | list"
        n = f"Step {self.index} {self.id}"
        home = "{{ " + tmp + ".path }}"
        return with_temp_dir(n, {"name": f"{n}: make a temporary directory for the download (runs in --check too)", "ansible.builtin.tempfile":
                {"state": "directory", "suffix": ".rocm-wizard"}, "register": tmp, "changed_when": False,
             "check_mode": False}, [
            {"name": f"{n}: download the signing key into it (runs in --check too)", "ansible.builtin.get_url":
                {"url": J(self.var("url")), "dest": home + "/key", "mode": "0600"},
             "changed_when": False, "check_mode": False},
            {"name": f"{n}: read the key's fingerprints (reads only; runs in --check too)", "ansible.builtin.command":
                {"argv": ["gpg", "--batch", "--no-autostart", "--with-colons", "--show-keys", home + "/key"]},
             "environment": {"GNUPGHOME": home}, "register": shown, "changed_when": False, "check_mode": False},
            {"name": f"{n}: refuse any key but the expected one", "ansible.builtin.assert": {
                "that": [f"({pubs} | length) == 1",
                         f"({shown}.stdout_lines | select('match', '^(sec|ssb):') | list | length) == 0",
                         f"({lines})[1].split(':')[9] == {self.var('fingerprint')} | string",
                         f"({pubs} | first).split(':')[1] not in ['e', 'r']"],
                "fail_msg": "the downloaded key is not exactly the expected key (another key, a secret-key packet, "
                            "or it expired or was revoked); nothing was written or imported"}},
            {"name": f"{n}: import the key into the temporary home (runs in --check too)", "ansible.builtin.command":
                {"argv": ["gpg", "--batch", "--no-autostart", "--quiet", "--import", home + "/key"]},
             "environment": {"GNUPGHOME": home}, "changed_when": False, "check_mode": False},
            {"name": f"{n}: export that key alone, armoured (runs in --check too)", "ansible.builtin.command":
                {"argv": ["gpg", "--batch", "--no-autostart", "--yes", "--armor", "-o", home + "/key.asc", "--export",
                          J(self.var("fingerprint"))]},
             "environment": {"GNUPGHOME": home}, "changed_when": False, "check_mode": False},
            {"name": f"{n}: the key file's directory", "ansible.builtin.file":
                {"path": J(self.var("key_dir")), "state": "directory", "owner": "root", "group": "root",
                 "mode": "0755"}, "register": keydir},
            # in --check a directory that does not exist yet was not made: nothing to copy into
            {"name": f"{n}: install the key file", "ansible.builtin.copy":
                {"src": home + "/key.asc", "remote_src": True, "dest": J(self.var("key_file")), "owner": "root",
                 "group": "root", "mode": "0644"}, "when": f"not (ansible_check_mode and {keydir} is changed)"},
            {"name": f"{n}: import the checked key into rpm's database", "ansible.builtin.rpm_key":
                {"key": home + "/key.asc", "fingerprint": J(self.var("fingerprint")), "state": "present"}}
        ], {"name": f"{n}: remove the temporary directory (runs in --check too)", "ansible.builtin.file":
                {"path": home, "state": "absent"}, "changed_when": False, "check_mode": False})
