"""Golden plans: the shell script, the playbook and the JSON for the seed scenarios and real
systems are kept in tests/plan/golden/ and compared byte for byte (after the tool version is
masked).  UPDATE_GOLDEN=1 rewrites them; read the diff before committing."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from rwtest import ci

from plan_cases import CASES
from plan_helpers import FIXTURES, GOLDEN, SYSTEMS, run_cli

EXT = {"shell": "sh", "ansible": "yml", "json": "json"}
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def _system_path(spec: str) -> str:
    kind, _, name = spec.partition(":")
    if kind == "seed":
        return str(SYSTEMS / f"{name}.json")
    path = FIXTURES / name
    if not path.is_dir():
        ci.missing(f"shared fixture {name} not found in {FIXTURES}")
    return str(path)


def _mask(text: str) -> str:
    from rocm_wizard import __version__

    return (text.replace(f"rocm-wizard {__version__}", "rocm-wizard @VERSION@")
            .replace(f'"tool_version": "{__version__}"', '"tool_version": "@VERSION@"'))


CHECKOUT = str(Path(__file__).resolve().parents[2])  # this checkout


def _compare(name: str, text: str) -> None:
    path = GOLDEN / name
    assert CHECKOUT not in text, "a golden file must not name the machine's checkout"
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(f"golden file {name} is missing: run with UPDATE_GOLDEN=1 and review it")
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text)
        return
    assert text == path.read_text(), f"{name} differs from the golden file (UPDATE_GOLDEN=1 to accept, after review)"


PLANNED = [(c, f) for c in CASES for f in c.formats]
REFUSED = [c for c in CASES if not c.formats]


@pytest.mark.parametrize("case,fmt", PLANNED, ids=[f"{c.name}-{f}" for c, f in PLANNED])
def test_golden_plan(case, fmt):
    rc, out, err = run_cli(["--plan-only", "--format", fmt, "--snapshot", _system_path(case.system)] + case.args)
    assert rc == case.rc, err
    assert out, "a plan was expected on stdout"
    assert "rocm-wizard:" in err  # the summary goes to stderr, never into the artifact
    _compare(f"{case.name}.{EXT[fmt]}", _mask(out))


@pytest.mark.parametrize("case", REFUSED, ids=[c.name for c in REFUSED])
def test_golden_refusal(case):
    rc, out, err = run_cli(["--plan-only", "--snapshot", _system_path(case.system)] + case.args)
    assert rc == case.rc, err
    assert out == "", "a refused plan prints nothing on stdout"
    assert err.startswith("rocm-wizard: ") and "Traceback" not in err
    _compare(f"{case.name}.refused.txt", f"exit {rc}\n{err}")
