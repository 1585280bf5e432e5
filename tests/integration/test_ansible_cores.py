"""Which ansible-cores the playbook tests run under (harness.ansible.cores_for): the one-core tests of the
platform variants name real tests that take ``ansible_in``, and every family of them is still converged by
Debian's ansible-core and by the newest one on PyPI (the developers' guide asks for both)."""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from harness import ansible

HERE = Path(__file__).resolve().parent


def _functions_taking_ansible_in(name: str) -> set:
    tree = ast.parse((HERE / name).read_text(encoding="utf-8"))
    return {f.name for f in ast.walk(tree)
            if isinstance(f, ast.FunctionDef) and any(a.arg == "ansible_in" for a in f.args.args)}


def _naming_their_own_cores(name: str) -> set:
    """The functions of a file with their own ``@pytest.mark.parametrize("ansible_in", ...)``: for them
    conftest's pytest_generate_tests, hence ``cores_for``, does not apply."""
    tree = ast.parse((HERE / name).read_text(encoding="utf-8"))
    return {f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
            for d in f.decorator_list if isinstance(d, ast.Call) and d.args
            and isinstance(d.args[0], ast.Constant) and "ansible_in" in str(d.args[0].value)}


def test_each_one_core_test_is_a_playbook_test_of_this_tier():
    for test, core in ansible.ONE_CORE_TESTS.items():
        name, function = test.split("::")
        assert function in _functions_taking_ansible_in(name), test
        assert function not in _naming_their_own_cores(name), test  # else the one core would not apply
        assert core in ("debian", "newest"), test
        assert ansible.cores_for(test) == [core]
        assert test not in ansible.MIDDLE_CORE_TESTS


def test_every_family_of_one_core_tests_runs_under_both_cores():
    # a family: the test file, or for the WSL files their common prefix
    cores = defaultdict(set)
    for test in ansible.ONE_CORE_TESTS:
        name = test.split("::")[0]
        family = "test_wsl" if name.startswith("test_wsl") else name
        cores[family].update(ansible.cores_for(test))
        for other in _functions_taking_ansible_in(name) - _naming_their_own_cores(name):  # the file's other tests
            cores[family].update(ansible.cores_for(f"{name}::{other}"))
    assert [family for family, c in cores.items() if not {"debian", "newest"} <= c] == [], dict(cores)


def test_other_playbook_tests_keep_both_cores():
    assert ansible.cores_for("test_ansible_playbook.py::anything_else") == ["debian", "newest"]
