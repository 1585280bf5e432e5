#!/usr/bin/env python3
"""Where a live ``detect`` spends its time: each probe's wall time and each command it runs,
printed as a timeline (ms from the start of detection).  For finding what waits on what.

Commands started ahead (``detect/live_start.py``) show from their start to the moment a probe
collected them ("cmd* ..."); the others from the probe's request to their end ("cmd ...")."""
import os
import sys
import threading
import time

T0 = time.perf_counter()
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
import rocm_wizard.detect as D  # noqa: E402
from rocm_wizard.detect import live_start, sources  # noqa: E402

rows = []
lock = threading.Lock()


def ms():
    return (time.perf_counter() - T0) * 1000


orig_run = sources.run_command


def run_command(argv, *a, **k):
    t = ms()
    res = orig_run(argv, *a, **k)
    with lock:
        rows.append((t, ms(), "cmd " + " ".join(argv)[:90]))
    return res


sources.run_command = run_command
orig_collect = live_start.collect


def collect(started, *a, **k):
    res = orig_collect(started, *a, **k)
    if sys._getframe(1).f_code.co_name != "run_command":  # (run_command's own show above)
        with lock:
            rows.append(((started.start - T0_MONO) * 1000, ms(), "cmd* " + " ".join(started.argv)[:90]))
    return res


live_start.collect = collect
T0_MONO = time.monotonic() - (time.perf_counter() - T0)
orig_probe = D.run_probe


def run_probe(name, *a, **k):
    t = ms()
    try:
        return orig_probe(name, *a, **k)
    finally:
        with lock:
            rows.append((t, ms(), "probe " + name))


D.run_probe = run_probe
t_imp = ms()
system = D.detect_live()
t_end = ms()
from rocm_wizard.model import to_dict  # noqa: E402
import json  # noqa: E402
json.dumps(to_dict(system))
print("imports done at %.1f ms; detect %.1f -> %.1f ms; json at %.1f ms" % (t_imp, t_imp, t_end, ms()))
for start, end, what in sorted(rows):
    print("%7.1f %7.1f %6.1f  %s" % (start, end, end - start, what))
