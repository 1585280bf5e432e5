"""Held-out set Q (tests/data/real/670-681, HELDOUT.md): version skew and what looks like skew but is not.
Each miss's cause, fixed from the program that prints the line (PyTorch's torch/cuda/__init__.py device checks,
amd-smi's handle lists, glibc's loader and dlerror texts placed by the object they name, hipBLASLt's split-out
libtensilelite-host), tested on the fixture and on other wordings of the same source."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect import failure_lines as fl
from rwtest.heldout import REAL, assert_named_and_leads, ids as _ids, lead_layer as _lead_layer

FIXTURES = {  # fixture -> (the row that names its cause, the labelled layer)
    "670": ("torch_invalid_device_id", "framework"),
    "676": ("amdsmi_zero_handles", "runtime"),
    "677": ("torch_library_symbol_lookup_error", "framework"),
    "680": ("rocm_library_dlopen_failed", "packaging"),
    "681": ("torch_invalid_device_id", "framework"),
}


@pytest.mark.parametrize("num", sorted(FIXTURES))
def test_set_q_fixture_is_named_by_its_row_and_leads_at_its_layer(num):
    assert_named_and_leads(num, *FIXTURES[num])


def test_prose_of_libraries_not_found_leads_at_packaging():
    # 678: no output line, the user's sentence; the catch-all's told finding at the install's layer
    assert _lead_layer(next(REAL.glob("678-*"))) == "packaging"
    assert fl.layer_of("Programs are stuck not being able to find HIP libraries.") == "packaging"


def test_siblings_of_the_same_sources():
    # torch/cuda/__init__.py's peer check; amd-smi's socket handles (ROCm/pytorch#3299's wording)
    assert "torch_invalid_device_id" in _ids('AssertionError: Invalid peer device id')
    assert "amdsmi_zero_handles" in _ids("amdsmi_get_socket_handles -> 0 sockets (broken)")
    # the loader's symbol lookup error: libtorch's own objects at framework, ROCm's at packaging
    assert error_signatures.failure_layer("torch_library_symbol_lookup_error") == "framework"
    assert "torch_library_symbol_lookup_error" in _ids(
        "python3: symbol lookup error: /venv/lib/python3.12/site-packages/torch/lib/libtorch_hip.so: undefined symbol: rsmi_init")
    assert "rocm_symbol_lookup_error" not in _ids(
        "python3: symbol lookup error: /venv/lib/python3.12/site-packages/torch/lib/libtorch_hip.so: undefined symbol: rsmi_init")
    # dlerror's text for hipBLASLt's split-out host library and the loader's start-up form of it
    assert "rocm_library_dlopen_failed" in _ids("OSError on load: /opt/rocm/lib/liborigami.so.1: cannot open shared object file")
    assert "rocm_library_not_loadable" in _ids(
        "llama-cli: error while loading shared libraries: libtensilelite-host.so.1: cannot open shared object file: No such file or directory")
