"""Throwaway OpenPGP keys for signing the test repositories.

Each :class:`TestKey` lives in its own temporary GNUPGHOME (short path under the system temp
directory, because gpg-agent's socket path has a length limit), has no passphrase and is removed,
agent included, by :meth:`TestKey.close`.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from typing import Optional

from .procs import run


class TestKey:
    __test__ = False  # not a pytest test class

    def __init__(self, uid: str, algo: str = "ed25519") -> None:
        self.uid = uid
        self.home = tempfile.mkdtemp(prefix="rw-gpg-")
        os.chmod(self.home, 0o700)
        self.env = {"GNUPGHOME": self.home, "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                    "LC_ALL": "C"}
        self._gpg("--quick-gen-key", uid, algo, "sign", "never")
        out = self._gpg("--with-colons", "--list-secret-keys", uid).stdout
        fprs = [line.split(":")[9] for line in out.splitlines() if line.startswith("fpr:")]
        if not fprs:
            raise RuntimeError(f"gpg made no key for {uid!r}:\n{out}")
        self.fingerprint: str = fprs[0]

    def _gpg(self, *args: str, input: Optional[str] = None):
        return run(["gpg", "--batch", "--yes", "--no-tty", "--pinentry-mode", "loopback",
                    "--passphrase", "", *args], env=self.env, input=input)

    @property
    def long_id(self) -> str:
        return self.fingerprint[-16:]

    def armored_public(self) -> str:
        """The public key as ASCII armour (what repo.radeon.com serves as ``rocm.gpg.key``)."""
        return self._gpg("--armor", "--export", self.fingerprint).stdout

    def write_keyring(self, path: str) -> str:
        """Write the binary public key (what ``gpg --dearmor`` of the armour gives) to ``path``."""
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        self._gpg("--output", path, "--export", self.fingerprint)
        os.chmod(path, 0o644)
        return path

    def write_armored(self, path: str) -> str:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w", encoding="ascii") as fh:
            fh.write(self.armored_public())
        return path

    def sign_release(self, release_path: str) -> None:
        """Write ``InRelease`` (clear-signed) and ``Release.gpg`` (detached) next to ``Release``."""
        folder = os.path.dirname(release_path)
        self._gpg("--local-user", self.fingerprint, "--digest-algo", "SHA256", "--clearsign",
                  "--output", os.path.join(folder, "InRelease"), release_path)
        self._gpg("--local-user", self.fingerprint, "--digest-algo", "SHA256", "--armor",
                  "--detach-sign", "--output", os.path.join(folder, "Release.gpg"), release_path)

    def close(self) -> None:
        if os.path.isdir(self.home):
            run(["gpgconf", "--kill", "all"], env=self.env, check=False)
            shutil.rmtree(self.home, ignore_errors=True)

    def __repr__(self) -> str:
        return f"TestKey({self.uid!r}, {self.fingerprint})"
