"""(s16-heldde, set DE 2103) The kernel release in a Cosmopolitan program's crash report (llamafile and the other
APE binaries): jart/cosmopolitan libc/log/oncrash.c ShowCrashReport prints, after 'error: Uncaught <signal> ...',
the program, strerror and " %s %s %s %s" of uname's sysname, version, nodename and release, Cosmopolitan's uname
putting "Cosmopolitan <ver> MODE=<arch>;" before the kernel's own version string."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import fixture


@pytest.mark.parametrize("line,rel", [
    ("  Linux Cosmopolitan 3.2.4 MODE=x86_64; #1 SMP PREEMPT_DYNAMIC Fri, 23 Feb 2024 16:31:48 +0000 Arch 6.7.6-arch1-1",
     "6.7.6-arch1-1"),  # the fixture (mozilla-ai/llamafile#282)
    (" Linux Cosmopolitan 4.0.2 MODE=x86_64; #53~22.04.1-Ubuntu SMP PREEMPT_DYNAMIC Wed Jan 15 19:18:46 UTC 2 "
     "ubuntu-box 6.8.0-52-generic", "6.8.0-52-generic"),
    ("  Linux Cosmopolitan 3.3 MODE=aarch64; #1 SMP PREEMPT Tue Mar 5 10:00:00 UTC 2024 pi 6.6.20+rpt-rpi-v8",
     "6.6.20+rpt-rpi-v8"),
])
def test_the_crash_reports_uname_line_gives_the_kernel(line, rel):
    assert paste_facts.parse(line + "\n").kernels == [rel]


@pytest.mark.parametrize("line", [
    "  Linux Cosmopolitan 3.2.4 MODE=x86_64; #1 SMP PREEMPT_DYNAMIC Fri, 23 Feb 2024 16:31:48 +0000 Arch",  # no release
    "Cosmopolitan 3.2.4 MODE=x86_64; built for Linux 6.7.6",
    "Linux Cosmopolitan libc is great, runs on 6.7.6-arch1-1",
])
def test_lookalikes_give_no_kernel(line):
    assert paste_facts.parse(line + "\n").kernels == []


def test_the_fixture_reads_its_kernel():
    assert detect_snapshot(str(fixture("2103"))).os.kernel == "6.7.6-arch1-1"
