"""Held-out set GN (tests/data/real/2950-2953, HELDOUT.md): a second theme-neutral sample of the amdgpu kernel
driver's trackers (SteamOS, freebsd/drm-kmod, CachyOS).  Two fixtures are FreeBSD panics of drm-kmod's amdgpu that
no row read: FreeBSD's trap handler (freebsd/freebsd-src sys/amd64/amd64/trap.c, kernel trap T_DNA:
panic("Unregistered use of FPU in kernel"); i386's trap.c as a KASSERT with the same text) stops the machine when the
display code's floating point runs outside the port's FPU section.  Row gn_freebsd_unregistered_fpu_use_panic (kernel)
reads it.  2953 stays led by k12_dmcub_error at firmware (the DMCUB row's settled layer; the fixture is warned at
kernel through the catch-all)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "gn_freebsd_unregistered_fpu_use_panic"


@pytest.mark.parametrize("num,layer", [("2950", "kernel"), ("2951", "kernel"), ("2952", "kernel")])
def test_the_set_gn_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_row_sits_at_kernel():
    assert error_signatures.failure_layer(ROW) == "kernel"


@pytest.mark.parametrize("text", [
    # the fixtures' lines: 2952's serial console (freebsd/drm-kmod#428, 2026) and 2951's title (drm-kmod#277, 2024)
    "panic: Unregistered use of FPU in kernel",
    "graphics/drm-61-kmod amdgpu panic: Unregistered use of FPU in kernel",
    # other real wordings: drm-kmod#428's title, drm-kmod#372's title (890M, 2025), drm-kmod#10's title (Navi 10, 2020)
    "amdgpu: panic Unregistered use of FPU in kernel",
    "amdgpu 890M panic: Unregistered use of FPU in kernel",
    "panic on attach a NAVI10 card: Unregistered use of FPU in kernel",
])
def test_the_row_reads_the_panic_line(text):
    assert ROW in _ids(text)


@pytest.mark.parametrize("text", [
    "[    0.000000] x86/fpu: Supporting XSAVE feature 0x001: 'x87 floating point registers'",  # Linux's boot line
    "panic: page fault",                                                      # another FreeBSD panic
    "fpu_kern_enter: registered use of FPU in kernel thread",                 # not the refusal
])
def test_other_lines_are_not_the_fpu_panic(text):
    assert ROW not in _ids(text)
