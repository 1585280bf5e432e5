"""Held-out set DN (tests/data/real/2270-2274, HELDOUT.md): ROCm from Fedora, RHEL/Rocky/Alma and openSUSE --
distribution rocm-* packages, dnf/zypper with AMD's repositories, EPEL.
The misses' causes, from the programs that print the lines: librepo's LRE_BADCHECKSUM message ('Downloading
successful, but checksum doesn't match. Calculated: %s Expected: %s', rpm-software-management/librepo
librepo/downloader.c, printed by dnf 4 after '[MIRROR] <file>: ' and by dnf5 after '>>> '), with yum 3's and
zypper's wordings of the same check, was no row and no catch-all word (2272); libdnf names the repository after each
package ('... needed by %s from %s', 'package %s from %s requires ...', libdnf/goal/Goal.cpp) and libsolv prints a
versioned dependency as 'name = 14' (src/poolid.c), which the 'nothing provides' and 'none of the providers' rows did
not allow, and nothing said that EPEL's own ROCm packages compete with AMD's (2271); gdb prints a frame with debug
info as ' at <file>:<line>' instead of ' from <shared object>' (gdb/stack.c), so a Fedora debuginfo backtrace whose
innermost non-C-runtime frame is ROCr's source was unread (2273).  Tested on the fixtures, on other real wordings of
the same sources, and on near-misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

CHECKSUM = "dn_rpm_package_checksum_mismatch"
EPEL = "dn_dnf_rocm_package_from_epel"
GDB_ROCR = "dn_gdb_backtrace_innermost_frame_in_rocr"


@pytest.mark.parametrize("num,layer", [("2270", "packaging"), ("2271", "packaging"), ("2272", "packaging"),
                                       ("2273", "runtime"), ("2274", "packaging")])
def test_the_set_dn_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row,layer", [("2272", CHECKSUM, "packaging"), ("2271", EPEL, "packaging"),
                                           ("2273", GDB_ROCR, "runtime")])
def test_the_fixtures_are_named_and_lead(num, row, layer):
    assert_named_and_leads(num, row, layer)


# -- the RPM download path's checksum check: librepo (dnf 4, dnf5), yum 3, zypper ----------------------------------
@pytest.mark.parametrize("line", [
    # dnf5 on a metadata file (terrapkg/packages#16382, Fedora 44, 2026-09)
    ">>> Downloading successful, but checksum doesn't match. Calculated: fdc394f628d2c40e3958d7f276a59ad7700229a42f0461"
    "962919349e5a30a6f08f0a10225ac00411d092978859c9ff2aa05d9ffa5d2371af45ab9298e6da5a8b(sha512)  Expected: 815f9b543446"
    "a55cee9687e0018a1263429b6b626809ab64812e4c3fff8ee89070b646d95eaa566d19049aa6200dbe5712b67048d0146d1b92fd3f67543f"
    "1c34(sha512)  - https://mirror4.krfoss.org/fyralabs/terra44/repodata/repomd.xml",
    # dnf 4 on an EPEL 9 package (negativo17/nvidia-driver#178)
    "[MIRROR] egl-gbm-1.1.2.1-1.el9.x86_64.rpm: Downloading successful, but checksum doesn't match. Calculated: "
    "38611615ee4f38c2a49991aaff24764bf1173ade87f2ce2829bd0c2d7a2afd07(sha256)  Expected: "
    "212a3b31f3d929601845518dd96a91aaddb6614728b37962f67dfdf947c81ac2(sha256)",
    # yum 3 (CentOS 7), the line yum/__init__.py verifyPkg raises
    "http://centos.mirrors.proxad.net/7.6.1810/os/x86_64/Packages/spax-1.5.2-13.el7.x86_64.rpm: [Errno -1] Package "
    "does not match intended download. Suggestion: run yum --enablerepo=base clean metadata",
    # zypper (openSUSE Leap 42.1, a repository's repodata file)
    "Warning: Digest verification failed for file '7256e9794decb02046412d2dc8ab5fa5a17875c1303f31663094da5ede29e933-"
    "app-icons.tar.gz'",
])
def test_checksum_wordings_are_named(line):
    assert CHECKSUM in _ids(line), line


@pytest.mark.parametrize("line", [
    "E: Failed to fetch https://repo.radeon.com/rocm/apt/6.4/dists/noble/main/binary-amd64/Packages.gz  Hash Sum mismatch",
    "sha256sum: WARNING: 2 computed checksums did NOT match",           # a user's own check of downloaded files
    "[    4.021345] amdgpu 0000:03:00.0: amdgpu: invalid ip discovery binary checksum",
])
def test_checksum_near_misses_are_not_this_row(line):
    assert CHECKSUM not in _ids(line), line


# -- EPEL's ROCm packages in dnf's problem report -------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    # the fixture's 'requires' line (libdnf names the repository after the package)
    "[2024-08-21T00:51:27.279Z] #14 1.757  Problem 2: package rocm-opencl-5.2.3-1.el8.x86_64 from epel requires "
    "comgr(rocm) = 5.2, but none of the providers can be installed",
    # the same image a month earlier (ROCm/ROCm-docker#133)
    "[2024-07-12T08:29:42.418Z] #13 1.301   - nothing provides clang(major) = 14 needed by "
    "rocm-device-libs-5.2.3-1.el8.x86_64 from epel",
])
def test_epel_rocm_lines_are_named(line):
    assert EPEL in _ids(line), line


@pytest.mark.parametrize("line", [
    "  - nothing provides perl(URI::Encode) needed by hipcc-6.2.0.60200-66.el8.x86_64 from rocm",  # AMD's own repo
    "  - nothing provides perl(Crypt::CBC) needed by xCAT-server-4:2.17.0-snap202408280000.noarch from xcat-core",
])
def test_epel_near_misses_are_not_this_row(line):
    assert EPEL not in _ids(line), line


# -- the libsolv/libdnf rows now read versioned dependencies, libdnf's ' from <repo>' and dnf's rule bullets -------
@pytest.mark.parametrize("row,line", [
    ("dnf_nothing_provides2", "  - nothing provides clang(major) = 14 needed by rocm-device-libs-5.2.3-1.el8.x86_64 "
                              "from epel"),
    ("dnf_nothing_provides2", "Problem: nothing provides 'libLLVM7 >= 7.0.1' needed by the to be installed "
                              "rocblas-2.46.0.50400-sles153.72.x86_64"),
    ("pkg_libsolv_providers_uninstallable", " Problem 2: package rocm-opencl-5.2.3-1.el8.x86_64 from epel requires "
                                            "comgr(rocm) = 5.2, but none of the providers can be installed"),
    ("dnf_conflicting_requests", "  - conflicting requests"),
])
def test_libsolv_rows_read_the_rpm_wordings(row, line):
    assert row in _ids(line), line


# -- a gdb backtrace pasted from '#0': the innermost frame outside the C runtime is ROCr's ------------------------
def test_a_backtrace_with_an_object_frame_in_rocr_is_named():
    # ROCm/clr#93 (ROCm 6.1.3, clinfo), frames #0-#1 without the signal line
    text = ("#0  __memset_avx2_unaligned_erms () at ../sysdeps/x86_64/multiarch/memset-vec-unaligned-erms.S:351\n"
            "#1  0x00007fffe863e49c in ?? () from /opt/rocm-6.1.3/lib/libhsa-runtime64.so.1\n")
    assert GDB_ROCR in _ids(text)
    assert error_signatures.failure_layer(GDB_ROCR) == "runtime"


@pytest.mark.parametrize("text", [
    # the innermost non-C-runtime frame is the OpenCL runtime's (CLR), ROCr only further out
    "#0  __memset_avx2_unaligned_erms () at ../sysdeps/x86_64/multiarch/memset-vec-unaligned-erms.S:351\n"
    "#1  0x00007ffff6b39040 in roc::Device::init () at /src/external/clr/rocclr/device/rocm/rocdevice.cpp:476\n"
    "#2  0x00007fffe8656f5e in ?? () from /opt/rocm-6.1.3/lib/libhsa-runtime64.so.1\n",
    # only C-runtime frames
    "#0  0x00007ffff7e14f7b in __memset_sse2_unaligned_erms () from /lib64/libc.so.6\nNo symbol table info available.\n",
])
def test_backtrace_near_misses_are_not_this_row(text):
    assert GDB_ROCR not in _ids(text), text
