"""Which program a paste comes from, by lines only that program prints.

A user pasting a llama.cpp, Ollama, vLLM or ComfyUI log needs other advice than a PyTorch user
(llama.cpp and Ollama carry their own GPU code: a torch reinstall changes nothing for them; vLLM's
images ship their own Triton on purpose).  Each pattern is a line shape from the program's own
source (file named per row), anchored or bounded, so a paste is scanned in linear time; a program's
name in prose does not count.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from ._core_text import lazy, lowered

# (workload id, pattern, where the program prints it)
_ROWS: Tuple[Tuple[str, object, str], ...] = (
    # ggml/src/ggml-cuda/ggml-cuda.cu: "ggml_cuda_init: found %d ROCm devices", the ROCm error block
    ("llama.cpp", lazy(r"\bggml_cuda_init: (?:found \d+ (?:ROCm|CUDA) devices|GGML_CUDA_FORCE)"), "ggml-org/llama.cpp ggml/src/ggml-cuda/ggml-cuda.cu"),
    ("llama.cpp", lazy(r"/ggml-cuda/ggml-cuda\.cu:\d+: (?:ROCm|CUDA) error|\bggml_cuda_compute_forward: \w+ failed"), "ggml-org/llama.cpp ggml/src/ggml-cuda/ggml-cuda.cu"),
    # src/llama-model-loader.cpp, src/llama-context.cpp, tools/server: the loader's and server's log lines
    ("llama.cpp", lazy(r"^(?:llama_model_loader|llama_context|load_tensors|common_init_from_params|llama_kv_cache):"), "ggml-org/llama.cpp src/llama-model-loader.cpp, src/llama-context.cpp, common/common.cpp"),
    ("llama.cpp", lazy(r"(?:^|[\s/])(?:llama-server|llama-cli|llama-bench)\b|/libggml-hip\.so\b"), "ggml-org/llama.cpp tools/ (program names), ggml/src/ggml-hip (library path)"),
    # the failure lines of ggml's HIP backend and of llama.cpp's loader (docs/coverage-sources.md): ggml_cuda_init's
    # "failed to initialize ROCm", the buffer type's "cudaMalloc failed", ggml-alloc's and llama's allocation and
    # load errors (ROCm<N> names a HIP device's buffer), common/arg.cpp's "no usable GPU found" for -ngl
    ("llama.cpp", lazy(r"\bggml_cuda_init: failed to initialize (?:ROCm|CUDA)\b|: allocating \S+ MiB on device \d+: cudaMalloc failed\b"
                       r"|(?:failed|unable) to allocate ROCm\d+ buffer\b|\b(?:llama_model_load|llama_init_from_model|common_init_from_params)"
                       r": (?:error loading model|failed to )|no usable GPU found, --gpu-layers option will be ignored"),
     "ggml-org/llama.cpp ggml/src/ggml-cuda/ggml-cuda.cu, ggml/src/ggml-alloc.c, src/llama.cpp, common/common.cpp, common/arg.cpp"),
    # (s24) LM Studio runs its llama.cpp engines from its own folder (~/.lmstudio/extensions/backends/, a vendor
    # folder with the engine's ROCm libraries beside them) and names each engine by platform and variant
    # ('llama.cpp-win-x86_64-amd-rocm-avx2', 'llama.cpp-linux-x86_64-vulkan-avx2': lmstudio-ai/lms
    # src/subcommands/runtime/survey.ts prints them); its GPU code is llama.cpp's, not a Python venv's torch
    ("llama.cpp", lazy(r"[\\/]\.lmstudio[\\/]extensions[\\/]backends[\\/]|(?<![\w.-])llama\.cpp-(?:win|linux|mac)-(?:x86_64|arm64|aarch64)-[a-z][\w.-]{0,60}"),
     "lmstudio-ai/lms src/subcommands/runtime/survey.ts (engine names); LM Studio's engine folder ~/.lmstudio/extensions/backends"),
    # Ollama's slog lines (server/routes.go, discover/amd_linux.go) and its systemd unit
    ("ollama", lazy(r"\bsource=(?:routes|gpu|amd|amd_linux|amd_windows|amd_common|runner|types|sched|server|llama_server|images)\.go:\d+ msg="),
     "ollama/ollama server/routes.go, server/sched.go, discover/amd_linux.go, discover/amd.go, discover/runner.go, llm/server.go"),
    # llm/server.go "llama runner process has terminated: %w" (llm/llama_server.go "llama-server process has
    # terminated" later), discover/runner.go's llama-server GPU discovery lines: only Ollama prints these
    ("ollama", lazy(r"\bllama(?: runner|-server) process has terminated\b|\bllama-server GPU discovery\b"), "ollama/ollama llm/server.go, llm/llama_server.go, discover/runner.go"),
    ("ollama", lazy(r"\bollama\[\d+\]: |\bollama\.service\b|(?:^|[\s/])ollama (?:serve|run|ps|pull|gpu-discover)\b"), "ollama/ollama scripts/install.sh (ollama.service)"),
    # vLLM: vllm/platforms/__init__.py, vllm/entrypoints/openai/api_server.py, its images
    ("vllm", lazy(r"\bAutomatically detected platform rocm\b|\bvLLM API server version\b|\bvllm/vllm-openai(?:-rocm)?\b|\brocm/vllm\b"), "vllm-project/vllm vllm/platforms/__init__.py, vllm/entrypoints/openai/api_server.py"),
    ("vllm", lazy(r"^\[pip3?\] vllm==|^vllm==\d|(?:^|\s)vllm serve\b"), "vllm-project/vllm (package name)"),
    # vllm/collect_env.py "vLLM Version: X" (not "N/A": vLLM absent), vllm/_custom_ops.py's warning,
    # docker/Dockerfile's WORKDIR /vllm-workspace, `pip list`'s row
    ("vllm", lazy(r"^vLLM Version\s*:\s*v?\d|\bFailed to import from vllm\._(?:rocm_)?C with\b|(?:^|[\s:=\"'])/vllm-workspace\b|^vllm\s+\d+\.\d+"),
     "vllm-project/vllm vllm/collect_env.py, vllm/_custom_ops.py, docker/Dockerfile (WORKDIR /vllm-workspace)"),
    # ComfyUI: execution.py "!!! Exception during processing !!!", comfy/model_management.py start-up lines
    ("comfyui", lazy(r"^!!! Exception during processing !!!|^Set vram state to: |^Total VRAM \d+ MB, total RAM \d+ MB|\bComfyUI\b"), "comfyanonymous/ComfyUI execution.py, comfy/model_management.py"),
    ("comfyui", lazy(r"\bGot an OOM, unloading all loaded models\b"), "comfyanonymous/ComfyUI execution.py"),
    # (s12-heldat) a ROCm library's own client run by name: MIOpen's driver (ROCm/MIOpen driver/driver.cpp), rocBLAS's and
    # hipBLASLt's benchmark clients (ROCm/rocBLAS clients/benchmarks/client.cpp; hipBLASLt clients/benchmarks): they run
    # that library's kernels only
    # (a command line: the program, for MIOpenDriver its operation, then options; the name in prose is not it)
    ("MIOpenDriver", lazy(r"(?:^|[\s/=])MIOpenDriver\s+[A-Za-z][A-Za-z0-9]{1,30}\s+-{1,2}[A-Za-z]"), "ROCm/MIOpen driver/driver.cpp"),
    ("rocblas-bench", lazy(r"(?:^|[\s/=])rocblas-bench\s+-{1,2}[A-Za-z]"), "ROCm/rocBLAS clients/benchmarks/client.cpp"),
    ("hipblaslt-bench", lazy(r"(?:^|[\s/=])hipblaslt-bench\s+-{1,2}[A-Za-z]"), "ROCm/hipBLASLt clients/benchmarks"),
)
_NEEDLES = ("ggml", "llama", ".lmstudio", "source=", "ollama", "vllm", "comfyui", "exception during processing", "vram", "detected platform rocm",
            "cudamalloc failed", "to allocate rocm", "gpu-layers", "got an oom", "miopendriver", "rocblas-bench",
            "hipblaslt-bench")


def scan(text: object) -> List[Tuple[str, str]]:
    """(workload id, the first line that shows it) per workload found in ``text``; never raises.

    The same answer as :func:`scan_reference` (every row over every line): a row is tried only on
    the lines that hold one of the literal strings every match of it contains."""
    if not isinstance(text, str) or not text:
        return []
    low = lowered(text)
    if not any(n in low for n in _NEEDLES):
        return []
    from ..error_index import _fold, factor_case

    # (s15-speed) the copy of low that the rows' factors are looked up in: U+0131 and U+017F stand as
    # i and s there, as they match under re.I, and so does each factor (error_index.factor_case says
    # why the answer stays scan_reference's); None: a character lower-cases to two, read line by line
    flow = factor_case(text, low)
    if flow is None:
        return scan_reference(text)
    t = text.replace("\r", "\n")
    low = flow.replace("\r", "\n")
    first: Dict[str, Tuple[int, int]] = {}  # workload -> (line start, rank of the workload)
    ranks: Dict[str, int] = {}
    for wid, rx, _src in _ROWS:
        rank = ranks.setdefault(wid, len(ranks))
        facs = tuple(_fold(f) for f in _factors(rx))
        if not facs:
            return scan_reference(text)
        st = _first_line(t, low, facs, rx, first[wid][0] if wid in first else None)
        if st is not None:
            first[wid] = (st, rank)
    order = sorted(first, key=lambda w: first[w])
    out = []
    for wid in order:
        st = first[wid][0]
        nl = t.find("\n", st)
        out.append((wid, t[st:nl if nl >= 0 else len(t)].strip(" \t`>")[:200]))
    return out


def _first_line(t: str, low: str, facs: Tuple[str, ...], rx: object, bound: Optional[int]) -> Optional[int]:
    """The start of the first line before ``bound`` (a line start; None: the text's end) that holds
    one of ``facs`` and where ``rx`` matches (the line stripped as scan_reference strips it), or
    None.  The lines holding a factor are taken in order, each factor's next place found only once
    the lines before it are done, and nothing is looked for past ``bound``."""
    size = len(t)
    end = size if bound is None else min(size, bound + max(len(f) for f in facs))
    nxt = [low.find(f, 0, end) for f in facs]
    while True:
        i = min((j for j in nxt if j >= 0), default=-1)
        if i < 0:
            return None
        st = t.rfind("\n", 0, i) + 1
        if bound is not None and st >= bound:
            return None
        nl = t.find("\n", st)
        line = t[st:nl if nl >= 0 else size].strip(" \t`>")
        if line and len(line) <= 2000 and rx.search(line):  # type: ignore[attr-defined]
            return st
        if nl < 0:
            return None
        # (the factors' places on this line are done: each looks on from the next line)
        for k, j in enumerate(nxt):
            if 0 <= j <= nl:
                nxt[k] = low.find(facs[k], nl + 1, end)


_FACTORS: Dict[int, Tuple[str, ...]] = {}


def _factors(rx: object) -> Tuple[str, ...]:
    got = _FACTORS.get(id(rx))
    if got is None:
        from ..error_signatures import literal_factors

        got = _FACTORS[id(rx)] = literal_factors(rx.pattern, rx.flags)  # type: ignore[attr-defined]
    return got


_KINDS = len({wid for wid, _rx, _src in _ROWS})  # (every kind found: no line can add one)


def scan_reference(text: object) -> List[Tuple[str, str]]:
    """The plain form of :func:`scan`, line by line (the tests hold scan() to it)."""
    if not isinstance(text, str) or not text:
        return []
    low = text.lower()
    if not any(n in low for n in _NEEDLES):
        return []
    found: dict = {}
    for raw in text.replace("\r", "\n").split("\n"):
        line = raw.strip(" \t`>")
        if not line or len(line) > 2000:
            continue
        for wid, rx, _src in _ROWS:
            if wid in found:
                continue
            if rx.search(line):  # type: ignore[attr-defined]
                found[wid] = line[:200]
        if len(found) == _KINDS:
            break
    return list(found.items())


def sources() -> List[str]:
    return sorted({src for _w, _rx, src in _ROWS})
