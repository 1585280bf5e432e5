"""A new venv's Python is the distribution's python3 (issue 30): Ubuntu 20.04 -> 3.8, 22.04 -> 3.10,
24.04 -> 3.12, 26.04 -> 3.14, Debian 12 -> 3.11, 13 -> 3.13 (the distributions' own package data,
``catalog/data/distro_python.toml``), or this system's own python3 where detection read it; the
torch wheels offered for a new venv must have that Python's cp tag."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from rocm_wizard import model, resolve
from rocm_wizard.catalog import sources, ubuntu, wheels
from rocm_wizard.plan.build import Choices, PlanError, build_plan

SEED = Path(__file__).resolve().parents[1] / "plan" / "systems" / "seed-rx7900xt-resolute-fresh.json"


def _host(os_id: str, version: str, codename: str) -> model.System:
    """The fresh-host seed (RX 7900 XT, no ROCm, no venv) on another distribution release."""
    system = model.from_dict(model.System, json.loads(SEED.read_text()))
    assert not system.torch
    pretty = f"{'Ubuntu' if os_id == 'ubuntu' else 'Debian GNU/Linux'} {version}"
    system.os = dataclasses.replace(system.os, id=os_id, version_id=version, codename=codename, pretty_name=pretty,
                                    python=None, sources={k: v for k, v in system.os.sources.items() if k != "python"})
    return system


@pytest.mark.parametrize("os_id,version,python", [
    ("ubuntu", "20.04", "3.8"), ("ubuntu", "22.04.5", "3.10"), ("ubuntu", "24.04", "3.12"),
    ("ubuntu", "26.04", "3.14"), ("debian", "12", "3.11"), ("debian", "13", "3.13"),
])
def test_each_release_has_its_python3_with_a_source(os_id, version, python):
    dp = ubuntu.default_python(os_id, version)
    assert dp is not None and dp.python == python and dp.status == "documented"
    assert dp.sources and all(sources.get(t) is not None and sources.get(t).url for t in dp.sources)
    assert dp.package.split()[-1].startswith(python.split(".")[0] + "." + python.split(".")[1])


@pytest.mark.parametrize("os_id,version,codename,python", [
    ("ubuntu", "22.04", "jammy", "3.10"), ("ubuntu", "24.04", "noble", "3.12"), ("ubuntu", "26.04", "resolute", "3.14"),
    ("debian", "12", "bookworm", "3.11"), ("debian", "13", "trixie", "3.13"),
])
def test_a_new_venvs_wheels_are_checked_against_the_distributions_python(os_id, version, codename, python):
    facts = resolve.from_system(_host(os_id, version, codename))
    assert facts.python is None and facts.new_python == python
    best = resolve.torch_ways(facts).best
    assert best is not None
    c = best.check("wheel-for-python")
    assert c.verdict == resolve.SATISFIED and f"Python {python}" in c.detail and "python3" in c.detail


def test_ubuntu_2004_is_not_offered_wheels_that_need_python_310():
    system = _host("ubuntu", "20.04", "focal")
    facts = resolve.from_system(system)
    assert facts.new_python == "3.8"
    for way in resolve.torch_ways(facts).offered:
        t, idx = way.subject
        assert wheels.wheel_for_python(t, "3.8", idx) is True, way.key
    plan = build_plan(system, Choices(path="torch-reinstall", venv="/opt/ml/venv"))
    assert any(n.startswith("Python of the new venv: a new venv gets Ubuntu 20.04's python3, Python 3.8")
               for n in plan.notes)
    with pytest.raises(PlanError) as exc:
        build_plan(system, Choices(path="torch-reinstall", venv="/opt/ml/venv", torch="2.13.0"))
    assert "wheel-for-python" in exc.value.message and "Python 3.8" in exc.value.message


def test_this_systems_own_python3_wins_and_a_venvs_own_python_decides():
    system = _host("ubuntu", "24.04", "noble")
    system.os.python = "3.13"
    system.os.sources["python"] = "link:/usr/bin/python3"
    facts = resolve.from_system(system)
    assert facts.new_python == "3.13" and "this system's python3" in facts.new_python_source
    system.os.sources["python"] = "paste:notes.txt (Python banner)"  # a banner may be any Python: not used
    assert resolve.from_system(system).new_python == "3.12"
    # an existing venv: its own Python, no distribution default
    system.torch = [model.TorchEnv(path="/home/u/venv", version="2.5.1+rocm6.2", python="3.11.9")]
    facts = resolve.from_system(system)
    assert facts.python == "3.11" and facts.new_python is None


def test_an_unknown_release_stays_unknown():
    facts = resolve.from_system(_host("ubuntu", "25.10", "questing"))
    assert facts.new_python is None
    best = resolve.torch_ways(facts).best
    assert best is None or best.check("wheel-for-python").verdict == resolve.UNKNOWN
