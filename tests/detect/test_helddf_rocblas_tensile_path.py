"""Held-out set DF (2126): detection reports rocBLAS's Tensile read failure when the paste quotes the line without
its 'rocBLAS error: ' prefix -- the file it names under a rocblas/library directory is rocBLAS's own
(ROCm/rocBLAS library/src/tensile_host.cpp, TensileHost::initialize)."""
from __future__ import annotations

from rocm_wizard.detect import error_signatures


def _ids(text):
    return {s.id for s, _ in error_signatures.scan(text)}


def test_prefixless_rocblas_line_is_read():
    line = ("ocBLAS error: Cannot read /home/u/venv/lib/python3.12/site-packages/torch/lib/rocblas/library/"
            "TensileLibrary.dat: Illegal seek\n")
    assert "rocblas_tensile_cannot_read" in _ids(line)


def test_another_librarys_directory_is_not_rocblas():
    line = "Cannot read /opt/rocm/lib/hipblaslt/library/TensileLibrary_lazy_gfx1201.dat: No such file or directory\n"
    assert "rocblas_tensile_cannot_read" not in _ids(line)
