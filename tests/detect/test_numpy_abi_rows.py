"""(s24) NumPy's C-API refusals of a compiled extension, as NumPy and torch print them (failures.toml
``s24_numpy1_module_on_numpy2``: an extension built against NumPy 1.x under NumPy 2 -- numpy/core/_multiarray_umath.py
__getattr__ for _ARRAY_API, __multiarray_api.h _import_array's 'numpy.core.multiarray failed to import', torch's
tensor_numpy.cpp 'Failed to initialize NumPy: ' relay; ``s24_numpy_c_api_newer_than_installed``: the other direction,
_import_array's 'module compiled against API version 0x%x but this version of numpy is 0x%x').  torch's notice that
NumPy is simply not installed is no failure (the catch-all's benign list)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rwtest.heldout import doctor_files, ids, problems

NP2 = "s24_numpy1_module_on_numpy2"
OLDER = "s24_numpy_c_api_newer_than_installed"


@pytest.mark.parametrize("line,row", [
    # NumPy 2's message, first line as printed (LykosAI/StabilityMatrix#1349, nagadomi/nunif#135)
    ("A module that was compiled using NumPy 1.x cannot be run in", NP2),
    # torch's relay of it (AUTOMATIC1111/stable-diffusion-webui#17055, Windows venv)
    ("C:\\Users\\teche\\Documents\\Stable Diffusion\\stable-diffusion-webui\\venv\\lib\\site-packages\\torch\\nn\\modules"
     "\\transformer.py:20: UserWarning: Failed to initialize NumPy: _ARRAY_API not found (Triggered internally at "
     "..\\torch\\csrc\\utils\\tensor_numpy.cpp:84.)", NP2),
    # an extension's import after it (hacksider/Deep-Live-Cam#412: onnxruntime's pybind module)
    ("AttributeError: _ARRAY_API not found", NP2),
    ("ImportError: numpy.core.multiarray failed to import", NP2),
    # the other direction (modelscope/facechain#97 through torchvision; siliconflow/onediff#141 through torch)
    ("D:\\ProgramData\\anaconda3\\envs\\facechain\\lib\\site-packages\\torchvision\\models\\detection\\anchor_utils.py:63: "
     "UserWarning: Failed to initialize NumPy: module compiled against API version 0x10 but this version of numpy is 0xf "
     ". Check the section C-API incompatibility at the Troubleshooting ImportError section", OLDER),
    ("/opt/conda/lib/python3.8/site-packages/torch/_utils.py:146: UserWarning: Failed to initialize NumPy: module "
     "compiled against API version 0xf but this version of numpy is 0xd (Triggered internally at "
     "/opt/pytorch/pytorch/torch/csrc/utils/tensor_numpy.cpp:77.)", OLDER),
    ("RuntimeError: module compiled against ABI version 0x1000009 but this version of numpy is 0x2000000", OLDER),
])
def test_the_rows_read_numpy_and_torch_lines(line, row):
    assert row in ids(line)
    assert error_signatures.failure_layer(row) == "framework"


@pytest.mark.parametrize("line", [
    "numpy                    2.1.2",  # a pip list line
    "To support both 1.x and 2.x versions of NumPy, modules must be compiled with NumPy 2.0.",  # advice alone
    "Successfully installed numpy-2.2.6",
    # torch without NumPy installed (pytorch/pytorch#60252): torch runs on
    "/home/u/miniconda3/envs/pt19/lib/python3.8/site-packages/torch/package/_mock_zipreader.py:17: UserWarning: Failed "
    "to initialize NumPy: No module named 'numpy' (Triggered internally at  /opt/conda/conda-bld/pytorch_1623448278899"
    "/work/torch/csrc/utils/tensor_numpy.cpp:67.)",
])
def test_near_misses_are_not_numpy_failures(line):
    assert not ids(line) & {NP2, OLDER}


def test_torch_without_numpy_is_no_unrecognised_failure():
    line = ("/venv/lib/python3.12/site-packages/torch/_subclasses/functional_tensor.py:307: UserWarning: Failed to "
            "initialize NumPy: No module named 'numpy' (Triggered internally at /pytorch/torch/csrc/utils/"
            "tensor_numpy.cpp:84.)")
    assert failure_lines.classify(line, "error-log") is None
    # while the ABI notice is a failure line
    assert failure_lines.classify(line.replace("No module named 'numpy'", "_ARRAY_API not found"), "error-log")


def test_doctor_leads_at_framework_on_the_webui_start(tmp_path):
    # the start of AUTOMATIC1111/stable-diffusion-webui#17055's console, as pasted
    text = """  File "C:\\sd\\venv\\lib\\site-packages\\torch\\nn\\modules\\transformer.py", line 20, in <module>
    device: torch.device = torch.device(torch._C._get_default_device()),  # torch.device('cpu'),
C:\\sd\\venv\\lib\\site-packages\\torch\\nn\\modules\\transformer.py:20: UserWarning: Failed to initialize NumPy: _ARRAY_API not found (Triggered internally at ..\\torch\\csrc\\utils\\tensor_numpy.cpp:84.)
  device: torch.device = torch.device(torch._C._get_default_device()),  # torch.device('cpu'),

A module that was compiled using NumPy 1.x cannot be run in
NumPy 2.2.6 as it may crash. To support both 1.x and 2.x
versions of NumPy, modules must be compiled with NumPy 2.0.
"""
    diag = doctor_files(tmp_path, {"console.txt": text})
    found = problems(diag)
    assert found and found[0][1] == "framework"
    assert any(f.id == "known-failure" and any(NP2 in e for e in f.evidence) for f in diag.findings)
