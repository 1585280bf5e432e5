"""Held-out set DP (tests/data/real/2300-2302, HELDOUT.md): the newest threads the index holds on the AMD GPU stack
(ROCm 7.x, Strix Halo / RDNA4 / Radeon Pro R9700, Ollama, llama.cpp).  All three fixtures lead at their labelled layer
on the unchanged code, so no row was added; these tests hold the set's leads.  The one detection miss (2303's kernel
release) came from the hung-task detector's second line (torvalds/linux kernel/hung_task.c check_hung_task():
"      %s %s %.*s" with print_tainted(), init_utsname()->release and the version's first word), which the dmesg parser
did not read; it reads it now, beside the oops header's form."""
from __future__ import annotations

import pytest

from rocm_wizard.detect.parsers import dmesg
from rwtest.heldout import fixture as _fixture, lead_layer as _lead_layer


@pytest.mark.parametrize("num,layer", [("2300", "kernel"), ("2301", "hip"), ("2302", "kernel"),
                                       ("2303", "kernel")])
def test_the_set_dp_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("text,release", [
    # the fixture's lines (ROCm/ROCm#5536, comment of 2025-10-29, Arch)
    ("[  246.947584] INFO: task kworker/2:4:944 blocked for more than 122 seconds.\n"
     "[  246.947588]       Not tainted 6.17.5-arch1-1 #1\n", "6.17.5-arch1-1"),
    # the same thread's description (Ubuntu 24.04, DKMS driver: tainted OE)
    ("[  492.685007] INFO: task kworker/12:4:2320 blocked for more than 122 seconds.\n"
     "[  492.685031]       Tainted: G           OE      6.8.0-85-generic #85-Ubuntu\n", "6.8.0-85-generic"),
])
def test_the_hung_task_header_names_the_kernel_release(text, release):
    assert dmesg.parse(text).oops_release == release


@pytest.mark.parametrize("text", [
    "[    1.000000] amdgpu: Tainted: something else\n",              # not at the message's start
    "[    2.000000] Not tainted by the module loader\n",             # no release and version word
    "[    3.000000]       Tainted: G           OE\n",                # flags alone, no release
])
def test_lines_that_are_not_the_header_name_no_release(text):
    assert dmesg.parse(text).oops_release is None


def test_the_os_probe_reads_the_hung_task_release():
    text = ("[  246.947584] INFO: task kworker/2:4:944 blocked for more than 122 seconds.\n"
            "[  246.947588]       Not tainted 6.17.5-arch1-1 #1\n")
    assert dmesg.kernel_version(text) == "6.17.5-arch1-1"
