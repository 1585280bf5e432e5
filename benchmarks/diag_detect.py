#!/usr/bin/env python3
"""Where a live ``detect`` spends its time: each probe's wall time and each command it runs,
printed as a timeline (ms from the start of detection).  For finding what waits on what."""
import os
import sys
import threading
import time

T0 = time.perf_counter()
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
import rocm_wizard.detect as D  # noqa: E402
from rocm_wizard.detect import sources  # noqa: E402

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
