"""Held-out set IX (tests/data/real/3530-3533, HELDOUT.md): the newest AMD GPU threads the index holds (July-November
2026): TheRock's gfx950-dcgpu tests run on MI325X runners (HIP's 'invalid device function'), the Linux DLSS-NR-on-AMD
mod refusing an RX 9060 XT ('Error: Unsupported GPU. Bundled targets: ...'), comfyui-rocm on Windows with an RX Vega 64
whose HIP finds no device, and llama.cpp's first win-rocm-7.14 release listing no device.  On the unchanged code 3530
led at hip, 3531 had only a catch-all finding with no layer, 3532 led at runtime with torch's relay of the missing
device, 3533 led at framework (llama.cpp's empty list; the release's missing DLLs are told only in other threads:
MISSES).  The fixes:

* 3531: an application's refusal that lists the GPU targets its bundled kernels carry ("Bundled targets:", Ollama's
  "supported types:", LM Studio's "supported targets:", AITER's "Supported architectures:") is the application's own
  check: a row of the layer table (detect/failure_lines.toml) places it at framework.
* 3532 (and 350): torch's "no GPU" (is_available() False, "No HIP GPUs are available") is hipGetDeviceCount's count
  relayed (torch/cuda/__init__.py, c10/hip device_count_impl); when HIP's own no-device report is in the paste, the
  relay joins it at hip (doctor/matchers.py _torch_relays_hip_no_device), so HIP's line leads.
* 3532's gfx900: comfyui-rocm's installer (detect_gpu.py) prints "Matched GPU: <name>" then "Architecture: <family>
  (<gfx>)"; the paste parser reads the pair (detect/parsers/paste_facts.py)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import failure_lines
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import doctor_files, fixture as _fixture, lead_layer as _lead_layer, problems


@pytest.mark.parametrize("num,layer", [("3530", "hip"), ("3531", "framework"), ("3532", "hip")])
def test_the_set_ix_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("line", [
    # the fixture's line (guentra/DLSS-NR-on-AMD-Linux#1)
    "Error: Unsupported GPU. Bundled targets: gfx1100, gfx1101, gfx1102, gfx1201",
    # Ollama's discovery (ollama/ollama discover/amd_windows.go; real fixture 975) -- without Ollama's log prefix
    'msg="amdgpu is not supported (supported types:[gfx1103])" gpu_type=gfx1150 gpu=0',
    # LM Studio's ROCm engine (real fixture 3394)
    '"message": "No ROCm GPUs detected of supported targets: gfx1030, gfx1100, gfx1101, gfx1102, gfx1151"',
    # AITER's chip table under SGLang/GPUStack (gpustack/gpustack#3880; real fixture 1960)
    "Unknown GPU architecture: gfx1151. Supported architectures: ['native', 'gfx90a', 'gfx908', 'gfx942']",
])
def test_an_applications_list_of_its_targets_is_the_framework_layer(line):
    assert failure_lines.layer_of(line) == "framework", line


@pytest.mark.parametrize("line,layer", [
    # ROCr's own refusal keeps the runtime (real fixture 2626)
    ("ROCR: unsupported GPU", "runtime"),
    # a library's line that lists targets keeps the library's layer
    ("rocBLAS error: Cannot read TensileLibrary.dat: supported targets: gfx900", "libraries"),
])
def test_lower_layers_keep_their_refusals(line, layer):
    assert failure_lines.layer_of(line) == layer


def test_words_without_a_target_list_are_not_the_row():
    assert failure_lines.layer_of("see the docs for the supported targets of this release") != "framework"


@pytest.mark.parametrize("files", [
    # the fixture's outputs (patientx-cfz/comfyui-rocm#109): torch's printout and hipInfo's line
    {"torch.txt": "torch.cuda.is_available(): False\nDevice count: 0\n",
     "hipinfo.txt": 'HIP API error = 0100 "no ROCm-capable device is detected"\n'},
    # pytorch/pytorch#70036 (real fixture 350): torch's RuntimeError beside HIP's error name
    {"log.txt": "RuntimeError: No HIP GPUs are available\n>>> torch.tensor([0]).to(\"hip\")\n"
                "RuntimeError: HIP error: hipErrorNoDevice\n"},
    # hipInfo's full line as ROCm/TheRock#1904 pastes it (gfx906 on Windows), beside a REPL's is_available() False
    # (the pairing constructed)
    {"check.txt": ">>> torch.cuda.is_available()\nFalse\n",
     "hipinfo.txt": 'checkHipErrors() HIP API error = 0100 "no ROCm-capable device is detected" from file '
                    '<C:\\Users\\Radeon7\\Desktop\\TheRock\\rocm-systems\\projects\\hip-tests\\samples\\1_Utils\\hipInfo\\'
                    'hipInfo.cpp>, line 197.\n'},
])
def test_torchs_relay_joins_hips_own_no_device_report(tmp_path, files):
    found = problems(doctor_files(tmp_path, files))
    assert found and found[0][1] == "hip", found
    assert not any(layer == "runtime" for _id, layer in found), found


def test_torchs_relay_alone_stays_at_the_runtime(tmp_path):
    # constructed: is_available() False with no line of HIP's own
    found = problems(doctor_files(tmp_path, {"check.txt": "torch.cuda.is_available(): False\n"}))
    assert found and found[0][1] == "runtime", found


def test_a_runtime_line_of_its_own_still_leads(tmp_path):
    # constructed from rocminfo's own failure (ROCm/rocminfo rocminfo.cc) beside the torch relay and HIP's report
    files = {"rocminfo.txt": "ROCk module is loaded\nhsa api call failure at: /long_pathname_so_that_rpms_can_package_the"
                             "_debug_info/src/rocminfo/rocminfo.cc:1306\nCall returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: "
                             "The runtime failed to allocate the necessary resources.\n",
             "torch.txt": "torch.cuda.is_available(): False\n",
             "hipinfo.txt": 'HIP API error = 0100 "no ROCm-capable device is detected"\n'}
    found = problems(doctor_files(tmp_path, files))
    assert found and found[0][1] == "runtime", found


@pytest.mark.parametrize("text,name,gfx", [
    # the fixture's lines (patientx-cfz/comfyui-rocm#109)
    ("Matched GPU: Radeon RX Vega\nArchitecture: Vega 10 (RX Vega 56/64) (gfx900)\nStatus: SUPPORTED\n",
     "Radeon RX Vega", "gfx900"),
    # patientx-cfz/comfyui-rocm#69 (real fixture 3221), detect_gpu.py run by hand
    ("Found 1 AMD GPU(s):\n  - AMD Radeon RX 6700 XT\n\nMatched GPU: AMD Radeon RX 6700 XT\n"
     "Architecture: RDNA 2 (gfx1031)\nStatus: SUPPORTED\n", "AMD Radeon RX 6700 XT", "gfx1031"),
])
def test_comfyui_rocms_installer_names_the_gpus_target(text, name, gfx):
    assert [(g.name, g.gfx_target) for g in paste_facts.parse(text).gpus if g.how == "installer"] == [(name, gfx)]


@pytest.mark.parametrize("text", [
    # the installer's table gives some names a family, not a target (detect_gpu.py GPU_TO_GFX: 'gfx110X')
    "Matched GPU: AMD Radeon RX 7900 XTX\nArchitecture: RDNA 3 (gfx110X)\nStatus: SUPPORTED\n",
    # an "Architecture:" line with another line between it and "Matched GPU:" (constructed)
    "Matched GPU: AMD Radeon RX 6700 XT\nStatus: SUPPORTED\nArchitecture: RDNA 2 (gfx1031)\n",
    "CPU Architecture: x86_64 (gfx1031 build host)\n",
])
def test_other_architecture_lines_name_no_target(text):
    assert not [g for g in paste_facts.parse(text).gpus if g.how == "installer"]
