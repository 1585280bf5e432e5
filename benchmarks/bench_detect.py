#!/usr/bin/env python3
"""How long ``rocm-wizard detect --json`` takes, end to end, compared with PyTorch's collect_env.

Prints (never asserts) the median wall time over repeated runs, interpreter start included, of:

* ``python -m rocm_wizard detect --json --snapshot <a real fixture>``  (goal: < 150 ms)
* ``python -m rocm_wizard detect --json`` on this machine             (goal: < 300 ms)
* ``python -m torch.utils.collect_env``                               (goal: detect >= 50x faster, >= 30x less peak memory)

Usage::

    python benchmarks/bench_detect.py [--runs 15] [--fixture DIR] [--collect-env-runs 3] [--importtime] [--breakdown]

Before timing, the package's bytecode is compiled (``compileall``), as ``pip install`` does; a
checkout run with ``PYTHONDONTWRITEBYTECODE=1`` would otherwise recompile every module on every
start.  For the same reason one run of each case writes the parsed forms of the package's TOML
files (``rocm_wizard/__pycache__/*.rwtoml``, see ``catalog/_data.py``), as a user's first run does:
under ``PYTHONDONTWRITEBYTECODE=1`` (set in many images) they are never written, and every run parses
``failures.toml`` again (about 40 ms of CPU on a 2-core machine, more on a GPU machine's profile,
where it held the GIL while the other probes waited).  ``--cold-toml`` leaves them out instead.  collect_env needs torch in this interpreter (``pip install torch==2.13.0``, a CPU wheel);
without it that part is skipped and said so (``--collect-env-runs 0`` skips it too).

Wall times on a busy machine are noisy; ``--breakdown`` also prints where the time goes inside
the process (the fastest of ``--runs`` fresh interpreters for each phase), which is steadier for
comparing two versions of the code.
"""
from __future__ import annotations

import argparse
import compileall
import importlib.util
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
SHARED = Path(os.environ.get("ROCM_WIZARD_SHARED") or (REPO / ".." / "shared")).resolve()
DEFAULT_FIXTURE = "019-gfx1150-radeon890m-rocm7.2.0-ubuntu24.04"
GOALS = {"snapshot": 0.150, "live": 0.300}
SPEED_GOAL = 50  # live detect against collect_env, wall time (issue: "50x faster than collect_env")
MEMORY_GOAL = 30  # and peak memory


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    return env


# Starts one measured command and reports on it.  It runs in a fresh, small interpreter (``-I -S``,
# about 9 MB), not in this process: Linux counts the resident set a child had before its exec in its
# ``ru_maxrss`` (the memory map it leaves is folded in at exec), and ``subprocess`` forks or vforks
# from this process, which has imported more by then (the in-process breakdown) -- so every command
# started from here would report at least this process's size (it showed as the same 28.0 MB for
# snapshot and live detect on the GPU machine, where GNU time measured 17.7 MB).  The launcher's own
# size stays below any measured Python command's.  Wall time is taken inside it, from fork to wait.
LAUNCHER = r"""
import os, sys, time
out, argv = sys.argv[1], sys.argv[2:]
t = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
_pid, status, ru = os.wait4(pid, 0)
elapsed = time.perf_counter() - t
with open(out, "w") as fh:
    fh.write("%d %r %d %r" % (os.waitstatus_to_exitcode(status), elapsed, ru.ru_maxrss, ru.ru_utime + ru.ru_stime))
"""


def time_runs(argv, runs: int, env: dict, warmup: int = 1, peaks=None, cpu=None):
    """Wall times of ``runs`` runs after ``warmup``; with ``peaks`` (a list), each run's peak resident
    memory in bytes is appended to it (``wait4``'s ru_maxrss of the command, started by
    :data:`LAUNCHER`: the process alone, its own children excluded); with ``cpu`` (a list), each run's
    CPU time in seconds (``wait4``'s user + system time of the command and the commands it waited
    for), steadier than wall time on a shared machine."""
    import tempfile

    times = []
    rc = None
    fd, report = tempfile.mkstemp(prefix="bench-detect-run-")
    os.close(fd)
    try:
        for i in range(warmup + runs):
            proc = subprocess.run([sys.executable, "-I", "-S", "-c", LAUNCHER, report] + list(argv),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
            with open(report) as fh:
                fields = fh.read().split()
            if proc.returncode != 0 or len(fields) != 4:
                return None, proc.returncode, proc.stderr.decode("utf-8", "replace")[-500:]
            rc, elapsed, maxrss, used = int(fields[0]), float(fields[1]), int(fields[2]), float(fields[3])
            if rc != 0:
                return None, rc, proc.stderr.decode("utf-8", "replace")[-500:]
            if i >= warmup:
                times.append(elapsed)
                if peaks is not None:
                    peaks.append(maxrss * 1024)
                if cpu is not None:
                    cpu.append(used)
    finally:
        os.unlink(report)
    return times, rc, ""


def fmt(times) -> str:
    if not times:
        return "n/a"
    return "median %6.1f ms  (min %6.1f, max %6.1f, n=%d)" % (
        statistics.median(times) * 1000, min(times) * 1000, max(times) * 1000, len(times))


def importtime(argv, env) -> None:
    proc = subprocess.run([sys.executable, "-X", "importtime"] + argv[1:], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, env=env, text=True)
    rows = []
    for line in proc.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    print("  slowest imports (cumulative us):")
    for us, name in sorted(rows, reverse=True)[:15]:
        print("    %8d  %s" % (us, name))


# Runs in a fresh interpreter: times each phase of ``detect --json --snapshot`` in-process and
# prints them as JSON (milliseconds).  The phases follow what the CLI does, in order.
BREAKDOWN = r"""
import json, sys, time
t = [time.perf_counter()]
def lap():
    t.append(time.perf_counter())
import rocm_wizard.cli, rocm_wizard.model; lap()
import rocm_wizard.detect as D
from rocm_wizard.detect import bundle, recognize
recognize.parser_modules(); lap()
for name in D.PROBES:
    D._load_probe(name)
lap()
src = bundle.open_snapshot(sys.argv[1]); src.recognized(); lap()
system = D.detect(src); lap()
from rocm_wizard.model import to_dict
json.dumps(to_dict(system), indent=2, ensure_ascii=False); lap()
names = ["cli+model import", "parser imports", "probe imports", "open+recognise", "probes+merge", "json"]
print(json.dumps({n: (t[i + 1] - t[i]) * 1000 for i, n in enumerate(names)}))
"""


def breakdown(fixture: str, runs: int, env: dict) -> None:
    import json

    best = {}
    for _ in range(runs):
        proc = subprocess.run([sys.executable, "-c", BREAKDOWN, fixture], capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            print("  breakdown failed: %s" % proc.stderr.strip()[-300:])
            return
        for name, ms in json.loads(proc.stdout).items():
            best[name] = min(best.get(name, ms), ms)
    print("  in-process, fastest of %d runs (ms): %s; sum %.1f" % (
        runs, ", ".join("%s %.1f" % kv for kv in best.items()), sum(best.values())))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--collect-env-runs", type=int, default=3, help="0 skips the collect_env comparison")
    ap.add_argument("--fixture", default=str(next(
        (d for d in (REPO / "tests" / "data" / "real" / DEFAULT_FIXTURE, SHARED / "fixtures" / "real" / DEFAULT_FIXTURE)
         if d.exists()), REPO / "tests" / "data" / "real" / DEFAULT_FIXTURE)))
    ap.add_argument("--tool-venv", action="store_true",
                    help="run detect from a bare venv made for it (as `pipx install`/`uv tool install` give: no "
                         "other package's .pth files at start-up); collect_env keeps this interpreter, torch's")
    ap.add_argument("--importtime", action="store_true", help="also list the slowest imports of each detect run")
    ap.add_argument("--breakdown", action="store_true", help="also time the phases of a snapshot run in-process")
    ap.add_argument("--cold-toml", action="store_true",
                    help="time without the __pycache__ parsed forms of the TOML files (a run where they cannot be written: the forms shipped in rocm_wizard/_parsed are then used)")
    args = ap.parse_args()

    compileall.compile_dir(str(SRC), quiet=1)
    env = _env()
    caches = sorted((SRC / "rocm_wizard").glob("**/__pycache__/*.rwtoml"))
    if args.cold_toml:
        for path in caches:
            path.unlink()
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    py = sys.executable
    tool_dir = None
    if args.tool_venv:
        import tempfile
        import venv
        tool_dir = tempfile.mkdtemp(prefix="bench-detect-tool-")
        venv.EnvBuilder(with_pip=False).create(tool_dir)
        py = os.path.join(tool_dir, "bin", "python")
        print("detect runs from a bare venv (%s); collect_env from %s" % (py, sys.executable))
    print("interpreter: %s (Python %s), %d CPUs, load average %s" % (
        py, sys.version.split()[0], os.cpu_count() or 0,
        " ".join("%.2f" % x for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"))
    base_cpu = []
    base, _rc, _err = time_runs([py, "-c", "pass"], args.runs, env, cpu=base_cpu)
    print("%-28s %s; CPU %s" % ("python -c pass", fmt(base), fmt(base_cpu)))

    results = {}
    cases = []
    if Path(args.fixture).exists():
        cases.append(("snapshot", [py, "-m", "rocm_wizard", "detect", "--json", "--snapshot", args.fixture]))
    else:
        print("snapshot: fixture %s not found (shared/ missing?); skipped" % args.fixture)
    cases.append(("live", [py, "-m", "rocm_wizard", "detect", "--json"]))
    if not args.cold_toml:  # the first run after installing writes them (unless the environment forbids it)
        warm_env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
        for _name, argv in cases:
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=warm_env)
    caches = sorted((SRC / "rocm_wizard").glob("**/__pycache__/*.rwtoml"))
    print("parsed TOML files on disk: %d (%s)" % (len(caches), ", ".join(p.name.split(".")[0] for p in caches) or "none"))
    peaks = {}
    for name, argv in cases:
        peaks[name] = []
        cpu = []
        times, rc, err = time_runs(argv, args.runs, env, peaks=peaks[name], cpu=cpu)
        if times is None:
            print("%-28s failed (exit %s): %s" % ("detect " + name, rc, err))
            continue
        results[name] = statistics.median(times)
        goal = GOALS[name]
        print("%-28s %s   goal < %d ms: %s; peak memory %.1f MB" % (
            "detect --json (" + name + ")", fmt(times), goal * 1000, "met" if results[name] < goal else "NOT met",
            max(peaks[name]) / 1e6))
        print("%-28s CPU (user+sys) %s" % ("", fmt(cpu)))
        if args.importtime:
            importtime(argv, env)
        if args.breakdown and name == "snapshot":
            breakdown(args.fixture, args.runs, env)

    if args.collect_env_runs <= 0:
        return 0
    if importlib.util.find_spec("torch") is None:
        print("collect_env: torch is not installed in %s; run 'pip install torch==2.13.0' to compare" % py)
        return 0
    ce_peaks = []
    times, rc, err = time_runs([sys.executable, "-m", "torch.utils.collect_env"], args.collect_env_runs, env, warmup=0,
                               peaks=ce_peaks)
    if times is None:
        print("collect_env failed (exit %s): %s" % (rc, err))
        return 0
    ce = statistics.median(times)
    print("%-28s %s; peak memory %.1f MB" % ("torch.utils.collect_env", fmt(times), max(ce_peaks) / 1e6))
    for name, t in results.items():
        ratio = ce / t if t else float("inf")
        mem = max(ce_peaks) / max(peaks[name])
        print("vs collect_env (%s): %.1fx faster (goal >= %dx: %s), %.1fx less peak memory (goal >= %dx: %s)" % (
            name, ratio, SPEED_GOAL, "met" if ratio >= SPEED_GOAL else "NOT met",
            mem, MEMORY_GOAL, "met" if mem >= MEMORY_GOAL else "NOT met"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
