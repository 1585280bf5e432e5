"""Held-out set AV (tests/data/real/1240-1249 without 1248, HELDOUT.md): AMD GPU management and monitoring tools.
Each miss's cause fixed from the program that prints the line: the ROCm SMI library's empty or non-numeric hwmon read
('Expected integer value from monitor, but got ""', rocm_smi_lib src/rocm_smi.cc) and rocm-smi's report of
RSMI_STATUS_UNEXPECTED_DATA ('get_power_avg, Unexpected data received'), which the smi-sensors-unavailable rule now
reads; a command's exit status 127 (POSIX: command not found); nvtop's assertion in its amdgpu reader
(src/extract_gpuinfo_amdgpu.c); amdgpu_top's Rust panic while opening the GPU.  Each is tested on the fixtures, on other
wordings of the same source, and on near-misses that must not match."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import doctor_files, fixture as _fixture, ids as _ids, lead_layer as _lead_layer, problems

MONITOR = "s12av_rsmi_monitor_not_integer"
UNEXPECTED = "s12av_rsmi_unexpected_data"
EXIT127 = "s12av_exit_status_127"
NVTOP = "s12av_nvtop_amdgpu_assertion"
AMDGPU_TOP = "s12av_amdgpu_top_panic"


@pytest.mark.parametrize("num,layer", [("1240", "runtime"), ("1241", "runtime"), ("1242", "runtime"),
                                       ("1243", "runtime"), ("1244", "runtime"), ("1245", "packaging"),
                                       ("1246", "runtime"), ("1247", "runtime"), ("1249", "runtime")])
def test_the_set_av_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def _text(num: str) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(_fixture(num).glob("*.txt")))


@pytest.mark.parametrize("num,row", [("1241", MONITOR), ("1242", MONITOR), ("1249", MONITOR), ("1242", UNEXPECTED),
                                     ("1245", EXIT127), ("1246", NVTOP), ("1247", AMDGPU_TOP)])
def test_the_fixtures_name_their_cause(num, row):
    assert row in _ids(_text(num))


def test_the_rows_sit_at_their_layers():
    for row in (MONITOR, UNEXPECTED, NVTOP, AMDGPU_TOP):
        assert error_signatures.failure_layer(row) == "runtime", row
    assert error_signatures.failure_layer(EXIT127) == "packaging"


# -- the ROCm SMI library's empty hwmon read (1241, 1242, 1249) -----------------------------------------------------
@pytest.mark.parametrize("text", [
    # older releases' stderr line (legacy-rocm-build#4878, #2681, #4268)
    'Expected integer value from monitor, but got ""',
    # current releases' log line (rocm_smi.cc get_dev_mon_value, RSMI_LOGGING)
    "get_dev_mon_value | ======= end =======  | Fail  | Device #: 0 | Type: Temperature | Cause: Expected integer "
    "value from monitor, but got  | Returning = RSMI_STATUS_UNEXPECTED_DATA |",
    # a fork of the same library (Hygon's hy-smi), the same line after a fault
    'Open mkfd failed\nExpected integer value from monitor, but got ""',
])
def test_an_empty_monitor_read_is_known(text):
    assert MONITOR in _ids(text)


@pytest.mark.parametrize("text", [
    "ValueError: Expected integer value, got 'abc'",
    "Expected integer value from config key 'port', but got \"x\"",
    "GPU[0]\t\t: Temperature (Sensor edge) (C): 41.0",
])
def test_monitor_near_misses_are_not_matched(text):
    assert MONITOR not in _ids(text)


def test_an_empty_monitor_read_gets_the_sensors_rule(tmp_path):
    diag = doctor_files(tmp_path, {"rocm-smi.txt": "$ rocm-smi\n\nExpected integer value from monitor, but got \"\"\n"
                                                   "Expected integer value from monitor, but got \"\"\n"})
    found = problems(diag)
    assert found and found[0][1] == "runtime", found
    assert "smi-sensors-unavailable" in {f.id for f in diag.findings}


# -- rocm-smi's RSMI_STATUS_UNEXPECTED_DATA (1242) ------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "GPU[0]          : get_power_avg, Unexpected data received",
    "GPU[0]          : get_power_cap, Unexpected data received",
    # ublue-os/bazzite#3930
    "GPU[0]\t\t: % Energy Counter, Unexpected data received",
    # the library's own status text, with and without the item (rocm-smi of ROCm 5.x)
    "ERROR: 15 GPU[0]: power: Data (usually from reading a file) was not of the type that was expected",
    "ERROR: 15 GPU[0]:Data (usually from reading a file) was not of the type that was expected",
])
def test_unexpected_data_is_known(text):
    assert UNEXPECTED in _ids(text)


@pytest.mark.parametrize("text", [
    "throw new Error('unexpected data received');",
    "GPU[1]          : get_power_cap, Not supported on the given system",
    "ERROR: 2 GPU[0]: od volt: RSMI_STATUS_NOT_SUPPORTED: This function is not supported in the current environment.",
])
def test_unexpected_data_near_misses_are_not_matched(text):
    assert UNEXPECTED not in _ids(text)


# -- exit status 127: the command was not found (1245) --------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "(no output, exit code 127)",
    "subprocess.CalledProcessError: Command '['rocm-smi', '--showproductname', '--json']' returned non-zero exit "
    "status 127.",
    "Error: exit status 127",
    "rocm-smi.service: Main process exited, code=exited, status=127/n/a",
    "make: *** [Makefile:12: gpu-info] Error 127",
])
def test_exit_status_127_is_known(text):
    assert EXIT127 in _ids(text)


@pytest.mark.parametrize("text", [
    "Process exited with exit code 1",
    "exit code 1270",
    "server listening on 127.0.0.1:11434",
    "exit status 127.5 seconds",
    "Main process exited, code=exited, status=1/FAILURE",
])
def test_exit_status_near_misses_are_not_matched(text):
    assert EXIT127 not in _ids(text)


def test_exit_127_leads_at_packaging(tmp_path):
    found = problems(doctor_files(tmp_path, {"smi.txt": "$ /opt/rocm/bin/amd-smi\n$ echo $?\nexit status 127\n"}))
    assert found and found[0][1] == "packaging", found


# -- nvtop's amdgpu reader asserting (1246) --------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "nvtop: /build/nvtop-0h79qc/nvtop-3.0.0/src/extract_gpuinfo_amdgpu.c:324: initDeviceSysfsPaths: Assertion "
    "`gpu_info->hwmonDevice != NULL' failed.",
    # the glibc format with a source built elsewhere and another line of the same reader
    "nvtop: ../src/extract_gpuinfo_amdgpu.c:412: gpuinfo_amdgpu_get_device_handles: Assertion `ret == 0' failed.",
])
def test_nvtop_amdgpu_assertion_is_known(text):
    assert NVTOP in _ids(text)


@pytest.mark.parametrize("text", [
    "rocminfo: ../src/rocminfo.cc:12: int main(): Assertion `x' failed.",
    "[ 40%] Building C object src/CMakeFiles/nvtop.dir/extract_gpuinfo_amdgpu.c.o",
])
def test_nvtop_near_misses_are_not_matched(text):
    assert NVTOP not in _ids(text)


# -- amdgpu_top panicking while opening the GPU (1247) ---------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "thread 'main' panicked at /home/user/.cargo/registry/src/index.crates.io-6f17d22bba15001f/amdgpu_top-0.9.0/src/"
    "dump_info.rs:122:41:",
    # Rust before 1.73 and the library crate (Umio-Yasuno/amdgpu_top#46)
    "thread 'main' panicked at 'byte index 18446744073709551613 is out of bounds of ``', /home/coelacanth/.cargo/"
    "registry/src/index.crates.io-6f17d22bba15001f/libdrm_amdgpu_sys-0.1.6/amdgpu/device_handle.rs:347:41",
])
def test_amdgpu_top_panic_is_known(text):
    assert AMDGPU_TOP in _ids(text)


@pytest.mark.parametrize("text", [
    "thread 'tokio-runtime-worker' panicked at /root/.cargo/registry/src/index.crates.io-1/hyper-1.0.0/src/proto.rs:10:5:",
    "amdgpu_top v0.9.0",
])
def test_amdgpu_top_near_misses_are_not_matched(text):
    assert AMDGPU_TOP not in _ids(text)


def test_an_overdrive_table_read_is_not_a_sensor_failure():
    """rocm-smi -a on a healthy RX 6900 XT (fixture 156) prints RSMI_STATUS_UNEXPECTED_DATA for its overdrive voltage
    table: not a sensor read, so not this row."""
    assert UNEXPECTED not in _ids("ERROR: 15 GPU[0]: od volt: Data (usually from reading a file) was not of the type "
                                  "that was expected\t")
    assert UNEXPECTED not in _ids("GPU[0]\t\t: od volt, Unexpected data received")


# -- amd-smi's group check (1243) -------------------------------------------------------------------------------------
GROUPS = "s12av_amdsmi_missing_groups"


@pytest.mark.parametrize("text", [
    # ROCm 7.0's fatal form (ROCm/amdsmi#125, 1243; #184)
    "RuntimeError: WARNING: User is missing the following required groups: render, video. Please add user to these groups.",
    # later releases print it and go on (ROCm/amdsmi#130; an AKS MI300X pod's log)
    "WARNING: User is missing the following required groups: render. Please add user to these groups.",
])
def test_amdsmi_group_check_is_known(text):
    assert GROUPS in _ids(text)


@pytest.mark.parametrize("text", [
    # a tool that quotes the fragment to hide it
    '        "User is missing the following required groups",',
    "usermod: group 'render' does not exist",
])
def test_group_check_near_misses_are_not_matched(text):
    assert GROUPS not in _ids(text)


def test_the_group_check_is_named_for_1243():
    assert GROUPS in _ids(_text("1243"))
    assert error_signatures.failure_layer(GROUPS) == "runtime"
