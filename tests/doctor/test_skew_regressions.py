"""The regressions of set Q's families (s8-heldq, catalog/data/regressions.toml): ROCm 7.14's native packages
without a loader path, and TheRock's 7.12-7.14 wheels with a second amd-smi library in the process.  Symptom
lines are real (fixtures 670, 671); the versions are as rocminfo's neighbours and torch print them."""
from __future__ import annotations

from pathlib import Path

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.doctor import diagnose
from rocm_wizard.doctor.model import PROBLEM_SEVERITIES

ROCMINFO = "  Name:                    gfx1151\n  Marketing Name:          AMD Radeon Graphics\n  Device Type:             GPU\n"
# real: ggml-org/llama.cpp#25807
LOADER = ("./llama-fit-params: error while loading shared libraries: libhipblas.so.3: cannot open shared object file: "
          "No such file or directory\n")
# real: pytorch/pytorch#186516
INVALID = "AssertionError: Invalid device id\n"


def _diag(tmp_path: Path, files: dict):
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return diagnose(detect_snapshot(str(tmp_path)))


def _regressions(diag):
    return [f for f in diag.findings if f.id == "known-regression" and f.severity in PROBLEM_SEVERITIES]


def test_rocm_7_14_native_packages_without_a_loader_path(tmp_path):
    (tmp_path / "a").mkdir()
    diag = _diag(tmp_path / "a", {"rocminfo.txt": ROCMINFO, "run.txt": LOADER,
                                  "dpkg.txt": "ii  amdrocm-core7.14  7.14.0-1  amd64  ROCm core\nii  rocm-core  7.14.0.70140-1~24.04  amd64  ROCm core\n"})
    found = _regressions(diag)
    assert found and "rocm-7.14-native-packages-no-loader-path" in " ".join(found[0].evidence), [f.evidence for f in found]
    assert found[0].layer == "packaging"
    (tmp_path / "b").mkdir()
    older = _diag(tmp_path / "b", {"rocminfo.txt": ROCMINFO, "run.txt": LOADER,
                                   "dpkg.txt": "ii  rocm-core  7.2.1.70201-81~24.04  amd64  ROCm core\n"})
    assert not any("rocm-7.14-native" in " ".join(f.evidence) for f in _regressions(older))


def test_therock_wheels_with_a_second_smi_library(tmp_path):
    (tmp_path / "a").mkdir()
    diag = _diag(tmp_path / "a", {"rocminfo.txt": ROCMINFO, "run.txt": INVALID,
                                  "pip.txt": "torch==2.12.0+rocm7.14.0a20260519\namdsmi==26.2.0\n"})
    found = [f for f in _regressions(diag) if "rocm-7.12-7.14-wheels-duplicate-smi-library" in " ".join(f.evidence)]
    assert found and found[0].layer == "framework"
    (tmp_path / "b").mkdir()
    other = _diag(tmp_path / "b", {"rocminfo.txt": ROCMINFO, "run.txt": INVALID,
                                   "pip.txt": "torch==2.9.1+rocm6.4\n"})
    assert not any("duplicate-smi" in " ".join(f.evidence) for f in _regressions(other))
