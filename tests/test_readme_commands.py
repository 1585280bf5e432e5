"""Every command in README's command table runs as written (issue 17).

The table is read from README.md; each command has its optional ``[...]`` parts and ``...`` dropped
and runs in a read-only view of this machine (bwrap, no network, its own /tmp, HOME and log
directory).  Commands that describe a system (``detect``, ``doctor``, ``--plan-only``,
``--dry-run``) get ``--demo`` and so run against the bundled demo system; the wizard rows run the
demo wizard through Pilot.  ``--yes`` would change this machine: it runs in the Debian root of
tests/integration instead, and its case here is skipped with that reason.  A new row that this test
does not know fails (add what it should do below)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rwtest import sandbox

REPO = Path(__file__).resolve().parents[1]
DEMO_OK = ("detect", "doctor", "--plan-only", "--dry-run")  # commands that take --demo


def table_commands():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Commands\n", 1)[1]
    section = section.split("\n#", 1)[0]
    out = []
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        first_cell = re.split(r"(?<!\\)\|", line)[1]
        out += [c.replace("\\|", "|") for c in re.findall(r"`([^`]+)`", first_cell)]
    return out


def as_run(command: str):
    """(kind, argv) of a README command: optional parts dropped, --demo added where it applies."""
    words = re.sub(r"\[[^\[\]]*\]", " ", re.sub(r"\[[^\[\]]*\]", " ", command)).replace("...", " ").split()
    assert words[0] == "rocm-wizard", command
    args = words[1:]
    if not args or args == ["--demo"]:
        return "wizard", ["--demo"]
    head = args[0]
    kind = " ".join(args[:2]) if head == "catalog" else head
    if head in DEMO_OK and "--demo" not in args:
        args = ["--demo"] + args
    return kind, args


#: what each command of the table must end with when run as written (exit status, a phrase)
EXPECT = {
    "detect": (0, "stdout", "AMD Radeon RX 7900 XT"),
    "doctor": (2, "stdout", "HIPBLAS_STATUS_ALLOC_FAILED"),
    "--plan-only": (2, "stdout", "#!/usr/bin/env bash"),
    "--dry-run": (2, "stdout", "dry run: nothing is changed"),
    "snapshot": (0, "stderr", "wrote bundle.tar.gz"),
    "resume": (1, "stderr", "no run in"),  # a fresh log directory: nothing to continue
    "rollback": (1, "stderr", "no run in"),
    "verify": ((0, 2), "stdout", "rocm-wizard verify "),  # the report; 2: no GPU here, the failing layer named
    "catalog status": (0, "stdout", "bundled catalog:"),
    "catalog refresh": (1, "stderr", "refresh failed, nothing changed"),  # no network in the sandbox
}

COMMANDS = table_commands()


def test_the_table_is_read_and_every_row_is_known():
    assert len(COMMANDS) >= 12, COMMANDS
    kinds = {as_run(c)[0] for c in COMMANDS}
    unknown = kinds - set(EXPECT) - {"wizard", "--yes"}
    assert not unknown, f"README commands this test does not know how to run: {sorted(unknown)}"
    assert {"wizard", "--yes"} <= kinds and set(EXPECT) <= kinds  # and no expectation left without its row


@pytest.mark.parametrize("command", COMMANDS)
async def test_readme_command_runs_as_written(command, tmp_path, make_demo_app):
    kind, args = as_run(command)
    if kind == "--yes":
        pytest.skip("--yes changes the machine it runs on: it runs as written inside the Debian root "
                    "(tests/integration), never here")
    if kind == "wizard":
        app = make_demo_app()
        async with app.run_test(size=(80, 24)) as pilot:
            while not (type(app.screen).__name__ == "DetectionScreen" and app.screen.done):
                await pilot.pause(0.05)
            assert "RX 7900 XT" in " ".join(str(app.screen.query_one("#summary").render()).split())
            await pilot.press("q")
        assert app.return_code == 0
        return
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
    env.update(HOME=str(home), TMPDIR=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"),
               ROCM_WIZARD_LOG_DIR=str(tmp_path / "logs"), ROCM_WIZARD_CATALOG_OVERLAY=str(tmp_path / "overlay.json"))
    argv = sandbox.argv([sys.executable, "-m", "rocm_wizard", *args], writable=[tmp_path], chdir=str(tmp_path))
    res = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=900, env=env)
    code, stream, phrase = EXPECT[kind]
    assert res.returncode in (code if isinstance(code, tuple) else (code,)), (args, res.returncode, res.stderr[-2000:])
    assert phrase in getattr(res, stream), (args, getattr(res, stream)[-2000:])
    assert "Traceback" not in res.stderr
    if kind == "snapshot":
        assert (tmp_path / "bundle.tar.gz").is_file()
    if kind == "catalog refresh":
        assert not (tmp_path / "overlay.json").exists()  # a failed refresh writes nothing


@pytest.fixture
def make_demo_app(tmp_path):
    from rocm_wizard.demo import DemoCore
    from rocm_wizard.tui.app import WizardApp

    return lambda: WizardApp(DemoCore(speed=0, fail={}, state_dir=str(tmp_path / "state")), environ={},
                             animate=False, clock=lambda: 0.0)
