"""The WSL 2 rules (doctor/wsl_rules.py) on real WSL pastes, each with the finding its thread's answer
names (`doctor_findings` in labels.toml; set W of HELDOUT.md), and on the single facts each rule
reads, with the cases where it must stay silent."""
from __future__ import annotations


import pytest
from rwtest import ci, realrun

from rwtest.heldout import doctor_files as _doctor

try:
    import tomllib  # type: ignore[import-not-found]
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

WSL_RULES = ("wsl-rdna2-unsupported", "wsl-gpu-unsupported", "wsl-adrenalin-too-old", "wsl-windows-release",
             "wsl-dxg-switch", "wsl-torch-own-hsa")


def _labelled():
    out = []
    for folder in ci.real_fixtures(labelled=True):
        with open(folder / "labels.toml", "rb") as fh:
            labels = tomllib.load(fh)
        if labels.get("doctor_findings"):
            out.append(pytest.param(folder, labels["doctor_findings"], id=folder.name.split("-", 1)[0]))
    return out


def _ids(diag):
    return {f.id for f in diag.findings}


@pytest.mark.parametrize("folder,expected", _labelled())
def test_real_wsl_pastes_get_the_experts_finding(folder, expected):
    diag = realrun.diagnosis(folder)
    assert set(expected) <= _ids(diag), sorted(_ids(diag))
    for f in diag.findings:
        if f.id in expected:
            assert f.evidence and f.sources


def test_the_set_has_each_kind():
    kinds = {k for p in _labelled() for k in p.values[1]}
    assert {"wsl-rdna2-unsupported", "wsl-gpu-unsupported", "wsl-windows-release", "wsl-dxg-switch",
            "wsl-torch-own-hsa"} <= kinds


FORM = ("### Problem Description\n\n{body}\n\n### Operating System\n\n{os}\n\n### GPU\n\n{gpu}\n\n"
        "### ROCm Version\n\nROCm {rocm}\n")


def _form(tmp_path, body, gpu, rocm, os_="Ubuntu 22.04 WSL2"):
    return _doctor(tmp_path, {"issue.txt": FORM.format(body=body, os=os_, gpu=gpu, rocm=rocm)})


def test_old_adrenalin_for_the_release(tmp_path):
    diag = _form(tmp_path, "rocminfo lists no GPU. I'm on Adrenalin 24.12.1.", "AMD Radeon RX 7900 XTX", "6.3.4")
    f = next(f for f in diag.findings if f.id == "wsl-adrenalin-too-old")
    assert any("25.3.1" in e for e in f.evidence) and "25.3.1" in f.fix


def test_driver_new_enough_or_librocdxg_release_says_nothing(tmp_path):
    assert "wsl-adrenalin-too-old" not in _ids(_form(_mk(tmp_path, "a"), "Adrenalin 25.3.1 installed.", "AMD Radeon RX 7900 XTX", "6.3.4"))
    # librocdxg's matrix names no driver version: no verdict
    assert "wsl-adrenalin-too-old" not in _ids(_form(_mk(tmp_path, "b"), "Adrenalin 24.1.1 installed.", "AMD Radeon RX 7900 XTX", "7.2.1"))


def _mk(tmp_path, name):
    d = tmp_path / name
    d.mkdir()
    return d


def test_gpu_rules_follow_the_release_and_the_product(tmp_path):
    # RX 7800 XT: not on 6.1.3's list, on 7.2's
    old = _form(_mk(tmp_path, "a"), "rocminfo: ROCR: unsupported GPU", "AMD Radeon RX 7800 XT", "6.1.3")
    new = _form(_mk(tmp_path, "b"), "rocminfo fails", "AMD Radeon RX 7800 XT", "7.2.1")
    assert "wsl-gpu-unsupported" in _ids(old) and "wsl-gpu-unsupported" not in _ids(new)
    f = next(f for f in old.findings if f.id == "wsl-gpu-unsupported")
    assert any("from ROCm 7.2" in e for e in f.evidence)
    # RX 7700 XT shares gfx1101 with the RX 7800 XT but is on no list
    never = _form(_mk(tmp_path, "c"), "rocminfo fails", "AMD Radeon RX 7700 XT", "7.2.1")
    assert any("none of AMD's WSL lists" in e for f in never.findings if f.id == "wsl-gpu-unsupported" for e in f.evidence)


def test_rdna2_is_its_own_finding(tmp_path):
    diag = _form(tmp_path, "rocminfo fails", "AMD Radeon RX 6900 XT", "6.4.2")
    assert "wsl-rdna2-unsupported" in _ids(diag) and "wsl-gpu-unsupported" not in _ids(diag)


def test_nothing_of_this_on_native_linux(tmp_path):
    diag = _form(tmp_path, "rocminfo fails. Adrenalin 24.1.1. Windows 10 (OS Build 19045)",
                 "AMD Radeon RX 6900 XT", "7.2.1", os_="Ubuntu 24.04")
    assert not (_ids(diag) & set(WSL_RULES))


def test_windows_11_or_6x_runtime_says_nothing(tmp_path):
    ok = _form(_mk(tmp_path, "a"), "Windows 11 Pro (OS Build 26100.1)", "AMD Radeon RX 9070 XT", "7.2.1")
    assert "wsl-windows-release" not in _ids(ok)
    # no Windows list is known for the 6.x runtime: no claim
    old = _form(_mk(tmp_path, "b"), "Windows 10 Pro (OS Build 19045.1)", "AMD Radeon RX 7900 XTX", "6.3.4")
    assert "wsl-windows-release" not in _ids(old)


def test_switch_set_or_10_1_default_says_nothing(tmp_path):
    assert "wsl-dxg-switch" in _ids(_form(_mk(tmp_path, "a"), "rocminfo lists only the CPU", "AMD Radeon RX 9070 XT", "7.2.1"))
    assert "wsl-dxg-switch" not in _ids(_form(_mk(tmp_path, "b"), "export HSA_ENABLE_DXG_DETECTION=1\nrocminfo lists only the CPU",
                                              "AMD Radeon RX 9070 XT", "7.2.1"))
    assert "wsl-dxg-switch" not in _ids(_form(_mk(tmp_path, "c"), "rocminfo lists only the CPU", "AMD Radeon RX 9070 XT", "10.1.0"))


def test_torch_own_hsa_needs_the_6x_runtime(tmp_path):
    body = "rocminfo works but torch.cuda.is_available() returns False"
    assert "wsl-torch-own-hsa" in _ids(_form(_mk(tmp_path, "a"), body, "AMD Radeon RX 7900 XTX", "6.4.2"))
    assert "wsl-torch-own-hsa" not in _ids(_form(_mk(tmp_path, "b"), body, "AMD Radeon RX 7900 XTX", "7.2.1"))
    assert "wsl-torch-own-hsa" not in _ids(_form(_mk(tmp_path, "c"), "rocminfo works", "AMD Radeon RX 7900 XTX", "6.4.2"))
