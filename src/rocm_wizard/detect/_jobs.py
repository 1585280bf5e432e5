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
    """Whether jobs reading ``source`` should run in threads: not for a snapshot's text."""
    return getattr(source, "kind", "live") != "snapshot"


def run_jobs(jobs: Sequence[Job], parallel: bool = True) -> List[Tuple[bool, Any]]:
    """Run every ``(fn, args)`` and return ``[(True, result) or (False, exception)]`` in order.

    An ``Exception`` in a job is returned, never raised; anything else (``KeyboardInterrupt``)
    is raised once every job has finished."""
    results: List[Tuple[bool, Any]] = [(False, None)] * len(jobs)

    def one(i: int, fn: Callable[..., Any], args: Tuple[Any, ...]) -> None:
        try:
            results[i] = (True, fn(*args))
        except BaseException as exc:  # handed to the caller below
            results[i] = (False, exc)

    if not parallel or len(jobs) < 2:
        for i, (fn, args) in enumerate(jobs):
            one(i, fn, args)
            if not results[i][0] and not isinstance(results[i][1], Exception):
                raise results[i][1]
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
