"""Held-out set AZ (tests/data/real/1320-1325, HELDOUT.md): RDNA3 consumer GPUs and mixed GPU setups.
The miss fixed from its general cause: HIP's stream-ordered allocator (hipMallocAsync,
hipMallocFromPoolAsync) returning hipErrorOutOfMemory, printed as hipGetErrorString's 'out of memory'
(ROCm/clr hip_error.cpp), which on ROCm 7.x was the in-tree kernel driver (ROCm/ROCm#6178); tested on the
fixture and on other wordings of the same error, with near-misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, ids

ROW = "s13az_hip_stream_ordered_alloc_oom"


# -- HIP's stream-ordered allocator out of memory, the in-tree driver under ROCm 7.x (1322) ---------
def test_1322_the_pool_allocators_oom_is_named_at_kernel_and_leads():
    assert_named_and_leads("1322", ROW, "kernel")
    assert error_signatures.failure_layer(ROW) == "kernel"


@pytest.mark.parametrize("line", [
    # the fixture's test program, the pool form
    "[hipMallocFromPoolAsync] out of memory",
    # a HIP_CHECK-style macro around the call: the call, then hipGetErrorString's text
    "HIP error: hipMallocAsync(&ptr, bytes, stream) failed: out of memory",
    # HIP's own AMD_LOG_LEVEL=3 trace of the call returning the error's name
    ":3:hip_mempool.cpp          :62  : 2790716338 us:  hipMallocAsync: Returned hipErrorOutOfMemory : ",
    # a caller that prints the error's name after the API
    "hipMallocFromPoolAsync returned hipErrorOutOfMemory (2)",
])
def test_the_pool_allocators_oom_in_its_other_forms(line):
    assert ROW in ids(line)


@pytest.mark.parametrize("line", [
    # the synchronous allocator running out of memory is a full GPU, not this row
    "[hipMalloc]              out of memory",
    "hipMalloc(&ptr, bytes) failed: out of memory",
    # the pool allocator working
    "[hipMallocAsync]         OK",
    ":3:hip_mempool.cpp          :62  : 2790716338 us:  hipMallocAsync: Returned hipSuccess : ",
    # another allocator's OOM on the same line of a report that names hipMallocAsync much earlier
    "hipMallocAsync is used for the KV cache; torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB "
    "(GPU 0; 23.98 GiB total capacity; 21.10 GiB already allocated; 1.10 GiB free; 22.00 GiB reserved in total by "
    "PyTorch) If reserved memory is >> allocated memory try setting PYTORCH_HIP_ALLOC_CONF",
])
def test_other_allocations_and_successes_are_not_the_row(line):
    assert ROW not in ids(line)
