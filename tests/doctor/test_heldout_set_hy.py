"""Held-out set HY (tests/data/real/3280-3283, HELDOUT.md): a second theme-neutral sample of forum and Q&A threads about
ROCm on AMD GPUs, 2025-2026.  The index holds none of the theme's sites, so the set is help requests filed on GitHub
trackers' issue forms (all four on Strix Halo, 2026).  Three led at their layer on the unchanged code; the fourth, Lemonade
10.1.0's CLI 'Error: Backend installation failed (no details from server)', had only the catch-all without a layer.  The
line is Lemonade's own client's (lemonade-sdk/lemonade src/cpp/cli/lemonade_client.cpp, LemonadeClient::install_backend:
no 'complete' event and no error text from lemond's install stream -> throw std::runtime_error("Backend installation
failed (no details from server)"), printed as 'Error: ' + what()); row hy_lemonade_backend_install_failed_no_details reads
it at framework."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

ROW = "hy_lemonade_backend_install_failed_no_details"


@pytest.mark.parametrize("num,layer", [("3280", "kernel"), ("3281", "runtime"), ("3282", "framework"),
                                       ("3283", "framework")])
def test_the_set_hy_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_lemonade_row_names_3283_and_leads_at_framework():
    assert_named_and_leads("3283", ROW, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's line (lemonade-sdk/lemonade#1575, Lemonade 10.1.0, Ubuntu, gfx1151)
    "Error: Backend installation failed (no details from server)",
    # the exception's text as lemonade_client.cpp throws it, without the 'Error: ' the catch adds
    "Backend installation failed (no details from server)",
    # the same stderr line captured by systemd or a wrapper script's log prefix
    "Apr 06 14:32:40 strix lemonade[18001]: Error: Backend installation failed (no details from server)",
])
def test_the_row_reads_lemonades_install_failure(line):
    assert ROW in ids(line)
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("line", [
    # other programs' setup scripts (web-app installers found by the same words), not Lemonade's client
    "❌ Backend installation failed!",
    "Error: Backend installation failed with code 1",
    # Lemonade's server naming its reason: the older row's, not this one
    "Error: Cannot install llamacpp:rocm on this system: Unsupported GPU: gfx1152",
    # a successful install
    "Backend installed successfully: sd-cpp:rocm",
])
def test_near_misses_are_not_read_as_lemonades_install_failure(line):
    assert ROW not in ids(line)
