"""Held-out set FD (tests/data/real/2614-2619, HELDOUT.md): a theme-neutral sample of desktop and compute applications
on AMD GPUs (hashcat, darktable, OpenMM's HIP platform, waifu2x on ncnn's Vulkan back-end).  2615 (hashcat's
'hipDeviceGetAttribute(): 1') and 2618 (OpenMM's HIP compiler failing with clang's 'cannot find HIP runtime') led at
their layers on the unchanged code.  2614's title is hashcat's report that hipRTC could not compile hashcat's own
kernel sources (hashcat/hashcat src/ext_hiprtc.c hc_hiprtcCompileProgram: "hiprtcCompileProgram(): %s" with
hiprtcGetErrorString), read at hip by the row for hashcat's HIP call failures; a compile failure (HIPRTC_ERROR_COMPILATION,
HIPRTC_ERROR_INVALID_OPTION) is the application's source and options failing, so it is read at framework now by
fd_app_hiprtc_compile_failed, and hipRTC's other statuses stay at hip.  2616, 2617 and 2619 are misses
(tests/doctor/test_known_failure.py MISSES says why)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

ROW = "fd_app_hiprtc_compile_failed"
HIP_CALL = "s13bc_hashcat_hip_call_failed"


@pytest.mark.parametrize("num,layer", [("2615", "hip"), ("2618", "packaging")])
def test_the_set_fd_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_2614_is_named_by_the_hiprtc_compile_row_and_leads_at_framework():
    assert_named_and_leads("2614", ROW, "framework")


def test_the_row_is_at_framework():
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("text", [
    # 2614's title (hashcat/hashcat#4176, RX 7900 XTX, HIP 6.3)
    "hiprtcCompileProgram(): HIPRTC_ERROR_COMPILATION\n",
    # hashcat/hashcat#3353 (RX 5700 XT, ROCm 5.2): an option the newer clang no longer takes
    "hiprtcCompileProgram(): HIPRTC_ERROR_COMPILATION\n\nerror: unknown argument: '-fno-experimental-new-pass-manager'\n"
    "1 error generated when compiling for gfx1010.\n",
    # hashcat/hashcat#3918 (RX 6800, HIP 5.7): the device libraries kept out of the link
    "hiprtcCompileProgram(): HIPRTC_ERROR_COMPILATION\n\nlld: error: undefined hidden symbol: __ockl_get_group_id\n",
    # ROCm/ROCm-Device-Libs#106 (hashcat's HIP backend): after comgr's feature warnings
    "'+gws' is not a recognized feature for this target (ignoring feature)\n"
    "hiprtcCompileProgram(): HIPRTC_ERROR_COMPILATION\n\nld.lld: error: undefined hidden symbol: __ockl_get_group_id\n",
    # the other status hiprtcGetErrorString gives for an option hipRTC refuses (ROCm/clr hiprtc.cpp)
    "hiprtcCompileProgram(): HIPRTC_ERROR_INVALID_OPTION\n",
])
def test_the_row_reads_hashcats_hiprtc_compile_failure_not_the_hip_call_row(text):
    found = _ids(text)
    assert ROW in found and HIP_CALL not in found


@pytest.mark.parametrize("text,hip_call", [
    # hipRTC's own failures stay with the HIP call row (hip): not the application's source
    ("hiprtcCompileProgram(): HIPRTC_ERROR_INTERNAL_ERROR\n", True),
    # 1381's HIP call (hashcat/hashcat#4611)
    ("* Device #3: Kernel gpu_memset create failed.\nhipModuleGetFunction(): named symbol not found\n", True),
    # hashcat's CUDA twin (src/ext_nvrtc.c)
    ("nvrtcCompileProgram(): NVRTC_ERROR_COMPILATION\n", False),
    # MIOpen's own hipRTC report (571, TheRock#2488): MIOpen's kernel source, its own rows
    ("MIOpen(HIP): Error [BuildHip] HIPRTC status = HIPRTC_ERROR_COMPILATION (6), source file: "
     "MIOpenBatchNormFwdTrainSpatialHIP.cpp\n", False),
])
def test_near_misses_are_not_the_row(text, hip_call):
    found = _ids(text)
    assert ROW not in found
    assert (HIP_CALL in found) == hip_call


# ncnn's Vulkan device list (Tencent/ncnn src/gpu.cpp create_gpu_instance: NCNN_LOGE("[%u %s]  queueC=%u[%u]  queueG=...",
# i, physicalDeviceProperties.deviceName, ...)) names the GPU 2619's waifu2x-ncnn-vulkan ran on; detection read only
# the product named in it ('RX 6500 XT') before.
@pytest.mark.parametrize("text,names", [
    # 2619 (nihui/waifu2x-ncnn-vulkan#181, Windows 10)
    ("[0 AMD Radeon(TM) RX 6500 XT]  queueC=1[2]  queueG=0[1]  queueT=2[1]\n"
     "[0 AMD Radeon(TM) RX 6500 XT]  bugsbn1=0  bugbilz=0  bugcopc=0  bugihfa=0\n", ["AMD Radeon(TM) RX 6500 XT"]),
    # the same thread's comment: a driver naming the device by its PCI ids gives no name (Radeon Pro 5600M)
    ("[0 7360:41]  queueC=1[2]  queueG=0[1]  queueT=2[2]\n", []),
    # Tencent/ncnn#2193: an NVIDIA device in ncnn's older format is no AMD GPU
    ("[0 GeForce GTX 1080]  queueC=2[8]  queueT=1[2]  memU=10  memDL=7  memHV=8\n", []),
])
def test_ncnns_vulkan_device_line_names_the_amd_gpu(tmp_path, text, names):
    from rocm_wizard.detect import detect_snapshot

    (tmp_path / "ncnn.txt").write_text(text, encoding="utf-8")
    assert [g.name for g in detect_snapshot(str(tmp_path)).amd_gpus] == names
