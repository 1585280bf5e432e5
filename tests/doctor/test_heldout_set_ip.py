"""Held-out set IP (tests/data/real/3450-3452, HELDOUT.md): threads of 2025-2026 about AMD's official ROCm container
images.  3450 (AMD's JAX image, XLA's 'unable to find ld.lld in PATH') leads at packaging on the unchanged code.
3451's failing line is GNU ls's 'cannot access' for the ROCm directory the rocm/jax images' PATH names (coreutils
src/ls.c: file_failure(..., _("cannot access %s"), ...), the name quoted by quoteaf() since coreutils 8.25, then
strerror(ENOENT)); row ip_rocm_install_dir_missing reads it for the ROCm install root (/opt/rocm, /opt/rocm-X.Y[.Z], a
/opt/rocm* glob) and its top-level directories only, at packaging.  3452 (an RCCL error told only in the title and prose)
stays a miss (tests/doctor/test_known_failure.py MISSES)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer

ROW = "ip_rocm_install_dir_missing"


@pytest.mark.parametrize("num,layer", [("3450", "packaging"), ("3451", "packaging")])
def test_the_set_ip_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_3451_is_named_by_the_new_row_and_leads_at_packaging():
    assert_named_and_leads("3451", ROW, "packaging")


@pytest.mark.parametrize("line", [
    # the fixture's two lines (ROCm/rocm-jax#124, rocm/jax:rocm7.0-jax0.6.0-py3.10 and -py3.12)
    "ls: cannot access '/opt/rocm-7.0/bin': No such file or directory",
    "ls: cannot access '/opt/rocm-7.0': No such file or directory",
    # a glob over the install roots, nothing installed (a public Strix Halo exploration log, 2026-01, Ubuntu 22.04)
    "ls: cannot access '/opt/rocm*': No such file or directory",
    # coreutils before 8.25 prints the name unquoted (src/ls.c through quote() of the time)
    "ls: cannot access /opt/rocm/bin: No such file or directory",
    # a versioned root with a patch level and a trailing slash
    "ls: cannot access '/opt/rocm-6.4.1/lib/': No such file or directory",
])
def test_the_row_reads_ls_missing_rocm_roots(line):
    assert ROW in ids(line + "\n")
    assert error_signatures.failure_layer(ROW) == "packaging"


@pytest.mark.parametrize("line", [
    # one component's file missing (a librocdxg reinstall test, the user removed it himself)
    "ls: cannot access '/opt/rocm/lib/librocdxg.so*': No such file or directory",
    # one component's header directory missing (an agent's probe for hipwmma)
    "ls: cannot access '/opt/rocm/include/hipwmma': No such file or directory",
    # not a ROCm path (the same exploration log's NPU probe)
    "ls: cannot access '/dev/accel/': No such file or directory",
    # another name that only starts like the root
    "ls: cannot access '/opt/rocmtools': No such file or directory",
])
def test_the_row_leaves_other_missing_paths(line):
    assert ROW not in ids(line + "\n")
