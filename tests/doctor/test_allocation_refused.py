"""ggml's refused allocation by what the same program reported free (rule allocation-refused-below-free,
row wl_ggml_device_malloc_oom): a block smaller than the device's free memory, refused as "out of memory",
is the HIP runtime's cap on one allocation (hip); a block larger than what was free is the workload's size
(framework, like HIP's own "out of memory").  Lines as ggml-org/llama.cpp prints them (ggml-cuda.cu's
alloc_buffer, common/arg.cpp's --list-devices, src/llama.cpp's loader), the first from llama.cpp#19764."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.doctor import diagnose

PROBLEM = ("warning", "error", "critical")
LIST = ("Available devices:\n  ROCm0: AMD Radeon(TM) Graphics (110511 MiB, 110357 MiB free)\n")
LOADER = ("llama_model_load_from_file_impl: using device ROCm0 (AMD Radeon Graphics) (0000:c5:00.0) - 110357 MiB free\n")
ALLOC = "ggml_backend_cuda_buffer_type_alloc_buffer: allocating {mib} MiB on device {dev}: cudaMalloc failed: {err}\n"


def _problems(tmp_path, text):
    (tmp_path / "paste.txt").write_text(text)
    return [f for f in diagnose(detect_snapshot(str(tmp_path))).findings if f.severity in PROBLEM]


@pytest.mark.parametrize("free_line", [LIST, LOADER], ids=["list-devices", "loader"])
def test_a_block_below_the_free_memory_refused_is_the_runtimes_cap(tmp_path, free_line):
    found = _problems(tmp_path, free_line + ALLOC.format(mib="98988.40", dev=0, err="out of memory"))
    assert found[0].id == "allocation-refused-below-free" and found[0].layer == "hip"
    assert any("98988.4 MiB asked" in e and "110357 MiB reported free" in e for e in found[0].evidence)


def test_a_block_above_the_free_memory_is_the_workloads_size(tmp_path):
    found = _problems(tmp_path, LIST + ALLOC.format(mib="120000.00", dev=0, err="out of memory"))
    assert "allocation-refused-below-free" not in [f.id for f in found]
    assert found and found[0].layer == "framework"


def test_without_a_free_figure_the_out_of_memory_is_the_workloads(tmp_path):
    found = _problems(tmp_path, ALLOC.format(mib="3048.00", dev=0, err="out of memory"))
    assert "allocation-refused-below-free" not in [f.id for f in found]
    assert found and found[0].layer == "framework"


def test_another_devices_free_memory_does_not_pair(tmp_path):
    found = _problems(tmp_path, LIST + ALLOC.format(mib="1024.00", dev=1, err="out of memory"))
    assert "allocation-refused-below-free" not in [f.id for f in found]


def test_another_hip_error_on_the_allocation_stays_at_hip(tmp_path):
    found = _problems(tmp_path, LIST + ALLOC.format(mib="1024.00", dev=0, err="invalid argument"))
    assert "allocation-refused-below-free" not in [f.id for f in found]
    assert found and found[0].layer == "hip"


def test_the_rows_split_out_of_memory_from_other_errors():
    oom = ALLOC.format(mib="1.00", dev=0, err="out of memory").strip()
    other = ALLOC.format(mib="1.00", dev=0, err="unknown error").strip()
    assert error_signatures.failure_layer("wl_ggml_device_malloc_oom") == "framework"
    assert error_signatures.failure_layer("wl_ggml_device_malloc_failed") == "hip"
    ids = lambda line: [sig.id for sig, _text in error_signatures.scan(line)]
    assert ids(oom)[:1] == ["wl_ggml_device_malloc_oom"] and "wl_ggml_device_malloc_failed" not in ids(oom)
    assert ids(other)[:1] == ["wl_ggml_device_malloc_failed"]
    # the free-memory line is information: a sighting, never a failure of its own
    assert ids(LIST.splitlines()[1]) == ["ggml_device_free_memory"]
    assert "ggml_device_free_memory" not in error_signatures.FAILURE_LAYERS
