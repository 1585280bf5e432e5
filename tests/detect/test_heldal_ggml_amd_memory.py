"""Set AL (1041, detection): Ollama's ggml logs the PCI address of the AMD GPU whose memory it reads
(ollama/ollama ml/backend/ggml/ggml/src/mem_hip.cpp, ADLX on Windows, sysfs on Linux):
'ggml_backend_cuda_device_get_memory device <bdf> utilizing AMD specific memory reporting free: N total: N' and
'ggml_hip_get_device_memory searching for device <bdf>'.  Both name one AMD GPU by its address."""
from __future__ import annotations

from pathlib import Path

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import paste_facts


def _bdfs(text: str):
    return [g.bdf for g in paste_facts.parse(text).gpus if g.bdf]


def test_the_amd_memory_line_names_the_gpus_address():
    line = ("ggml_backend_cuda_device_get_memory device 0000:63:00.0 utilizing AMD specific memory reporting "
            "free: 296747008 total: 1073741824")
    assert _bdfs(line) == ["0000:63:00.0"]


def test_the_search_line_and_the_report_of_one_gpu_are_one_address():
    text = ("ggml_hip_get_device_memory searching for device 0000:12:00.0\n"
            "time=2026-05-20T19:18:02.059-03:00 level=INFO source=server.go:1384 msg=\"waiting for server\"\n"
            "ggml_backend_cuda_device_get_memory device 0000:12:00.0 utilizing AMD specific memory reporting "
            "free: 7877861376 total: 8573157376\n")
    assert _bdfs(text) == ["0000:12:00.0"]


def test_lines_without_an_address_name_no_gpu():
    # upstream ggml's memory query warning names a device index, not an address
    assert _bdfs("ggml_backend_cuda_device_get_memory: cudaMemGetInfo failed (invalid argument), returning 0/0") == []
    # a prose mention
    assert _bdfs("ggml reads AMD specific memory reporting on Windows") == []


def test_the_fixture_gpu_has_its_address(tmp_path: Path):
    (tmp_path / "server.txt").write_text(
        "ggml_hip_mgmt_init located ADLX version 1.4\n"
        "ggml_backend_cuda_device_get_memory device 0000:63:00.0 utilizing AMD specific memory reporting "
        "free: 296747008 total: 1073741824\n", encoding="utf-8")
    gpus = [g for g in detect_snapshot(str(tmp_path)).gpus if g.is_amd]
    assert [g.bdf for g in gpus] == ["0000:63:00.0"]
