"""Held-out set ER (tests/data/real/2548-2550, HELDOUT.md): a theme-neutral sample of Linux distributions' trackers
about ROCm or amdgpu compute (nixpkgs issues, Debian's BTS).  All three fixtures are distribution builds of a ROCm
package that stopped; none led at packaging on the unchanged code.  Fixed in general, from the printing programs:

* 2548 (nixpkgs#368672): Nix's "error: builder for '/nix/store/...-rocm-llvm-libc-5.7.1.drv' failed with exit code 1;"
  was an unplaced failure line.  New row er_nix_builder_failed (packaging) for the builder-failure report of NixOS/nix
  src/libstore/build/derivation-goal.cc ("builder for '%s' %s", statusToString's "failed with exit code %1%" / "failed
  due to signal %1% (%2%)"), Guix's form of it, and newer Nix's "Reason: builder ..." line.  Ninja's "FAILED:" line
  behind Nix's "> " log-tail prefix (or its "<name>> " streaming prefix) is now read by the layer table's ninja row.
* 2549 (nixpkgs#297081): Ollama's build script's "ERROR: deps file short" (llm/generate/gen_linux.sh: fewer than eight
  ROCm libraries found by ldd in the built runner) had no row and the lead went to the title's 'ollama' (framework).
  New row er_ollama_gen_linux_deps_file_short (packaging).
* 2550 (Debian #1113460): only the title 'rccl: FTBFS with CMake 4' holds the failure, and the catch-all did not know the
  distributions' word for a package that fails to build from source.  "ftbfs" (and the phrase spelled out) is now a
  failure word, a message shape, and a packaging row of the layer table ahead of the rows that place a line by the
  package it names."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import failure_lines
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,row", [("2548", "er_nix_builder_failed"), ("2549", "er_ollama_gen_linux_deps_file_short")])
def test_the_set_er_fixtures_are_named_and_lead_at_packaging(num, row):
    assert_named_and_leads(num, row, "packaging")


def test_the_ftbfs_title_leads_at_packaging():
    assert _lead_layer(_fixture("2550")) == "packaging"


@pytest.mark.parametrize("text", [
    # the fixture's line (NixOS/nixpkgs#368672, comment of 2025-01-03: rocmPackages_5's ROCm LLVM libc)
    "error: builder for '/nix/store/9l7mbqkfl1ip02zq0wkffwcpcmd7mcfz-rocm-llvm-libc-5.7.1.drv' failed with exit code 1;",
    # NixOS/nixpkgs#369360 (2024-12-30, the 6.0.2 package of the same build)
    "error: builder for '/nix/store/axshsp2rv451cn9cqhn0djrcjdkr9l0b-rocm-llvm-libc-6.0.2.drv' failed with exit code 1;",
    # NixOS/nixpkgs#344182 (2024-09-24, ollama-rocm)
    "error: builder for '/nix/store/61lr3bfvwm5nc3gk2adxsglkcwcxb23s-ollama-0.3.11.drv' failed with exit code 1;",
    # NixOS/nixpkgs#235313 (2023-06-01, ROCm's LLVM)
    "error: builder for '/nix/store/vmfvpl44k42g879vrc7yzvdmlz3vw9fw-rocm-llvm-llvm-5.4.4.drv' failed with exit code 1;",
    # newer Nix (derivation-building-goal.cc), as a public build log in the code index shows it
    "error: Cannot build '/nix/store/d2kgyamfxd09c26pvwn6wli46s0dh85j-full.distro.drv'.\n"
    "       Reason: builder failed with exit code 1.",
])
def test_nix_builder_failures_are_the_row(text):
    assert "er_nix_builder_failed" in _ids(text)


@pytest.mark.parametrize("text", [
    # set CO 1765 (EasyBuild's sanity check): another tool's exit code
    "sanity check command mpicxx --version | grep 'amdclang++' failed with exit code 1 (output: )",
    # newer Nix's report for a package whose inputs failed (derivation-building-goal.cc, "%d %s failed"): not its build
    "error: Cannot build '/nix/store/2gwqnav79y7va5jcjxy56c127haa5343-app-models-0.1.0.drv'.\n"
    "       Reason: 1 dependency failed.",
    # just's recipe failure under darwin-rebuild (a public status note in the code index)
    "error: Recipe `switch` failed on line 32 with exit code 1",
])
def test_other_exit_codes_are_not_the_nix_row(text):
    assert "er_nix_builder_failed" not in _ids(text)


@pytest.mark.parametrize("text", [
    # the fixture's lines (NixOS/nixpkgs#297081): bash's trace of the echo, then the script's own line
    "+ echo 'ERROR: deps file short'",
    "ERROR: deps file short",
])
def test_ollamas_deps_check_is_the_row(text):
    assert "er_ollama_gen_linux_deps_file_short" in _ids(text)


@pytest.mark.parametrize("text", [
    # ollama/ollama#3025's title and the script's own file name: not the failure
    "Rename ROCm deps file to avoid confusion",
    'cat "${BUILD_DIR}/bin/deps.txt"',
])
def test_talk_of_the_deps_file_is_not_the_row(text):
    assert "er_ollama_gen_linux_deps_file_short" not in _ids(text)


@pytest.mark.parametrize("line", [
    # the fixture's log tail (Nix's "> " prefix) and NixOS/nixpkgs#235313's
    "       > FAILED: libc/utils/testutils/CMakeFiles/libc_test_utils.dir/ExecuteFunctionUnix.cpp.o",
    "       > FAILED: lib/libLLVMipo.a",
    # set BO 1600 (discourse.nixos.org, no prefix): unchanged
    "FAILED: compiler-rt/lib/linux/libclang_rt.ubsan_standalone-x86_64.so ",
])
def test_ninja_failed_behind_nix_log_prefix_is_packaging(line):
    assert failure_lines.looks_like_failure(line)
    assert failure_lines.layer_of(line) == "packaging"


@pytest.mark.parametrize("line", [
    # the fixture's title (Debian #1113460) and two more of the same CMake 4 archive rebuild (debian-science and
    # debian-ai list archives, 2025-08-31)
    "rccl: FTBFS with CMake 4",
    "Bug#1112850: dlpack: FTBFS with CMake 4",
    "Bug#1113427: psimd: FTBFS with CMake 4",
])
def test_ftbfs_titles_are_packaging_failures(line):
    assert failure_lines.looks_like_failure(line)
    assert failure_lines.layer_of(line) == "packaging"


def test_a_usertag_holding_the_word_is_not_a_failure():
    # Debian #1043839's usertags line (debian-science list, 2023-08-13): tags, not a report
    assert not failure_lines.looks_like_failure("Usertags: ftbfs-sab-20230813 ftbfs-source-after-build")
