"""Held-out set AN (tests/data/real/1085, 1086): two readers of pasted outputs.
hipInfo's device name ('Name: AMD Radeon(TM) RX 6400' before its 'gcnArchName: gfx1034', hip-tests'
samples/1_Utils/hipInfo/hipInfo.cpp) is the name of the GPU whose target that line gives; and a one-liner's print()
calls ('print(torch.__version__); print(torch.version.hip)') give the bare lines after it their meaning, in order,
with the user's prose between them skipped.  Near-misses must not be read."""
from __future__ import annotations

from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import fixture


def _gpus(text):
    return [(g.how, g.name, g.gfx_target) for g in paste_facts.parse(text).gpus]


def test_hipinfo_name_of_the_fixture():
    text = (fixture("1085") / "hipinfo.txt").read_text(encoding="utf-8")
    assert ("hipinfo", "AMD Radeon(TM) RX 6400", "gfx1034") in _gpus(text)


def test_hipinfo_name_in_its_own_wide_format():
    text = ("device#                           0\n"
            "Name:                             AMD Radeon RX 9070 XT\n"
            "pciBusID:                         3\n"
            "multiProcessorCount:              32\n"
            "gcnArchName:                      gfx1201\n")
    assert ("hipinfo", "AMD Radeon RX 9070 XT", "gfx1201") in _gpus(text)


def test_two_hipinfo_devices_keep_their_own_names():
    text = ("device#                           0\nName:                             AMD Radeon RX 7900 XTX\n"
            "gcnArchName:                      gfx1100\n"
            "device#                           1\nName:                             AMD Radeon(TM) Graphics\n"
            "gcnArchName:                      gfx1036\n")
    got = _gpus(text)
    assert ("hipinfo", "AMD Radeon RX 7900 XTX", "gfx1100") in got
    assert ("hipinfo", "AMD Radeon(TM) Graphics", "gfx1036") in got


def test_rocminfo_agent_names_are_not_hipinfo_names():
    # rocminfo: a CPU agent's name and a GPU agent's gfx name; no gcnArchName line follows
    text = ("  Name:                    AMD Ryzen 9 7950X 16-Core Processor\n"
            "  Marketing Name:          AMD Ryzen 9 7950X 16-Core Processor\n"
            "  Name:                    gfx1100\n"
            "  Marketing Name:          AMD Radeon RX 7900 XTX\n")
    assert not [g for g in _gpus(text) if g[0] == "hipinfo"]


def test_a_name_without_its_arch_line_is_not_read_as_hipinfo():
    assert not [g for g in _gpus("Name: AMD Radeon RX 7900 XTX\nmajor: 11\n") if g[0] == "hipinfo"]


def _torch(text):
    return paste_facts.parse(text).torch


def test_one_liner_versions_of_the_fixture():
    text = (fixture("1086") / "report.txt").read_text(encoding="utf-8")
    assert ("2.9.1+rocmsdk20260116", "7.2.26024-f6f897bd3d") in _torch(text)


def test_one_liner_versions_right_after_the_command():
    text = ('$ python -c "import torch; print(torch.__version__); print(torch.version.hip)"\n'
            "2.10.0+rocm7.12.0a20260218\n6.4.43482-0f2d60242\n")
    assert ("2.10.0+rocm7.12.0a20260218", "6.4.43482-0f2d60242") in _torch(text)


def test_a_cuda_version_printed_second_is_not_hips():
    text = ('python -c "import torch; print(torch.__version__); print(torch.version.cuda)"\n'
            "2.10.0+cu128\n12.8\n")
    assert all(hip is None for _v, hip in _torch(text))


def test_a_bare_hip_like_line_without_the_command_is_not_read():
    assert _torch("2.9.1+rocmsdk20260116\n7.2.26024-f6f897bd3d\n") in ([], [("2.9.1+rocmsdk20260116", None)])
