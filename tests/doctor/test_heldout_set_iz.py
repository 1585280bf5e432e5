"""Held-out set IZ (tests/data/real/3550-3554, HELDOUT.md): a theme-neutral sample of threads whose text pastes pip's
or uv's output while installing ROCm wheels: vLLM's guide pinning a torch nightly that PyTorch's nightly/rocm6.2 index
had pruned, a Windows install script on Python 3.14.0 finding no torch on TheRock's v2/gfx120X-all index, 'uv add
tensorflow-rocm' ruled out by a missing aarch64-only dependency, pip refusing a nightly rocm7.0 torchvision wheel whose
sha256 is not the index's, and a TheRock torch install from the devreleases index that worked.  On the unchanged code
every failing fixture led at packaging; two readings were missing, fixed from the printing programs' sources:

* 3552: uv renders its resolution report through miette's graphical handler, which wraps the text to the terminal
  width, so the conclusion 'we can conclude that your project's requirements are' / 'unsatisfiable.' (astral-sh/uv
  crates/uv-resolver/src/pubgrub/report.rs) spans two lines and the one-line row uv_requirements_unsatisfiable missed
  it.  Row iz_uv_requirements_unsatisfiable_wrapped (packaging, whole-text, bounded gaps) reads it only where a line
  break falls inside the conclusion.
* 3551 (detection): the Windows Python install manager (python/pymanager src/manage/install_command.py
  _install_one: LOGGER.info("Installing %s.", install['displayName'])) prints 'Installing Python 3.14.0.'; the paste
  facts parser now reads it as the interpreter, last, when nothing else names one."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import paste_facts
from rwtest import realrun
from rwtest.heldout import PROBLEM, assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

WRAPPED = "iz_uv_requirements_unsatisfiable_wrapped"


@pytest.mark.parametrize("num", ["3550", "3551", "3552", "3553"])
def test_the_set_iz_fixtures_lead_at_packaging(num):
    assert _lead_layer(_fixture(num)) == "packaging"


def test_the_healthy_install_has_no_problem_finding():
    assert not [f for f in realrun.diagnosis(_fixture("3554")).findings if f.severity in PROBLEM]


def test_the_wrapped_conclusion_row_names_its_fixture_and_leads_at_packaging():
    assert_named_and_leads("3552", WRAPPED, "packaging")


@pytest.mark.parametrize("text", [
    # the fixture's lines (ROCm/tensorflow-upstream#2940, uv add tensorflow-rocm>=2.14.0 under WSL)
    "      And because your project depends on tensorflow-rocm>=2.12.0, we can conclude that your project's requirements are\n"
    "      unsatisfiable.",
    # deepfakes/faceswap#1508 (uv pip install of requirements_rocm.txt in a Debian 11 container), wrapped before 'are'
    "      And because you require numpy>=1.26.0,<2.0.0 and\n"
    "      tensorflow-rocm>=2.10.0,<2.11.0, we can conclude that your requirements\n"
    "      are unsatisfiable.",
    # a uv issue's two-project reproduction (closed 2025-05-13, a text in the code index)
    "      And because your project depends on b and numpy>=2, we can conclude that your project's requirements are\n"
    "      unsatisfiable.",
    # a torch ABI report in a project's log (a text in the code index), wrapped twice
    "      requires cohezion[ml], we can conclude that your project's requirements\n"
    "      are unsatisfiable.",
    # uv's report with the '╰─▶' gutter's continuation (a repository's test of an installer summary, ANSI removed)
    "  ╰─▶ Because there is no version of personalclaw==99.9.9 and you require\n"
    "      personalclaw==99.9.9, we can conclude that your requirements are\n"
    "      unsatisfiable.",
])
def test_the_wrapped_row_reads_uvs_conclusion_across_the_wrap(text):
    assert WRAPPED in ids(text)
    assert error_signatures.failure_layer(WRAPPED) == "packaging"


@pytest.mark.parametrize("text", [
    # the one-line conclusion is the other row's (a uv 0.5.9 debug log in a uv issue, a text in the code index)
    "  ╰─▶ Because there is no version of xxx==24.25.0 and you require xxx==24.25.0, we can conclude that your "
    "requirements are unsatisfiable.",
    # a break before 'we can conclude', the conclusion itself on one line (a Japanese note in the code index)
    "Because only setuptools<=70.2.0 is available and you require setuptools>=77.0,\n"
    "we can conclude that your requirements are unsatisfiable.",
    # prose about the report, not the report
    "uv said the requirements are\nunsatisfiable, so I pinned numpy",
])
def test_the_wrapped_row_leaves_the_one_line_form_and_prose(text):
    assert WRAPPED not in ids(text)


def test_the_one_line_row_still_reads_the_unwrapped_conclusion():
    assert "uv_requirements_unsatisfiable" in ids(
        "  ╰─▶ Because there is no version of xxx==24.25.0 and you require xxx==24.25.0, we can conclude that your "
        "requirements are unsatisfiable.")


@pytest.mark.parametrize("line,ver", [
    ("Installing Python 3.14.0.", "3.14.0"),  # the fixture's line (3551)
    ("Installing Python 3.14.3.", "3.14.3"),  # the install manager's first-run configuration (a text in the code index)
    ("Installing Python 3.14.7.", "3.14.7"),  # 'py install 3.14' in a setup note (a text in the code index)
    ("Updating to Python 3.13.9.", "3.13.9"),  # 'py install --update' (install_command.py _install_one)
])
def test_the_install_managers_line_names_the_interpreter(line, ver):
    assert paste_facts.parse(line).manager_pythons == [ver]


@pytest.mark.parametrize("line", [
    "Installing Python x.xx.x.",  # a guide's placeholder
    "Installing Python-3.12.3...",  # pyenv's own form
    "Installing Python 3.14.0 (64-bit)",  # the python.org installer's title, not the manager's line
    "Installing Python 3.14.",  # no full version
])
def test_other_installing_python_lines_name_no_interpreter(line):
    assert paste_facts.parse(line).manager_pythons == []
