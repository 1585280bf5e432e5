"""The run journal: what ``resume`` and ``rollback`` read.  Written atomically after every step and
before every file the run touches (write-ahead), so a SIGKILL at any point leaves a journal that
tells what was done, what was in progress and what every touched file looked like before.

Shape (``journal.json``, format 1)::

    {"format": "rocm-wizard-journal", "version": 1, "run_id", "plan_id", "path", "title",
     "state": "running|finished|failed|interrupted|restored|rolled-back",
     "pid", "started", "updated", "finished", "argv" (redacted), "root", "backup_dir",
     "steps": [{"id", "kind", "title", "status": "pending|running|ok|changed|failed|skipped",
                "detail", "started", "finished"}],
     "changed": [step ids that changed something],
     "files": [{"path", "before": "absent|file|link", "backup", "link", "step"}],   # first touch only
     "resumes": [timestamps], "verify": {...} | null, "message": "..."}
"""
from __future__ import annotations

import os
import time
from typing import Any, Dict, List, Optional

from .fsutil import read_json, write_json

FORMAT = "rocm-wizard-journal"
VERSION = 1

PENDING, RUNNING, OK, CHANGED, FAILED, SKIPPED = "pending", "running", "ok", "changed", "failed", "skipped"
DONE_STATUSES = (OK, CHANGED)

RUN_RUNNING, RUN_FINISHED, RUN_FAILED, RUN_INTERRUPTED = "running", "finished", "failed", "interrupted"
RUN_RESTORED, RUN_ROLLED_BACK = "restored", "rolled-back"


class JournalError(ValueError):
    pass


class Journal:
    def __init__(self, path: str, data: Dict[str, Any]) -> None:
        self.path = path
        self.data = data

    # ------------------------------------------------------------------ creation and loading
    @classmethod
    def create(cls, path: str, *, run_id: str, plan, argv: List[str], root: str, backup_dir: str) -> "Journal":
        now = time.time()
        data = {
            "format": FORMAT, "version": VERSION, "run_id": run_id, "plan_id": plan.plan_id,
            "path": plan.path, "title": plan.title, "state": RUN_RUNNING, "pid": os.getpid(),
            "started": now, "updated": now, "finished": None, "argv": list(argv), "root": root,
            "backup_dir": backup_dir,
            "steps": [{"id": s.id, "kind": s.kind, "title": s.title, "status": PENDING, "detail": "",
                       "started": None, "finished": None} for s in plan.steps],
            "changed": [], "files": [], "resumes": [], "verify": None, "message": "",
        }
        j = cls(path, data)
        j.save()
        return j

    @classmethod
    def load(cls, path: str) -> "Journal":
        try:
            data = read_json(path)
        except ValueError as exc:
            raise JournalError(str(exc)) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise JournalError(f"{path} is not a rocm-wizard journal")
        if data.get("version") != VERSION:
            raise JournalError(f"{path}: journal version {data.get('version')!r} is not {VERSION}")
        if not isinstance(data.get("steps"), list) or not isinstance(data.get("files"), list):
            raise JournalError(f"{path} is damaged (no step list)")
        for s in data["steps"]:
            if not isinstance(s, dict) or "id" not in s or "status" not in s:
                raise JournalError(f"{path} is damaged (a step entry is malformed)")
        return cls(path, data)

    def save(self) -> None:
        self.data["updated"] = time.time()
        write_json(self.path, self.data)

    # ------------------------------------------------------------------ accessors
    @property
    def state(self) -> str:
        return self.data.get("state", "")

    @property
    def run_id(self) -> str:
        return self.data.get("run_id", "")

    @property
    def steps(self) -> List[Dict[str, Any]]:
        return self.data["steps"]

    def step(self, step_id: str) -> Dict[str, Any]:
        for s in self.steps:
            if s["id"] == step_id:
                return s
        raise KeyError(step_id)

    @property
    def changed(self) -> List[str]:
        return list(self.data.get("changed", []))

    def running_step(self) -> Optional[Dict[str, Any]]:
        return next((s for s in self.steps if s["status"] == RUNNING), None)

    def done(self, step_id: str) -> bool:
        return self.step(step_id)["status"] in DONE_STATUSES

    def file_entry(self, path: str) -> Optional[Dict[str, Any]]:
        return next((f for f in self.data["files"] if f.get("path") == path), None)

    # ------------------------------------------------------------------ updates
    def set_state(self, state: str, message: str = "") -> None:
        self.data["state"] = state
        if message:
            self.data["message"] = message
        if state != RUN_RUNNING:
            self.data["finished"] = time.time()
        self.save()

    def begin_step(self, step_id: str) -> None:
        s = self.step(step_id)
        s.update(status=RUNNING, started=time.time(), finished=None, detail="")
        self.save()

    def end_step(self, step_id: str, status: str, detail: str) -> None:
        s = self.step(step_id)
        s.update(status=status, finished=time.time(), detail=detail)
        if status == CHANGED and step_id not in self.data["changed"]:
            self.data["changed"].append(step_id)
        self.save()

    def add_file(self, entry: Dict[str, Any]) -> None:
        if self.file_entry(entry["path"]) is None:
            self.data["files"].append(entry)
            self.save()

    def mark_resumed(self) -> None:
        self.data["resumes"].append(time.time())
        self.data["pid"] = os.getpid()
        self.data["state"] = RUN_RUNNING
        self.data["finished"] = None
        self.save()


def pid_alive(pid: Any) -> bool:
    try:
        pid = int(pid)
    except (TypeError, ValueError):
        return False
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
