"""Set AK (1027): a PyTorch check script's report ("=== PyTorch Installation Check ===" of the flash-attention test
used in ROCm/TheRock#1364 and legacy-rocm-build#5404) names the GPU torch sees in 'Device name: ...' after
'CUDA available: True'; read only there (clinfo's and other tools' 'Device Name' lines are not torch's)."""
from __future__ import annotations

from rocm_wizard.detect.parsers import paste_facts

BLOCK = """=== PyTorch Installation Check ===
PyTorch version: 2.8.0+rocm7.0.0.git64359f59
PyTorch ROCm version: 7.0.51831-a3e329ad8
CUDA available: True
Device count: 1
Device name: AMD Radeon Graphics
"""


def _names(text):
    return [g.name for g in paste_facts.parse(text).gpus if g.how == "torch" and g.name]


def test_the_check_scripts_device_name_is_read():
    assert _names(BLOCK) == ["AMD Radeon Graphics"]


def test_the_is_available_form_and_an_instinct_name():
    text = "torch.cuda.is_available(): True\nDevice name: AMD Instinct MI300X\n"
    assert _names(text) == ["AMD Instinct MI300X"]


def test_not_read_without_torch_saying_a_gpu_is_available():
    assert _names("Device name: AMD Radeon Graphics\n") == []
    assert _names(BLOCK.replace("CUDA available: True", "CUDA available: False")) == []


def test_not_read_far_from_the_availability_line_or_for_other_vendors():
    far = "CUDA available: True\n" + "\n".join("x%d" % i for i in range(6)) + "\nDevice name: AMD Radeon Graphics\n"
    assert _names(far) == []
    assert _names("CUDA available: True\nDevice name: NVIDIA GeForce RTX 4090\n") == []
    # clinfo prints the target as the device name
    assert _names("CUDA available: True\n  Device Name                                     gfx1030\n") == []


def test_the_scripts_arch_line_after_the_name_is_the_same_device():
    """tests/data/real/453 (unslothai/unsloth#7354): 'Device name: AMD Radeon Graphics' then 'GCN arch: gfx906:...'
    are torch's name and gcnArchName of one device: one GPU, not two."""
    text = ("CUDA available: True\nDevice count: 1\nDevice name: AMD Radeon Graphics\n"
            "GCN arch: gfx906:sramecc-:xnack-\n")
    gpus = paste_facts.parse(text).gpus
    assert [(g.how, g.name, g.gfx_target) for g in gpus] == [("torch", "AMD Radeon Graphics", "gfx906")]
