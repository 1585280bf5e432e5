"""Single-line facts found anywhere in a paste, whatever tool (or person) wrote the lines around them.

Bug reports mix outputs and prose, and many tools print one telling line each.  Each pattern here
matches one whole, distinctive line, so it can be looked for in every paste without knowing what
the paste is:

* kernel log lines naming a GPU: ``amdgpu 0000:83:00.0: ...``, ``initializing kernel modesetting
  (ALDEBARAN 0x1002:0x740F 0x1002:0x0C34 0x02)``, ``kfd kfd: skipped device 1002:67df, PCI rejects
  atomics`` (dmesg, journalctl, or quoted in prose);
* PyTorch: ``print(torch.__version__, torch.version.hip)`` (``2.11.0+rocm7.2 hip: 7.2.26015``), a
  REPL's ``'2.4.1+rocm6.1'``, ``torch.cuda.get_device_properties(0)``'s repr (``name='AMD Instinct
  MI300X', ... gcnArchName='gfx942:sramecc+:xnack-'``), ComfyUI's start-up (``pytorch version:
  ...``, ``AMD arch: gfx1100``, ``Device: cuda:0 AMD Radeon RX 7900 XTX : native``);
* llama.cpp's ``ggml_cuda_init`` device lines (``Device 0: AMD Radeon Graphics, gfx1151 (0x1151)``);
* llama.cpp's ``--list-devices`` and server device lines of its HIP backend (``ROCm0: AMD Radeon Pro W5500 (8176 MiB,
  8034 MiB free)``, ``- ROCm0   : ...``), which name the GPU but not its target;
* rocBLAS's missing-kernels error (``... TensileLibrary.dat: Illegal seek for GPU arch : gfx906``), which
  names the running device's target (not taken from a paste that sets ``HSA_OVERRIDE_GFX_VERSION``);
* a ``uname -a`` / ``uname -srmv`` line (``Linux host 6.8.0-45-generic #45-Ubuntu SMP ... GNU/Linux``)
  and ``Kernel version: 5.15.0-101-generic``;
* a line that is only a distribution's name and version (the OS field of ROCm's issue template:
  ``Ubuntu 24.04.3 LTS (Noble Numbat)``).

Every pattern is anchored and has no nested repetition: a paste is scanned in linear time.
"""
from __future__ import annotations

import re
from ...model import field
from typing import List, Optional, Tuple

from ...model import lean_dataclass
from ._core_text import lazy, lowered
from .uname import RELEASE_RE
from ..paste_text import STAMP_OR_STEP

_BDF = r"(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"
# "amdgpu 0000:83:00.0: amdgpu: ..." (not "pcieport 0000:08:00.0", which is the bridge above it)
_AMDGPU_BDF = lazy(r"\bamdgpu (?P<bdf>" + _BDF + r"): ")
_MODESET = lazy(r"initializing kernel modesetting \((?P<chip>IP DISCOVERY|[A-Z][A-Z0-9_]*) 0x1002:0x(?P<dev>[0-9A-Fa-f]{4}) "
                r"0x[0-9A-Fa-f]{4}:0x[0-9A-Fa-f]{4} 0x(?P<rev>[0-9A-Fa-f]{2})\)")
_KFD_DEVICE = lazy(r"\bkfd(?: kfd)?: (?:amdgpu: )?(?P<what>added|skipped) device 1002:(?P<dev>[0-9a-fA-F]{4})\b")
_GCN_ARCH = lazy(r"gcnArchName='(?P<gfx>gfx[0-9a-f]{3,4})(?P<feat>(?::[a-z]+[+-])*)'")
# a script's print of the same property on a line of its own: "GCN arch: gfx906:sramecc-:xnack-"
# (s11-heldan) hipInfo's device name line (hip-tests samples/1_Utils/hipInfo/hipInfo.cpp prints "Name: " and
# props.name, then the properties, "gcnArchName: " among them): the name its gcnArchName line belongs to.  Only an AMD
# GPU's name (rocminfo's agents are "Name: gfx..." and its CPU agents "AMD Ryzen ..."; those are not taken)
_HIPINFO_NAME = lazy(r"^\s*Name:\s+(?P<name>(?:AMD\s+)?(?:Radeon|Instinct)\b[^:]{0,100}?)\s*$")
_GCN_ARCH_LINE = lazy(r"^\s*(?:GCN arch|gcnArchName)\s*[:=]\s*'?(?P<gfx>gfx[0-9a-f]{3,4})(?P<feat>(?::[a-z]+[+-])*)'?\s*$", re.I)
_PROPS_NAME = lazy(r"_CudaDeviceProperties\(name='(?P<name>[^']{1,120})'")
# Ollama's GPU discovery (ollama/ollama discover/runner.go): the runner's device list as Go prints the struct,
# "devices="[{DeviceID:{ID:0 Library:ROCm} Name:ROCm0 Description:AMD Radeon RX 6650M FilterID: Integrated:false
# PCIID:0000:03:00.0 TotalMemory:..." (s9-helds), and the server's per-GPU line 'msg="inference compute" id=0
# library=ROCm compute=gfx1030 name=ROCm0 description="AMD Radeon RX 6800" ... pci_id=0000:03:00.0 type=discrete'
_OLLAMA_DEVICE = lazy(r"\{DeviceID:\{ID:(?P<idx>\d+) Library:ROCm\} Name:\S+ Description:(?P<name>[^{}]{1,120}?) "
                      r"(?:FilterID:\S* )?Integrated:(?:true|false) PCIID:(?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])")
_OLLAMA_COMPUTE = lazy(r'msg="inference compute" id=(?P<idx>\S+) .*?\blibrary=ROCm compute=(?P<gfx>gfx[0-9a-f]{3,4})\S* '
                       r'.*?\bdescription="(?P<name>[^"]{1,120})"(?:.*?\bpci_id="?(?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:'
                       r'[0-9a-fA-F]{2}\.[0-7]))?')
# (s19-detgen) the same server line as Ollama 0.3-0.9 printed it (discover/types.go, LogDetails: "id", "library", "variant",
# "compute", "driver", "name", "total", "available"): 'msg="inference compute" id=0 library=rocm variant="" compute=gfx1102
# driver=0.0 name=1002:7480 total="8.0 GiB"' -- the library in lower case, the name the PCI vendor:device pair or the
# marketing name in quotes.  A CUDA or CPU line is not read (library=cuda / cpu)
# (s20-ollamawin) Ollama 0.2-0.3.5 printed the line without "variant" (gpu/types.go LogDetails: "id", "library",
# "compute", "driver", "name", "total", "available"): 'msg="inference compute" id=0 library=rocm compute=gfx900
# driver=0.0 name=1002:687f total="8.0 GiB"' (ollama/ollama#6336, Ollama 0.3.3), so the variant is optional
_OLLAMA_COMPUTE_OLD = lazy(r'msg="inference compute" id=(?P<idx>\S+) library=rocm (?:variant=(?:"[^"\n]{0,40}"|\S{0,40}) )?'
                           r'compute=(?P<gfx>gfx[0-9a-f]{3,4})(?::[a-z]+[+-])* driver=\S{1,20} '
                           r'name=(?:1002:(?P<dev>[0-9a-fA-F]{4})|"(?P<name>[^"\n]{1,120})")(?:\s|$)')
# the same discovery's second pass, one debug line per GPU before its init validation (s9-heldu, 754):
# slog.Debug("verifying if device is supported", "library", libDir, "description", ..., "compute", ..., "id", ...,
# "pci_id", ...) -> 'msg="verifying if device is supported" library=/usr/lib/ollama/rocm_v7_2 description="Radeon 8060S
# Graphics" compute=gfx1151 id=0 pci_id=0000:c3:00.0'.  Printed also for a GPU the pass then drops, which is still a GPU
# of the machine.  Only AMD targets (compute=gfxNNNN); CUDA devices print a capability (compute=6.1).
# (s20-blogs) Ollama's sysfs discovery skipping a GPU older than its ROCm minimum (ollama/ollama discover/amd_linux.go,
# AMDGetGPUInfo: reason := fmt.Sprintf("amdgpu too old gfx%d%x%x", major, minor, patch); slog.Warn(reason, "gpu", gpuID))
# -> 'msg="amdgpu too old gfx802" gpu=0'.  The target is the node's own gfx_target_version from sysfs (an override does
# not change it), so it names a GPU of the machine that the application then leaves out.
_OLLAMA_TOO_OLD = lazy(r'msg="amdgpu too old (?P<gfx>gfx[0-9a-f]{3,4})" gpu=(?P<idx>\d{1,3})\b')
# (s22-ollama24win) the same sysfs discovery's verdict on each GPU against the bundled ROCm libraries' targets, Ollama
# 0.1.33-0.9 (ollama/ollama gpu/amd_linux.go, later discover/amd_linux.go, AMDGetGPUInfo: slog.Info("amdgpu is
# supported", "gpu", gpuInfo.ID, "gpu_type", gfx); slog.Warn("amdgpu is not supported", "gpu", ..., "gpu_type", gfx,
# "library", ..., "supported_types", ...), since 0.5 the reason 'amdgpu is not supported (supported types:[...])' with
# "gpu_type" first; amd_windows.go the same) -> 'msg="amdgpu is supported" gpu=0 gpu_type=gfx1102'.  gfx is the node's
# own gfx_target_version from sysfs (with HSA_OVERRIDE_GFX_VERSION set the check is skipped and nothing is printed),
# so it names a GPU of the machine, supported or not
_OLLAMA_SUPPORTED = lazy(r'msg="amdgpu is (?:not )?supported(?: \(supported types:[^"\n]{0,400}\))?"'
                         r'(?=[^\n]{0,40}\bgpu=(?P<idx>\d{1,3})\b)[^\n]{0,40}?\bgpu_type=(?P<gfx>gfx[0-9a-f]{3,4})\b')
# (s20-ollamawin) Ollama 0.1.27-0.1.31's sysfs discovery (ollama/ollama gpu/amd_linux.go, AMDGetGPUInfo) lists every
# KFD node's gfx_target_version before its support checks: slog.Info(fmt.Sprintf("detected amdgpu versions %v",
# verStrings)) -> 'msg="detected amdgpu versions [gfx1010]"'.  Each entry is Version.ToGFXString(), fmt.Sprintf("gfx%d%d%d",
# major, minor, patch) -- decimal, so gfx90a prints as "gfx9010" and gfx90c as "gfx9012" -- and a CPU-only node past the
# first prints "gfx000".  The sysfs value is the GPU's own (an override does not change it): every GPU of the machine.
_OLLAMA_DETECTED = lazy(r'msg="detected amdgpu versions \[(?P<list>gfx\d{3,5}(?: gfx\d{3,5}){0,31})\]"')


def _ollama_decimal_gfx(tok: str) -> Optional[str]:
    """Ollama 0.1.x's decimal 'gfx%d%d%d' as the hex-patch target name; None for a CPU node or a malformed one."""
    d = tok[3:]
    if d.startswith("9") and len(d) in (3, 4):
        major, minor, patch = 9, int(d[1]), int(d[2:])
    elif d[:1] == "1" and len(d) in (4, 5):
        major, minor, patch = int(d[:2]), int(d[2]), int(d[3:])
    elif d[:1] in "678" and len(d) == 3:
        major, minor, patch = int(d[0]), int(d[1]), int(d[2])
    else:
        return None
    if patch > 15:
        return None
    return "gfx%d%d%x" % (major, minor, patch)
# Ollama's ggml reads an AMD GPU's memory by its PCI address (ollama/ollama ml/backend/ggml/ggml/src/mem_hip.cpp:
# ADLX on Windows, sysfs on Linux) and logs it: 'ggml_hip_get_device_memory searching for device 0000:12:00.0',
# 'ggml_backend_cuda_device_get_memory device 0000:63:00.0 utilizing AMD specific memory reporting free: N total: N'
# (s11-heldal, set AL).  Printed only for an AMD device: the GPU's address, nothing else.
_GGML_AMD_MEMORY = lazy(r"\bggml_(?:backend_cuda_device_get_memory device|hip_get_device_memory searching for device) "
                        r"(?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\b")
_OLLAMA_VERIFY = lazy(r'msg="verifying if device is supported" library=\S+ description="(?P<name>[^"]{1,120})" '
                      r'compute=(?P<gfx>gfx[0-9a-f]{3,4})\S* id=(?P<idx>\S+) pci_id="?(?P<bdf>[0-9a-fA-F]{4}:'
                      r'[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])')
# llama.cpp's device list of its HIP backend ("ROCm<N>"): common/arg.cpp's --list-devices printf("  %s: %s (%zu MiB,
# %zu MiB free)") and the server's "  - %-8s: %s (%zu MiB, %zu MiB free)" (s11-heldaj); the name is the device's
# description (hipDeviceProp_t.name), no gfx target
_GGML_LIST_DEVICE = lazy(r"^(?:- )?ROCm(?P<idx>\d{1,2}) {0,8}: (?P<name>[^()\n]{1,160}?) \(\d{1,9} MiB, \d{1,9} MiB free\)\s*$")
# the line as journalctl prints it keeps syslog's prefix before the process name: 'Feb 27 08:57:36 host ollama[2038]:'
# (journalctl's default short format), or '2026-02-27T08:57:36+0100 host ollama[2038]:' (-o short-iso) (s11-heldap, 1123)
_GGML_DEVICE = lazy(r"^(?:(?:[A-Z][a-z]{2} {1,2}\d{1,2} \d{2}:\d{2}:\d{2}|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}"
                    r"(?:\.\d+)?(?:[+-]\d{2}:?\d{2}|Z)?) \S+ )?(?:[\w.-]+\[\d+\]:)?\s*Device (?P<idx>\d+): "
                    r"(?P<name>[^,]{1,120}), (?P<gfx>gfx[0-9a-f]{3,4})(?::[a-z]+[+-])* \(0x[0-9a-f]+\)")
# rocminfo's Name / Marketing Name lines as ROCm's issue template greps them ("GPU:" block)
_AGENT_NAME = lazy(r"^\s*Name:\s+(?P<gfx>gfx[0-9a-f]{3,4})\s*$")
_MARKETING = lazy(r"^\s*Marketing Name:\s+(?P<name>\S.{0,120}?)\s*$")
# amd-smi's default table: "| 0000:c1:00.0 ...adeon 890M Graphics | N/A ..."
_SMI_TABLE_ROW = lazy(r"^\|\s*(?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+(?P<name>\S[^|]{0,60}?)\s*\|")
# rocm-smi --showproductname --csv: "card0,Arcturus GL-XL [AMD Instinct MI100],0x0c34,Advanced Micro Devices ..."
_SMI_CSV_ROW = lazy(r"^card(?P<idx>\d+),(?P<series>[^,]{1,120}),(?P<model>[^,]{0,40}),")
# ComfyUI (comfy/model_management.py) logs the current device's gcnArchName as "AMD arch: {}" (newer
# releases "AMD Arch: {}"; the name may carry ":sramecc+:xnack-") and that device's name in "Device: ..."
# (s19-newcomer) The frontend's error report (ComfyUI_frontend src/utils/errorReportUtil.ts) copies the server's log
# under "## Logs", each entry prefixed by its ISO time and " - " (app/logger.py LogInterceptor.write keeps
# {"t": datetime.now().isoformat(), "m": data}; the logs route joins t + " - " + m):
# "2025-04-25T15:51:00.752933 - AMD arch: gfx1103" (2342); the device's allocator may be hipMallocAsync (2341)
_COMFY_LOG_TIME = r"(?:\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})? - )?"
_COMFY_ARCH = lazy(r"^\s*" + _COMFY_LOG_TIME + r"AMD arch: (?P<gfx>gfx[0-9a-f]{3,4})(?::[a-z]+[+-])*\s*$", re.I)
_COMFY_DEVICE = lazy(r"^\s*" + _COMFY_LOG_TIME + r"Device: cuda:(?P<idx>\d+) (?P<name>.{1,120}?) : "
                     r"(?:native|cudaMallocAsync|hipMallocAsync)\s*$")
# (s25-newestwin, set IX 3532) comfyui-rocm's Windows installer (patientx-cfz/comfyui-rocm detect_gpu.py detect_gpu():
# print(f"\nMatched GPU: {gpu}"), print(f"Architecture: {arch_name} ({gfx})"), then the status) names the GPU Windows
# reports and the target its table gives that name; only a whole target is read ("(gfx1031)", "(gfx900)"), not a family
# the table gives some names ("(gfx110X)", "(gfx120X)"), and only on the next non-blank line after "Matched GPU:"
_INSTALLER_MATCHED = lazy(r"^Matched GPU:\s*(?P<name>\S.{0,100}?)\s*$")
_INSTALLER_ARCH = lazy(r"^Architecture:\s*.{1,80}?\((?P<gfx>gfx[0-9a-f]{3,4})\)\s*$")
# (s16-helddc) TensorFlow's and XLA's ROCm device checks name the GPU they skip and its gfx target:
# TensorFlow (tensorflow/core/common_runtime/gpu/gpu_device.cc, BaseGPUDeviceFactory::GetValidDeviceIds) "Ignoring
# visible gpu device (device: 0, name: Radeon RX 7900 XTX, pci bus id: 0000:03:00.0) with AMDGPU version : gfx1100.
# The supported AMDGPU versions are ..." (TF 1.x: "... with AMDGPU ISA gfx801. The minimum required AMDGPU ISA is
# gfx803."), XLA (xla/service/platform_util.cc) "StreamExecutor ROCM device (0) is of unsupported AMDGPU version :
# gfx1100. The supported AMDGPU versions are ...": the device's own target, whatever the list says
_TF_IGNORED_GPU = lazy(r"\bIgnoring visible gpu device \(device: (?P<idx>\d+), name: (?P<name>.{0,120}?), pci bus id: "
                       r"(?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\) with AMDGPU (?:version :|ISA) "
                       r"(?P<gfx>gfx[0-9a-f]{3,4})(?::[a-z]+[+-])*\b")
_XLA_UNSUPPORTED_GPU = lazy(r"\bStreamExecutor ROCM device \((?P<idx>\d+)\) is of unsupported AMDGPU version : "
                            r"(?P<gfx>gfx[0-9a-f]{3,4})(?::[a-z]+[+-])*\b")
# torch versions: a ROCm wheel's local label or a bare release next to a "hip" version
_TORCH_VER = r"\d+\.\d+\.\d+(?:(?:a|b|rc)\d+|\.dev\d+)?(?:\+[0-9A-Za-z.]+)?"
_HIP_VER = r"\d+\.\d+\.\d{5}(?:-[0-9a-f]+)?"
_TORCH_HIP = lazy(r"^\s*(?P<torch>" + _TORCH_VER + r")\s*,?\s*(?:hip:?\s*)?'?(?P<hip>" + _HIP_VER + r")'?\s*$")
# (s23-comfy3win) also a Markdown list item with a bold label, ComfyUI's error report's System Information
# ("- **PyTorch Version:** 2.9.1+rocm7.2.1", Comfy-Org/ComfyUI_frontend's error report template)
# (s25-researchwin, set IW 3523) also a check script's label that says "version" in another script right after the name,
# as xformers#1314's "PyTorch版本: 2.8.0+rocm6.4" (zh), "PyTorchバージョン" (ja), "PyTorch 버전" (ko), "PyTorch версия" (ru),
# with an ASCII or full-width colon: letters outside ASCII only, so "torchvision" or "torchaudio" never reads as torch
_TORCH_LABELLED = lazy(r"^\s*(?:[-*]\s{1,3})?(?:\*\*)?(?:pytorch version|torch version|torch\.__version__\s*[:=]?|(?:py)?torch ?[^\x00-\x7f\s:=\uff1a]{1,10}|PyTorch|Torch:)\s*[:=\uff1a]?(?:\*\*)?\s*'?(?P<torch>"
                       + _TORCH_VER + r"\+(?:rocm[0-9A-Za-z.]*|cu\d{2,3}|cpu))'?\s*$", re.I)  # (s8-heldp: CUDA/CPU builds too)
# (s25-overridewin, set JD 3590) a check script's bare torch version with torch.version.hip on the line after it, e.g.
# lamikr/rocm_sdk_builder docs/examples/pytorch/pytorch_gpu_hello_world.py ("Pytorch version: " + torch.__version__,
# then "ROCM HIP version: " + torch.version.hip): a source build's version has no local tag, so _TORCH_LABELLED does
# not read it; the HIP line right after it says the build is a ROCm one.  Read only as that pair of lines, and only a
# version without a local tag (one with "+rocm..." is _TORCH_LABELLED's).
_TORCH_BARE_LABELLED = lazy(r"^\s*(?:py)?torch version\s*[:=]\s*(?P<torch>\d+\.\d+\.\d+(?:(?:a|b|rc)\d+|\.dev\d+)?)\s*$", re.I)
_TORCH_HIP_LABELLED = lazy(r"^\s*(?:rocm )?hip version\s*[:=]\s*(?P<hip>" + _HIP_VER + r")\s*$", re.I)
# (s11-heldak) a PyTorch check script's report, e.g. the flash-attention test of ROCm/TheRock#1364 and
# legacy-rocm-build#5404 ("=== PyTorch Installation Check ===" / "PyTorch version: ..." / "CUDA available: True" /
# "Device count: 1" / "Device name: AMD Radeon Graphics"): the name torch.cuda.get_device_name() printed, read only
# within a few lines after torch said a GPU is available (clinfo's "Device Name" lines are not torch's)
_TORCH_AVAILABLE = lazy(r"^\s*(?:CUDA available|torch\.cuda\.is_available\(\))\s*[:=]?\s*True\s*$", re.I)
_TORCH_DEVICE_NAME = lazy(r"^\s*Device name\s*[:=]\s*(?P<name>(?:AMD|Radeon|ATI)\b.{0,120}?)\s*$", re.I)
# (s11-heldas) a torch version with its build's local tag written right after the word torch, in prose or a title
# ("ships a CUDA-only torch (2.12.0+cu130)", "torch 2.12.0+cu130", "torch==2.9.1+rocm7.2.3", pip's
# "Successfully installed torch-2.14.0+cu130"): PEP 440 local tags of PyTorch's own wheels (rocmX.Y, cuNNN, cpu)
# name the build whatever the sentence says; torchvision/torchaudio/libtorch and a bare version are not read
# (s15-heldcz) also an environment block's labelled line, "PyTorch Version: 2.7.1+rocm7.2.1 (ROCm)" (an issue form's
# field with the build's word after it): the label's colon after "version"
_TORCH_NAMED = lazy(r"(?<![\w.-])(?:py)?torch(?:\s*==\s*|-|\s*\(\s*|\s+version\s*:\s*|\s+version\s+|\s*:\s*|\s+)v?(?P<torch>\d+\.\d+\.\d+"
                    r"(?:(?:a|b|rc)\d+|\.dev\d+)?\+(?:rocm\d[0-9A-Za-z.]*|cu\d{2,3}|cpu))(?![\w+])", re.I)
# (s18-helddi) also IPython's echo of the value, after its output prompt "Out[N]: " (ipython/ipython
# IPython/terminal/prompts.py Prompts.out_prompt_tokens: 'Out[', the execution count, ']: ')
_REPL_TORCH = lazy(r"^\s*(?:Out\[\d{1,6}\]:\s*)?'(?P<torch>" + _TORCH_VER + r"\+rocm[0-9A-Za-z.]*)'\s*$")
# a line that is only a torch wheel (URL or file name): .../torch-2.3.0.dev20240126%2Brocm6.0-cp310-cp310-linux_x86_64.whl
_TORCH_WHEEL = lazy(r"^(?:\S*/)?torch-(?P<ver>\d+\.\d+\.\d+[0-9A-Za-z.]*)(?:%2[Bb]|\+)(?P<local>rocm[0-9A-Za-z.]*)"
                    r"-cp\d+-[^\s/]+\.whl$")
# clinfo (AMD APP platform and ocl-icd clinfo): a GPU device's board name, PCI topology and gfx name
_CL_GPU = lazy(r"^\s*Device Type:\s+CL_DEVICE_TYPE_GPU\s*$|^\s*Device Type\s+GPU\s*$")
_CL_BOARD = lazy(r"^\s*(?:Board name:|Device Board Name \(AMD\))\s+(?P<name>\S.{0,120}?)\s*$")
_CL_TOPOLOGY = lazy(r"^\s*Device Topology(?::| \(AMD\))\s+(?:PCI\[ B#(?P<bus>\d+), D#(?P<dev>\d+), F#(?P<fn>\d+) \]|PCI-E, (?P<bdf>" + _BDF + r"))\s*$")
_CL_NAME = lazy(r"^\s*(?:Name:|Device Name)\s+(?P<gfx>gfx[0-9a-f]{3,4})(?::[a-z]+[+-])*\s*$")
# rocm-smi --json, read line by line so that a cut paste still counts: "card0": { ... "Device ID": "0x1900" ...
_SMI_JSON_CARD = lazy(r'^\s*"card(?P<idx>\d+)"\s*:\s*\{\s*$')
_SMI_JSON_KEY = lazy(r'^\s*"(?P<key>Device ID|Device Rev|PCI Bus|GFX Version|Card Series|Device Name)"\s*:\s*"(?P<val>[^"]{1,120})",?\s*$')
# hipblaslt-bench / rocblas-bench: "Device ID 0 : AMD Radeon PRO W7900 gfx1100"
_BENCH_DEVICE = lazy(r"^Device ID (?P<idx>\d+) : (?P<name>\S.{0,120}?) (?P<gfx>gfx[0-9a-f]{3,4})(?::[a-z]+[+-])*\s*$")
# rccl-tests: "#   Rank  0 Pid   2303 on host device  0 [0000:2f:00.0] AMD Instinct MI100"; newer releases
# (src/common.cu: "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s") print the PCI
# domain, bus and device number without the function: "device  0 [0000:03:00] AMD Radeon Graphics"
_RCCL_DEVICE = lazy(r"\bdevice\s+(?P<idx>\d+) \[(?:(?P<bdf>" + _BDF + r")|(?P<dbd>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}))\] "
                    r"(?P<name>(?:AMD|Radeon)\b.{1,80}?)\s*$")
# RCCL's init (src/init.cc: INFO(NCCL_INIT, "Kernel version: %s", ...), the release field of /proc/version):
# "node [0] NCCL INFO Kernel version: 6.8.0-136-generic" (NVIDIA's NCCL prints only "Kernel version 6.8")
# amd-smi static's DRIVER section (ROCm 7: "OS_KERNEL_VERSION: 5.15.0-164-generic"; --json: "os_kernel_version")
_SMI_OS_KERNEL = lazy(r'^\s*"?os_kernel_version"?\s*:\s*"?(?P<rel>' + RELEASE_RE + r')"?,?\s*$', re.I)
_NCCL_KERNEL = lazy(r"\bNCCL INFO Kernel version: (?P<rel>" + RELEASE_RE + r")\s*$")
# /proc/cmdline: "BOOT_IMAGE=/vmlinuz-5.15.0-101-generic root=..."
_BOOT_IMAGE = lazy(r"\bBOOT_IMAGE=\S*/vmlinuz-(?P<rel>" + RELEASE_RE + r")(?:\s|$)")
# GitHub's autolink of "#25" in a uname line copied from a rendered issue ("... 6.17.0-1025-oem
# https://github.com/<owner>/<repo>/issues/25-Ubuntu SMP ..."): the build number all the same (s8-heldp)
_GH_AUTOLINK = r"https://github\.com/[\w.-]{1,100}/[\w.-]{1,100}/(?:issues|pull)/"
_UNAME_LINE = lazy(r"^\s*`?Linux (?:(?P<host>[\w.-]+) )?(?P<rel>" + RELEASE_RE + r") (?:#|" + _GH_AUTOLINK + r")\d")
# nix-info's host OS fact (NixOS/nixpkgs pkgs/tools/nix/info/info.sh: desc_host_os prints "$(uname -sr)", then
# ", $NAME, $VERSION" from /etc/os-release; 'nix-info -m' writes it as " - host os: `...`"): the kernel release
# and the distribution ("Linux 6.12.9, NixOS, 24.11 (Vicuna), 24.11.20250119.107d5ef") (s10-heldy)
# (s14-heldbo) the store path of a NixOS system's top-level derivation, as nixos-rebuild lists it among "these N
# derivations will be built:" or builds it: nixpkgs nixos/modules/system/activation/top-level.nix names it
# "nixos-system-${config.system.name}-${config.system.nixos.label}", the label being the release's version
# (nixos/modules/misc/version.nix: "<YY.MM>" then versionSuffix ".<revcount>.<shortrev>", "pre<rev>" before a
# release, or ".<YYYYMMDD>.<shortrev>" from flakes), so the release is the "YY.MM" after the host name.
_NIX_SYSTEM_DRV = lazy(r"/nix/store/[0-9a-z]{32}-nixos-system-[^/\s'\"`]{1,80}?-(?P<ver>\d\d\.\d\d)"
                       r"(?:pre[0-9a-z.]*|\.\d{1,8}\.[0-9a-f]{7,40}|\.[0-9a-f]{7,40})?(?:\.drv)?(?![\w.-])")
_NIX_HOST_OS = lazy(r"\bhost os: `?Linux (?P<rel>" + RELEASE_RE + r"), (?P<name>[^,`\n]{1,60}), (?P<ver>[^,`\n]{1,60})")
_KERNEL_LINE = lazy(r"^\s*(?:Linux )?kernel(?: version| release)?\s*[:=]\s*`?(?P<rel>\d+\.\d+\.\d+[-+._~0-9A-Za-z]*)`?\s*$", re.I)
_DISTRO_LINE = lazy(r"^\s*(?P<pretty>(?:Ubuntu|Debian GNU/Linux|Debian|Fedora Linux|Fedora|Rocky Linux|AlmaLinux|"
                    r"Red Hat Enterprise Linux|CentOS Linux|CentOS Stream|openSUSE Leap|openSUSE Tumbleweed|"
                    r"SUSE Linux Enterprise Server|Arch Linux|Linux Mint|Pop!_OS|Manjaro Linux)"
                    r"(?: [0-9][0-9.]*)?(?: LTS)?(?: \([A-Za-z ]{1,40}\))?)\s*$")

# the first letters of _DISTRO_LINE's names that are upper case (it matches from the line's start)
_DISTRO_FIRST = frozenset("UDFRACSLPM")
# how _DISTRO_LINE's names start, one of which a line must start with to match it
_DISTRO_STARTS = ("Ubuntu", "Debian", "Fedora", "Rocky", "AlmaLinux", "Red Hat", "CentOS", "openSUSE", "SUSE", "Arch",
                  "Linux Mint", "Pop!_OS", "Manjaro")
# the characters _TORCH_LABELLED (re.I) and _KERNEL_LINE (re.I) can start with after their \s*: no
# other character matches p, t or l under re.I; the Kelvin sign does match k; '-' and '*' start a Markdown item or bold label
_TORCH_LABEL_FIRST = frozenset("pPtT-*")
_KERNEL_FIRST = frozenset("lLkK\u212a")

# Mesa's renderer string (glxinfo, neofetch, issue forms): "AMD Radeon RX 9070 XT (radeonsi, gfx1201, ACO, DRM 3.64, 6.17.0-6-generic)"
_MESA_RENDERER = lazy(r"(?P<name>AMD Radeon[A-Za-z0-9 ]{1,60}?) \(radeonsi, (?P<gfx>gfx[0-9a-f]{3,4}), (?:ACO|LLVM [0-9.]{1,20}), "
                      r"DRM [0-9.]{1,10}, (?P<rel>" + RELEASE_RE + r")\)")
# (s19-detgen) the kernel release at the end of the same renderer string, whatever names the chip (a gfx target since
# Mesa 23.1, the chip's codename before: "AMD Radeon RX 7900 XTX (radeonsi, navi31, LLVM 17.0.6, DRM 3.57,
# 6.8.0-45-generic)"): Mesa src/gallium/drivers/radeonsi/si_get.c, si_init_renderer_string, appends ", <release>" of
# uname(2) of the machine the string was made on; a string without it ends at "DRM a.b)" and gives none
_MESA_KERNEL = lazy(r"\(radeonsi, [0-9a-z_]{2,20}(?:, (?:ACO|LLVM [0-9.]{1,20}))?, DRM \d{1,2}\.\d{1,3}, (?P<rel>" + RELEASE_RE + r")\)")
# amdkfd of old kernels: "kfd kfd: DID 6fdf is missing in supported_devices"
_KFD_DID_MISSING = lazy(r"\bkfd(?: kfd)?: DID (?P<dev>[0-9a-fA-F]{4}) is missing in supported_devices")
# a uname -a line after other words ("my system - Linux host 4.15.0-99-generic #100~16.04.1-Ubuntu SMP ...")
# (the build number "#25-Ubuntu" also as GitHub renders it when the text is copied from an issue page:
# "https://github.com/<owner>/<repo>/issues/25-Ubuntu", its autolink of "#25")
_UNAME_ANYWHERE = lazy(r"\bLinux (?P<host>[\w.-]+) (?P<rel>" + RELEASE_RE + r") (?:#|" + _GH_AUTOLINK + r")\d+\S* (?:SMP|PREEMPT)")
# (s14-heldby) `uname -sr`'s output alone on a line ("Linux 7.0.0-28-generic", coreutils uname: the kernel name and
# release), as probe scripts and reports print it; three version parts, so a distribution's "Linux 9.5" is not taken
_UNAME_SR = lazy(r"^\s*`?Linux (?P<rel>\d+\.\d+\.\d+(?:[-+_~][0-9A-Za-z][0-9A-Za-z._+~-]*)?)`?\s*$")
# (s16-heldde) the uname line of a Cosmopolitan program's crash report (llamafile and the other APE binaries;
# jart/cosmopolitan libc/log/oncrash.c ShowCrashReport: "error: Uncaught %G (%s) ... on %s pid %d tid %d", the program,
# strerror, then " %s %s %s %s" of uname's sysname, version, nodename and release; Cosmopolitan's uname puts
# "Cosmopolitan <ver> MODE=<arch>;" before the kernel's version): "  Linux Cosmopolitan 3.2.4 MODE=x86_64; #1 SMP
# PREEMPT_DYNAMIC Fri, 23 Feb 2024 16:31:48 +0000 Arch 6.7.6-arch1-1" -- the last word is the running kernel's release
_COSMO_UNAME = lazy(r"^\s*Linux Cosmopolitan \d+\.\d+(?:\.\d+)? MODE=\w+; #\d+\S* [^\n]*? (?P<host>[\w.-]+) "
                    r"(?P<rel>\d+\.\d+\.\d+(?:[-+_~][0-9A-Za-z][0-9A-Za-z._+~-]*)?)\s*$")
_BARE_RELEASE = lazy(r"^(?P<rel>\d+\.\d+\.\d+-[0-9A-Za-z][0-9A-Za-z._+~-]*)$")
# the Python REPL's banner: "Python 3.8.5 (default, Dec 19 2020, 10:38:31)"
_PY_BANNER = lazy(r"^Python (?P<ver>\d+\.\d+\.\d+) \((?:default|main|tags/|heads/|[a-z]+,)")
# (s13-heldbb) 'python --version' / 'python -V' (CPython Modules/main.c pymain_main -> config->show_version:
# printf("Python %s\n", PY_VERSION)), the command on a prompt line and the bare answer on the next one (tests/data/real/1363)
_PY_VERSION_CMD = lazy(r"(?:^|[\s>$#\]])(?:py|python[\d.]{0,5})(?:\.exe)?\s+(?:--version|-V)\s*$")
_PY_VERSION_OUT = lazy(r"^Python (?P<ver>\d+\.\d+\.\d+)\s*$")
# (s25-trainimgwin) a launcher that runs 'python --version' with its command echo off and announces it instead:
# OneTrainer's start-ui.bat ('@echo off' ... 'echo Checking Python version...' then '%PYTHON% --version', Nerogar/OneTrainer
# start-ui.bat :check_python_version; tests/data/real/3640), as setup scripts commonly do ('echo "Checking Python
# version..."' then 'python3 --version'): the bare answer on the next line is read as after the command itself.
# (s20-appwin) a program's start-up line "Python version: " + sys.version (CPython Python/getversion.c Py_GetVersion:
# "%.80s (%.80s) %.80s" -- the version, the build's "(branch, date, time)" and "[compiler]"): ComfyUI-Manager's
# prestartup_script.py print("** Python version:", sys.version) ("** Python version: 3.12.9 (main, Feb 12 2025,
# 14:50:50) [Clang 19.1.6 ]"), ComfyUI's logging of the same behind "[INFO] " or a time stamp, torch's collect_env.
# The interpreter that runs the program.  The build's parenthesis and the compiler's bracket must follow the version.
_SYS_VERSION_LINE = lazy(r"(?:^|\s)(?:\*\* )?Python version: (?P<ver>3\.\d{1,2}\.\d{1,2})[\w+]{0,12} \([^()\n]{1,160}\) \[")
# pip: "Successfully installed ... torch-2.7.1+rocm7.0.0.dev0 ..."
# (s19-detgen) the prefixes a log collector puts before each line of a program's output, stripped before the line is
# read: BuildKit's plain progress ('#12 5.217 ', moby/buildkit util/progress/progressui/printer.go: "#%d %s"
# with the seconds since the step began), a timestamp in RFC 3339 (GitHub Actions' raw logs, 'docker logs -t',
# 'kubectl logs --timestamps': '2025-01-02T03:04:05.6789012Z ') and 'cat -n' / 'nl' line numbers ('   241\t').
# A journald prefix is not stripped here: the process it names decides what the line means (kernel: lines are the
# kernel's), and the readers that take journald lines read that prefix themselves
# (journalctl -o short-iso's '<timestamp> <host> <process>[pid]: ' keeps its timestamp: the journald readers read it whole)
_COLLECTOR_PREFIX = lazy(r"^(?:" + STAMP_OR_STEP + r"|\d{1,6}\t)")  # (s20: the first two shared with detect/paste_text.py)
_PIP_INSTALLED = lazy(r"\bSuccessfully installed\b")
# (s19-detgen) pip's two reports of the torch an environment holds: `pip show torch` (pip src/pip/_internal/commands/show.py,
# print_results: "Name: %s" then "Version: %s"; uv pip show prints the same two lines) and the resolver's
# "Requirement already satisfied: <req> in <location> [(from <parent>)] (<installed version>)" (pip
# src/pip/_internal/resolution/resolvelib/factory.py / req_install.py): the last parenthesis is the installed version.
# Not read: "Collecting torch==X" / "torch>=X" (a requirement), another package's lines (torchvision, torchaudio)
# (s19-detgen) a torch that pip was asked for, not one it installed: its resolver's "Collecting <req>" and
# "Downloading <url>" (pip src/pip/_internal/operations/prepare.py, "Collecting %s" / "Downloading %s"), "Would install"
# of --dry-run, and the pip install command line itself -- the install can still fail (2184: the resolver stops on
# networkx's Requires-Python after collecting torch)
_PIP_REQUESTED = lazy(r"^(?:Collecting|Downloading|Would install)\s|\bpip3?(?:\.exe)?['\"]?\s+install\s|-m\s+pip\s+install\s")
_PIP_SHOW_VERSION = lazy(r"^Version:\s+(?P<torch>" + _TORCH_VER + r")\s*$")
# (s22-vllm26win) SGLang's environment report, "python -m sglang.check_env" (sgl-project/sglang
# python/sglang/check_env.py check_env(): env_info["PyTorch"] = torch.__version__, every entry printed as
# f"{k}: {v}" beside "Python: ...", "ROCM available: ..." / "CUDA available: ..." and the package lines
# "sglang: 0.5.2rc1", "sgl_kernel: 0.3.8"): its "PyTorch:" line is torch.__version__ as is, whatever its local
# tag (a ROCm image's source build is "2.6.0a0+git8d4926e", which _TORCH_LABELLED does not read); read only in a
# text that holds the report's own sglang or sgl_kernel line
_SGLANG_ENV_TORCH = lazy(r"^PyTorch: (?P<torch>" + _TORCH_VER + r")$")
_PIP_SATISFIED_TORCH = lazy(r"^(?:\d{1,6}\.\d{1,3}\s+)?Requirement already satisfied: torch(?:\[[\w,. -]{0,200}\])?"
                            r"(?:\s*(?:[<>=!~]=?|===)\s*[\w.*+!-]{1,40}(?:\s*,\s*(?:[<>=!~]=?)\s*[\w.*+!-]{1,40}){0,3})?"
                            r" in \S.{0,400}? \((?P<torch>" + _TORCH_VER + r")\)\s*$")
# (s19-detgen) uv's line naming the interpreter a project's environment is made with (astral-sh/uv,
# crates/uv/src/commands/project/environment.rs / venv.rs: "Using {implementation} {version} interpreter at: {path}", and
# without the path for a managed one): the environment's Python.  Not read: conda info's "python version : X.Y.Z.final.0",
# the interpreter conda itself runs on (the base environment), not necessarily the active one
_UV_PYTHON = lazy(r"^Using CPython (?P<ver>3\.\d{1,2}\.\d{1,2})(?: interpreter at: \S.{0,300})?\s*$")
# (s23-wheels26win) uv pip's line naming the environment it installs into when that is not the default one (astral-sh/uv
# PR #7850, crates/uv/src/commands/pip/operations.rs report_target_environment: "Using Python {version} environment at
# {path}", later "... environment at: {path}"), e.g. "Using Python 3.12.10 environment at: venv-linux-amd-3.12": the
# target environment's Python.
_UV_PIP_ENV = lazy(r"^Using C?Python (?P<ver>3\.\d{1,2}\.\d{1,2}) environment at:? \S.{0,300}$")
# (s25-buildwin) the interpreter a build log says it builds with, X.Y (the version an extension's ABI follows):
# CMake's find-module report (Kitware/CMake Modules/FindPackageHandleStandardArgs.cmake FIND_PACKAGE_HANDLE_STANDARD_ARGS:
# message(STATUS "Found ${_NAME}: ${...} (found version \"${VERSION}\")", or "(found suitable version \"...\", minimum
# required is \"...\")") for FindPython, FindPython3, FindPythonInterp and FindPythonLibs, e.g. '-- Found Python:
# /usr/bin/python3 (found version "3.12.11") found components: Interpreter ...'; and the log prefix 'nix build -L'
# gives each line of a derivation ('<name>> '), where nixpkgs names a Python package's derivation
# 'python<X.Y>-<pname>' (NixOS/nixpkgs pkgs/development/interpreters/python/mk-python-derivation.nix: name = namePrefix
# + ...; namePrefix = python.libPrefix + "-", libPrefix "python3.12").  Python 2 is not read.
_CMAKE_FOUND_PYTHON = lazy(r'^-- Found Python(?:3|Interp|Libs)?: \S.{0,400}? \(found (?:suitable )?version '
                           r'"(?P<ver>3\.\d{1,2})(?:\.\d{1,3})?[^"\s]{0,20}"')
_NIX_PYTHON_DRV = lazy(r"^python(?P<ver>3\.\d{1,2})-[A-Za-z0-9_][A-Za-z0-9_.+-]{0,100}> ")
# (s21-webuiwin) InvokeAI's dependency report, the JSON its About dialog shows and its issue form asks for under
# "Python dependencies" (invoke-ai/InvokeAI invokeai/app/api/routers/app_info.py get_app_deps: 3.x-5.x an
# AppDependencyVersions of fixed keys -- "python": platform.python_version(), "torch": torch.__version__, ...; later
# every installed distribution's name and version): one '"key": "value",' pair a line.  The key must be the exact
# name, quoted, and the value a quoted version: torchvision's or another package's line is not read as torch's
_APP_DEPS_TORCH = lazy(r'^"torch"\s{0,4}:\s{0,4}"(?P<torch>\d+\.\d+\.\d+[0-9A-Za-z.+]{0,60})"\s{0,4},?$')
_APP_DEPS_PYTHON = lazy(r'^"python"\s{0,4}:\s{0,4}"(?P<ver>3\.\d{1,2}\.\d{1,2})"\s{0,4},?$')
# (s21-comfy26win) SD.Next's start-up line naming the interpreter it runs on (vladmandic/sdnext installer.py
# check_python: log.info(f'Python: version={platform.python_version()} platform={platform.system()} bin="..." venv="..."'),
# after its timestamp and level ("05:07:24-008125 INFO     Python: version=3.12.10 platform=Windows bin=...");
# 2024's releases print it without the colon ("Python version=3.10.11 platform=Windows").  The level word and the
# platform= field that follows are required, so another program's "version=" field is not read
_SDNEXT_PYTHON = lazy(r"\bINFO\s{1,12}Python:? version=(?P<ver>3\.\d{1,2}\.\d{1,2}) platform=(?:Windows|Linux|Darwin)\b")
# (s23-finetune) Unsloth's installers' diagnostic line for the Studio desktop app (unslothai/unsloth install.sh
# tauri_log "DIAG" "diag_schema=1 platform=${OS:-unknown} arch=${_ARCH:-unknown} python_version=${PYTHON_VERSION:-unknown} ...",
# install.ps1 Write-TauriLog "DIAG" "diag_schema=1 platform=windows arch=... python_version=..."; printed as
# '[TAURI:DIAG] <fields>', in the app's phase log after '[<ms>][stdout] '): the interpreter the installer's venv uses
_UNSLOTH_DIAG_PYTHON = lazy(r"\[TAURI:DIAG\] diag_schema=\d{1,3} platform=[a-z]{1,12} arch=[\w-]{1,20} "
                            r"python_version=(?P<ver>3\.\d{1,2}(?:\.\d{1,2})?)(?![\w.])")
# (s22-comfyoldwin) SD.Next's start-up lines of 2023-2024 (vladmandic/automatic installer.py check_python:
# log.info(f'Python {platform.python_version()} on {platform.system()}')): "INFO     Python 3.10.12 on Linux" on the
# console, "| sd | INFO | installer | Python 3.11.5 on Linux" in its log file (format '%(asctime)s | %(name)s |
# %(levelname)s | %(module)s | %(message)s'); the level word before it and the system name ending it are required
_SDNEXT_PYTHON_ON = lazy(r"\bINFO(?:\s{1,12}|\s\|\s\w{1,20}\s\|\s)Python (?P<ver>3\.\d{1,2}\.\d{1,2}) on (?:Windows|Linux|Darwin)\s*$")
# (s23-ctr2win) an installer's report of the interpreter it found, a line of its own: WhisperJAV's install_linux.sh
# (meizhong986/WhisperJAV installer/legacy/install_linux_v1.8.2.sh:237 PYTHON_VERSION=$(python3 --version 2>&1 | awk
# '{print $2}'), :253 echo -e "${GREEN}Python $PYTHON_VERSION detected${NC}"), e.g.
# "Python 3.12.11 detected"; only a full X.Y.Z (its 'WARNING: Python 3.13+ detected' names no interpreter)
_INSTALLER_PYTHON_DETECTED = lazy(r"^\s{0,8}Python (?P<ver>3\.\d{1,2}\.\d{1,2}) detected\s{0,4}$")
# (s25-pipwin) the Python install manager for Windows ('py install', python/pymanager, formerly zooba/pymanager:
# src/manage/install_command.py _install_one: LOGGER.info("Installing %s.", install['displayName']), the runtime's
# display name "Python 3.14.0"; "Updating to %s." and "Repairing %s." for --update / --repair), a line of its own
# before its "Extracting:" progress line: the interpreter an install script then makes its environment with.
# Only a full X.Y.Z followed by the sentence's period (pyenv's "Installing Python-3.12.3..." is another form); read
# last, when nothing else names the interpreter
_PYMANAGER_INSTALLING = lazy(r"^(?:Installing|Updating to|Repairing) Python (?P<ver>3\.\d{1,2}\.\d{1,2})\.\s{0,4}$")
# (s22-comfyoldwin) SD.Next's platform line (vladmandic/sdnext launch.py: log.info(f'Platform: {print_dict(get_platform())}'),
# installer.py get_platform(): 'arch', 'cpu', 'system', 'release' -- platform.release() on Linux, the running kernel's
# uname release; platform.platform() on Windows -- then 'python': platform.python_version(); print_dict joins
# "k=v" pairs, later releases quoting values with spaces): "Platform: arch=x86_64 cpu=... system=Linux
# release=6.1.57-gentoo python=3.11.5".  The release is read as the kernel only where the system is Linux
_RELEASE_FULL = lazy(r"^\d+\.\d+\.\d+(?:[-+_~][0-9A-Za-z][0-9A-Za-z._+~-]*)?$")
_SDNEXT_PLATFORM = lazy(r"\bPlatform: arch=\S{1,20} cpu=[^\n]{0,160}? system=\"?(?P<sys>Linux|Windows|Darwin)\"? "
                        r"release=\"?(?P<rel>[^\s\"]{1,120})\"? python=\"?(?P<ver>3\.\d{1,2}\.\d{1,2})\b")
_PIP_TORCH = lazy(r"(?:^|\s)torch-(?P<ver>\d+\.\d+\.\d+[0-9A-Za-z.+]{0,80})(?=\s|$)")
# s8-heldq: a command whose first print is torch.__version__ (python -c "import torch; print(torch.__version__); ..."),
# and the bare version line its output starts with ("2.12.0+rocm7.14.0a20260519")
_PRINT_TORCH_FIRST = lazy(r"\bprint\(\s*torch\.__version__\b")
_BARE_TORCH = lazy(r"^(?P<torch>" + _TORCH_VER + r")$")
# (s11-heldan) a one-liner's print() calls in order ('python -c "import torch; print(torch.__version__);
# print(torch.version.hip); print(torch.cuda.is_available())"'): the bare lines after it are their values, in that
# order, with prose the user wrote between them ("Output stops after:") skipped (tests/data/real/1086)
_PRINTED_EXPR = lazy(r"\bprint\(\s*([A-Za-z_][\w.]*(?:\(\))?)\s*\)")
# (s22-torcholdwin, set FM 2681) Python's interactive prompt evaluating torch.__version__ without print() (">>> torch.__version__",
# IPython's "In [3]: torch.__version__"): the REPL echoes the value's repr, the version in quotes, on the next line
# (cpython Lib/code.py / the REPL's sys.displayhook writes repr(value); IPython's Out[N] prompt before it), whatever its
# local label -- a source build's '+git<sha>' (pytorch/pytorch tools/generate_torch_version.py: version += "+git" +
# sha[:7]) as much as a wheel's '+rocmX.Y'.  Only the line right after the prompt is read, so another quoted string is not
_REPL_TORCH_CMD = lazy(r"^\s*(?:>>>|In \[\d{1,6}\]:)\s*torch\.__version__\s*$")
_REPL_TORCH_ANY = lazy(r"^\s*(?:Out\[\d{1,6}\]:\s*)?'(?P<torch>" + _TORCH_VER + r")'\s*$")
# torch.version.hip as printed: "7.2.26024-f6f897bd3d", "6.4.43482-0f2d60242", "7.14.60850"
_BARE_HIP = lazy(r"^(?P<hip>\d{1,2}\.\d{1,2}\.\d{4,6}(?:-[0-9a-f]{6,12})?)$")
# s8-heldq: TheRock's torch and rocm wheels take the GPU family as a pip extra, which pulls the device wheel of that
# target (ROCm/TheRock's multi-arch index: pip install "torch[device-gfx1100]", "rocm[libraries,device-gfx1201]")
_DEVICE_EXTRA = lazy(r"\b(?:torch|torchvision|torchaudio|rocm)\[(?P<extras>[\w,. -]{1,200}?)\]")
# s8-heldq: a "GPU Architecture: gfx906 (MI50/MI60)" field (a build's or a form's key-value line) names the GPU's target
# (s16-helddd, set DD 2082) the same field keyed "GPU:" whose whole value is a target ("GPU: gfx1151", an issue's system
# block beside "ROCm version: ..."), optionally with a note in parentheses; a GPU name with the target in parentheses
# ("GPU: AMD Radeon RX 7900 XTX (gfx1100)") or a list of targets is not this field's value.  "GPU arch: gfx906" stays
# unread (test_paste_facts: the words of torch's property typed by a person, s11)
_GPU_FIELD = lazy(r"^GPU\s*:\s*(?P<gfx>gfx[0-9a-f]{3,4})(?::[a-z]+[+-])*\s*(?:\([^()\n]{0,60}\))?\s*$", re.I)
_GPU_ARCH_FIELD = lazy(r"^GPU Architecture:\s*(?P<gfx>gfx[0-9a-f]{3,4})(?![0-9a-z])")
# (s25-mixedwin, set JF) hipfire's Gpu::init_with_device (warpfront/hipfire crates/rdna-compute/src/dispatch.rs):
# eprintln!("GPU dev {}: {} ({:.1} GB VRAM, HIP {}.{})", id, arch, ...) -> "GPU dev 0: gfx1036 (13.0 GB VRAM, HIP 7.2)":
# the target of the device the daemon bound (hip.get_arch(id), unless the developer variable HIPFIRE_TARGET_ARCH
# replaces it, which is still a target the user meant)
_HIPFIRE_DEVICE = lazy(r"^GPU dev (?P<idx>\d{1,2}): (?P<gfx>gfx[0-9a-f]{3,4}) \(\d{1,5}\.\d GB VRAM, HIP \d{1,3}\.\d{1,3}\)")
# (s25-mixedwin, set JF) ROCm's `rocm diagnose` (ROCm/rocm-cli crates/rocm-core/src/diagnose.rs,
# check_9_igpu_dgpu_collision's note: format!("Detected gfx targets: {gfx_targets:?}. ...")), Rust's Debug of the
# examination's AMD targets: 'note: Detected gfx targets: ["gfx1100", "gfx1036"]. Discrete GPU(s): ...' (an empty
# list "[]" when the probe found none, which names nothing)
_ROCM_CLI_TARGETS = lazy(r'\bDetected gfx targets: \[(?P<list>"gfx[0-9a-f]{3,4}"(?:, "gfx[0-9a-f]{3,4}"){0,15})\]')
# s8-heldq: the interpreter a site-packages path belongs to (".../lib/python3.14/site-packages/...")
_SITE_PYTHON = lazy(r"/lib(?:64)?/python(?P<ver>3\.\d{1,2})/(?:site|dist)-packages(?:/|(?![\w.-]))")
# (s10-heldaf) a traceback frame in the interpreter's own standard library names the interpreter that ran it: CPython
# installs its stdlib under <prefix>/lib/pythonX.Y (python/cpython Lib/sysconfig: 'stdlib': '{installed_base}/{platlibdir}/
# python{py_version_short}'), e.g. 'File "/__w/_tool/Python/3.13.11/x64/lib/python3.13/ctypes/__init__.py", line 401'
_STDLIB_FRAME = lazy(r'File "[^"\n]{0,300}?/lib(?:64)?/python(?P<ver>3\.\d{1,2})/(?!(?:site|dist)-packages/)\w{1,40}(?:/\w{1,40}){0,2}\.py", line \d')
# (s9-heldr) lib64/pythonX.Y: the platlib of Fedora/RHEL/openSUSE builds (sys.platlibdir "lib64", python/cpython
# Lib/sysconfig; their venvs keep it: ".venv/lib64/python3.12/site-packages"); a path may end at the directory
# (pip show's "Location: .../site-packages").
# (s9-heldr) an interpreter's install directory that names its full version: pyenv's $PYENV_ROOT/versions/<version>
# (pyenv/pyenv README, "Locating Pythons": ~/.pyenv/versions/3.11.9) and uv's managed Pythons
# (astral-sh/uv: ~/.local/share/uv/python/cpython-3.12.11-linux-x86_64-gnu)
_INSTALL_PYTHON = lazy(r"/\.pyenv/versions/(?P<pyenv>3\.\d{1,2}\.\d{1,2})(?=[/\s'\"`]|$)|/python/cpython-(?P<uv>3\.\d{1,2}\.\d{1,2})[+-]")
# amd-smi's default view (ROCm 7): "| AMD-SMI 26.2.0+021c61fc   amdgpu version: 6.14.0-37 ROCm version: 7.1.1 |"
_AMD_SMI_HEADER = lazy(r"^\|?\s*AMD-SMI (?P<tool>\S{1,40})\s+amdgpu version:\s*(?P<amdgpu>\S{1,40})\s+ROCm version:\s*(?P<rocm>\S{1,20})\s*\|?\s*$", re.I)
# (s9-heldr) amd-smi 26.5's default view opens with a box of one key per row instead ("| AMD-SMI 26.5.0+2b22ab01 |",
# "| OS kernel Version: 7.0.0-29-generic |", "| ROCm Version: 7.14.0 |", "| VBIOS Version: ... |", "| Platform: ... |");
# observed (Looong01/pyg-rocm-build#23), read only inside such a box
_AMD_SMI_BOX_TOP = lazy(r"^\|\s*AMD-SMI\s+(?P<tool>\d[\w.+-]{0,40})\s*\|$")
_AMD_SMI_BOX_ROW = lazy(r"^\|\s*(?P<key>OS kernel Version|ROCm Version):\s*(?P<val>\S{1,60})\s*\|$", re.I)
# modinfo amdgpu: "filename: /lib/modules/.../amdgpu.ko[.xz]" then "version: 6.16.6"
_MODINFO_FILE = lazy(r"^filename:\s+\S*/amdgpu\.ko(?:\.\w+)?\s*$")
# s9-helds: the module file modinfo resolves ("modinfo -n amdgpu", or its "filename:" field), which kmod looks up under
# /lib/modules/$(uname -r) unless told another release (-k): the path names the running kernel
_MODULE_PATH = lazy(r"^(?:filename:\s+)?/(?:usr/)?lib/modules/(?P<rel>\d+\.\d+[0-9A-Za-z.+_~-]{0,60})/"
                    r"(?:kernel/drivers/gpu/drm/amd/amdgpu|updates(?:/dkms)?|extra)/amdgpu\.ko(?:\.\w+)?\s*$")
_MODINFO_VERSION = lazy(r"^version:\s+(?P<ver>\d+\.\d+[0-9A-Za-z.~+-]{0,40})\s*$")
_VERSION_ONLY = lazy(r"^(?P<ver>\d+\.\d+\.\d+(?:[.-][0-9A-Za-z]{1,20}){0,3})$")

# one lspci line on its own ("01:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Curacao PRO [...]")
_LSPCI_LINE = lazy(r"^(?P<bdf>" + _BDF + r") (?:VGA compatible controller|Display controller|3D controller|Processing accelerators)"
                   r"(?: \[[0-9a-f]{4}\])?: Advanced Micro Devices, Inc\. \[AMD(?:/ATI)?\] (?P<chip>[^\[\n]{1,80}?)\s*(?:\[|\(rev|$)")

# (s16-helddd, set DD 2081) clang's summary after a failed compile, "<n> error(s) generated when compiling for gfx1151."
# (clang Driver: "%0 error%s0 generated when compiling for %1."), names the GPU's target only where comgr compiled a kernel
# at run time for the device in use (HIPRTC: MIOpen, rocFFT, MIGraphX, a program's hiprtcCompileProgram) -- the paste
# shows comgr's temporary directory and HIPRTC; a hipcc build names the build's --offload-arch, not the GPU's
_CLANG_RTC_TARGET = lazy(r"\b\d+ errors? generated when compiling for (?P<gfx>gfx[0-9a-f]{3,4})(?::[a-z]+[+-])*\.?\s*$")
# (s24-triton2win, set II 3380) Triton's AMD back-end refusing the target it compiles for: its AMD passes emit
# "unsupported target: '<arch>'" when deduceISAFamily(arch) is Unknown (triton-lang/triton
# third_party/amd/lib/TritonAMDGPUToLLVM/TritonGPUToLLVM.cpp), MLIR printing "<loc>: error: unsupported target:
# 'gfx906'".  The arch is the one Triton's HIP driver read from the device (gcnArchName), so it names the GPU.
_TRITON_UNSUPPORTED_TARGET = lazy(r"\berror: unsupported target: '(?P<gfx>gfx[0-9a-f]{3,4})(?::[a-z]+[+-])*'")
# (s24-triton2win, set II 3381) a Nix store path of nixpkgs' torch package, the Python package derivation being named
# "python<X.Y>-<pname>-<version>" (nixpkgs pkgs/development/interpreters/python/mk-python-derivation.nix: name =
# namePrefix + pname + "-" + version, namePrefix "python3.13-"), as a traceback's frames show it:
# "/nix/store/<hash>-python3.13-torch-2.11.0/lib/python3.13/site-packages/torch/...": the torch the process runs.
_NIX_PY_TORCH = lazy(r"/nix/store/[0-9a-z]{32}-python\d\.\d{1,2}-torch-(?P<torch>\d+\.\d+\.\d+(?:(?:a|b|rc)\d+|\.dev\d+)?)"
                     r"(?:-[a-z]{2,8})?/")
# ROCm CLR (rocdevice.cpp) names a device by the target the runtime gave it and its PCI device id:
# ":1:rocdevice.cpp:621: Code object manager initialization failed for HSA device gfx1030 (PCI ID 73df)"
_CLR_DEVICE = lazy(r"\bHSA device (?P<gfx>gfx[0-9a-f]{3,4})(?::[a-z]+[+-])* \(PCI ID (?P<dev>[0-9a-fA-F]{1,4})\)")
# (s11-heldao) CLR's fat-binary loader (hipamd/src/hip_fatbin.cpp) at AMD_LOG_LEVEL 3 names the device whose code
# objects it looks for, and at level 1 the target none was found for (its isa().targetId()):
# ":3:hip_fatbin.cpp :537 : 2500313198678 us:  Device name: amdgcn-amd-amdhsa--gfx942:sramecc+:xnack- Generic name: ..."
# ":1:hip_fatbin.cpp :694 : ... No compatible code objects found for: gfx942:sramecc+:xnack-, value of HIP_FORCE_..."
_CLR_FATBIN_TARGET = lazy(r"\bhip_fatbin\.cpp\s{0,20}:\s{0,4}\d{1,6}\s{0,4}:[^\n]{0,60}?(?:Device name: amdgcn-amd-amdhsa--"
                          r"|No compatible code objects found for: )(?P<gfx>gfx[0-9a-f]{3,4})(?![0-9a-z])")
# (s22-rock25win) MIOpen's handle names the device it runs on when MIOPEN_LOG_LEVEL is 5 or more: HandleImpl::
# get_device_name() (ROCm/MIOpen src/hip/handlehip.cpp, now rocm-libraries projects/miopen) logs MIOPEN_LOG_NQI("Raw device
# name: " << name) with name = hipDeviceProp_t::gcnArchName, under MIOpen's log prefix ("MIOpen(HIP): Info
# [get_device_name] Raw device name: gfx1151", newer releases "MIOpen: Info [get_device_name] ..."), the target id's
# feature suffix (":sramecc+:xnack-") kept as the runtime reports it.  The OpenCL back-end logs CL_DEVICE_NAME there,
# a gfx name on ROCm's OpenCL too; anything else (an old marketing name) is not a target and is not read.
_MIOPEN_DEVICE_NAME = lazy(r"\bMIOpen(?:\((?:HIP|OpenCL)\))?: Info2? \[get_device_name\] Raw device name: "
                           r"(?P<gfx>gfx[0-9a-f]{3,4})(?![0-9a-z])")

# (s23-rock3win, set HE) TheRock's sanity test (ROCm/TheRock tests/test_rocm_sanity.py, test_hip_printf) looks up the
# machine's target by running offload-arch (build/lib/llvm/bin/offload-arch, which prints the GPU's gfx name) and passes
# what it printed to hipcc/amdclang++ as --offload-arch: its pytest log "test_rocm_sanity.py:24 ++ Run [None]$
# .../offload-arch", then "++ Run [.../bin]$ .../hipcc .../hipcc_check.cpp ... --offload-arch=gfx1153 -o hipcc_check".
# Only that pair names the GPU; any other build's --offload-arch is the build's choice, not the device's, and is not read.
_SANITY_PROBE = lazy(r"\btest_rocm_sanity\.py:\d{1,5} \+\+ Run \[[^\]\n]{0,300}\]\$ \S{0,300}?[/\\]offload-arch(?:\.exe)?'?\s*$")
_SANITY_COMPILE = lazy(r"\btest_rocm_sanity\.py:\d{1,5} \+\+ Run \[[^\]\n]{0,300}\]\$ [^\n]{0,1500}?(?:hipcc|amdclang\+\+)"
                       r"(?:\.exe|\.bat)?'? [^\n]{0,1500}?--offload-arch=(?P<gfx>gfx[0-9a-f]{3,4})(?![0-9a-z])")

# (s12-heldau) CLR's device setup (rocclr/device/rocm/rocdevice.cpp) at AMD_LOG_LEVEL 3 prints the ISA version the
# runtime gave the device: ":3:rocdevice.cpp :1703: 131912687456 us: [pid:13124 tid: 0xff6e6] Gfx Major/Minor/Stepping:
# 11/5/0, Device ID: 0x1586" (older releases without the device id): the target is gfx<major><minor><stepping>, minor and
# stepping one hex digit each (9/0/10 is gfx90a).
_CLR_GFX_VERSION = lazy(r"\brocdevice\.cpp\s{0,20}:\s{0,4}\d{1,6}\s{0,4}:[^\n]{0,80}?\bGfx Major/Minor/Stepping: "
                        r"(?P<major>\d{1,2})/(?P<minor>\d{1,2})/(?P<step>\d{1,2})\b")

# (s23-vllm3win, set HF 3131) AITER loads its hand-written assembly kernels from AITER_ASM_DIR/<arch>/<file>.co, <arch>
# being get_gpu_arch() -- the running device's gcnArchName without its feature suffix -- and logs each load at INFO
# (ROCm/aiter csrc/include/aiter_hip_common.h, AiterAsmKernel::load_hsaco_file and VsaDualAsmKernel: AITER_LOG_INFO(
# "LoadKernel: " << kernel_name << " hsaco: " << full_path)): "[aiter] LoadKernel: _ZN5aiter43fmoe_..._32x384E hsaco:
# /usr/local/lib/python3.12/dist-packages/aiter_meta/hsa//gfx950/fmoe/silu/fmoe_..._32x384.co" (AITER_ASM_DIR's own
# trailing slash doubles the separator).  Only that load line; a listing of the hsa folder names every target shipped.
# Under HSA_OVERRIDE_GFX_VERSION it is the overridden target, as rocBLAS's line is.
_AITER_LOAD_KERNEL = lazy(r"\bLoadKernel: \S{1,400} hsaco: \S{0,400}?/hsa/{1,2}(?P<gfx>gfx[0-9a-f]{3,4})/\S{1,400}\.co\s*$")
# rocBLAS (library/src/tensile_host.cpp) names the running device's target when its Tensile kernels are
# missing: "rocBLAS error: Cannot read .../TensileLibrary.dat: Illegal seek for GPU arch : gfx906".
# Under HSA_OVERRIDE_GFX_VERSION that is the overridden target, so such a paste takes nothing from it.
# (s12-heldat) a user who retypes the line drops the space before the colon ("for GPU arch: gfx1103", 1200)
_ROCBLAS_ARCH = lazy(r"\bfor GPU arch ?: ?(?P<gfx>gfx[0-9a-f]{3,4})(?::[a-z]+[+-])*(?![0-9a-z])")
# s13-heldbg (set BG): MIOpen's run-time loader of its Composable Kernel grouped-convolution library names the GPU MIOpen
# runs on (ROCm/rocm-libraries projects/miopen CkImplLibLoader::OpenRuntimeLibraryForDevice / LoadSymbols:
# "CK grouped conv library not found for device " << StripDeviceSuffix(device_name) << ": " ..., "Failed to resolve symbols
# in CK grouped conv library for device <gfx>", "CK grouped conv API version mismatch for device <gfx>: expected ...")
_MIOPEN_CK_DEVICE = lazy(r"\bCK grouped conv (?:library not found for device|library for device|API version mismatch for "
                         r"device) (?P<gfx>gfx[0-9a-f]{3,4})(?![0-9a-z])")
# (s12-heldat) CLR's fat-binary loader (ROCm/clr hipamd/src/hip_fatbin.cpp) names the device's ISA when a library's
# bundle has no code object for it: ":1:hip_fatbin.cpp:780 : Cannot find CO in the bundle /usr/lib64/librocblas.so.4.4
# for ISA: amdgcn-amd-amdhsa--gfx1013:xnack-" (the path often wraps the line, so the ISA half is read on its own).
# Under HSA_OVERRIDE_GFX_VERSION that is the overridden target, as rocBLAS's line is.
_CLR_BUNDLE_ISA = lazy(r"\bfor ISA: amdgcn-amd-amdhsa--(?P<gfx>gfx[0-9a-f]{3,4})(?::[a-z]+[+-])*(?![0-9a-z])")
# (s13-heldbe) rocBLAS and hipBLASLt lazy-load their kernels from 'TensileLibrary_lazy_<processor>.dat', <processor>
# being the running device's target (rocBLAS/hipBLASLt tensile_host.cpp: the library path is the library folder +
# "/TensileLibrary_lazy_" + the device's arch name); a failed load names it: hipBLASLt's "rocblaslt error: Could not
# load /app/plugins/Ollama/lib/ollama/rocm/hipblaslt/library/TensileLibrary_lazy_gfx1201.dat" (1423), rocBLAS's
# "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx1036.dat: No such file or
# directory".  Only the failed load (a listing of the folder names every target shipped); overridden like rocBLAS's line.
_TENSILE_LAZY_LOAD = lazy(r"\b(?:Could not load|Cannot read) [^\n]{0,400}?\bTensileLibrary_lazy_(?P<gfx>gfx[0-9a-f]{3,4})"
                          r"(?![0-9a-z])")
# (s13-heldbe) Unsloth Studio's installer and setup summary (unslothai/unsloth install.sh, studio/setup.sh:
# step "gpu" "AMD ROCm ($_setup_gfx)", and "AMD ROCm ($_setup_gfx, PyTorch cannot use it)" since PR 8606) print the
# gfx target they read from rocminfo or amd-smi: "  gpu            AMD ROCm (gfx1201)" (1421).  (s19-newcomer) Quoted
# in an issue's prose-rendered block the padding may shrink to one space and the next substep line, install.sh's
# "ROCm: <path>", may be joined to it: "gpu AMD ROCm (gfx1100)   ROCm: /opt/rocm" (2343)
_UNSLOTH_GPU = lazy(r"^\s*(?:\[[^\]\n]{1,40}\]){0,3}\s*gpu\s{1,40}AMD ROCm \((?P<gfx>gfx[0-9a-f]{3,4})(?![0-9a-z])(?:, [^()\n]{1,60})?\)"
                    r"(?:\s{1,40}ROCm: \S{1,200})?\s*$")
# Lemonade Server's refusal of a backend names the GPU's family, for an AMD GPU the gfx target it read from
# KFD's gfx_target_version (Linux) or the GPU's name (lemonade-sdk/lemonade src/cpp/server/system_info.cpp:
# message = "Unsupported GPU: " + detected_family; server.cpp: "Cannot install <recipe>:<backend> on this system:
# " + message; model_manager.cpp: "... cannot be used on this system (recipe: <r>): " + message)
_LEMONADE_UNSUPPORTED = lazy(r"\bon this system(?: \(recipe: [\w.-]{1,40}\))?: Unsupported GPU: (?P<gfx>gfx[0-9a-f]{3,4})(?![0-9a-z])")
# (s25-rustmlwin, set JC 3581) tinygrad's own AMD back-end names the GPU's target when it refuses it: AMDDevice builds
# self.arch = "gfx%d%x%x" from the KFD node's (or PCI interface's) gfx_target_version and raises RuntimeError (2024
# releases) or fails its assert (later ones) with f"Unsupported arch: {self.arch}" (tinygrad/tinygrad
# tinygrad/runtime/ops_amd.py); exo's tinygrad engine relays it ("Error processing prompt (see logs with DEBUG>=2):
# Unsupported arch: gfx906").  gfx_target_version is read from sysfs, not from HSA_OVERRIDE_GFX_VERSION.
_TINYGRAD_UNSUPPORTED = lazy(r"\bUnsupported arch: (?P<gfx>gfx[0-9a-f]{3,4})(?![0-9a-z])")
# (s19-xlate, set DQ 2313) SD.Next's and the AMD Stable Diffusion web UIs' ROCm/ZLUDA installer lists the GPU agents it
# found (vladmandic/sdnext installer.py, install_rocm_zluda: log.info(f'ROCm: agents={[gpu.name for gpu in amd_gpus]}'),
# the names modules/rocm.py's get_agents reads from hipinfo or rocm_agent_enumerator, a target feature after ':' as in
# 'gfx1010:xnack-'; lshqqytiger/stable-diffusion-webui-amdgpu prints the same line): one GPU per agent of the first list.
_SDNEXT_AGENTS = lazy(r"\bROCm: agents=\[(?P<list>[^\]\n]{1,400})\]")
_SDNEXT_AGENT = lazy(r"'(?P<gfx>gfx[0-9a-f]{3,4})(?::[a-z]+[+-])*'")

# (s12-heldav) amdgpu_top's DevicePath (Umio-Yasuno/amdgpu_top, libamdgpu_top's DevicePath with #[derive(Debug)]):
# '#0 DevicePath { render: "/dev/dri/renderD128", card: "/dev/dri/card1", pci: "0000:04:00.0" }', 'pci: Some("...")'
# in older releases, ', device_id: Some(5686), revision_id: Some(217), device_name: "AMD Radeon Graphics"' after it since 0.10
_AMDGPU_TOP_DEVPATH = re.compile(r'DevicePath \{[^}\n]{0,200}?\bpci: (?:Some\()?"(?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:'
                                 r'[0-9a-fA-F]{2}\.[0-7])"')
_AMDGPU_TOP_DID = re.compile(r'^[^}]*?\bdevice_id: Some\((?P<did>\d{1,6})\)')
_AMDGPU_TOP_REV = re.compile(r'^[^}]*?\brevision_id: Some\((?P<rev>\d{1,4})\)')
_AMDGPU_TOP_NAME = re.compile(r'^[^}]*?\bdevice_name: "(?P<name>[^"\n]{1,80})"')
_NEEDLES = ("gpu arch : gfx", "gpu arch: gfx", "for isa: amdgcn-amd-amdhsa--", "gcn arch", "amdgpu", "kfd", "gcnarchname", "device ", "name:", "card", "| 0", "boot_image", '"card', "amd arch", "hip", "rocm", "linux", "kernel", "ubuntu",
            "debian", "fedora", "rocky", "alma", "red hat", "centos", "suse", "arch linux", "mint", "pop!_os",
            "manjaro", "python ", "successfully installed", "amd-smi", "version:", "did ", "uname", "advanced micro devices", "pci id",
            "torch.__version__", "device-", "gpu architecture:", "gpu: gfx", "-packages", "/.pyenv/versions/", "/cpython-", "library:rocm}",
            "inference compute", "/lib/modules/", "verifying if device is supported", "/python3.", "unsupported gpu: gfx",
            "+cu", "+cpu",  # (s11-heldas: a CUDA or CPU torch named alone, "torch 2.12.0+cu130")
            "major/minor/stepping",  # (s12-heldau: CLR's ISA line at AMD_LOG_LEVEL 3)
            "tensilelibrary_lazy_", "amd rocm (gfx",  # (s13-heldbe: a failed Tensile load, Unsloth's installer)
            "-nixos-system-",  # (s14-heldbo: a NixOS system derivation's store path, nixos-rebuild's build list)
            "already satisfied: torch", "using cpython 3.",  # (s19-detgen: pip's installed torch, uv's interpreter)
            "(radeonsi, ",  # (s19-detgen: Mesa's renderer string, its kernel release)
            "matched gpu:",  # (s25-newestwin: comfyui-rocm's installer, detect_gpu.py)
            'detected gfx targets: ["',  # (s25-mixedwin: rocm-cli's diagnose note naming the targets it probed)
            '"torch":', '"python":',  # (s21-webuiwin: an app's JSON dependency report, InvokeAI's)
            " platform=",  # (s21-comfy26win: SD.Next's 'Python: version=X.Y.Z platform=...' start-up line)
            "unsupported target: 'gfx", "/nix/store/",  # (s24-triton2win: Triton's AMD target refusal, a Nix store path)
            "found python", "python3.",  # (s25-buildwin: CMake's FindPython line, a Nix python derivation's log prefix)
            "unsupported arch: gfx")  # (s25-rustmlwin: tinygrad's AMD back-end refusing the GPU's target)


# (s12-heldba) inxi's Graphics section (smxi/inxi, https://codeberg.org/smxi/inxi: GraphicItem's PCI device rows):
# one item per "Device-N:" (its name, then "key: value" pairs), wrapped onto indented lines ("-y" sets the width,
# "-y -1" keeps one line), with "-x" the PCI address as lspci's bus:slot.function ("bus-ID: 03:00.0", a domain
# only where it is not 0000) and with "-xx" the vendor:device ids ("chip-ID: 1002:7550"); a USB device's bus-ID is
# "1-2:3" and its chip-ID the USB ids, so only PCI addresses are read.  Other items ("Display:", "API:",
# "Monitor-1:") and other sections end a device.
from .issue_form import INXI_SECTION as _INXI_SECTION_START  # noqa: E402 (inxi's section names, read once)
_INXI_ITEM = lazy(r"^(?:Graphics:\s+)?(?P<key>[A-Z][A-Za-z]*(?:-\d+)?):\s")
_INXI_BUS = lazy(r"(?:^|\s)bus-ID: (?P<bdf>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])(?:\s|$)")
_INXI_CHIP = lazy(r"(?:^|\s)chip-ID: (?P<ven>[0-9a-fA-F]{4}):(?P<dev>[0-9a-fA-F]{4})(?:\s|$)")
_INXI_AMD_NAME = lazy(r"^(?:Advanced Micro Devices|AMD)\b")


def _inxi_graphics(text: str) -> List["PasteGpu"]:
    """The AMD GPUs of an inxi report's Graphics section (one per Device-N item with a PCI bus-ID)."""
    items: List[str] = []
    cur: Optional[List[str]] = None
    in_graphics = False
    for raw in text.replace("\r", "\n").split("\n"):
        line = raw.strip().strip("`")
        if not line:
            continue
        if _INXI_SECTION_START.match(line) and not raw[:1].isspace():
            in_graphics = line.startswith("Graphics:")
            if cur:
                items.append(" ".join(cur))
            cur = None
            if not in_graphics:
                continue
            line = line[len("Graphics:"):].strip()
            if not line:
                continue
        if not in_graphics:
            continue
        m = _INXI_ITEM.match(line)  # (an item's key starts upper case; wrapped values' keys are lower case)
        if m:
            if cur:
                items.append(" ".join(cur))
            cur = [line] if m.group("key").startswith(("Device-", "Card-")) else None
        elif cur is not None:
            cur.append(line)
    if cur:
        items.append(" ".join(cur))
    out: List[PasteGpu] = []
    for item in items:
        bus = _INXI_BUS.search(item)
        if not bus:
            continue
        chip = _INXI_CHIP.search(item)
        name = item.split(":", 1)[1].strip()
        if chip:
            if chip.group("ven").lower() != "1002":
                continue
        elif not _INXI_AMD_NAME.match(name):
            continue
        g = PasteGpu("inxi", bdf=_norm_bdf(bus.group("bdf")))
        if chip:
            g.device_id = chip.group("dev").lower()
        out.append(g)
    return out


@lean_dataclass
class PasteGpu:
    """A GPU one line (or a few lines about the same PCI address) tells about."""

    how: str  # dmesg | kfd | torch | ggml | comfyui
    bdf: Optional[str] = None
    device_id: Optional[str] = None
    revision: Optional[str] = None
    chip: Optional[str] = None
    name: Optional[str] = None
    gfx_target: Optional[str] = None
    isa_features: Optional[str] = None
    skipped: bool = False  # kfd left it out
    card: Optional[int] = None  # rocm-smi's card index, when the line is one of a listing


@lean_dataclass
class PasteFacts:
    gpus: List[PasteGpu] = field(default_factory=list)
    torch: List[Tuple[str, Optional[str]]] = field(default_factory=list)  # (version, hip)
    kernels: List[str] = field(default_factory=list)  # from uname-shaped lines
    kernel_lines: List[str] = field(default_factory=list)  # from "Kernel version: X"
    uname_lines: List[str] = field(default_factory=list)
    distros: List[str] = field(default_factory=list)  # standalone "Ubuntu 24.04.3 LTS (Noble Numbat)"
    pythons: List[str] = field(default_factory=list)  # the Python REPL's banner
    amd_smi_headers: List[Tuple[str, str, str]] = field(default_factory=list)  # (tool, amdgpu, ROCm) of amd-smi's view
    amdgpu_versions: List[str] = field(default_factory=list)  # modinfo amdgpu / cat /sys/module/amdgpu/version
    device_extras: List[str] = field(default_factory=list)  # (s8-heldq) pip's torch[device-gfx1100] / rocm[...,device-gfx1201]
    site_pythons: List[str] = field(default_factory=list)  # (s8-heldq) X.Y of lib/pythonX.Y/site-packages paths
    stdlib_pythons: List[str] = field(default_factory=list)  # (s10-heldaf) X.Y of traceback frames in lib/pythonX.Y
    install_pythons: List[str] = field(default_factory=list)  # (s9-heldr) X.Y.Z of pyenv's / uv's interpreter directories
    tool_pythons: List[str] = field(default_factory=list)  # (s19-detgen) X.Y.Z of uv's 'Using CPython X.Y.Z' line
    app_pythons: List[str] = field(default_factory=list)  # (s21-webuiwin) X.Y.Z of an app's JSON dependency report, SD.Next's start-up line
    build_pythons: List[str] = field(default_factory=list)  # (s25-buildwin) X.Y of a build log's interpreter (CMake's FindPython, Nix)
    manager_pythons: List[str] = field(default_factory=list)  # (s25-pipwin) X.Y.Z the Windows Python install manager installs

    @property
    def ok(self) -> bool:
        return bool(self.gpus or self.torch or self.kernels or self.kernel_lines or self.distros or self.pythons
                    or self.amd_smi_headers or self.amdgpu_versions or self.device_extras or self.site_pythons or self.stdlib_pythons
                    or self.install_pythons or self.tool_pythons or self.app_pythons or self.build_pythons
                    or self.manager_pythons)


def smi_gfx(value: str) -> Optional[str]:
    """rocm-smi's 'GFX Version' -> gfx target: it writes major, minor and stepping as decimal numbers,
    so gfx90a comes out as 'gfx9010' (9, 0, 10) and gfx90c as 'gfx9012'."""
    v = value.strip().lower()
    m = re.fullmatch(r"gfx9(\d)(1[0-5])", v)
    if m:
        return "gfx9%s%x" % (m.group(1), int(m.group(2)))
    return v if re.fullmatch(r"gfx[0-9a-f]{3,4}", v) else None


def _keep(bucket: list, m: Optional["re.Match[str]"], group: str, pair: bool = False) -> None:
    """Append ``m``'s ``group`` (as ``(value, None)`` with ``pair``, the torch facts' shape) to ``bucket`` once;
    nothing when ``m`` is None."""
    if m is not None:
        item = (m.group(group), None) if pair else m.group(group)
        if item not in bucket:
            bucket.append(item)


def _norm_bdf(bdf: str) -> str:
    bdf = bdf.lower()
    return bdf if bdf.count(":") == 2 else "0000:" + bdf


def parse(text: object) -> PasteFacts:
    """Every single-line fact in ``text``; never raises."""
    out = PasteFacts()
    if not isinstance(text, str) or not text:
        return out
    low = lowered(text)
    if not any(n in low for n in _NEEDLES):
        return out
    by_bdf = {}
    if "bus-ID: " in text and "Graphics:" in text:
        for g in _inxi_graphics(text):
            if g.bdf not in by_bdf:
                by_bdf[g.bdf] = g
                out.gpus.append(g)
    kfd_seen = set()
    names_seen = set()
    sdnext_listed = False  # (s19-xlate) the web UI installer's 'ROCm: agents=[...]' list was read
    ollama_verified = set()  # addresses read from Ollama's 'verifying if device is supported' lines
    agent_gfx: Optional[str] = None  # a "Name: gfx..." line waiting for its "Marketing Name:"
    cl_dev: Optional[PasteGpu] = None  # the clinfo GPU device being read
    smi_card: Optional[PasteGpu] = None  # the rocm-smi JSON card being read
    prev_cmd = ""  # the command a prompt line ran, for the bare output line after it
    modinfo_amdgpu = False
    comfy: Optional[PasteGpu] = None  # ComfyUI's current device, told by its arch and name lines
    smi_box, smi_box_rows = "", 0  # (s9-heldr) amd-smi 26.5's header box: its tool version, rows left to read
    torch_check = 0  # (s11-heldak) lines left after a check script's "CUDA available: True" to read its device name in
    check_gpu: Optional[PasteGpu] = None  # the device that name was read for, and lines left to read its arch line in
    check_left = 0
    ggml_listed: List[PasteGpu] = []  # llama.cpp's --list-devices GPUs, kept unless a device line names them
    hip_name: Optional[str] = None  # (s11-heldan) hipInfo's "Name:" of the device whose gcnArchName line is to come
    hip_name_left = 0
    printed: List[str] = []  # (s11-heldan) a one-liner's print() expressions whose values are still to be read
    printed_left = 0  # lines left to read them in
    printed_ver: Optional[str] = None  # the torch version the one-liner printed
    pip_show_torch = False  # (s19-detgen) the line before was pip show's "Name: torch": its "Version:" line is next
    matched_name: Optional[str] = None  # (s25-newestwin) comfyui-rocm's "Matched GPU:" on the line before
    rtc_compile = "comgr-" in low and "hiprtc" in low  # (s16-helddd) a kernel comgr compiled at run time for the device
    sglang_env = "PyTorch: " in text and ("\nsglang: " in text or "\nsgl_kernel: " in text)  # (s22-vllm26win)
    sanity_log = "test_rocm_sanity" in low and "offload-arch" in low  # (s23-rock3win) TheRock's sanity test
    sanity_probe = False  # its offload-arch run was the last command: the next compile names the GPU
    bare_torch: Optional[str] = None  # (s25-overridewin) a bare "Pytorch version:" waiting for its HIP line
    for raw in text.replace("\r", "\n").split("\n"):
        if raw[:1].isdigit() or raw[:1] == "#" or raw[:2] == "  ":
            cp = _COLLECTOR_PREFIX.match(raw.lstrip(" "))
            if cp:
                raw = raw.lstrip(" ")[cp.end():]
        line = raw.strip("`\t >")
        if not line or len(line) > 2000:
            continue
        l = line.lower()
        # (the first characters, compared before the startswith calls below: most lines fail there)
        c0 = l[0]
        c1 = line[0]
        # (two words many of the tests below need: a line without them skips those tests)
        has_amd = "amd" in l
        has_dev = "device" in l
        # (s11-speed: three more words that several tests below need -- "/" for the path tests, "kernel"
        # and "gfx": a line without one skips those tests at once)
        has_slash = "/" in l
        has_kernel = "kernel" in l
        has_gfx = "gfx" in l
        if matched_name is not None:
            m = _INSTALLER_ARCH.match(line) if c0 == "a" and has_gfx else None
            if m and ("installer", m.group("gfx")) not in names_seen:
                names_seen.add(("installer", m.group("gfx")))
                out.gpus.append(PasteGpu("installer", name=matched_name, gfx_target=m.group("gfx")))
            matched_name = None
        if c0 == "m" and l.startswith("matched gpu:"):
            m = _INSTALLER_MATCHED.match(line)
            matched_name = m.group("name") if m else None

        if bare_torch is not None:  # (s25-overridewin set JD 3590, s25-oldgpuwin set JA 3560: the same script)
            m = _TORCH_HIP_LABELLED.match(line) if "hip version" in l else None
            if m and (bare_torch, m.group("hip")) not in out.torch:
                out.torch.append((bare_torch, m.group("hip")))
            bare_torch = None
        if c0 in "pt" and "torch version" in l:
            m = _TORCH_BARE_LABELLED.match(line)
            bare_torch = m.group("torch") if m else None
        if pip_show_torch:
            pip_show_torch = False
            m = _PIP_SHOW_VERSION.match(line) if c0 == "v" else None
            _keep(out.torch, m, "torch", pair=True)
        if c0 == "n" and l == "name: torch":
            pip_show_torch = True
        if sglang_env and c1 == "P" and line.startswith("PyTorch: "):
            m = _SGLANG_ENV_TORCH.match(line)
            _keep(out.torch, m, "torch", pair=True)
        if "already satisfied: torch" in l:
            m = _PIP_SATISFIED_TORCH.match(line)
            _keep(out.torch, m, "torch", pair=True)
        if c1 == '"' and (l.startswith('"torch"') or l.startswith('"python"')):
            m = _APP_DEPS_TORCH.match(line)
            if m:
                if (m.group("torch"), None) not in out.torch:
                    out.torch.append((m.group("torch"), None))
            else:
                m = _APP_DEPS_PYTHON.match(line)
                _keep(out.app_pythons, m, "ver")
        if "python" in l and " version=3." in l and "platform=" in l:
            m = _SDNEXT_PYTHON.search(line)
            _keep(out.app_pythons, m, "ver")
        if "[tauri:diag]" in l and " python_version=3." in l:
            m = _UNSLOTH_DIAG_PYTHON.search(line)
            _keep(out.app_pythons, m, "ver")
        if "python 3." in l and l.rstrip().endswith(" detected"):
            m = _INSTALLER_PYTHON_DETECTED.match(line)
            _keep(out.app_pythons, m, "ver")
        if c0 in "iur" and "python 3." in l and l.rstrip().endswith("."):
            m = _PYMANAGER_INSTALLING.match(line)
            _keep(out.manager_pythons, m, "ver")
        if "python 3." in l and " on " in l and "info" in l:
            m = _SDNEXT_PYTHON_ON.search(line)
            _keep(out.app_pythons, m, "ver")
        if "platform: arch=" in l and " release=" in l:
            m = _SDNEXT_PLATFORM.search(line)
            if m:
                if m.group("ver") not in out.app_pythons:
                    out.app_pythons.append(m.group("ver"))
                rel = m.group("rel")
                if m.group("sys") == "Linux" and _RELEASE_FULL.match(rel) and rel not in out.kernel_lines:
                    out.kernel_lines.append(rel)
        if c1 == "-" and l.startswith("-- found python") and "version \"3." in l:
            m = _CMAKE_FOUND_PYTHON.match(line)
            _keep(out.build_pythons, m, "ver")
        if c0 == "p" and l.startswith("python3.") and "> " in l:
            m = _NIX_PYTHON_DRV.match(line)
            _keep(out.build_pythons, m, "ver")
        if c0 == "u" and l.startswith("using cpython 3."):
            m = _UV_PYTHON.match(line)
            _keep(out.tool_pythons, m, "ver")
        if c0 == "u" and " environment at" in l and l.startswith(("using python 3.", "using cpython 3.")):
            m = _UV_PIP_ENV.match(line.rstrip())
            _keep(out.tool_pythons, m, "ver")
        if "devicepath {" in l and "pci: " in l:
            # (s12-heldav) amdgpu_top's device list ('amdgpu_top -d', its errors and fallbacks): the DevicePath struct
            # in Rust's Debug format, one line: render and card nodes, the PCI address (a string, Some("...") in
            # 0.5-0.8, None when unknown) and, since 0.10, the device and revision ids (decimal) and the name
            m = _AMDGPU_TOP_DEVPATH.search(line)
            if m:
                bdf = _norm_bdf(m.group("bdf"))
                g = by_bdf.get(bdf)
                if g is None:
                    g = by_bdf[bdf] = PasteGpu("amdgpu_top", bdf=bdf)
                    out.gpus.append(g)
                tail = line[m.end():]
                did = _AMDGPU_TOP_DID.search(tail)
                if did and not g.device_id and int(did.group("did")) <= 0xFFFF:
                    g.device_id = "%04x" % int(did.group("did"))
                rev = _AMDGPU_TOP_REV.search(tail)
                if rev and not g.revision and int(rev.group("rev")) <= 0xFF:
                    g.revision = "%02x" % int(rev.group("rev"))
                name = _AMDGPU_TOP_NAME.search(tail)
                if name and name.group("name").strip() and not g.name:
                    g.name = name.group("name").strip()
                continue
        cmd, prev_cmd = prev_cmd, ""
        if "uname -r" in l or (has_amd and "amdgpu/version" in l):
            prev_cmd = l
        elif "py" in l and ("--version" in l or "-V" in line) and _PY_VERSION_CMD.search(line):
            prev_cmd = "python --version"
        elif l.strip() == "checking python version...":  # (s25-trainimgwin) a launcher's echo before its own 'python --version'
            prev_cmd = "python --version"
        elif "torch.__version__" in l and "print(" in l:
            m = _PRINT_TORCH_FIRST.search(l)
            if m and m.start() == l.find("print("):
                prev_cmd = l
        elif "torch.__version__" in l and _REPL_TORCH_CMD.match(raw.strip("`\t ")):  # (the prompt, which line lost)
            prev_cmd = "repl torch.__version__"
        if printed and printed_left > 0 and "print(" not in l:
            printed_left -= 1
            want = printed[0]
            if want == "torch.__version__" and line[:1].isdigit() and _BARE_TORCH.match(line):
                printed_ver = line
                printed.pop(0)
            elif want == "torch.version.hip" and printed_ver and line[:1].isdigit() and _BARE_HIP.match(line):
                if (printed_ver, None) in out.torch:
                    out.torch.remove((printed_ver, None))
                if (printed_ver, line) not in out.torch:
                    out.torch.append((printed_ver, line))
                printed.pop(0)
            elif want not in ("torch.__version__", "torch.version.hip") and printed_ver:
                printed.clear()  # another value is next: the versions are read
        if "print(" in l and "torch.__version__" in l:
            exprs = _PRINTED_EXPR.findall(line)
            if exprs and exprs[0] == "torch.__version__":
                printed, printed_left, printed_ver = exprs, 8, None
        if cmd == "repl torch.__version__":
            m = _REPL_TORCH_ANY.match(line)
            if m:
                fact = (m.group("torch"), None)
                if fact not in out.torch:
                    out.torch.append(fact)
                continue
        if cmd and "torch.__version__" in cmd and line[:1].isdigit():
            m = _BARE_TORCH.match(line)
            if m:
                fact = (m.group("torch"), None)
                if fact not in out.torch:
                    out.torch.append(fact)
                continue
        if has_dev and "device-" in l and "[" in l:
            for m in _DEVICE_EXTRA.finditer(line):
                for extra in m.group("extras").split(","):
                    extra = extra.strip().lower()
                    if extra.startswith("device-") and len(extra) > 7 and extra[7:] not in out.device_extras:
                        out.device_extras.append(extra[7:])
        if cmd and ("uname -r" in cmd or "amdgpu/version" in cmd) and line[:1].isdigit():
            m = (_BARE_RELEASE if "uname" in cmd else _VERSION_ONLY).match(line)
            if m:
                bucket = out.kernel_lines if "uname" in cmd else out.amdgpu_versions
                val = m.group("rel") if "uname" in cmd else m.group("ver")
                if val not in bucket:
                    bucket.append(val)
                continue
        if has_slash and "/lib/modules/" in l and "amdgpu.ko" in l:
            m = _MODULE_PATH.match(line)
            _keep(out.kernel_lines, m, "rel")
        if c0 == "f" and l.startswith("filename:"):
            modinfo_amdgpu = bool(_MODINFO_FILE.match(line))
        elif modinfo_amdgpu and c0 == "v" and l.startswith("version:"):
            m = _MODINFO_VERSION.match(line)
            _keep(out.amdgpu_versions, m, "ver")
            modinfo_amdgpu = False
        if smi_box_rows:
            smi_box_rows -= 1
            if c1 == "|" and ("kernel version" in l or "rocm version" in l):
                m = _AMD_SMI_BOX_ROW.match(line)
                if m and m.group("key").lower() == "rocm version":
                    fact = (smi_box, "", m.group("val"))
                    if fact not in out.amd_smi_headers:
                        out.amd_smi_headers.append(fact)
                    continue
                if m:
                    if m.group("val") not in out.kernel_lines:
                        out.kernel_lines.append(m.group("val"))
                    continue
            if c1 != "|" or line.startswith(("|=", "|-")):
                smi_box_rows = 0
        if c1 == "|" and has_amd and "amd-smi" in l and "version" not in l:
            m = _AMD_SMI_BOX_TOP.match(line)
            if m:
                smi_box, smi_box_rows = m.group("tool"), 6
                continue
        if has_amd and "amd-smi" in l and "rocm version" in l:
            m = _AMD_SMI_HEADER.match(line)
            if m:
                fact = (m.group("tool"), m.group("amdgpu"), m.group("rocm"))
                if fact not in out.amd_smi_headers:
                    out.amd_smi_headers.append(fact)
                continue
        if "radeonsi" in l:
            k = _MESA_KERNEL.search(line)
            if k and k.group("rel") not in out.kernel_lines:
                out.kernel_lines.append(k.group("rel"))
            m = _MESA_RENDERER.search(line)
            if m and ("mesa", m.group("name")) not in names_seen:
                names_seen.add(("mesa", m.group("name")))
                out.gpus.append(PasteGpu("mesa", name=m.group("name").strip(), gfx_target=m.group("gfx")))
                if m.group("rel") not in out.kernel_lines:
                    out.kernel_lines.append(m.group("rel"))
        if has_dev and "advanced micro devices" in l and line[:1].isalnum() and ("controller" in l or "accelerators" in l):
            m = _LSPCI_LINE.match(line)
            if m:
                bdf = _norm_bdf(m.group("bdf"))
                if bdf not in by_bdf:
                    g = by_bdf[bdf] = PasteGpu("lspci-line", bdf=bdf, chip=m.group("chip").strip())
                    out.gpus.append(g)
        if has_dev and "hsa device" in l and "pci id" in l:
            m = _CLR_DEVICE.search(line)
            if m and ("clr", m.group("dev").lower()) not in names_seen:
                names_seen.add(("clr", m.group("dev").lower()))
                out.gpus.append(PasteGpu("hip-log", device_id=m.group("dev").lower().zfill(4), gfx_target=m.group("gfx")))
        if rtc_compile and "generated when compiling for gfx" in l:
            m = _CLANG_RTC_TARGET.search(line)
            if m and ("rtc", m.group("gfx")) not in names_seen:
                names_seen.add(("rtc", m.group("gfx")))
                out.gpus.append(PasteGpu("hip-log", gfx_target=m.group("gfx")))
        if "hip_fatbin" in l and ("device name:" in l or "no compatible code objects" in l):
            m = _CLR_FATBIN_TARGET.search(line)
            if m and ("fatbin", m.group("gfx").lower()) not in names_seen:
                names_seen.add(("fatbin", m.group("gfx").lower()))
                out.gpus.append(PasteGpu("hip-log", gfx_target=m.group("gfx").lower()))
        if has_gfx and "raw device name: gfx" in l:
            m = _MIOPEN_DEVICE_NAME.search(line)
            if m and ("miopen", m.group("gfx").lower()) not in names_seen:
                names_seen.add(("miopen", m.group("gfx").lower()))
                out.gpus.append(PasteGpu("hip-log", gfx_target=m.group("gfx").lower()))
        if sanity_log and "test_rocm_sanity" in l and "++ run [" in l:
            if _SANITY_PROBE.search(line):
                sanity_probe = True
            elif sanity_probe:
                sanity_probe = False
                m = _SANITY_COMPILE.search(line) if has_gfx else None
                if m and ("sanity", m.group("gfx")) not in names_seen:
                    names_seen.add(("sanity", m.group("gfx")))
                    out.gpus.append(PasteGpu("hip-log", gfx_target=m.group("gfx")))
        if "major/minor/stepping" in l and "rocdevice" in l:
            m = _CLR_GFX_VERSION.search(line)
            if m:
                major, minor, step = int(m.group("major")), int(m.group("minor")), int(m.group("step"))
                if 6 <= major <= 12 and minor < 16 and step < 16:
                    gfx = f"gfx{major}{minor:x}{step:x}"
                    if ("clr-isa", gfx) not in names_seen:
                        names_seen.add(("clr-isa", gfx))
                        out.gpus.append(PasteGpu("hip-log", gfx_target=gfx))
        if has_dev and "did " in l and "supported_devices" in l:
            m = _KFD_DID_MISSING.search(line)
            if m and (m.group("dev").lower(), True) not in kfd_seen:
                kfd_seen.add((m.group("dev").lower(), True))
                out.gpus.append(PasteGpu("kfd", device_id=m.group("dev").lower(), skipped=True))
        if c0 == "p" and l.startswith("python "):
            m = _PY_BANNER.match(line) or (_PY_VERSION_OUT.match(line) if cmd == "python --version" else None)
            _keep(out.pythons, m, "ver")
        if "python version: 3." in l:  # (s20-appwin) a program's "Python version: <sys.version>" start-up line
            m = _SYS_VERSION_LINE.search(line)
            _keep(out.pythons, m, "ver")
        if "successfully installed" in l:
            if _PIP_INSTALLED.search(line):
                for m in _PIP_TORCH.finditer(line):
                    fact = (m.group("ver"), None)
                    if fact not in out.torch:
                        out.torch.append(fact)
        if "linux " in l and (" #" in l or "github.com/" in l) and not l.startswith("linux "):
            m = _UNAME_ANYWHERE.search(line)
            if m and m.group("rel") not in out.kernels:
                out.kernels.append(m.group("rel"))
                out.uname_lines.append(line[m.start():])
        if "linux cosmopolitan " in l:
            m = _COSMO_UNAME.match(line)
            _keep(out.kernels, m, "rel")
        if has_dev or cl_dev is not None:
            if "device type" in l:
                cl_dev = None
                if _CL_GPU.match(line):
                    cl_dev = PasteGpu("clinfo")
                    out.gpus.append(cl_dev)
                continue
            if cl_dev is not None:
                m = _CL_BOARD.match(line) if "board name" in l else None
                if m:
                    cl_dev.name = m.group("name")
                    continue
                m = _CL_TOPOLOGY.match(line) if "topology" in l else None
                if m:
                    cl_dev.bdf = _norm_bdf(m.group("bdf")) if m.group("bdf") else "0000:%02x:%02x.%d" % (
                        int(m.group("bus")), int(m.group("dev")), int(m.group("fn")) % 8)
                    continue
                m = _CL_NAME.match(line) if "name" in l and "gfx" in l else None
                if m:
                    cl_dev.gfx_target = m.group("gfx")
                    cl_dev = None
                    continue
        if agent_gfx is not None and c0 == "m" and l.startswith("marketing name:"):
            m = _MARKETING.match(line)
            if m and ("agent", agent_gfx, m.group("name")) not in names_seen:
                names_seen.add(("agent", agent_gfx, m.group("name")))
                out.gpus.append(PasteGpu("rocminfo-names", name=m.group("name"), gfx_target=agent_gfx))
            agent_gfx = None
            continue
        agent_gfx = None
        if c0 == "n" and l.startswith("name:") and "gfx" in l:
            m = _AGENT_NAME.match(line)
            agent_gfx = m.group("gfx") if m else None
            continue
        if c0 == '"' and l.startswith('"card'):
            m = _SMI_JSON_CARD.match(line)
            if m:
                smi_card = PasteGpu("rocm-smi-json", card=int(m.group("idx")))
                out.gpus.append(smi_card)
                continue
        if smi_card is not None and c1 == '"':
            m = _SMI_JSON_KEY.match(line)
            if m:
                key, val = m.group("key"), m.group("val").strip()
                if key == "Device ID" and re.fullmatch(r"0x[0-9a-fA-F]{4}", val):
                    smi_card.device_id = val[2:].lower()
                elif key == "Device Rev" and re.fullmatch(r"0x[0-9a-fA-F]{1,2}", val):
                    smi_card.revision = val[2:].lower().zfill(2)
                elif key == "PCI Bus" and re.fullmatch(_BDF, val):
                    smi_card.bdf = _norm_bdf(val)
                elif key == "GFX Version":
                    smi_card.gfx_target = smi_gfx(val)
                elif key in ("Card Series", "Device Name") and not val.startswith("0x"):
                    smi_card.name = val
            continue
        if c1 == "}":
            smi_card = None
        if c1 == "|" and line.count(":") >= 2:
            m = _SMI_TABLE_ROW.match(line)
            if m:
                bdf = _norm_bdf(m.group("bdf"))
                if bdf not in by_bdf:
                    g = by_bdf[bdf] = PasteGpu("amd-smi", bdf=bdf, name=m.group("name"))
                    out.gpus.append(g)
                continue
        if c0 == "c" and l.startswith("card") and "," in l:
            m = _SMI_CSV_ROW.match(line)
            if m and ("csv", m.group("idx")) not in names_seen:
                names_seen.add(("csv", m.group("idx")))
                series = m.group("series").strip()
                inner = re.search(r"\[([^\]]+)\]\s*$", series)
                out.gpus.append(PasteGpu("rocm-smi-csv", name=inner.group(1) if inner else series,
                                         chip=series.split(" [")[0], card=int(m.group("idx"))))
            continue
        if (has_amd and "amdgpu" in l) or "modesetting" in l:
            m = _AMDGPU_BDF.search(line) if "amdgpu " in line else None
            bdf = _norm_bdf(m.group("bdf")) if m else None
            ms = _MODESET.search(line) if "modesetting" in l else None
            if bdf or ms:
                key = bdf or ("modeset", ms.group("dev").lower() if ms else "")
                g = by_bdf.get(key)
                if g is None:
                    g = by_bdf[key] = PasteGpu("dmesg", bdf=bdf)
                    out.gpus.append(g)
                if ms:
                    g.device_id = ms.group("dev").lower()
                    g.revision = ms.group("rev").lower()
                    g.chip = ms.group("chip")
        if has_dev and "kfd" in l and "device 1002:" in l:
            m = _KFD_DEVICE.search(line)
            if m:
                dev = m.group("dev").lower()
                skipped = m.group("what") == "skipped"
                if (dev, skipped) not in kfd_seen:
                    kfd_seen.add((dev, skipped))
                    out.gpus.append(PasteGpu("kfd", device_id=dev, skipped=skipped))
        if hip_name_left:
            hip_name_left -= 1
        if c0 == "n" and l.startswith("name:") and ("radeon" in l or "instinct" in l):
            m = _HIPINFO_NAME.match(line)
            if m:
                hip_name, hip_name_left = m.group("name"), 80
        if c0 == "g" and l.startswith(("gcn arch", "gcnarchname")) and hip_name and hip_name_left:
            m = _GCN_ARCH_LINE.match(line)
            if m:
                key = ("hipinfo", hip_name, m.group("gfx"))
                if key not in names_seen:
                    names_seen.add(key)
                    out.gpus.append(PasteGpu("hipinfo", name=hip_name, gfx_target=m.group("gfx"),
                                             isa_features=m.group("feat") or None))
                hip_name, hip_name_left = None, 0
                continue
        if c0 == "g" and l.startswith(("gcn arch", "gcnarchname")):
            m = _GCN_ARCH_LINE.match(line)
            if m and ("torch", None, m.group("gfx")) not in names_seen:
                names_seen.add(("torch", None, m.group("gfx")))
                if check_left and check_gpu is not None and check_gpu.gfx_target is None:
                    # the same script's print of the device it just named (tests/data/real/453)
                    check_gpu.gfx_target, check_gpu.isa_features = m.group("gfx"), m.group("feat") or None
                else:
                    out.gpus.append(PasteGpu("torch", gfx_target=m.group("gfx"), isa_features=m.group("feat") or None))
                continue
        if "gcnarchname" in l:
            m = _GCN_ARCH.search(line)
            if m:
                n = _PROPS_NAME.search(line)
                name = n.group("name") if n else None
                key = ("torch", name, m.group("gfx"))
                if key not in names_seen:
                    names_seen.add(key)
                    out.gpus.append(PasteGpu("torch", name=name, gfx_target=m.group("gfx"),
                                             isa_features=m.group("feat") or None))
        if "ggml_" in l and ("amd specific memory reporting" in l or "get_device_memory searching for device" in l):
            m = _GGML_AMD_MEMORY.search(line)
            if m:
                bdf = m.group("bdf").lower()
                if ("ggml-amd-memory", bdf) not in names_seen:
                    names_seen.add(("ggml-amd-memory", bdf))
                    out.gpus.append(PasteGpu("ggml", bdf=bdf))
                continue
        if has_gfx and '"detected amdgpu versions [' in l:
            m = _OLLAMA_DETECTED.search(line)
            if m and "ollama-detected" not in names_seen:
                names_seen.add("ollama-detected")
                for tok in m.group("list").split():
                    gfx = _ollama_decimal_gfx(tok)
                    if gfx:
                        out.gpus.append(PasteGpu("ollama", gfx_target=gfx))
            continue
        if has_gfx and '"amdgpu too old gfx' in l:
            m = _OLLAMA_TOO_OLD.search(line)
            if m and ("ollama-too-old", m.group("idx")) not in names_seen:
                names_seen.add(("ollama-too-old", m.group("idx")))
                out.gpus.append(PasteGpu("ollama", gfx_target=m.group("gfx"), card=int(m.group("idx"))))
            continue
        if has_gfx and '"amdgpu is ' in l and "gpu_type=gfx" in l:
            m = _OLLAMA_SUPPORTED.search(line)
            if m and ("ollama-sysfs", m.group("idx")) not in names_seen:
                names_seen.add(("ollama-sysfs", m.group("idx")))
                out.gpus.append(PasteGpu("ollama", gfx_target=m.group("gfx"), card=int(m.group("idx"))))
            continue
        if has_dev and has_gfx and '"verifying if device is supported"' in l and "compute=gfx" in l:
            m = _OLLAMA_VERIFY.search(line)
            if m:
                bdf = m.group("bdf").lower()
                if bdf not in ollama_verified:
                    ollama_verified.add(bdf)
                    out.gpus.append(PasteGpu("ollama", name=m.group("name").strip(), gfx_target=m.group("gfx"),
                                             bdf=bdf, card=int(m.group("idx")) if m.group("idx").isdigit() else None))
            continue
        if "library:rocm} name:" in l or ('"inference compute"' in l and "library=rocm" in l):
            found = False
            for m in (_OLLAMA_DEVICE.finditer(line) if "library:rocm}" in l else ()):
                key = ("ollama", m.group("idx"), m.group("bdf"))
                found = True
                if key not in names_seen:
                    names_seen.add(key)
                    out.gpus.append(PasteGpu("ollama", name=m.group("name").strip(), bdf=m.group("bdf").lower(),
                                             card=int(m.group("idx"))))
            m = _OLLAMA_COMPUTE.search(line) if not found else None
            old = _OLLAMA_COMPUTE_OLD.search(line) if not found and m is None else None
            if old:
                key = ("ollama-old", old.group("idx"), old.group("gfx"))
                if key not in names_seen:
                    names_seen.add(key)
                    out.gpus.append(PasteGpu("ollama", gfx_target=old.group("gfx"),
                                             device_id=(old.group("dev") or "").lower() or None,
                                             name=old.group("name").strip() if old.group("name") else None,
                                             card=int(old.group("idx")) if old.group("idx").isdigit() else None))
            if m:
                key = ("ollama", m.group("idx"), m.group("bdf"))
                if key not in names_seen and not ((m.group("bdf") or "").lower() in ollama_verified):
                    names_seen.add(key)
                    out.gpus.append(PasteGpu("ollama", name=m.group("name").strip(), gfx_target=m.group("gfx"),
                                             bdf=(m.group("bdf") or "").lower() or None,
                                             card=int(m.group("idx")) if m.group("idx").isdigit() else None))
            continue
        if "mib free)" in l and (c0 == "r" or l.startswith("- rocm")):
            m = _GGML_LIST_DEVICE.match(line)
            if m and ("ggml-list", m.group("idx"), m.group("name")) not in names_seen:
                names_seen.add(("ggml-list", m.group("idx"), m.group("name")))
                ggml_listed.append(PasteGpu("ggml-list", name=m.group("name").strip(), card=int(m.group("idx"))))
            continue
        if has_dev and "device " in l and "gfx" in l and (l.startswith("device ") or "]:" in l):
            m = _GGML_DEVICE.match(line)
            if m:
                key = ("ggml", m.group("idx"), m.group("name"))
                if key not in names_seen:
                    names_seen.add(key)
                    # the device index keeps four identical MI50s four GPUs (s9-helds, as rocm-smi's card index)
                    out.gpus.append(PasteGpu("ggml", name=m.group("name").strip(), gfx_target=m.group("gfx"),
                                             card=int(m.group("idx"))))
        if c0 == "d" and l.startswith("device id ") and "gfx" in l:
            m = _BENCH_DEVICE.match(line)
            if m and ("bench", m.group("idx")) not in names_seen:
                names_seen.add(("bench", m.group("idx")))
                out.gpus.append(PasteGpu("bench", name=m.group("name"), gfx_target=m.group("gfx")))
            continue
        if "amdgpu " in l and ("ignoring visible gpu device" in l or "streamexecutor rocm device" in l):
            m = _TF_IGNORED_GPU.search(line) or _XLA_UNSUPPORTED_GPU.search(line)
            if m and ("tf-xla", m.group("idx"), m.group("gfx")) not in names_seen:
                names_seen.add(("tf-xla", m.group("idx"), m.group("gfx")))
                gd = m.groupdict()
                name = (gd.get("name") or "").strip() or None
                out.gpus.append(PasteGpu("tf-xla", name=name, gfx_target=m.group("gfx"), bdf=gd.get("bdf"),
                                         card=int(m.group("idx"))))
        if c0 == "g" and l.startswith(("gpu architecture:", "gpu:", "gpu :")):
            m = _GPU_ARCH_FIELD.match(line) or _GPU_FIELD.match(line)
            if m and ("field", m.group("gfx")) not in names_seen:
                names_seen.add(("field", m.group("gfx")))
                out.gpus.append(PasteGpu("field", gfx_target=m.group("gfx")))
        if c0 == "g" and has_gfx and l.startswith("gpu dev ") and " gb vram, hip " in l:
            m = _HIPFIRE_DEVICE.match(line)
            if m and ("hipfire", m.group("idx")) not in names_seen:
                names_seen.add(("hipfire", m.group("idx")))
                out.gpus.append(PasteGpu("hipfire", gfx_target=m.group("gfx"), card=int(m.group("idx"))))
        if has_gfx and "detected gfx targets: [\"" in l:
            m = _ROCM_CLI_TARGETS.search(line)
            if m:
                for gfx in re.findall(r"gfx[0-9a-f]{3,4}", m.group("list")):
                    if ("rocm-cli", gfx) not in names_seen:
                        names_seen.add(("rocm-cli", gfx))
                        out.gpus.append(PasteGpu("rocm-cli", gfx_target=gfx))
        if has_slash and "-packages" in l and "/python" in l:
            for m in _SITE_PYTHON.finditer(line):
                if m.group("ver") not in out.site_pythons:
                    out.site_pythons.append(m.group("ver"))
        if has_slash and 'file "' in l and "/python3." in l:
            for m in _STDLIB_FRAME.finditer(line):
                if m.group("ver") not in out.stdlib_pythons:
                    out.stdlib_pythons.append(m.group("ver"))
        if has_slash and ("/.pyenv/versions/" in l or "/cpython-" in l):
            for m in _INSTALL_PYTHON.finditer(line):
                ver = m.group("pyenv") or m.group("uv")
                if ver not in out.install_pythons:
                    out.install_pythons.append(ver)
        if has_gfx and not sdnext_listed and "rocm: agents=[" in l:
            m = _SDNEXT_AGENTS.search(line)
            if m:
                sdnext_listed = True
                for a in _SDNEXT_AGENT.finditer(m.group("list")):
                    out.gpus.append(PasteGpu("sdnext", gfx_target=a.group("gfx")))
        if has_gfx and "unsupported gpu: gfx" in l:
            m = _LEMONADE_UNSUPPORTED.search(line)
            if m and ("lemonade", m.group("gfx")) not in names_seen:
                names_seen.add(("lemonade", m.group("gfx")))
                out.gpus.append(PasteGpu("lemonade", gfx_target=m.group("gfx")))
        if has_gfx and "unsupported arch: gfx" in l:
            m = _TINYGRAD_UNSUPPORTED.search(line)
            if m and ("tinygrad", m.group("gfx")) not in names_seen:
                names_seen.add(("tinygrad", m.group("gfx")))
                out.gpus.append(PasteGpu("tinygrad", gfx_target=m.group("gfx")))
        if has_gfx and "gpu arch" in l:
            m = _ROCBLAS_ARCH.search(line)
            if m and ("rocblas", m.group("gfx")) not in names_seen:
                names_seen.add(("rocblas", m.group("gfx")))
                out.gpus.append(PasteGpu("rocblas", gfx_target=m.group("gfx")))
        if has_gfx and "loadkernel: " in l and " hsaco: " in l:
            m = _AITER_LOAD_KERNEL.search(line)
            if m and ("aiter", m.group("gfx")) not in names_seen:
                names_seen.add(("aiter", m.group("gfx")))
                out.gpus.append(PasteGpu("aiter", gfx_target=m.group("gfx")))
        if has_gfx and "tensilelibrary_lazy_" in l:
            m = _TENSILE_LAZY_LOAD.search(line)
            if m and ("rocblas", m.group("gfx")) not in names_seen:  # (one GPU with rocBLAS's own line of it)
                names_seen.add(("rocblas", m.group("gfx")))
                out.gpus.append(PasteGpu("rocblas", gfx_target=m.group("gfx")))
        if has_gfx and "amd rocm (gfx" in l and l.lstrip().startswith(("gpu", "[")):
            m = _UNSLOTH_GPU.match(line)
            if m and ("unsloth", m.group("gfx")) not in names_seen:
                names_seen.add(("unsloth", m.group("gfx")))
                out.gpus.append(PasteGpu("unsloth", gfx_target=m.group("gfx")))
        if has_gfx and "ck grouped conv " in l and "for device gfx" in l:
            m = _MIOPEN_CK_DEVICE.search(line)
            if m and not any(g.gfx_target == m.group("gfx") for g in out.gpus):
                names_seen.add(("miopen", m.group("gfx")))
                out.gpus.append(PasteGpu("miopen", gfx_target=m.group("gfx")))
        if has_gfx and "for isa: amdgcn-amd-amdhsa--" in l:
            m = _CLR_BUNDLE_ISA.search(line)
            if m and ("rocblas", m.group("gfx")) not in names_seen:  # (one GPU with rocBLAS's own line of it)
                names_seen.add(("rocblas", m.group("gfx")))
                out.gpus.append(PasteGpu("hip-fatbin", gfx_target=m.group("gfx")))
        if has_gfx and "unsupported target: 'gfx" in l:
            m = _TRITON_UNSUPPORTED_TARGET.search(line)
            if m and ("triton", m.group("gfx")) not in names_seen:
                names_seen.add(("triton", m.group("gfx")))
                out.gpus.append(PasteGpu("triton", gfx_target=m.group("gfx")))
        if has_slash and "/nix/store/" in l and "-torch-" in l:
            _keep(out.torch, _NIX_PY_TORCH.search(line), "torch", pair=True)
        if check_left:
            check_left -= 1
        if torch_check:
            torch_check -= 1
            if c0 == "d" and l.startswith("device name"):
                m = _TORCH_DEVICE_NAME.match(line)
                if m and ("torch-name", m.group("name")) not in names_seen:
                    names_seen.add(("torch-name", m.group("name")))
                    check_gpu = PasteGpu("torch", name=m.group("name").strip())
                    out.gpus.append(check_gpu)
                    check_left, torch_check = 4, 0
        if c0 in "ct" and "available" in l and l.rstrip().endswith("true") and _TORCH_AVAILABLE.match(line):
            torch_check = 4
        # ComfyUI logs the arch and the name of one device, its current one: a run's "AMD arch:" and
        # "Device: cuda:N ..." lines are one GPU (a second line of a kind starts another)
        if (c0 == "a" and l.startswith("amd arch:")) or (c0 == "2" and " - amd arch: gfx" in l):
            m = _COMFY_ARCH.match(line)
            if m and ("comfy", m.group("gfx")) not in names_seen:
                names_seen.add(("comfy", m.group("gfx")))
                if comfy is not None and comfy.gfx_target is None:
                    comfy.gfx_target = m.group("gfx")
                else:
                    comfy = PasteGpu("comfyui", gfx_target=m.group("gfx"))
                    out.gpus.append(comfy)
        if (c0 == "d" and l.startswith("device: cuda:")) or (c0 == "2" and " - device: cuda:" in l):
            m = _COMFY_DEVICE.match(line)
            if m and ("comfy-name", m.group("name")) not in names_seen:
                names_seen.add(("comfy-name", m.group("name")))
                if comfy is not None and comfy.name is None:
                    comfy.name = m.group("name").strip()
                else:
                    comfy = PasteGpu("comfyui", name=m.group("name").strip())
                    out.gpus.append(comfy)
        # (each torch pattern below is tried only where the line's first character after the blanks can
        # start it, or the line ends as a wheel does, or -- for _TORCH_NAMED, searched anywhere in prose or a
        # title -- the line names torch: without one, nothing below can match)
        c = line.lstrip()[:1]
        if (c.isdecimal() or c in _TORCH_LABEL_FIRST or c == "'" or l.endswith(".whl") or "torch" in l
                or (c == "O" and l.lstrip().startswith("out["))) and (
                "rocm" in l or "hip" in l or "'" in l or "+cu" in l or "+cpu" in l):
            w = _TORCH_WHEEL.match(line) if l.endswith(".whl") and " " not in line else None
            if w:
                fact = ("%s+%s" % (w.group("ver"), w.group("local")), None)
                if fact not in out.torch:
                    out.torch.append(fact)
                continue
            # (each pattern is tried only where the line's first character after the blanks, which
            # str.lstrip and the patterns' \s* agree on, can start it)
            m = ((_TORCH_HIP.match(line) if c.isdecimal() else None)
                 or (_TORCH_LABELLED.match(line) if c in _TORCH_LABEL_FIRST else None)
                 or (_REPL_TORCH.match(line) if c == "'" or (c == "O" and line.lstrip().startswith("Out[")) else None))
            if m:
                fact = (m.group("torch"), m.groupdict().get("hip"))
                if fact not in out.torch:
                    out.torch.append(fact)
            elif "torch" in l and not _PIP_REQUESTED.search(line):
                m = _TORCH_NAMED.search(line)
                if m:
                    fact = (m.group("torch").rstrip("."), None)
                    if fact not in out.torch:
                        out.torch.append(fact)
        if has_dev and ("] amd" in l or "] radeon" in l) and "device" in line:
            m = _RCCL_DEVICE.search(line)
            if m:
                # (a GPU's compute function is PCI function 0: "[0000:03:00]" is 0000:03:00.0)
                bdf = _norm_bdf(m.group("bdf") or m.group("dbd") + ".0")
                if bdf not in by_bdf:
                    g = by_bdf[bdf] = PasteGpu("rccl", bdf=bdf, name=m.group("name"))
                    out.gpus.append(g)
        if "boot_image=" in l:
            m = _BOOT_IMAGE.search(line)
            _keep(out.kernel_lines, m, "rel")
        if c0 == "l" and l.startswith("linux "):
            m = _UNAME_LINE.match(line)
            if m and m.group("rel") not in out.kernels:
                out.kernels.append(m.group("rel"))
                out.uname_lines.append(line)
        if "-nixos-system-" in l:
            m = _NIX_SYSTEM_DRV.search(line)
            if m and "NixOS " + m.group("ver") not in out.distros:
                out.distros.append("NixOS " + m.group("ver"))
        if "host os: " in l:
            m = _NIX_HOST_OS.search(line)
            if m:
                if m.group("rel") not in out.kernels:
                    out.kernels.append(m.group("rel"))
                pretty = "%s %s" % (m.group("name").strip(), m.group("ver").strip())
                if pretty not in out.distros:
                    out.distros.append(pretty)
                continue
        if has_kernel and "os_kernel_version" in l:
            m = _SMI_OS_KERNEL.match(line)
            _keep(out.kernel_lines, m, "rel")
            continue
        if has_kernel and "nccl info kernel version: " in l:
            m = _NCCL_KERNEL.search(line)
            _keep(out.kernel_lines, m, "rel")
            continue
        if has_kernel and c in _KERNEL_FIRST:
            m = _KERNEL_LINE.match(line)
            _keep(out.kernel_lines, m, "rel")
        elif c in "lL`" and len(line) < 80 and "linux " in l:
            m = _UNAME_SR.match(line)
            _keep(out.kernel_lines, m, "rel")
        if len(line) < 80 and c1 in _DISTRO_FIRST and line.startswith(_DISTRO_STARTS):
            m = _DISTRO_LINE.match(line)  # (it starts with one of the names: the line's first letter is one)
            if m and any(c.isdigit() for c in m.group("pretty")) or (m and "arch linux" in l):
                if m.group("pretty") not in out.distros:
                    out.distros.append(m.group("pretty"))
    # (s21-fwwin, set EV 2572) a paste that is nothing but 'python --version''s answer (CPython Modules/main.c:
    # printf("Python %s\n", PY_VERSION)): an issue form's "python3 --version" field holds the bare "Python 3.11.6", the
    # command only in the form's label.  The answer alone in the paste, so no prose line or package list is read.
    lone = text.strip().strip("`").strip() if not out.pythons and len(text) < 200 else ""
    if lone[:7].lower() == "python " and "\n" not in lone:
        m = _PY_VERSION_OUT.match(lone)
        if m:
            out.pythons.append(m.group("ver"))
    # a GPU of llama.cpp's device list that its ggml_cuda_init line names too is one GPU: the device line has its target
    out.gpus.extend(g for g in ggml_listed if ("ggml", str(g.card), g.name) not in names_seen)
    if "hsa_override_gfx_version" in low:  # rocBLAS (and AITER's kernel loads) then name the overridden target
        out.gpus = [g for g in out.gpus if g.how not in ("rocblas", "aiter")]
    # a GPU whose kfd line and modesetting line name the same chip is one GPU: keep the richer record
    dmesg_devs = {g.device_id for g in out.gpus if g.how == "dmesg" and g.device_id}
    out.gpus = [g for g in out.gpus if not (g.how == "kfd" and not g.skipped and g.device_id in dmesg_devs)]
    return out


_CACHE: dict = {}


def keep(text: str, facts: PasteFacts) -> None:
    """Have :func:`parse_cached` answer ``facts`` for ``text`` (``parse(text)`` worked out elsewhere:
    a forked worker of the recogniser), while the cache has room."""
    if isinstance(text, str) and len(_CACHE) <= 64:
        _CACHE.setdefault(hash(text), facts)


def parse_cached(text: str) -> PasteFacts:
    key = hash(text) if isinstance(text, str) else None
    if key is None:
        return parse(text)
    hit = _CACHE.get(key)
    if hit is None:
        if len(_CACHE) > 64:
            _CACHE.clear()
        hit = _CACHE[key] = parse(text)
    return hit
