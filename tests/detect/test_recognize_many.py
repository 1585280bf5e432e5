"""A large folder of pastes is recognised with one forked worker (``recognize.recognize_many``):
the answers are those of recognising every file in turn, in the same order, whether the worker
does its share, fails, or is not started (a small paste, another thread alive, the switch off).
No timing is asserted here (speed goals live in ``benchmarks/``)."""
from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from rocm_wizard.detect import recognize

REAL = Path(__file__).resolve().parents[1] / "data" / "real"



def _record_forks(monkeypatch):
    """os.fork recorded: the list of the children forked from here on."""
    children = []
    real_fork = os.fork

    def fork():
        pid = real_fork()
        if pid:
            children.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    return children

def _named(total_chars: int):
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(REAL.glob("*/*.txt"))]
    named, size, i, chunk = [], 0, 0, []
    while size < total_chars:
        t = texts[i % len(texts)]
        chunk.append(t)
        size += len(t)
        i += 1
        if sum(map(len, chunk)) > 200_000:
            named.append(("paste-%02d.txt" % len(named), "\n".join(chunk)))
            chunk = []
    if chunk:
        named.append(("paste-%02d.txt" % len(named), "\n".join(chunk)))
    return named


@pytest.fixture(autouse=True)
def _a_free_cpu(monkeypatch):
    # (the worker is started only where the load average leaves a CPU free: these tests are about
    # what it does once started, whatever the machine running them is busy with)
    monkeypatch.setattr(recognize, "_cpu_free", lambda ignore_load=False: (os.cpu_count() or 1) >= 2)


@pytest.fixture(scope="module")
def large():
    named = _named(recognize.PARALLEL_MIN_CHARS + 600_000)
    return named, [recognize.recognize(text, name) for name, text in named]


def _may_fork_here(monkeypatch, named):
    """The default (no switch), as if no other thread were alive: in the whole suite an earlier test
    may leave a thread of its own in this worker (a stand-in server, a watcher), which keeps the
    worker from being forked; these tests are about the worker, and the thread gate has its own
    test (test_the_switch_and_other_threads_keep_it_in_one_process)."""
    monkeypatch.delenv("ROCM_WIZARD_RECOGNIZE_JOBS", raising=False)
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    if not recognize._may_fork(named):
        pytest.skip("no fork here (one CPU, no fork, or another thread alive)")


def _counting_fork(monkeypatch):
    calls = []
    real = os.fork

    def fork():
        calls.append(1)
        return real()

    monkeypatch.setattr(os, "fork", fork)
    return calls


def test_a_large_folder_is_shared_with_a_worker_and_gives_the_same_answers(large, monkeypatch):
    named, want = large
    _may_fork_here(monkeypatch, named)
    calls = _counting_fork(monkeypatch)
    assert recognize.recognize_many(named) == want
    assert calls == [1]


def test_a_failing_worker_leaves_its_files_to_this_process(large, monkeypatch):
    named, want = large
    _may_fork_here(monkeypatch, named)
    parent = os.getpid()
    real = recognize.recognize

    def in_child_fails(text, name="paste", kinds=None):
        if os.getpid() != parent:
            raise RuntimeError("worker broke")
        return real(text, name, kinds)

    monkeypatch.setattr(recognize, "recognize", in_child_fails)
    calls = _counting_fork(monkeypatch)
    assert recognize.recognize_many(named) == want
    assert calls == [1]


def _no_fork(monkeypatch):
    def fork():
        raise AssertionError("forked")

    monkeypatch.setattr(os, "fork", fork)


def test_a_small_paste_is_never_forked_for(monkeypatch):
    named = _named(300_000)
    assert sum(len(t) for _n, t in named) < recognize.PARALLEL_MIN_CHARS
    _no_fork(monkeypatch)
    assert recognize.recognize_many(named) == [recognize.recognize(t, n) for n, t in named]


def test_the_switch_and_other_threads_keep_it_in_one_process(large, monkeypatch):
    named, want = large
    _no_fork(monkeypatch)
    monkeypatch.setenv("ROCM_WIZARD_RECOGNIZE_JOBS", "1")
    assert recognize.recognize_many(named) == want
    monkeypatch.delenv("ROCM_WIZARD_RECOGNIZE_JOBS")
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert recognize.recognize_many(named) == want
    finally:
        stop.set()
        t.join()


def test_shares_cover_every_file_once():
    named = [("f%d" % i, "x" * (i * 37 % 11 + 1)) for i in range(9)]
    mine, theirs = recognize._shares(named)
    assert sorted(mine + theirs) == list(range(9)) and not set(mine) & set(theirs)


def test_an_interruption_here_ends_the_worker(large, monkeypatch):
    # this process is interrupted while the worker works: the worker is ended and waited for (no
    # orphan left), and the interruption goes on up
    named, _want = large
    _may_fork_here(monkeypatch, named)
    parent = os.getpid()
    real = recognize.recognize
    seen = []

    def interrupted_here(text, name="paste", kinds=None):
        if os.getpid() == parent and seen:
            raise KeyboardInterrupt
        seen.append(name)
        return real(text, name, kinds)

    children = _record_forks(monkeypatch)
    monkeypatch.setattr(recognize, "recognize", interrupted_here)
    with pytest.raises(KeyboardInterrupt):
        recognize.recognize_many(named)
    assert len(children) == 1
    with pytest.raises(ChildProcessError):
        os.waitpid(children[0], os.WNOHANG)  # (already waited for)


def test_the_worker_also_works_out_each_distinct_text_once(large, monkeypatch):
    # recognize_many_also: the same segments, and also(text) for every distinct text, equal to
    # working it out here; nothing extra without a worker
    from rocm_wizard.detect.parsers import paste_facts

    named, want = large
    named = named + [("copy.txt", named[0][1])]  # a text twice: asked once
    want = want + [want[0]]
    _may_fork_here(monkeypatch, named)
    segs, extra = recognize.recognize_many_also(named, paste_facts.parse, 0.17)
    assert segs == want
    assert set(extra) == {t for _n, t in named}
    for text, got in extra.items():
        assert repr(got) == repr(paste_facts.parse(text))
    monkeypatch.setenv("ROCM_WIZARD_RECOGNIZE_JOBS", "1")
    assert recognize.recognize_many_also(named, paste_facts.parse, 0.17) == (want, {})


def test_each_side_works_out_also_for_the_distinct_texts_of_its_own_files(large, monkeypatch):
    # (so that the two sides' work goes with their characters: the worker does not wait on this
    # process's facts, nor this process on the worker's)
    named, want = large
    named = named + [("copy.txt", named[-1][1])]  # a text twice: asked once, on the side of its first file
    want = want + [want[-1]]
    _may_fork_here(monkeypatch, named)
    parent = os.getpid()
    here = []

    def where(text):
        if os.getpid() == parent:
            here.append(text)
        return os.getpid()

    segs, extra = recognize.recognize_many_also(named, where)
    assert segs == want and set(extra) == {t for _n, t in named}
    by_side = {pid: {t for t, p in extra.items() if p == pid} for pid in set(extra.values())}
    assert len(by_side) == 2 and by_side[parent] == set(here) and len(here) == len(set(here))
    mine, theirs = recognize._shares(named)
    first_of = {}
    for i, (_n, t) in enumerate(named):
        first_of.setdefault(t, i)
    assert by_side[parent] == {t for t, i in first_of.items() if i in mine}


def test_a_failing_extra_leaves_the_segments_and_asks_nothing_back(large, monkeypatch):
    named, want = large
    _may_fork_here(monkeypatch, named)

    def broken(text):
        raise ValueError("no")

    assert recognize.recognize_many_also(named, broken, 0.17) == (want, {})


def test_kept_facts_are_what_parse_cached_answers(monkeypatch):
    from rocm_wizard.detect.parsers import paste_facts

    monkeypatch.setattr(paste_facts, "_CACHE", {})
    text = "torch version: 2.4.0+rocm6.1\n"
    facts = paste_facts.parse(text)
    paste_facts.keep(text, facts)
    assert paste_facts.parse_cached(text) is facts
    paste_facts._CACHE.update({i: None for i in range(70)})
    paste_facts.keep("other\n", facts)  # (no room: not kept)
    assert hash("other\n") not in paste_facts._CACHE


def test_no_worker_where_no_cpu_is_free(monkeypatch):
    monkeypatch.undo()  # (the real _cpu_free)
    monkeypatch.setattr(recognize, "_running_now", lambda: None)  # (the load average alone first)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.5, 1.0, 1.0))
    assert not recognize._cpu_free()
    assert recognize._cpu_free(ignore_load=True)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.7, 1.0, 1.0))
    assert recognize._cpu_free()
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert not recognize._cpu_free() and not recognize._cpu_free(ignore_load=True)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)), raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (10.0, 9.0, 9.0))
    assert recognize._cpu_free()


# -- answers the worker works out after its share (recognize_many_also's ``later``, detect._forked) --

def _pid_and_lines(text):
    # (which process worked it out, beside a pure answer: the tests tell the worker's from this one's)
    return os.getpid(), text.count("\n")


def _ends_with_error(text):
    raise ValueError("no")


def _gone(pid):
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # (waited for already: no zombie, no orphan)


def test_later_answers_are_worked_out_by_the_worker_after_its_share(large, monkeypatch):
    from rocm_wizard.detect import _forked

    named, want = large
    named = named + [("copy.txt", named[0][1])]  # a text twice: worked out once
    want = want + [want[0]]
    _may_fork_here(monkeypatch, named)
    monkeypatch.setattr(_forked, "STEAL", False)  # (every frame waited for: see the late worker's test)
    calls = _counting_fork(monkeypatch)
    segs, _extra = recognize.recognize_many_also(named, later=(("pid", _pid_and_lines), ("lines", str.splitlines)))
    assert segs == want and calls == [1]
    held = _forked._pending
    assert held is not None and _forked.names_held() == ["pid", "lines"]
    pid = held.pid
    for _name, text in named[:-1]:
        worker, lines = _forked.answer("pid", text)
        assert worker != os.getpid() and worker == pid and lines == text.count("\n")
        assert _forked.worked_out("lines", str.splitlines, text) == text.splitlines()
    # (the copy's text was worked out once, and each answer is handed out once: asked again, here)
    assert _forked.answer("pid", named[-1][1]) is _forked.NOT_KNOWN
    assert _forked.worked_out("pid", _pid_and_lines, named[-1][1])[0] == os.getpid()
    assert _forked.answer("pid", "a text it was not given") is _forked.NOT_KNOWN
    assert _forked.answer("other", named[0][1]) is _forked.NOT_KNOWN
    assert held.fd is None  # every frame read: the pipe closed and the worker waited for
    _gone(pid)
    _forked.drop()
    assert _forked.answer("lines", named[0][1]) is _forked.NOT_KNOWN


def test_a_later_function_that_fails_is_worked_out_here(large, monkeypatch):
    from rocm_wizard.detect import _forked

    named, want = large
    _may_fork_here(monkeypatch, named)
    segs, _extra = recognize.recognize_many_also(named, later=(("lines", str.splitlines), ("broken", _ends_with_error),
                                                               ("after", len)))
    assert segs == want
    pid = _forked._pending.pid
    text = named[-1][1]
    assert _forked.answer("lines", text) == text.splitlines()
    assert _forked.answer("broken", text) is _forked.NOT_KNOWN  # (the worker sent no more frames)
    assert _forked.answer("after", text) is _forked.NOT_KNOWN
    assert _forked.worked_out("after", len, text) == len(text)
    _gone(pid)
    _forked.drop()


def test_a_worker_that_dies_after_its_share_leaves_the_later_answers_here(large, monkeypatch):
    import signal

    from rocm_wizard.detect import _forked

    named, want = large
    _may_fork_here(monkeypatch, named)
    segs, _extra = recognize.recognize_many_also(named, later=(("lines", str.splitlines),))
    assert segs == want
    pid = _forked._pending.pid
    os.kill(pid, signal.SIGKILL)
    text = named[0][1]
    assert _forked.answer("lines", text) in (_forked.NOT_KNOWN, text.splitlines())  # (it may have sent it first)
    assert _forked.worked_out("lines", str.splitlines, text) == text.splitlines()
    _gone(pid)
    _forked.drop()


def test_a_held_worker_is_ended_by_the_next_call_or_drop(large, monkeypatch):
    from rocm_wizard.detect import _forked

    named, want = large
    _may_fork_here(monkeypatch, named)
    recognize.recognize_many_also(named, later=(("lines", str.splitlines),))
    first = _forked._pending.pid
    # (a later call drops what the first worker has not sent: its answers are for its own texts)
    assert recognize.recognize_many_also(named, later=(("lines", str.splitlines),))[0] == want
    _gone(first)
    second = _forked._pending.pid
    assert second != first
    _forked.drop()
    _gone(second)
    assert _forked.answer("lines", named[0][1]) is _forked.NOT_KNOWN
    monkeypatch.setenv("ROCM_WIZARD_RECOGNIZE_JOBS", "1")  # no worker: nothing held, nothing known
    assert recognize.recognize_many_also(named, later=(("lines", str.splitlines),)) == (want, {})
    assert _forked._pending is None


def test_detect_with_the_worker_s_later_answers_is_detect_in_one_process(tmp_path, monkeypatch):
    # the errors probe reads the worker's scans of every paste (bundle._LATER): the same System
    from rocm_wizard.detect import _forked, detect_snapshot
    from rocm_wizard.model import to_dict

    named = _named(recognize.PARALLEL_MIN_CHARS + 300_000)
    for name, text in named:
        (tmp_path / name).write_text(text, encoding="utf-8")
    _may_fork_here(monkeypatch, named)
    from rocm_wizard.detect.paste_text import normalise

    pastes = {normalise(text) for _n, text in named}  # (as the bundle reads them)
    asked = []
    real_answer = _forked.answer

    def answer(name, text, steal=False):
        got = real_answer(name, text, steal)
        asked.append((name, text in pastes, got is not _forked.NOT_KNOWN))
        return got

    monkeypatch.setattr(_forked, "answer", answer)
    # (this process waits for every frame here: with STEAL on, the answers it asks before the
    # worker has sent them are worked out here -- test_a_late_worker_s_answers_are_worked_out_here)
    monkeypatch.setattr(_forked, "STEAL", False)
    whole = []
    real_whole = _forked.worked_out_whole

    def worked_out_whole(name, texts):
        got = real_whole(name, texts)
        whole.append((name, got is not _forked.NOT_KNOWN))
        return got

    monkeypatch.setattr(_forked, "worked_out_whole", worked_out_whole)
    calls = _counting_fork(monkeypatch)
    shared = to_dict(detect_snapshot(str(tmp_path)))
    assert calls == [1]
    # (every paste's scans answered by the worker; the other texts the probe scans -- segments of
    # kernel logs, error logs -- worked out here)
    assert {n for n, paste, _known in asked if paste} == {"workloads", "known_errors"}
    assert all(known for _n, paste, known in asked if paste)
    # (and the merge pass's WSL facts of all the pastes, asked once)
    assert whole == [("wsl_pasted", True)]
    assert len([1 for n, paste, _k in asked if paste and n == "workloads"]) == len(pastes)
    # (and the worker's own rocminfo segments' parses, which the GPU probe asks first)
    assert any(known for n, _paste, known in asked if n.startswith("parsed:rocminfo:"))
    assert _forked._pending is None  # (detect ends the worker: nothing asks it after the probes)
    monkeypatch.setenv("ROCM_WIZARD_RECOGNIZE_JOBS", "1")
    alone = to_dict(detect_snapshot(str(tmp_path)))
    assert calls == [1] and shared == alone


def test_detect_ends_a_worker_whose_answers_no_probe_asked(tmp_path, monkeypatch):
    from rocm_wizard.detect import _forked, bundle, detect_snapshot

    named = _named(recognize.PARALLEL_MIN_CHARS + 300_000)
    for name, text in named:
        (tmp_path / name).write_text(text, encoding="utf-8")
    _may_fork_here(monkeypatch, named)
    monkeypatch.setattr(bundle, "_LATER", bundle._LATER + (("nobody asks", str.splitlines),))
    children = _record_forks(monkeypatch)
    detect_snapshot(str(tmp_path))
    assert len(children) == 1 and _forked._pending is None
    _gone(children[0])


def test_a_later_function_of_a_kind_is_asked_of_each_side_s_own_segments_once_each(large, monkeypatch):
    # the worker asks it of its own segments of the kind, this process of its own while the worker
    # ends its share; each answer handed out once
    from rocm_wizard.detect import _forked

    named, want = large
    _may_fork_here(monkeypatch, named)
    mine, theirs = recognize._shares(named)
    segs, _extra = recognize.recognize_many_also(named, later=(("head", _pid_and_lines, "rocminfo"),))
    assert segs == want
    pid = _forked._pending.pid
    held = [text for i in theirs for kind, text, _l in want[i] if kind == "rocminfo"]
    here = [text for i in mine for kind, text, _l in want[i] if kind == "rocminfo"]
    assert held and here  # (rocminfo outputs on both sides)
    for text in set(held + here):  # (this side's answers first, then the worker's, each once)
        got = [_forked.answer("head", text) for _ in range(here.count(text) + held.count(text) + 1)]
        assert got == [(os.getpid(), text.count("\n"))] * here.count(text) + \
            [(pid, text.count("\n"))] * held.count(text) + [_forked.NOT_KNOWN]
    _gone(pid)
    _forked.drop()


def test_this_side_s_answers_of_a_kind_skip_a_text_its_function_fails_on(large, monkeypatch):
    from rocm_wizard.detect import _forked

    named, want = large
    _may_fork_here(monkeypatch, named)
    parent = os.getpid()

    def fails_here_on_agents(text):
        if os.getpid() == parent and "Agent 2" in text:
            raise ValueError("no")
        return text.count("\n")

    segs, _extra = recognize.recognize_many_also(named, later=(("n", fails_here_on_agents, "rocminfo"),))
    assert segs == want
    mine, _theirs = recognize._shares(named)
    here = [text for i in mine for kind, text, _l in want[i] if kind == "rocminfo"]
    assert any("Agent 2" in t for t in here) and any("Agent 2" not in t for t in here)
    own = _forked._pending.own["n"]
    assert all(("Agent 2" in t) != (t in own) for t in here)  # (a failed text is worked out when asked)
    _forked.drop()


def test_a_cpu_idle_right_now_is_free_whatever_the_last_minute_s_average(monkeypatch):
    # (the average lags a burst by a minute; the tasks running now say whether a CPU is idle now)
    monkeypatch.undo()
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (3.5, 2.0, 1.0))
    for running, free in ((1, True), (2, False), (5, False), (None, False)):
        monkeypatch.setattr(recognize, "_running_now", lambda running=running: running)
        assert recognize._cpu_free() is free
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(4)), raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (7.0, 2.0, 1.0))
    for running, free in ((3, True), (4, False)):
        monkeypatch.setattr(recognize, "_running_now", lambda running=running: running)
        assert recognize._cpu_free() is free


def test_the_tasks_running_now_are_read_from_proc_loadavg():
    got = recognize._running_now()
    if not os.path.exists("/proc/loadavg"):
        assert got is None
    else:
        assert isinstance(got, int) and got >= 1  # (this process runs while it reads it)


def _pid_and_sizes(texts):
    return os.getpid(), [len(t) for t in texts]


def _fails_on_all(texts):
    raise ValueError("no")


def test_a_later_function_of_all_the_texts_is_asked_once_of_them_in_order(large, monkeypatch):
    from rocm_wizard.detect import _forked

    named, want = large
    named = named + [("copy.txt", named[0][1])]  # (a text twice: both, in their places)
    _may_fork_here(monkeypatch, named)
    segs, _extra = recognize.recognize_many_also(named, later=(("lines", str.splitlines),
                                                               ("sizes", _pid_and_sizes, recognize.WHOLE)))
    assert segs == want + [want[0]]
    pid = _forked._pending.pid
    texts = [t for _n, t in named]
    assert _forked.worked_out_whole("sizes", texts[:-1]) is _forked.NOT_KNOWN  # (not the texts it was given)
    assert _forked.worked_out_whole("sizes", list(reversed(texts))) is _forked.NOT_KNOWN
    worker, sizes = _forked.worked_out_whole("sizes", [t[:] for t in texts])  # (equal texts: not the same objects)
    assert worker == pid != os.getpid() and sizes == [len(t) for t in texts]
    assert _forked.worked_out_whole("sizes", texts) is _forked.NOT_KNOWN  # (handed out once)
    assert _forked.worked_out_whole("lines", texts) is _forked.NOT_KNOWN  # (a function of each text)
    assert _forked.answer("lines", texts[1]) == texts[1].splitlines()
    _gone(pid)
    _forked.drop()
    assert _forked.worked_out_whole("sizes", texts) is _forked.NOT_KNOWN  # (nothing held)


def test_a_failing_function_of_all_the_texts_is_not_known(large, monkeypatch):
    from rocm_wizard.detect import _forked

    named, want = large
    _may_fork_here(monkeypatch, named)
    segs, _extra = recognize.recognize_many_also(named, later=(("all", _fails_on_all, recognize.WHOLE),))
    assert segs == want
    pid = _forked._pending.pid
    assert _forked.worked_out_whole("all", [t for _n, t in named]) is _forked.NOT_KNOWN
    _gone(pid)
    _forked.drop()


def test_the_worker_s_wsl_facts_of_the_pastes_are_this_process_s(large, monkeypatch):
    # the merge pass's WSL facts (wsl_facts.pasted_hits, bundle._LATER), worked out by the worker, are
    # those worked out here; and a worker that is gone leaves them to be worked out here
    from rocm_wizard.detect import _forked, bundle, wsl_facts

    named, want = large
    wsl = sorted(REAL.glob("*wsl*/*.txt"))
    assert wsl, "the WSL fixtures"
    named = named + [("wsl-%d.txt" % i, p.read_text(encoding="utf-8", errors="replace")) for i, p in enumerate(wsl)]
    _may_fork_here(monkeypatch, named)
    texts = [t for _n, t in named]
    here = wsl_facts.pasted_hits(texts)
    assert any(here[f] for f in ("windows_host", "adrenalin", "wsl_said"))  # (the fixtures say something)
    recognize.recognize_many_also(named, later=bundle._LATER)
    pid = _forked._pending.pid
    assert _forked.worked_out_whole("wsl_pasted", texts) == here
    _forked.drop()  # (its known-error scans come after: not asked here)
    _gone(pid)
    _forked.drop()


def test_the_merge_puts_what_the_first_paste_that_says_it_says():
    # the merge pass replays pasted_hits in the pastes' order: the first paste that sets a field wins,
    # whichever side worked the hits out
    from rocm_wizard.detect import wsl_facts
    from rocm_wizard.model import System

    class Pasted:
        kind = "snapshot"

        def __init__(self, named):
            self.named = named

        def pastes(self):
            return self.named

    named = [("a.txt", "nothing here\n"),
             ("b.txt", "Edition Windows 11 Pro (OS Build 26100.2894)\nWSL version: 2.4.13.0\n"),
             ("c.txt", "WSL version: 2.5.1.0\nEdition Windows 10 Pro (OS Build 19045.5011)\n")]
    hits = wsl_facts.pasted_hits([t for _n, t in named], ("windows_host", "wsl_version"))
    assert [i for i, _v in hits["windows_host"]] == [1] and hits["wsl_version"] == [(1, ("2.4.13.0", "WSL version: 2.4.13.0"))]
    system = System(origin="snapshot")
    system.os.wsl = True
    wsl_facts._from_pastes(Pasted(named), system)
    assert (system.os.windows_release, system.os.windows_build, system.os.wsl_version) == ("11", "26100", "2.4.13.0")
    assert system.os.sources["wsl_version"].startswith("paste:b.txt") and system.os.sources["windows_build"].startswith("paste:b.txt")
    system = System(origin="snapshot")
    system.os.wsl_version = "2.6.0.0"  # (known already: not asked, not changed)
    wsl_facts._from_pastes(Pasted(named[2:]), system)
    assert (system.os.windows_build, system.os.wsl_version) == ("19045", "2.6.0.0")


def _slow_lines(text):
    import time

    time.sleep(0.05)
    return text.splitlines()


def test_work_left_for_the_wait_is_done_only_while_the_worker_has_not_sent(large, monkeypatch):
    # (doctor's imports for its diagnosis: run while this process would wait for the next frame)
    import select

    from rocm_wizard.detect import _forked

    named, want = large
    _may_fork_here(monkeypatch, named)
    done = []

    def fails():
        done.append("fails")
        raise RuntimeError("no")

    try:
        _forked.while_waiting(lambda: done.append(1), fails, lambda: done.append(2))
        segs, _extra = recognize.recognize_many_also(named, later=(("slow", _slow_lines),))
        assert segs == want
        pid = _forked._pending.pid
        text = named[0][1]
        # (the same answer; the tasks run meanwhile: while the worker ended its share, or while its
        # slow frame was not there yet)
        assert _forked.answer("slow", text) == text.splitlines()
        assert done == [1, "fails", 2] and _forked._idle == []  # (each once, in order; a failing one dropped)
        _gone(pid)
        _forked.drop()

        done.clear()
        recognize.recognize_many_also(named, later=(("lines", str.splitlines),))
        _forked.while_waiting(lambda: done.append(3))
        held = _forked._pending
        assert select.select([held.fd], [], [], 30)[0]  # (the frame is there)
        assert _forked.answer("lines", text) == text.splitlines()
        assert done == []  # (nothing to wait for: left to its own time)
        _forked.drop()
    finally:
        _forked.while_waiting()
    assert _forked._idle == []


def test_doctor_leaves_no_work_for_a_wait_behind(tmp_path, monkeypatch):
    from rocm_wizard import cli
    from rocm_wizard.detect import _forked

    fixture = REAL / "019-gfx1150-radeon890m-rocm7.2.0-ubuntu24.04" / "rocminfo.txt"
    (tmp_path / "rocminfo.txt").write_text(fixture.read_text(encoding="utf-8"), encoding="utf-8")
    seen = []
    real = _forked.while_waiting

    def while_waiting(*tasks):
        seen.append(len(tasks))
        real(*tasks)

    monkeypatch.setattr(_forked, "while_waiting", while_waiting)
    cli.main(["doctor", "--snapshot", str(tmp_path), "--json"])
    assert seen == [3, 0] and _forked._idle == []


def _slow_pid_and_lines(text):
    import time

    time.sleep(0.2)
    return os.getpid(), text.count("\n")


def test_a_late_worker_s_answers_are_worked_out_here_and_its_own_taken_once_sent(large, monkeypatch):
    import select

    from rocm_wizard.detect import _forked

    named, want = large
    _may_fork_here(monkeypatch, named)
    segs, _extra = recognize.recognize_many_also(named, later=(("slow", _slow_pid_and_lines),))
    assert segs == want
    held = _forked._pending
    pid = held.pid
    first, second = named[0][1], named[1][1]
    # (its frame takes the worker 0.2 s a text: not there yet)
    assert _forked.worked_out("slow", _slow_pid_and_lines, first) == (os.getpid(), first.count("\n"))
    assert select.select([held.fd], [], [], 60)[0]  # (the frame is coming)
    worker, lines = _forked.worked_out("slow", _slow_pid_and_lines, second)
    assert worker == pid != os.getpid() and lines == second.count("\n")
    monkeypatch.setattr(_forked, "STEAL", False)  # (off: asked before it is there, the frame is waited for)
    assert _forked.answer("slow", first)[0] == worker
    _forked.drop()


def test_a_later_function_of_each_text_sends_each_answer_in_a_frame_of_its_own(large, monkeypatch):
    # (recognize.EACH, the errors probe's scans of the pastes: the first texts' answers are there before the worker has
    # worked out the last ones, where a frame of all of them would keep the first waiting for the last)
    from rocm_wizard.detect import _forked

    named, want = large
    named = named + [("copy.txt", named[0][1])]  # a text twice: asked once
    want = want + [want[0]]
    _may_fork_here(monkeypatch, named)
    monkeypatch.setattr(_forked, "STEAL", False)  # (each frame waited for)
    segs, _extra = recognize.recognize_many_also(named, later=(("lines", str.splitlines),
                                                               ("slow", _slow_pid_and_lines, recognize.EACH)))
    assert segs == want
    held = _forked._pending
    pid = held.pid
    texts = list(dict.fromkeys(t for _n, t in named))
    assert held.names == ["lines"] + ["slow"] * len(texts) and held.texts[1:] == [[t] for t in texts]
    worker, lines = _forked.answer("slow", texts[0])
    assert worker == pid != os.getpid() and lines == texts[0].count("\n")
    # (0.2 s a text: the first answer was taken with the last ones still to come)
    assert 2 <= held.read < len(held.names) and held.fd is not None
    for text in texts[1:]:
        assert _forked.answer("slow", text) == (pid, text.count("\n"))
    assert held.read == len(held.names) and held.fd is None  # (all read: the worker waited for)
    assert _forked.answer("slow", texts[0]) is _forked.NOT_KNOWN  # (handed out once)
    assert _forked.answer("lines", texts[1]) == texts[1].splitlines()  # (an earlier frame's answers still there)
    _gone(pid)
    _forked.drop()
    # a frame the worker never sends: the texts after it are not known, and worked out here
    segs, _extra = recognize.recognize_many_also(named, later=(("each", _fails_on_second, recognize.EACH),))
    assert segs == want
    pid = _forked._pending.pid
    assert _forked.answer("each", texts[0]) == len(texts[0])
    assert _forked.answer("each", texts[1]) is _forked.NOT_KNOWN
    assert _forked.worked_out("each", len, texts[2]) == len(texts[2])
    _gone(pid)
    _forked.drop()


_SECOND = []


def _fails_on_second(text):
    # (the worker's second text fails: its frames end there)
    _SECOND.append(text)
    if len(_SECOND) == 2:
        raise ValueError("no")
    return len(text)


# -- a segment's kind worked out once per (command hint, text) -------------------------------------

def test_a_segment_seen_before_is_not_classified_again_and_gets_the_same_kind(monkeypatch):
    """recognize() keeps each segment's kind by its command hint and its text: the same output
    pasted again (in the same paste or another file of the folder) is not classified again, and
    the same text under another command -- whose hint can change the kind -- is."""
    uname = "Linux box 6.8.0-45-generic #45-Ubuntu SMP PREEMPT_DYNAMIC x86_64 GNU/Linux\n"
    short = "SecureBoot disabled\n"  # (too short to recognise without its command: mokutil's hint names it)
    paste = ("$ uname -a\n" + uname + "$ mokutil --sb-state\n" + short + "```\n" + short + "```\n"
             "$ uname -a\n" + uname + "```\n" + uname + "```\n")
    fresh = [recognize._kind(body, cmd) for _label, cmd, body in recognize.split(paste)]
    assert fresh == ["uname", "mokutil", None, "uname", "uname"]  # (the short text: only under its command)
    calls = []
    real = recognize._kind

    def counted(text, command, sure=False):
        calls.append((recognize._hint(command), text))
        return real(text, command, sure)

    monkeypatch.setattr(recognize, "_kind", counted)
    kinds = {}
    got = recognize.recognize(paste, "a", kinds)
    assert [k for k, _t, _l in got] == fresh
    assert len(calls) == len(set(calls)) == 4  # (uname under its prompt, the short text twice, uname bare)
    again = recognize.recognize(paste, "b", kinds)  # another file of the same folder
    assert again == [(k, t, l) for k, t, l in got] and len(calls) == 4
    assert recognize.recognize(paste, "c") == got and len(calls) == 8  # (no kinds given: its own)


def test_a_folder_s_repeated_pastes_get_the_kinds_of_each_paste_alone(monkeypatch):
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(REAL.glob("*/*.txt"))][:60]
    named = [("p%d" % i, t) for i, t in enumerate(texts + texts[::-1] + texts[:10])]
    monkeypatch.setenv(recognize._ENV_JOBS, "1")
    assert recognize.recognize_many(named) == [recognize.recognize(t, n) for n, t in named]
