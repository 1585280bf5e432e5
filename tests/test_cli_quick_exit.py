"""``cli.entry``: after ``detect`` and ``doctor`` the process ends without the interpreter's teardown (``os._exit``),
once its output is flushed and the ``atexit`` functions have run; the exit status, stdout and stderr
are those of :func:`rocm_wizard.cli.main`.  Other commands, and anything unusual, exit as before."""
from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from rocm_wizard import cli
from rocm_wizard.exitcodes import ERROR, OK

REPO = Path(__file__).resolve().parents[1]
FIXTURE = next((REPO / "tests" / "data" / "real").glob("019-*"))

# an exit function, and a file left unflushed, which only the interpreter's teardown writes out
PROGRAM = r"""
import atexit, sys
marks = sys.argv[1]
atexit.register(lambda: open(marks, "a").write("atexit\n"))
left = open(marks + ".teardown", "w")
left.write("teardown\n")
sys.argv = ["rocm-wizard"] + sys.argv[2:]
from rocm_wizard.cli import entry
entry()
"""


def _run(tmp_path, *argv):
    marks = tmp_path / "marks"
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", PROGRAM, str(marks), *argv], capture_output=True, text=True,
                          env=env, timeout=120)
    torn = tmp_path / "marks.teardown"
    return proc, [line for path in (marks, torn) if path.exists() for line in path.read_text().split()]


def _in_process(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_detect_exits_at_once_with_main_s_output_and_status(tmp_path):
    argv = ("detect", "--json", "--snapshot", str(FIXTURE))
    proc, marks = _run(tmp_path, *argv)
    code, out, _err = _in_process(*argv)
    assert proc.returncode == code == OK and proc.stdout == out and len(out) > 1000
    assert marks == ["atexit"]  # the exit functions ran; the teardown did not


def test_an_error_keeps_its_status_and_message(tmp_path):
    gone = tmp_path / "gone"
    proc, marks = _run(tmp_path, "detect", "--json", "--snapshot", str(gone))
    assert proc.returncode == ERROR and proc.stdout == "" and "no such file or directory" in proc.stderr
    assert marks == ["atexit"]


def test_doctor_exits_at_once_with_main_s_output_and_status(tmp_path):
    argv = ("doctor", "--json", "--snapshot", str(FIXTURE))
    proc, marks = _run(tmp_path, *argv)
    code, out, _err = _in_process(*argv)
    assert proc.returncode == code and code in (0, 2) and proc.stdout == out and proc.stdout.startswith("{")
    assert marks == ["atexit"]


def test_other_commands_exit_as_before(tmp_path):
    argv = ("--demo", "--plan-only", "--format", "json")  # (the plan frontend, no sub-command)
    proc, marks = _run(tmp_path, *argv)
    assert proc.returncode == _in_process(*argv)[0] and proc.stdout.startswith("{")
    assert marks == ["atexit", "teardown"]


def test_not_where_a_program_runs_the_command_inside_itself(tmp_path):
    """``runpy.run_module("rocm_wizard", run_name="__main__")`` from another program (tests listing
    the modules a command loaded do this): that program goes on after the command."""
    program = ("import runpy, sys\nsys.argv = ['rocm-wizard', 'detect', '--json', '--snapshot', sys.argv[1]]\n"
               "try:\n    runpy.run_module('rocm_wizard', run_name='__main__')\nexcept SystemExit as exc:\n"
               "    print('went on after', exc.code)\n")
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", program, str(FIXTURE)], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout.rstrip().endswith("went on after 0"), proc.stderr


def test_a_thread_still_running_or_a_thread_exit_function_takes_the_ordinary_exit(monkeypatch):
    calls = []
    monkeypatch.setattr(cli.os, "_exit", lambda code: calls.append(("exit", code)))
    import atexit

    monkeypatch.setattr(atexit, "_run_exitfuncs", lambda: calls.append(("atexit",)))
    go = threading.Event()
    worker = threading.Thread(target=go.wait, daemon=False)
    worker.start()
    try:
        cli._exit_now(0)
        assert calls == []
    finally:
        go.set()
        worker.join()
    monkeypatch.setattr(threading, "_threading_atexits", [print])  # (concurrent.futures registers one)
    cli._exit_now(0)
    assert calls == []
    monkeypatch.setattr(threading, "_threading_atexits", [])
    cli._exit_now(3)
    assert calls == [("atexit",), ("exit", 3)]


def test_the_garbage_collector_is_left_out_only_in_the_command_s_own_process(tmp_path):
    # (its passes cost a doctor run on a large folder 20-25 ms; the process ends at once after)
    program = PROGRAM.replace("entry()", "import gc\nimport rocm_wizard.commands.doctor as d\nreal = d.run\n"
                              "d.run = lambda args: (print('gc', gc.isenabled(), file=sys.stderr), real(args))[1]\n"
                              "entry()")
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", program, str(tmp_path / "marks"), "doctor", "--json", "--snapshot",
                           str(FIXTURE)], capture_output=True, text=True, env=env, timeout=120)
    assert "gc False" in proc.stderr and proc.stdout.startswith("{")
    import gc

    assert gc.isenabled()
    code, out, _err = _in_process("doctor", "--json", "--snapshot", str(FIXTURE))
    assert gc.isenabled() and out == proc.stdout and code == proc.returncode
