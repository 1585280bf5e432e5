"""Known error texts, as data: each entry is a signature id, a regular expression, where the text
is known from (source) and a one-line meaning.

The errors probe (``detect/probes/errors.py``) runs every pattern over pasted logs, tool outputs
and the kernel log and records an :class:`~rocm_wizard.model.ErrorSighting` per hit; the doctor
matches sightings by ``signature``.  To teach rocm-wizard a new error, add a row to the failure
catalogue ``detect/failures.toml`` (its layer, meaning, causes, next commands, fix, the source file
that prints the message and a real example line: see docs/doctor.md); those rows join this table
after the Python rows below and are reported by the doctor's ``known-failure`` rule unless a specific
rule names them.  No code changes are needed.

Patterns are matched line by line (``re.M``; ``.`` never crosses a line end; ``re.I`` unless
``case=True``); each hit reports its whole line.  Entries with ``whole=True`` see the whole text at
once (``re.S``), for "absence" signatures.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

# the line search and its constants are shared with the table's compact index (one copy)
from .error_index import _CHARS_PER_LINE_CALL as _INDEX_CHARS_PER_LINE_CALL
from .error_index import _ODD_CASE as _INDEX_ODD_CASE
from .error_index import _factor_lines as _lines_with_factors
from .error_index import factor_case as _factor_case


@dataclass(frozen=True)
class Signature:
    id: str
    pattern: str
    source: str
    meaning: str
    case: bool = False  # case-sensitive
    whole: bool = False  # match against the whole text, not line by line
    needles: Tuple[str, ...] = ()  # lower-case words one of which any match contains (a fast pre-check)

    def compiled(self) -> re.Pattern:
        flags = re.M if self.case else re.I | re.M
        if self.whole:
            flags = (flags & ~re.M) | re.S
        return re.compile(self.pattern, flags)


SIGNATURES: Tuple[Signature, ...] = (
    Signature(
        "hipblas_status", r"\bHIPBLAS_STATUS_(?!SUCCESS\b)[A-Z_]+",
        source="ROCm/TheRock#1708; pytorch/pytorch#103973",
        meaning="hipBLAS returned an error status (ALLOC_FAILED, NOT_SUPPORTED, ...)",
        needles=('hipblas_status_',), case=True),
    Signature(
        "hipblaslt_unsupported_arch", r"Attempting to use hipBLASLt on an? unsupported architecture",
        source="ROCm/ROCm#4437; pytorch/pytorch#138067 (aten/src/ATen/Context.cpp)",
        meaning="PyTorch's hipBLASLt arch check: a warning and fall-back to hipBLAS (an error in some 2.6 nightlies)",
        needles=('hipblaslt on a',)),
    Signature(
        "triton_language", r"module 'triton' has no attribute 'language'",
        source="pytorch/pytorch#130723 (fix: pytorch/pytorch#131433)",
        meaning="a triton directory shadows the real Triton package, or the install is corrupted",
        needles=("no attribute 'language'",)),
    Signature(
        "triton_ops", r"No module named 'triton\.ops'",
        source="triton-lang/triton#5471",
        meaning="code written for Triton 2.x imports triton.ops, removed in Triton 3",
        needles=('triton.ops',)),
    Signature(
        "no_binary_for_gpu", r"hipErrorNoBinaryForGpu|\binvalid device function\b|No compatible code objects found for: ",
        source="ROCm/ROCm#1587 (hipErrorNoBinaryForGpu); 'HIP error: invalid device function' in many reports; "
               "ROCm/clr hipamd/src/hip_fatbin.cpp ('No compatible code objects found for: %s')",
        meaning="the binary has no code object for this GPU's gfx target",
        needles=('hiperrornobinaryforgpu', 'invalid device function', 'no compatible code objects')),
    Signature(
        "hsa_out_of_resources", r"HSA_STATUS_ERROR_OUT_OF_RESOURCES|Call returned 4104\b",
        source="ROCm/ROCm#2191",
        meaning="the HSA runtime could not allocate resources (often no usable GPU agent)",
        needles=('hsa_status_error_out_of_resources', 'call returned 4104')),
    Signature(
        "hsa_out_of_registers", r"HSA_STATUS_ERROR_OUT_OF_REGISTERS",
        source="ROCm/ROCm#4437",
        meaning="a kernel needs more registers than the GPU has",
        needles=('hsa_status_error_out_of_registers',)),
    Signature(
        "hsa_error", r"HSA_STATUS_ERROR_(?!OUT_OF_RESOURCES|OUT_OF_REGISTERS)[A-Z_]+",
        source="ROCm/ROCR-Runtime hsa.h (hsa_status_t)",
        meaning="another HSA runtime error status",
        needles=('hsa_status_error_',), case=True),
    Signature(
        "cannot_initialize_type", r"generic_type: cannot initialize type",
        source="pybind11 include/pybind11/pybind11.h (generic_type::initialize)",
        meaning="a pybind11 type registered twice: two copies of a library (mixed torch builds) or a multi-threaded first CUDA/HIP initialisation",
        needles=('cannot initialize type',)),
    Signature(
        "kfd_permission", r'Unable to open /dev/kfd read-write: (Permission denied|Operation not permitted)|is not member of \"?render\"? group',
        source="rocminfo messages quoted in ROCm/ROCm#1174 and other ROCm/ROCm issues",
        meaning="the user may not open /dev/kfd (not in the render/video group, or the session predates it)",
        needles=('/dev/kfd', 'member of')),
    Signature(
        "kfd_missing", r"Unable to open /dev/kfd read-write: No such file or directory",
        source="rocminfo message (ROCm/ROCm issues; containers started without --device=/dev/kfd)",
        meaning="/dev/kfd does not exist: no amdgpu KFD, or a container without the device",
        needles=('/dev/kfd',)),
    Signature(
        "kfd_open_failed", r"Unable to open /dev/kfd read-write: (Invalid argument|Cannot allocate memory|Bad address)",
        source="ROCm/ROCm#5379 (Invalid argument); ROCm/ROCm#1148, ROCm/ROCm#1318 (Cannot allocate memory)",
        meaning="/dev/kfd exists but the kernel driver refused to open it",
        needles=('/dev/kfd',)),
    Signature(
        "amdgpu_init_failed", r"amdgpu.*(Fatal error during GPU init|probe of \S+ failed with error|probe with driver amdgpu failed with error|amdgpu_device_ip_init failed|hw_init of IP block .* failed|sw_init of IP block .* failed|early_init of IP block .* failed|PSP firmware loading failed|gpu post error|ring \S+ test failed)",
        # s20-nonen (set EB, 2421): the driver core's report of a failed probe changed form in 2024 (linux
        # drivers/base/dd.c call_driver_probe: pr_warn("%s: probe of %s failed with error %d") became
        # dev_err(dev, "probe with driver %s failed with error %d")); both forms are amdgpu's probe returning an error
        source="linux drivers/gpu/drm/amd/amdgpu/amdgpu_device.c and amdgpu_kms.c (dev_err messages); drivers/base/dd.c "
               "(call_driver_probe: 'probe of %s failed with error %d', later 'probe with driver %s failed with error %d')",
        meaning="the amdgpu kernel driver failed to initialise the GPU",
        needles=('amdgpu',)),
    Signature(
        "amdgpu_firmware_missing", r"(Direct firmware load for amdgpu/\S+ failed|amdgpu.*failed to load firmware|amdgpu.*Failed to load gpu_info firmware)",
        source="linux drivers/gpu/drm/amd/amdgpu (firmware loading messages)",
        meaning="the amdgpu firmware files for this GPU are missing (linux-firmware too old)",
        needles=('firmware',)),
    Signature(
        "gpu_hang", r"amdgpu.*(ring \S+ timeout|GPU reset begin|GPU reset\(\d+\) succeeded|GPU reset succeeded, trying to resume"
                    r"|GPU recovery|gpu hang|device wedged)",
        # (s23-apuwin) amdgpu_device.c amdgpu_do_asic_reset() and the mode2 handlers' restore_hwcontext
        # (sienna_cichlid.c, aldebaran.c): dev_info("GPU reset succeeded, trying to resume\n") after an ASIC reset,
        # the line a kernel log keeps when its 'GPU reset begin!' scrolled off (fixture 3180)
        source="linux drivers/gpu/drm/amd/amdgpu/amdgpu_job.c (ring timeout); amdgpu_device.c (amdgpu_do_asic_reset: "
               "'GPU reset succeeded, trying to resume')",
        meaning="a GPU job timed out and the driver reset the GPU",
        needles=('amdgpu',)),
    Signature(
        # ROCr's two memory fault reports (runtime.cpp): the VM fault handler's "Memory access fault by GPU node-%u
        # (Agent handle: %p) on address %p. Reason: %s." and the memory error handler's "Memory critical error by
        # agent node-%u (Agent handle: %p) on address %p. Reason: Memory in use.", as users quote them: shortened
        # ("Memory critical error by agent node-0 ... Reason: Memory in use"), wrapped after the handle (the second
        # line "on address 0x... Reason: Memory in use.") or only the reason ("ROCm error Reason: Memory in use")
        "memory_access_fault", r"Memory access fault by GPU node-\d+|Memory critical error by agent node-\d+"
        r"|\bReason: Memory in use\b(?! by)",
        source="ROCm/ROCR-Runtime (runtime.cpp, VM fault and memory error messages); s12-heldax: ROCm/ROCm#6182, "
               "rjmalagon/ollama-linux-amd-apu#9",
        meaning="a kernel read or wrote GPU memory it does not own (bug, or wrong gfx override), or ROCr's memory "
                "error handler found memory still in use (a blocked mapping of /dev/kfd in a container, an APU)",
        needles=('memory access fault', 'memory critical error', 'memory in use')),
    Signature(
        "oom", r"(torch\.(cuda\.)?OutOfMemoryError|HIP out of memory|CUDA out of memory|hipErrorOutOfMemory|HIPBLAS_STATUS_ALLOC_FAILED.*out of memory)",
        source="pytorch c10/hip caching allocator message",
        meaning="the GPU ran out of memory",
        needles=('out of memory', 'outofmemory')),
    Signature(
        "torch_gpu_unavailable",
        r"(?m)^[ \t]{0,40}Is CUDA available:[ \t]{0,40}False\b|"
        r"is_available\(\)[^\n]{0,300}\n(?:[ \t]{0,40}(?:True)?[ \t]{0,40}\n){0,3}[ \t>]{0,40}False\b[^\n]{0,300}$|"
        r"is_available\(\)\)?[ \t]{0,40}(?:=|->|:|\u2192)[ \t]{0,40}False\b",
        source="pytorch/pytorch torch/cuda/__init__.py (is_available: False when the HIP runtime counts no device) and "
               "torch/utils/collect_env.py ('Is CUDA available: %s'); ROCm/hip#3465",
        meaning="PyTorch sees no GPU: torch.cuda.is_available() is False (no device the HIP runtime can use, or a torch "
                "without ROCm)",
        needles=("is cuda available", "is_available()"), whole=True),
    Signature(
        "host_oom_killer", r"Out of memory: Killed process|oom-kill:|invoked oom-killer",
        source="linux mm/oom_kill.c",
        meaning="the kernel OOM killer ended a process",
        needles=('out of memory', 'oom-kill')),
    Signature(
        "rocm_smi_error", r"^\s*ERROR:\s*(?:root:|\d+\s+)?GPU\[\d+\]\s*:",
        source="ROCm/rocm_smi_lib python_smi_tools/rocm_smi.py (printErrLog); ROCm/ROCm#1715",
        meaning="rocm-smi could not read a GPU property",
        needles=('error:',), case=True),
    Signature(
        "no_gpu_agent", r"\A(?=.*\bHSA Agents\b)(?=.*Device Type:\s*CPU)(?!.*Device Type:\s*GPU)",
        source="rocminfo output layout (ROCm/rocminfo rocminfo.cc)",
        meaning="rocminfo lists only CPU agents: ROCm sees no usable GPU",
        needles=('hsa agents',), whole=True),
    Signature(
        "amdgpu_not_loaded", r"ROCk module is NOT loaded|Driver not initialized \(amdgpu not found in modules\)"
        r"|Drivers? not loaded \(amdgpu (?:and amd_hsmp drivers )?not found in modules\)",
        source="rocminfo / rocm-smi messages (ROCm/ROCm#1261, ROCm/ROCm#1506); amd-smi's "
               "(ROCm/amdsmi amdsmi_cli/amdsmi_init.py: 'Driver not loaded (amdgpu not found in modules)')",
        meaning="the amdgpu kernel module (KFD) is not loaded",
        needles=('not loaded', 'driver not initialized')),
    # ---- failures that are not version skew; each one seen in a real paste under tests/data/real
    Signature(
        "pcie_atomics_rejected", r"skipped device [0-9a-f]{4}:[0-9a-f]{4}, PCI rejects atomics",
        source="linux drivers/gpu/drm/amd/amdkfd/kfd_device.c; ROCm/ROCm#364, #722, #910, #939",
        meaning="KFD left the GPU out: the PCIe path to it has no AtomicOps, which gfx8 (and older) GPUs need",
        needles=("rejects atomics",)),
    Signature(
        # (s12-heldau, 1226) CLR refusing a kernel whose code object asks for a hostcall buffer (device printf, malloc,
        # assert, abort) because the device reports no PCIe atomics: rocvirtual.cpp's
        # LogError("Pcie atomics not enabled, hostcall not supported") before "AQL dispatch failed!"
        "hostcall_no_pcie_atomics", r"Pcie atomics not enabled, hostcall not supported",
        source="ROCm/rocm-systems projects/clr/rocclr/device/rocm/rocvirtual.cpp (VirtualGPU::submitKernelInternal, "
               "HiddenHostcallBuffer: LogError(\"Pcie atomics not enabled, hostcall not supported\")); ROCm/ROCm#2429; "
               "ROCm/TheRock#4604",
        meaning="HIP refused to launch a kernel that needs a hostcall buffer (device printf, malloc, assert): the GPU "
                "has no PCIe atomics to the host, so the launch fails with hipErrorIllegalState",
        needles=("hostcall not supported",)),
    Signature(
        "mes_hang", r"(MES(?:\(\d+\))? failed to respon(?:d|se)(?: to)? msg=|MES might be in unrecoverable state|failed to remove hardware queue from MES)",
        source="linux drivers/gpu/drm/amd/amdgpu/amdgpu_mes.c, mes_v11_0.c / mes_v12_0.c (older kernels: 'MES failed to response msg='; "
               "newer ones number the MES pipe: dev_err(adev->dev, \"MES(%d) failed to respond to msg=%s\\n\", pipe, op_str)); "
               "ROCm/ROCm#5724, #6018, #6273, #2689, #4226; the kernel's own words, also where a paste strips or wraps the "
               "'amdgpu 0000:..:' prefix onto the line before (ROCm/legacy-rocm-build#6630)",
        meaning="the GPU's micro-engine scheduler (MES, gfx11/gfx12) stopped answering; the driver resets the GPU",
        # one needle per wording of the pattern (the kernel's formats: "MES failed to respond to msg=%s",
        # "MES might be in unrecoverable state, issue a GPU reset", "failed to remove hardware queue from
        # MES, doorbell=0x%x"); "mes " missed the last one, where a comma follows MES
        needles=("mes failed", "failed to respon", "mes might", "queue from mes")),
    Signature(
        "dkms_build_failed", r"Bad return status for module build on kernel: \S+|dkms autoinstall failed for amdgpu|"
        r"Building module\(s\)\.*\s*\(bad exit status: \d+\)",
        source="dkms (dkms_common build error; dkms 3's invoke_command '(bad exit status: N)'); ROCm/amdgpu#192; ROCm/ROCm#5111, #5905",
        meaning="DKMS could not build a kernel module (amdgpu-dkms) for a kernel, usually one newer than the driver release supports",
        needles=("bad return status", "dkms autoinstall", "bad exit status")),
    Signature(
        "module_key_rejected",
        r"(could not insert|Failed to insert module) '?amdgpu'?: (Key was rejected by servic|Required key not available)|Loading of unsigned module is rejected",
        source="kmod/libkmod (EKEYREJECTED, ENOKEY) and linux security/lockdown; ROCm/ROCm#4328, #4330; Azure/az-cgpu-onboarding#55",
        meaning="Secure Boot (kernel lockdown) refused to load an unsigned or wrongly signed module",
        needles=("key was rejected", "required key not", "unsigned module")),
    Signature(
        "gpu_off_bus", r"(amdgpu|pcieport)\b.*(fallen off the bus|fell off the bus|Unable to change power state from D3\w* to D0, device inaccessible)",
        source="linux drivers/pci/pci.c (pci_power_up) and amdgpu messages",
        meaning="the GPU stopped answering on PCIe (fell off the bus, stuck in D3)",
        needles=("off the bus", "device inaccessible")),
    Signature(
        "rocminfo_killed", r"ROCk module is loaded[^\n]{0,300}\n(?:[^\n]{0,300}member of[^\n]{0,300}\n)?[ \t]{0,40}(Killed|Segmentation fault|Aborted\b|\^C)",
        source="rocminfo output; ROCm/ROCm-OpenCL-Runtime#99 (Killed), ROCm/rocminfo#57 (Segmentation fault); "
               "a terminal's '^C' right after the driver line: the user interrupted a rocminfo that printed nothing more",
        meaning="rocminfo died (killed or crashed), or hung and was interrupted, while the HSA runtime opened the GPU",
        needles=("rocm module is loaded", "rock module is loaded"), whole=True),
    Signature(
        # s9-heldr: a program that ran rocminfo reports it killed by a signal (TheRock's 'rocm-sdk test' runs its
        # rocminfo console script through subprocess.check_output)
        "rocminfo_died_signal",
        r"Command '[^\n]{0,300}?\brocminfo\b[^\n]{0,200}?' died with (?:<Signals\.SIG[A-Z0-9]{2,8}: \d{1,3}>|unknown signal \d{1,3})",
        source="python/cpython Lib/subprocess.py (CalledProcessError.__str__: \"Command '%s' died with %r.\" for a "
               "negative return code, %r of signal.Signals; \"died with unknown signal %d.\"); ROCm/TheRock#5779",
        meaning="rocminfo, run by another program, was killed by a signal (SIGSEGV, SIGABRT...) while the HSA runtime opened the GPU",
        needles=("died with",)),
    Signature(
        "hipblaslt_library_missing",
        r"rocblaslt error: (?:Cannot read|Could not load) \S*TensileLibrary|HIPBLAS_STATUS_INTERNAL_ERROR when calling hipblasLt",
        source="hipBLASLt tensile_host.cpp messages; AMDResearch/hpcfund#86; lemonade-sdk/llamacpp-rocm#10; ROCm/TheRock#681",
        meaning="hipBLASLt could not find or load its kernel library (TensileLibrary) for this GPU target",
        needles=("rocblaslt error", "calling hipblaslt")),
    Signature(
        "rocblas_tensile_missing",
        r"rocBLAS error: Cannot read \S*TensileLibrary\S*[^\n]{0,120}?for GPU arch ?: ?gfx[0-9a-f]{3,4}",
        source="rocBLAS tensile_host.cpp message; pytorch/pytorch#179865; ROCm/legacy-rocm-build#4625",
        meaning="rocBLAS has no Tensile kernel library for this GPU target (the first matrix product aborts)",
        needles=("rocblas error",)),
    Signature(
        "vm_guest", r"Hyper-V virtual VGA|\bStandard[ _]NV\d+as[ _]v4\b|VMware SVGA|\bdriver=vmwgfx\b|MxGPU|amdgpu_vkms|\[drm\] virtual display|"
        r"\bHypervisor detected: \w+|\bvirtio[-_]gpu\b|\(Virtual Function\)|\bInstinct MI\d{3}[A-Z]? VF\b|\bPlatform: Linux Guest\b",
        source="lshw/lspci device names of Hyper-V and VMware, Azure VM sizes, pci.ids MxGPU and '(Virtual Function)' names; "
               "linux arch/x86/kernel/cpu/hypervisor.c ('Hypervisor detected: %s'), virtio-gpu; the ROCm marketing name of an "
               "Instinct VF ('AMD Instinct MI300X VF'); amd-smi's 'Platform: Linux Guest'; ROCm/ROCm#1141, #1498, #1638; "
               "AlphaMine-Tech/alpha-miner#4",
        meaning="the system is a virtual machine or uses a virtual (SR-IOV / MxGPU) GPU function",
        needles=("hyper-v", "standard", "vmware", "vmwgfx", "mxgpu", "vkms", "virtual display", "hypervisor detected",
                 "virtio", "virtual function", " vf", "linux guest")),
    Signature(
        "miopen_db_error", r"Internal error while accessing SQLite database|sqlite_db\.cpp:\d+: open memvfs: unable to open database file|Db lock has failed to lock",
        source="MIOpen sqlite_db.cpp / kern_db.hpp messages; ROCm/MIOpen#1878, #2214, #124; pytorch/pytorch#60477; ROCm/tensorflow-upstream#1419",
        meaning="MIOpen could not use its kernel/perf database (SQLite cache): shared, corrupted or on a file system without working locks",
        needles=("sqlite", "db lock")),
    Signature(
        "lds_limit", r"local memory limit exceeded \(\d+\)|out of resource: shared memory|Shared memory size limit exceeded",
        source="LLVM AMDGPU backend ('local memory limit exceeded'); Triton OutOfResources; ROCm/rocBLAS#1193; vllm-project/vllm#49778; ROCm/rocm-jax#404",
        meaning="a kernel asks for more LDS (shared memory) than the GPU has per workgroup (64 KiB on most, 160 KiB on gfx950)",
        needles=("local memory limit", "shared memory")),
    Signature(
        "invalid_device", r"hipErrorInvalidDevice\b|HIP error: invalid device ordinal|HIP Error 101, invalid device ordinal",
        source="HIP error codes (hipErrorInvalidDevice = 101, 'invalid device ordinal'; s9-heldr: the whole name, not the "
               "prefix of hipErrorInvalidDeviceFunction = 98 or hipErrorInvalidDevicePointer = 17); vllm-project/vllm#4131, #12572",
        meaning="a program asked for a GPU index that the HIP runtime does not have (visible-devices variables, a GPU ROCm left out)",
        needles=("invaliddevice", "invalid device ordinal")),
    Signature(
        "iommu_settings", r'NCCL WARN Missing "(?:iommu=pt|amd_iommu=on)" from kernel command line',
        source="RCCL init.cc (its own check of /proc/cmdline); ROCm/vllm#390, ROCm/rccl#1026, #1129",
        meaning="RCCL found the kernel command line without the IOMMU settings AMD documents for multi-GPU peer-to-peer",
        needles=("from kernel command line",)),
    Signature(
        "small_vram", r"\(GPU \d+; (?:\d{1,3}|1\d{3}|20[0-4]\d)\.\d+ MiB total capacity|"
        r"GPU \d+ has a total capaci?ty of (?:\d{1,3}|1\d{3}|20[0-4]\d)\.\d+ MiB|"
        r"amdgpu: (?:[1-9]\d{0,2}|1\d{3}|20[0-4]\d)M of VRAM memory ready",
        source="PyTorch's HIP allocator message (c10/cuda/CUDACachingAllocator.cpp: '(GPU N; X MiB total capacity' "
               "before 2.1, 'GPU N has a total capacity of X' since, spelt 'capacty' in 2.1) and amdgpu's 'NNNM of VRAM "
               "memory ready'; ROCm/ROCm#2014, #2774",
        meaning="the GPU has at most 2 GiB of device memory (on an APU: the BIOS carve-out)",
        needles=("total capacity", "total capacty", "of vram memory ready")),
    Signature(
        "smi_implausible", r"GPU\[\d+\]\s*:\s*(Temperature[^:]*:\s*(?:2[6-9]\d|[3-9]\d\d)(?:\.\d+)?\s*c\b|Unable to determine current clocks)",
        source="rocm-smi output; ROCm/ROCm#426 (511 C on a Vega Frontier in a corrupt state)",
        meaning="rocm-smi reads impossible sensor values (or none): the GPU is not responding normally",
        needles=("gpu[",)),
    Signature(
        "amdgpu_disabled_cmdline",
        r"nomodeset detected in kernel parameters|VGACON disables amdgpu kernel modesetting"
        r"|(?:command line:|BOOT_IMAGE=)[^\n]*?(?:\bnomodeset\b|\bamdgpu\.modeset=0\b|\bmodprobe\.blacklist=[\w,-]*\bamdgpu\b)",
        source="linux Documentation/admin-guide/kernel-parameters.txt (nomodeset, modprobe.blacklist) and amdgpu_drv.c "
               "(amdgpu_init gives up under nomodeset: 'VGACON disables amdgpu kernel modesetting' in older kernels); "
               "amdgpu-pro's installer ('nomodeset detected in kernel parameters. amdgpu requires KMS'), ROCm/ROCm#1010",
        meaning="the kernel command line keeps amdgpu from starting (nomodeset, amdgpu.modeset=0, modprobe.blacklist=amdgpu)",
        needles=("nomodeset", "vgacon disables", "modeset=0", "blacklist=")),
    Signature(
        "smi_no_readings", r"^[ \t]*USAGE:[ \t]*N/A[ \t]*$|^[ \t]*\d+[ \t]+\d+(?:[ \t]+N/A){6,}[ \t]*$",
        source="amd-smi metric / amd-smi monitor output; amd/amd_smi_exporter#18 (Ryzen 5600G iGPU), ROCm/ROCm#6035 (gfx1151 'amd-smi monitor' row of N/A)",
        meaning="amd-smi reads no metric at all for the GPU (a whole USAGE section, or a monitor row, of N/A)",
        needles=("n/a",), case=True),
    # (issue 13, rest) what tells the causes of HSA_STATUS_ERROR_OUT_OF_RESOURCES apart
    # (s9) information: the memory a llama.cpp/ggml device reports free; the rule allocation-refused-below-free
    # sets it beside ggml's refused allocation of the same device (an allocation smaller than what the device
    # reported free, refused: the HIP runtime's limit, not the model's size)
    Signature(
        "ggml_device_free_memory",
        r"^[ \t]*(?:- )?ROCm\d{1,2}[ \t]*: [^\n]{1,160}\(\d{1,9} MiB, \d{1,9} MiB free\)|"
        r": using device ROCm\d{1,2} \([^\n]{1,200}?\) - \d{1,9} MiB free\b",
        source="ggml-org/llama.cpp common/arg.cpp (--list-devices: printf(\"  %s: %s (%zu MiB, %zu MiB free)\\n\", ...), the "
               "server's and common's device log '  - %-8s: %s (%zu MiB, %zu MiB free)'); src/llama.cpp "
               "(llama_model_load_from_file_impl: '%s: using device %s (%s) (%s) - %zu MiB free'); ggml-org/llama.cpp#19764",
        meaning="a llama.cpp/ggml ROCm device and the memory it reported free (information)",
        needles=("mib free",)),
    Signature(
        "wsl_runtime", r"^[ \t]*WSL environment detected\.|\bsources/wsl/(?:tools/rocminfo|libhsakmt)/",
        source="rocminfo of ROCm's WSL builds (its first line); ROCm/legacy-rocm-build#4435, #5106, #3561; the build tree "
               "of the 6.1.x WSL runtime package (hsa-runtime-rocr4wsl-amdgpu) that __FILE__ puts in its tools' and "
               "thunk's messages, './sources/wsl/tools/rocminfo/rocminfo.cc:1087', "
               "'./sources/wsl/libhsakmt/src/thunk_proxy/thunk_proxy.cpp' (ROCm/legacy-rocm-build#3402, #3413, #4068, "
               "#4460); native builds print '/src/rocminfo/rocminfo.cc' or the '/long_pathname_so_that_rpms_...' tree",
        meaning="the ROCm runtime runs under WSL 2 (through the Windows driver, not /dev/kfd)",
        needles=("wsl environment detected", "sources/wsl/")),
    Signature(
        "rocr_unsupported_gpu", r"^[ \t]*ROCR: unsupported GPU\b",
        source="ROCR-Runtime's WSL path (the GPU is not on the release's WSL list); ROCm/legacy-rocm-build#4435, #4068",
        meaning="the ROCm runtime does not support this GPU (under WSL: not on the release's WSL list)",
        needles=("rocr: unsupported gpu",)),
    Signature(
        "kfd_unsupported_asic", r"\bkfd not supported on this ASIC\b|"
        r"\bkfd(?: kfd)?: (?:amdgpu: )?(?:GC IP [0-9a-f]{6}|[A-Z][A-Z0-9_]{2,20}) +(?:VF )?not supported in kfd\b",
        source="linux drivers/gpu/drm/amd/amdgpu/amdgpu_amdkfd.c (amdgpu_amdkfd_device_probe); drivers/gpu/drm/amd/amdkfd/"
               "kfd_device.c (kgd2kfd_probe: '%s %s not supported in kfd', 'GC IP %06x %s not supported in kfd'); "
               "ROCm/rocminfo#27, ROCm/ROCm#2232",
        meaning="the running kernel's amdgpu has no compute (KFD) support for this GPU: the driver is older than the GPU",
        needles=("kfd not supported", "not supported in kfd")),
    # s6-heldout2 (set L): two failures that no single line shows, told by two lines of one paste together.
    # Both patterns are look-aheads from the text's start (each scans the text once: linear).
    Signature(
        "llvm_two_versions_in_backtrace",
        r"\A(?=[\s\S]*?libLLVM[\w.-]{0,40}?\.so\.(\d+)\b[^\n]{0,300}?\[0x[0-9a-f]{1,16}\])"
        r"(?=[\s\S]*?libLLVM[\w.-]{0,40}?\.so\.(?!\1\b)\d+\b[^\n]{0,300}?\[0x[0-9a-f]{1,16}\])",
        source="llvm/llvm-project llvm/lib/Support/CommandLine.cpp (one option registry per process: a second libLLVM in the "
               "process clashes with the first); glibc's backtrace_symbols frame format 'path(symbol+offset) [address]' "
               "(Blender's crash log); NixOS/nixpkgs#504149 (HIP's comgr resolving into OpenShadingLanguage's libLLVM 19)",
        meaning="a crash backtrace runs through two different libLLVM versions in one process (e.g. ROCm's, loaded by "
                "HIP/comgr, and Mesa's or an application's own): the two copies clash (symbols resolved into the wrong "
                "copy, duplicate option registration) and the program crashes",
        needles=("libllvm",), whole=True),
    Signature(
        "hip_peer_access_asymmetric",
        r"\A(?=[\s\S]*?hipDeviceCanAccessPeer\(\s{0,4}(\d{1,3})\s{0,4},\s{0,4}(\d{1,3})\s{0,4}\)\s{0,4}=\s{0,4}0\b)"
        r"(?=[\s\S]*?hipDeviceCanAccessPeer\(\s{0,4}\2\s{0,4},\s{0,4}\1\s{0,4}\)\s{0,4}=\s{0,4}1\b)",
        source="ROCm/clr hipamd/src/hip_peer.cpp (hipDeviceCanAccessPeer answers for one direction: can device A map "
               "device B's memory); ROCm/rocm-systems#10554 (one-way peer answers on 8x W7900 came from the firmware's "
               "MMIO/BAR aperture placement, fixed in firmware)",
        meaning="hipDeviceCanAccessPeer says one GPU can reach the other's memory but not the reverse: peer access is "
                "one-way, which the platform (BAR/MMIO apertures placed out of one GPU's reach, ACS/IOMMU) causes; "
                "libraries that assume symmetry (RCCL picking P2P on one side and SHM on the other) then fail",
        needles=("hipdevicecanaccesspeer(",), whole=True),
    # s7-heldn
    Signature(
        "hip_distro_and_amd_copies",
        r"\A(?=[\s\S]*?(?<![\w.-])/usr/(?:include/|lib(?:64)?/(?:x86_64-linux-gnu/)?)"
        r"(hip/[\w.-]{1,64}\.h|lib(?:amdhip64|hsa-runtime64|hiprtc|amd_comgr|rocblas|hipblas|hipblaslt|MIOpen|rocsolver|"
        r"hipsolver|rocsparse|hipsparse|rocfft|hipfft|rocrand|hiprand|rccl|rocm_smi64)\.so)\b)"
        r"(?=[\s\S]*?/opt/rocm[-.\w]{0,24}/(?:include/|lib(?:64)?/)\1\b)",
        source="Debian/Ubuntu's ROCm packages install HIP's headers and libraries under /usr (libamdhip64-dev: "
               "/usr/include/hip/hip_runtime_api.h; libamdhip64-5/6: /usr/lib/x86_64-linux-gnu/libamdhip64.so.N; Fedora's "
               "rocm-hip under /usr/lib64), AMD's packages and tarballs under /opt/rocm-X.Y (ROCm's install layout); "
               "ggml-org/llama.cpp#15196 and #16320 (a HIP build broken by the distribution's headers beside AMD's, fixed "
               "by removing libamdhip64-dev and its siblings)",
        meaning="the same HIP header or ROCm library is installed twice, once by the distribution's packages under /usr "
                "and once by AMD's under /opt/rocm: compilers and the loader search /usr first, so builds and programs "
                "mix the two releases (headers of one, libraries of the other)",
        needles=("/opt/rocm",), whole=True),
    # s10-heldx: bitsandbytes picks its native library by the ROCm of the running torch
    Signature(
        "bnb_no_library_for_torch_rocm",
        # torch's ROCm (X.Y), a listing line of a libbitsandbytes_rocmNN.so (the bare name, a path, or ls -l's
        # columns before it), and no listing line of libbitsandbytes_rocm<X><Y>.so
        r"\A(?=[\s\S]*?(?:\+rocm|torch\.version\.hip\W{1,4})(\d{1,2})\.(\d{1,2})(?!\d))"
        r"(?=[\s\S]*?(?:\A|\n)[ \t]*(?:[-dlrwxsStT]{10}[.+@]?[ \t][^\n]*?[ \t])?(?:\S*/)?"
        r"libbitsandbytes_rocm\d{2,4}\.so[ \t]*(?:\r?\n|\Z))"
        r"(?![\s\S]*?(?:\A|\n)[ \t]*(?:[-dlrwxsStT]{10}[.+@]?[ \t][^\n]*?[ \t])?(?:\S*/)?"
        r"libbitsandbytes_rocm\1\2\.so[ \t]*(?:\r?\n|\Z))",
        source="bitsandbytes-foundation/bitsandbytes bitsandbytes/cextension.py (get_native_library: on ROCm the "
               "library is libbitsandbytes_rocm<major><minor>.so, the two numbers of torch.version.hip; 'Configured "
               "ROCm binary not found at ...' when that file is not in the package); unslothai/unsloth#10273 (torch "
               "2.6.0+rocm6.1 beside a bitsandbytes that ships rocm64...rocm72 libraries: training segfaults)",
        meaning="the bitsandbytes package lists native ROCm libraries, but none for the ROCm release of the torch in "
                "use (libbitsandbytes_rocm<major><minor>.so from torch's +rocmX.Y / torch.version.hip): bitsandbytes "
                "cannot load its GPU library for this torch, or a wrapper loads another release's build into the "
                "process, which fails to load or crashes",
        needles=("libbitsandbytes_rocm",), whole=True),
)


# The layer of the stack each Python row above that shows a failure belongs to (the catalogue rows
# below carry their own).  A row not listed here is information, not a failure (``wsl_runtime``,
# ``vm_guest``, hipBLASLt's fall-back warning...).  The doctor's ``known-failure`` rule reports a
# sighting of one of these when no other finding quotes its line, so that no known failure text is
# passed over in silence because the rule written for it needs facts the paste lacks (a user's
# groups, the GPU list).  The layers follow each message's origin (see each row's source): rocminfo
# and the HSA runtime print the /dev/kfd and agent messages, the kernel the OOM killer and KFD's
# device support, PyTorch's allocator the out-of-memory message.
FAILURE_LAYERS: Dict[str, str] = {
    "hipblas_status": "libraries",
    "triton_ops": "framework",
    "hsa_out_of_resources": "runtime",
    "hsa_out_of_registers": "runtime",
    "hsa_error": "runtime",
    "kfd_permission": "runtime",
    "kfd_missing": "runtime",
    "kfd_open_failed": "runtime",
    "oom": "framework",
    "host_oom_killer": "kernel",
    "no_gpu_agent": "runtime",
    "amdgpu_not_loaded": "kernel",
    "rocr_unsupported_gpu": "runtime",
    "kfd_unsupported_asic": "kernel",
    "torch_gpu_unavailable": "runtime",
    "llvm_two_versions_in_backtrace": "packaging",  # s6-heldout2: the package builds that link two LLVMs
    "hip_peer_access_asymmetric": "firmware",  # s6-heldout2: BAR/MMIO placement (ROCm/rocm-systems#10554)
    # s7-heldn: the distribution's HIP packages beside AMD's (remove one set)
    "hip_distro_and_amd_copies": "packaging",
    # s10-heldx: a bitsandbytes without a native library for the ROCm of the installed torch
    "bnb_no_library_for_torch_rocm": "framework",
}


# ------------------------------------------------------------------ the failure catalogue (TOML)
LAYERS = ("firmware", "kernel", "runtime", "hip", "libraries", "framework", "packaging")
FAILURES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "failures.toml")


@dataclass(frozen=True)
class Failure:
    """One row of ``detect/failures.toml``: a known failure message of one layer of the stack, with
    what it means, its usual causes, the commands that settle it and the way out."""
    id: str
    layer: str
    pattern: str
    needles: Tuple[str, ...]
    meaning: str
    causes: Tuple[str, ...]
    next: Tuple[str, ...]
    fix: str
    source: str
    status: str
    example: str
    path: Optional[str] = None
    severity: str = "error"
    example_source: Optional[str] = None
    format: Optional[str] = None  # the message's format string, verbatim from ``source``
    # the pattern spans lines (a traceback frame and its source line, a command and the crash under
    # it): matched against the whole text, one finding per text, its lines joined (``Signature.whole``)
    whole: bool = False

    def signature(self) -> Signature:
        return Signature(self.id, self.pattern, source=self.source, meaning=self.meaning, needles=self.needles,
                         whole=self.whole)


def _load_failures() -> Tuple[Failure, ...]:
    from ..catalog._data import load_path

    rows = []
    for e in load_path(FAILURES_FILE).get("failure", []):
        rows.append(Failure(
            id=e["id"], layer=e["layer"], pattern=e["pattern"], needles=tuple(n.lower() for n in e.get("needles", ())),
            meaning=e["meaning"], causes=tuple(e.get("causes", ())), next=tuple(e.get("next", ())), fix=e.get("fix", ""),
            source=e["source"], status=e.get("status", "observed"), example=e.get("example", ""), path=e.get("path"),
            severity=e.get("severity", "error"), example_source=e.get("example_source"),
            format=e.get("format"), whole=bool(e.get("whole", False))))
    return tuple(rows)


FAILURES: Tuple[Failure, ...] = _load_failures()
_FAILURE_BY_ID: Dict[str, Failure] = {f.id: f for f in FAILURES}
_PY_IDS = frozenset(s.id for s in SIGNATURES)  # (built once, not once per catalogue row)
SIGNATURES = SIGNATURES + tuple(f.signature() for f in FAILURES if f.id not in _PY_IDS)
_TABLE = SIGNATURES  # (the table this module built: the shipped index's needle index is this one's)


def failure_layer(sig_id: str) -> Optional[str]:
    """The layer of the failure ``sig_id`` names: its catalogue row's, else :data:`FAILURE_LAYERS`'s;
    None for a row that is information only."""
    row = _FAILURE_BY_ID.get(sig_id)
    return row.layer if row is not None else FAILURE_LAYERS.get(sig_id)


def failure(sig_id: str) -> Optional[Failure]:
    """The catalogue row of ``sig_id`` (None for the Python rows above and for ``unrecognised``)."""
    return _FAILURE_BY_ID.get(sig_id)


_COMPILED: Dict[str, re.Pattern] = {}


def pattern(sig: Signature) -> re.Pattern:
    """The compiled pattern of ``sig`` (compiled on first use, then cached)."""
    rx = _COMPILED.get(sig.id)
    if rx is None:
        rx = _COMPILED[sig.id] = sig.compiled()
    return rx


def compiled() -> List[Tuple[Signature, re.Pattern]]:
    """Every signature with its compiled pattern."""
    return [(s, pattern(s)) for s in SIGNATURES]


def by_id(sig_id: str) -> Optional[Signature]:
    return next((s for s in SIGNATURES if s.id == sig_id), None)


def scan(text: object, limit: int = 50) -> List[Tuple[Signature, str]]:
    """Every (signature, matching line) in ``text``, grouped by signature in table order, each
    (signature, line) pair once.  Never raises.

    The same result as :func:`scan_reference` (every pattern over the whole text), found faster:
    a signature runs only where one of its needles is, as there, and a pattern that cannot match a
    line end (:func:`line_bound`) is tried only on the lines that hold one of the literal strings
    every match of it contains (:func:`factors`) when those lines are few."""
    if not isinstance(text, str) or not text:
        return []
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    found: List[Tuple[Signature, str]] = []
    seen = set()
    low = text.lower()
    # str.lower never shortens a character, so equal lengths mean offsets in low are offsets in text
    flow = _factor_case(text, low)  # (the factors' copy of low: needles are looked up in low itself)
    plain = flow is not None
    flow = flow if plain else low
    starts_of: Dict[str, List[int]] = {}
    for sig in _candidates(low):
        for said in _lines_of(sig, text, flow, plain, starts_of):
            key = (sig.id, said)
            if key in seen:
                continue
            seen.add(key)
            found.append((sig, said))
            if sig.whole:
                break  # (one finding per whole-text signature, and it does not count to the limit)
            if len(found) >= limit:
                return found
    return found


def any_match(text: object) -> bool:
    """Whether :func:`scan` finds anything in ``text`` (``bool(scan(text, limit=1))``), stopping at
    the first signature that matches: the needles are taken where they stand in the text, and the
    signatures one of them names are tried at once (a paste that holds a known error usually
    shows it early), rather than all candidates gathered first."""
    if not isinstance(text, str) or not text:
        return False
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    low = text.lower()
    flow = _factor_case(text, low)  # (the factors' copy of low: needles are looked up in low itself)
    plain = flow is not None
    flow = flow if plain else low
    starts_of: Dict[str, List[int]] = {}
    sigs = SIGNATURES
    if not _index_wanted(len(low)):  # (the same answer: every signature one of whose needles is there)
        return any(next(iter(_lines_of(sig, text, flow, plain, starts_of)), None) is not None
                   for sig in sigs if not sig.needles or any(n in low for n in sig.needles))
    rx, reach, free = _needle_index()
    tried = set(free)
    for i in free:
        if next(iter(_lines_of(sigs[i], text, flow, plain, starts_of)), None) is not None:
            return True
    if rx is None:
        return False
    search = rx.search
    m = search(low)
    while m is not None:  # every place a needle starts, left to right
        for i in reach[m.group(0)]:
            if i not in tried:
                tried.add(i)
                if next(iter(_lines_of(sigs[i], text, flow, plain, starts_of)), None) is not None:
                    return True
        m = search(low, m.start() + 1)
    return False


def _lines_of(sig: Signature, text: str, low: str, plain: bool, starts_of: Dict[str, List[int]]):
    """The lines (stripped, at most 4000 characters) where ``sig`` matches ``text``, in order,
    repeats included; for a whole-text signature the one match (its lines joined, or its meaning).
    ``text`` has ``\n`` line ends only, ``low`` is its lower case."""
    rx = pattern(sig)
    if sig.whole:
        m = rx.search(text)
        if m:
            # the matched lines when the pattern consumes some, else (a look-ahead only) the meaning
            yield " / ".join(l.strip() for l in m.group(0).splitlines() if l.strip())[:4000] or sig.meaning
        return
    starts = _factor_lines(text, low, sig, starts_of) if plain and line_bound(sig) else None
    if starts is not None:
        # only the lines that hold a factor: each match of this pattern lies within one line
        # and contains a factor.  The search sees the whole string (look-behinds, ^ and $ as
        # in a whole-text scan) and the line's own end.
        size = len(text)
        for st in starts:
            nl = text.find("\n", st)
            stop = size if nl < 0 else nl
            m = rx.search(text, st, size if nl < 0 else nl + 1)
            if m is None or m.start() > stop:
                continue
            yield text[st:stop].strip()[:4000]
        return
    # one pass over the whole text (re.M: ^ and $ are line bounds; '.' never crosses a line)
    for m in rx.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        yield text[start:end if end >= 0 else len(text)].strip()[:4000]


# -- what makes scan() fast ---------------------------------------------------------------------
# A short text asks each needle once (one `in` per needle of the whole table); a long one asks a
# signature's needles only when the scan reaches it (a scan often stops at its limit early).
_SHORT = 32 * 1024
# the line-by-line path is taken while the lines that hold a needle are fewer than
# len(text) / _CHARS_PER_LINE_CALL (a call per line costs about as much as scanning this many characters)
_CHARS_PER_LINE_CALL = _INDEX_CHARS_PER_LINE_CALL

_index_key: Optional[int] = None
_index: Tuple[Optional[re.Pattern], Dict[str, Tuple[int, ...]], Tuple[int, ...]] = (None, {}, ())


def _needle_index():
    """(one pattern that finds the longest needle starting at a place, needle -> indexes of the
    signatures whose needles are that needle or a prefix of it, indexes of signatures with no
    needles), rebuilt when :data:`SIGNATURES` is another table.  The pattern is the needles'
    trie: at a place where needles start, they all lie on one path of it, so the longest one
    found there names every one of them.  For the table this module built, the pattern's text and
    the map come from the shipped index (``error_index.needle_index``: made by
    :func:`needle_index_parts` when the index was written) while it is current; only the pattern
    is compiled here."""
    global _index_key, _index
    if _index_key != id(SIGNATURES):
        parts = _shipped_needle_index() if SIGNATURES is _TABLE else None
        if parts is None:
            parts = needle_index_parts(SIGNATURES)
        pattern, reach, free = parts
        _index = (re.compile(pattern) if pattern else None, reach, free)
        _index_key = id(SIGNATURES)
    return _index


def needle_index_parts(signatures: Tuple[Signature, ...]
                       ) -> Tuple[Optional[str], Dict[str, Tuple[int, ...]], Tuple[int, ...]]:
    """What :func:`_needle_index` is made of for ``signatures``: the needles' trie pattern (its
    text; None when no signature has needles), needle -> indexes of the signatures whose needles
    are that needle or a prefix of it, indexes of the signatures with no needles."""
    by_needle: Dict[str, List[int]] = {}
    free = []
    for i, sig in enumerate(signatures):
        if not sig.needles:
            free.append(i)
        for n in sig.needles:
            by_needle.setdefault(n, []).append(i)
    needles = sorted(n for n in by_needle if n)
    # (the needles that are prefixes of n, each looked up: not every needle against every needle)
    reach = {n: tuple(sorted({i for k in range(1, len(n) + 1) for i in by_needle.get(n[:k], ())}))
             for n in needles}
    return (_trie(needles) if needles else None, reach, tuple(sorted(set(free) | set(by_needle.get("", ())))))


def _shipped_needle_index():
    """:func:`needle_index_parts` of this module's table as the shipped index holds it, or None
    (no index, a stale one, or one without it)."""
    from . import error_index

    parts = error_index.needle_index()
    if parts is None or error_index.needle_index_rows() != len(_TABLE):
        return None
    return parts


def _trie(words: List[str]) -> str:
    """A pattern matching exactly ``words``, as a trie (one branch per next character), greedy."""
    root: Dict[str, dict] = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def rx(node: Dict[str, dict]) -> str:
        alts = [re.escape(ch) + rx(sub) for ch, sub in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return "(?:%s)?" % body if "" in node else body

    return rx(root)


# the needle index is one large pattern whose compiling costs as much as asking every needle of
# the table of some tens of kilobytes of short texts (tens of milliseconds: most of a snapshot or
# live detection's error work): a process asks the needles one by one until the short texts
# it asked them of add up to this many characters, and builds the index for the next one (at
# most about twice the cheaper way's cost, whatever the texts)
_PLAIN_CHARS = 24 * 1024
_plain_chars = 0
# (s11-speed) where the needle index's pattern is built from stored engine code (``rocm_wizard._re_code``,
# the command-line program) its compiling costs next to nothing, and what the index costs is reading the
# shipped index (a few milliseconds): asking every needle of the table costs about a third of a
# millisecond per text however short, so from this many texts asked one by one the index is built
_PLAIN_TEXTS_CHEAP = 16
_plain_texts = 0
_cheap: Optional[bool] = None


def _index_wanted(size: int) -> bool:
    """Whether a short text of ``size`` characters is looked at with the needle index (building it
    now when it is not built); False counts it against :data:`_PLAIN_CHARS` (and
    :data:`_PLAIN_TEXTS_CHEAP` where the index's pattern is cheap to build: :func:`_index_cheap`)."""
    global _plain_chars, _plain_texts
    if _index_key == id(SIGNATURES) or _plain_chars + size > _PLAIN_CHARS:
        return True
    if _plain_texts >= _PLAIN_TEXTS_CHEAP and _index_cheap():
        return True
    _plain_chars += size
    _plain_texts += 1
    return False


def _index_cheap() -> bool:
    """Whether the needle index of this module's table would be built from the shipped index with
    its pattern from stored engine code (asked once)."""
    global _cheap
    if _cheap is None:
        _cheap = False
        if SIGNATURES is _TABLE:
            try:
                from .. import _re_code

                parts = _shipped_needle_index()
                _cheap = bool(parts is not None and parts[0] and _re_code.stored(parts[0]))
            except Exception:
                _cheap = False
    return _cheap


def _candidates(low: str):
    """The signatures, in table order, that have no needles or one of whose needles is in ``low``."""
    sigs = SIGNATURES
    if len(low) > _SHORT or not _index_wanted(len(low)):
        return (s for s in sigs if not s.needles or any(n in low for n in s.needles))
    rx, reach, free = _needle_index()
    picked = set(free)
    if rx is not None:
        search = rx.search
        m = search(low)
        while m is not None:  # every place a needle starts, left to right
            picked.update(reach[m.group(0)])
            m = search(low, m.start() + 1)
    return [sigs[i] for i in sorted(picked)]


def _factor_lines(text: str, low: str, sig: Signature, cache: Dict[str, List[int]]) -> Optional[List[int]]:
    """The start offsets, in order, of the lines of ``text`` that hold one of the literal factors
    of ``sig``'s pattern (:func:`factors`); None when it has none or they are on too many lines for
    a call per line to pay (the compact index's :func:`~rocm_wizard.detect.error_index._factor_lines`
    does the search, on the factors it stores)."""
    return _lines_with_factors(text, low, factors(sig), cache)


# the only characters that match an ASCII letter under re.I but do not lower-case to one
# (U+0130, U+0131, U+017F; tests/detect/test_scan_equivalence.py checks the list): where one is in a
# text, literal factors looked up in its lower-cased copy could miss a match
_ODD_CASE = _INDEX_ODD_CASE
_FACTORS: Dict[str, Tuple[str, ...]] = {}
_MIN_FACTOR = 3


def factors(sig: Signature) -> Tuple[str, ...]:
    """Lower-case literal strings one of which every match of ``sig``'s pattern contains, read
    from the parsed pattern itself (not from the hand-written needles); () when none of at least
    three characters is certain."""
    got = _FACTORS.get(sig.id)
    if got is None:
        if not _seeded:
            _seed()
            got = _FACTORS.get(sig.id)
        if got is None:
            got = _FACTORS[sig.id] = _factors_of(sig)
    return got


def _factors_of(sig: Signature) -> Tuple[str, ...]:
    """:func:`factors` worked out from the pattern."""
    try:
        parsed = _sre_parse().parse(sig.pattern, re.M if sig.case else re.I | re.M)
        best = _required(list(parsed))
        if best and min(len(f) for f in best) >= _MIN_FACTOR:
            return tuple(sorted(set(best)))
    except Exception:
        pass
    return ()


# whether _FACTORS and _BOUND were filled from the shipped index (once, on first use)
_seeded = False


def _seed() -> None:
    """Fill :data:`_FACTORS` and :data:`_BOUND` from the shipped index (``error_index.row_facts``:
    what :func:`_factors_of` and :func:`_line_bound_of` gave for the very table this module builds,
    its files' CRC-32s checked), so that a run does not parse every pattern it scans with -- while
    :data:`SIGNATURES` is this module's own table, each row whose pattern is the signature's."""
    global _seeded
    _seeded = True
    if SIGNATURES is not _TABLE:
        return
    from . import error_index

    facts = error_index.row_facts()
    if not facts:
        return
    for s in _TABLE:
        got = facts.get(s.id)
        if got is not None and got[0] == s.pattern:
            _FACTORS.setdefault(s.id, got[1])
            if not s.whole:
                _BOUND.setdefault(s.id, got[2])


def literal_factors(pattern_text: str, flags: int = 0) -> Tuple[str, ...]:
    """:func:`factors` of any pattern: lower-case literal strings one of which every match of it
    contains (of at least three characters; () when none is certain)."""
    try:
        best = _required(list(_sre_parse().parse(pattern_text, flags)))
    except Exception:
        return ()
    if best and min(len(f) for f in best) >= _MIN_FACTOR:
        return tuple(sorted(set(best)))
    return ()


def _sre_parse():
    try:
        from re import _parser as sre_parse  # type: ignore[attr-defined]
    except ImportError:  # Python 3.10
        import sre_parse  # type: ignore[no-redef]
    return sre_parse


def _better(a: Optional[List[str]], b: Optional[List[str]]) -> Optional[List[str]]:
    """The more selective of two factor sets (longest shortest string, then fewest strings)."""
    if not a:
        return b
    if not b:
        return a
    ka, kb = (min(map(len, a)), -len(a)), (min(map(len, b)), -len(b))
    return b if kb > ka else a


def _required(items: list) -> Optional[List[str]]:
    """Literal strings (lower-cased) one of which every match of the parsed sequence ``items``
    contains; None when none is certain."""
    best: Optional[List[str]] = None
    run = ""
    for op, av in items:
        name = _name(op)
        if name == "LITERAL" and av < 128:
            run += chr(av).lower()
            continue
        if run:
            best = _better(best, [run])
            run = ""
        sub: Optional[List[str]] = None
        if name == "SUBPATTERN":
            sub = _required(list(av[-1]))
        elif name == "ATOMIC_GROUP":
            sub = _required(list(av))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT") and av[0] >= 1:
            sub = _required(list(av[2]))
        elif name == "BRANCH":
            alts = [_required(list(b)) for b in av[1]]
            if all(alts):
                sub = [f for alt in alts for f in alt]  # type: ignore[union-attr]
        if sub:
            best = _better(best, sub)
    if run:
        best = _better(best, [run])
    return best


_BOUND: Dict[str, bool] = {}


def line_bound(sig: Signature) -> bool:
    """Whether every match of ``sig``'s pattern lies within one line and no part of the pattern
    (look-arounds included) can see past the line's end: no element can match a newline, and no
    ``\\A``, ``\\Z`` or back-reference.  Unknown constructs count as not bound."""
    got = _BOUND.get(sig.id)
    if got is None:
        if not _seeded and not sig.whole:
            _seed()
            got = _BOUND.get(sig.id)
        if got is None:
            got = _BOUND[sig.id] = _line_bound_of(sig)
    return got


def _line_bound_of(sig: Signature) -> bool:
    """:func:`line_bound` worked out from the pattern."""
    if sig.whole:
        return False
    try:
        parsed = _sre_parse().parse(sig.pattern, re.M if sig.case else re.I | re.M)
        return bool(not (parsed.state.flags & re.S) and _no_newline(parsed))
    except Exception:
        return False


def _no_newline(items) -> bool:
    for op, av in items:
        name = _name(op)
        if name == "LITERAL":
            if av == 10:
                return False
        elif name in ("NOT_LITERAL",):
            if av != 10:
                return False
        elif name == "ANY":
            pass  # without re.S (checked by the caller) '.' never matches a newline
        elif name == "IN":
            if _set_has_newline(av):
                return False
        elif name == "AT":
            if _name(av) not in ("AT_BEGINNING", "AT_END", "AT_BOUNDARY", "AT_NON_BOUNDARY",
                               "AT_BEGINNING_LINE", "AT_END_LINE"):
                return False
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            if not _no_newline(av[2]):
                return False
        elif name == "SUBPATTERN":
            if av[1] & re.S:  # (?s:...): '.' crosses lines there
                return False
            if not _no_newline(av[-1]):
                return False
        elif name == "ATOMIC_GROUP":
            if not _no_newline(av):
                return False
        elif name == "BRANCH":
            if not all(_no_newline(b) for b in av[1]):
                return False
        elif name in ("ASSERT", "ASSERT_NOT"):
            if not _no_newline(av[1]):
                return False
        else:  # GROUPREF, GROUPREF_EXISTS, CATEGORY outside a set, anything newer
            return False
    return True


def _name(const: object) -> str:
    """The name of an opcode of the parsed pattern (``LITERAL``, ``AT_BEGINNING``...)."""
    return str(getattr(const, "name", const))


def _set_has_newline(items) -> bool:
    """Whether a character set (a parsed ``[...]``) matches a newline."""
    negate = False
    hit = False
    for op, av in items:
        name = _name(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            hit = hit or av == 10
        elif name == "RANGE":
            hit = hit or av[0] <= 10 <= av[1]
        elif name == "CATEGORY":
            cat = _name(av)
            if cat in ("CATEGORY_SPACE", "CATEGORY_NOT_DIGIT", "CATEGORY_NOT_WORD", "CATEGORY_LINEBREAK",
                       "CATEGORY_UNI_SPACE", "CATEGORY_UNI_NOT_DIGIT", "CATEGORY_UNI_NOT_WORD",
                       "CATEGORY_UNI_LINEBREAK", "CATEGORY_LOC_NOT_WORD"):
                hit = True
            elif cat not in ("CATEGORY_NOT_SPACE", "CATEGORY_DIGIT", "CATEGORY_WORD", "CATEGORY_NOT_LINEBREAK",
                             "CATEGORY_UNI_NOT_SPACE", "CATEGORY_UNI_DIGIT", "CATEGORY_UNI_WORD",
                             "CATEGORY_UNI_NOT_LINEBREAK", "CATEGORY_LOC_WORD"):
                return True  # unknown: assume it may
        else:  # CHARSET / BIGCHARSET (compiled forms) or anything unknown
            return True
    return hit != negate


def scan_reference(text: object, limit: int = 50) -> List[Tuple[Signature, str]]:
    """The plain form of :func:`scan` (every signature whose needles are in the text, its pattern
    over the whole text): the tests hold :func:`scan` to the same result."""
    if not isinstance(text, str) or not text:
        return []
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    found: List[Tuple[Signature, str]] = []
    seen = set()
    low = text.lower()
    for sig in SIGNATURES:
        if sig.needles and not any(n in low for n in sig.needles):
            continue
        rx = pattern(sig)
        if sig.whole:
            m = rx.search(text)
            if m:
                said = " / ".join(l.strip() for l in m.group(0).splitlines() if l.strip())[:4000] or sig.meaning
                key = (sig.id, said)
                if key not in seen:
                    seen.add(key)
                    found.append((sig, said))
            continue
        for m in rx.finditer(text):
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.end())
            line = text[start:end if end >= 0 else len(text)]
            clean = line.strip()[:4000]
            key = (sig.id, clean)
            if key in seen:
                continue
            seen.add(key)
            found.append((sig, clean))
            if len(found) >= limit:
                return found
    return found
