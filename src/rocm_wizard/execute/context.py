"""The step context of a real run: before the run first touches a file (write, remove, link flip),
its state is saved -- a copy in the run's backup directory, or "absent", or the link's target --
and recorded in the journal *before* the change (write-ahead).  ``rollback`` and the automatic
restore after an early failure put every such file back exactly."""
from __future__ import annotations

import os
import shutil
from typing import Optional

from ..plan.context import Context, StepError


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

    def remember(self, path: str) -> None:
        """Record ``path``'s state before its first change in this run (idempotent)."""
        if self.journal is None or self.journal.file_entry(path) is not None:
            return
        real = self.p(path)
        entry = {"path": path, "step": self.current_step, "before": "absent", "backup": None, "link": None}
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
            self.remember(path)
        super().write_as(user, path, data, mode, journal)

    def remove(self, path: str) -> None:
        if self.exists(path):
            self.remember(path)
        super().remove(path)

    def symlink_flip(self, link: str, target: str, user: Optional[str] = None) -> None:
        self.remember(link)
        super().symlink_flip(link, target, user)
