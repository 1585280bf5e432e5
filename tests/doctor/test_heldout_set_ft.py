"""Held-out set FT (tests/data/real/2750-2755, HELDOUT.md): a theme-neutral sample of the PyTorch ecosystem libraries'
ROCm issues (flash-attention, Ray, ROCm's apex, ROCm's Triton).  Four of five failing fixtures led at their layer on
the unchanged code and the healthy one (2753) had no false alarm; 2750 stays a miss (flash-attention's device compile
cut to clang's summary line, read at libraries; in MISSES).  The fix: Ray's AMD GPU accelerator manager's refusals of
the GPU-visibility variables (ray-project/ray python/ray/_private/accelerators/amd_gpu.py: 'Please use
HIP_VISIBLE_DEVICES instead of ROCR_VISIBLE_DEVICES' and 'Inconsist[ae]nt values found. Please use either
HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES.'), which the catch-all read at hip by their HIP_VISIBLE_DEVICES word, are
catalogue rows at framework, the layer of the program that prints them (2751's and 2752's own lines are cut from the
index's copies, which lead at framework through the catch-all's cut-traceback reading)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import doctor_files, fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems

ROCR = "ft_ray_amd_rocr_visible_devices_refused"
MIXED = "ft_ray_amd_visible_devices_inconsistent"


@pytest.mark.parametrize("num,layer", [("2751", "framework"), ("2752", "framework"), ("2754", "framework"),
                                       ("2755", "framework")])
def test_the_set_ft_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_healthy_ray_run_has_no_problem():
    assert _lead_layer(_fixture("2753")) is None


@pytest.mark.parametrize("line", [
    # the line 2751's thread names (ray-project/ray#53737, import ray with ROCR_ and HIP_VISIBLE_DEVICES both set)
    "RuntimeError: Please use HIP_VISIBLE_DEVICES instead of ROCR_VISIBLE_DEVICES",
    # vLLM's API server under Ray in a LUMI container (lumi-ai-factory/laifs-container-recipes#6)
    "(APIServer pid=115369) RuntimeError: Please use HIP_VISIBLE_DEVICES instead of ROCR_VISIBLE_DEVICES",
    # the error as quoted, indented, in a public ROCm MoE-tuning script's docstring that patches Ray's manager
    "    RuntimeError: Please use HIP_VISIBLE_DEVICES instead of ROCR_VISIBLE_DEVICES",
])
def test_the_rocr_row_reads_rays_refusal(line):
    assert ROCR in _ids(line)
    assert error_signatures.failure_layer(ROCR) == "framework"


@pytest.mark.parametrize("line", [
    # Ray 2.45's assertion (ray-project/ray#52701, CUDA_VISIBLE_DEVICES=1 python -c 'import ray')
    "AssertionError: Inconsistant values found. Please use either HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES.",
    # the source's later format, a ValueError spelled 'Inconsistent' (amd_gpu.py get_visible_accelerator_ids_env_var)
    "ValueError: Inconsistent values found. Please use either HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES.",
])
def test_the_mixed_row_reads_rays_inconsistent_masks(line):
    assert MIXED in _ids(line)
    assert error_signatures.failure_layer(MIXED) == "framework"


@pytest.mark.parametrize("line", [
    # verl's own assertion on the same variables (verl single_controller worker.py), another program's words
    "AssertionError: Please use the same HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES, inconsistant values found: 0 and 1.",
    # a launcher's pinning comment and a user's export (no refusal)
    "# with --device Vulkan0 instead of ROCR_VISIBLE_DEVICES.",
    "export HIP_VISIBLE_DEVICES=$ROCR_VISIBLE_DEVICES",
])
def test_lines_that_are_not_rays_refusals_are_not_the_rows(line):
    assert not {ROCR, MIXED} & _ids(line)


def test_rays_refusal_leads_at_framework_not_hip(tmp_path):
    # the traceback end of 2751's thread as Ray prints it: before the rows, the catch-all read it at hip
    diag = doctor_files(tmp_path, {"import-ray.txt": (
        ">>> import ray\nTraceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n"
        "  File \"/venv/lib/python3.11/site-packages/ray/_private/accelerators/amd_gpu.py\", line 47, in "
        "get_current_process_visible_accelerator_ids\n    raise RuntimeError(\n"
        "RuntimeError: Please use HIP_VISIBLE_DEVICES instead of ROCR_VISIBLE_DEVICES\n")})
    assert problems(diag)[0] == ("known-failure", "framework")
