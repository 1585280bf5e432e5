"""Running a few independent detection jobs.

On a live system the jobs wait on the system (commands with timeouts, /sys, /proc), so each gets
a thread and the slowest one sets the pace.  A snapshot only holds text: its jobs are pure Python,
so they run one after the other in the calling thread, where threads would add nothing but start
and switching costs.  Plain threads are used rather than ``concurrent.futures``, whose import
(logging, among others) costs more than the few jobs it would run.
"""
from __future__ import annotations

import threading
from typing import Any, Callable, List, Sequence, Tuple

Job = Tuple[Callable[..., Any], Tuple[Any, ...]]


def in_parallel(source: object) -> bool:
    """Whether jobs reading ``source`` should run in threads: not for a snapshot's text, nor for a
    live source whose commands were all started ahead (``LiveSource.prestart``): its jobs' waits
    overlap already, and what is left is Python, which threads only slow down."""
    if getattr(source, "prestarted", False) is True:
        return False
    return getattr(source, "kind", "live") != "snapshot"


def run_jobs(jobs: Sequence[Job], parallel: bool = True, background: Sequence[int] = ()) -> List[Tuple[bool, Any]]:
    """Run every ``(fn, args)`` and return ``[(True, result) or (False, exception)]`` in order.

    An ``Exception`` in a job is returned, never raised; anything else (``KeyboardInterrupt``)
    is raised once every job has finished.  Not ``parallel``, the jobs run in the calling thread in
    turn, but those at the indexes in ``background`` (jobs that may wait on something outside,
    such as a daemon) each get a thread, started first."""
    results: List[Tuple[bool, Any]] = [(False, None)] * len(jobs)

    def one(i: int, fn: Callable[..., Any], args: Tuple[Any, ...]) -> None:
        try:
            results[i] = (True, fn(*args))
        except BaseException as exc:  # handed to the caller below
            results[i] = (False, exc)

    if not parallel or len(jobs) < 2:
        aside = [threading.Thread(target=one, args=(i, jobs[i][0], jobs[i][1]), name="detect-%d" % i, daemon=True)
                 for i in sorted(set(background)) if 0 <= i < len(jobs)] if len(jobs) > 1 else []
        for t in aside:
            t.start()
        try:
            for i, (fn, args) in enumerate(jobs):
                if aside and i in background:
                    continue
                one(i, fn, args)
                if not results[i][0] and not isinstance(results[i][1], Exception):
                    raise results[i][1]
        finally:
            for t in aside:
                t.join()
        for ok, value in results:
            if not ok and not isinstance(value, Exception):
                raise value
        return results
    threads = [threading.Thread(target=one, args=(i, fn, args), name="detect-%d" % i, daemon=True)
               for i, (fn, args) in enumerate(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for ok, value in results:
        if not ok and not isinstance(value, Exception):
            raise value
    return results
