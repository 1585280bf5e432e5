"""Commands a reader copies are printed whole (issue 22): ``doctor`` wraps its prose to the
terminal but never a command -- the ways out's ``pip install``/``docker run``/``deb`` lines and the
commands to run next are each on a line of their own, unwrapped, at 80 and 200 columns, piped and in
a real terminal (a pty, where Rich reads the width itself); ``--json`` carries them as arrays
(``recommendations[].commands``, ``findings[].next_commands``).  A command quoted inside a sentence
(a fix's ``sudo apt install ...``) is moved whole to the next line, never split."""
from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios

import pytest
from rwtest import sandbox

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def _env(tmp_path, columns=None):
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(ROCM_WIZARD_LOG_DIR=str(tmp_path / "logs"), TMPDIR=str(tmp_path), TERM="xterm-256color")
    if columns:
        env["COLUMNS"] = str(columns)
    return env


def _argv(tmp_path, *args):
    return sandbox.argv([sys.executable, "-m", "rocm_wizard", *args], writable=[tmp_path])


def piped(tmp_path, columns, *args):
    res = subprocess.run(_argv(tmp_path, *args), stdin=subprocess.DEVNULL, capture_output=True, text=True,
                         timeout=120, env=_env(tmp_path, columns))
    return res.returncode, res.stdout


def in_pty(tmp_path, columns, *args):
    """stdout and stderr on a pty of ``columns`` x 24 (no COLUMNS in the environment)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    proc = subprocess.Popen(_argv(tmp_path, *args), stdin=subprocess.DEVNULL, stdout=slave, stderr=slave,
                            env=_env(tmp_path), close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        r, _, _ = select.select([master], [], [], 120)
        if not r:
            proc.kill()
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed its side
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    rc = proc.wait(timeout=60)
    text = ANSI.sub("", b"".join(chunks).decode("utf-8", "replace")).replace("\r\n", "\n")
    return rc, text


def _demo_commands(tmp_path):
    rc, out = piped(tmp_path, None, "--demo", "doctor", "--json")
    doc = json.loads(out)
    cmds = [c for r in doc["recommendations"] if r["applies"] for c in r["commands"]]
    cmds += [c for f in doc["findings"] for c in f["next_commands"]]
    return doc, cmds


def test_json_carries_each_way_outs_commands_as_an_array(tmp_path):
    doc, cmds = _demo_commands(tmp_path)
    applying = [r for r in doc["recommendations"] if r["applies"]]
    assert applying and all(isinstance(r["commands"], list) and r["commands"] for r in applying)
    # a way out's commands are the plan's own (one renderer): the command that prints that plan whole
    assert any(c.startswith("rocm-wizard ") and "--plan-only --path " in c for c in cmds), cmds


@pytest.mark.parametrize("how", ["piped", "pty"])
@pytest.mark.parametrize("columns", [80, 200])
def test_doctor_prints_every_command_whole_on_its_own_line(tmp_path, how, columns):
    _doc, cmds = _demo_commands(tmp_path)
    assert any(len(c) > 80 for c in cmds)  # a command that a wrapping renderer would break at 80
    rc, out = (piped if how == "piped" else in_pty)(tmp_path, columns, "--demo", "doctor")
    assert rc == 2, out
    lines = [line.strip() for line in out.splitlines()]
    for cmd in cmds:
        assert cmd in lines, (how, columns, cmd)
    # and nothing that starts like a command is a fragment of a longer one
    for line in lines:
        if line.startswith(("pip install ", "docker run ", "deb ", "rocm-wizard --")):
            assert line in cmds, (how, columns, line)
    # prose is still wrapped to the terminal (a way's plan lines are the script's own lines, whole)
    plan_lines = set()
    for r in _doc["recommendations"]:
        plan = r.get("plan") or {}
        plan_lines |= {f"plan: {plan.get('title')}"} | {s.strip() for s in plan.get("steps") or []}
    prose_lines = [l for l in out.splitlines()
                   if l.strip() and l.strip() not in cmds and not l.startswith("rocm-wizard:")
                   and not any(l.strip().endswith(p) or l.strip() == p for p in plan_lines)]
    # a line wider than the terminal only where one unbreakable unit (a URL, a file path) alone is
    # wider than what is left of the line after its label ("Sources: ", "- "): it is never split either
    too_wide = [l for l in prose_lines if len(l) > columns
                and not (len(l.split()) <= 2 and len(l.split()[-1]) > columns - len(l) + len(l.split()[-1]) - 1
                         and len(l) - len(l.split()[-1]) < 16)]
    assert too_wide == [], too_wide


def test_a_command_quoted_in_a_sentence_is_never_split():
    from rocm_wizard.commands._output import wrap_prose

    text = ("Run sudo apt install linux-headers-$(uname -r) linux-modules-extra-$(uname -r) && sudo dkms "
            "autoinstall, then reboot. Check free VRAM (rocm-smi --showmeminfo vram) and other GPU processes; "
            "or a plain 'pip install torch' pulls from PyPI.")
    spans = ["sudo apt install linux-headers-$(uname -r) linux-modules-extra-$(uname -r) && sudo dkms autoinstall,",
             "(rocm-smi --showmeminfo vram)", "'pip install torch'"]
    for width in range(20, 121, 7):
        lines = wrap_prose(text, width)
        assert " ".join(lines) == " ".join(text.split())  # nothing lost or reordered
        for span in spans:
            assert any(span in line for line in lines), (width, span, lines)
        for line in lines:  # only a command span may pass the width
            assert len(line) <= width or any(s in line for s in spans), (width, line)


def test_the_rules_fixes_keep_their_commands_whole_at_80_columns():
    """Every fix in the rule table, wrapped as doctor wraps it: the command spans it quotes come out whole."""
    from rocm_wizard.commands._output import prose_units, wrap_prose
    from rocm_wizard.doctor.registry import rules

    seen = 0
    for rule in rules().values():
        fix = getattr(rule, "fix", "") or ""
        spans = [u for u in prose_units(fix) if " " in u]
        for width in (40, 76):
            lines = wrap_prose(fix, width)
            for span in spans:
                seen += 1
                assert any(span in line for line in lines), (rule, span)
    assert seen  # the table does quote commands
