"""Commands of a run: output streamed into the run log as it comes, a heartbeat on the console for
long ones, a timeout, and a record of argv / exit status / duration in the event stream.

Children run in their own session, so a Ctrl-C on the terminal reaches the executor only: it lets
the running step finish (dpkg must not be cut in the middle) and stops after it.

``apt-get update`` exits 0 when a repository cannot be fetched ("W: Failed to fetch ...; Some
index files failed to download"); an unattended run must not go on with stale lists, so such an
update is reported as failed here (exit status 100, the message apt printed), by the same rule as
the plan's step and script (``rocm_wizard.plan.steps.apt.apt_update_failures``).
"""
from __future__ import annotations

import os
import subprocess
import threading
import time
from typing import Callable, Dict, List, Optional, Sequence

from ..detect.sources import CommandResult, decode
from .redact import redact_argv

MAX_KEEP = 4 * 1024 * 1024
MAX_LINE = 64 * 1024  # a line longer than this is kept (and logged) cut, with a mark


def _is_apt_update(argv: Sequence[str]) -> bool:
    names = [os.path.basename(a) for a in argv[:1]]
    return bool(names) and names[0] in ("apt-get", "apt") and "update" in argv[1:]


class Runner:
    def __init__(self, log, heartbeat: float = 30.0, on_start: Optional[Callable[[subprocess.Popen], None]] = None) -> None:
        self.log = log
        self.heartbeat = heartbeat
        self.on_start = on_start
        self.current: Optional[subprocess.Popen] = None

    def __call__(self, argv: Sequence[str], input: Optional[bytes] = None, env: Optional[Dict[str, str]] = None,
                 timeout: Optional[float] = None) -> CommandResult:
        argv = [str(a) for a in argv]
        start = time.monotonic()
        shown = " ".join(redact_argv(argv))
        self.log.write(f"+ {shown}")
        exe = argv[0]
        import shutil

        if os.sep not in exe and shutil.which(exe, path=(env or os.environ).get("PATH")) is None:
            self.log.command(argv, None, 0.0, f"{exe}: not installed")
            return CommandResult(tuple(argv), "", "", None, f"{exe}: not installed", 0.0)
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                    start_new_session=True)
        except OSError as exc:
            err = f"{exe}: {exc.strerror or exc}"
            self.log.command(argv, None, time.monotonic() - start, err)
            return CommandResult(tuple(argv), "", "", None, err, time.monotonic() - start)
        self.current = proc
        if self.on_start is not None:
            self.on_start(proc)
        out: List[bytes] = []
        err: List[bytes] = []

        def pump(stream, sink: List[bytes], tag: str) -> None:
            size = 0
            cutting = False  # inside an over-long line: the rest is counted, not kept
            extra = 0
            full = False

            def keep(data: bytes) -> None:
                nonlocal size, full
                if size < MAX_KEEP:
                    sink.append(data)
                    size += len(data)
                elif not full:
                    sink.append(b"\n[output cut: more than %d bytes]\n" % MAX_KEEP)
                    full = True

            def end_cut() -> None:
                mark = f"[line cut: {extra} bytes more]"
                keep(mark.encode() + b"\n")
                self.log.write(f"  {tag} {mark}")

            while True:
                raw = stream.readline(MAX_LINE)  # capped reads: a line without end is never held whole
                if not raw:
                    break
                if cutting:
                    extra += len(raw)
                    if raw.endswith(b"\n"):
                        end_cut()
                        cutting, extra = False, 0
                    continue
                if len(raw) >= MAX_LINE and not raw.endswith(b"\n"):
                    cutting, extra = True, 0
                    keep(raw + b" ")
                else:
                    keep(raw)
                self.log.write(f"  {tag} {decode(raw).rstrip()}")
            if cutting:
                end_cut()
            stream.close()

        threads = [threading.Thread(target=pump, args=(proc.stdout, out, "|"), daemon=True),
                   threading.Thread(target=pump, args=(proc.stderr, err, "!"), daemon=True)]
        for t in threads:
            t.start()
        if input is not None:
            try:
                proc.stdin.write(input)
                proc.stdin.close()
            except OSError:
                pass
        deadline = None if not timeout else start + timeout
        next_beat = start + self.heartbeat
        error = None
        while True:
            try:
                proc.wait(timeout=0.2)
                break
            except subprocess.TimeoutExpired:
                pass
            now = time.monotonic()
            if deadline is not None and now > deadline:
                self._kill(proc)
                error = f"{exe}: timed out after {timeout:g}s"
                break
            if now >= next_beat:
                self.log.show(f"        ... still running after {int(now - start)}s: {shown[:100]}")
                next_beat = now + self.heartbeat
        for t in threads:
            t.join(timeout=5)
        self.current = None
        duration = time.monotonic() - start
        rc = None if error else proc.returncode
        stdout, stderr = decode(b"".join(out)), decode(b"".join(err))
        if rc == 0 and _is_apt_update(argv):
            from ..plan.steps.apt import apt_update_failures

            failed = apt_update_failures(stdout + "\n" + stderr)
            if failed:
                rc = 100
                stderr = stderr + "\n" + "\n".join(failed)
                self.log.write("apt-get update could not fetch every repository: treated as a failure")
        self.log.command(argv, rc, duration, error)
        return CommandResult(tuple(argv), stdout, stderr, rc, error, duration)

    @staticmethod
    def _kill(proc: subprocess.Popen) -> None:
        from ..detect.sources import kill_group

        kill_group(proc)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
