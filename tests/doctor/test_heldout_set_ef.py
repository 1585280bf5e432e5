"""Held-out set EF (tests/data/real/2460-2464, HELDOUT.md): a theme-neutral sample of smaller downstream trackers
(heretic, InvokeAI, xlibre-arch, comic-translate, koboldcpp-rocm).  2462's X server crash under AMD's X driver was read
only by the catch-all, at kernel (the title's 'AMDGPU'); three rows now read the X server's own crash report from its
sources (X11Libre/xserver, as xorg/xserver, os/osinit.c OsSigHandler: '<strsignal> at address <si_addr>' and FatalError's
'Caught signal N (<strsignal>). Server aborting'; os/backtrace.c xorg_backtrace's '%u: %s (%s%s+0x%x) [%p]' frames, a
frame inside AMD's user-space graphics modules a warning), at framework like Mesa's user-space drivers.  2463's
Ultralytics device check (ultralytics/utils/torch_utils.py select_device's ValueError) is a row at framework too; the
lead there stays torch_gpu_unavailable at runtime, which reads the torch.cuda.is_available() False line Ultralytics
appends (the application being CUDA-only is the maintainer's answer, not a line)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

SIGNAL = "ef_xserver_fatal_signal_at_address"
ABORT = "ef_xserver_caught_signal_server_aborting"
FRAME = "ef_xserver_backtrace_amd_graphics_frame"
ULTRA = "ef_ultralytics_invalid_cuda_device_requested"


@pytest.mark.parametrize("num,layer", [("2460", "runtime"), ("2461", "hip"), ("2462", "framework"),
                                       ("2464", "hip")])
def test_the_set_ef_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


def test_the_x_server_crash_is_named_and_leads_at_framework():
    assert_named_and_leads("2462", SIGNAL, "framework")


def test_the_new_rows_read_at_framework():
    assert {error_signatures.failure_layer(r) for r in (SIGNAL, ABORT, FRAME, ULTRA)} == {"framework"}


@pytest.mark.parametrize("text,row", [
    # 2462's title and a frame of its backtrace (xlibre-arch/xlibre-arch#3, XLibre 25 with amdgpu_drv.so, 2026-07)
    ("Segmentation fault at address 0x10 on AMDGPU drivers\n", SIGNAL),
    ("[2026-07-06 09:58:04] 4: /usr/lib/xorg/modules/xlibre-25/drivers/amdgpu_drv.so (?+0x0) [0x7f11123db77d]\n", FRAME),
    # X11Libre/xserver#347 (the radeon driver built with glamor; XLibre's timestamped log)
    ("[2025-07-09 09:34:54] Segmentation fault at address 0x3d0\n", SIGNAL),
    ("[2025-07-09 09:34:54] Caught signal 11 (Segmentation fault). Server aborting\n", ABORT),
    # dnschneid/crouton#2208 (Xorg's classic log prefix)
    ("[ 85181.915] (EE) Segmentation fault at address 0x0\n", SIGNAL),
    ("[ 85181.916] (EE) Caught signal 11 (Segmentation fault). Server aborting\n", ABORT),
    # NixOS/nixpkgs#20383 (the server's lines in the journal under the display manager)
    ("Nov 13 15:52:08 simendsjo-macbook display-manager[909]: (EE) Segmentation fault at address 0x0\n", SIGNAL),
    # neutrinolabs/xrdp#9 (X11rdp, an X server built from the same os/ code, no prefix)
    ("Caught signal 11 (Segmentation fault). Server aborting\n", ABORT),
    # Ashark/archlinux-amdgpu-pro#40 (Xorg 1.18 crashing in AMDGPU-PRO's DRI driver and libdrm_amdgpu)
    ("[  1356.287] (EE) 2: /usr/lib/libdrm_amdgpu.so.1 (amdgpu_get_marketing_name+0x0) [0x7f8ab30ecad0]\n", FRAME),
    ("[  1356.287] (EE) 3: /usr/lib/x86_64-linux-gnu/dri/amdgpu_dri.so (getIcdInterfaceGL+0x2438) [0x7f8ab72f6578]\n",
     FRAME),
])
def test_the_x_server_crash_report_is_named(text, row):
    assert row in _ids(text)


@pytest.mark.parametrize("text", [
    # amdgpu's page-fault detail (fixture 202): 'at address' after other words
    "Aug 08 22:35:13 ultrabook-jaap kernel: amdgpu 0000:c3:00.0: amdgpu:   in page starting at address "
    "0x00007f418f76f000 from client 10\n",
    # UCX's own signal report (fixture 1843): not the X server's
    "[ip-172-31-46-38:78565:0:78565] Caught signal 11 (Segmentation fault: invalid permissions for mapped object at "
    "address 0x79f292000000)\n",
    # prose quoting the words mid-sentence
    "After the update X crashed with a segmentation fault at address 0x10 in the amdgpu driver.\n",
    # another vendor's X driver in the backtrace (Floogen/Stardrop#172)
    "[ 11832.554] (EE) 2: /usr/lib/xorg/modules/drivers/nvidia_drv.so (?+0x0) [0x74d1d2ab82a8]\n",
])
def test_other_crash_lines_and_prose_are_not_the_x_server_rows(text):
    assert not _ids(text) & {SIGNAL, ABORT, FRAME}


@pytest.mark.parametrize("text", [
    # 2463's line (ogkalu2/comic-translate#210, a Radeon machine, 2025-01)
    "ValueError: Invalid CUDA 'device=0' requested. Use 'device=cpu' or pass valid CUDA device(s) if available, "
    "i.e. 'device=0' or 'device=0,1,2,3' for Multi-GPU.\n",
    # ogkalu2/comic-translate#17 (torch-2.1.0+cpu on an RTX 3060 Ti: the application's own prefix)
    "An Error occurred: Invalid CUDA 'device=0' requested. Use 'device=cpu' or pass valid CUDA device(s) if "
    "available, i.e. 'device=0' or 'device=0,1,2,3' for Multi-GPU.\n",
    # SunOner/sunone_aimbot#164 (Windows, torch without CUDA)
    "ValueError: Invalid CUDA 'device=0' requested. Use 'device=cpu' or pass valid CUDA device(s) if available, "
    "i.e. 'device=0' or 'device=0,1,2,3' for Multi-GPU.\n\ntorch.cuda.is_available(): False\n",
])
def test_ultralytics_device_check_is_named(text):
    assert ULTRA in _ids(text)


@pytest.mark.parametrize("text", [
    # YOLOv5's older assertion (fcakyon/yolov5-pip#149): another wording, another program
    "AssertionError: Invalid CUDA '--device cuda' requested, use '--device cpu' or pass valid CUDA device(s)\n",
    # torch's own device-ordinal error
    "RuntimeError: CUDA error: invalid device ordinal\n",
])
def test_other_device_errors_are_not_the_ultralytics_row(text):
    assert ULTRA not in _ids(text)
