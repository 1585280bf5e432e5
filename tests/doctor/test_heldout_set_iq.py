"""Held-out set IQ (tests/data/real/3460-3463, HELDOUT.md): a theme-neutral sample of threads about AMD GPUs in
Kubernetes and cloud VMs (llm-d's vLLM pod on MI300 dying because NIXL is absent from the ROCm vLLM image, the AMD
k8s device plugin on Talos never registering its gpu resource, LM Studio's Vulkan worker exiting on a DigitalOcean
MI300X droplet, and a healthy device-metrics-exporter pod of 2026).  On the unchanged code 3460 and 3462 led at
framework by the catch-all, 3461 had no finding (its paste is the plugin's healthy start-up lines: MISSES), 3463
raised nothing.  The fix:

* 3460: vLLM's NixlConnector logs 'NIXL is not available' at ERROR and raises RuntimeError("NIXL is not available")
  when its worker is built without the NIXL (RIXL on ROCm) bindings importable
  (vllm-project/vllm vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py, NixlConnectorWorker.__init__);
  the module's import-time WARNING with the same words is printed whenever the bindings are absent, used or not, and
  is left alone.  Row iq_vllm_nixl_connector_not_available reads the ERROR and the exception at framework."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

NIXL = "iq_vllm_nixl_connector_not_available"


@pytest.mark.parametrize("num,layer", [("3460", "framework"), ("3462", "framework")])
def test_the_set_iq_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_healthy_exporter_pod_raises_nothing():
    assert _lead_layer(_fixture("3463")) is None


def test_the_nixl_row_names_its_fixture_and_leads_at_framework():
    assert_named_and_leads("3460", NIXL, "framework")


@pytest.mark.parametrize("line", [
    # the fixture's line (llm-d/llm-d#139: a containerd CRI log line of the vLLM pod on MI300)
    "2025-08-03T11:35:28.409790786Z stdout F ERROR 08-03 11:35:28 [nixl_connector.py:343] NIXL is not available",
    # vLLM's ROCm CI (vllm-project/vllm#32222, 2026-01-12): the exception inside EngineCore's traceback
    "(EngineCore_DP1 pid=754) ERROR 01-12 17:11:19 [core.py:936] RuntimeError: NIXL is not available",
    # pytest's report of the same raise on Intel GPUs (intel/intel-xpu-backend-for-triton#7419)
    "E           RuntimeError: NIXL is not available",
    # constructed: newer vLLM loggers print the module's path in the bracket, as llm-d/llm-d#391's pod log shows for
    # '[v1/worker/gpu_worker.py:335]'; the connector's line in that form
    "(EngineCore_DP0 pid=72) ERROR 12-07 22:10:35 [distributed/kv_transfer/kv_connector/v1/nixl_connector.py:512] "
    "NIXL is not available",
])
def test_the_nixl_row_reads_the_connectors_refusal(line):
    assert NIXL in ids(line)
    assert error_signatures.failure_layer(NIXL) == "framework"


@pytest.mark.parametrize("line", [
    # the import-time notice, printed whenever the bindings are absent, connector used or not
    "WARNING 05-21 20:51:32 [nixl_connector.py:41] NIXL is not available",
    # the healthy notice (llm-d/llm-d#84)
    "INFO 05-21 20:51:32 [nixl_connector.py:41] NIXL is available",
    # the source line of the raise in a traceback (vllm-project/vllm#32222), not the exception line
    "(EngineCore_DP1 pid=754) ERROR 01-12 17:11:19 [core.py:936]     raise RuntimeError(\"NIXL is not available\")",
])
def test_lines_that_are_not_the_refusal_are_left_alone(line):
    assert NIXL not in ids(line)
