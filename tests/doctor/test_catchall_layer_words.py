"""The catch-all's layer words (detect/failure_lines.toml ``[[layer]]``), narrowed where the held-out sets'
before-measurements showed a word read the wrong way on lines no catalogue row knew (HELDOUT.md, "The catch-all's
words after the held-out confusions"): "kernel" only in the operating system's sense, "amdgpu" only as a word of its
own or the module's file or parameter, "eeprom" only as a word, the HIP row's "hip" not as a path segment or an
application's build option; GPU monitoring tools other than the SMIs read at the runtime layer; the installers'
verdicts and a module's "built for another version" at packaging before the framework's any-``XxxError`` row.

Every line is a real one, from the corpus fixture named beside it; the lines that must keep their layer are real
too.  With the catalogue switched off (as ``scripts/catchall_layers.py`` does), the catch-all's first layer on the
fixtures these words had misplaced is the labelled one."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot, error_index, failure_lines
from rocm_wizard.doctor import diagnose
from rwtest.heldout import fixture

# (fixture, the layer the line names now -- None: it names no layer, its file's kind and the lines above decide --,
#  the layer the old words gave it, the line)
MOVED = [
    ("1027", None, "kernel", "✗ Flash Attention still failed with override: No available kernel. Aborting execution."),
    ("1063", None, "kernel", "[AITER] /app/aiter/aiter_meta/csrc/py_itfs_cu/asm_mla.cu:193 get_heuristic_kernel_mla: "
                             "cannot get heuristic kernel! q_type:bf16 kv_type:fp8 gqa:16 ps:0 prefill:0 causal:0"),
    ("1644", None, "kernel", "radv/amdgpu: Failed to allocate a buffer:"),
    ("1246", "runtime", "kernel", "nvtop: /build/nvtop-0h79qc/nvtop-3.0.0/src/extract_gpuinfo_amdgpu.c:324: "
                                  "initDeviceSysfsPaths: Assertion `gpu_info->hwmonDevice != NULL' failed."),
    ("1440", "runtime", "kernel", "F0106 12:37:25.721352       1 amdgpu.go:151] amdgpu driver unavailable. exiting with "
                                  "exit code 2. error: stat /sys/module/amdgpu/drivers/: no such file or directory"),
    ("896", "framework", "hip", "FAILED: [code=1] ggml/src/ggml-hip/CMakeFiles/ggml-hip.dir/__/ggml-cuda/mmq.cu.o"),
    ("1083", None, "hip", 'Error trying to query ROCm GPUs: Failed to get memory info for hip device id "0".'),
    ("2144", None, "hip", "/home/user/code/apex/csrc/fused_dense_hip.hip:63:7: error: use of undeclared identifier "
                          "'CUBLAS_COMPUTE_64F'"),
    ("854", "packaging", "framework", "FileNotFoundError: [WinError 3] The system cannot find the path specified: "
                                      "'C:\\Users\\anhtu\\miniconda3\\envs\\stt\\Lib\\site-packages\\ctranslate2/../"
                                      "_rocm_sdk_core/bin'"),
    ("899", "packaging", "framework", "RuntimeError: Cuda extensions are being compiled with a version of Cuda that "
                                      "does not match the version used to compile Pytorch binaries.  Pytorch binaries "
                                      "were compiled with Cuda None."),
    ("1304", "packaging", "framework", "[Bug]: ERROR: ResolutionImpossible - RuntimeError: Couldn’t install torch"),
    ("1308", "packaging", "framework", "torch==2.9.0+rocm7.10.0a20251117 cannot be used."),
    ("2145", "packaging", "framework", "-- Check for working CXX compiler: C:/Users/Visu/AppData/Local/Programs/Python/"
                                       "Python314/Lib/site-packages/_rocm_sdk_devel/lib/llvm/bin/clang++.exe - broken"),
]


@pytest.mark.parametrize("num,now,before,line", MOVED, ids=[m[0] for m in MOVED])
def test_a_word_of_another_sense_no_longer_places_the_line(num, now, before, line):
    got = failure_lines.named_layer(line)
    assert got == now, (num, got)
    assert got != before


# real lines whose words keep their layer: the OS kernel, the amdgpu module, HIP's own log and API names
KEPT = [
    ("kernel", "modprobe: ERROR: could not insert 'amdgpu': Key was rejected by service"),
    ("kernel", "[   93.248827] WARNING: CPU: 7 PID: 2893 at drivers/gpu/drm/amd/amdgpu/../display/dc/hubbub/dcn31/"
               "dcn31_hubbub.c:151 hubbub31_init_dchub_sys_ctx+0x610/0x27d0 [amdgpu]"),
    ("kernel", "The system is OpenSuse Tumbleweed with kernel 6.19.6, the graphics is AMD gfx1201 / Radeon RX 9070XT "
               "and the ROCm 7.2.0"),
    ("kernel", "Tested **0.17.8-rc1** on Strix Halo (Radeon 8060S, gfx1151) — Linux kernel 6.17.0-14-generic, system "
               "ROCm 7.2.0."),
    ("kernel", "After testing, it seems to be \"amdgpu.cwsr_enable=0\" that stops the crashing.  I removed the other 2 "
               "arguments without issues."),
    ("hip", ":1:hip_fatbin.cpp           :117 : 8802962845 us: [pid:19349 tid:0x14dec9d33080] Missing CO for these "
            "ISAs - "),
    ("hip", "[rocm] HIP Graph capture raises segmentation fault on AMD GPU but CUDA Graph capture succeeds on Nvidia "
            "GPU"),
    ("hip", "hipModuleGetFunction(): named symbol not found"),
    ("firmware", "[    5.692467] [drm:amdgpu_ras_eeprom_init [amdgpu]] *ERROR* Failed to read EEPROM table header, "
                 "res:-5"),
]


@pytest.mark.parametrize("layer,line", KEPT)
def test_the_words_in_their_own_sense_keep_their_layer(layer, line):
    assert failure_lines.named_layer(line) == layer


def test_eeprom_inside_a_field_name_is_not_the_firmware():
    # RDC's metric fetcher (ROCm/rdc RdcMetricFetcherImpl.cc) naming an SMI field, not an EEPROM read of the driver's
    line = "ERROR RdcMetricFetcherImpl.cc(1817): Fail to fetch 0:EEPROM_CONFIG_VALID with rsmi error code 1"
    assert failure_lines.named_layer(line) == "runtime"


@pytest.mark.parametrize("num", ["1063", "1246", "1440", "854", "1308", "2145"])
def test_catch_all_alone_places_the_fixture_at_its_labelled_layer(num, monkeypatch):
    """Catalogue off: every line is an unknown one and only the catch-all speaks (scripts/catchall_layers.py)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    folder = fixture(num)
    label = tomllib.loads((folder / "labels.toml").read_text(encoding="utf-8"))["failure_layer"]
    monkeypatch.setattr(error_index, "scan", lambda text, limit=50: [])
    found = [f for f in diagnose(detect_snapshot(str(folder))).findings if f.id == "unrecognised-failure"]
    assert found and found[0].layer == label, (num, [f.layer for f in found])
