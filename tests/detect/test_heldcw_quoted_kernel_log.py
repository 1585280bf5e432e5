"""Held-out set CW, 1941 (HELDOUT.md): kernel log lines posted behind a markdown quote marker
('> [    0.000000] Linux version 5.0.0-16-generic ...') were dropped as commands typed at a '>' prompt, so
the boot banner's kernel was not read.  A line whose text after '>' starts with a dmesg stamp is the quoted
output; a '>' prompt with a command stays a prompt line."""
from __future__ import annotations

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import dmesg
from rocm_wizard.detect.parsers._core_text import content_lines
from rwtest.heldout import fixture as _fixture


def test_1941_the_quoted_boot_banner_gives_the_kernel():
    system = detect_snapshot(str(_fixture("1941")))
    assert system.os.kernel == "5.0.0-16-generic"


def test_quoted_kernel_log_lines_are_read_as_the_log():
    text = ("> [    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075) (x86_64-linux-gnu-gcc-12) #45-Ubuntu SMP\n"
            ">[    3.163722] [drm:amdgpu_init [amdgpu]] *ERROR* VGACON disables amdgpu kernel modesetting.\n")
    assert content_lines(text) == [
        "[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075) (x86_64-linux-gnu-gcc-12) #45-Ubuntu SMP",
        "[    3.163722] [drm:amdgpu_init [amdgpu]] *ERROR* VGACON disables amdgpu kernel modesetting."]
    assert dmesg.kernel_version(text) == "6.8.0-45-generic"


def test_a_prompt_command_stays_a_prompt_line():
    assert content_lines("> rocminfo\nROCk module is loaded\n> dmesg | grep amdgpu\n") == ["ROCk module is loaded"]
