"""APT steps: the signing key, the repository lists, the pin, ``apt-get update`` and packages."""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Tuple

from ..context import StepError
from ..core import (CHANGE, CHANGED, FAILED, OK, UNKNOWN, CheckResult, Description, FileChange, PackageChange,
                    Result, Step, unified_diff)
from ..shellquote import q
from ..state import ABSENT, PRESENT, UNKNOWN as UNK
from .files import REBOOT_HANDLER
from ._util import (J, with_temp_dir, SAFE_PATTERN, SAFE_PKG, SAFE_VERSION, check_abs_path, check_url, deb822_other_uris, disable_radeon_lines,
                    is_radeon_line, norm_deb_lines, rooted, shell_array, version_matches)

APT_INSTALL_OPTS = ["-y", "-o", "DPkg::Lock::Timeout=600", "-o", "Dpkg::Options::=--force-confold",
                    "--allow-downgrades"]

# `apt-get update` exits 0 when a repository cannot be fetched: it prints "Err:N <url>" and "W: Failed
# to fetch ...".  `--error-on=any` makes it fail instead, from apt 2.1.16 on (apt's debian/changelog:
# "Implement update --error-on=any so that scripts can reliably check for transient failures as
# well"; Ubuntu 22.04 has apt 2.4, 24.04 2.7, Debian 12 2.6; Ubuntu 20.04's 2.0 does not know it).
# Whatever the version, an update whose output has one of these lines is a failure: the script, this
# step and the executor's runner judge it the same way.
APT_ERROR_ON_ANY = (2, 1, 16)
APT_UPDATE_FAILURES = ("Err:", "W: Failed to fetch", "E: Failed to fetch", "W: Some index files failed to download",
                       "E: Some index files failed to download")


def apt_update_failures(text: str) -> List[str]:
    """The lines of ``apt-get update`` output that say a repository could not be fetched."""
    return [ln.rstrip() for ln in (text or "").splitlines() if ln.startswith(APT_UPDATE_FAILURES)]


def apt_knows_error_on(version: object) -> bool:
    """Whether an installed apt of this Debian version knows ``update --error-on=any``."""
    import re

    if not isinstance(version, str):
        return False
    m = re.match(r"^(?:\d+:)?(\d+)\.(\d+)(?:\.(\d+))?", version)
    if not m:
        return False
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) >= APT_ERROR_ON_ANY


def apt_update_argv(version: object) -> List[str]:
    return ["apt-get", "update"] + (["--error-on=any"] if apt_knows_error_on(version) else [])


def apt_removals(simulation: str) -> List[str]:
    """The packages an ``apt-get -s`` run says it would remove (its ``Remv NAME [VERSION]`` lines)."""
    out = []
    for line in (simulation or "").splitlines():
        if line.startswith("Remv "):
            name = line[5:].split()[0].split(":")[0] if line[5:].split() else ""
            if name and name not in out:
                out.append(name)
    return out


AUTH_MASK = "***"  # a password as plans, logs and JSON show it


def auth_line(machine: str, login: str, password: str) -> str:
    return f"machine {machine} login {login} password {password}\n"


def auth_for(data: Optional[bytes], url: str) -> Optional[Tuple[str, str]]:
    """(login, password) of the entry of an apt auth file (netrc syntax, one entry a line as
    AptAuth writes it) whose machine ``url`` is under; None when there is none."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    where = parts.netloc + parts.path
    for line in (data or b"").decode("utf-8", "replace").splitlines():
        words = line.split()
        if len(words) != 6 or words[0::2] != ["machine", "login", "password"]:
            continue
        machine = words[1]
        if "://" in machine:
            scheme, _, machine = machine.partition("://")
            if scheme != parts.scheme:
                continue
        elif parts.scheme != "https":
            continue  # apt: an entry without a scheme is for https only
        if where == machine or where.startswith(machine.rstrip("/") + "/"):
            return words[3], words[5]
    return None


class AptAuth(Step):
    """The credentials of a mirror, for apt: one entry in a file of /etc/apt/auth.conf.d (mode 0600,
    root's), never in a sources file.  The password is kept out of everything the plan shows or
    writes (JSON, the script, the playbook, logs): the script asks for it at run time
    (``RW_MIRROR_PASSWORD``, else a prompt on the terminal), the playbook takes the variable
    ``rw_mirror_password``."""

    kind = "apt-auth"
    required = ("path", "machine", "login", "password")

    def validate(self) -> None:
        check_abs_path(self.params["path"], "auth file")
        if not str(self.params["path"]).startswith("/etc/apt/auth.conf.d/") or \
                not str(self.params["path"]).endswith(".conf"):
            raise ValueError("apt auth files live in /etc/apt/auth.conf.d and end in .conf")
        for key in ("machine", "login", "password"):
            v = str(self.params[key])
            if not v or any(c.isspace() or ord(c) < 32 for c in v) or v.startswith("#"):
                raise ValueError(f"the mirror's {key} must be one word without spaces (apt's auth file format)")

    def to_dict(self) -> Dict[str, Any]:
        d = super().to_dict()
        d["params"]["password"] = AUTH_MASK
        return d

    def _has_entry(self, data: Optional[bytes], password: Optional[str]) -> bool:
        p = self.params
        for line in (data or b"").decode("utf-8", "replace").splitlines():
            w = line.split()
            if len(w) == 6 and w[0::2] == ["machine", "login", "password"] and w[1] == p["machine"] \
                    and w[3] == p["login"] and (password is None or w[5] == password):
                return True
        return False

    def check(self, state) -> CheckResult:
        view = state.file(self.params["path"])
        if view.state == ABSENT:
            return CheckResult(CHANGE, f"{self.params['path']} does not exist")
        if view.state != PRESENT:
            return CheckResult(UNKNOWN, f"{self.params['path']}: not known")
        known = None if self.params["password"] == AUTH_MASK else self.params["password"]
        if self._has_entry(view.data, known):
            return CheckResult(OK, f"{self.params['path']} holds the credentials for {self.params['machine']}")
        return CheckResult(CHANGE, f"{self.params['path']} lacks the credentials for {self.params['machine']}")

    def project(self, state) -> None:
        p = self.params
        state.set_file(p["path"], auth_line(p["machine"], p["login"], p["password"]).encode(), self.id)

    def describe(self, state) -> Description:
        p = self.params
        return Description(self.title, [
            f"write {p['path']} (mode 0600, root's): login {p['login']} for {p['machine']}, password not shown",
        ], files=[FileChange(p["path"], "write", note="credentials, mode 0600; content not shown")])

    def apply(self, ctx) -> Result:
        p = self.params
        try:
            current = ctx.read_bytes(p["path"])
        except StepError as exc:
            return Result(FAILED, str(exc))
        if p["password"] == AUTH_MASK:  # a plan read back from JSON (resume): the password is not in it
            if self._has_entry(current, None):
                return Result(OK, f"{p['path']} holds the credentials for {p['machine']}")
            return Result(FAILED, f"the password for {p['machine']} is not kept in the run's files: run again "
                                  "with the mirror URL that carries it")
        if self._has_entry(current, p["password"]) and current is not None and \
                os.stat(ctx.p(p["path"])).st_mode & 0o077 == 0:
            return Result(OK, f"{p['path']} holds the credentials for {p['machine']}")
        if current is not None:
            ctx.backup(p["path"])
        ctx.makedirs(os.path.dirname(p["path"]))
        ctx.write_atomic(p["path"], auth_line(p["machine"], p["login"], p["password"]).encode(), 0o600)
        return Result(CHANGED, f"wrote {p['path']} (mode 0600)")

    def render_shell_body(self) -> List[str]:
        p = self.params
        return [
            f"local path={rooted(p['path'])} machine={q(p['machine'])} login={q(p['login'])} pw",
            'if rw_auth_has "$path" "$machine" "$login"; then',
            '  rw_ok "${path#"$RW_ROOT"} holds the credentials for $machine"',
            "  return 0",
            "fi",
            "rw_need_root",
            "if [[ $DRY_RUN == 1 ]]; then",
            '  rw_would "write ${path#"$RW_ROOT"} (mode 0600): login $login for $machine, password asked at run time"',
            f"  rw_mark {q(self.id)}",
            "  return 0",
            "fi",
            "pw=${RW_MIRROR_PASSWORD:-}",
            'if [[ -z $pw && -t 0 ]]; then read -rsp "password of $login for $machine: " pw; rw_say ""; fi',
            'if [[ -z $pw ]]; then',
            '  rw_die "the mirror needs the password of $login, which this script does not contain: run it on a '
            'terminal (it asks), or with RW_MIRROR_PASSWORD in its environment (sudo --preserve-env=RW_MIRROR_PASSWORD)"',
            "fi",
            'rw_remember "$path"',
            'rw_put "$path" 0600 "machine $machine login $login password $pw"$\'\\n\'',
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        p = self.params
        return {self.var("path"): p["path"], self.var("machine"): p["machine"], "rw_mirror_login": p["login"]}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        return [
            {"name": f"{n}: the mirror's password must be given", "ansible.builtin.assert": {
                "that": ["rw_mirror_password is defined", "rw_mirror_password | length > 0"],
                "fail_msg": "the mirror needs a password, which the playbook does not contain: pass "
                            "rw_mirror_password (ansible-vault, or -e @secret.yml)"}},
            {"name": f"{n}: write the apt credentials file", "ansible.builtin.copy": {
                "dest": J(self.var("path")),
                "content": "machine {{ " + self.var("machine") + " }} login {{ rw_mirror_login }} password "
                           "{{ rw_mirror_password }}\n",
                "owner": "root", "group": "root", "mode": "0600", "backup": True},
             "no_log": True},
        ]


class AptKey(Step):
    """Fetch the repository signing key, check its fingerprint *before* writing anything, store it
    as a binary keyring under /etc/apt/keyrings (the ``signed-by`` of the repository lines)."""

    kind = "apt-key"
    required = ("url", "fingerprint", "keyring")
    defaults = {"auth_file": ""}  # an apt auth file (AptAuth) with the mirror's credentials

    def validate(self) -> None:
        from ..openpgp import normalize_fingerprint

        check_url(self.params["url"], "key URL")
        fpr = normalize_fingerprint(self.params["fingerprint"])
        if fpr is None:
            raise ValueError(f"key fingerprint {self.params['fingerprint']!r} is not 40 (or 64) hex digits")
        self.params["fingerprint"] = fpr
        check_abs_path(self.params["keyring"], "keyring")
        if self.params["auth_file"]:
            check_abs_path(self.params["auth_file"], "auth file")

    def _judge(self, data: bytes, now: float) -> Tuple[Optional[bytes], str]:
        """(the minimal keyring to write, or None when the data is refused; why)."""
        from ..openpgp import KeyFormatError, minimal_keyring

        fpr = self.params["fingerprint"]
        try:
            _key, keyring = minimal_keyring(data, fpr, now)
        except KeyFormatError as exc:
            return None, f"is refused: {exc}"
        return keyring, f"holds key {fpr}"

    @staticmethod
    def _sha1_only(data: bytes) -> bool:
        """The key file holds a key whose every binding signature is SHA-1 (sqv rejects it)."""
        from ..openpgp import KeyFormatError, read_keys

        try:
            return any(k.sha1_only for k in read_keys(data))
        except KeyFormatError:
            return False

    def check(self, state) -> CheckResult:
        view = state.file(self.params["keyring"])
        if view.state == ABSENT:
            return CheckResult(CHANGE, f"{self.params['keyring']} does not exist")
        if view.state != PRESENT:
            return CheckResult(UNKNOWN, f"{self.params['keyring']}: not known from the snapshot")
        if view.source.startswith("plan:"):
            return CheckResult(CHANGE, "written by an earlier step")
        if self._sha1_only(view.data or b""):
            return CheckResult(CHANGE, f"{self.params['keyring']} holds an old copy of the key whose binding signatures "
                               "are SHA-1 only (Debian 13's sqv rejects them since 2026-02-01): replaced by a fresh "
                               "download")
        good, why = self._judge(view.data or b"", state.ctx.now)
        return CheckResult(OK if good is not None else CHANGE, f"{self.params['keyring']} {why}")

    def project(self, state) -> None:
        state.set_file(self.params["keyring"], b"(key " + self.params["fingerprint"].encode() + b")", self.id)

    def describe(self, state) -> Description:
        p = self.params
        return Description(self.title, [
            f"download {p['url']}",
            f"refuse it unless it holds exactly the key {p['fingerprint']}, neither expired nor revoked, "
            "and no other key or secret-key packet",
            f"store that key alone, freshly exported, as the binary keyring {p['keyring']} (mode 0644)",
        ], files=[FileChange(p["keyring"], "write", note="binary key file")])

    def apply(self, ctx) -> Result:
        p = self.params
        try:
            current = ctx.read_bytes(p["keyring"])
        except StepError as exc:
            return Result(FAILED, str(exc))
        stale = current is not None and self._sha1_only(current)
        if current is not None and not stale and self._judge(current, ctx.now)[0] is not None:
            return Result(OK, f"{p['keyring']} already holds key {p['fingerprint']}")
        try:
            auth = auth_for(ctx.read_bytes(p["auth_file"]), p["url"]) if p["auth_file"] else None
            data = ctx.fetch(p["url"], auth=auth) if auth else ctx.fetch(p["url"])
        except StepError as exc:
            return Result(FAILED, str(exc))
        keyring, why = self._judge(data, ctx.now)
        if keyring is None:
            return Result(FAILED, f"the key downloaded from {p['url']} {why}; nothing was written")
        if stale and keyring == current:  # the published key is no newer: nothing better to write
            return Result(OK, f"{p['keyring']} holds key {p['fingerprint']}; its binding signatures are SHA-1 only, "
                          f"and so are those of the key {p['url']} serves (Debian 13's sqv rejects them)")
        ctx.makedirs(os.path.dirname(p["keyring"]))
        ctx.write_atomic(p["keyring"], keyring, 0o644)
        return Result(CHANGED, f"wrote {p['keyring']} (key {p['fingerprint']})")

    def render_shell_body(self) -> List[str]:
        p = self.params
        return [
            f"local url={q(p['url'])} fpr={q(p['fingerprint'])} keyring={rooted(p['keyring'])}",
            'if rw_key_is "$keyring" "$fpr" && ! rw_key_sha1_only "$keyring"; then',
            '  rw_ok "${keyring#"$RW_ROOT"} holds key $fpr"',
            "  return 0",
            "fi",
            "rw_need_root",
            "if [[ $DRY_RUN == 1 ]]; then",
            '  rw_would "download $url, check that it holds only key $fpr, then write that key alone to '
            '${keyring#"$RW_ROOT"}"',
            f"  rw_mark {q(self.id)}",
            "  return 0",
            "fi",
            "rw_tmp",
            'rw_fetch "$url" "$RW_TMP/key"' + (f' "${{RW_ROOT}}"{q(p["auth_file"])}' if p["auth_file"] else ""),
            'if ! rw_key_is "$RW_TMP/key" "$fpr" || ! rw_key_export "$RW_TMP/key" "$fpr" "$RW_TMP/key.gpg" \\',
            '  || ! rw_key_is "$RW_TMP/key.gpg" "$fpr"; then',
            '  rw_die "the key downloaded from $url is not exactly key $fpr (another key, a secret-key packet, or it '
            'expired or was revoked): nothing was written"',
            "fi",
            'if [[ -s $keyring ]] && cmp -s -- "$RW_TMP/key.gpg" "$keyring"; then',
            '  rw_warn "${keyring#"$RW_ROOT"} holds key $fpr with SHA-1-only binding signatures, and so does the key '
            '$url serves (Debian 13\'s sqv rejects them)"',
            "  return 0",
            "fi",
            'rw_remember "$keyring"',
            'rw_put_from "$RW_TMP/key.gpg" "$keyring" 0644',
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        p = self.params
        return {self.var("url"): p["url"], self.var("fingerprint"): p["fingerprint"],
                self.var("keyring"): p["keyring"]}

    def _get_url(self, tmp: str) -> Dict[str, Any]:
        args = {"url": J(self.var("url")), "dest": "{{ " + tmp + ".path }}/key", "mode": "0600"}
        if self.params["auth_file"]:
            # the mirror's credentials (AptAuth): the login from the plan, the password from the
            # play's caller, never from the plan
            args.update(url_username="{{ rw_mirror_login }}", url_password="{{ rw_mirror_password }}",
                        force_basic_auth=True)
        return args

    def render_ansible(self) -> List[Dict[str, Any]]:
        tmp, shown = self.var("tmp"), self.var("shown")
        lines = f"{shown}.stdout_lines | select('match', '^(pub|fpr):') | list"
        pubs = f"{shown}.stdout_lines | select('match', '^pub:') | list"
        n = f"Step {self.index} {self.id}"
        return with_temp_dir(n, {"name": f"{n}: make a temporary directory for the download (runs in --check too)", "ansible.builtin.tempfile":
                {"state": "directory", "suffix": ".rocm-wizard"},
             "register": tmp, "changed_when": False, "check_mode": False}, [
            {"name": f"{n}: download the signing key into it (runs in --check too)",
             "ansible.builtin.get_url": self._get_url(tmp),
             "changed_when": False, "check_mode": False, **({"no_log": True} if self.params["auth_file"] else {})},
            {"name": f"{n}: read the key's fingerprints (reads only; runs in --check too)", "ansible.builtin.command":
                {"argv": ["gpg", "--batch", "--no-autostart", "--with-colons", "--show-keys", "{{ " + tmp + ".path }}/key"]},
             "environment": {"GNUPGHOME": "{{ " + tmp + ".path }}"},
             "register": shown, "changed_when": False, "check_mode": False},
            {"name": f"{n}: refuse any key but the expected one", "ansible.builtin.assert": {
                "that": [f"({pubs} | length) == 1",
                         f"({shown}.stdout_lines | select('match', '^(sec|ssb):') | list | length) == 0",
                         f"({lines})[1].split(':')[9] == {self.var('fingerprint')} | string",
                         f"({pubs} | first).split(':')[1] not in ['e', 'r']"],
                "fail_msg": "the downloaded key is not exactly the expected key (another key, a secret-key packet, "
                            "or it expired or was revoked); nothing was written"}},
            {"name": f"{n}: import the key into the temporary home (runs in --check too)", "ansible.builtin.command":
                {"argv": ["gpg", "--batch", "--no-autostart", "--quiet", "--import", "{{ " + tmp + ".path }}/key"]},
             "environment": {"GNUPGHOME": "{{ " + tmp + ".path }}"},
             "changed_when": False, "check_mode": False},
            {"name": f"{n}: export that key alone as a binary keyring there (runs in --check too)",
             "ansible.builtin.command":
                {"argv": ["gpg", "--batch", "--no-autostart", "--yes", "-o", "{{ " + tmp + ".path }}/key.gpg", "--export",
                          J(self.var("fingerprint"))]},
             "environment": {"GNUPGHOME": "{{ " + tmp + ".path }}"},
             "changed_when": False, "check_mode": False},
            {"name": f"{n}: install the keyring", "ansible.builtin.copy":
                {"src": "{{ " + tmp + ".path }}/key.gpg", "remote_src": True, "dest": J(self.var("keyring")),
                 "owner": "root", "group": "root", "mode": "0644"}}
        ], {"name": f"{n}: remove the temporary directory (runs in --check too)", "ansible.builtin.file":
                {"path": "{{ " + tmp + ".path }}", "state": "absent"},
             "changed_when": False, "check_mode": False})


class AptSources(Step):
    """Write the repository list files whole (never appended), and take AMD repositories out of
    every other source file: one-line entries are commented out, deb822 files are removed; each
    changed file is backed up first.  ``adopted``: files of AMD's repository-setup package that
    already name the repository (the plan writes no entry of its own then): never edited, never
    removed."""

    kind = "apt-sources"
    required = ("files", "markers")
    defaults = {"adopted": []}

    def validate(self) -> None:
        files = self.params["files"]
        adopted = self.params["adopted"]
        if not isinstance(adopted, list) or not all(isinstance(a, str) and a.startswith("/etc/apt/sources.list.d/")
                                                    and a.endswith(".sources") for a in adopted):
            raise ValueError("adopted source files are deb822 files in /etc/apt/sources.list.d")
        if not isinstance(files, list) or not (files or adopted):
            raise ValueError("apt-sources needs a non-empty list of files")
        for f in files:
            check_abs_path(f.get("path"), "source list path")
            if not str(f["path"]).startswith("/etc/apt/sources.list.d/") or not str(f["path"]).endswith((".list",
                                                                                                           ".sources")):
                raise ValueError(f"{f['path']}: managed source files live in /etc/apt/sources.list.d and end in .list "
                                 "(or .sources: deb822)")
            if not isinstance(f.get("content"), str):
                raise ValueError(f"{f['path']}: content must be text")
        if not all(isinstance(m, str) and m.startswith("//") for m in self.params["markers"]):
            raise ValueError("markers must look like //host/path")

    @property
    def managed(self) -> List[str]:
        return [f["path"] for f in self.params["files"]]

    def _conflicts(self, state) -> Tuple[Optional[List[Tuple[str, str, Optional[bytes]]]], List[str]]:
        """[(path, action, new content)] for the other files naming AMD repositories (None when
        the source directory cannot be read), plus problems."""
        markers = self.params["markers"]
        names = state.listdir("/etc/apt/sources.list.d")
        if names is None:
            return None, []
        candidates = ["/etc/apt/sources.list"] + [
            "/etc/apt/sources.list.d/" + n for n in names if n.endswith((".list", ".sources"))]
        out: List[Tuple[str, str, Optional[bytes]]] = []
        problems: List[str] = []
        for path in candidates:
            if path in self.managed or path in self.params["adopted"]:
                continue
            view = state.file(path)
            if view.state != PRESENT or view.text is None:
                continue
            if not any(is_radeon_line(line, markers) for line in view.text.splitlines()):
                continue
            if path.endswith(".sources"):
                if deb822_other_uris(view.text, markers):
                    problems.append(f"{path} names AMD's repositories and others too: edit it by hand")
                out.append((path, "remove", None))
            else:
                new, _n = disable_radeon_lines(view.text, markers)
                out.append((path, "edit", new.encode()))
        return out, problems

    def _differs(self, state, path: str, content: str) -> Optional[bool]:
        view = state.file(path)
        if view.state == ABSENT:
            return True
        if view.state != PRESENT:
            return None
        if view.approximate:
            return norm_deb_lines(view.text) != norm_deb_lines(content)
        return view.data != content.encode()

    def check(self, state) -> CheckResult:
        details = []
        unknown = False
        for f in self.params["files"]:
            d = self._differs(state, f["path"], f["content"])
            if d is None:
                unknown = True
                details.append(f"{f['path']}: not known")
            elif d:
                details.append(f"{f['path']} will be written")
        conflicts, problems = self._conflicts(state)
        if conflicts is None:
            unknown = True
            details.append("other source files: not known")
        else:
            for path, action, _ in conflicts:
                details.append(f"{path}: AMD entries will be {'removed' if action == 'remove' else 'commented out'}")
        details += problems
        if problems:
            return CheckResult(UNKNOWN, "; ".join(details))
        if any("will be" in d for d in details):
            return CheckResult(CHANGE, "; ".join(details))
        if unknown:
            return CheckResult(UNKNOWN, "; ".join(details))
        return CheckResult(OK, "the repository lists are as planned and no other file names AMD's repositories")

    def project(self, state) -> None:
        conflicts, _ = self._conflicts(state)
        for path, _action, data in conflicts or []:
            state.set_file(path, data, self.id)
        for f in self.params["files"]:
            state.set_file(f["path"], f["content"].encode(), self.id)

    def describe(self, state) -> Description:
        desc = Description(self.title)
        conflicts, problems = self._conflicts(state)
        for path, action, data in conflicts or []:
            before = state.file(path)
            desc.actions.append(f"back up {path}, then " + ("remove it" if action == "remove"
                                                             else "comment out its AMD repository lines"))
            desc.files.append(FileChange(path, action, unified_diff(path, before.data, data),
                                         note="backed up first"))
        if conflicts is None:
            desc.actions.append("comment out AMD repository lines in any other source file (none known now)")
        desc.actions += problems
        for f in self.params["files"]:
            view = state.file(f["path"])
            new = f["content"].encode()
            if view.state == PRESENT and view.data == new:
                continue
            note = ""
            if view.state == PRESENT:
                note = "replaced whole, old file backed up" + (" (old content rebuilt from the snapshot)"
                                                                if view.approximate else "")
            elif view.state != ABSENT:
                note = "current content not known"
            desc.actions.append(f"write {f['path']} whole" + (" (backing up the old one)" if view.state == PRESENT else ""))
            desc.files.append(FileChange(f["path"], "write",
                                         unified_diff(f["path"], view.data if view.state == PRESENT else None, new),
                                         note))
        return desc

    def apply(self, ctx) -> Result:
        from ..state import PlanState

        state = PlanState(ctx)
        conflicts, problems = self._conflicts(state)
        if problems:
            return Result(FAILED, "; ".join(problems))
        done = []
        for path, action, data in conflicts or []:
            ctx.backup(path)
            if action == "remove":
                ctx.remove(path)
                done.append(f"removed {path}")
            else:
                mode = os.stat(ctx.p(path)).st_mode & 0o777
                ctx.write_atomic(path, data or b"", mode)
                done.append(f"commented out AMD lines in {path}")
        for f in self.params["files"]:
            new = f["content"].encode()
            cur = ctx.read_bytes(f["path"])
            if cur == new:
                continue
            if cur is not None:
                ctx.backup(f["path"])
            ctx.write_atomic(f["path"], new, 0o644)
            done.append(f"wrote {f['path']}")
        if not done:
            return Result(OK, "repository lists already as planned")
        return Result(CHANGED, "; ".join(done))

    def render_shell_body(self) -> List[str]:
        paths = [f["path"] for f in self.params["files"]]
        contents = [f["content"] for f in self.params["files"]]
        adopted = self.params["adopted"]  # AMD's repository-setup package's files: never touched
        return [
            "RW_URLS=(" + " ".join(q(m) for m in self.params["markers"]) + ")",
            shell_array("paths", paths),
            shell_array("contents", contents),
            *([shell_array("adopted", adopted)] if adopted else []),
            "local i todo=0 f",
            'rw_radeon_files "${paths[@]}"' + (' "${adopted[@]}"' if adopted else ""),
            'if [[ ${#RW_FOUND[@]} -gt 0 ]]; then todo=1; fi',
            'for i in "${!paths[@]}"; do',
            '  if ! rw_same "$RW_ROOT${paths[i]}" "${contents[i]}"; then todo=1; fi',
            "done",
            "if [[ $todo == 0 ]]; then",
            "  rw_ok 'the repository lists are as planned and no other file names these repositories'",
            "  return 0",
            "fi",
            "rw_need_root",
            'for f in "${RW_FOUND[@]}"; do',
            '  rw_disable_radeon "$f"',
            "done",
            'for i in "${!paths[@]}"; do',
            '  if rw_same "$RW_ROOT${paths[i]}" "${contents[i]}"; then continue; fi',
            '  rw_remember "$RW_ROOT${paths[i]}"',
            '  rw_put "$RW_ROOT${paths[i]}" 0644 "${contents[i]}"',
            "done",
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        import re as _re

        markers = self.params["markers"]
        alt = "|".join(_re.escape(m) for m in markers)
        return {
            self.var("files"): [{"path": f["path"], "content": f["content"]} for f in self.params["files"]],
            self.var("managed"): [os.path.basename(p) for p in self.managed + list(self.params["adopted"])],
            self.var("pattern"): r"^[ \t]*(deb|deb-src|URIs:)[ \t].*(" + alt + ")",
            self.var("line_pattern"): r"^([ \t]*(deb|deb-src)[ \t].*(" + alt + ").*)$",
        }

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        found, main = self.var("found"), self.var("main")
        deb822 = "{{ " + found + ".files | map(attribute='path') | select('match', '.*\\.sources$') | list }}"
        return [
            {"name": f"{n}: find other source files naming these repositories", "ansible.builtin.find": {
                "paths": ["/etc/apt/sources.list.d"], "patterns": ["*.list", "*.sources"],
                "contains": J(self.var("pattern")), "excludes": J(self.var("managed"))},
             "register": found},
            {"name": f"{n}: see whether /etc/apt/sources.list exists", "ansible.builtin.stat": {
                "path": "/etc/apt/sources.list"}, "register": main},
            {"name": f"{n}: comment out their lines in one-line source files", "ansible.builtin.replace": {
                "path": "{{ item }}", "regexp": J(self.var("line_pattern")),
                "replace": "# disabled by rocm-wizard: \\1", "backup": True},
             "loop": "{{ (['/etc/apt/sources.list'] if " + main + ".stat.exists else []) + (" + found
                     + ".files | map(attribute='path') | select('match', '.*\\.list$') | list) }}"},
            {"name": f"{n}: back up deb822 source files naming them", "ansible.builtin.copy": {
                "src": "{{ item }}", "dest": "{{ item }}.rocm-wizard-backup", "remote_src": True,
                "mode": "0644"},
             "loop": deb822},
            {"name": f"{n}: remove those deb822 source files", "ansible.builtin.file": {
                "path": "{{ item }}", "state": "absent"},
             "loop": deb822},
            {"name": f"{n}: write the repository lists whole", "ansible.builtin.copy": {
                "dest": "{{ item.path }}", "content": "{{ item.content }}", "owner": "root", "group": "root",
                "mode": "0644", "backup": True},
             "loop": J(self.var("files")), "loop_control": {"label": "{{ item.path }}"}},
        ]


class AptPin(Step):
    """An apt preferences file that puts one origin above the distribution archive."""

    kind = "apt-pin"
    required = ("path", "origin", "priority")
    defaults = {"package": "*"}

    def validate(self) -> None:
        check_abs_path(self.params["path"], "pin file")
        if not str(self.params["path"]).startswith("/etc/apt/preferences.d/"):
            raise ValueError("pin files live in /etc/apt/preferences.d")
        for key in ("origin", "package"):
            v = str(self.params[key])
            if not v or any(c.isspace() for c in v):
                raise ValueError(f"pin {key} {v!r} must be one word")
        self.params["priority"] = int(self.params["priority"])

    @property
    def content(self) -> str:
        p = self.params
        return f"Package: {p['package']}\nPin: release o={p['origin']}\nPin-Priority: {p['priority']}\n"

    def check(self, state) -> CheckResult:
        view = state.file(self.params["path"])
        if view.state == ABSENT:
            return CheckResult(CHANGE, f"{self.params['path']} does not exist")
        if view.state != PRESENT:
            return CheckResult(UNKNOWN, f"{self.params['path']}: not known")
        same = (norm_deb_lines(view.text) == norm_deb_lines(self.content)) if view.approximate \
            else view.data == self.content.encode()
        return CheckResult(OK, f"{self.params['path']} is as planned") if same else \
            CheckResult(CHANGE, f"{self.params['path']} differs")

    def project(self, state) -> None:
        state.set_file(self.params["path"], self.content.encode(), self.id)

    def describe(self, state) -> Description:
        view = state.file(self.params["path"])
        before = view.data if view.state == PRESENT else None
        return Description(self.title, [f"write {self.params['path']} whole"], files=[
            FileChange(self.params["path"], "write", unified_diff(self.params["path"], before, self.content.encode()),
                       "" if view.state in (PRESENT, ABSENT) else "current content not known")])

    def apply(self, ctx) -> Result:
        new = self.content.encode()
        if ctx.read_bytes(self.params["path"]) == new:
            return Result(OK, "pin already in place")
        if ctx.exists(self.params["path"]):
            ctx.backup(self.params["path"])
        ctx.write_atomic(self.params["path"], new, 0o644)
        return Result(CHANGED, f"wrote {self.params['path']}")

    def render_shell_body(self) -> List[str]:
        return [
            f"local path={rooted(self.params['path'])} content={q(self.content)}",
            'if rw_same "$path" "$content"; then',
            '  rw_ok "${path#"$RW_ROOT"} is as planned"',
            "  return 0",
            "fi",
            "rw_need_root",
            'rw_remember "$path"',
            'rw_put "$path" 0644 "$content"',
            f"rw_mark {q(self.id)}",
        ]

    def ansible_vars(self) -> Dict[str, Any]:
        return {self.var("path"): self.params["path"], self.var("content"): self.content}

    def render_ansible(self) -> List[Dict[str, Any]]:
        return [{"name": f"Step {self.index} {self.id}: write the pin file", "ansible.builtin.copy": {
            "dest": J(self.var("path")), "content": J(self.var("content")), "owner": "root", "group": "root",
            "mode": "0644", "backup": True}}]


def _pkg_specs(value: Any) -> List[Dict[str, str]]:
    out = []
    for item in value or []:
        if isinstance(item, str):
            item = {"name": item}
        name = str(item.get("name", ""))
        version = str(item.get("version", "") or "")
        if not SAFE_PKG.match(name):
            raise ValueError(f"package name {name!r} is not a valid Debian package name")
        if not SAFE_VERSION.match(version.rstrip("*")) or "*" in version[:-1]:
            raise ValueError(f"package version {version!r} is not valid")
        spec = {"name": name, "version": version}
        if item.get("kernel_prefix"):
            spec["kernel_prefix"] = str(item["kernel_prefix"])
        out.append(spec)
    return out


class AptUpdate(Step):
    """``apt-get update``, when a source or key changed in this run or apt does not know yet the
    package versions the next steps install.  A repository that cannot be fetched fails the step
    (``--error-on=any`` where apt knows it, and the output read in any case): the script then puts
    back the files it changed in this run and stops; the executor does the same from its journal
    (``execute/engine.py``), so neither goes on with the new sources and stale package lists."""

    kind = "apt-update"
    defaults = {"after": [], "packages": []}

    def validate(self) -> None:
        self.params["packages"] = _pkg_specs(self.params["packages"])

    def check(self, state) -> CheckResult:
        changed = state.any_changed(self.params["after"])
        if changed:
            return CheckResult(CHANGE, "sources changed in an earlier step")
        missing = []
        unknown = []
        for spec in self.params["packages"]:
            cur = state.package(spec["name"])
            if cur is not UNK and cur and (version_matches(cur, spec["version"]) if spec["version"] else True):
                continue
            versions = state.apt_versions(spec["name"])
            if versions is UNK:
                (unknown if cur is UNK else missing).append(spec["name"])
                continue
            offered = any(version_matches(v, spec["version"]) for v in versions) if spec["version"] else bool(versions)
            if not offered:
                missing.append(spec["name"])
        if missing:
            return CheckResult(CHANGE, "apt does not offer yet: " + ", ".join(missing))
        if changed is None or unknown:
            return CheckResult(UNKNOWN, "not known whether the package lists are current")
        return CheckResult(OK, "package lists already offer what is needed")

    def describe(self, state) -> Description:
        argv = apt_update_argv(state.package("apt"))
        return Description(self.title, [" ".join(argv) + " (a repository that cannot be fetched stops the plan)"],
                           commands=[argv])

    def apply(self, ctx) -> Result:
        if not (set(self.params["after"]) & ctx.changed):
            from ..state import PlanState

            st = PlanState(ctx)
            for s in self.params["after"]:
                st.record(s, OK)
            if self.check(st).status == OK:
                return Result(OK, "package lists already offer what is needed")
        from ..state import PlanState

        argv = apt_update_argv(PlanState(ctx).package("apt"))
        res = ctx.run(argv, timeout=1800)
        failed = apt_update_failures(res.stdout + "\n" + res.stderr)
        if res.error or res.rc != 0 or failed:
            why = res.error or (f"exit status {res.rc}" if res.rc != 0 else "exit status 0, but")
            lines = failed or (res.stderr or res.stdout or "").strip().splitlines()[-3:]
            return Result(FAILED, f"`{' '.join(argv)}` could not fetch every repository ({why}): "
                                  + " | ".join(lines[:4]) + "; check that the repositories are reachable "
                                  "(network, proxy, --rocm-mirror) and run again")
        return Result(CHANGED, " ".join(argv))

    def render_shell_body(self) -> List[str]:
        names = [s["name"] for s in self.params["packages"]]
        prefixes = [s["version"].rstrip("*") for s in self.params["packages"]]
        lines = [shell_array("names", names), shell_array("prefixes", prefixes), "local i need=0"]
        if self.params["after"]:
            lines += ["if rw_changed " + " ".join(q(a) for a in self.params["after"]) + "; then need=1; fi"]
        lines += [
            'for i in "${!names[@]}"; do',
            '  if [[ $need == 1 ]]; then break; fi',
            '  if rw_pkg_ok "${names[i]}" "${prefixes[i]}"; then continue; fi',
            '  if [[ -n ${prefixes[i]} ]] && rw_apt_pick "${names[i]}" "${prefixes[i]}" >/dev/null; then continue; fi',
            '  if [[ -z ${prefixes[i]} && -n $(rw_apt_candidate "${names[i]}") ]]; then continue; fi',
            "  need=1",
            "done",
            "if [[ $need == 0 ]]; then",
            "  rw_ok 'the package lists already offer what is needed'",
            "  return 0",
            "fi",
            "rw_need_root",
            "if ! rw_apt_update; then",
            "  if [[ ${#RW_UNDO[@]} -gt 0 ]]; then",
            "    rw_say '    the files this run changed are put back:'",
            "    rw_undo_files",
            "    rw_die 'apt-get update could not fetch every repository (the lines above say which). The files "
            "this run had changed are back as they were, so the system is as before. Check that the "
            "repositories are reachable (network, proxy, mirror), then run this script again.'",
            "  fi",
            "  rw_die 'apt-get update could not fetch every repository (the lines above say which); the "
            "repository files were already in place before this run (earlier versions are kept under "
            "/var/backups/rocm-wizard). Check that the repositories are reachable (network, proxy, mirror), "
            "then run this script again.'",
            "fi",
            f"rw_mark {q(self.id)}",
        ]
        return lines

    # Ansible: the tasks of the ``after`` steps that change something notify this step's handler,
    # which notes it; the lists are refreshed when they did, or when a planned package is not
    # installed at its version (a converged host: nothing to do).  In --check nothing is refreshed,
    # and the package tasks that would need the new lists are not checked (the play says so).
    @property
    def notify_from(self) -> List[str]:
        return list(self.params["after"])

    def ansible_handlers(self) -> List[Dict[str, Any]]:
        return [{"name": f"Note that the sources of step {self.index} {self.id} changed",
                 "ansible.builtin.set_fact": {self.var("sources_changed"): True}}]

    def ansible_vars(self) -> Dict[str, Any]:
        import re as _re

        return {self.var("wanted"): [{"name": s["name"], "version": "^" + _re.escape(s["version"].rstrip("*"))}
                                     for s in self.params["packages"]]}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        # an empty template result is null on ansible-core 2.19+ (a string on 2.14): default('', true)
        missing = self.var("missing") + " | default('', true)"
        changed = self.var("sources_changed") + " | default(false) | bool"
        return [
            {"name": f"{n}: note what the earlier steps changed (run the pending handlers now)",
             "ansible.builtin.meta": "flush_handlers"},
            {"name": f"{n}: read the installed packages (reads only)", "ansible.builtin.package_facts": {
                "manager": "auto"}},
            {"name": f"{n}: note the planned packages not installed at their versions", "ansible.builtin.set_fact": {
                self.var("missing"): "{% for p in " + self.var("wanted") + " if not (ansible_facts.packages[p.name] | default([])"
                         " | selectattr('version', 'match', p.version) | list) %}{{ p.name }} {% endfor %}"}},
            {"name": f"{n}: note whether the package lists need a refresh", "ansible.builtin.set_fact": {
                "rw_apt_lists_pending": "{{ (" + changed + ") or (" + missing + " | trim | length > 0) }}"}},
            {"name": f"{n}: refresh the package lists", "ansible.builtin.apt": {"update_cache": True},
             "when": "rw_apt_lists_pending | bool"},
            {"name": f"{n}: say what --check cannot predict", "ansible.builtin.debug": {
                "msg": "--check: the package lists would be refreshed here ({{ 'the sources change' if " + changed
                       + " else 'not installed at the planned version: ' ~ (" + missing + " | trim) }}); the package "
                       "tasks that need the refreshed lists are not checked in this run"},
             "when": "ansible_check_mode and rw_apt_lists_pending | bool"},
        ]


class AptInstall(Step):
    """Install packages at exact versions (``6.4.3.60403-*``: that release, any build) or at the
    candidate of the configured repositories (no version).

    apt may remove packages to install others.  Before it installs, the step asks apt what it would
    remove (``apt-get -s``): packages matching ``related`` (ROCm's own, shell-style patterns) may go;
    any other stops the step with the list, nothing installed or removed, unless ``allow_removals``
    (``--allow-apt-removals``, answers file ``allow_apt_removals``; :meth:`confirmations` is the
    question a frontend asks).  When apt would remove nothing, the install runs with ``--no-remove``."""

    kind = "apt-install"
    uses_dpkg = True
    required = ("packages",)
    defaults = {"from_step": "", "upgrade_with_repo": False, "notify_reboot": False, "related": [],
                "allow_removals": False}

    def validate(self) -> None:
        self.params["packages"] = _pkg_specs(self.params["packages"])
        if not self.params["packages"]:
            raise ValueError("apt-install needs at least one package")
        related = self.params["related"]
        if not isinstance(related, list) or not all(isinstance(p, str) and SAFE_PATTERN.match(p) for p in related):
            raise ValueError("related must be a list of package name patterns (letters, digits, . + - * ? [ ])")
        if not isinstance(self.params["allow_removals"], bool):
            raise ValueError("allow_removals must be true or false")

    def unrelated(self, names: List[str]) -> List[str]:
        """Those of ``names`` that are not ROCm's (no ``related`` pattern matches)."""
        import fnmatch

        return [n for n in names if not any(fnmatch.fnmatchcase(n, p) for p in self.params["related"])]

    def confirmations(self) -> List[Dict[str, str]]:
        """The yes/no questions this step needs answered before it runs unattended: a frontend asks
        them (the TUI), ``--yes`` takes them from the flag or answers file named here."""
        if self.params["allow_removals"]:
            return []
        return [{"step": self.id, "key": "allow_apt_removals", "flag": "--allow-apt-removals",
                 "question": "If installing these packages makes apt remove packages that are not part of ROCm, "
                             "may it remove them? (No: the step stops and lists them; nothing is removed)"}]

    def _removal_line(self) -> str:
        if self.params["allow_removals"]:
            return ("apt-get -s first: what apt would remove is listed, and removed (--allow-apt-removals); "
                    "with nothing to remove, the install runs with --no-remove")
        return ("apt-get -s first: what apt would remove is listed; packages that are not ROCm's stop the step "
                "(nothing installed or removed) unless --allow-apt-removals; with nothing to remove, the install "
                "runs with --no-remove")

    def _pending(self, state, assume_missing: bool = False) -> Tuple[List[Tuple[Dict[str, str], Any, str]], List[str],
                                                                     bool]:
        """([(spec, installed, why)], notes, unknown); ``assume_missing``: a package whose state is
        not known is installed (apply) rather than reported (check)."""
        todo = []
        notes: List[str] = []
        unknown = False
        repo_changes = state.any_changed([self.params["from_step"]]) if self.params["from_step"] else False
        for spec in self.params["packages"]:
            cur = state.package(spec["name"])
            if cur is UNK and assume_missing:
                cur = None
            if cur is UNK:
                unknown = True
                notes.append(f"{spec['name']}: installed version not known")
                continue
            if spec["version"]:
                if version_matches(cur, spec["version"]):
                    continue
                todo.append((spec, cur, spec["version"]))
                continue
            if not cur:
                todo.append((spec, cur, "the repository's version"))
                continue
            if self.params["upgrade_with_repo"] and repo_changes and not spec.get("kernel_prefix"):
                todo.append((spec, cur, "upgrade from the new repository"))
                continue
            cand = state.apt_candidate(spec["name"])
            if cand is not UNK and cand and cand != cur:
                todo.append((spec, cur, f"upgrade to {cand}"))
        return todo, notes, unknown

    def _availability(self, state, spec) -> str:
        if self.params["from_step"] and state.any_changed([self.params["from_step"]]) is not False:
            return f"from the repositories of step {self.params['from_step']}"
        if not spec["version"]:
            return ""
        versions = state.apt_versions(spec["name"])
        if versions is UNK:
            return "assuming the configured repository offers it"
        if any(version_matches(v, spec["version"]) for v in versions):
            return ""
        return "NOT OFFERED by the configured repositories (apt-get update, or check the repository)"

    def check(self, state) -> CheckResult:
        todo, notes, unknown = self._pending(state)
        if todo:
            parts = []
            for spec, cur, why in todo:
                avail = self._availability(state, spec)
                parts.append(f"{spec['name']} {cur or '(not installed)'} -> {why}" + (f" ({avail})" if avail else ""))
            return CheckResult(CHANGE, "; ".join(parts + notes))
        if unknown:
            return CheckResult(UNKNOWN, "; ".join(notes))
        return CheckResult(OK, "installed: " + ", ".join(s["name"] for s in self.params["packages"]))

    def project(self, state) -> None:
        todo, _, _ = self._pending(state)
        for spec, _cur, _why in todo:
            state.set_package(spec["name"], spec["version"] or "(candidate)", self.id)

    def describe(self, state) -> Description:
        todo, notes, _ = self._pending(state)
        desc = Description(self.title)
        want = []
        for spec, cur, why in todo:
            want.append(spec["name"] + ("=" + spec["version"] if spec["version"] else ""))
            avail = self._availability(state, spec)
            desc.packages.append(PackageChange(spec["name"], cur or None, spec["version"] or "repository candidate",
                                               avail))
        if want:
            desc.actions.append("apt-get install " + " ".join(want))
            desc.actions.append(self._removal_line())
            desc.actions.append("the free disk space is checked first against the packages' sizes (download and "
                                "Installed-Size); too little stops the step before apt runs")
            desc.commands.append(["apt-get", "install"] + APT_INSTALL_OPTS + want)
        desc.actions += notes
        return desc

    def apply(self, ctx) -> Result:
        from ..state import PlanState

        state = PlanState(ctx)
        if self.params["from_step"] and self.params["from_step"] in ctx.changed:
            state.record(self.params["from_step"], CHANGE)
        todo, notes, _ = self._pending(state, assume_missing=True)
        if not todo:
            return Result(OK, "already installed")
        want = []
        for spec, _cur, _why in todo:
            if spec["version"]:
                versions = state.apt_versions(spec["name"])
                pick = None if versions is UNK else next(
                    (v for v in versions if version_matches(v, spec["version"])), None)
                if pick is None:
                    return Result(FAILED, f"apt offers no {spec['name']} {spec['version']}: is the repository reachable?")
                want.append(f"{spec['name']}={pick}")
            else:
                want.append(spec["name"])
        sim = ctx.run(["apt-get", "-s", "-o", "Debug::NoLocking=1", "install"] + APT_INSTALL_OPTS + want,
                      timeout=600)
        removed = apt_removals(sim.stdout)
        other = self.unrelated(removed)
        if other and not self.params["allow_removals"]:
            return Result(FAILED, f"to install {' '.join(want)}, apt would remove packages that are not part of ROCm: "
                                  f"{', '.join(other)}; nothing was installed or removed. See why with  apt-get -s "
                                  f"install {' '.join(want)}; to let apt remove them, run again with "
                                  "--allow-apt-removals (answers file: allow_apt_removals = true)")
        from ...execute.preflight import apt_space_needed, disk_space_problem

        space = apt_space_needed(lambda argv: ctx.run(argv, timeout=300), sim.stdout) if sim.rc == 0 else None
        short = disk_space_problem(*space, root=ctx.root) if space is not None else None
        if short:
            return Result(FAILED, f"{short}; nothing was installed (apt-get install {' '.join(want)})")
        guard = [] if removed else ["--no-remove"]
        ctx.check_call(["apt-get", "install"] + APT_INSTALL_OPTS + guard + want, timeout=7200)
        return Result(CHANGED, "installed " + " ".join(want) + (f"; apt removed {', '.join(removed)}" if removed else ""))

    def render_shell_body(self) -> List[str]:
        names = [s["name"] for s in self.params["packages"]]
        prefixes = [s["version"].rstrip("*") for s in self.params["packages"]]
        upgrade = self.params["upgrade_with_repo"] and self.params["from_step"]
        repo = ["0" if s.get("kernel_prefix") or s["version"] else "1" for s in self.params["packages"]]
        lines = [shell_array("names", names), shell_array("prefixes", prefixes)]
        if upgrade:
            lines.append(shell_array("from_repo", repo))
        lines += ["local -a want=()", "local i v", 'for i in "${!names[@]}"; do']
        if upgrade:
            lines += [
                f"  if [[ ${{from_repo[i]}} == 1 ]] && rw_changed {q(self.params['from_step'])} "
                '&& [[ -n $(rw_pkg_version "${names[i]}") ]]; then',
                '    want+=("${names[i]}")',
                "    continue",
                "  fi",
            ]
        lines += [
            '  if rw_pkg_ok "${names[i]}" "${prefixes[i]}"; then continue; fi',
            '  if [[ -z ${prefixes[i]} ]]; then',
            '    want+=("${names[i]}")',
            '  elif v=$(rw_apt_pick "${names[i]}" "${prefixes[i]}"); then',
            '    want+=("${names[i]}=$v")',
            "  elif [[ $DRY_RUN == 1 ]]; then",
            '    want+=("${names[i]}=${prefixes[i]}*")',
            "  else",
            '    rw_die "apt offers no ${names[i]} ${prefixes[i]}*: is the repository reachable?"',
            "  fi",
            "done",
            'if [[ ${#want[@]} -eq 0 ]]; then',
            '  rw_ok "installed: ${names[*]}"',
            "  return 0",
            "fi",
            "rw_need_root",
            shell_array("related", self.params["related"]),
            f"rw_apt_install {'1' if self.params['allow_removals'] else '0'} \"${{#related[@]}}\" \"${{related[@]}}\" "
            + " ".join(q(o) for o in APT_INSTALL_OPTS) + ' "${want[@]}"',
            f"rw_mark {q(self.id)}",
        ]
        return lines

    def ansible_vars(self) -> Dict[str, Any]:
        fixed = [s["name"] + ("=" + s["version"] if s["version"] else "")
                 for s in self.params["packages"] if not s.get("kernel_prefix") and s["version"]]
        loose = [s["name"] for s in self.params["packages"] if not s.get("kernel_prefix") and not s["version"]]
        return {self.var("exact"): fixed, self.var("loose"): loose}

    def render_ansible(self) -> List[Dict[str, Any]]:
        n = f"Step {self.index} {self.id}"
        tasks: List[Dict[str, Any]] = []
        # the running kernel's release (what ``uname -r`` and the "kernel" fact say) read from
        # /proc/sys/kernel/osrelease by one task: the play gathers no facts (plan/ansible.py)
        release = self.var("kernel_release")
        kernel = [s["kernel_prefix"] + "{{ " + release + ".content | b64decode | trim }}" for s in self.params["packages"]
                  if s.get("kernel_prefix")]
        handlers = [REBOOT_HANDLER] if self.params["notify_reboot"] else []
        # apt's --no-remove: the task fails rather than remove anything, unless removals were allowed
        guard = {} if self.params["allow_removals"] else {"fail_on_autoremove": True}
        if kernel:
            tasks.append({"name": f"{n}: read the running kernel's release (reads only; runs in --check too)",
                          "ansible.builtin.slurp": {"src": "/proc/sys/kernel/osrelease"}, "register": release})
            tasks.append({"name": f"{n}: install the headers of the running kernel", "ansible.builtin.apt": {
                "name": kernel, "state": "present"}})
        if any(s["version"] for s in self.params["packages"]):
            t = {"name": f"{n}: install the packages at their exact versions", "ansible.builtin.apt": {
                "name": J(self.var("exact")), "state": "present", "allow_downgrade": True,
                "lock_timeout": 600, **guard}}
            if handlers:
                t["notify"] = handlers
            tasks.append(t)
        if any(not s["version"] and not s.get("kernel_prefix") for s in self.params["packages"]):
            t = {"name": f"{n}: install the packages from the configured repository",
                 "__noqa__": "package-latest",
                 "ansible.builtin.apt": {"name": J(self.var("loose")),
                                         "state": "latest" if self.params["upgrade_with_repo"] else "present",
                                         "lock_timeout": 600, **guard}}
            if handlers:
                t["notify"] = handlers
            if not self.params["upgrade_with_repo"]:
                del t["__noqa__"]
            tasks.append(t)
        for t in tasks[1:] if kernel else tasks:  # --check cannot predict them before apt has read the new repositories
            t["when"] = "not (ansible_check_mode and rw_apt_lists_pending | default(false) | bool)"
        return tasks

