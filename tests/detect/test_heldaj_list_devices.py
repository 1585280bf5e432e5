"""Held-out set AJ (1000): llama.cpp's device list of its HIP backend names the GPUs (common/arg.cpp's
--list-devices: printf("  %s: %s (%zu MiB, %zu MiB free)"), and the server's "  - %-8s: %s (%zu MiB, %zu MiB
free)" log); read as GPUs without a target, once each, and not from other backends' devices."""
from __future__ import annotations

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import paste_facts
from rwtest.heldout import fixture as _fixture


def _names(text):
    return [(g.how, g.name, g.card) for g in paste_facts.parse(text).gpus]


def test_list_devices_lines_are_gpus():
    text = ("Available devices:\n  ROCm0: AMD Radeon Pro W5500 (8176 MiB, 8034 MiB free)\n"
            "  ROCm1: AMD Radeon Pro V620 (30704 MiB, 30562 MiB free)\n")
    assert _names(text) == [("ggml-list", "AMD Radeon Pro W5500", 0), ("ggml-list", "AMD Radeon Pro V620", 1)]


def test_the_servers_device_log_is_read_too():
    text = "load_backend: loaded ROCm backend\n  - ROCm0   : AMD Radeon RX 7900 XTX (24560 MiB, 24312 MiB free)\n"
    assert _names(text) == [("ggml-list", "AMD Radeon RX 7900 XTX", 0)]


def test_a_gpu_its_init_line_names_is_one_gpu_with_its_target():
    text = ("ggml_cuda_init: found 1 ROCm devices:\n  Device 0: AMD Radeon Graphics, gfx1151 (0x1151), VMM: no, "
            "Wave Size: 32\nAvailable devices:\n  ROCm0: AMD Radeon Graphics (65536 MiB, 65000 MiB free)\n")
    gpus = paste_facts.parse(text).gpus
    assert [(g.how, g.name, g.gfx_target) for g in gpus] == [("ggml", "AMD Radeon Graphics", "gfx1151")]


def test_other_backends_devices_are_not_amd_gpus_of_rocm():
    text = ("Available devices:\n  Vulkan0: AMD Radeon RX 7900 XTX (RADV NAVI31) (24560 MiB, 24312 MiB free)\n"
            "  CUDA0: NVIDIA GeForce RTX 4090 (24080 MiB, 23000 MiB free)\n")
    assert _names(text) == []


def test_1000_detects_its_three_gpus():
    system = detect_snapshot(str(_fixture("1000")))
    assert sorted(g.name for g in system.amd_gpus) == ["AMD Radeon Pro V620", "AMD Radeon Pro V620",
                                                        "AMD Radeon Pro W5500"]
