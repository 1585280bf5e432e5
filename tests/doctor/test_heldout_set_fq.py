"""Held-out set FQ (tests/data/real/2720-2725, HELDOUT.md): ComfyUI's and SD.Next's AMD GPU issues of 2023-2024.

2722's failing line, torch's "NameError: name 'amdsmi' is not defined" (pytorch/pytorch torch/cuda/__init__.py
_raw_device_count_amdsmi, which checked the pynvml flag before calling amdsmi.amdsmi_init() when the amdsmi import had
failed; fixed by pytorch/pytorch#127528), was read by the catch-all at runtime for its 'amdsmi' word; the row
fq_torch_amdsmi_name_not_defined reads it at framework.  SD.Next's start-up lines of 2023-2024 name the Python it runs
on ('Python 3.10.12 on Linux', vladmandic/automatic installer.py check_python) and, on Linux, the kernel release
('Platform: ... system=Linux release=6.1.57-gentoo python=3.11.5', vladmandic/sdnext launch.py with installer.py
get_platform(): platform.release()); the paste-facts parser reads both now.  2720 and 2721 show no failing line (the
failure is told only in prose) and are in MISSES."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "fq_torch_amdsmi_name_not_defined"


@pytest.mark.parametrize("num,layer", [("2722", "framework"), ("2723", "hip"), ("2724", "framework"),
                                       ("2725", "framework")])
def test_the_set_fq_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_amdsmi_row_names_2722_and_leads_at_framework():
    assert_named_and_leads("2722", ROW, "framework")


@pytest.mark.parametrize("text", [
    # the fixture's title (vladmandic/sdnext#3181, Linux Mint 21.3, ROCm 6.1.1)
    "[Issue]: NameError: name 'amdsmi' is not defined",
    # crystian/ComfyUI-Crystools#111 (ComfyUI, 2024-08): the first traceback's end
    "  File \"/home/rick/Documents/flux/venv/lib/python3.11/site-packages/torch/cuda/__init__.py\", line 639, in "
    "_raw_device_count_amdsmi\n    amdsmi.amdsmi_init()\n    ^^^^^^\nNameError: name 'amdsmi' is not defined\n",
    # pytorch/pytorch#127528's description (the except clause's own NameError)
    "    except amdsmi.AmdSmiException as e:\nNameError: name 'amdsmi' is not defined\n",
    # AUTOMATIC1111/stable-diffusion-webui#15874 (ROCm 6.1 nightly, 2024-05)
    "NameError: name 'amdsmi' is not defined\n\nDuring handling of the above exception, another exception occurred:\n",
])
def test_the_amdsmi_row_reads_torchs_unbound_name(text):
    assert ROW in _ids(text)
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("text", [
    # torch's own warning when amdsmi is importable but cannot initialise (ROCm/ROCm#5000): another row's
    "/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:736: UserWarning: Can't initialize amdsmi - Error code: 34",
    "ModuleNotFoundError: No module named 'amdsmi'",
    "NameError: name 'amdsmi_init' is not defined",
    "NameError: name 'torch_directml' is not defined",
])
def test_the_amdsmi_row_leaves_other_lines(text):
    assert ROW not in _ids(text)


@pytest.mark.parametrize("text,python,kernel", [
    # 2720's file log (vladmandic/sdnext#2544, Gentoo)
    ("2023-11-23 21:20:52,878 | sd | INFO | installer | Python 3.11.5 on Linux\n"
     "2023-11-23 21:20:53,394 | sd | INFO | launch | Platform: arch=x86_64 cpu=Intel(R) Core(TM) i5-10600K CPU @ "
     "4.10GHz system=Linux release=6.1.57-gentoo python=3.11.5\n", "3.11.5", "6.1.57-gentoo"),
    # vladmandic/sdnext#1973's console and file log of 2023-08-12 (Ubuntu 20.04.5)
    ("14:06:56-786013 INFO     Python 3.10.12 on Linux                                \n", "3.10.12", None),
    ("2023-08-12 14:06:56,786 | sd | INFO | installer | Python 3.10.12 on Linux\n", "3.10.12", None),
    # vladmandic/sdnext#4101 (Windows, 2025): the platform line wrapped before release=, so no kernel
    ("05:03:51-285638 INFO     Platform: arch=AMD64 cpu=AMD64 Family 23 Model 113 Stepping 0, AuthenticAMD system=Windows\n"
     "                         release=Windows-10-10.0.26100-SP0 python=3.10.6 locale=('English_United States', '1252')\n",
     None, None),
])
def test_sdnexts_start_up_lines_name_python_and_kernel(text, python, kernel):
    facts = paste_facts.parse(text)
    assert facts.app_pythons == ([python] if python else [])
    assert facts.kernel_lines == ([kernel] if kernel else [])


@pytest.mark.parametrize("text", [
    "Running Python 3.10.12 on Linux",                                   # no log level before it
    "DEBUG    Python 3.10.12 on Linux",                                  # not SD.Next's INFO line
    "INFO     Platform: arch=AMD64 cpu=AMD64 system=Windows release=10 python=3.10.6",  # Windows: no kernel
])
def test_other_python_lines_are_not_sdnexts(text):
    facts = paste_facts.parse(text)
    assert facts.kernel_lines == []
    if "Windows" not in text:
        assert facts.app_pythons == []
