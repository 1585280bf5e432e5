"""The step loop on a temporary root with real step types: journal after every step, the console
account, automatic restore after an early failure, a safe stop on SIGTERM, then resume."""
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys

from rocm_wizard import exitcodes
from rocm_wizard.execute import journal as jr
from rocm_wizard.execute.engine import Executor
from rocm_wizard.execute.runlog import RunLog
from rocm_wizard.plan.core import Fingerprint, Plan
from rocm_wizard.plan.steps.files import Command, FileContent


def _run(tmp_path, steps, resumed_journal=None):
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True, exist_ok=True)
    run_dir = tmp_path / "run"
    run_dir.mkdir(exist_ok=True)
    plan = Plan("rocm-upgrade", "test plan", steps, Fingerprint())
    journal = resumed_journal or jr.Journal.create(str(run_dir / "journal.json"), run_id="20260101-000000-1",
                                                   plan=plan, argv=[], root=str(root), backup_dir="/backups")
    console = io.StringIO()
    log = RunLog(str(run_dir), console=console)
    try:
        code = Executor(plan, journal, log, root=str(root)).run(resumed=resumed_journal is not None)
    finally:
        log.close()
    return code, journal, console.getvalue(), root


def test_success_journal_and_console(tmp_path):
    (tmp_path / "root/etc").mkdir(parents=True)
    (tmp_path / "root/etc/b.conf").write_text("old\n")
    steps = [FileContent("a", "write a", path="/etc/a.conf", content="A\n"),
             FileContent("b", "write b", path="/etc/b.conf", content="B\n"),
             Command("hook", "run a hook", argv=["true"], after=["a"])]
    code, journal, out, root = _run(tmp_path, steps)
    assert code == exitcodes.OK, out
    assert (root / "etc/b.conf").read_text() == "B\n"
    assert "[1/3] write a\n        changed: wrote /etc/a.conf" in out
    assert "summary: 3 steps: 3 changed, 0 ok, 0 failed, 0 skipped" in out
    j = jr.Journal.load(journal.path)
    assert j.state == "finished" and j.changed == ["a", "b", "hook"]
    assert [f["before"] for f in j.data["files"]] == ["absent", "file"]
    assert (root / ("backups/20260101-000000-1/etc/b.conf")).read_text() == "old\n"


def test_failure_after_only_files_changed_puts_them_back(tmp_path):
    (tmp_path / "root/etc").mkdir(parents=True)
    (tmp_path / "root/etc/b.conf").write_text("old\n")
    steps = [FileContent("a", "write a", path="/etc/a.conf", content="A\n"),
             FileContent("b", "write b", path="/etc/b.conf", content="B\n"),
             Command("hook", "a hook that fails", argv=["sh", "-c", "echo broken >&2; exit 3"], after=["a"]),
             FileContent("c", "write c", path="/etc/c.conf", content="C\n")]
    code, journal, out, root = _run(tmp_path, steps)
    assert code == exitcodes.ERROR
    assert "failed: `sh -c echo broken >&2; exit 3` failed (exit status 3): broken" in out
    assert not (root / "etc/a.conf").exists() and (root / "etc/b.conf").read_text() == "old\n"
    assert not (root / "etc/c.conf").exists()
    j = jr.Journal.load(journal.path)
    assert j.state == "restored" and j.step("c")["status"] == "skipped"
    assert "the system is as before the run" in j.data["message"]


def _sigterm_steps(pid=None):
    # the hook signals the executor's process, as `kill -TERM` from another terminal would; without
    # a pid (the resumed run) it fails, so a hook run again on resume shows
    script = f"kill -TERM {pid}; sleep 0.3; echo done" if pid else "echo hook ran again >&2; exit 99"
    return [FileContent("a", "write a", path="/etc/a.conf", content="A\n"),
            Command("hook", "slow hook", argv=["sh", "-c", script], after=["a"]),
            FileContent("c", "write c", path="/etc/c.conf", content="C\n")]


_INTERRUPTED_CHILD = """
import json, os, signal, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from test_engine import _run, _sigterm_steps
old = signal.getsignal(signal.SIGTERM)
code, journal, out, root = _run(Path(sys.argv[2]), _sigterm_steps(os.getpid()))
print(json.dumps({"code": code, "out": out, "restored": signal.getsignal(signal.SIGTERM) is old,
                  "journal": journal.path}))
"""


def test_sigterm_stops_after_the_running_step_and_resume_finishes(tmp_path):
    # the interrupted run is a child process: the signal must not reach pytest itself
    child = subprocess.run([sys.executable, "-c", _INTERRUPTED_CHILD, os.path.dirname(__file__), str(tmp_path)],
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stderr
    res = json.loads(child.stdout)
    code, out, root = res["code"], res["out"], tmp_path / "root"
    assert res["restored"]  # handlers restored
    assert code == exitcodes.INTERRUPTED, out
    assert "SIGTERM received: the running step finishes first" in out
    steps = _sigterm_steps()
    j = jr.Journal.load(res["journal"])
    assert (j.state, j.step("hook")["status"], j.step("c")["status"]) == ("interrupted", "changed", "skipped")
    assert not (root / "etc/c.conf").exists()
    j.mark_resumed()
    code, journal, out, root = _run(tmp_path, steps, resumed_journal=j)
    assert code == exitcodes.OK, out
    assert out.count("skipped: done before the interruption") == 2
    assert (root / "etc/c.conf").read_text() == "C\n"


def test_a_bug_in_a_step_is_a_failed_step_not_a_traceback(tmp_path):
    class Broken(FileContent):
        def apply(self, ctx):
            raise KeyError("oops")

    code, journal, out, _ = _run(tmp_path, [Broken("x", "broken step", path="/etc/x", content="x")])
    assert code == exitcodes.ERROR
    assert "internal error in step x: KeyError" in out
    assert jr.Journal.load(journal.path).step("x")["status"] == "failed"
    assert "Traceback" in (tmp_path / "run/run.log").read_text()  # kept for the bug report, in the log only


def test_long_commands_show_progress_and_everything_lands_in_the_log(tmp_path):
    from rocm_wizard.execute.runner import Runner

    flag = tmp_path / "heartbeat-seen"

    class Console(io.StringIO):  # the command finishes only once a heartbeat was shown: no clock involved
        def write(self, text):
            if "still running after" in text:
                flag.touch()
            return super().write(text)

    console = Console()
    log = RunLog(str(tmp_path), console=console)
    res = Runner(log, heartbeat=0.2)(["sh", "-c", f"echo first; while [ ! -e '{flag}' ]; do sleep 0.05; done; "
                                                  "echo second >&2"], timeout=120)
    log.close()
    assert res.rc == 0 and res.stdout == "first\n" and res.stderr == "second\n"
    assert re.search(r"still running after \d+s: sh -c", console.getvalue())
    text = (tmp_path / "run.log").read_text()
    assert "| first" in text and "! second" in text and "command exit 0 after" in text


def test_an_apt_update_that_could_not_fetch_is_a_failure(tmp_path):
    from rocm_wizard.execute.runner import Runner

    fake = tmp_path / "bin" / "apt-get"  # prints what apt-get update prints when a repository is down
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'Hit:1 http://archive.ubuntu.com/ubuntu jammy InRelease'\n"
                    "echo 'W: Failed to fetch http://repo.radeon.com/rocm/apt/6.4.3/dists/jammy/InRelease  "
                    "Could not connect to repo.radeon.com:80' >&2\n"
                    "echo 'W: Some index files failed to download. They have been ignored, or old ones used instead.' >&2\n"
                    "exit 0\n")
    fake.chmod(0o755)
    log = RunLog(str(tmp_path))
    res = Runner(log)([str(fake), "update"], env={"PATH": os.environ["PATH"]})
    ok = Runner(log)([str(fake), "install", "x"], env={"PATH": os.environ["PATH"]})
    log.close()
    assert res.rc == 100 and "Failed to fetch" in res.stderr
    assert ok.rc == 0  # only `update` is judged by its warnings


def test_a_timeout_kills_the_whole_command(tmp_path):
    from rocm_wizard.execute.runner import Runner

    log = RunLog(str(tmp_path))
    res = Runner(log)(["sh", "-c", "sleep 30 & sleep 30; wait"], timeout=0.5)
    log.close()
    assert res.rc is None and "timed out after 0.5s" in res.error


def test_a_line_without_end_is_read_in_capped_chunks_and_marked_cut(tmp_path):
    """A command that prints 40 MiB with no newline: the runner keeps (and logs) a bounded head of
    it with a mark saying how much was cut, not the whole line (finding 8 of #27)."""
    from rocm_wizard.execute.runner import MAX_KEEP, Runner

    log = RunLog(str(tmp_path), console=io.StringIO())
    res = Runner(log)([sys.executable, "-c", "import sys; sys.stdout.write('x' * (40 << 20)); sys.stdout.write('\\nend\\n')"])
    assert res.rc == 0
    assert len(res.stdout) < MAX_KEEP, len(res.stdout)
    assert "[line cut: " in res.stdout and res.stdout.rstrip().endswith("end")
    logged = open(log.path, encoding="utf-8", errors="replace").read()
    assert len(logged) < MAX_KEEP
