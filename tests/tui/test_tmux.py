"""The installed ``rocm-wizard --demo`` in a real terminal: tmux runs it at 80x24, the test types
keys with ``send-keys`` and reads the screen with ``capture-pane``, through a whole walk."""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
import uuid

import pytest
from rwtest import ci

TMUX = shutil.which("tmux")
WIZARD = shutil.which("rocm-wizard")

pytestmark = [
    pytest.mark.skipif(TMUX is None, reason=ci.MISSING + "tmux is not installed (apt-get install tmux)"),
    pytest.mark.skipif(WIZARD is None, reason=ci.MISSING + "rocm-wizard is not installed (pip install -e .)"),
]


class Term:
    """One tmux server (private socket) with one pane running a command."""

    def __init__(self, tmp_path, command: str, env=None, width=80, height=24, terminal=None):
        self.sock = f"rocmwiz-{uuid.uuid4().hex[:8]}"
        self.exit_file = tmp_path / "exit-status"
        script = f"{command}; echo $? > {shlex.quote(str(self.exit_file))}; sleep 60"
        envs = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
        full = f"env -u TMUX -u STY -u SSH_CONNECTION -u SSH_TTY -u NO_COLOR {envs} bash -c {shlex.quote(script)}"
        args = [TMUX, "-L", self.sock, "-f", "/dev/null", "start-server", ";"]
        if terminal:
            args += ["set-option", "-g", "default-terminal", terminal, ";"]
        args += ["new-session", "-d", "-s", "w", "-x", str(width), "-y", str(height), full]
        subprocess.run(args, check=True, timeout=20)

    def tmux(self, *args) -> str:
        return subprocess.run([TMUX, "-L", self.sock, *args], check=True, capture_output=True, text=True,
                              timeout=20).stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "w")

    def wait(self, *phrases: str, timeout: float = 30.0) -> str:
        end = time.monotonic() + timeout
        text = ""
        while time.monotonic() < end:
            text = self.screen()
            flat = " ".join(text.split())
            if all(" ".join(p.split()) in flat for p in phrases):
                return text
            time.sleep(0.1)
        raise AssertionError(f"never saw {phrases!r}; the screen was:\n{text}")

    def keys(self, *keys: str) -> None:
        for k in keys:
            self.tmux("send-keys", "-t", "w", k)
            time.sleep(0.15)

    def exit_status(self, timeout: float = 20.0) -> int:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.exit_file.exists() and self.exit_file.read_text().strip():
                return int(self.exit_file.read_text().strip())
            time.sleep(0.1)
        raise AssertionError("the wizard did not exit; the screen was:\n" + self.screen())

    def close(self) -> None:
        subprocess.run([TMUX, "-L", self.sock, "kill-server"], capture_output=True, timeout=20)


@pytest.fixture
def term(tmp_path):
    made = []

    def start(command=f"{WIZARD} --demo", env=None, **kw):
        env = {"ROCM_WIZARD_DEMO_SPEED": "0.02", "TERM": "xterm-256color", **(env or {})}
        t = Term(tmp_path, command, env, **kw)
        made.append(t)
        return t

    yield start
    for t in made:
        t.close()


def test_installed_demo_walks_the_torch_reinstall_path(term):
    t = term()
    screen = t.wait("rocm-wizard 1/8 Detect", "DEMO", "2 problems found", "n Next")
    assert "AMD Radeon RX 7900 XT (gfx1100)" in screen
    assert max(len(line) for line in screen.splitlines()) <= 80
    t.keys("n")
    t.wait("2/8 Findings", "The kernel driver is outside")
    t.keys("n")
    t.wait("3/8 Way out", "Reinstall PyTorch in the venv (recommended)")
    t.keys("Enter")
    t.wait("4/8 Options", "Virtual environment", "/home/demo/trainer/venv", "^n Next: plan")
    t.keys("C-n")
    t.wait("5/8 Plan", "will change", "x Run")
    t.keys("3")
    t.wait("#!/usr/bin/env bash")
    t.keys("x")
    t.wait("Run the", "simulated, nothing is changed")
    t.keys("y")
    t.wait("6/8 Run", "Finished. Press n for the GPU smoke test.", timeout=60)
    t.keys("n")
    t.wait("7/8 Verify", "the GPU works for PyTorch", timeout=30)
    t.keys("n")
    screen = t.wait("8/8 Done", "The plan ran to the end.", "Answers file:")
    assert "Install torch 2.10.0+rocm7.0" in " ".join(screen.split())
    t.keys("q")
    assert t.exit_status() == 0


def test_ssh_without_tmux_says_how_to_detach(term):
    t = term(env={"SSH_CONNECTION": "192.0.2.1 50000 192.0.2.2 22"})
    t.wait("SSH without tmux or screen", "re-attach", "2 problems found")
    t.keys("q")
    assert t.exit_status() == 0


def test_plain_terminal_and_no_color(term):
    t = term(env={"TERM": "screen", "NO_COLOR": "1"}, terminal="screen")
    t.wait("rocm-wizard 1/8 Detect", "2 problems found")
    t.keys("?")
    t.wait("Help: Detection", "Keys")
    t.keys("Escape", "C-q")
    assert t.exit_status() == 0


def test_resize_while_running(term):
    # an exported COLUMNS/LINES (some shells and serial-console recipes set them) must not pin the size
    t = term(env={"COLUMNS": "80", "LINES": "24"})
    t.wait("2 problems found")
    t.tmux("resize-window", "-t", "w", "-x", "120", "-y", "40")
    screen = t.wait("rocm-wizard 1/8 Detect", "triton-rocm 3.6.0", "r Detect again")
    assert len(screen.splitlines()) >= 30
    t.tmux("resize-window", "-t", "w", "-x", "60", "-y", "20")
    t.wait("rocm-wizard", "Next")
    t.keys("q")
    assert t.exit_status() == 0


def test_without_a_terminal_the_wizard_says_what_to_use(tmp_path):
    res = subprocess.run([WIZARD, "--demo"], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "ROCM_WIZARD_DEMO_SPEED": "0"})
    assert res.returncode == 64
    assert res.stdout == "" and "--plan-only or --yes" in res.stderr


def test_demo_is_never_applied_to_this_machine(tmp_path):
    """--demo --dry-run and --plan-only describe the demo system (tests/test_cli_demo.py); --yes is refused."""
    from rwtest import sandbox

    res = subprocess.run(sandbox.argv([WIZARD, "--demo", "--yes"], writable=[tmp_path]), stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=60,
                         env={**os.environ, "ROCM_WIZARD_LOG_DIR": str(tmp_path / "logs")})
    assert res.returncode == 64 and res.stdout == ""
    assert "not with --yes: it works on this machine, not on the demo system" in res.stderr


def test_stop_and_quit_prints_how_to_resume_and_the_demo_cleans_up(term, tmp_path):
    """Quit during a run: the terminal keeps a line saying how to continue (exit 130), and the
    demo's temporary directory (answers, simulated run log) is gone."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    t = term(env={"ROCM_WIZARD_DEMO_SPEED": "1", "TMPDIR": str(tmp)})
    t.wait("2 problems found", "n Next")
    t.keys("n")
    t.wait("2/8 Findings")
    t.keys("n")
    t.wait("3/8 Way out")
    t.keys("Down", "Down", "Enter")  # the ROCm upgrade: long enough to stop half-way
    t.wait("4/8 Options", "ROCm release")
    t.keys("C-n")
    t.wait("5/8 Plan", "will change")
    t.keys("x")
    t.wait("simulated, nothing is changed")
    t.keys("y")
    t.wait("may it remove them?")  # the plan's own question (apt removals): no, the safe answer
    t.keys("n")
    t.wait("6/8 Run")
    assert [p.name for p in tmp.iterdir()][0].startswith("rocm-wizard-demo-")  # the run's files are there
    t.keys("q")
    t.wait("Stop it after the current step and quit?")
    t.keys("y")
    assert t.exit_status(timeout=60) == 130
    screen = " ".join(t.screen().split())
    assert "the run stopped at a safe point" in screen and "rocm-wizard)\" resume" in screen
    assert list(tmp.iterdir()) == []
