"""Held-out set CQ (tests/data/real/1820-1825, HELDOUT.md): desktop and web UIs for local LLMs bundling ROCm.
Two general causes: text-generation-webui's own line for its llama-server child dying (oobabooga/textgen
modules/llama_cpp_server.py: RuntimeError(f"Server process terminated unexpectedly with exit code: {exit_code}")),
and an HSA_OVERRIDE_GFX_VERSION that names the GPU's own target (a no-op) ranked as a warning over the failure."""
from __future__ import annotations

import pytest

from _doctor_systems import healthy
from rocm_wizard.detect import error_signatures
from rocm_wizard.doctor import diagnose
from rwtest import realrun
from rwtest.heldout import fixture, ids as _ids, lead_layer

TEXTGEN = "cq_textgen_llama_server_terminated"


def test_textgen_row_is_framework():
    assert error_signatures.failure_layer(TEXTGEN) == "framework"


def test_1820_names_the_web_uis_line_and_the_loader_line_leads():
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(fixture("1820").glob("*.txt")))
    assert TEXTGEN in _ids(text)
    assert lead_layer(fixture("1820")) == "packaging"  # the loader's missing librocblas.so.4, not the wrapper line
    assert "unrecognised-failure" not in realrun.diagnosis(fixture("1820")).ids()


@pytest.mark.parametrize("line", [
    # the fixture's log line (modules/models.py logs the loader's RuntimeError)
    "16:55:17-306180 ERROR    Error loading the model with llama.cpp: Server process terminated unexpectedly with exit code: 127",
    # the source's own format with an abort's code
    "RuntimeError: Server process terminated unexpectedly with exit code: -6",
    "Server process terminated unexpectedly with exit code: 134",
    # a retyped issue title (1820's title)
    "Error loading the model with llama.cpp: Server process terminated unexpectdly with exit code:127",
])
def test_textgen_server_terminated_wordings(line):
    assert TEXTGEN in _ids(line), line


@pytest.mark.parametrize("line", [
    "Server process terminated normally",
    "INFO     Loaded \"model.gguf\" in 1.60 seconds.",
    "llama-server process has terminated: exit status 2",  # Ollama's own wording has its own row
])
def test_other_lines_are_not_the_textgen_row(line):
    assert TEXTGEN not in _ids(line), line


# ---- a no-op override does not lead (1822) --------------------------------------------------------------------------

def test_1822_hip_failure_leads():
    assert lead_layer(fixture("1822")) == "hip"


def _override_finding(env):
    sysm = healthy()
    sysm.access.env = env
    return diagnose(sysm).finding("hsa-override-unneeded")


def test_override_naming_the_gpus_own_target_is_information():
    own = _override_finding({"HSA_OVERRIDE_GFX_VERSION": "11.0.0"})  # the healthy system's GPU is gfx1100
    assert own is not None and own.severity == "info"
    assert any("it has no effect" in e for e in own.evidence)


@pytest.mark.parametrize("env", [
    {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"},                                      # makes gfx1100 pretend to be gfx1030
    {"HSA_OVERRIDE_GFX_VERSION": "11.0.0", "HSA_OVERRIDE_GFX_VERSION_1": "10.3.0"},  # one value does change it
    {"HSA_OVERRIDE_GFX_VERSION": "eleven"},                                      # not a valid value
])
def test_override_that_changes_the_target_stays_a_warning(env):
    f = _override_finding(env)
    assert f is not None and f.severity == "warning", env
