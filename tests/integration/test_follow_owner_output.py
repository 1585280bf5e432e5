"""A LOW item of issue 27 inside the Debian root, with alice attacking root: her venv's ``.pth`` prints
terminal control sequences at every start of her interpreter (an OSC 52 clipboard write, a title
change, a screen clear, an 8-bit CSI), so they end up in the output of the pip runs that ``--yes``
records in run.log.  Neither ``--yes`` itself nor root's later ``resume --follow``, which replays
run.log, passes any of them to root's terminal; the text around them is still shown."""
from __future__ import annotations

import glob
import os

from harness import wizard

from test_exec_torch import torch_args
from test_playbook_owner_hardening import alice_writes
from test_venv_owner import VENV, alice_venv

MARK = "ALICE-WAS-HERE"
# an OSC 52 write of "id > /tmp/x" to the clipboard, a title, a screen clear, a C1 CSI (U+009B)
HOSTILE = "\\x1b]52;c;aWQgPiAvdG1wL3g=\\x07\\x1b]0;PWNED\\x07\\x1b[2J\\u009b31m" + MARK + "\\n"
CONTROLS = ("\x1b", "\x07", "\x9b", "\u009b")


def test_follow_replays_alices_output_without_its_control_sequences(wroot, pyindex):
    root = wroot
    alice_venv(root, pyindex)
    alice_writes(root, "zz-escapes.pth",
                 f"import sys; sys.stdout.write('{HOSTILE}'); sys.stderr.write('{HOSTILE}'); sys.stdout.flush()\n")
    res = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, VENV))
    assert res.returncode == 0, res.stderr[-3000:]
    shown = res.stdout + res.stderr
    assert not [c for c in CONTROLS if c in shown], repr(shown[-2000:])

    logs = sorted({os.path.realpath(p) for p in glob.glob(root.host_path("/var/log/rocm-wizard") + "/*/run.log")})
    assert len(logs) == 1, logs
    with open(logs[0], encoding="utf-8", errors="replace") as fh:
        log = fh.read()
    assert MARK in log, log[-2000:]  # alice's output did reach the log: follow has it to replay

    follow = wizard.run(root, "resume", "--follow", timeout=120)
    assert follow.returncode == 0, follow.stderr[-3000:]
    assert MARK in follow.stdout, follow.stdout[-3000:]
    replayed = follow.stdout + follow.stderr
    assert not [c for c in CONTROLS if c in replayed], repr(replayed[-2000:])
