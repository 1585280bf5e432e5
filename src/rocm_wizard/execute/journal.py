"""The run journal: what ``resume`` and ``rollback`` read.  Written atomically after every step and
before every file the run touches (write-ahead), so a SIGKILL at any point leaves a journal that
tells what was done, what was in progress and what every touched file looked like before.

Shape (``journal.json``, format 1)::

    {"format": "rocm-wizard-journal", "version": 1, "run_id", "plan_id", "path", "title",
     "state": "running|finished|failed|interrupted|restored|rolled-back",
     "pid", "pid_start" (its start time, /proc/PID/stat: a reused pid is not the run),
     "started", "updated", "finished", "argv" (redacted), "root", "backup_dir",
     "steps": [{"id", "kind", "title", "status": "pending|running|ok|changed|failed|skipped",
                "detail", "started", "finished"}],
     "changed": [step ids that changed something],
     "files": [{"path", "before": "absent|file|link", "backup", "link", "step",
                "user"}],   # first touch only; user: the owner it is read and restored as (a venv's)
     "resumes": [timestamps], "verify": {...} | null, "message": "...",
     "children": [{"pgid", "start", "step", "argv"}]}   # process groups of the running step's commands

A journal whose fields have the wrong types is refused with a :class:`JournalError` naming the field.
"""
from __future__ import annotations

import os
import time
from typing import Any, Dict, List, Optional

from .fsutil import read_json, write_json
from .procs import proc_start, same_process

FORMAT = "rocm-wizard-journal"
VERSION = 1

PENDING, RUNNING, OK, CHANGED, FAILED, SKIPPED = "pending", "running", "ok", "changed", "failed", "skipped"
DONE_STATUSES = (OK, CHANGED)

RUN_RUNNING, RUN_FINISHED, RUN_FAILED, RUN_INTERRUPTED = "running", "finished", "failed", "interrupted"
RUN_RESTORED, RUN_ROLLED_BACK = "restored", "rolled-back"
STEP_STATUSES = (PENDING, RUNNING, OK, CHANGED, FAILED, SKIPPED)
RUN_STATES = (RUN_RUNNING, RUN_FINISHED, RUN_FAILED, RUN_INTERRUPTED, RUN_RESTORED, RUN_ROLLED_BACK)

_NUM = (int, float)
_OPT_STR = (str, type(None))
_OPT_INT = (int, type(None))
# field -> accepted types (absent fields are fine: older journals lack some)
_TOP = {"run_id": (str,), "plan_id": (str,), "path": (str,), "title": (str,), "state": (str,), "pid": _OPT_INT,
        "pid_start": _OPT_INT, "root": (str,), "backup_dir": (str,), "message": (str,), "changed": (list,),
        "resumes": (list,), "argv": (list,), "children": (list,), "verify": (dict, type(None)),
        "packages": (list, type(None)), "started": _NUM + (type(None),), "finished": _NUM + (type(None),)}
_STEP = {"id": (str,), "status": (str,), "kind": (str,), "title": (str,), "detail": (str,),
         "started": _NUM + (type(None),), "finished": _NUM + (type(None),)}
_FILE = {"path": (str,), "before": (str,), "backup": _OPT_STR, "link": _OPT_STR, "step": _OPT_STR, "user": _OPT_STR,
         "moved": _OPT_STR}
_CHILD = {"pgid": (int,), "start": _OPT_INT, "step": _OPT_STR, "argv": (list,)}


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
            "pid_start": proc_start(os.getpid()), "children": [],
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
        _check_types(path, data)
        return cls(path, data)

    def save(self) -> None:
        self.data["updated"] = time.time()
        write_json(self.path, self.data)

    def save_in_place(self) -> None:
        """Last resort when the disk is full and a new copy cannot be written: overwrite the journal
        where it is (the old blocks are freed first), so it does not say "running" for ever."""
        import json

        data = (json.dumps(self.data, indent=1, default=str) + "\n").encode("utf-8")
        fd = os.open(self.path, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)

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
        self.data["children"] = []  # the step's commands have ended (or were killed on a timeout)
        if status == CHANGED and step_id not in self.data["changed"]:
            self.data["changed"].append(step_id)
        self.save()

    def add_file(self, entry: Dict[str, Any]) -> None:
        if self.file_entry(entry["path"]) is None:
            self.data["files"].append(entry)
            self.save()

    def add_child(self, pgid: int, step: Optional[str], argv: List[str]) -> None:
        """Write-ahead record of a command's process group, so that ``resume`` finds it if this
        process is killed while the command runs (the command lives on in its own session)."""
        self.data.setdefault("children", []).append(
            {"pgid": pgid, "start": proc_start(pgid), "step": step, "argv": list(argv)[:6]})
        self.save()

    def alive(self) -> bool:
        """Is the process that wrote this journal still running (the same process, not a reused pid)?"""
        return same_process(self.data.get("pid"), self.data.get("pid_start"))

    def mark_resumed(self) -> None:
        self.data["resumes"].append(time.time())
        self.data["pid"] = os.getpid()
        self.data["pid_start"] = proc_start(os.getpid())
        self.data["children"] = []
        self.data["state"] = RUN_RUNNING
        self.data["finished"] = None
        self.save()


def _check_types(path: str, data: Dict[str, Any]) -> None:
    def bad(what: str) -> JournalError:
        return JournalError(f"{path} is damaged ({what}); it cannot be trusted: start a new run with rocm-wizard --yes")

    def fields(obj: Any, spec: Dict[str, tuple], where: str) -> None:
        if not isinstance(obj, dict):
            raise bad(f"{where.rstrip(': ') or 'the journal'} is not an object")
        for key, types in spec.items():
            if key in obj and (not isinstance(obj[key], types) or (isinstance(obj[key], bool) and bool not in types)):
                raise bad(f"{where}{key} is a {type(obj[key]).__name__}")

    fields(data, _TOP, "")
    if data.get("state", RUN_RUNNING) not in RUN_STATES:
        raise bad(f"unknown state {data.get('state')!r}")
    for i, s in enumerate(data["steps"]):
        fields(s, _STEP, f"step {i + 1}: ")
        if "id" not in s or "status" not in s:
            raise bad(f"step {i + 1}: a step entry is malformed")
        if s["status"] not in STEP_STATUSES:
            raise bad(f"step {i + 1}: unknown status {s['status']!r}")
    for i, f in enumerate(data["files"]):
        fields(f, _FILE, f"file {i + 1}: ")
    for i, c in enumerate(data.get("children") or []):
        fields(c, _CHILD, f"child {i + 1}: ")
    if not all(isinstance(x, str) for x in data.get("changed") or []):
        raise bad("changed holds something that is not a step id")
