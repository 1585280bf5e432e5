"""A native Windows host from a paste's output-shaped signs; WSL and Linux pastes stay as they are."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rocm_wizard.detect.windows_facts import windows_sign

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


@pytest.mark.parametrize("text,kind", [
    ("Microsoft Windows [Version 10.0.26100.4351]\n(c) Microsoft Corporation.", "windows_version"),
    ("OS Name:                   Microsoft Windows 11 Pro\nOS Version: 10.0.22631 N/A Build 22631", "systeminfo"),
    ("PS C:\\Users\\me\\ComfyUI> python main.py", "prompt"),
    ("(venv) C:\\AI\\sdnext>webui.bat --use-rocm", "prompt"),
    ('  File "C:\\Users\\me\\venv\\Lib\\site-packages\\torch\\cuda\\__init__.py", line 372', "path"),
    ("Windows fatal exception: access violation\n\nThread 0x00001f44", "fatal_exception"),
    (" #1 at::cuda::_int_mm() (torch_hip.dll+0x2646a6d)", "dll_frame"),
    ("torch-2.9.1+rocm7.10.0-cp312-cp312-win_amd64.whl", "wheel_tag"),
    ("### Environment\n- OS: Windows 11\n- GPU: RX 7600 XT", "issue_form"),
    ("**Operating System**: Microsoft Windows 10 Pro", "issue_form"),
    # (s23) any drive-letter path of two names or more, as the corpus's Windows pastes print them: hip-tests' error
    # location (1080), Unsloth Studio's install folder (1260), ggml's CUDA error location under ZLUDA (2311),
    # Ollama's model path (2494), MIOpen's log file behind a CI runner's host name (2604)
    ('HIP API error = 0100 "no ROCm-capable device is detected" from file <S:\\gitroot\\rocm\\TheRock\\rocm-systems\\'
     'projects\\hip-tests\\samples\\1_Utils\\hipInfo\\hipInfo.cpp:202>', "drive_path"),
    ("                 C:\\Users\\Ghosh Dastidar\\.unsloth\\studio\\unsloth_studio", "drive_path"),
    ("  current device: 0, in function ggml_cuda_op_mul_mat_cublas at C:\\llamaZLUDA\\llama.cpp\\ggml\\src\\ggml-cuda"
     "\\ggml-cuda.cu:1333", "drive_path"),
    ('level=INFO source=sched.go:701 msg="new model will fit in available VRAM in single GPU, loading" '
     "model=C:\\Users\\Administrator\\.ollama\\models\\blobs\\sha256-6a0746a1ec1a", "drive_path"),
    ("Buffered 1 messages to file: CHRN-SI-109:C:\\windows\\SystemTemp\\miopen_error_3600.log", "drive_path"),
    ("OSError: [WinError 126] Error loading 'E:\\\\AI\\\\ComfyUI\\\\torch\\\\lib\\\\caffe2_nvrtc.dll'", "path"),
])
def test_windows_signs(text, kind):
    assert windows_sign(text)[0] == kind


@pytest.mark.parametrize("text", [
    "I dual-boot Windows 11 and Ubuntu 24.04; on Linux rocminfo shows no agent.",
    "OS: Windows 11 with WSL2 Ubuntu 24.04",
    "OS: Ubuntu 24.04 (I also tried Windows)",
    "see https://example.org/a:b for Windows notes",
    "/home/me/venv/lib/python3.12/site-packages/torch/__init__.py",
    "torch-2.9.1+rocm6.4-cp312-cp312-manylinux_2_28_x86_64.whl",
    # (s23) a drive letter with one name or none, a path inside a URL or a Linux path, a UNC share: not the drive_path sign
    "copied the model to D:\\models first",
    "C:\\ is full",
    "see https://example.org/C:\\a\\b",
    "/mnt/c/Users/me/x.gguf and /home/me/a:\\b\\c",
    "\\\\server\\share\\models\\x.gguf",
])
def test_near_misses(text):
    assert windows_sign(text) is None


def _detect(name):
    (d,) = [p for p in REAL.iterdir() if p.name.split("-", 1)[0] == name and p.is_dir()]
    out = subprocess.run([sys.executable, "-m", "rocm_wizard", "detect", "--snapshot", str(d), "--json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["os"]


@pytest.mark.parametrize("fixture", ["1147", "1023", "441", "1020"])
def test_real_windows_fixtures(fixture):
    os_ = _detect(fixture)
    assert os_["windows_native"] is True and os_["sources"]["windows_native"].startswith("paste:")


@pytest.mark.parametrize("fixture", ["423"])
def test_wsl_stays_wsl(fixture):
    os_ = _detect(fixture)
    assert os_["wsl"] is True and os_.get("windows_native") is None
