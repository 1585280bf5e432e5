"""Held-out set BY (1642, 1643): the kernel release where a paste gives it as `uname -sr` prints it ("Linux
7.0.0-28-generic", coreutils uname: kernel name and release) or after a comma in an issue form's OS field ("NixOS,
Linux 6.19.9"); a distribution's own name with "Linux" in it is not a kernel."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import issue_form, paste_facts
from rwtest.heldout import fixture


@pytest.mark.parametrize("num, want", [("1642", "6.19.9"), ("1643", "7.0.0-28-generic")])
def test_fixture_kernel(num, want):
    assert detect_snapshot(str(fixture(num))).os.kernel == want


@pytest.mark.parametrize("line, want", [
    ("Linux 7.0.0-28-generic", "7.0.0-28-generic"),
    ("Linux 6.19.9", "6.19.9"),
    ("  Linux 6.12.1-arch1-1", "6.12.1-arch1-1"),
    ("`Linux 6.8.0-49-generic`", "6.8.0-49-generic"),
])
def test_uname_sr_line(line, want):
    assert paste_facts.parse(line).kernel_lines == [want]


@pytest.mark.parametrize("line", ["Linux 6.19", "Linux Mint 22.1", "Rocky Linux 9.5.0 is installed",
                                  "Linux 6.8.0-49-generic is what I run and it fails"])
def test_uname_sr_near_misses(line):
    assert paste_facts.parse(line).kernel_lines == []


@pytest.mark.parametrize("value, kernel", [
    ("NixOS, Linux 6.19.9", "6.19.9"),
    ("Arch Linux; Linux 6.12.1-arch1-1", "6.12.1-arch1-1"),
    ("Ubuntu 24.04 (Linux 6.8.0-49-generic)", "6.8.0-49-generic"),
    ("Rocky Linux 9.5", None),
    ("Fedora Linux 42", None),
    ("Linux Mint 22.1", None),
])
def test_issue_form_os_field_kernel(value, kernel):
    assert issue_form.os_parts(value)[1] == kernel
