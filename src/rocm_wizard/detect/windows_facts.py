"""A native Windows host, read from a paste's own output-shaped signs (never from the word alone).

Signs, each the shape a Windows program prints:

* ``ver``/cmd's banner ``Microsoft Windows [Version 10.0.26100.4351]`` (cmd.exe, documented:
  https://learn.microsoft.com/windows-server/administration/windows-commands/ver) and ``systeminfo``'s
  ``OS Name: Microsoft Windows 11 Pro`` (https://learn.microsoft.com/windows-server/administration/windows-commands/systeminfo);
* a PowerShell or cmd prompt at the start of a line (``PS C:\\Users\\me>``, ``C:\\ComfyUI>``);
* a drive-letter path of the program that failed, to a file (``C:\\...\\site-packages\\torch\\...``,
  ``...\\amdhip64_7.dll``, ``...\\python.exe``, ``C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\hipcc.exe``: a directory name
  may hold spaces; (s22-ggml26win2) or the ``.gguf`` model file a llama.cpp program loads, as its loader prints it:
  ``llama_model_loader: loaded meta data ... from C:\\...\\model.gguf``, ggml-org/llama.cpp src/llama-model-loader.cpp;
  the GGUF format, ggml-org/ggml docs/gguf.md; (s22-communitywin) or a rocBLAS/hipBLASLt library file,
  ``...\\rocblas\\library\\TensileLibrary.dat``, ``.co``, ``.hsaco``, as rocBLAS names it in 'Cannot read <path>' under a
  Windows install or a PyInstaller bundle's ``C:\\Users\\...\\Temp\\_MEI...``: rocm-libraries
  projects/rocblas/library/src/tensile_host.cpp), or the HIP SDK's install directory
  ``C:\\Program Files\\AMD\\ROCm\\6.2`` (its installer's default: ROCm/rocm-install-on-windows
  ``docs/install/install.rst``; status documented); (s22-hipwin) or NVIDIA's CUDA Toolkit install directory
  ``C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4`` (the CUDA installer's default on Windows, CUDA
  Installation Guide for Microsoft Windows; CUDA_PATH names it), which hipify-clang's --cuda-path and HIP's NVIDIA
  platform take;
* CPython's faulthandler header ``Windows fatal exception: access violation`` (printed only on Windows:
  python/cpython Python/faulthandler.c, ``faulthandler_exc_handler``);
* a stack frame of a DLL with its offset (``(torch_hip.dll+0x2646a6d)``);
* a frame of c10's Windows backtrace, which torch prints under 'Unhandled exception caught in
  c10/util/AbortHandler.h' and in its C++ errors: the frame's and the symbol's 16-digit addresses (or
  ``<unknown symbol address>``), ``module!symbol`` of a ``.dll``/``.exe``/``.pyd`` and ``[file @ line]``
  (``00007FFA79B2A9BC00007FFA79B19EB0 torch_python.dll!initModule [<unknown file> @ <unknown line number>]``:
  pytorch/pytorch c10/util/Backtrace.cpp, the ``_WIN32`` branch of get_backtrace, SymFromAddr/SymGetLineFromAddr64);
* a ``win_amd64`` wheel tag (PEP 425 platform tag of 64-bit Windows wheels);
* an issue form's OS field whose value is Windows (``OS: Windows 11``), not naming WSL;
* (s23-finetune) Unsloth's Windows installer's diagnostic line ``[TAURI:DIAG] diag_schema=1 platform=windows ...``
  (unslothai/unsloth install.ps1, Write-TauriLog "DIAG");
* (s22-comfy26win2) ComfyUI-Manager's start-up line ``** Platform: Windows`` behind a log prefix (ComfyUI Desktop's
  ``[2026-01-29 17:04:56.248] [info]  ``, the Manager's ``[2024-10-13 00:29] ``, ComfyUI's ``...T22:55:58.520532 - ``):
  Comfy-Org/ComfyUI-Manager prestartup_script.py prints ``platform.system()``;
* (s23-webuiwin) a compiled program's own source location as it prints it, a drive-letter path with forward slashes to a
  C/C++/CUDA/HIP source file and its line (``D:/a/llama.cpp/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:97``,
  ``D:/jam/TheRock/ml-libs/MIOpen/src/ocl/convolutionocl.cpp:275``): the compiler's ``__FILE__`` of a binary built on
  Windows (CMake hands MSVC and clang forward-slash absolute paths; GitHub's Windows runners build under
  ``D:\\a\\<repo>\\<repo>``), which ggml prints in ``ggml_abort`` ('%s:%d: ', ggml-org/llama.cpp ggml/src/ggml.c) and
  in its HIP/CUDA error line ('  current device: %d, in function %s at %s:%d', ggml/src/ggml-cuda/ggml-cuda.cu), MIOpen
  in its exceptions (``MIOPEN_THROW``'s file:line, ROCm/MIOpen src/include/miopen/errors.hpp); a Windows binary runs
  only on Windows.  A letter glued to a word, a dot or a slash (a linker's ``foo.o:/usr/...``) is no drive.
* (s24-ggml5win) a llama.cpp program's build line for a Windows target: ``built with Clang 20.1.8 for Windows x86_64``
  (``--version`` and the start-up log print ``built with %s for %s`` of LLAMA_COMPILER and LLAMA_BUILD_TARGET, the
  latter CMake's ``${CMAKE_SYSTEM_NAME} ${CMAKE_SYSTEM_PROCESSOR}`` or the compiler's target triple such as
  ``x86_64-pc-windows-msvc``; newer logs print ``build <n> (<commit>) with <compiler> for <target>``:
  ggml-org/llama.cpp common/arg.cpp, common/common.cpp, cmake/build-info.cmake); a Windows build runs only on Windows.
* (s24-apu2win) LM Studio's Windows llama.cpp engine by its name, ``llama.cpp-win-x86_64-amd-rocm-avx2`` (and its
  ``-vulkan-avx2``, ``-nvidia-cuda12-avx2`` siblings), as its survey and errors print it ('Backend
  'llama.cpp-win-x86_64-amd-rocm-avx2' requires GPU acceleration...', ``lms runtime survey --json``'s "name"): the engine
  name carries its platform (``-linux-``, ``-mac-`` on the others) and LM Studio installs only the host platform's
  engines (lmstudio-ai/lms src/subcommands/runtime/survey.ts prints the engine's name; the names observed in
  lmstudio-ai/lmstudio-bug-tracker#1903, #2358); status observed.
* (s23) last, any drive-letter absolute path of two names or more (``C:\\Users\\me\\.ollama\\models``, a file
  location ``S:\\gitroot\\...\\hipInfo.cpp:202``): Windows' path syntax, status observed (every corpus paste that
  holds one is from a native Windows host).

WSL keeps its own reading (``detect/wsl_facts.py``): a host already known as WSL, or with a Linux
kernel or os-release known, is never called native Windows.  Status: documented (the formats above).
"""
from __future__ import annotations

import re
from typing import Optional, Tuple

from ..model import System
from .parsers._core_text import lazy
from .probes._core_util import paste_label, pastes
from .sources import Source

_VER = lazy(r"Microsoft Windows \[Version (10\.0\.(\d{4,5})(?:\.\d+)?)\]")
_SYSTEMINFO = lazy(r"^\s*OS Name:\s+Microsoft Windows (10|11)\b[^\n]*", re.M)
_PROMPT = lazy(r"^\s*(?:\(\S+\)\s*)?(?:PS )?[A-Za-z]:\\(?:[^\n<>|\"?*:]*)>[^\n]*", re.M)
# (s14-detect) a directory name may hold single spaces ("Program Files", "Program Files (x86)", "AMD Software"): each
# name is runs of path characters joined by one space (no two alternatives can take the same character: linear)
_SEG = r"[^\s\"'<>|?*:\\]+(?: [^\s\"'<>|?*:\\]+){0,4}"
_PATH = lazy(r"\b[A-Za-z]:\\{1,2}(?:" + _SEG + r"\\{1,2})+[^\s\"'<>|?*:\\]*"
             r"(?:\.(?:dll|exe|py|pyd|bat|ps1|gguf|dat|co|hsaco)\b|\\{1,2}site-packages\\)", re.I)
# (s14-detect) the HIP SDK's own install directory, C:\Program Files\AMD\ROCm\<major.minor> (the HIP SDK installer's
# default, ROCm/rocm-install-on-windows docs/install/install.rst; HIP_PATH names it), wherever a paste shows it
_HIP_SDK = lazy(r"\b[A-Za-z]:\\{1,2}Program Files\\{1,2}AMD\\{1,2}ROCm\\{1,2}\d+\.\d+(?![\w.])", re.I)
# (s22-hipwin) the CUDA Toolkit's Windows install directory, C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v<major.minor>
# (the CUDA installer's default, NVIDIA's CUDA Installation Guide for Microsoft Windows; CUDA_PATH names it)
_CUDA_TOOLKIT = lazy(r"\b[A-Za-z]:\\{1,2}Program Files\\{1,2}NVIDIA GPU Computing Toolkit\\{1,2}CUDA\\{1,2}v\d+\.\d+(?![\w.])", re.I)
# a Windows stack symbolised by module and offset: ``(torch_hip.dll+0x2646a6d)`` (c10's backtrace on Windows)
_DLL_FRAME = lazy(r"\b[\w.-]+\.dll\+0x[0-9a-fA-F]+\b")
# (s22-hw26win) c10's Windows backtrace frame: addresses, module!symbol of a Windows module, ' [file @ line]'
_C10_FRAME = lazy(r"^[ \t]{0,8}[0-9A-F]{16}(?:[0-9A-F]{16}| <unknown symbol address>) [\w.+-]{1,120}\.(?:dll|exe|pyd)!"
                  r"[^\n]{0,400} \[[^\n]{1,400} @ [^\n]{1,40}\]", re.M | re.I)
_FATAL = lazy(r"^Windows fatal exception: [^\n]+", re.M)
_WHEEL = lazy(r"\b(?:cp\d+|py3)-(?:cp\d+t?|abi3|none)-win_amd64\b|[-_]win_amd64\.whl\b")
_FORM = lazy(r"^[ \t>*_-]*(?:OS|Operating System|System|Platform|OS version)[*_ \t]*[:\uff1a][*_ \t]*"
             r"(?:Microsoft\s+)?Windows(?:\s*(10|11))?\b[^\n]*", re.M | re.I)
# (s22-comfy26win2) ComfyUI-Manager's start-up header line '** Platform: Windows' (Comfy-Org/ComfyUI-Manager
# prestartup_script.py: print("** Platform:", platform.system()); Python's platform.system() is 'Windows' on Windows)
# behind a log prefix: ComfyUI Desktop's electron-log '[2026-01-29 17:04:56.248] [info]  ' (its default format
# '[{y}-{m}-{d} {h}:{i}:{s}.{ms}] [{level}] {text}'), the Manager's log file '[2024-10-13 00:29] ', ComfyUI's log
# file '2025-03-15T22:55:58.520532 - ' (the bare line is the issue-form sign above)
_COMFY_PLATFORM = lazy(r"^(?:\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d(?:[.,]\d{1,6})?)?\][ \t]{1,4}(?:\[\w{1,10}\][ \t]{1,4})?"
                       r"|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})? - )\*\* Platform: Windows\b", re.M)
# (s23-webuiwin) a Windows-built binary's own source file and line: drive letter, forward slashes, a C/C++/CUDA/HIP
# source name and ':<line>' (clang, gcc) or '(<line>)' (MSVC); the letter stands alone (not 'foo.o:/usr/...')
_SRC_LINE = lazy(r"(?<![\w.\-/\\])[A-Za-z]:/(?:[^\s\"'<>|?*:/\\]+/){1,40}[^\s\"'<>|?*:/\\]+"
                 r"\.(?:cu|cuh|cpp|cc|cxx|c|h|hpp|hip)(?::\d+|\(\d+\))", re.I)
# (s23) any drive-letter absolute path of two names or more (``C:\\Users\\me\\x``, ``E:\\AI\\ComfyUI\\...``, doubled
# backslashes as a quoted Python or JSON string writes them): the path syntax of Windows' file systems (Microsoft's
# "Naming Files, Paths, and Namespaces": a drive letter, a colon, a backslash), which programs print for the files
# they load, write or fail on.  Observed: all 74 fixtures of the corpus whose outputs hold one are native Windows
# hosts, no Linux or WSL fixture shows one outside WSL's own (already WSL) pastes; a host known as WSL or Linux
# never reaches the signs (merge below)
# (s24-ggml5win) llama.cpp's build line for a Windows target (a CMake system name 'Windows' and a processor, or a
# '...-windows-msvc' / '...-windows-gnu' compiler triple); MSVC builds print only 'for x64', which says nothing of the OS
_LLAMA_BUILD = lazy(r"\bbuil(?:t|d \d{1,7} \([0-9a-f]{4,40}\)) with [^\n]{1,120}? for (?:Windows (?:x86_64|AMD64|ARM64|aarch64)"
                    r"|[\w]{1,20}-[\w]{1,20}-windows-(?:msvc|gnu)\w{0,10})\b")
_DRIVE_PATH = lazy(r"(?<![\w/\\])[A-Za-z]:\\{1,2}" + _SEG + r"\\{1,2}[^\s\"'<>|?*:\\]")

# (s23-finetune) Unsloth's Windows installer's diagnostic line for the Studio desktop app: install.ps1 writes
# Write-TauriLog "DIAG" "diag_schema=1 platform=windows arch=... python_version=..." ('[TAURI:DIAG] ...'; its Linux
# installer install.sh writes platform=linux, wsl or macos there, unslothai/unsloth install.sh tauri_log)
_UNSLOTH_DIAG = lazy(r"\[TAURI:DIAG\] diag_schema=\d{1,3} platform=windows(?![\w-])")
# (s24-apu2win) LM Studio's Windows llama.cpp engine, named with its platform: llama.cpp-win-x86_64-<variant>
_LMSTUDIO_WIN_ENGINE = lazy(r"(?<![\w.-])llama\.cpp-win-x86_64-[a-z][\w.-]{0,60}")
_WSL_WORD = lazy(r"\bWSL|\bLinux\b|Ubuntu", re.I)
# (s23-desk2win) Blender's crash report on Windows: its exception record names the faulting module, a Windows
# module (blender/blender source/blender/blenlib/intern/system_win32.cc, the Windows-only crash handler:
# fprintf "Exception Module      : %s\n" after "ExceptionCode         : %s").  Linux and macOS crash reports print a
# backtrace instead, without this record.
_EXC_MODULE = lazy(r"^[ \t]{0,8}Exception Module[ \t]{0,12}: [\w.+ ()-]{1,200}\.(?:dll|exe|pyd)[ \t\r]{0,4}$", re.M | re.I)

# (s25-laptopwin) LLVM's Windows unhandled-exception report: a stack frame line as its Windows stack printer writes it,
# "0x%016llX, <module>(0x%016llX) + 0x%llX byte(s)" (llvm/llvm-project llvm/lib/Support/Windows/Signals.inc; the Unix
# printer of Unix/Signals.inc writes '#N 0x... <module>' frames instead): a Windows module and its load address.  Any
# process with LLVM loaded prints it, the HIP runtime's through amd_comgr (a path may lack the drive letter)
_LLVM_WIN_FRAME = lazy(r"^[ \t]{0,8}0x[0-9A-F]{16}, [^\n]{1,300}?\.(?:dll|exe|pyd)\(0x[0-9A-F]{16}\) \+ 0x[0-9A-F]{1,16} byte\(s\)",
                       re.M | re.I)

SIGNS = (("windows_version", _VER), ("systeminfo", _SYSTEMINFO), ("fatal_exception", _FATAL),
         ("prompt", _PROMPT), ("path", _PATH), ("hip_sdk_path", _HIP_SDK), ("cuda_toolkit_path", _CUDA_TOOLKIT),
         ("dll_frame", _DLL_FRAME), ("c10_frame", _C10_FRAME), ("wheel_tag", _WHEEL), ("issue_form", _FORM),
         ("comfyui_manager_platform", _COMFY_PLATFORM), ("windows_build_source_line", _SRC_LINE),
         ("llama_build_target", _LLAMA_BUILD),
         ("unsloth_installer_platform", _UNSLOTH_DIAG), ("lmstudio_windows_engine", _LMSTUDIO_WIN_ENGINE),
         ("drive_path", _DRIVE_PATH),
         ("exception_record_module", _EXC_MODULE), ("llvm_windows_frame", _LLVM_WIN_FRAME))


def windows_sign(text: str) -> Optional[Tuple[str, str]]:
    """The first native-Windows sign in ``text``: (kind, the line shown), or None."""
    if (":" not in text and "win_amd64" not in text and "[Version" not in text and "!" not in text
            and "indows" not in text and "llama.cpp-win-" not in text):
        return None
    for kind, rx in SIGNS:
        for m in rx.finditer(text):
            shown = m.group(0).strip()
            if kind == "issue_form" and _WSL_WORD.search(shown):
                continue
            return kind, shown[:200]
    return None


def merge(source: Source, system: System) -> None:
    info = system.os
    if info.windows_native is not None:
        return
    if info.wsl is True or info.kernel or info.id or info.wsl_dxg or info.wsl_userspace:
        return  # WSL, or a Linux host: its kernel or os-release is known
    for name, text in pastes(source):
        sign = windows_sign(text)
        if sign:
            info.put("windows_native", True, paste_label(name) + " (%s: '%s')" % sign)
            return
