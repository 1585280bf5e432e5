"""#27 (paths root reads on a user's behalf), LOW items: clear errors instead of tracebacks or hangs."""
import os
import threading

import pytest

from rocm_wizard.execute import answers
from rocm_wizard.execute.fsutil import read_json


def test_deeply_nested_json_is_a_clear_error(tmp_path):
    p = tmp_path / "journal.json"
    p.write_text("[" * 200000 + "]" * 200000)
    with pytest.raises(ValueError, match="nested too deeply"):
        read_json(str(p))


def test_answers_on_a_fifo_is_refused_without_hanging(tmp_path):
    fifo = tmp_path / "answers.toml"
    os.mkfifo(fifo)
    result = {}

    def go():
        try:
            answers.load(str(fifo))
        except answers.AnswersError as exc:
            result["err"] = str(exc)

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(30)
    if t.is_alive():  # unblock the reader so the test process can end, then fail
        with open(fifo, "w"):
            pass
        pytest.fail("answers.load blocked on a FIFO")
    assert "not a regular file" in result["err"]


def test_answers_from_a_device_is_refused():
    with pytest.raises(answers.AnswersError, match="not a regular file"):
        answers.load("/dev/zero")


def test_answers_file_over_the_cap_is_refused(tmp_path):
    p = tmp_path / "answers.toml"
    p.write_text("# x\n" * (answers.MAX_BYTES // 4 + 10))
    with pytest.raises(answers.AnswersError, match="larger than"):
        answers.load(str(p))


def test_answers_small_regular_file_still_loads(tmp_path):
    p = tmp_path / "answers.toml"
    p.write_text("# nothing chosen\n")
    assert answers.load(str(p)) == {}


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "-inf"])
@pytest.mark.parametrize("command", ["apply", "resume"])
def test_lock_timeout_refuses_non_finite_and_negative(command, value, capsys):
    from rocm_wizard import cli, exitcodes

    with pytest.raises(SystemExit) as stop:
        cli.build_parser(command).parse_args([command, "--lock-timeout", value])
    assert stop.value.code == exitcodes.USAGE == 64
    assert "lock-timeout" in capsys.readouterr().err


def test_lock_timeout_accepts_a_finite_value():
    from rocm_wizard import cli

    assert cli.build_parser("resume").parse_args(["resume", "--lock-timeout", "5"]).lock_timeout == 5.0


def test_oversized_v4_key_packet_is_a_refusal_not_an_internal_error():
    import struct

    from rocm_wizard.plan import openpgp

    body = bytes([4]) + struct.pack(">I", 1700000000) + bytes([1]) + b"\0" * 70000
    packet = bytes((0xC0 | 6, 0xFF)) + struct.pack(">I", len(body)) + body  # new-format tag 6, 5-octet length
    with pytest.raises(openpgp.KeyFormatError, match="longer than 65535"):
        openpgp.read_keys(packet)


def test_catalog_status_prints_learnt_python_tags_without_control_sequences(monkeypatch, capsys):
    import argparse

    from rocm_wizard.catalog import overlay
    from rocm_wizard.commands import catalog

    # packaging 23.0 takes a wheel file name's python tag as written: a hostile index can name a
    # wheel whose tag carries an escape sequence, and the overlay keeps it
    evil = "cp312\x1b]0;owned\x07\x1b[2J"
    ov = {"created": "2026-11-26", "sources": {}, "warnings": [],
          "torch": [{"version": "9.9.9", "index": "rocm9.9", "python_tags": [evil], "source": "x\x1b[31m"}]}
    monkeypatch.setattr(overlay, "read", lambda: ov)
    monkeypatch.setattr(overlay, "problems", lambda: [])
    monkeypatch.setattr(overlay, "stale_warning", lambda *a, **k: None)
    assert catalog.status(argparse.Namespace(json=False)) == 0
    out = capsys.readouterr().out
    assert "torch 9.9.9+rocm9.9" in out and "cp312" in out
    assert "\x1b" not in out and "\x07" not in out


def test_run_lock_on_a_full_disk_is_a_message_not_a_traceback(tmp_path, monkeypatch):
    import errno
    import io

    from rocm_wizard.execute import paths

    real_fdopen = os.fdopen

    class Full(io.TextIOWrapper):
        def flush(self):  # what a 100%-full file system answers when the pid line reaches it
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def close(self):
            try:
                super().flush()
            except OSError:
                pass
            self.detach().close()

    def fdopen(fd, mode="r", *a, **k):
        return Full(real_fdopen(fd, "rb+", buffering=0)) if mode == "r+" else real_fdopen(fd, mode, *a, **k)

    monkeypatch.setattr(os, "fdopen", fdopen)
    base = tmp_path / "log"
    msg = paths.take_run_lock(str(base))
    assert msg is not None and "No space left on device" in msg, msg
