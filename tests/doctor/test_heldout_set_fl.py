"""Held-out set FL (tests/data/real/2670-2675, HELDOUT.md): a theme-neutral sample of the amdgpu kernel driver's
trackers (the ROCK kernel driver's, and distributions' and ports' kernels: CachyOS, SteamOS, TUXEDO, FreeBSD's
drm-kmod).  Five of the six led at kernel on the unchanged code; 2672 (a desktop broken by a DKMS driver update, told
only in prose, the pastes rocm-smi and the start of dmesg) is a miss (tests/doctor/test_known_failure.py MISSES).

2675's KWin line was read only by the catch-all: KWin's DRM commit thread prints 'Pageflip timed out! This is bug in
the %s kernel driver' (KDE/kwin src/backends/drm/drm_commit_thread.cpp; 'This is a bug in the' in later releases) when a
committed flip stays pending for 5 s; the row fl_kwin_pageflip_timed_out_amdgpu names it at kernel for amdgpu and
radeon.  2673's udev line (systemd/systemd src/udev/udev-spawn.c on_spawn_sigchld: "Process '%s' failed with exit
code %i." under the device's name) was read at firmware by the catch-all; fl_udev_devcoredump_run_failed names it, at
kernel and severity info, for devcoredump devices only.  amdgpu_job_timedout's 'Process information: process ...' line
(drivers/gpu/drm/amd/amdgpu/amdgpu_job.c) is context in every form, with empty names or cut after 'process'."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

KWIN = "fl_kwin_pageflip_timed_out_amdgpu"
UDEV = "fl_udev_devcoredump_run_failed"


@pytest.mark.parametrize("num", ["2670", "2671", "2673", "2674", "2675"])
def test_the_set_fl_fixtures_lead_at_kernel(num):
    assert _lead_layer(_fixture(num)) == "kernel"


def test_the_dkms_update_told_in_prose_stays_a_miss():
    # 2672's pastes are rocm-smi setting the fan and the start of dmesg; the broken desktop is told only in prose
    assert _lead_layer(_fixture("2672")) is None


def test_the_kwin_row_names_2675s_line_and_leads_at_kernel():
    assert_named_and_leads("2675", KWIN, "kernel")


@pytest.mark.parametrize("line", [
    # the fixture's line (CachyOS/distribution#259, 2025)
    "Okt 22 16:57:10 TobiPC kwin_wayland[1175]: Pageflip timed out! This is a bug in the amdgpu kernel driver",
    # fixture 1341's (CachyOS/linux-cachyos#1035, RX 7900 XTX, 2026)
    "kwin_wayland: Pageflip timed out! This is a bug in the amdgpu kernel driver",
    # a Polish journal (sched-ext/scx#3677, 2026)
    "cze 30 19:37:08 cachyos kwin_wayland[1064]: Pageflip timed out! This is a bug in the amdgpu kernel driver",
    # Crozzers/screen_brightness_control#51 (2024)
    "Mar 05 21:29:15 Beedell.RokeJulianLockhart.desktop.SSV2AY kwin_wayland[1844]: Pageflip timed out! This is a bug in "
    "the amdgpu kernel driver",
    # the source's older wording without 'a' (drm_commit_thread.cpp as at 041129e9), through KWin's logging category
    "kwin_wayland_drm: Pageflip timed out! This is bug in the amdgpu kernel driver",
])
def test_the_kwin_row_reads_its_wordings(line):
    assert KWIN in _ids(line)
    assert error_signatures.failure_layer(KWIN) == "kernel"


@pytest.mark.parametrize("line", [
    # the same message for NVIDIA's kernel driver (GhostKellz/arch KNOWN_ISSUES.md): not an AMD GPU's
    "kwin_wayland_drm: Pageflip timed out! This is a bug in the nvidia-drm kernel driver",
    # the flip arriving late after the timeout (sched-ext/scx#3677): KWin's follow-up, not the failure
    "cze 30 19:37:08 cachyos kwin_wayland[1064]: Pageflip arrived after all, 1707ms after the commit",
    # KWin's own main thread hanging (drm_commit_thread.cpp's other branch): not the driver's
    "kwin_wayland_drm: The main thread was hanging temporarily!",
])
def test_lines_that_are_not_an_amd_pageflip_timeout_do_not_match(line):
    assert KWIN not in _ids(line)


def test_the_udev_row_names_2673s_line_at_kernel_as_information():
    line = ("Jan 02 21:35:19  (udev-worker)[17488]: devcd1: Process 'cat /sys/devices/virtual/devcoredump/devcd1/data > "
            "/var/lib/steamos-log-submitter/pending/devcoredump/4903' failed with exit code 1.")
    assert UDEV in _ids(line)
    assert error_signatures.failure_layer(UDEV) == "kernel"


@pytest.mark.parametrize("line", [
    # another device's RUN program failing (LINBIT/drbd-utils#48): not a devcoredump
    "Mär 05 08:37:33 ctl02 (udev-worker)[6566]: drbd5: Process '/usr/bin/drbdsetup udev 5' failed with exit code 1.",
    # the debug line of a RUN program that succeeded (udev-spawn.c)
    "devcd1: Process 'cat /sys/devices/virtual/devcoredump/devcd1/data' succeeded.",
])
def test_lines_that_are_not_a_failed_devcoredump_copy_do_not_match(line):
    assert UDEV not in _ids(line)


@pytest.mark.parametrize("line", [
    # 2673's, cut after 'process' in the journal the user copied (ValveSoftware/SteamOS#1312)
    "Jan 02 21:35:19  kernel: [drm:amdgpu_job_timedout [amdgpu]] *ERROR* Process information: process ",
    # empty names: a kernel thread or a process that has exited (fixtures 319, 328)
    "[  308.334876] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* Process information: process  pid 0 thread  pid 0",
    # FreeBSD's drm-kmod port (fixture 2538's form)
    "[drm ERROR :amdgpu_job_timedout] Process information: process  pid 540118 thread  pid 540118",
])
def test_the_job_timeout_process_line_is_context_in_every_form(line):
    assert not failure_lines.looks_like_failure(line, "dmesg")


def test_the_ring_timeout_line_above_it_stays_a_failure():
    line = ("Jan 02 21:35:19  kernel: [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, "
            "signaled seq=4775456, emitted seq=4775458")
    assert failure_lines.looks_like_failure(line, "dmesg")
    assert _ids(line)
