"""Held-out set DB (tests/data/real/2040-2045, HELDOUT.md): hangs, freezes and stalls on AMD GPUs.
Each miss's cause fixed from the program that prints the line: ROCr's signal waits as a native stack names them
(ROCm/ROCR-Runtime src/core/runtime/interrupt_signal.cpp, default_signal.cpp), the Linux lockup and hung-task
detectors (kernel/watchdog.c, kernel/hung_task.c) and amdkfd's signal-event refusal
(drivers/gpu/drm/amd/amdkfd/kfd_events.c); tested on the fixture and on other wordings of the same sources, with
near-misses."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import fixture as _fixture, ids as _ids, lead_layer as _lead_layer


# -- ROCr's signal wait in a native stack (2040) -------------------------------------------------------
WAIT = "db_rocr_signal_wait_frame"


def test_2040_the_wait_frame_leads_at_the_runtime():
    assert error_signatures.failure_layer(WAIT) == "runtime"
    text = (_fixture("2040") / "py-spy.txt").read_text(encoding="utf-8")
    assert WAIT in _ids(text)
    assert _lead_layer(_fixture("2040")) == "runtime"


@pytest.mark.parametrize("line", [
    # py-spy dump --native, the fixture's form
    "rocr::core::InterruptSignal::WaitRelaxed (libhsa-runtime64.so.1)",
    # gdb's frame of a hung torch process (a wheel's bundled ROCr), with the argument types
    "0x00007ffe69a63067 in rocr::core::InterruptSignal::WaitRelaxed(hsa_signal_condition_t, long, unsigned long, "
    "hsa_wait_state_t) () from /home/user/venv/lib/python3.11/site-packages/torch/lib/libhsa-runtime64.so",
    # the caller frame, numbered, as 'thread apply all bt' prints it
    "#1  0x000015552f64f7fa in rocr::core::InterruptSignal::WaitAcquire(hsa_signal_condition_t, long, unsigned long, "
    "hsa_wait_state_t) () from /opt/rocm-6.4.2/lib/libhsa-runtime64.so.1",
    # an old ROCr without the rocr:: namespace
    "  9    Thread 0x7fffeff7f700 (LWP 3914) \"gpuowl\" 0x00007ffff73edd19 in core::InterruptSignal::WaitRelaxed("
    "hsa_signal_condition_t, long, unsigned long, hsa_wait_state_t) ()",
    # HSA_ENABLE_INTERRUPT=0: the busy-wait signal's wait
    "rocr::core::BusyWaitSignal::WaitRelaxed (libhsa-runtime64.so.1)",
])
def test_rocr_signal_wait_frames_are_named(line):
    assert WAIT in _ids(line), line


@pytest.mark.parametrize("line", [
    # ROCr's event thread and a signal's store are not a wait on the GPU's work
    "rocr::core::Runtime::AsyncEventsLoop(void*) + 0xa90",
    "rocr::core::InterruptSignal::StoreRelease(long) (libhsa-runtime64.so.1)",
    "rocr::core::InterruptSignal::InterruptSignal(long, HsaEvent*) (libhsa-runtime64.so.1)",
])
def test_other_rocr_frames_are_not_the_wait(line):
    assert WAIT not in _ids(line), line


# -- the kernel's lockup watchdog and hung-task detector (2043) ---------------------------------------
LOCKUP = "db_kernel_cpu_lockup_watchdog"
HUNG = "db_kernel_hung_task_blocked"


def test_2043_the_soft_lockup_leads_at_the_kernel():
    assert error_signatures.failure_layer(LOCKUP) == "kernel"
    text = (_fixture("2043") / "dmesg.txt").read_text(encoding="utf-8")
    assert LOCKUP in _ids(text)
    assert _lead_layer(_fixture("2043")) == "kernel"


@pytest.mark.parametrize("line", [
    "[  196.456906] watchdog: BUG: soft lockup - CPU#31 stuck for 26s! [python3:4415]",
    "Nov 12 10:01:02 host kernel: watchdog: BUG: soft lockup - CPU#3 stuck for 22s! [kworker/3:1:213]",
    # old kernels: printk(KERN_EMERG ...) without the pr_fmt prefix
    "[ 1520.123456] BUG: soft lockup - CPU#0 stuck for 23s! [llama-server:9921]",
    # the hard-lockup detector, old and new forms
    "[   75.213852] NMI watchdog: Watchdog detected hard LOCKUP on cpu 0",
    "[  164.964389] watchdog: CPU3: Watchdog detected hard LOCKUP on cpu 3",
])
def test_lockup_watchdog_lines_are_named(line):
    assert LOCKUP in _ids(line), line


@pytest.mark.parametrize("line", [
    # the watchdog's own set-up lines and a soft-lockup panic setting say nothing stuck
    "[    0.123456] NMI watchdog: Enabled. Permanently consumes one hw-PMU counter.",
    "kernel.softlockup_panic = 0",
    "[    0.456789] watchdog: Disabling watchdog on nohz_full cores by default",
])
def test_watchdog_lines_without_a_lockup_are_not_named(line):
    assert LOCKUP not in _ids(line), line


@pytest.mark.parametrize("line", [
    "[ 1234.567890] INFO: task python3:4415 blocked for more than 122 seconds.",
    "Mar 02 11:22:33 host kernel: INFO: task kworker/u64:2:1234 blocked for more than 245 seconds.",
])
def test_hung_task_lines_are_named(line):
    assert HUNG in _ids(line), line
    assert error_signatures.failure_layer(HUNG) == "kernel"


def test_hung_task_settings_are_not_a_hung_task():
    line = '      "echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.'
    assert HUNG not in _ids(line)


# -- amdkfd refusing a signal event (2045) -------------------------------------------------------------
EVENT = "db_kfd_signal_event_not_created"


def test_2045_the_kfd_line_leads_at_the_kernel():
    assert error_signatures.failure_layer(EVENT) == "kernel"
    text = (_fixture("2045") / "title.txt").read_text(encoding="utf-8")
    assert EVENT in _ids(text)
    assert _lead_layer(_fixture("2045")) == "kernel"


@pytest.mark.parametrize("line", [
    "[ 8123.456789] Signal event wasn't created because limit was reached",
    "[ 8123.456789] kfd kfd: amdgpu: Signal event wasn't created because out of kernel memory",
])
def test_kfd_event_refusals_are_named(line):
    assert EVENT in _ids(line), line


def test_kfds_debug_line_for_a_created_event_is_not_a_refusal():
    line = "Signal event number 12 created with id 11, address 00000000deadbeef"
    assert EVENT not in _ids(line)
