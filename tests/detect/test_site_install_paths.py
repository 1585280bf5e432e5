"""(s25) A ROCm release read from a site install's path (parsers/install_paths.py): clusters install one folder per
release and load it with a module.  Each path below is from a real paste (tests/data/real, the folder named); the
near-misses are what a release-named folder also is in pastes: a URL's path, a container layer, a source or download
folder, a relative path."""
from __future__ import annotations

from pathlib import Path

import pytest

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import install_paths

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


@pytest.mark.parametrize("text,ver,folder", [
    # gdb's frame of a HIP runtime loaded from a site tree (3371, ROCm/flash-attention#120)
    ("#0  0x00007fffed1a1a4c in ?? () from /software/rocm/6.3.2/lib/libamdhip64.so", "6.3.2", "/software/rocm/6.3.2"),
    # hipcc's clang report on a cluster (1842: InstalledDir of the module's tree)
    ("InstalledDir: /mpcdf/soft/RHEL_9/packages/x86_64/rocm/6.3.0/lib/llvm/bin", "6.3.0",
     "/mpcdf/soft/RHEL_9/packages/x86_64/rocm/6.3.0"),
    # a compiler's include folder in a build line (the corpus's -I/lus/home/softs/rocm/6.0.0/lib)
    ("-I/lus/home/softs/rocm/6.0.0/lib", "6.0.0", "/lus/home/softs/rocm/6.0.0"),
    # a release folder named rocm-X outside /opt (the corpus's /apps/spack-managed/rocm-7.2/)
    ("export PATH=/apps/spack-managed/rocm-7.2/bin:$PATH", "7.2", "/apps/spack-managed/rocm-7.2"),
])
def test_a_site_install_path_names_its_release(tmp_path, text, ver, folder):
    assert install_paths.named_paths(text)[0] == {ver: folder}
    (tmp_path / "log.txt").write_text(text + "\n")
    r = detect_snapshot(str(tmp_path)).rocm
    assert r.version == ver and folder in r.sources["version"]


@pytest.mark.parametrize("text", [
    "https://repo.radeon.com/rocm/6.3.2/lib/x",  # a URL's path
    "/var/lib/docker/overlay2/ab12/merged/software/rocm/6.3.2/lib/libamdhip64.so",  # a container's layer
    "cd build/rocm/6.3.2/lib",  # a relative path
    "tar xf rocm-6.4.1.tar.gz -C /home/u/downloads/rocm-6.4.1/",  # a download folder, no installed tree's folder after
    "/home/u/src/rocm-6.4.1/docs/index.md",  # a source checkout's docs
    "/software/rocm/latest/lib/libamdhip64.so",  # no release named
])
def test_not_a_site_install(text):
    assert install_paths.named_paths(text)[0] == {}


def test_a_site_tree_beside_an_opt_tree_gives_none_and_names_both(tmp_path):
    (tmp_path / "ldd.txt").write_text("libamdhip64.so.6 => /opt/rocm-6.4.1/lib/libamdhip64.so.6 (0x1)\n"
                                      "libhsa-runtime64.so.1 => /software/rocm/6.3.2/lib/libhsa-runtime64.so.1 (0x2)\n")
    r = detect_snapshot(str(tmp_path)).rocm
    assert r.version is None
    assert any("/opt/rocm-6.4.1" in n and "/software/rocm/6.3.2" in n for n in r.notes)


def test_fixture_3371_reads_the_site_release():
    r = detect_snapshot(str(next(REAL.glob("3371-*")))).rocm
    assert r.version == "6.3.2" and "/software/rocm/6.3.2" in r.sources["version"]


def test_site_scan_is_linear():
    import time

    hostile = ("/rocm/" + "a" * 150) * 30000 + ("/x/rocm-1.2/lib" * 20000)
    t0 = time.perf_counter()
    install_paths.named_paths(hostile)
    assert time.perf_counter() - t0 < 2.0
