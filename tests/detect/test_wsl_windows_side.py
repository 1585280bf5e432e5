"""The Windows side of WSL as pastes tell it (the host's release and build, the Adrenalin version, the DXG
switch shown set, the release apt lines name, a torch/lib listing), and the prose that says WSL.

Shapes from real reports (tests/data/real/42x: ROCm/librocdxg#35, legacy-rocm-build#6323, #5509, #4215)."""
from rocm_wizard.detect.parsers import wsl


def test_windows_release_from_the_build_number():
    assert wsl.windows_host("Running in WSL2 on Windows 10.0.19045.7291") == wsl.WindowsHost("10", "19045", "Running in WSL2 on Windows 10.0.19045.7291")
    h = wsl.windows_host("Windows version: Windows 10 Pro 22H2 (OS Build 19045.6456)")
    assert (h.release, h.build) == ("10", "19045")
    h = wsl.windows_host("And from host Windows 11:\nOS Version 10.0.26100\n")
    assert (h.release, h.build) == ("11", "26100")
    h = wsl.windows_host("# Windows\n10.0.22631\nAMD Ryzen 7 5800X3D")
    assert (h.release, h.build) == ("11", "22631")


def test_named_release_without_a_build():
    h = wsl.windows_host("My windows  is win11 23H2,  wsl kernel is 5.15.153.1-microsoft-standard-WSL2.")
    assert (h.release, h.build) == ("11", None)
    assert wsl.windows_host("GPU drivers are 24.12.1 and windows 11OS").release == "11"


def test_the_windows_sdk_path_is_not_the_host():
    text = "export win_sdk='/mnt/c/Program Files (x86)/Windows Kits/10/Include/10.0.28000.0/'"
    assert wsl.windows_host(text) is None
    both = text + "\nRunning in WSL2 on Windows 10.0.19045.7291\n"
    assert wsl.windows_host(both).release == "10"


def test_adrenalin_newest_of_those_named():
    text = "AMD Windows driver tested:\n\nAdrenalin 26.5.2 (standard game-ready)\n\nAdrenalin 26.2.2 (the version that introduced ROCDXG)\n"
    assert wsl.adrenalin(text)[0] == "26.5.2"
    assert wsl.adrenalin("GPU drivers are 24.12.1 and windows 11OS")[0] == "24.12.1"
    assert wsl.adrenalin("I'm running driver version 25.3.1 on Windows.")[0] == "25.3.1"
    assert wsl.adrenalin("AMD Software: PRO Edition Version 24.20.36") is None  # another numbering
    assert wsl.adrenalin("amdgpu driver 6.8.5 loaded") is None


def test_dxg_switch_shown_set():
    assert wsl.dxg_switch_set("Checking printenv HSA_ENABLE_DXG_DETECTION it prints 1 as expected.")
    assert wsl.dxg_switch_set("export HSA_ENABLE_DXG_DETECTION=1")
    assert wsl.dxg_switch_set("is HSA_ENABLE_DXG_DETECTION set?") is None
    assert wsl.dxg_switch_set("HSA_ENABLE_DXG_DETECTION=0") is None


def test_release_from_repository_lines():
    text = ("Hit:3 https://repo.radeon.com/amdgpu/30.10.2/ubuntu noble InRelease\n"
            "Hit:4 https://repo.radeon.com/rocm/apt/7.0.2 noble InRelease\n")
    assert wsl.repo_release(text) == "7.0.2"  # the amdgpu driver repository's 30.10.2 is not a ROCm release
    assert wsl.repo_release("https://repo.radeon.com/amdgpu-install/7.0.2/ubuntu/noble/amdgpu-install_7.0.2.70002-1_all.deb") == "7.0.2"
    assert wsl.repo_release("deb https://repo.radeon.com/rocm/apt/6.3.4/ noble main") == "6.3.4"
    assert wsl.repo_release("deb https://repo.radeon.com/rocm/apt/latest noble main") is None


def test_torch_lib_listing():
    assert wsl.torch_bundled_hsa("$ ls venv/lib/python3.12/site-packages/torch/lib/libhsa-runtime64.so*\n"
                                 "venv/lib/python3.12/site-packages/torch/lib/libhsa-runtime64.so\n")
    assert wsl.torch_bundled_hsa("/opt/rocm/lib/libhsa-runtime64.so.1") is None


def test_prose_that_says_wsl():
    assert wsl.wsl_said("Im trying to install ComfyUI in WSL2 im following this tutorial")
    assert wsl.wsl_said("Ubuntu 24.04 WSL2 environment")
    assert wsl.wsl_said("no WSL here, native Ubuntu") is None
