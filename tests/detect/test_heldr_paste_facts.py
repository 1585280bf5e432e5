"""Paste facts added for held-out set R (s9-heldr): the interpreter of lib64/pythonX.Y paths (Fedora/RHEL's
platlib, their venvs) and of site-packages paths that end at the directory (pip show's Location), the full
version of pyenv's and uv's interpreter directories, and amd-smi 26.5's header box.  Lines as fixtures 691, 692,
695, 699 and 701 have them, other wordings of the same sources, and near misses that must not count."""
from __future__ import annotations

from pathlib import Path

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import paste_facts as pf


def test_lib64_site_packages_paths_name_the_interpreter():
    # 691 (a venv on a lib64 distribution), 695 (the system's own lib64 and a venv's)
    assert pf.parse('  File "/mnt/test/venv/rocm7.14-cp312/lib64/python3.12/site-packages/torch/nn/functional.py", '
                    'line 2567, in embedding\n').site_pythons == ["3.12"]
    assert pf.parse('  File "/src/.venv/lib64/python3.11/site-packages/rocm_sdk/__init__.py", line 105\n').site_pythons == ["3.11"]
    # pip show's Location ends at the directory
    assert pf.parse("Location: /usr/lib/python3.13/site-packages\n").site_pythons == ["3.13"]
    assert pf.parse("Location: /usr/local/lib/python3.10/dist-packages\n").site_pythons == ["3.10"]
    # not site-packages: the standard library's own directory, or a name that only starts like it
    assert pf.parse('  File "/usr/lib64/python3.12/subprocess.py", line 571, in run\n').site_pythons == []
    assert pf.parse("/opt/x/lib/python3.12/site-packages-old/thing\n").site_pythons == []


def test_interpreter_directories_name_the_full_version():
    # 699: pyenv's versions directory (pip show's Location under it)
    facts = pf.parse("Location: /home/adam/.pyenv/versions/3.11.9/lib/python3.11/site-packages\n")
    assert facts.install_pythons == ["3.11.9"]
    # uv's managed interpreter (ROCm/TheRock#3989's traceback)
    facts = pf.parse('  File "/home/x/.local/share/uv/python/cpython-3.12.11-linux-x86_64-gnu/lib/python3.12/'
                     'subprocess.py", line 466, in check_output\n')
    assert facts.install_pythons == ["3.12.11"]
    # pyenv environments of other interpreters, or a virtualenv named after a version, are not read
    assert pf.parse("/home/x/.pyenv/versions/miniconda3-latest/bin/python\n").install_pythons == []
    assert pf.parse("/home/x/.pyenv/versions/3.11.9-venv/bin/python\n").install_pythons == []
    assert pf.parse("/home/x/venvs/cpython-3.12/bin/python\n").install_pythons == []


def test_python_version_detected_from_interpreter_directory(tmp_path: Path):
    (tmp_path / "report.txt").write_text(
        "Location: /home/adam/.pyenv/versions/3.11.9/lib/python3.11/site-packages\n", encoding="utf-8")
    assert detect_snapshot(str(tmp_path)).os.python == "3.11.9"


def test_two_interpreter_directories_name_no_single_version(tmp_path: Path):
    (tmp_path / "report.txt").write_text(
        "/home/a/.pyenv/versions/3.11.9/bin/python\n/home/a/.pyenv/versions/3.12.4/bin/python\n", encoding="utf-8")
    assert detect_snapshot(str(tmp_path)).os.python is None


AMD_SMI_26_5 = """+------------------------------------------------------------------------------+
| AMD-SMI            26.5.0+2b22ab01                                           |
| OS kernel Version: 7.0.0-29-generic                                          |
| ROCm Version:      7.14.0                                                    |
| VBIOS Version:     00158742                                                  |
| Platform:          Linux Baremetal                                           |
|-------------------------------------+----------------------------------------|
| BDF                        GPU-Name | Mem-Uti   Temp   UEC       Power-Usage |
"""


def test_amd_smi_26_5_header_box():
    facts = pf.parse(AMD_SMI_26_5)
    assert facts.amd_smi_headers == [("26.5.0+2b22ab01", "", "7.14.0")]
    assert facts.kernel_lines == ["7.0.0-29-generic"]


def test_amd_smi_box_detected(tmp_path: Path):
    (tmp_path / "report.txt").write_text(AMD_SMI_26_5, encoding="utf-8")
    system = detect_snapshot(str(tmp_path))
    assert system.rocm.version == "7.14.0"
    assert system.os.kernel == "7.0.0-29-generic"


def test_box_rows_outside_an_amd_smi_box_are_not_read():
    # the same keys in another tool's table, or after the box's header rows ended
    other = "| Tool 1.0 |\n| ROCm Version:      7.14.0 |\n| OS kernel Version: 7.0.0 |\n"
    assert pf.parse(other).amd_smi_headers == [] and pf.parse(other).kernel_lines == []
    late = AMD_SMI_26_5 + "| ROCm Version:      9.9.9 |\n"
    assert pf.parse(late).amd_smi_headers == [("26.5.0+2b22ab01", "", "7.14.0")]
    # the one-line header of amd-smi 26.2 is still read as before
    one = "| AMD-SMI 26.2.0+021c61fc   amdgpu version: 6.14.0-37 ROCm version: 7.1.1 |\n"
    assert pf.parse(one).amd_smi_headers == [("26.2.0+021c61fc", "6.14.0-37", "7.1.1")]
