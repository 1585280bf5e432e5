"""Rows of the failure catalogue added for held-out set Q (s8-heldq): the loader's messages are placed by
the object they name, and torch's and amd-smi's zero-GPU reports are known.  Lines are real (fixtures
670-681) or in the format the program prints (glibc's loader, torch/cuda/__init__.py)."""
from __future__ import annotations

from rocm_wizard.detect import error_signatures as es


def _ids(line: str):
    return [(sig.id, es.failure(sig.id).layer if es.failure(sig.id) else None) for sig, _ in es.scan(line)]


def test_symbol_lookup_error_is_placed_by_the_object_that_lacks_the_symbol():
    torch_line = ("./koharu: symbol lookup error: ~/.cache/koharu/packages/torch/v2.13.0.3/hip/libtorch_cpu.so: "
                  "undefined symbol: __kmpc_fork_call")
    assert _ids(torch_line) == [("torch_library_symbol_lookup_error", "framework")]
    rocm_line = ("python: symbol lookup error: /opt/rocm/lib/libamdhip64.so.7: undefined symbol: "
                 "hsa_amd_memory_get_preferred_copy_engine, version ROCR_1")
    assert ("rocm_symbol_lookup_error", "packaging") in _ids(rocm_line)
    assert "torch_library_symbol_lookup_error" not in [i for i, _ in _ids(rocm_line)]


def test_dlopen_text_for_a_rocm_library_is_packaging_and_leaves_prefixed_forms_to_their_rows():
    assert ("rocm_library_dlopen_failed", "packaging") in _ids("`libtensilelite-host.so.1: cannot open shared object file`")
    assert ("rocm_library_dlopen_failed", "packaging") in _ids(
        "dlopen failed: /opt/rocm/core-7.14/lib/libhipblaslt.so.1: cannot open shared object file: No such file or directory")
    # the forms other rows own (Python's import, the loader's start-up message, dlerror:) are not taken twice
    for line in ("ImportError: libamdhip64.so.6: cannot open shared object file: No such file or directory",
                 "./llama-server: error while loading shared libraries: libhipblas.so.3: cannot open shared object file: No such file or directory",
                 "dlerror: /opt/rocm/lib/libamdhip64.so: cannot open shared object file"):
        assert "rocm_library_dlopen_failed" not in [i for i, _ in _ids(line)], line
    # a library that is not ROCm's is not this row's
    assert "rocm_library_dlopen_failed" not in [i for i, _ in _ids("libfoo.so.1: cannot open shared object file")]
    assert ("rocm_library_not_loadable", "packaging") in _ids(
        "./llama-cli: error while loading shared libraries: libtensilelite-host.so.1: cannot open shared object file: No such file or directory")


def test_zero_gpus_from_torch_and_amd_smi():
    assert ("torch_invalid_device_id", "framework") in _ids("AssertionError: Invalid device id")
    assert ("torch_invalid_device_id", "framework") in _ids("    raise AssertionError(\"Invalid peer device id\")")
    assert "torch_invalid_device_id" not in [i for i, _ in _ids("invalid device identifier in config")]
    assert ("amdsmi_zero_handles", "runtime") in _ids("# amdsmi_get_socket_handles -> 0 sockets (broken)")
    assert "amdsmi_zero_handles" not in [i for i, _ in _ids("amdsmi_get_processor_handles() returned 8 handles")]
