"""Headless paths stay light: ``detect --json`` and ``import rocm_wizard.detect`` never load Textual,
Rich or torch (nor jsonschema, packaging, distro); only the human report loads Rich, and nothing
here loads Textual.

Each case runs in a fresh interpreter that executes the command in-process and then lists the
top-level packages present in ``sys.modules``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rwtest import ci

REPO = Path(__file__).resolve().parents[1]
WATCHED = ("textual", "rich", "torch", "jsonschema", "packaging", "distro", "pytest")

RUNNER = r"""
import io, json, os, runpy, sys, contextlib
argv = json.loads(os.environ["RW_ARGV"])
out = io.StringIO()
code = None
if argv and argv[0] == "--import":
    __import__(argv[1])
else:
    sys.argv = ["rocm-wizard"] + argv
    with contextlib.redirect_stdout(out):
        try:
            runpy.run_module("rocm_wizard", run_name="__main__")
        except SystemExit as exc:
            code = exc.code
watched = json.loads(os.environ["RW_WATCHED"])
loaded = sorted({m.split(".")[0] for m in sys.modules} & set(watched))
sys.__stdout__.write(json.dumps({"loaded": loaded, "code": code, "out": out.getvalue()[:200]}))
"""


def loaded_by(*argv: str):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env["RW_ARGV"] = json.dumps(list(argv))
    env["RW_WATCHED"] = json.dumps(WATCHED)
    r = subprocess.run([sys.executable, "-c", RUNNER], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _fixture() -> str:
    return str(ci.real_fixture("019"))


def test_runner_sees_imports():
    """The check can fail: importing rich is noticed."""
    assert "rich" in loaded_by("--import", "rich.console")["loaded"]


def test_import_detect_is_light():
    assert loaded_by("--import", "rocm_wizard.detect")["loaded"] == []


def test_detect_json_snapshot_is_light():
    res = loaded_by("detect", "--json", "--snapshot", _fixture())
    assert res["code"] in (0, None) and res["out"].startswith("{")
    assert res["loaded"] == []


def test_detect_json_live_is_light():
    res = loaded_by("detect", "--json")
    assert res["code"] in (0, None) and res["out"].startswith("{")
    assert res["loaded"] == []


def test_snapshot_command_is_light(tmp_path):
    res = loaded_by("snapshot", "-o", str(tmp_path / "b.tar.gz"))
    assert res["code"] in (0, None)
    assert res["loaded"] == []


def test_human_detect_uses_rich_but_not_textual():
    res = loaded_by("detect", "--snapshot", _fixture())
    assert res["code"] in (0, None)
    assert "rich" in res["loaded"] and "textual" not in res["loaded"] and "torch" not in res["loaded"]


def test_the_resolver_imports_no_frontend():
    """resolve/ sits below the doctor, the plan engine and the frontends (catalog -> resolve -> ...)."""
    code = ("import sys, rocm_wizard.resolve as r; "
            "print(sorted(m for m in sys.modules if m.startswith(('rocm_wizard.tui', 'rocm_wizard.doctor', "
            "'rocm_wizard.plan', 'rocm_wizard.commands', 'textual', 'rich'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    assert out.stdout.strip() == "[]", out.stdout


def test_the_executor_imports_no_frontend():
    """execute/ is core: the frontends (``commands/``: ``--yes``/``--dry-run`` live in
    ``commands/apply.py``; ``tui/``) call it, never the other way round."""
    import pkgutil

    import rocm_wizard.execute as ex

    mods = ["rocm_wizard.execute." + m.name for m in pkgutil.iter_modules(ex.__path__)]
    assert "rocm_wizard.execute.engine" in mods and "rocm_wizard.execute.cli" not in mods
    code = ("import sys, importlib, json; [importlib.import_module(m) for m in json.loads(sys.argv[1])]; "
            "print(sorted(m for m in sys.modules if m.startswith(('rocm_wizard.tui', 'rocm_wizard.commands', "
            "'rocm_wizard.cli', 'textual', 'rich'))))")
    out = subprocess.run([sys.executable, "-c", code, json.dumps(mods)], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    assert out.stdout.strip() == "[]", out.stdout


def test_dry_run_is_light():
    """``--dry-run`` (commands/apply.py) never loads Textual."""
    res = loaded_by("--demo", "--dry-run")
    assert res["code"] == 2 and "textual" not in res["loaded"] and "torch" not in res["loaded"]
