"""``verify`` within bounds (issue 14, item 6): the smoke test's output is captured with a hard
byte cap, a hung interpreter is reported after about its own timeout, and nothing the smoke test
started survives it.  The "interpreters" here are small Python programs that misbehave on purpose
(they ignore the smoke script they are handed); each run ends at a child timeout if it hangs."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from _verify_helpers import FIXTURES

from rocm_wizard import exitcodes, limits
from rocm_wizard.verify import render  # (the function: importing the module .render would shadow it)
from rocm_wizard.verify.report import from_smoke
from rocm_wizard.verify.runner import run_verify

MiB = 1024 * 1024
CHILD_TIMEOUT = 150  # the old safety net was timeout*40+120 s: 160 s at --timeout 1
DOC = FIXTURES / "real" / "cpu-torch-2.13.0-smoke.json"
HOSTILE = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;owned\x07\x1bP+q\x1b\\\x9b2J\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"


def _fake_python(tmp_path: Path, body: str) -> Path:
    """An executable "interpreter" that runs ``body`` (and ignores the smoke script's arguments)."""
    exe = tmp_path / "fake-python"
    exe.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body))
    exe.chmod(0o755)
    return exe


def _dead(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] == b"Z"  # a zombie is dead, waiting for its reaper
    except FileNotFoundError:
        return True


def _cli(*args: str, start_s: float | None = None) -> subprocess.CompletedProcess:
    """``rocm-wizard verify ARGS`` in a child; ``start_s`` replaces limits.VERIFY_START_S there (the
    same bound, only shorter, so that a test proves it without waiting out the product's 10 s)."""
    if start_s is None:
        argv = [sys.executable, "-m", "rocm_wizard", "verify", *args]
    else:
        argv = [sys.executable, "-c", "import sys; from rocm_wizard import limits; "
                "limits.VERIFY_START_S = float(sys.argv[1]); from rocm_wizard.cli import main; "
                "raise SystemExit(main(sys.argv[2:]))", str(start_s), "verify", *args]
    return subprocess.run(argv, capture_output=True, text=True,
                          timeout=CHILD_TIMEOUT, env=dict(os.environ), stdin=subprocess.DEVNULL)


def test_a_gigabyte_of_output_is_capped_and_the_report_still_read(tmp_path):
    doc = json.loads(DOC.read_text())
    doc["checks"][0]["reason"] = "torch " + HOSTILE
    (tmp_path / "doc.json").write_text(json.dumps(doc, indent=1))
    fake = _fake_python(tmp_path, f"""
        import sys
        sys.stderr.write("smoke: start\\n"); sys.stderr.flush()
        junk = (b"{{\\x1b]52;c;AAAA\\x07 not json " * 2048)[:65536]
        for _ in range(16384):  # 1 GiB on stdout, made lazily
            sys.stdout.buffer.write(junk)
        for _ in range(1024):  # 64 MiB on stderr without a line end, with sequences in it
            sys.stderr.buffer.write(junk)
        sys.stderr.write("\\nlast words \\x1b]0;title\\x07\\n")
        sys.stdout.write("\\n" + open({str(tmp_path / "doc.json")!r}).read())
    """)
    probe = f"""
        import json, resource, sys
        from rocm_wizard.verify.runner import run_verify
        r = run_verify(python={str(fake)!r}, timeout=5, annotate=False)
        # this process's own peak since exec: ru_maxrss also counts the pages of the parent it was
        # forked from (a test session's pytest, hundreds of MiB)
        hwm = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmHWM:"))
        print(json.dumps({{"error": r.error, "checks": len(r.checks), "reason": r.checks[0].reason if r.checks else None,
                          "tail": r.stderr_tail,
                          "maxrss": hwm}}))
    """
    res = subprocess.run([sys.executable, "-c", textwrap.dedent(probe)], capture_output=True, text=True,
                         timeout=CHILD_TIMEOUT, env=dict(os.environ))
    assert res.returncode == 0, res.stderr[-2000:]
    out = json.loads(res.stdout)
    assert out["error"] is None and out["checks"] == len(doc["checks"])
    assert out["reason"] == "torch link"  # the report's text lost its terminal sequences
    assert out["maxrss"] < 300 * MiB  # 1 GiB of stdout and 64 MiB of stderr were never held
    tail = out["tail"]
    assert "the middle was cut" in tail and "bytes cut]" in tail and "last words" in tail
    assert len(tail) < 40 * limits.VERIFY_LINE_CHARS
    assert not any(c in tail for c in "\x1b\x07\x9b")


def test_a_hung_interpreter_is_reported_after_its_own_timeout_and_killed(tmp_path):
    pidfile = tmp_path / "pid"
    fake = _fake_python(tmp_path, f"""
        import os, time
        open({str(pidfile)!r}, "w").write(str(os.getpid()))
        time.sleep(600)  # never starts the smoke script
    """)
    res = _cli("--python", str(fake), "--timeout", "1", start_s=1.0)  # (the product's start bound: 10 s)
    assert res.returncode == exitcodes.ERROR
    limit = 1 + 1.0
    assert f"the interpreter did not start the smoke test within {limit:.0f}s" in res.stderr
    assert _dead(int(pidfile.read_text()))


def test_a_script_that_stops_answering_is_stopped(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "VERIFY_GRACE_S", 1.0)  # the same bound with a short grace (the product's: 15 s)
    fake = _fake_python(tmp_path, """
        import sys, time
        sys.stderr.write("smoke: start\\n"); sys.stderr.flush()
        sys.stderr.write("smoke: import           pass   0.10s  torch\\n"); sys.stderr.flush()
        time.sleep(600)
    """)
    t0 = time.monotonic()
    report = run_verify(python=str(fake), timeout=0.5, annotate=False)
    assert report.error == "the smoke test stopped answering: no progress for %.0fs (a hung GPU or library)" % (
        0.5 * 4 + limits.VERIFY_GRACE_S)
    assert time.monotonic() - t0 < CHILD_TIMEOUT  # (a bound against the old 160 s net, not a timing claim)


def test_nothing_the_smoke_test_started_survives_it(tmp_path):
    pids = tmp_path / "pids"
    fake = _fake_python(tmp_path, f"""
        import os, subprocess, sys
        sys.stderr.write("smoke: start\\n"); sys.stderr.flush()
        same_group = subprocess.Popen(["sleep", "300"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        own_group = subprocess.Popen(["sleep", "301"], preexec_fn=os.setpgrp, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        open({str(pids)!r}, "w").write("%d %d" % (same_group.pid, own_group.pid))
        sys.stdout.write(open({str(DOC)!r}).read())
    """)
    report = run_verify(python=str(fake), timeout=5, annotate=False)
    assert report.error is None and report.checks
    left = [int(p) for p in pids.read_text().split()]
    assert len(left) == 2 and all(_dead(p) for p in left)


def test_reports_are_rendered_without_terminal_sequences():
    doc = json.loads(DOC.read_text())
    for c in doc["checks"]:
        c["reason"] = HOSTILE + c["reason"]
        c["name"] = c["name"] + "[link=http://evil]x[/link]"
    doc["devices"] = [{"index": 0, "name": "GPU" + HOSTILE, "arch": "gfx1100"}]
    doc["env"] = {"HSA_OVERRIDE_GFX_VERSION": "11.0.0" + HOSTILE}
    report = from_smoke(doc)
    for color in (False, True):
        text = render(report, color=color, verbose=True)
        assert not any(s in text for s in ("\x1b]", "\x1bP", "\x07", "\x9b", "\x1b\\")), repr(text)
        assert "[link=http://evil]" in text  # shown as text, not taken as Rich markup
    assert "\\u001b" not in json.dumps(report.to_dict())  # nothing left to escape


def test_progress_forever_is_stopped_at_the_overall_deadline(tmp_path):
    """Each progress line resets the silence timer; the overall deadline does not move."""
    pidfile = tmp_path / "pid"
    fake = _fake_python(tmp_path, f"""
        import os, sys, time
        open({str(pidfile)!r}, "w").write(str(os.getpid()))
        sys.stderr.write("smoke: start\\n"); sys.stderr.flush()
        while True:
            sys.stderr.write("smoke: device           pass   0.10s  still going\\n"); sys.stderr.flush()
            time.sleep(0.2)
    """)
    seen = []
    report = run_verify(python=str(fake), timeout=1, deadline=4, annotate=False, on_progress=seen.append)
    assert report.error == ("the smoke test ran past its overall deadline of 4s and was stopped "
                            "(--deadline; progress does not extend it)")
    assert seen  # it did report progress all along
    assert _dead(int(pidfile.read_text()))


def test_the_deadline_is_a_cli_option_and_its_default_scales_with_the_timeout(tmp_path):
    from rocm_wizard.verify.runner import default_deadline
    from rocm_wizard.verify.report import Target

    assert default_deadline(60.0) == 60.0 * limits.VERIFY_DEADLINE_FACTOR == 1800.0
    assert default_deadline(60.0, Target(kind="docker")) == 1800.0 + limits.VERIFY_DOCKER_START_S
    fake = _fake_python(tmp_path, """
        import sys, time
        sys.stderr.write("smoke: start\\n"); sys.stderr.flush()
        while True:
            sys.stderr.write("smoke: device           pass   0.10s  still going\\n"); sys.stderr.flush()
            time.sleep(0.2)
    """)
    res = _cli("--python", str(fake), "--timeout", "1", "--deadline", "3")
    assert res.returncode == exitcodes.ERROR, res.stderr
    assert "overall deadline of 3s" in res.stderr
    for bad in ("0", "-1", "nan", "inf"):
        res = _cli("--python", str(fake), "--deadline", bad)
        assert res.returncode == exitcodes.USAGE and "--deadline" in res.stderr, (bad, res.stderr)


def test_a_grandchild_that_left_the_session_is_gone_after_verify(tmp_path):
    """A daemon's double fork: the child forks a grandchild that calls setsid (a session and a
    process group of its own) and exits; the grandchild sleeps on.  Neither a kill of the smoke
    test's session nor of its group reaches it; the keeper (a child subreaper) does."""
    pids = tmp_path / "pids"
    fake = _fake_python(tmp_path, f"""
        import os, sys, time
        sys.stderr.write("smoke: start\\n"); sys.stderr.flush()
        r, w = os.pipe()
        if os.fork() == 0:
            if os.fork() == 0:
                os.setsid()
                os.write(w, str(os.getpid()).encode())
                os.close(w)
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                time.sleep(300)
                os._exit(0)
            os._exit(0)
        os.close(w)
        grandchild = int(os.read(r, 32))
        open({str(pids)!r}, "w").write(str(grandchild))
        sys.stdout.write(open({str(DOC)!r}).read())
    """)
    report = run_verify(python=str(fake), timeout=5, annotate=False)
    assert report.error is None and report.checks
    grandchild = int(pids.read_text())
    assert _dead(grandchild), f"the setsid grandchild {grandchild} survived verify"
