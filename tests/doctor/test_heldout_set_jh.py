"""Held-out set JH (tests/data/real/3630-3633, HELDOUT.md): a theme-neutral sample of threads about ROCm in
Apptainer/Singularity containers, under Slurm and through modules/Spack on clusters: TensorFlow's XLA ROCm driver in a
ROCm 6.0 container on LUMI's MI250X nodes failing to query the device's memory (HIP_ERROR_InvalidValue; the thread puts
it on the host's old amdgpu driver, 3630); gpt-neox under DeepSpeed's Slurm launcher in Singularity hitting ROCr's
memory access fault (3631); rccl-tests started by srun with 'apptainer run --rocm' on MI250X (3632, healthy) and by an
sbatch script in enroot containers on two MI300X nodes (3633, healthy).  On the unchanged code every fixture led at its
labelled layer (3630 by the catch-all at hip) and the healthy ones stayed without a false alarm.

The one change names 3630's line: openxla/xla xla/stream_executor/rocm/rocm_context.cc
(RocmContext::GetDeviceMemoryUsage: LOG(ERROR) << "failed to query device memory info: " << ToString(res) after
hipMemGetInfo; its siblings for hipDeviceTotalMem, hipGetDeviceProperties and hipGetDevice) and, before 2024,
GpuDriver::GetDeviceMemoryInfo / GetGridLimits in tensorflow's rocm_driver.cc.  Row jh_xla_rocm_device_query_failed
(hip), reading only HIP's status names so CUDA's same-worded line (cuda_driver.cc) stays out."""
from __future__ import annotations

import pytest

from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

XLA = "jh_xla_rocm_device_query_failed"


@pytest.mark.parametrize("num,layer", [("3630", "hip"), ("3631", "runtime"), ("3632", None), ("3633", None)])
def test_the_set_jh_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_xla_query_row_names_its_fixture_and_leads_at_hip():
    assert_named_and_leads("3630", XLA, "hip")


@pytest.mark.parametrize("line", [
    # the fixture's line (ROCm/tensorflow-upstream#2289, comment of 2024-01-10: TF 2.14, ROCm 6.0, MI250X)
    "2024-01-10 20:25:42.726550: E tensorflow/compiler/xla/stream_executor/rocm/rocm_driver.cc:1294] failed to query "
    "device memory info: HIP_ERROR_InvalidValue",
    # the same thread's title (the opener's line of 2023-10-30, rocm_driver.cc:1284)
    "2023-10-30 23:26:05.514405: E tensorflow/compiler/xla/stream_executor/rocm/rocm_driver.cc:1284] failed to query "
    "device memory info: HIP_ERROR_InvalidValue",
    # local_xla's copy of the driver on two MI210s (a log kept in a developer's XLA test file in the code index)
    "2023-11-23 17:20:00.917758: E external/local_xla/xla/stream_executor/rocm/rocm_driver.cc:1708] failed to query "
    "device memory info: HIP_ERROR_InvalidValue",
    # GetGridLimits' sibling line, tensorflow-rocm 2.8.0 on an RDNA1 card (a mirrored copy of
    # RadeonOpenCompute/ROCm#1617, comment of 2022-02-14)
    "2022-02-14 11:14:10.639462: E tensorflow/stream_executor/rocm/rocm_driver.cc:1196] failed to query max grid dim "
    "x: HIP_ERROR_InvalidValue",
    # rocm_context.cc's total-memory line with rocm_status.cc's fallback spelling of ToString, rendered from the source
    "E0000 00:00:1700000000.000000 1234 rocm_context.cc:112] failed to query total available memory: "
    "hipError_t(1054)",
])
def test_the_xla_query_row_reads_its_wordings(line):
    assert XLA in ids(line)


@pytest.mark.parametrize("line", [
    # CUDA's same-worded line (tensorflow cuda_driver.cc / xla cuda_executor.cc): not a HIP status
    "E tensorflow/stream_executor/cuda/cuda_driver.cc:1041] failed to query device memory info: CUDA_ERROR_UNKNOWN",
    # XLA's command-buffer failure on ROCm: another call, another cause
    "jax.errors.JaxRuntimeError: INTERNAL: Failed to set memcpy d2d node params: HIP_ERROR_InvalidValue",
    # the reservation line that follows a successful query: no HIP status
    "E rocm_context.cc:120] failed to reserved device memory for ROCm libraries",
])
def test_lines_that_are_not_the_query_failure_are_not_read(line):
    assert XLA not in ids(line)
