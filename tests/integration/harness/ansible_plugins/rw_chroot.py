# A connection plugin for the tests only: the Ansible controller runs in one root (Debian 13, the
# newest ansible-core from PyPI) and reaches the target -- another root mounted at ``ansible_host``
# inside it -- through ``chroot``, as it would reach a host through ssh: modules run with the
# target's own Python, facts are the target's.  (ansible-core has no chroot connection of its own;
# community.general's is not installed in the controller root.)
from __future__ import annotations

DOCUMENTATION = """
    name: rw_chroot
    short_description: run tasks inside a chroot directory (rocm-wizard's tests)
    description:
        - Runs every command with C(chroot ansible_host /bin/sh -c) and copies files under that directory.
    author: rocm-wizard tests
    options:
        rw_root:
            description: the target's root directory, as the controller sees it
            default: /target
            vars:
                - name: ansible_host
"""

import os
import shutil
import subprocess

from ansible.errors import AnsibleError, AnsibleFileNotFound
from ansible.plugins.connection import ConnectionBase


class Connection(ConnectionBase):
    transport = "rw_chroot"
    has_pipelining = True

    def _root(self) -> str:
        root = self.get_option("rw_root")
        if not root or not os.path.isdir(root) or root == "/":
            raise AnsibleError(f"rw_chroot: no target root at {root!r}")
        return root

    def _connect(self):
        self._root()
        self._connected = True
        return self

    def exec_command(self, cmd, in_data=None, sudoable=True):
        super().exec_command(cmd, in_data=in_data, sudoable=sudoable)
        proc = subprocess.run(["chroot", self._root(), "/bin/sh", "-c", cmd], input=in_data,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd="/")
        return proc.returncode, proc.stdout, proc.stderr

    def _inside(self, path: str) -> str:
        return os.path.join(self._root(), path.lstrip("/"))

    def put_file(self, in_path, out_path):
        super().put_file(in_path, out_path)
        if not os.path.exists(in_path):
            raise AnsibleFileNotFound(f"file or module does not exist: {in_path}")
        shutil.copyfile(in_path, self._inside(out_path))

    def fetch_file(self, in_path, out_path):
        super().fetch_file(in_path, out_path)
        shutil.copyfile(self._inside(in_path), out_path)

    def close(self):
        self._connected = False
