"""Issue 28 (s19): the kernel's own generic failure reports around an amdgpu/amdkfd trace -- the oops' die header
(general protection fault, invalid opcode, 'Oops: NNNN [#N]', arm64's 'Internal error:', 'kernel BUG at'), the RIP/pc
line naming a function of AMD's GPU modules, RCU's stall reports and the page allocator's failure report.  No row read
them (set DR read "BUG: ... NULL pointer dereference", the panic line and the 6.19 WARNING header); the catch-all takes
a kernel-log line only when it names the GPU stack.  Each row is built from the kernel source that prints the line
(failures.toml names it) and tested on real lines from threads (where each is from beside it) and on near-misses.
At the end: Mesa's winsys refusing a chip it has no entry for, the other silent line a held-out set (DX) met."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import doctor_files, ids, problems

DIE = "kx_kernel_oops_die_header"
RIP = "kx_kernel_oops_rip_in_amd_gpu_module"
RCU = "kx_kernel_rcu_stall"
ALLOC = "kx_kernel_page_allocation_failure"
FRAMEWORK = "kx_kernel_fault_line_in_framework_library"


@pytest.mark.parametrize("line,row", [
    # ClangBuiltLinux/linux#735 (amdgpu's display code under clang, kernel 5.4-rc2): the die header of a GPF
    ("general protection fault: 0000 [#1] PREEMPT SMP NOPTI", DIE),
    # NVIDIA/k8s-device-plugin#941 (kernel 5.15): the same header with the non-canonical address hint
    ("[243209.352156] general protection fault, probably for non-canonical address 0x78d29c0722bf7aa1: 0000 [#1] SMP NOPTI",
     DIE),
    # a crash-utility summary of a Debian 6.1 kernel's panic (the 'Oops: ' prefix of newer kernels)
    ('       PANIC: "Oops: general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] '
     'PREEMPT SMP NOPTI"', DIE),
    # arm64's die header (an arm64 oops quoted in a kernel-course write-up of a NULL dereference)
    ("Internal error: Oops: 96000046 [#1] SMP", DIE),
    # ClangBuiltLinux/linux#735: the register dump's instruction pointer inside amdgpu
    ("RIP: 0010:CalculatePrefetchSourceLines+0xe3/0x190 [amdgpu]", RIP),
    # xanmod/linux#301 (amdgpu_bo_unpin under drm_fb_helper_damage_work in the task dump)
    ("[    8.508914] rcu: INFO: rcu_sched detected expedited stalls on CPUs/tasks: { 8-... } 11 jiffies s: 225 root: 0x1/.",
     RCU),
    # cilium/tetragon#328
    ("[  103.087243] rcu: INFO: rcu_sched detected stalls on CPUs/tasks:", RCU),
    # a kernel stall report quoted on the linux-kernel list (virtio_net's free_unused_bufs)
    ("rcu: INFO: rcu_sched self-detected stall on CPU.", RCU),
    # ROCm/ROCm#6157 (indexed as legacy-rocm-build; Strix Halo, CachyOS 6.19, after amdgpu's 'device wedged')
    ("[Fri Apr 17 19:56:46 2026] kwin_wayland: page allocation failure: order:0, mode:0xc0d60(GFP_NOFS|__GFP_HIGH|"
     "__GFP_ZERO|__GFP_COMP|__GFP_NOMEMALLOC), nodemask=(null),cpuset=user@1000.service,mems_allowed=0", ALLOC),
    # ROCm/amdgpu#174 (suspend with VRAM to evict, Ubuntu 6.8)
    ("[ 2635.584348] systemd-sleep: page allocation failure: order:0, mode:0x100c02(GFP_NOIO|__GFP_HIGHMEM|__GFP_HARDWALL),"
     " nodemask=(null),cpuset=systemd-suspend.service,mems_allowed=0", ALLOC),
])
def test_each_row_reads_real_lines(line, row):
    assert row in ids(line)
    assert error_signatures.failure_layer(row) == "kernel"


@pytest.mark.parametrize("line", [
    # ggml-org/llama.cpp#13172 (llama-parallel crashing in libllama)
    "[152970.213392] llama-parallel[398992]: segfault at 8 ip 00007f8fb6e5bde0 sp 00007ffd3eda32e8 error 4 in "
    "libllama.so[7f8fb6e2c000+103000] likely on CPU 10 (core 20, socket 0)",
    # the same kernel formats for ggml's HIP back-end and PyTorch's HIP library (traps.c's trap and GPF lines)
    "[ 7234.567890] llama-server[999]: trap divide error ip:7f00aa sp:7ffdbb error:0 in libggml-hip.so[7f00aa000+1000]",
    "[ 9234.567890] traps: python3[1234] general protection fault ip:7f1c00 sp:7ffc00 error:0 in "
    "libtorch_hip.so[7f1c00000+1a0000]",
])
def test_a_crash_in_a_frameworks_library_is_the_frameworks(line):
    found = ids(line)
    assert FRAMEWORK in found and error_signatures.failure_layer(FRAMEWORK) == "framework"


@pytest.mark.parametrize("line,row", [
    # the HIP runtime's and a math library's own libraries keep their rows (set BK, s10x)
    ("[  531.666641] traps: python[7820] general protection fault ip:7fc0288b09df sp:7fbd8b5fa850 error:0 in "
     "libamdhip64.so.7.2.70201[2b09df,7fc028623000+481000]", "bk_kernel_fault_line_in_hip_runtime"),
    ("[ 1234.567890] python3[4321]: segfault at 18 ip 00007f3c2a1b2c3d sp 00007ffd1a2b3c40 error 4 in "
     "librocblas.so.4.2.60200[7f3c2a000000+3c5000]", "s10x_crash_in_rocm_math_library"),
])
def test_the_stacks_own_libraries_keep_their_rows(line, row):
    found = ids(line)
    assert row in found and FRAMEWORK not in found


@pytest.mark.parametrize("line", [
    # a user process's GPF (traps.c's 'traps: ... general protection fault ip:...'): set BK's rows, not an oops header
    "[  531.666641] traps: python[7820] general protection fault ip:7fc0288b09df sp:7fbd8b5fa850 error:0 in "
    "libamdhip64.so.7.2.70201[2b09df,7fc028623000+481000]",
    # an instruction pointer in another module's function (NVIDIA's __kmalloc, i915): not AMD's GPU driver
    "[243209.352242] RIP: 0010:__kmalloc+0x111/0x330",
    "RIP: 0010:i915_gem_object_get_pages_gtt+0x110/0x467 [i915]",
    # RCU's follow-up lines and a prose mention carry no stall report of their own
    "[  103.088153] rcu: RCU grace-period kthread stack dump:",
    "the machine shows rcu stalls when the GPU hangs",
    # the allocator's warning header with __GFP_NOWARN callers suppressed: no failure line
    "[Fri Apr 17 19:56:46 2026] warn_alloc: 47 callbacks suppressed",
])
def test_near_misses_are_not_read(line):
    assert not {DIE, RIP, RCU, ALLOC} & set(ids(line))


def test_an_oops_in_amdgpu_without_its_bug_line_leads_at_the_kernel(tmp_path):
    # ClangBuiltLinux/linux#735's dmesg as posted (the header, the task, the RIP and the call trace): before these rows
    # its only failure words were in the call trace's frames
    dmesg = "\n".join([
        "general protection fault: 0000 [#1] PREEMPT SMP NOPTI",
        "CPU: 0 PID: 786 Comm: systemd-udevd Tainted: P           O      5.4.0-rc2-1-me-clang+ #3",
        "Hardware name: System manufacturer System Product Name/ROG STRIX X470-F GAMING, BIOS 5007 06/17/2019",
        "RIP: 0010:CalculatePrefetchSourceLines+0xe3/0x190 [amdgpu]",
        "RSP: 0018:ffff943717476db8 EFLAGS: 00010246",
        "Call Trace:",
        " dml20v2_ModeSupportAndSystemConfigurationFull+0x47ec/0x6c90 [amdgpu]",
        " dml_get_voltage_level+0x1ea/0x200 [amdgpu]",
        " dcn20_fast_validate_bw+0x290/0x990 [amdgpu]",
    ])
    diag = doctor_files(tmp_path, {"dmesg.txt": dmesg + "\n"})
    found = problems(diag)
    assert found and found[0] == ("known-failure", "kernel")  # (before: the catch-all's unrecognised line)
    lead = next(f for f in diag.findings if f.id == "known-failure")
    assert any(DIE in e for e in lead.evidence) and any(RIP in e for e in lead.evidence)


MESA = "mesa_amdgpu_unknown_chip"


@pytest.mark.parametrize("line", [
    # snapcrafters/tmnationsforever#41 (a Snap's bundled Mesa on a Radeon 780M, Ubuntu 23.10)
    "amdgpu: unknown (family_id, chip_external_rev): (148, 10)",
    # LizardByte/Sunshine#931 (AMF encoding on an RX 7600, Ubuntu 20.04's Mesa)
    "\u201camdgpu: unknown (family_id, chip_external_rev): (145, 16)\u201d",
    # a BC-250 on stock Mesa, as a write-up quotes RADV's line (no space after the comma)
    "RADV loads but reports `amdgpu: unknown (family_id, chip_external_rev): (143,132)`",
])
def test_mesas_unknown_chip_line_is_read_at_the_framework(line):
    # (mesa/mesa src/amd/common/ac_gpu_info.c; Mesa's lines are read at framework, like the Vulkan/OpenGL users)
    assert MESA in ids(line) and error_signatures.failure_layer(MESA) == "framework"


@pytest.mark.parametrize("line", [
    "amdgpu: amdgpu_device_initialize failed.",  # the winsys's other refusal (its own rows)
    "[    0.912143] [drm] initializing kernel modesetting (PITCAIRN 0x1002:0x6818 0x174B:0xE241 0x00).",
])
def test_other_winsys_and_kernel_lines_are_not_the_unknown_chip(line):
    assert MESA not in ids(line)
