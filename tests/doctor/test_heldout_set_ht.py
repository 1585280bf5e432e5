"""Held-out set HT (tests/data/real/3220-3223, HELDOUT.md): a theme-neutral sample of threads of 2026 about installing
or using ROCm's Python wheels (TheRock's rocm[libraries,devel], rocm-sdk, torch from the gfx-family indexes, pip or uv).
On the unchanged code three of four led at their layer (3223, ROCm's `rocm` CLI failing to resolve the wheel runtime,
only through the catch-all); 3221's failure (HIP_VISIBLE_DEVICES=1 left set) is told only in prose beside
detect_gpu.py's healthy report, so it stays a miss.  One catalogue row was added: rocm-cli's 'failed to resolve
TheRock {channel} wheel runtime from candidate indexes' (ROCm/rocm-cli apps/rocm/src/therock.rs
resolve_pip_runtime_with_timeout).  Detection: uv pip's 'Using Python X.Y.Z environment at: PATH' line (astral-sh/uv
crates/uv/src/commands/pip/operations.rs report_target_environment) is read as the environment's Python."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

CLI = "ht_rocm_cli_therock_wheel_runtime_unresolved"


@pytest.mark.parametrize("num,layer", [("3220", "packaging"), ("3222", "framework")])
def test_the_set_ht_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_rocm_cli_fixture_is_named_and_leads_at_packaging():
    assert_named_and_leads("3223", CLI, "packaging")


@pytest.mark.parametrize("line", [
    # the fixture's release-channel line (ROCm/rocm-cli#194, gfx103X-dgpu, HTTP 403 from repo.amd.com)
    "Error: failed to resolve TheRock release wheel runtime from candidate indexes:",
    # the same issue's nightly-channel line (HTTP 404 from rocm.nightlies.amd.com)
    "Error: failed to resolve TheRock nightly wheel runtime from candidate indexes:",
    # the bare message as rocm-cli PR #111 quotes it (a family with no published index)
    "failed to resolve TheRock release wheel runtime from candidate indexes:",
])
def test_the_rocm_cli_row_reads_the_unresolved_runtime(line):
    assert CLI in _ids(line)
    assert error_signatures.failure_layer(CLI) == "packaging"


@pytest.mark.parametrize("line", [
    # the per-index error lines alone (fetch_cached_http_text's words, also printed for an index tried first)
    "  - https://repo.amd.com/rocm/whl/gfx103X-dgpu: HTTP 403 while fetching https://repo.amd.com/rocm/whl/gfx103X-dgpu/rocm/",
    # prose about the resolver
    "rocm install sdk resolves the TheRock wheel runtime from several candidate indexes in order.",
    # a successful resolution
    "Resolved TheRock release wheel runtime from https://repo.amd.com/rocm/whl/gfx110X-all",
])
def test_near_misses_do_not_match_the_rocm_cli_row(line):
    assert CLI not in _ids(line)


@pytest.mark.parametrize("text,py", [
    # the fixture's line (pytorch/pytorch#184430, uv pip into a named venv)
    ("Using Python 3.12.10 environment at: venv-linux-amd-3.12\n", "3.12.10"),
    # uv's first wording, without the colon (astral-sh/uv PR #7850)
    ("Using Python 3.12.1 environment at /Users/zb/example\n", "3.12.1"),
    # a system interpreter named by --system / --python
    ("Using Python 3.11.9 environment at: /usr\n", "3.11.9"),
])
def test_uv_pips_target_environment_names_the_python(text, py):
    assert paste_facts.parse(text).tool_pythons == [py]


@pytest.mark.parametrize("text", [
    "Using Python 3.12 for this environment\n",          # no full version, no 'environment at'
    "Using Python 3.12.10 in the environment at my work\n",  # prose
])
def test_other_using_python_lines_name_no_environment(text):
    assert paste_facts.parse(text).tool_pythons == []
