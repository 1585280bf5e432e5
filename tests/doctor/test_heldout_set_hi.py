"""Held-out set HI (tests/data/real/3160-3163, HELDOUT.md): a third theme-neutral sample of PyTorch's ROCm issues of
2025-2026 (pytorch/pytorch).  On the unchanged code three of four led at their layer (3160 torch's collect_env
traceback through the catch-all, 3161 and 3163 titles telling a segfault and process-group crashes); 3162, a HIP-graph
teardown crash told only in a title that names HIP graphs, is read at hip where the poster places it in torch (MISSES,
tests/doctor/test_known_failure.py).  One catalogue row was added: a traceback frame of torch's own environment report
(pytorch/pytorch torch/utils/collect_env.py; the frame line is CPython's traceback format, '  File "{}", line {}, in
{}'), a warning at framework: the report raised instead of printing."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "hi_torch_collect_env_script_raised"


@pytest.mark.parametrize("num,layer", [("3161", "framework"), ("3163", "framework")])
def test_the_set_hi_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_collect_env_fixture_is_named_and_leads_at_framework():
    assert_named_and_leads("3160", ROW, "framework")


def test_the_hip_graph_title_stays_a_known_miss():
    # told only in the title, which names HIP graphs; the framework cause is the poster's prose (MISSES)
    assert _lead_layer(_fixture("3162")) == "hip"


@pytest.mark.parametrize("line", [
    # the fixture's frames (pytorch/pytorch#147669, comment of 2025-03-11, ROCm 6.3.4, Python 3.10 user site)
    '  File "/home/praful/.local/lib/python3.10/site-packages/torch/utils/collect_env.py", line 651, in <module>',
    '  File "/home/praful/.local/lib/python3.10/site-packages/torch/utils/collect_env.py", line 629, in '
    'get_pretty_env_info',
    # pytorch/pytorch#99983 (2023-04, torch 2.0 for ROCm 5.4.2: the IndexError on the 'HIP Runtime' line)
    'File "/home/ubuntu/.local/lib/python3.10/site-packages/torch/utils/collect_env.py", line 437, in get_env_info',
    # constructed, not from a thread: a Windows venv's path form (backslashes; CPython's frame format is the same)
    '  File "C:\\ComfyUI\\venv\\Lib\\site-packages\\torch\\utils\\collect_env.py", line 634, in main',
])
def test_the_row_reads_a_frame_of_torchs_collect_env(line):
    assert ROW in _ids(line)
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("line", [
    # vLLM's own environment script, not torch's
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/collect_env.py", line 812, in <module>',
    # another module of torch.utils
    '  File "/opt/venv/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 631, in __next__',
    # the script's healthy header and a mention of the command in prose
    "Collecting environment information...",
    "Please run python -m torch.utils.collect_env and paste the output of torch/utils/collect_env.py here",
])
def test_lines_that_are_not_a_collect_env_frame_are_not_read(line):
    assert ROW not in _ids(line)
