"""(s14-detect) Detection gaps on pasted systems, each read from the printing program's own format:

* a ROCm release from the versioned install paths a paste shows (``/opt/rocm-6.4.0/bin/amdclang``, ldd, traceback
  frames, ``LD_LIBRARY_PATH``, CMake, ``rocm -> /opt/rocm-X``): AMD's multi-version layout
  (ROCm/rocm-install-on-linux multi-version-install-ubuntu.rst); fixture 1483 (HELDOUT.md set BH);
* a native Windows host from Windows paths whose directory names hold spaces (``C:\\Program Files\\AMD\\ROCm\\6.2``,
  the HIP SDK installer's default: ROCm/rocm-install-on-windows docs/install/install.rst); fixture 1482 (set BH);
* a TheRock torch environment from its install command (ROCm/TheRock RELEASES.md,
  docs/packaging/legacy_per_family_releases.md; families from cmake/therock_amdgpu_targets.cmake); fixture 1460
  (set BG).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import install_command as ic
from rocm_wizard.detect.parsers import install_paths
from rocm_wizard.detect.windows_facts import windows_sign
from rocm_wizard.doctor import diagnose

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
EXTRACT = Path(__file__).resolve().parents[1] / "data" / "therock" / "therock_amdgpu_targets.extract.cmake"


def _fixture(num: str) -> Path:
    return next(REAL.glob(num + "-*"))


def _snap(tmp_path: Path, **files: str):
    for name, text in files.items():
        (tmp_path / (name + ".txt")).write_text(text, encoding="utf-8")
    return detect_snapshot(str(tmp_path))


# ------------------------------------------------------------------ 1. ROCm release from install paths

def test_fixture_1483_release_from_which_amdclang():
    s = detect_snapshot(str(_fixture("1483")))
    assert s.rocm.version == "6.4.0"
    assert "install path /opt/rocm-6.4.0" in s.rocm.sources["version"]
    assert any("not necessarily" in n or "no package tool" in n for n in s.rocm.notes)


@pytest.mark.parametrize("text,ver", [
    # ldd of a HIP program (glibc's ldd: 'name => path (address)')
    ("\tlibamdhip64.so.6 => /opt/rocm-6.4.1/lib/libamdhip64.so.6 (0x00007f3c8a000000)", "6.4.1"),
    # a Python traceback frame
    ('  File "/opt/rocm-7.0.2/lib/python3/site-packages/amdsmi/amdsmi_interface.py", line 12, in <module>', "7.0.2"),
    # glibc backtrace frames as OpenMPI prints them (fixture 1320's shape)
    ("[host:08475] [ 4] /opt/rocm-6.4.3/lib/libhsa-runtime64.so.1(+0x2cce7)[0x7f0]", "6.4.3"),
    # an environment variable
    ("export LD_LIBRARY_PATH=/opt/rocm-7.2.0/lib:/opt/rocm-7.2.0/lib64:$LD_LIBRARY_PATH", "7.2.0"),
    # CMake's FindHIP / check of the HIP compiler
    ('-- Found HIP: /opt/rocm-6.4.1 (found version "6.4.43482-0")', "6.4.1"),
    ("-- Check for working HIP compiler: /opt/rocm-6.4.2/lib/llvm/bin/clang++ - skipped", "6.4.2"),
])
def test_release_from_an_install_path(tmp_path, text, ver):
    assert install_paths.rocm_release([text])[0] == ver
    assert _snap(tmp_path, log=text).rocm.version == ver


def test_several_trees_without_a_link_give_none(tmp_path):
    text = ("libamdhip64.so.7 => /opt/rocm-7.1.1/lib/libamdhip64.so.7 (0x1)\n"
            "libamd_smi.so => /opt/rocm-7.0.1/lib/libamd_smi.so (0x2)\n")
    assert install_paths.rocm_release([text]) == (None, ["7.1.1", "7.0.1"], [])
    s = _snap(tmp_path, ldd=text)
    assert s.rocm.version is None
    assert any("several ROCm trees" in n for n in s.rocm.notes)


def test_several_trees_and_the_opt_rocm_link_give_the_linked_one(tmp_path):
    text = ("$ ls -l /opt/rocm\nlrwxrwxrwx 1 root root 22 Jun  3 10:00 /opt/rocm -> /opt/rocm-6.4.1\n"
            "$ ls /opt\namdgpu  rocm  rocm-6.3.3  rocm-6.4.1\n"
            "ImportError: /opt/rocm-6.3.3/lib/libMIOpen.so.1: undefined symbol: x\n")
    ver, names, linked = install_paths.rocm_release([text])
    assert (ver, linked) == ("6.4.1", ["6.4.1"]) and set(names) == {"6.4.1", "6.3.3"}


def test_a_package_tool_wins_over_a_path(tmp_path):
    s = _snap(tmp_path, dpkg="ii  rocm-core  6.4.1.60401-83~24.04  amd64  ROCm Runtime software stack\n",
              log="libamdhip64.so.6 => /opt/rocm-6.3.0/lib/libamdhip64.so.6 (0x1)\n")
    assert s.rocm.version == "6.4.1"


@pytest.mark.parametrize("text", [
    # inside a container image's layer (the character before /opt is part of a name)
    "/var/lib/docker/overlay2/3f2a/merged/opt/rocm-6.4.1/lib/libamdhip64.so",
    # a URL's path, AMD's apt repository, an image tag
    "https://example.org/mirror/opt/rocm-6.4.1/lib/",
    "deb [arch=amd64] https://repo.radeon.com/rocm/apt/6.4 noble main",
    "docker pull rocm/dev-ubuntu-24.04:6.4.1-complete",
    # a bare directory name in prose, a version that runs on, no version
    "I removed rocm-6.4.1 last week", "/opt/rocm-6.4.1rc2/bin/hipcc", "/opt/rocm/lib/libamdhip64.so",
])
def test_not_an_install_path(tmp_path, text):
    assert install_paths.named_trees(text) == ([], [])
    assert _snap(tmp_path, log=text).rocm.version is None


def test_install_path_scan_is_linear():
    import time

    hostile = ("x/opt/rocm-" * 200000) + ("/opt/rocm-1." * 50000)
    t0 = time.perf_counter()
    install_paths.named_trees(hostile)
    assert time.perf_counter() - t0 < 2.0


# ------------------------------------------------------------------ 2. native Windows from Windows paths

def test_fixture_1482_is_native_windows():
    s = detect_snapshot(str(_fixture("1482")))
    assert s.os.windows_native is True and s.os.wsl is not True


@pytest.mark.parametrize("text", [
    r"C:\Program Files\AMD\ROCm\6.2\bin\hipcc.exe --version",
    r"'C:\Program Files\AMD\ROCm\6.1\bin\clang++.exe' exited with code 1",
    r"HIP_PATH=C:\Program Files\AMD\ROCm\6.2\ ",
    "PS C:\\> hipinfo",
    r'  File "C:\Users\me\AppData\Local\Programs\Python\Python312\Lib\site-packages\torch\__init__.py", line 141',
    r"C:\Program Files (x86)\Steam\steamapps\common\app\bin\amdhip64_6.dll",
])
def test_windows_paths_are_a_native_windows_sign(tmp_path, text):
    assert windows_sign(text) is not None
    assert _snap(tmp_path, log=text).os.windows_native is True


@pytest.mark.parametrize("files", [
    # a WSL session: the Windows drive under /mnt/c, a WSL kernel
    {"log": "$ ls /mnt/c/Program Files/AMD/ROCm/6.2/bin\nhipcc.exe\n$ uname -r\n5.15.167.4-microsoft-standard-WSL2\n"},
    {"log": "cp /mnt/c/Users/me/Downloads/amdgpu-install_6.1.60103-1_all.deb .\n"},
    # a Linux path with the same words, a URL
    {"log": "/home/me/Program Files/AMD/ROCm/6.2/bin/hipcc"},
    {"log": "see https://rocm.docs.amd.com/projects/install-on-windows/en/latest/ for the HIP SDK"},
])
def test_wsl_and_linux_paths_are_not_native_windows(tmp_path, files):
    assert _snap(tmp_path, **files).os.windows_native is not True


# ------------------------------------------------------------------ 3. TheRock environment from its install command

def _families_from_extract():
    fam = {}
    for m in re.finditer(r"^therock_add_amdgpu_target\((\w+)\s+\"[^\"]*\"\s+FAMILY\s+([^\n)]*)",
                         EXTRACT.read_text(encoding="utf-8"), re.M):
        for f in m.group(2).split():
            fam.setdefault(f.lower(), []).append(m.group(1))
    return fam


def test_family_table_is_therocks():
    assert {k: tuple(v) for k, v in _families_from_extract().items()} == ic.FAMILIES


def test_fixture_1460_device_extra_counts_as_kernels_for_the_gpu():
    s = detect_snapshot(str(_fixture("1460")))
    assert [t.device_gfx for t in s.torch] == [["gfx90c"]]
    ids = {f.id for f in diagnose(s).findings}
    assert "gfx-no-official-build" not in ids and "hsa-override-missing" not in ids


GFX1151_ROCMINFO = "  Name:                    gfx1151\n  Marketing Name:          AMD Radeon 8060S Graphics\n"


@pytest.mark.parametrize("cmd,want", [
    # the per-family index (legacy_per_family_releases.md), its staging copy, the old CloudFront host
    ("pip install --index-url https://rocm.nightlies.amd.com/v2/gfx1151/ torch torchaudio torchvision", ["gfx1151"]),
    ("uv pip install --index-url=https://rocm.nightlies.amd.com/v2-staging/gfx110X-all torch",
     ["gfx1100", "gfx1101", "gfx1102", "gfx1103"]),
    ("python -m pip install --pre -i https://d2awnip2yjpvqn.cloudfront.net/v2/gfx120X-all/ torch",
     ["gfx1200", "gfx1201"]),
    # the multi-arch index (RELEASES.md) with device extras, a continued command, PowerShell's backtick
    ('pip install --index-url https://rocm.nightlies.amd.com/whl-multi-arch/ \\\n    "torch[device-gfx1151]"',
     ["gfx1151"]),
    ('pip install --index-url https://repo.amd.com/rocm/whl-multi-arch/ `\n  "torch[device-gfx942]==2.12.0"',
     ["gfx942"]),
])
def test_install_command_targets(cmd, want):
    res = ic.parse(cmd)
    assert res.installed and [ic.targets(c) for c in res.commands] == [want]


def test_per_family_torch_command_covers_its_gpu(tmp_path):
    s = _snap(tmp_path, rocminfo=GFX1151_ROCMINFO,
              install="$ pip install --index-url https://rocm.nightlies.amd.com/v2/gfx1151/ torch torchvision\n"
                      "Successfully installed torch-2.9.0+rocm7.10.0a20251120 torchvision-0.24.0\n")
    assert any("gfx1151" in t.device_gfx for t in s.torch)
    assert "gfx-no-official-build" not in {f.id for f in diagnose(s).findings}


@pytest.mark.parametrize("files", [
    # pip failing in the same paste
    {"install": "pip install --index-url https://rocm.nightlies.amd.com/v2/gfx1151/ torch\n"
                "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\n"
                "ERROR: No matching distribution found for torch\n"},
    # uv failing, pasted apart from the command (fixture 1308's shape)
    {"cmd": "uv pip install --index-url=https://rocm.nightlies.amd.com/v2-staging/gfx1151 torch",
     "error": "  × No solution found when resolving dependencies:\n  ╰─▶ Because filelock was not found ...\n"},
    {"cmd": "uv pip install --index-url https://rocm.nightlies.amd.com/whl-multi-arch/ 'torch[device-gfx1151]'",
     "error": "error: Failed to download `torch==2.12.0`\n"},
])
def test_a_failed_install_is_no_environment(tmp_path, files):
    s = _snap(tmp_path, rocminfo=GFX1151_ROCMINFO, **files)
    assert not any("gfx1151" in t.device_gfx for t in s.torch)


@pytest.mark.parametrize("text,gfx", [
    # another program's "Failed to" is not the installer's failure
    ("pip install --index-url https://rocm.nightlies.amd.com/v2/gfx1151/ torch\n"
     "RuntimeError: Failed to load the MIOpen kernel database\n", "gfx1151"),
])
def test_another_programs_failure_keeps_the_environment(tmp_path, text, gfx):
    s = _snap(tmp_path, rocminfo=GFX1151_ROCMINFO, log=text)
    assert any(gfx in t.device_gfx for t in s.torch)


@pytest.mark.parametrize("text", [
    # PyTorch's own index, a CUDA index, a command that only names the index in prose, ROCm wheels without torch
    "pip install torch --index-url https://download.pytorch.org/whl/rocm6.4",
    "pip install torch --index-url https://download.pytorch.org/whl/cu128",
    "I tried https://rocm.nightlies.amd.com/v2/gfx1151/ in the browser and it lists torch",
    'pip install --index-url https://rocm.nightlies.amd.com/whl-multi-arch/ "rocm[libraries,device-gfx1151]"',
    # a family TheRock does not declare gives no target
    "pip install --index-url https://rocm.nightlies.amd.com/v2/gfx999X-all/ torch",
])
def test_not_a_therock_torch_environment(tmp_path, text):
    s = _snap(tmp_path, rocminfo=GFX1151_ROCMINFO, log=text)
    assert not any(t.device_gfx for t in s.torch if t.device_gfx and "gfx1151" in t.device_gfx)


def test_another_targets_device_extra_does_not_cover_the_gpu(tmp_path):
    # fixture 674's case: device-gfx1100 installed on a gfx1103 laptop
    s = _snap(tmp_path, rocminfo="  Name:                    gfx1103\n",
              log='pip install --index-url https://rocm.nightlies.amd.com/whl-multi-arch/ "torch[device-gfx1100]"')
    assert [t.device_gfx for t in s.torch] == [["gfx1100"]]
    assert diagnose(s) is not None


def test_install_command_parse_is_linear():
    import time

    hostile = "pip install --index-url https://rocm.nightlies.amd.com/v2/gfx1151/ " + "torch[" * 100000 + "\n"
    hostile += ("pip install \\\n" * 20000) + "ERROR: " * 10000
    t0 = time.perf_counter()
    ic.parse(hostile)
    assert time.perf_counter() - t0 < 2.0


def test_windows_path_with_spaces_stays_linear():
    import time

    for hostile in ("C:\\" + "a " * 200000, "C:\\a b c d e\\" * 40000, "x C:\\aa bb " * 50000):
        t0 = time.perf_counter()
        windows_sign(hostile)
        assert time.perf_counter() - t0 < 2.0
