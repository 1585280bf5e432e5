"""Held-out set V (tests/data/real/770-779, HELDOUT.md): containers, VMs and clouds.
Each miss's cause fixed from the program that prints its line: amdgpu's AtomBIOS interpreter (atom.c) as users
quote it, kubectl's custom column of a node's amd.com/gpu (ROCm's k8s device plugin registers the resource only
with a KFD), the IP discovery table of an SR-IOV virtual function (amdgpu_discovery.c reads the host's copy; GIM's
full-access message shows the VF), and a program that lists the GPU in one run and finds none in another (ggml,
PyTorch); each tested on the fixture, on other wordings of the same source and on a near miss."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.doctor import diagnose
from rwtest.heldout import fixture as _fixture, ids as _ids, lead_layer as _lead_layer
from rwtest.realrun import diagnosis

PROBLEM = ("warning", "error", "critical")


def _found(folder):
    return [(f.id, f.layer) for f in diagnosis(folder).findings if f.severity in PROBLEM]


# -- amdgpu's AtomBIOS interpreter stuck (774): the message as users quote it --------------------------------------
def test_774_the_quoted_atombios_loop_leads_at_firmware():
    # the init-failure rule claims the line (the class's rule) and places it at the VBIOS, the row's layer
    assert _found(_fixture("774"))[0] == ("amdgpu-init-failed", "firmware")


def test_an_init_failure_without_the_vbios_loop_stays_at_the_kernel():
    d = diagnose(_healthy(), "[    7.100000] amdgpu 0000:48:00.0: amdgpu: Fatal error during GPU init\n")
    assert d.finding("amdgpu-init-failed").layer == "kernel"
    d = diagnose(_healthy(), "[drm:atom_op_jump [amdgpu]] *ERROR* atombios stuck in loop for more than 20secs aborting\n"
                             "amdgpu 0000:44:00.0: amdgpu: Fatal error during GPU init\n")
    assert d.finding("amdgpu-init-failed").layer == "firmware"


@pytest.mark.parametrize("line", [
    # the fixture's title, quoting the message without its timeout
    'AMD Radeon Instinct MI50 in a KVM/QEMU fails with "atombios stuck in loop", Fatal error during GPU init',
    # amdgpu's atom.c (atom_op_jump) as the kernel prints it, and radeon's atom.c, which prints the same format
    "[   31.489889] [drm:atom_op_jump [amdgpu]] *ERROR* atombios stuck in loop for more than 20secs aborting",
    "[    9.112233] [drm:atom_op_jump [radeon]] *ERROR* atombios stuck in loop for more than 5secs aborting",
    # amdgpu_atom_execute_table_locked's line that follows it
    "[drm:amdgpu_atom_execute_table_locked [amdgpu]] *ERROR* atombios stuck executing 9300 (len 1031, WS 12, PS 8) @ 0x93A0",
])
def test_atombios_stuck_is_named_in_every_wording(line):
    assert "atombios_stuck" in _ids(line), line


@pytest.mark.parametrize("line", [
    "[   42.123456] amdgpu 0000:03:00.0: amdgpu: amdgpu_atombios_get_clock_info failed",
    "[    1.683291] amdgpu: ATOM BIOS: 113-D1631700-111",
])
def test_other_atombios_lines_are_not_the_stuck_interpreter(line):
    assert "atombios_stuck" not in _ids(line), line


# -- kubectl's amd.com/gpu column of a node printing <none> (776) -------------------------------------------------
ROW_NONE = "s10v_k8s_custom_columns_amd_gpu_none"


def test_776_the_empty_gpu_column_is_the_runtime_finding():
    assert error_signatures.failure_layer(ROW_NONE) == "runtime"
    assert _found(_fixture("776")) == [("known-failure", "runtime")]


@pytest.mark.parametrize("text", [
    # ROCm/k8s-device-plugin's README query, with several nodes, one of them without the resource
    'kubectl get nodes -o=custom-columns=NAME:.metadata.name,GPUs:.status.capacity.\'amd\\.com/gpu\'\n'
    "NAME      GPUs\ngpu-01    8\ngpu-02    <none>\n",
    # the allocatable form
    'kubectl get node gpu-02 -o custom-columns=NODE:.metadata.name,ALLOC:"status.allocatable.amd\\.com/gpu"\n'
    "NODE     ALLOC\ngpu-02   <none>\n",
])
def test_the_empty_gpu_column_is_named_in_other_queries(text):
    assert ROW_NONE in _ids(text), text


@pytest.mark.parametrize("text", [
    # the resource is registered: a number, not <none>
    'kubectl get nodes -o custom-columns=NAME:.metadata.name,GPU:"status.capacity.amd\\.com/gpu"\n'
    "NAME              GPU\nnode-1            8\n",
    # another query's <none> (kubectl get pods -o wide prints it for NOMINATED NODE)
    "kubectl get pods -o wide\nNAME    READY   STATUS    NODE     NOMINATED NODE\nollama  1/1     Running   node-1   <none>\n",
])
def test_other_tables_are_not_the_empty_gpu_column(text):
    assert ROW_NONE not in _ids(text), text


# -- the IP discovery table of an SR-IOV VF (771) ------------------------------------------------------------------
def test_771_the_vf_discovery_failure_leads_at_kernel():
    found = _found(_fixture("771"))
    assert found[0] == ("ip-discovery-on-vf", "kernel"), found
    # the firmware row stays, second: the same message on bare metal is the firmware's table (533)
    assert ("known-failure", "firmware") in found


@pytest.mark.parametrize("text", [
    # the host's GIM log line as it prints it (gim info libgv: ...) with the guest's discovery failure
    "[  295.903102] gim info libgv: [4:0:0][amdgv_sched_enter_full_access:877] VF0 entered full access mode.\n"
    "[   12.100000] amdgpu 0000:05:00.0: amdgpu: get invalid ip discovery binary signature\n",
    # a cloud MI300X VF by its ROCm marketing name, the discovery read failing
    "  Marketing Name:          AMD Instinct MI300X VF\n"
    "[    9.400000] amdgpu 0000:8a:00.0: amdgpu: discovery failed: -22\n",
    # lspci's name of an MxGPU function
    "03:00.0 Display controller: Advanced Micro Devices, Inc. [AMD/ATI] Navi 21 [Radeon Pro V620 MxGPU]\n"
    "amdgpu: invalid ip discovery binary checksum\n",
])
def test_discovery_failures_on_a_vf_are_the_vfs(text):
    d = diagnose(_healthy(), text)
    assert "ip-discovery-on-vf" in d.ids(), d.ids()


def test_a_discovery_failure_without_a_vf_stays_the_firmwares():
    # 533: a bare-metal MI300X whose table is missing: the firmware row leads, no VF finding
    found = _found(_fixture("533"))
    assert "ip-discovery-on-vf" not in {i for i, _l in found}
    assert _lead_layer(_fixture("533")) == "firmware"
    # a VF shown without a discovery failure is no discovery finding either
    d = diagnose(_healthy(), "  Marketing Name:          AMD Instinct MI300X VF\n")
    assert "ip-discovery-on-vf" not in d.ids()


# -- a program that lists the GPU in one run and finds none in another (775) --------------------------------------
RULE = "hip-no-device-but-gpu-enumerated"


def test_775_the_hidden_gpu_leads_at_runtime():
    assert _found(_fixture("775"))[0] == (RULE, "runtime")


def test_the_same_programs_listing_counts_and_not_another_release_or_tool():
    # 656: HIP SDK 7.1's hipInfo finds none where 6.4's lists the card (a release question): no finding
    assert RULE not in {i for i, _l in _found(_fixture("656"))}
    # 542: ggml finds no device and nothing in the paste lists the GPU through the runtime: no finding
    assert RULE not in {i for i, _l in _found(_fixture("542"))}
    # ggml's failure with only rocm-smi's view of the GPU (the SMI reads sysfs, not the runtime): no finding
    d = diagnose(_healthy(), "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected\n")
    assert RULE not in d.ids()


def _healthy():
    from test_rules import healthy  # the rule tests' healthy system (one RX 7900 XTX, ROCm installed)

    return healthy()
