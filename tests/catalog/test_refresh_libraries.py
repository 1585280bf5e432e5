"""Issue 30: ``catalog refresh`` reads kernel coverage per bundled library from a wheel's zip
directory.  The wheels here are small synthetic zips laid out like the real ROCm torch wheels
(``torch/lib/rocblas/library/TensileLibrary_lazy_gfxNNN.dat``, ``torch/lib/hipblaslt/library/...``,
``torch/lib/miopen/db/gfxNNN*.kdb``, ``torch/lib/aotriton.images/amd-gfxNNN/...``): a rocm6.4-era
build whose MIOpen still names gfx906 while its rocBLAS has no Tensile kernels for it
(pytorch/pytorch#179865, ROCm/legacy-rocm-build#4625)."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

from rocm_wizard.catalog.refresh_parse import (gfx_from_members, library_gaps, wheel_libraries, zip_entries,
                                               zip_tail_directory)

REPO = Path(__file__).resolve().parents[2]


def _wheel_like(rocblas, hipblaslt, miopen, aotriton) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("torch/__init__.py", "")
        z.writestr("torch/lib/libtorch_hip.so", b"\0" * 64)
        for g in rocblas:
            z.writestr(f"torch/lib/rocblas/library/TensileLibrary_lazy_{g}.dat", b"x")
            z.writestr(f"torch/lib/rocblas/library/Kernels.so-000-{g}.hsaco", b"x")
        for g in hipblaslt:
            z.writestr(f"torch/lib/hipblaslt/library/TensileLibrary_HH_{g}.co", b"x")
        for g in miopen:
            z.writestr(f"torch/lib/miopen/db/{g}.kdb", b"x")
        for g in aotriton:
            z.writestr(f"torch/lib/aotriton.images/amd-{g}/flash/attn_fwd.aks2", b"x")
        z.writestr("torch-2.8.0+rocm6.4.dist-info/METADATA", b"Name: torch\n")
    return buf.getvalue()


def _members(blob: bytes):
    """The member names as `catalog refresh` reads them: the tail, then the central directory."""
    off, size = zip_tail_directory(blob[-(65536 + 22):], len(blob))
    return [e.name for e in zip_entries(blob[off:off + size])]


def test_per_library_targets_and_the_required_librarys_gaps():
    blob = _wheel_like(rocblas=["gfx908", "gfx90a", "gfx942", "gfx1100"],
                       hipblaslt=["gfx90a-xnack-", "gfx90a-xnack+", "gfx942", "gfx1100"],
                       miopen=["gfx906_60", "gfx90a6e", "gfx942130", "gfx1100_48"],
                       aotriton=["gfx90a", "gfx942", "gfx1100"])
    names = _members(blob)
    libs = wheel_libraries(names)
    assert libs["rocBLAS"] == ["gfx1100", "gfx908", "gfx90a", "gfx942"]
    assert libs["hipBLASLt"] == ["gfx1100", "gfx90a:xnack+", "gfx90a:xnack-", "gfx942"]  # exact targets
    assert "gfx906" in libs["MIOpen"] and libs["AOTriton"] == ["gfx1100", "gfx90a", "gfx942"]
    # the union (what refresh used to call the wheel's targets) names gfx906; rocBLAS lacks it
    assert "gfx906" in gfx_from_members(names)
    assert library_gaps(names) == {"rocBLAS": ["gfx906"]}


def test_a_wheel_whose_libraries_agree_has_no_gaps_and_one_without_rocblas_says_nothing():
    blob = _wheel_like(["gfx906", "gfx1100"], ["gfx1100"], ["gfx906_60", "gfx1100_48"], [])
    assert library_gaps(_members(blob)) == {}  # hipBLASLt's fallback is rocBLAS: not a gap
    blob = _wheel_like([], ["gfx1100"], ["gfx906_60"], [])  # user space from the rocm pip wheels
    assert library_gaps(_members(blob)) == {}


def test_a_learnt_gap_reaches_the_resolver_through_the_overlay(tmp_path):
    overlay = tmp_path / "catalog-overlay.json"
    overlay.write_text(json.dumps({
        "schema": "rocm-wizard-catalog-overlay/1", "created": "2026-11-26T00:00:00Z", "sources": {},
        "torch_indexes": {}, "docker_tags": [], "rocm_releases": [],
        "torch": [{"version": "2.16.0", "index": "rocm7.2", "python_tags": ["cp312"], "torchvision": "0.31.0",
                   "torchaudio": "2.11.0", "source": "https://mirror.test/whl/rocm7.2/torch-2.16.0.whl",
                   "gfx": ["gfx1100", "gfx906", "gfx90a"], "gfx_method": "wheel-directory",
                   "library_gaps": {"rocBLAS": ["gfx90a"]}}]}))
    code = ("from rocm_wizard.catalog import wheels\n"
            "print(wheels.wheel_has_gfx('2.16.0', 'rocm7.2', 'gfx90a'), wheels.wheel_has_gfx('2.16.0', 'rocm7.2', 'gfx1100'),"
            " [(g.library, g.torch, g.status) for g in wheels.libraries_lacking('2.16.0', 'rocm7.2', 'gfx90a')],"
            " wheels.wheel_has_gfx('2.13.0', 'rocm7.2', 'gfx90a'))\n")
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), ROCM_WIZARD_CATALOG_OVERLAY=str(overlay))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    # the learnt gap is this release's alone: 2.13.0 on the same index keeps gfx90a
    assert p.stdout.strip() == "False True [('rocBLAS', ('2.16.0',), 'observed')] True"
