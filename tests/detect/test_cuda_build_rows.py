"""(s25) A Python package's CUDA build on an AMD machine (failures.toml ``s25_cuda_library_missing_on_import``): the
loader's 'cannot open shared object file' for one of NVIDIA CUDA's runtime libraries, raised through Python's import
or ctypes.  The generic rows read any missing library as a ROCm one and offer a torch reinstall; this one says the
package's build is the problem and offers no torch reinstall.  ZLUDA's stand-ins for NVIDIA's driver library are not
read as such a failure (its users run CUDA builds on purpose).  The torchcodec row reads torch's load_library refusal of
a torchcodec library too (3570)."""
from __future__ import annotations

from pathlib import Path

import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.doctor import diagnose
from rwtest.heldout import ids

ROW = "s25_cuda_library_missing_on_import"
REAL = Path(__file__).resolve().parents[1] / "data" / "real"


@pytest.mark.parametrize("line", [
    "OSError: libcudart.so.12: cannot open shared object file",  # 1667, paddlepaddle-gpu
    "OSError: libcublas.so.10: cannot open shared object file: No such file or directory",  # 2962, onnxruntime-gpu
    "OSError: libnvrtc.so.13: cannot open shared object file: No such file or directory",  # 3570, torchcodec's CUDA wheel
    # the same loader message through an import, with the library's path (the form Python/dynload_shlib.c raises)
    "ImportError: /home/u/venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn_graph.so.9: cannot open shared "
    "object file: No such file or directory",
])
def test_the_row_reads_a_cuda_librarys_absence(line):
    assert ROW in ids(line)
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("line", [
    # a ROCm library: the generic rows' case
    "OSError: libamdhip64.so.6: cannot open shared object file: No such file or directory",
    "ImportError: libMIOpen.so.1: cannot open shared object file: No such file or directory",
    # ZLUDA's stand-in for NVIDIA's driver library (patientx/ComfyUI-Zluda#400) and Linux's libcuda.so
    "ERROR: Could not load DLL: Could not find module 'D:\\ComfyZ\\zluda\\nvcuda.dll' (or one of its dependencies). "
    "Try using the full path with constructor syntax.",
    "OSError: libcuda.so.1: cannot open shared object file: No such file or directory",
    # TensorFlow's warning that it falls back to the CPU (its own dso_loader line, no exception)
    "2022-06-22 15:44:53.578885: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic "
    "library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory",
])
def test_near_misses(line):
    assert ROW not in ids(line)


@pytest.mark.parametrize("num", ["1667", "2962", "3570"])
def test_the_finding_names_the_packages_build_and_offers_no_torch_reinstall(num):
    d = diagnose(detect_snapshot(str(next(REAL.glob(num + "-*")))))
    f = d.finding("known-failure")
    assert f is not None and f.layer == "framework"
    assert any(ROW in e for e in f.evidence)
    assert "ROCm build" in f.fix and f.path != "torch-reinstall"


def test_torchcodec_row_reads_torchs_load_library_refusal():
    line = "OSError: Could not load this library: /opt/venv/lib/python3.12/site-packages/torchcodec/libtorchcodec_core4.so"
    assert "s25_torchcodec_cannot_load" in ids(line)  # (3570's line, m-bain/whisperX#566)
    assert "s25_torchcodec_cannot_load" not in ids("OSError: Could not load this library: /opt/x/libfoo.so")
