"""Held-out set EW (tests/data/real/2578-2583, HELDOUT.md): a theme-neutral sample of ROCm in containers, clusters and
clouds (ROCm/gpu-operator, the rocm/pytorch images' tracker, apptainer/apptainer, SchedMD's Slinky slurm-operator).
On the unchanged code two fixtures were warned and one led at its layer:

* 2579: dnf's 'Error in POSTIN scriptlet in rpm package amdgpu-dkms' in the GPU Operator's driver-image build was not
  read.  dnf (dnf/yum/rpmtrans.py, RPMTransaction._scriptError) and yum print 'Error in %s scriptlet in rpm package %s'
  (or 'Non-fatal %s scriptlet failure in rpm package %s') with rpm's scriptlet tag name; for a DKMS package the failed
  %post is the module's DKMS build.  Row ew_rpm_scriptlet_failed, packaging.
* 2583: Slurm's GPU GRES plugin's 'Discarding the following config-only GPU due to lack of File specification' and
  'The following autodetected GPUs are being ignored' (SchedMD/slurm src/plugins/gres/gpu/gres_gpu.c,
  _merge_system_gres_conf) were read at runtime by the catch-all; row ew_slurm_gres_gpu_config_mismatch reads them at
  framework (the scheduler's own configuration does not describe the GPUs it detected).
* 2578, 2580, 2581: the failure is told only in a title and prose, the pastes healthy or cut before the error (MISSES)."""
from __future__ import annotations

import pytest

from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer


@pytest.mark.parametrize("num,row,layer", [
    ("2579", "ew_rpm_scriptlet_failed", "packaging"),
    ("2583", "ew_slurm_gres_gpu_config_mismatch", "framework"),
])
def test_the_new_rows_name_the_fixtures_failure_and_lead(num, row, layer):
    assert_named_and_leads(num, row, layer)


def test_the_segfault_under_apptainer_leads_at_the_framework():
    assert _lead_layer(_fixture("2582")) == "framework"


@pytest.mark.parametrize("num", ["2578", "2580", "2581"])
def test_the_known_misses_are_not_warned(num):
    assert _lead_layer(_fixture(num)) is None


@pytest.mark.parametrize("line", [
    # the fixture (ROCm/gpu-operator#279, 2025: the GPU Operator's KMM driver build on RHCOS 9.6)
    "Error in POSTIN scriptlet in rpm package amdgpu-dkms",
    # a Jenkins install note (yum on CentOS 7, found by the code index): the package's %pre failing
    "Error in PREIN scriptlet in rpm package jenkins-2.274-1.1.noarch",
    # the VITAM documentation's upgrade notes (yum remove, French locale around it)
    "    Error in PREUN scriptlet in rpm package vitam-offer",
    # a cPanel forum post quoted in a repository (yum remove of acronis-backup-cpanel), a trailing space
    "Error in PREUN scriptlet in rpm package acronis-backup-cpanel-1.0-223.el7.centos.x86_64 ",
    # a Fedora package list's comment: the NVIDIA kmod package's %post (the same DKMS/akmods kind of script)
    "# Error in POSTIN scriptlet in rpm package nvidia-kmod-common",
])
def test_the_rpm_scriptlet_row_reads_dnf_and_yum_wordings(line):
    assert "ew_rpm_scriptlet_failed" in ids(line + "\n")


@pytest.mark.parametrize("line", [
    # dnf's progress lines: 2579's own Verifying line, and dnf 4's 'Running scriptlet' line (constructed, same package)
    "  Verifying        : amdgpu-dkms-1:6.10.5.60301-2095006.el9.noarch         1/10 ",
    "  Running scriptlet: amdgpu-dkms-1:6.10.5.60301-2095006.el9.noarch         1/10 ",
    # dnf5's start of a scriptlet, not its failure (a dnf5 transcript in a repository's test, found by the code index)
    ">>> Running %post scriptlet: flotestro-lab-broken-0:1.0.0-1.noarch",
])
def test_the_rpm_scriptlet_row_leaves_progress_lines(line):
    assert "ew_rpm_scriptlet_failed" not in ids(line + "\n")


@pytest.mark.parametrize("line", [
    # the fixture (SlinkyProject/slurm-operator#57, 2025-10: 8 MI300X, AutoDetect=rsmi)
    "[2025-10-06T15:42:05] error: Discarding the following config-only GPU due to lack of File specification:",
    "[2025-10-06T15:42:05] warning: The following autodetected GPUs are being ignored:**",
    # NVIDIA/deepops#1214 (2022, AutoDetect=nvml, MIG): older Slurm's info("WARNING: ...") with the function's prefix
    "[2022-08-23T15:24:51.390] **gres/gpu: _merge_system_gres_conf: WARNING: The following autodetected GPUs are being "
    "ignored:**",
    # SlinkyProject/slurm-operator#111 (2026-01-12, AutoDetect=nvidia): a Kubernetes log viewer's prefix before slurmd's
    "2026-01-12T16:24:01.310Z | [2026-01-12T16:24:01] warning: The following autodetected GPUs are being ignored:",
])
def test_the_slurm_row_reads_the_gres_merge_messages(line):
    assert "ew_slurm_gres_gpu_config_mismatch" in ids(line + "\n")


@pytest.mark.parametrize("line", [
    # the same function's debug lines when the merge succeeds (gres_gpu.c)
    "slurmd: debug:  gres/gpu: _merge_system_gres_conf: Including the following config-only GPU:",
    "slurmd: debug:  gres/gpu: _merge_system_gres_conf: Including the following GPU matched between system and "
    "configuration:",
    # the rsmi plugin finding the GPUs (2583's first line)
    "[2025-10-06T15:42:05] gpu/rsmi: _get_system_gpu_list_rsmi: 8 GPU system device(s) detected",
])
def test_the_slurm_row_leaves_a_merge_that_works(line):
    assert "ew_slurm_gres_gpu_config_mismatch" not in ids(line + "\n")
