"""The step context of a real run: before the run first touches a file (write, remove, link flip),
its state is saved -- a copy in the run's backup directory, or "absent", or the link's target --
and recorded in the journal *before* the change (write-ahead).  ``rollback`` and the automatic
restore after an early failure put every such file back exactly."""
from __future__ import annotations

import os
import shutil
from typing import Optional

from ..fsutil import write_atomic
from ..plan.context import Context, StepError
from ..runas import state_as


class ExecContext(Context):
    def __init__(self, *args, journal=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.journal = journal
        self.current_step: Optional[str] = None

    def backup_path(self, path: str) -> str:
        return f"{self.backup_dir.rstrip('/')}/{self.run_id}{path}"

    def backup(self, path: str) -> Optional[str]:
        """The first copy of a run wins: it is the file as it was before the run."""
        if not self.exists(path):
            return None
        dest = self.backup_path(path)
        if os.path.lexists(self.p(dest)):
            return dest
        os.makedirs(os.path.dirname(self.p(dest)), exist_ok=True)
        shutil.copy2(self.p(path), self.p(dest), follow_symlinks=False)
        return dest

    def remember(self, path: str, user: Optional[str] = None) -> None:
        """Record ``path``'s state before its first change in this run (idempotent).  ``user``: the
        account that owns where ``path`` is (a venv's owner): a root run looks at and copies the
        file as that user, so no link they planted leads root to a file they cannot read, and
        rollback puts it back as them."""
        if self.journal is None or self.journal.file_entry(path) is not None:
            return
        entry = {"path": path, "step": self.current_step, "before": "absent", "backup": None, "link": None}
        if user and user != "root" and self.euid == 0:
            entry["user"] = user
            try:
                kind, mode, data = state_as(user, self.p(path))
                if kind == "link":
                    entry.update(before="link", link=os.fsdecode(data))
                elif kind == "file":
                    dest = self.backup_path(path)
                    if not os.path.lexists(self.p(dest)):
                        os.makedirs(os.path.dirname(self.p(dest)), exist_ok=True)
                        write_atomic(self.p(dest), data, mode or 0o644)
                    entry.update(before="file", backup=dest)
            except OSError as exc:
                raise StepError(f"cannot back up {path} before changing it: {exc.strerror or exc}") from exc
            if kind == "other":
                raise StepError(f"{path} is neither a file nor a link; not changing it")
            self.journal.add_file(entry)
            return
        real = self.p(path)
        if os.path.islink(real):
            entry.update(before="link", link=os.readlink(real))
        elif os.path.isfile(real):
            try:
                entry.update(before="file", backup=self.backup(path))
            except OSError as exc:
                raise StepError(f"cannot back up {path} before changing it: {exc.strerror or exc}") from exc
        elif os.path.lexists(real):
            raise StepError(f"{path} is neither a file nor a link; not changing it")
        self.journal.add_file(entry)

    def write_atomic(self, path: str, data: bytes, mode: int = 0o644, owner: Optional[str] = None) -> None:
        self.remember(path)
        super().write_atomic(path, data, mode, owner)

    def write_as(self, user: Optional[str], path: str, data: bytes, mode: int = 0o644, journal: bool = True) -> None:
        if journal:
            self.remember(path, user)
        super().write_as(user, path, data, mode, journal)

    def remove(self, path: str) -> None:
        if self.exists(path):
            self.remember(path)
        super().remove(path)

    def move_aside(self, path: str, aside: str, user: Optional[str] = None) -> None:
        """Record the directory ``path`` as moved to ``aside`` (write-ahead: rollback moves it
        back), then move it."""
        if self.journal is not None and self.journal.file_entry(path) is None:
            entry = {"path": path, "step": self.current_step, "before": "dir", "backup": None, "link": None,
                     "moved": aside}
            if user and user != "root" and self.euid == 0:
                entry["user"] = user
            self.journal.add_file(entry)
        super().move_aside(path, aside, user)

    def symlink_flip(self, link: str, target: str, user: Optional[str] = None) -> None:
        self.remember(link, user)
        super().symlink_flip(link, target, user)
