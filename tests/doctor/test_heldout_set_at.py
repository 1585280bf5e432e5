"""Held-out set AT (tests/data/real/1200-1207, HELDOUT.md): older and unsupported consumer GPUs in 2026.
Each miss's cause fixed from the program that prints the line or from the stack's own order: a global
HSA_OVERRIDE_GFX_VERSION retargeting the one GPU while the kernel driver reports it faulting (ROCm/rocm-systems
PR #3461, #5686), a GPU fault in a ROCm library's own client (MIOpenDriver, rocblas-bench, hipblaslt-bench), CLR's
'Cannot find CO in the bundle <file> for ISA: <isa>' naming a ROCm library's file (ROCm/clr hip_fatbin.cpp), Ollama's
own gate of a GPU against the targets it ships (ollama/ollama discover/amd_linux.go), and 'this ROCm predates the GPU'
as a support-status statement that follows the failure it may explain."""
from __future__ import annotations

from pathlib import Path

import pytest

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.doctor import diagnose
from rocm_wizard.doctor.model import Finding
from rocm_wizard.doctor.recommend import sort_findings
from rwtest.heldout import fixture as _fixture
from rwtest.heldout import ids as _ids, lead_layer as _lead_layer

PROBLEM = ("warning", "error", "critical")


def _problems(folder: Path):
    return [(f.id, f.layer) for f in diagnose(detect_snapshot(str(folder))).findings if f.severity in PROBLEM]


def _paste(tmp_path: Path, text: str) -> Path:
    (tmp_path / "report.txt").write_text(text, encoding="utf-8")
    return tmp_path


# -- an override that retargets the one GPU, and the kernel reports the GPU faulting (1201, 1204) ----------------
@pytest.mark.parametrize("num", ["1201", "1204"])
def test_the_override_leads_the_kernels_fault_lines(num):
    found = _problems(_fixture(num))
    assert found[0] == ("hsa-override-gpu-fault", "runtime"), found
    assert _lead_layer(_fixture(num)) == "runtime"


@pytest.mark.parametrize("fault", [
    # amdgpu's VM fault (gmc_v*.c), a WARNING trace in amdgpu, KFD's interrupt ring, a ring timeout
    "[ 812.113] amdgpu 0000:c4:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32771)",
    "[ 90.201] WARNING: CPU: 3 PID: 4711 at drivers/gpu/drm/amd/amdgpu/amdgpu_vm.c:1461 amdgpu_vm_update_range+0x6f/0x990 [amdgpu]",
    "[ 77.0] amdgpu 0000:c4:00.0: amdgpu: MES failed to respond to msg=MISC (WAIT_REG_MEM)",
    "[ 420.5] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring comp_1.0.0 timeout, signaled seq=11, emitted seq=13",
])
def test_other_fault_lines_of_the_kernel_driver_under_an_override(tmp_path, fault):
    folder = _paste(tmp_path, "I run it with `HSA_OVERRIDE_GFX_VERSION=10.3.0` on my laptop.\n" + fault + "\n")
    assert ("hsa-override-gpu-fault", "runtime") in _problems(folder)


def test_kfds_interrupt_ring_overflow_given_as_error_text(tmp_path):
    # torvalds/linux drivers/gpu/drm/amd/amdkfd/kfd_interrupt.c: "KFD node %d ih_fifo overflow" (no catalogue row:
    # the rule reads it from the error text given to diagnose)
    system = detect_snapshot(str(_paste(tmp_path, "export HSA_OVERRIDE_GFX_VERSION=9.0.0\n")))
    diag = diagnose(system, "Feb 25 14:40:39 host kernel: amdgpu 0000:c2:00.0: amdgpu: KFD node 0 ih_fifo overflow")
    assert "hsa-override-gpu-fault" in {f.id for f in diag.findings if f.severity in PROBLEM}


def test_no_override_or_no_fault_is_not_it(tmp_path):
    fault = "[ 812.113] amdgpu 0000:c4:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32771)\n"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert "hsa-override-gpu-fault" not in {i for i, _ in _problems(_paste(tmp_path / "a", fault))}
    assert "hsa-override-gpu-fault" not in {
        i for i, _ in _problems(_paste(tmp_path / "b", "export HSA_OVERRIDE_GFX_VERSION=10.3.0\nrocminfo works\n"))}


def test_an_override_naming_the_gpus_own_target_is_not_blamed():
    # 699: gfx1151 with HSA_OVERRIDE_GFX_VERSION=11.5.1 (its own target: a no-op) and a page fault
    assert "hsa-override-gpu-fault" not in {i for i, _ in _problems(_fixture("699"))}


# -- a GPU fault in a ROCm library's own client (1206) ---------------------------------------------------------------
def test_1206_the_fault_in_miopens_driver_is_miopens():
    found = _problems(_fixture("1206"))
    assert found[0] == ("library-client-gpu-fault", "libraries"), found


def test_other_library_clients_and_near_misses(tmp_path):
    fault = ("Memory access fault by GPU node-1 (Agent handle: 0x5581) on address 0x7f00. "
             "Reason: Page not present or supervisor privilege.\n")
    for sub, text, want in (
            ("bench", "$ ./rocblas-bench -f gemm -r f32_r -m 4096 -n 4096 -k 4096\n" + fault, True),
            ("lt", "/opt/rocm/bin/hipblaslt-bench --precision f16_r -m 1024 -n 1024 -k 1024\n" + fault, True),
            # the client run without a fault: no failure of it
            ("ok", "MIOpenDriver conv -n 16 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3\nstats: ok\n", False),
            # a fault in an application's process, the library named only in prose
            ("app", "the MIOpenDriver docs say nothing about this\n$ python train.py\n" + fault, False)):
        (tmp_path / sub).mkdir()
        got = {i for i, _ in _problems(_paste(tmp_path / sub, text))}
        assert ("library-client-gpu-fault" in got) is want, (sub, got)


# -- CLR's "Cannot find CO in the bundle" naming a ROCm library (1203) ------------------------------------------------
@pytest.mark.parametrize("line", [
    # the fixture's wrapped line
    ":1:hip_fatbin.cpp:780 : Cannot find CO in the bundle\n    /usr/lib64/librocblas.so.4.4 for ISA: amdgcn-amd-amdhsa--gfx1013:xnack-",
    # on one line, AMD_LOG_LEVEL's full prefix, hipBLASLt and MIOpen
    ":1:hip_fatbin.cpp           :276 : 8803012584 us: [pid:19349 tid:0x14dec9d33080] Cannot find CO in the bundle "
    "/opt/rocm-6.2.1/lib/libhipblaslt.so.0.10.60201 for ISA: amdgcn-amd-amdhsa--gfx1031",
    ":1:hip_fatbin.cpp :301 : Cannot find CO in the bundle /opt/rocm/lib/libMIOpen.so.1.0.70200 for ISA: amdgcn-amd-amdhsa--gfx1103",
])
def test_a_rocm_librarys_bundle_without_the_target_is_named(line):
    found = _ids(line)
    assert {"hip_cannot_find_co", "s12at_rocm_library_bundle_no_co"} <= found, found
    assert error_signatures.failure_layer("s12at_rocm_library_bundle_no_co") == "libraries"


def test_an_applications_own_bundle_is_not_a_rocm_library():
    line = ":1:hip_fatbin.cpp:780 : Cannot find CO in the bundle /opt/llama/build/bin/libggml-hip.so for ISA: amdgcn-amd-amdhsa--gfx1013"
    found = _ids(line)
    assert "hip_cannot_find_co" in found and "s12at_rocm_library_bundle_no_co" not in found, found


def test_1203_the_rule_speaks_at_the_librarys_layer():
    found = _problems(_fixture("1203"))
    assert ("no-binary-for-gpu", "libraries") in found, found
    # 213: the same message in a torch log with HIP's other no-code lines stays at hip
    assert ("no-binary-for-gpu", "hip") in _problems(_fixture("213"))


# -- Ollama's own gate of a GPU against the targets it ships (1207, 975) ----------------------------------------------
@pytest.mark.parametrize("num", ["1207", "975"])
def test_ollamas_amdgpu_is_not_supported_is_ollamas_own_at_framework(num):
    assert _lead_layer(_fixture(num)) == "framework"
    assert error_signatures.failure_layer("ollama_amdgpu_not_supported") == "framework"


# -- 'this ROCm predates the GPU' follows the failure it may explain (1200) -------------------------------------------
def _f(rid, layer, severity="error"):
    return Finding(id=rid, severity=severity, title="", explanation="", layer=layer)


def test_1200_rocblas_missing_tensile_library_leads_the_release_statement():
    found = _problems(_fixture("1200"))
    assert found[0] == ("known-failure", "libraries") and ("rocm-too-old-for-gpu", "runtime") in found, found
    assert [f.id for f in sort_findings([_f("rocm-too-old-for-gpu", "runtime", "warning"), _f("tensile", "libraries")])] \
        == ["tensile", "rocm-too-old-for-gpu"]
    # alone (nothing failing shown), the statement still leads the catch-alls
    assert [f.id for f in sort_findings([_f("unrecognised-failure", "framework", "warning"),
                                         _f("rocm-too-old-for-gpu", "runtime", "warning")])] == \
        ["rocm-too-old-for-gpu", "unrecognised-failure"]
