"""Held-out set EG (tests/data/real/2470-2475, HELDOUT.md): a theme-neutral sample of ROCm's main tracker in 2024,
issues 2950-3900 of ROCm/legacy-rocm-build (formerly ROCm/ROCm).  Four fixtures lead at their labelled layer on the
unchanged code; 2472 (PyTorch seeing no GPU, told only in prose) and 2475 (amd-smi's bare 'ModuleNotFoundError: No
module named 'yaml'', ROCm 6.1, the traceback not pasted) stay misses.  Tracing 2475's line to ROCm/amdsmi's
amdsmi_cli/amdsmi_cli.py gave two general readings of amd-smi's failed start: the launcher's own 'Still couldn't
import 'amdsmi related scripts'' line (since 2024-08; row eg_amdsmi_cli_import_failed, runtime) and a traceback whose
raising frame is in amd-smi's CLI scripts (libexec/amdsmi_cli; failure_lines.toml frame_package_layer, runtime)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import doctor_files, fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems

ROW = "eg_amdsmi_cli_import_failed"


@pytest.mark.parametrize("num,layer", [("2470", "packaging"), ("2471", "runtime"), ("2473", "runtime"),
                                       ("2474", "libraries")])
def test_the_set_eg_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_row_is_at_runtime():
    assert error_signatures.failure_layer(ROW) == "runtime"


@pytest.mark.parametrize("line", [
    # ROCm/ROCm#4216 (ROCm 6.2.1 on Linux Mint 22, the launcher in /usr/bin)
    "Still couldn't import 'amdsmi related scripts'. Make sure it's installed in /usr/bin/../libexec/amdsmi_cli",
    # NixOS/nixpkgs#438188 (rocmPackages.amdsmi 6.3.3, the launcher inside the Nix store)
    "Still couldn't import 'amdsmi related scripts'. Make sure it's installed in "
    "/nix/store/bfc7ybb7f034gh9p9ryprxcpldyrr7gy-amdsmi-6.3.3/libexec/amdsmi_cli/../libexec/amdsmi_cli",
])
def test_the_launcher_line_is_named(line):
    assert ROW in _ids(line)


@pytest.mark.parametrize("text", [
    "ModuleNotFoundError: No module named 'yaml'",                     # the fixture's bare line (2475): no program named
    "amd-smi still couldn't import the amdsmi scripts after a reinstall",  # prose about it
    "Still couldn't import 'rocm_smi related scripts'. Make sure it's installed in /opt/rocm/libexec",  # another name
])
def test_other_lines_are_not_the_launcher_row(text):
    assert ROW not in _ids(text)


def test_the_launcher_line_leads_at_runtime(tmp_path):
    # ROCm/ROCm#4216 as pasted: the command, Python's SyntaxWarning for BDF.py and the launcher's line
    diag = doctor_files(tmp_path, {"amd-smi.txt": (
        "amd-smi --help\n"
        "/opt/rocm-6.2.1/libexec/amdsmi_cli/BDF.py:126: SyntaxWarning: invalid escape sequence '\\.'\n"
        "  bdf_regex = \"(?:[0-6]?[0-9a-fA-F]{1,4}:)?[0-2]?[0-9a-fA-F]{1,2}:[0-9a-fA-F]{1,2}\\.[0-7]\"\n"
        "Still couldn't import 'amdsmi related scripts'. Make sure it's installed in /usr/bin/../libexec/amdsmi_cli\n")})
    assert problems(diag)[0] == ("known-failure", "runtime")


# ROCm 6.1's amd-smi (ROCm/amdsmi tag rocm-6.1.0): amdsmi_cli.py line 33 imports amdsmi_commands, whose line 31
# imports amdsmi_logger, whose line 29 is 'import yaml'; the frames as Python prints them for the installed layout
_TRACEBACK = (
    "Traceback (most recent call last):\n"
    "  File \"/opt/rocm/bin/amd-smi\", line 33, in <module>\n"
    "    from amdsmi_commands import AMDSMICommands\n"
    "  File \"/opt/rocm-6.1.0/libexec/amdsmi_cli/amdsmi_commands.py\", line 31, in <module>\n"
    "    from amdsmi_logger import AMDSMILogger\n"
    "  File \"/opt/rocm-6.1.0/libexec/amdsmi_cli/amdsmi_logger.py\", line 29, in <module>\n"
    "    import yaml\n"
    "ModuleNotFoundError: No module named 'yaml'\n")


def test_a_traceback_raised_in_amd_smis_cli_scripts_is_read_at_runtime(tmp_path):
    assert problems(doctor_files(tmp_path, {"amd-smi.txt": _TRACEBACK}))[0][1] == "runtime"


def test_the_same_exception_in_a_users_script_stays_at_framework(tmp_path):
    text = _TRACEBACK.replace("/opt/rocm-6.1.0/libexec/amdsmi_cli/amdsmi_logger.py", "/home/u/tools/report.py")
    text = text.replace("/opt/rocm-6.1.0/libexec/amdsmi_cli/amdsmi_commands.py", "/home/u/tools/main.py")
    text = text.replace("/opt/rocm/bin/amd-smi", "/home/u/tools/run.py")
    assert problems(doctor_files(tmp_path, {"run.txt": text}))[0][1] == "framework"
