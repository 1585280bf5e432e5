"""The run's log (``run.log``, text) and event stream (``events.jsonl``: step start/finish, every
command with argv, exit status and duration).  Everything written passes through
:func:`~rocm_wizard.execute.redact.redact`; the environment is never logged."""
from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Any, Dict, List, Optional, Sequence, TextIO

from ..termsafe import clean
from .redact import redact, redact_argv


def _stamp(t: Optional[float] = None) -> str:
    t = time.time() if t is None else t
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t)) + f".{int((t % 1) * 1000):03d}"


def _open_append(path: str) -> TextIO:
    """Append to ``path`` (created 0640), never through a symbolic link."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o640)
    return os.fdopen(fd, "a", encoding="utf-8", errors="replace")


class RunLog:
    def __init__(self, run_dir: str, console: Optional[TextIO] = None) -> None:
        self.run_dir = run_dir
        self.path = os.path.join(run_dir, "run.log")
        self.events_path = os.path.join(run_dir, "events.jsonl")
        self._lock = threading.Lock()
        self._text = _open_append(self.path)
        self._events = _open_append(self.events_path)
        # the first write that failed (disk full, I/O error): the executor stops at the next step
        # boundary and says so; the output threads of a command never raise
        self.failure: Optional[OSError] = None
        self.console = console if console is not None else sys.stderr
        self.commands: List[Dict[str, Any]] = []
        self.step: Optional[str] = None

    # ------------------------------------------------------------------ writing
    def write(self, message: str) -> None:
        """A line in run.log only."""
        line = redact(message)
        with self._lock:
            try:
                self._text.write(f"{_stamp()} {line}\n")
                self._text.flush()
            except OSError as exc:
                self.failure = self.failure or exc
            except ValueError:
                pass

    def say(self, message: str) -> None:
        """A line for the person (stderr) and the log."""
        self.write(message)
        self.show(message)

    def show(self, message: str) -> None:
        try:
            print(clean(redact(message)), file=self.console, flush=True)  # (a step's output: no terminal sequences)
        except (OSError, ValueError):  # the terminal went away (SSH dropped): keep going
            pass

    def event(self, _event: str, **fields: Any) -> None:
        rec: Dict[str, Any] = {"t": round(time.time(), 3), "event": _event}
        for k, v in fields.items():
            if isinstance(v, str):
                v = redact(v)
            rec[k] = v
        with self._lock:
            try:
                self._events.write(json.dumps(rec, default=str) + "\n")
                self._events.flush()
            except OSError as exc:
                self.failure = self.failure or exc
            except ValueError:
                pass

    def command(self, argv: Sequence[str], rc: Optional[int], duration: float, error: Optional[str] = None) -> None:
        safe = redact_argv(argv)
        rec = {"argv": safe, "rc": rc, "duration": round(duration, 3), "step": self.step}
        if error:
            rec["error"] = redact(error)
        self.commands.append(rec)
        self.event("command", **rec)
        self.write(f"command {'exit ' + str(rc) if rc is not None else 'error'} after {duration:.1f}s: "
                   + " ".join(safe) + (f" ({error})" if error else ""))

    def close(self) -> None:
        with self._lock:
            for fh in (self._text, self._events):
                try:
                    fh.close()
                except OSError:
                    pass
