"""Held-out set HP (tests/data/real/3200-3204, HELDOUT.md): a second theme-neutral sample of ROCm in containers
(rocm/pytorch and rocm/vllm images, distrobox toolboxes, podman, 2025-2026).  On the unchanged code three of five led at
their layer; 3200, WhisperJAV's installer switching a rocm/pytorch image to CPU-only torch because it looks only for an
NVIDIA GPU, had no finding, and 3201, distrobox-enter stopped by dash's 'Syntax error: ";" unexpected' on a re-created
toolbox container, was read only by the catch-all at framework.  Two catalogue rows were added: the installer's switch
to a CPU-only install (meizhong986/WhisperJAV installer/legacy/install_linux_v1.8.2.sh, install.py) and a distrobox
script's shell syntax error (89luca89/distrobox distrobox-enter; dash src/parser.c and src/error.c, bash parse.y).
Detection: an installer's own 'Python X.Y.Z detected' line (WhisperJAV's install_linux.sh) is read as the Python."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

CPU = "hp_installer_no_nvidia_gpu_switching_to_cpu_only"
DBX = "hp_distrobox_script_syntax_error"


@pytest.mark.parametrize("num,layer", [("3202", "packaging"), ("3203", "hip"), ("3204", "framework")])
def test_the_set_hp_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_installer_fixture_is_named_and_leads_at_framework():
    assert_named_and_leads("3200", CPU, "framework")


def test_the_distrobox_fixture_is_named_and_leads_at_packaging():
    assert_named_and_leads("3201", DBX, "packaging")


@pytest.mark.parametrize("line", [
    # the fixture's line (meizhong986/WhisperJAV#120, install_linux.sh in a rocm/pytorch image)
    "Switching to CPU-only installation automatically.",
    # install.py's indented form (installer/legacy/install.py.backup_v1.8.2:246)
    "  Switching to CPU-only installation automatically.",
    # the driver-too-old path of install_linux.sh, and its install log lines (log(): '[date time] message')
    "Switching to CPU-only installation",
    "[2026-01-08 10:12:31] No NVIDIA GPU - switching to CPU-only",
    "[2026-01-08 10:12:31] Driver too old - switching to CPU-only",
])
def test_the_installer_row_reads_the_switch_to_cpu_only(line):
    assert CPU in _ids(line)
    assert error_signatures.failure_layer(CPU) == "framework"


@pytest.mark.parametrize("line", [
    # the bare check result: installers that go on to look for an AMD GPU print it too (install.py:126)
    "No NVIDIA GPU detected",
    # the installers' usage text
    "#   --cpu-only              Install CPU-only PyTorch",
    "     OR CPU-only PyTorch (if no compatible GPU detected)",
])
def test_near_misses_do_not_match_the_installer_row(line):
    assert CPU not in _ids(line)


@pytest.mark.parametrize("line", [
    # the fixture's line (kyuz0/amd-strix-halo-toolboxes#62, dash on Ubuntu 25.10)
    '/usr/bin/distrobox-enter: 3: eval: Syntax error: ";" unexpected',
    # bash's wording of the same eval (89luca89/distrobox#1590, a container removed by another tool; #268, a
    # container created by toolbx under distrobox's default name)
    "/var/home/core/.local/bin/distrobox-enter: eval: line 580: syntax error near unexpected token `;'",
    "/usr/bin/distrobox-enter: eval: line 352: syntax error near unexpected token `;'",
    # dash's expecting form (src/parser.c synexpect with a token)
    '/usr/bin/distrobox-create: 1127: Syntax error: "(" unexpected (expecting "fi")',
])
def test_the_distrobox_row_reads_its_scripts_syntax_errors(line):
    assert DBX in _ids(line)
    assert error_signatures.failure_layer(DBX) == "packaging"


@pytest.mark.parametrize("line", [
    # distrobox 2's upgrade: the shell's $0 is '-v', not a distrobox script (89luca89/distrobox#2127)
    "-v: 1: Syntax error: Unterminated quoted string",
    # another script's syntax error keeps its own layer
    '/opt/app/start.sh: 12: Syntax error: "fi" unexpected',
    # distrobox itself missing, and prose
    "bash: distrobox-enter: command not found",
    "distrobox enter gave me a syntax error after the refresh",
])
def test_near_misses_do_not_match_the_distrobox_row(line):
    assert DBX not in _ids(line)


@pytest.mark.parametrize("text,want", [
    # the fixture's installer line (meizhong986/WhisperJAV#120), and with the echo's indentation
    ("Python 3.12.11 detected\n", ["3.12.11"]),
    ("  Python 3.10.6 detected\n", ["3.10.6"]),
    # its version warning names no interpreter; prose is not a line of its own
    ("WARNING: Python 3.13+ detected\n", []),
    ("I have Python 3.12.3 detected by the installer\n", []),
])
def test_an_installers_python_line_names_the_python(text, want):
    assert paste_facts.parse(text).app_pythons == want
