"""The workload is recognised from the failure lines the workloads themselves print (issue 28, point 5).

A llama.cpp or Ollama user pastes ggml's and Ollama's own failure lines, often nothing else: doctor must
see which program printed them (``detect/parsers/workloads.py``) so that it does not offer a PyTorch
reinstall, which changes nothing for a program that carries its own GPU code. The lines are the
sweep's (``tests/data/coverage_sources.toml``, docs/coverage-sources.md): public lines where one was
found, otherwise the source's format filled in. The GPU in the snapshot is a real rocminfo of a healthy
RX 7900 XTX fixture, so that doctor has a GPU to plan for.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect.parsers import workloads
from rocm_wizard.doctor import diagnose

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
ROCMINFO = REAL / "376-rx7900xtx-ubuntu22.04-rocminfo-gfx1100-agent-healthy" / "rocminfo.txt"

# (the line, the workload that prints it): ggml-org/llama.cpp, ollama/ollama, vllm-project/vllm, ComfyUI
LINES = [
    ("ggml_cuda_init: failed to initialize ROCm: unknown error", "llama.cpp"),
    ("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 14136.04 MiB on device 0: cudaMalloc failed: out of memory", "llama.cpp"),
    ("ggml_gallocr_reserve_n: failed to allocate ROCm0 buffer of size 14822711296", "llama.cpp"),
    ("0.06.650.537 E llama_init_from_model: failed to initialize the context: failed to allocate buffer for kv cache", "llama.cpp"),
    ("llama_model_load: error loading model: unknown model architecture: 'glm5next'", "llama.cpp"),
    ("warning: no usable GPU found, --gpu-layers option will be ignored", "llama.cpp"),
    ("Error: llama runner process has terminated: exit status 2", "ollama"),
    ("Error: llama-server process has terminated: exit status 2", "ollama"),
    ('time=2026-08-01T10:00:00.000Z level=WARN source=amd.go:470 msg="dropping ROCm device — no rocblas support for gfx target" gfx_target=gfx1031', "ollama"),
    ('time=2026-08-01T10:00:00.000Z level=INFO source=runner.go:522 msg="failure during llama-server GPU discovery" error="exit status 2"', "ollama"),
    ("WARNING 03-01 10:00:00 [rocm.py:44] Failed to import from vllm._rocm_C with ImportError('libamdhip64.so.6: cannot open shared object file')", "vllm"),
    ("Got an OOM, unloading all loaded models.", "comfyui"),
    # (s24) LM Studio's llama.cpp engines, by their folder and their name (tests/data/real/3400, 1083: LM Studio's
    # bundled rocBLAS failing, its engine refusing the GPU)
    ("rocBLAS error: Cannot read /home/xyzzy/.lmstudio/extensions/backends/vendor/linux-llama-rocm-vendor-v3/rocblas/"
     "library/TensileLibrary.dat: Illegal seek for GPU arch : gfx1151", "llama.cpp"),
]
NOT_TORCH = {"llama.cpp", "ollama"}


@pytest.mark.parametrize("line,wid", LINES, ids=[f"{w}:{ln[:30]}" for ln, w in LINES])
def test_the_workload_is_seen_in_its_own_failure_line(line, wid):
    found = [w for w, _l in workloads.scan(line)]
    assert wid in found, found
    assert workloads.scan(line) == workloads.scan_reference(line)


def test_lm_studios_engine_name_is_llama_cpp():
    # (s24) the engine's name carries its platform; a Windows engine is also a Windows sign (detect/windows_facts.py),
    # so this line is checked here alone rather than in a Linux snapshot above (tests/data/real/1083)
    line = ("Backend 'llama.cpp-win-x86_64-amd-rocm-avx2' requires GPU acceleration, but GPU survey software was unable "
            "to detect any compatible GPUs.")
    assert [w for w, _l in workloads.scan(line)] == ["llama.cpp"]
    assert [w for w, _l in workloads.scan('"name": "llama.cpp-linux-x86_64-vulkan-avx2",')] == ["llama.cpp"]
    assert workloads.scan("I use llama.cpp-based apps such as LM Studio") == []


def test_a_program_name_in_prose_is_not_a_workload():
    # the rows are line shapes the programs print, not their names: a sentence naming them is none
    for text in ("I tried ollama and llama.cpp before, then vLLM.",
                 "Got an OOM error yesterday", "allocating memory on device failed"):
        assert workloads.scan(text) == [], text


@pytest.mark.parametrize("line,wid", [p for p in LINES if p[1] in NOT_TORCH], ids=lambda v: str(v)[:30])
def test_no_torch_reinstall_for_a_program_without_torch(tmp_path, line, wid):
    shutil.copy(ROCMINFO, tmp_path / "rocminfo.txt")
    (tmp_path / "log.txt").write_text(line + "\n", encoding="utf-8")
    diag = diagnose(detect_snapshot(str(tmp_path)))
    assert "workload-not-pytorch" in diag.ids()
    torch = [r for r in diag.recommendations if r.path == "torch-reinstall"]
    assert torch and not torch[0].applies, [(r.path, r.applies) for r in diag.recommendations]
    # (s24) nor AMD's PyTorch image: the program is not in it
    docker = [r for r in diag.recommendations if r.path == "docker"]
    assert docker and not docker[0].applies and wid in docker[0].why
    # and the line itself is a known failure (the catalogue's, or a rule's that quotes it), not the catch-all's
    assert "unrecognised-failure" not in diag.ids()
    assert any(f.id != "workload-not-pytorch" and f.severity in ("warning", "error", "critical")
               and any(line[:60] in e for e in f.evidence) for f in diag.findings), diag.ids()


def test_a_pytorch_failure_still_gets_the_torch_way_out(tmp_path):
    # the control: the same GPU with PyTorch's HIP error and no workload line
    shutil.copy(ROCMINFO, tmp_path / "rocminfo.txt")
    (tmp_path / "log.txt").write_text("RuntimeError: HIP error: invalid device function\n", encoding="utf-8")
    diag = diagnose(detect_snapshot(str(tmp_path)))
    assert "workload-not-pytorch" not in diag.ids()
    assert any(r.path == "torch-reinstall" and r.applies for r in diag.recommendations)


@pytest.mark.parametrize("line,wid", LINES, ids=[f"{w}:{ln[:30]}" for ln, w in LINES])
def test_dotless_i_and_long_s_are_found_as_the_row_patterns_find_them(line, wid):
    # (s15-speed) U+0131 and U+017F match i and s under re.I but lower-case to themselves: scan finds a
    # row's factors with them standing as i and s, and must answer what every row over every line does
    # -- each variant spelled with them, in a paste with other lines around and with a near miss (the
    # characters on a line no row matches)
    variants = [line.replace("i", "\u0131"), line.replace("s", "\u017f"), line.replace("I", "\u0131", 1),
                line.replace("s", "\u017f", 1), line.replace("i", "\u0131").replace("s", "\u017f")]
    for v in variants:
        text = "a line of prose about \u017fome \u0131tem\n" + v + "\nDone.\n" + line + "\n"
        assert workloads.scan(text) == workloads.scan_reference(text), v
        assert workloads.scan(v) == workloads.scan_reference(v), v
    near = "the \u0131nit of the \u017fystem went fine\n" + line
    assert workloads.scan(near) == workloads.scan_reference(near)
    assert wid in [w for w, _l in workloads.scan(near)]
    # U+0130 lower-cases to two characters: still the plain form's answer
    dotted = line.replace("i", "\u0130")
    assert workloads.scan(dotted) == workloads.scan_reference(dotted)
