"""Paste facts added for held-out set Q (s8-heldq): a bare torch version printed by a command whose first print
is torch.__version__, TheRock's device extras in a pip command, a "GPU Architecture:" field and the interpreter of
site-packages paths.  Lines as fixtures 673, 674 and 679 have them, and near misses that must not count."""
from __future__ import annotations

from rocm_wizard.detect.parsers import paste_facts as pf


def test_bare_torch_version_after_a_command_that_prints_it_first():
    text = ('python -c "import torch; print(torch.__version__); print(torch.cuda.is_available())"\n'
            "2.12.0+rocm7.14.0a20260519\nTrue\n")
    assert pf.parse(text).torch == [("2.12.0+rocm7.14.0a20260519", None)]
    # the first print is something else: its bare line is not torch's version
    other = 'python -c "import torch; print(torch.cuda.device_count(), torch.__version__)"\n2.12.0\n'
    assert pf.parse(other).torch == []
    # a version line that does not follow such a command
    assert pf.parse("rocm 7.2 is installed\n2.12.0+rocm7.14.0a20260519\n").torch == []


def test_device_extras_of_therocks_wheels():
    text = ("pip install --index-url https://rocm.nightlies.amd.com/whl-staging-multi-arch/ \\\n"
            "  torch[device-gfx1100] torchvision[device-gfx1100] torchaudio\n")
    assert pf.parse(text).device_extras == ["gfx1100"]
    assert pf.parse('pip install --index-url $IDX "rocm[libraries,device-gfx1201]"').device_extras == ["gfx1201"]
    assert pf.parse("pip install torch[dev] rocm").device_extras == []


def test_gpu_architecture_field_and_site_packages_python():
    facts = pf.parse("ROCm Version:    7.1\nGPU Architecture: gfx906 (MI50/MI60)\n")
    assert [g.gfx_target for g in facts.gpus] == ["gfx906"]
    assert pf.parse("The GPU Architecture: gfx906 is old, rocm\n").gpus == []
    facts = pf.parse("/home/x/.venv/lib/python3.14/site-packages/_rocm_sdk_core/lib/libhsa-runtime64.so.1\n")
    assert facts.site_pythons == ["3.14"]
