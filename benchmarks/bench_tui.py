#!/usr/bin/env python3
"""How fast the TUI appears, and how much memory it takes (goals here, never in timed tests).

Starts ``rocm-wizard --demo`` (the installed command, or ``python -m rocm_wizard`` with
``--module``) in a pseudo-terminal of 80x24, as a user's terminal would, and prints per run and as
medians over the runs:

* time to the first frame: from the start of the process to the first drawn title bar
  (interpreter start included; goal: under 0.8 s);
* time until detection and diagnosis of the demo system are on screen;
* peak resident memory of the process (ru_maxrss of the child).

Usage::

    python benchmarks/bench_tui.py [--runs 5] [--module] [--timeout 30]
"""
from __future__ import annotations

import argparse
import compileall
import fcntl
import os
import pty
import select
import shutil
import signal
import statistics
import struct
import sys
import termios
import time

GOAL_FIRST_FRAME = 0.8
FIRST_FRAME = b"1/8 Detect"
DETECTED = b"problem"
QUIT = b"\x11"  # ctrl+q


def one_run(argv, timeout: float):
    env = dict(os.environ, TERM="xterm-256color", ROCM_WIZARD_DEMO_SPEED="0")
    for name in ("COLUMNS", "LINES", "NO_COLOR", "TMUX", "SSH_CONNECTION"):
        env.pop(name, None)
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the wizard on the pty
        try:
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    buf = b""
    first = detected = None
    end = start + timeout
    while time.perf_counter() < end and detected is None:
        r, _, _ = select.select([fd], [], [], 0.05)
        if not r:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        buf += chunk
        now = time.perf_counter()
        if first is None and FIRST_FRAME in buf:
            first = now - start
        if first is not None and DETECTED in buf[-65536:]:
            detected = now - start
    try:
        os.write(fd, QUIT)
    except OSError:
        pass
    deadline = time.perf_counter() + 10
    status = rusage = None
    while time.perf_counter() < deadline:
        try:
            os.read(fd, 65536) if select.select([fd], [], [], 0.05)[0] else None
        except OSError:
            pass
        wpid, status, rusage = os.wait4(pid, os.WNOHANG)
        if wpid == pid:
            break
    else:
        os.kill(pid, signal.SIGKILL)
        _pid, status, rusage = os.wait4(pid, 0)
    os.close(fd)
    rss_mib = rusage.ru_maxrss / 1024 if rusage else float("nan")  # Linux: KiB
    return first, detected, rss_mib, os.waitstatus_to_exitcode(status) if status is not None else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--module", action="store_true", help="run `python -m rocm_wizard` instead of the installed command")
    ap.add_argument("--timeout", type=float, default=30.0)
    args = ap.parse_args()
    import rocm_wizard

    import re

    # as pip install does (the demo system's files are data, not code)
    compileall.compile_dir(os.path.dirname(rocm_wizard.__file__), quiet=1, rx=re.compile(r"/demo/system/"))
    if args.module:
        argv = [sys.executable, "-m", "rocm_wizard", "--demo"]
    else:
        exe = shutil.which("rocm-wizard")
        if exe is None:
            print("rocm-wizard is not installed; use --module", file=sys.stderr)
            return 1
        argv = [exe, "--demo"]
    print(f"command: {' '.join(argv)}  (80x24 pty, {args.runs} runs)")
    firsts, dets, rss = [], [], []
    for i in range(args.runs):
        first, detected, mib, code = one_run(argv, args.timeout)
        print(f"  run {i + 1}: first frame {first if first is None else f'{first:.3f} s'}, "
              f"detected {detected if detected is None else f'{detected:.3f} s'}, peak RSS {mib:.1f} MiB, exit {code}")
        if first is not None:
            firsts.append(first)
        if detected is not None:
            dets.append(detected)
        rss.append(mib)
    if not firsts:
        print("no frame was drawn", file=sys.stderr)
        return 1
    med = statistics.median(firsts)
    verdict = "meets" if med < GOAL_FIRST_FRAME else "MISSES"
    print(f"time to first frame: median {med:.3f} s, best {min(firsts):.3f} s "
          f"({verdict} the goal of {GOAL_FIRST_FRAME} s)")
    if dets:
        print(f"time to detection + diagnosis on screen: median {statistics.median(dets):.3f} s")
    print(f"peak RSS: median {statistics.median(rss):.1f} MiB, max {max(rss):.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
