"""Issue 27, round two, item 3: ``resume --follow`` on a journal it cannot load (damaged, a link,
another user's, or never written with no detached starter alive) stops after a bounded wait with
exit status 1 (README's table: a damaged journal) and says why -- it used to poll forever."""
from __future__ import annotations

import json
import os
import threading

import pytest

from rocm_wizard import exitcodes
from rocm_wizard.commands import resume
from test_trust import RUN, cli, journal


def follow_in_thread(run_dir, limit=20.0):
    """``follow`` with a short wait, in a thread; (finished, status)."""
    box = {}
    t = threading.Thread(target=lambda: box.setdefault("rc", resume.follow(str(run_dir), str(run_dir / "journal.json"),
                                                                           poll=0.02)), daemon=True)
    t.start()
    t.join(limit)
    return not t.is_alive(), box.get("rc")


def run_dir_with(tmp_path, how):
    d = tmp_path / RUN
    d.mkdir(mode=0o700)
    (d / "run.log").write_text("  | step one\n")
    j = d / "journal.json"
    if how == "damaged":
        j.write_text('{"format": "rocm-wizard-journal", "version": 1, "steps": [')
    elif how == "link":
        real = tmp_path / "elsewhere.json"
        real.write_text(json.dumps(journal(state="finished")))
        os.symlink(real, j)
    elif how == "owner":
        if os.geteuid() != 0:
            pytest.skip("chown needs root")
        j.write_text(json.dumps(journal(state="finished")))
        os.chown(j, 4242, 4242)
    elif how == "directory":
        j.mkdir()
    elif how == "never":
        pass
    return d


@pytest.mark.parametrize("how, said", [("damaged", "is damaged"), ("link", "symbolic link"),
                                       ("owner", "belongs to uid 4242"), ("directory", "not a regular file"),
                                       ("never", "was never written")])
def test_follow_stops_on_a_journal_it_cannot_load(tmp_path, monkeypatch, capsys, how, said):
    monkeypatch.setattr(resume, "UNLOADABLE_WAIT", 0.2, raising=False)
    d = run_dir_with(tmp_path, how)
    finished, rc = follow_in_thread(d)
    assert finished, f"resume --follow still polling a journal that is {how}"
    assert rc == exitcodes.ERROR == 1
    err = capsys.readouterr().err
    assert "cannot follow the run" in err and said in err, err


def test_a_journal_that_becomes_whole_in_the_wait_is_followed(tmp_path, monkeypatch, capsys):
    """The wait is there for a run that is starting: a journal written within it is followed."""
    monkeypatch.setattr(resume, "UNLOADABLE_WAIT", 5.0, raising=False)
    d = run_dir_with(tmp_path, "never")
    timer = threading.Timer(0.3, lambda: (d / "journal.json").write_text(json.dumps(journal(state="finished"))))
    timer.start()
    finished, rc = follow_in_thread(d)
    timer.join()
    assert finished and rc == exitcodes.OK, capsys.readouterr().err
    assert "step one" in capsys.readouterr().out


@pytest.mark.skipif(os.geteuid() != 0, reason="the log root's trust check applies to root")
def test_the_command_stops_with_status_1(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir(mode=0o750)
    run_dir_with(logs, "damaged")
    os.symlink(RUN, logs / "latest")
    p = cli("resume", "--follow", logs=logs)  # subprocess with its own time limit: a hang fails it
    assert p.returncode == 1, p.stderr
    assert "cannot follow the run" in p.stderr and "is damaged" in p.stderr, p.stderr
