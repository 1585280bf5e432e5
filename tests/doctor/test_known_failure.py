"""The doctor on every real fixture with a failure (``failure_layer`` other than ``none`` in its
``labels.toml``): some finding of warning or worse is reported at that layer of the stack, and
none of them is called healthy; the healthy fixtures (``failure_class = "none"``) get no
``known-failure`` finding of warning or worse (the catalogue's failure patterns must not fire on
normal output; an ``info`` row, a message its own source prints as information such as amdgpu's SMU
interface notice, may explain a line there).  Plus the
known-failure rule itself on real lines: one finding per layer, lowest first, with the rows'
fixes, next commands and way out, and never for a row a specific rule claims."""
from __future__ import annotations

import functools
from pathlib import Path
from typing import List

import pytest
from rwtest import realrun

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.doctor import diagnose
from rocm_wizard.doctor.registry import rules
from rocm_wizard.model import ErrorSighting, System

try:
    import tomllib  # type: ignore[import-not-found]
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "data" / "real"
PROBLEM = ("warning", "error", "critical")

# genuine misses: the failure is not in an error line of the paste (or only in prose) -- the
# reason says which; fixed by adding rows from the stack's sources, never by fixture hacks
MISSES = {
    # s25-mi3win (set JL)
    "3673": "held-out JL: SGLang's 'ncclAllReduce Error' over two nodes of MI300X VF under CUDA graphs is told only in "
            "the title (the user's words, not a printed line) and prose; the index's copy holds check_env's healthy "
            "lines, not the error log; the warning it gets is vm-gpu-unsupported at firmware on the 'MI300X VF' name "
            "(sound for a VF, not the RCCL failure at libraries)",

    # s25-ryzenaiwin (set JK)
    "3663": "held-out JK: VoiceStudio's web interface choosing the CPU on a Strix Halo (gfx1151) is told only in prose; "
            "every pasted output works (torch 2.8.0+rocm7.2.4 in the container, a bf16 matmul benchmark on the GPU at "
            "25-31 TFLOPS), so no line of the paste says the application's fallback at framework",

    # s25-torch210win (set JM)
    "3682": "held-out JM: torch from pytorch.org's rocm7.1 wheel crashing where TheRock's wheels work, told only in the "
            "title and prose; the index holds only a rocminfo fragment of a DSP agent (zero compute units, a kernarg "
            "pool), nothing failing in it",
    # s25-mixedwin (set JF)
    "3612": "held-out JF: Ollama running every model on the CPU beside a discovered RX 6800M (a Cezanne iGPU hidden by its "
            "ROCR_VISIBLE_DEVICES=0) is told only in prose, as 2744; the paste is Ollama's discovery (rocm_smi_lib's "
            "optional-field 'rsmi_..._get failed: 2' lines, the iGPU note, the memory total), no line of which says the "
            "fallback; the warning it gets is the runtime rule hsa-override-missing on the Navi 22 name (the likely cause, "
            "read at runtime), not the application's fallback at framework",

    # s25-newestwin (set IX)
    "3533": "held-out IX: llama.cpp's first win-rocm-7.14 release listing no device (Available devices: (none)), read at "
            "framework by llama.cpp's own row; the cause, the release zip lacking the HIP runtime and library DLLs, is "
            "told only in sibling threads (#26964, #26996) and prose: ggml loads its HIP backend silently, so no line of "
            "the paste shows the missing DLL",
    # s25-envwin (set IV)
    "3512": "held-out IV: vLLM's ROCm tuned-config lookup keying off a device name that differs from the shipped gfx1151 "
            "config files' (so the slower default MoE/FP8 kernels run), told only in the title and prose; the paste is "
            "vLLM's collect_env head, healthy (torch 2.11.0+rocm7.14.0 on a Radeon 8060S), nothing failing in it",
    "3513": "held-out IV: the gfx906 fork's vLLM 0.9.2 image reporting 'hip error' under tensor parallelism 4, told only in "
            "the title's words, which quote no line; the pastes are collect_env's head and the server's start-up lines, "
            "cut in the index's copy before any error",

    # s25-researchwin (set IW)
    "3521": "held-out IW: pip's 'Preparing metadata (pyproject.toml) did not run successfully' for mamba-ssm 2.2.4 on ROCm "
            "6.2, labelled framework by the thread's diagnosis (the sdist lacks the C++ source its setup.py opens on ROCm) "
            "where the pip row reads pip's line at packaging, as 2982; the index's copy stops inside setup.py's traceback "
            "before its exception line, so no line of the package's own shows",

    # s25-smiwin (set IS)
    "3482": "held-out IS: amd-smi 7.2.0's 'static --csv' printing nothing (a regression of its CLI logger, fixed in "
            "ROCm/rocm-systems#3129), told only in the title and prose; the paste is the form's rocminfo --support, "
            "healthy and cut inside its CPU agent, nothing failing in it",

    # s24-img3win (set IP)
    "3452": "held-out IP: tensor parallelism 2 in rocm/vllm-dev:nightly failing with an NCCL (RCCL) error on two R9700s; "
            "the failure is told only in the title and prose (the logs are attached files), and the index's copy of the "
            "pasted rocminfo holds only its CPU agent, cut before the GPU agents, so doctor reads rocminfo's CPU-only list",

    # s24-cloudwin (set IQ)
    "3461": "held-out IQ: the AMD device plugin on Talos nodes never registering its gpu resource (no /sys/class/kfd), told only in "
            "the thread's prose; the paste is the plugin's healthy start-up lines, nothing failing in it",
    # s24-rpm2win (set IN)
    "3431": "held-out IN: hipfire's install script on Fedora asking dnf for AMD's rocm-hip-runtime and, with Fedora's own "
            "rocm-hip installed, missing its versioned libamdhip64.so.6 (its ldconfig grep wants 'libamdhip64.so '); "
            "the failure is told only in prose, the one pasted line is ldconfig's healthy entry for the library",
    "3432": "held-out IN: every GPGPU program on an Arch 780M segfaulting after an update, placed by the reporter in the "
            "Linux 6.12 kernel (drm/amd#3821); the segfault is told only in the title and prose, the paste is Arch's "
            "pacman -Q list of ollama-rocm and the rocm-* 6.2.x packages",
    # s24-triton2win (set II)
    "3383": "held-out II: vLLM's Triton kernel_paged_attention_2d faulting on MI350X, labelled framework by the thread's "
            "diagnosis (the vLLM kernel's out-of-bounds access); the error is told only in the title, whose "
            "'hipErrorLaunchFailure' the HIP rows read at hip, and the paste is rocm-smi's healthy topology table",
    "3384": "held-out II: comfy-kitchen's Triton apply_rope kernel faulting on a gfx1151, told only in the title's prose "
            "('Memory access fault using ...', not ROCr's 'Memory access fault by GPU node-N' line); the paste is "
            "HIP's AMD_LOG_LEVEL=3 trace of successful hipGetDevice calls, cut before the fault",
    # s24-inst2win (set HW)
    "3261": "held-out HW: TheRock's ROCm 7.13 nightly meta package amdrocm-core-dev declaring no dependencies, shown only "
            "by what the pastes lack: dpkg -I | grep Depends printing nothing and rpm -qR listing no ROCm package; no "
            "line fails, and which dependencies a meta package should have is not in the paste",
    "3262": "held-out HW: the ROCm 7.14 nightly meta package amdrocm-core-sdk of 20260622 whose Depends line lost its "
            "per-gfx variants, shown only by comparison with the previous build's line (cut by the index); the kept "
            "Depends line is a well-formed list with nothing failing in it",


    # s24-torch4win (set IA)
    "3302": "held-out IA: torch.linalg.eigh crashing on MI300X for float64 8192x8192 told only in the title ('[ROCM] "
            "linalg.eigh crash ...', read by the catch-all's crash words as a failure told, naming no layer); the paste is "
            "a collect_env head, and hipSOLVER's buffer-size allocation, the thread's diagnosis (libraries), is only in an "
            "engineer's prose (pytorch/pytorch#148425)",
    "3303": "held-out IA: torch's CK SDPA flash-attention kernel asserting on gfx1200/gfx1201 told only in the title "
            "('... kernel asserts on ...': a user's verb, not a line a program prints; the word is no failure word since "
            "llama.cpp's 'warning: asserts enabled, performance may be affected' prints it on healthy runs); the paste "
            "is a maintainer's healthy build log turning CK SDPA off for a gfx1201 build (pytorch/pytorch#188113)",

    # s24-ggml5win (set ID)
    "3331": "held-out ID: llama.cpp's HIP build on gfx1151 giving wrong logits, shown only by llama-perplexity's completed "
            "runs (PPL 1565.98 with -ub 512 against 13.77 with -ub 2048); a perplexity value is no failing line, the wrong "
            "result is told by the comparison and the title (ggml-org/llama.cpp#28211)",

    "3190": "held-out HL: Mesa RADV freeing memory it did not allocate, shown only by AddressSanitizer's report header "
            "(compiler-rt's 'ERROR: AddressSanitizer: attempting free on address which was not malloc()-ed'), which names "
            "no layer: the instrumented process could be any program, the frames naming libvulkan_radeon.so are below it; "
            "read by the catch-all without a layer",

    # s23-distrodebwin (set HS)
    "3211": "held-out HS: AMD's rocm-hip-runtime blocked by Ubuntu universe's rocminfo 5.7.1-3build1, whose version sorts "
            "above AMD's pinned 1.0.0.60200, is told only in the title and prose; the pastes are two apt 'Get:' lines "
            "(the distribution's and AMD's rocminfo) and the reporter's workaround, no apt error (ROCm/ROCm#3656)",
    "3212": "held-out HS: two incompatible hsa.h (Ubuntu's libhsa-runtime-dev beside AMD's hsa-rocr-dev, pulled in through "
            "AMD's hipcc -> libamdhip64-dev chain) is told only in the title and prose; the paste is debtree's dependency "
            "edges, no failing line (ROCm/ROCm#3306)",

    # s24-vllm4win (set IE)
    "3342": "held-out IE: Grok-2.5 in SGLang's rocm630 MI30x image scoring 'Accuracy: 0.000' / 'Invalid: 1.000' on GSM8K "
            "is read at framework by the benchmark's row (ie_sglang_gsm8k_all_answers_invalid, its warning); the cause, "
            "the image's AITER v0.1.4 without the fix of ROCm/aiter PR #684 (libraries), is told only in the thread's "
            "prose: a benchmark's score names no component (sgl-project/sglang#12819)",

    # s24-drm2win (set HX)
    "3273": "held-out HX: Ollama failing with ggml's 'ROCm error: invalid argument' in hipMemGetInfo after the Ubuntu "
            "kernel update to 5.15.0-133 (5.15.173), working again on 5.15.0-131, is read at hip by the HIP-error rows "
            "(its warning); the kernel cause is told only by the reporter's revert in prose, the pastes the two kernels' "
            "'Linux version' banners with nothing saying which one fails, and the full kernel log only an attachment "
            "(ollama/ollama#9302)",

    # s23-wheels26win (set HT)
    "3221": "held-out HT: comfyui-rocm's multiarch build on an RX 6700 XT not starting because HIP_VISIBLE_DEVICES=1 was "
            "left set (hiding the only GPU), told only in prose; the paste is the project's detect_gpu.py report, which "
            "finds the GPU and says SUPPORTED, and the installer's output after it is cut by the index "
            "(patientx-cfz/comfyui-rocm#69)",

    # s23-torch2526win (set HI)
    "3162": "held-out HI: a torch HIP-graph capture/replay/teardown crash on gfx1031 told only in the title, which names "
            "HIP graphs (read at hip by the title catch-all); the poster places it in torch's capture bookkeeping and "
            "caching allocator (framework) only in prose, no crash line pasted (pytorch/pytorch#193668)",

    # s23-rocm2526win (set HH)
    "3152": "held-out HH: the amdgpu DKMS build failing on a self-built kernel 6.15.8 is told only in the title and prose; "
            "the paste is the form's rocminfo header, healthy and cut before any agent (ROCm/ROCm#5109)",
    "3153": "held-out HH: torch's 'Attempting to use hipBLASLt on an unsupported architecture!' warning is cut by the index "
            "inside its line, so the paste stops at the benchmark heredoc; the refusal is told only in the title and prose "
            "(ROCm/ROCm#5643)",
    "3154": "held-out HH: the paste's one line is torch's 'Attempting to use hipBLASLt on an unsupported architecture! "
            "Overriding blas backend to hipblas', which the hipblaslt-unsupported-warning rule reads as information (torch "
            "falls back to hipBLAS and goes on: aten/src/ATen/Context.cpp); the workload's refusal of the overridden 780M is "
            "told only in prose (ROCm/ROCm#4440).  Set HH's row reading it as a warning was taken out at the merge (s23)",

    # s23-comfy3win (set HG)
    "3141": "held-out HG: ComfyUI's AMD portable build on an RX 6650 XT hanging at model load and freezing the PC, told only "
            "in prose; the one line shown, in the title, is 'failed to run amdgpu-arch: binary not found', a start-up warning "
            "of the Windows ROCm torch wheels printed on working systems too (the arch probe finds no amdgpu-arch tool), so no "
            "row reads it as the failure; the lead is hsa-override-missing at runtime for the title's RX 6650 XT "
            "(Comfy-Org/ComfyUI#11524)",

    # s23-ggml24win (set HD)
    "3113": "held-out HD: a llama.cpp hipBLAS build on Windows (Radeon VII, HIP SDK 5.7) quitting silently is told only in "
            "the title's prose; the line it quotes, ggml's 'ggml_backend_sched: failed to allocate graph, reserving', is a "
            "debug build's routine note (ggml-backend NDEBUG-only, printed on healthy runs too), the paste hipInfo's "
            "gcnArchName and main's first lines (ggml-org/llama.cpp#5712)",
    # s23-rpmdist (set GR)
    "2994": "held-out GR: rocBLAS failing to emerge on a Gentoo Strix Halo box (ROCm 7.2.0), out of memory per the "
            "reporter, is told only in the title and prose, the build logs only linked on the Gentoo forum; the paste is "
            "rocminfo --support's healthy header cut before the GPU agent (ROCm/rocm-libraries#5978)",


    # s23-kernlibs (set GQ)
    "2982": "held-out GQ: pip's two summary lines for ROCm/flash-attention on a Navi GPU ('Failed to build flash_attn', "
            "'ERROR: ERROR: Failed to build installable wheels ... (flash_attn)') are all the paste holds; the label is "
            "framework, the thread (a maintainer) blaming the package's own setup.py, which does not list gfx1100, while "
            "the catalogue row pkg_pip_wheel_build_failed, which 2597 holds, reads pip's lines at packaging; the build's "
            "own output, which would show whose code failed, was not pasted (ROCm/flash-attention#80)",
    # s22-mathwin (set GL)
    "2930": "held-out GL: rocBLAS's wrong sgemm result on gfx1151 is shown only by the numbers of the reporter's own "
            "comparison program against a CPU reference; no program of the stack prints a line about it "
            "(ROCm/rocBLAS#1680)",
    "2934": "held-out GL: hipsparse-test's segfault on an MI300X with TheRock artifacts for gfx120X-all is told only in "
            "prose and a gdb screenshot; the paste is rocminfo's head, cut before the agents (ROCm/hipSPARSE#608)",

    # s22-jaxwin (set GI)
    "2901": "held-out GI: JAX's 'Jax plugin configuration error: Exception when calling jax_plugins.xla_rocm60.initialize()' "
            "after an AUR JAX 0.6.2 build is labelled framework (the line JAX prints) where the catalogue row "
            "wl_jax_plugin_configuration_error, which the corpus' plugin fixtures hold, reads it at packaging; the "
            "exception after the traceback is cut in the index's copy, so no line names the plugin's cause (jax-ml/jax#29801)",
    "2902": "held-out GI: the same JAX line for jax_plugins.xla_rocm7 on WSL is labelled framework, the thread blaming the "
            "plugin's own GPU discovery (KFD topology only, 'No AMD GPUs were found'), where the row reads the line at "
            "packaging; the plugin's own message is cut from the index's copy after 'Traceback' (ROCm/rocm-jax#339)",

    # s22-rocmmidwin2 (set GD)
    "2850": "held-out GD: a HIP build toolchain that compiles no simple program after a ROCm 5.4.3 install is told only "
            "in the title; the paste is HIP-Examples' clean 'cmake ..' and the 'make' command, the index's copy cut inside "
            "make's first line before the compiler's error (ROCm/legacy-rocm-build#2031)",
    "2851": "held-out GD: torch's segmentation fault on an RX 7600 XT (override 11.0.0) is told only in the title, which "
            "names torch and no library; the paste is HIP's AMD_LOG_LEVEL device-setup trace cut before the crash, so the "
            "title is read at framework by the catch-all where the corpus reads such crashes at hip (ROCm/legacy-rocm-build#4380)",
    "2853": "held-out GD: ROCm's source-build instructions failing after 'repo init && repo sync' (no tools directory, no "
            "ROCm folder) are told only in prose; the paste is rocminfo --support's healthy header (ROCm/legacy-rocm-build#4190)",

    # s22-nixwin (set GC)
    "2841": "held-out GC: Ollama on NixOS running on the CPU with an RX 580 told only in prose ('It uses the CPU'); the one "
            "pasted journal line is Ollama's amd_linux.go warning that /sys/module/amdgpu/version is missing, which every "
            "inbox-driver system prints, healthy ones too (NixOS/nixpkgs#308206)",

    # s22-comfy26win2 (set GE)
    "2863": "held-out GE: ComfyUI Desktop's AMD install on a Ryzen 7 5700U failing with torch's 'No HIP GPUs are available', "
            "told only in the title as the user retyped it ('no HIP GPUs avilable', misspelt, so no program's line); the "
            "paste is the desktop app's healthy start-up lines, cut before the failure (Comfy-Org/ComfyUI#12164)",

    # s22-hfwin2 (set GJ)
    "2912": "held-out GJ: Unsloth's LoRA training crash on an RX 6600 XT (gfx1032) is in an attached log only; the index's "
            "copy of the paste is Unsloth's training banner, cut before the crash, and Triton's 'LLVM ERROR: Cannot "
            "select: intrinsic %llvm.amdgcn.fdot2.bf16.bf16' is quoted only in a maintainer's prose (unslothai/unsloth#7922)",
    "2913": "held-out GJ: TGI failing to serve Llama 3.1-405B on eight MI300X is told only in the title; the pastes are "
            "TGI's runtime-environment block and rocm-smi's idle table, cut (huggingface/text-generation-inference#2613)",


    # s23-webuiwin (set GP)
    "2971": "held-out GP: KoboldCpp 1.85.yr0-ROCm's hipBLAS failure on an RX 7900 XT is told only in the title "
            "('ROCm CUDA error', YellowRoseCx/koboldcpp-rocm#115); the index's copy of the console output ends at the "
            "start-up banner, before the argparse Namespace line and any error line",
    "2973": "held-out GP: text-generation-webui's ExLlamav2_HF load on ROCm 5.6 fails with a HIP error named only by "
            "the title's 'HIP kernel errors' (turboderp-org/exllamav2#328); the traceback into exllamav2/model.py is "
            "cut by the index before its exception line, so only the catch-all's cut-traceback finding at framework is left",

    # s23-finetune (set GT)
    "3010": "held-out GT: the Unsloth Studio desktop app's Windows install failing on an AMD GPU is told only in the "
            "title; the pastes are install.ps1's phase logs cut after its first steps, whose '[TAURI:DIAG] ... "
            "gpu_branch=unknown' is the line the installer prints before it detects the GPU (unslothai/unsloth#8508)",
    "3011": "held-out GT: LLaMA-Factory's training on two RX 7900 XTX failing 'with errors about distributed training' is "
            "told only in prose; the rank-1 traceback is cut by the index inside its fourth frame, before any exception "
            "line (hiyouga/LlamaFactory#6271)",
    "3013": "held-out GT: Unsloth Studio running CPU-only on a gfx1201 host (torch.cuda.is_available() false in its backend) "
            "is told only in prose; the paste is 'unsloth studio update' reporting the GPU and its dependencies as fine "
            "(unslothai/unsloth#8473)",
    # s22-multiwin (set GM)
    "2943": "held-out GM: DeepSpeed ZeRO-2's CPU Adam JIT build on a ROCm torch; the rank traceback into "
            "op_builder/builder.py jit_load is cut by the index before its exception line (deepspeedai/DeepSpeed#5274), "
            "the cause (a CUDA-only path in DeepSpeed's op builder) told only in the title and prose",
    # s22-archwin (set GH)
    "2891": "held-out GH: the AUR hipsparse build's CMake failure (HIP's hip::amdhip64/device/host targets not found) is "
            "told only in prose, its build log only attached (rocm-arch/rocm-arch#801); the one paste is hipconfig's "
            "healthy report",
    # s22-torch26win2 (set FV)
    "2770": "held-out FV: torch.compile changing a uint8 torchvision resize's values on an MI300 is shown only by the "
            "reproducer's own print ('# stdout: Max difference: 255.0'); no program prints an error, the wrong result is "
            "told in prose (pytorch/pytorch#155209)",
    "2771": "held-out FV: Conv3d forward on an RX 7900 XTX taking 19-71 s for some shapes is shown only by the user's "
            "timing script's printout; nothing fails, the slowness is a judgement against the other shapes' times",
    "2772": "held-out FV: AOTriton's flash SDPA returning wrong values for head_dim 512 on gfx1151 is told in the title "
            "and prose; the paste is the reporter's bisect list of nightly installs, no program's output, so the told "
            "failure (failure-told-not-shown) has no layer to read",
    "2773": "held-out FV: TunableOp tuning a heavy GEMM past its duration/iteration limits is told only in prose; the "
            "paste is collect_env's first lines (torch 2.12.0+rocm7.15.0a20260718), cut before the OS line",

    # s22-ggml26win2 (set FY): llama.cpp's Vulkan back-end on AMD crashing or exiting, each told only in prose
    "2800": "held-out FY: llama-server exiting silently at the vision projector's warm-up on Vulkan (RX 550, Windows) is "
            "told only in prose; the pastes are its last healthy log lines and the start of its log",
    "2801": "held-out FY: llama.cpp crashing at every model load on Vulkan (RX 7900 XTX) is told only in prose; the "
            "pastes are the version block and the server's start-up lines, the crash not in the index's copy",
    "2802": "held-out FY: llama.cpp crashing on Vulkan with third-party layers injected (780M, Windows) is told only in "
            "prose; the one paste is the version block's healthy device listing",
    "2803": "held-out FY: llama-bench's segfault on Vulkan (RX 6800 XT, a llama.cpp bug in its matmul flags) is told "
            "only in prose; the one paste is the version block's healthy HIP device listing",
    "2804": "held-out FY: llama-server's instant segfault at model load on Vulkan (Strix Halo) is told only in prose; "
            "the pastes are the version block and the console's start, cut inside llama.cpp's first line",
    # s22-ollama24win (set FS)
    "2744": "held-out FS: Ollama 0.1.23 running on the CPU beside a detected RX 7900 XTX is told only in prose "
            "(ollama/ollama#2411); the pastes are Ollama's verbose card description ('rsmi_dev_serial_number_get failed: "
            "2', a field ROCm SMI does not report, benign since s22-ollama24win) and the debug log's start, cut in the "
            "GIN route table before discovery",

    # s22-ggmloldwin (set FR)
    "2731": "held-out FR: llama.cpp's HIP build for gfx1151 against TheRock failing (ggml-org/llama.cpp#14734) is told "
            "only in prose; the index's copy of the build log stops after its first 'Building C object' lines, before "
            "any compiler or make error",
    "2732": "held-out FR: llama.cpp's hipBLAS build failing after b2110 (ggml-org/llama.cpp#6064) is told only in "
            "prose; the index's copy of the build log is make's directory and 'Building CXX object' lines, cut before "
            "any error",

    "2660": "held-out FK: the Windows HIP SDK not shipping rocminfo (ROCm/ROCm#4024) is shown only by the user's own "
            "script's words 'The command 'rocminfo' was not found.', which no program of the stack or shell prints; "
            "the catch-all reads the line at runtime by the tool it names, the label (the package's content) is packaging",

    # s22-comfyoldwin (set FQ)
    "2720": "held-out FQ: SD.Next hanging on its start screen with the AMD card (vladmandic/sdnext#2544) is told only in "
            "prose and a screenshot; the paste is SD.Next's own start-up lines (Python, version, platform), none failing, "
            "and the index's copy ends inside the next line",
    "2721": "held-out FQ: SD.Next leaving the RX 7600 unused and generating on the CPU (vladmandic/sdnext#1973) is told "
            "only in prose; the paste is the --use-rocm --debug start-up console (ROCm chosen, 'AMD ROCm toolkit "
            "detected'), no line of which fails, cut before torch's own lines",

    # s22-llmappwin (set FN)
    "2690": "held-out FN: KoboldCpp 1.68.yr0-ROCm's 'CUDA error' on every model is told only in the title "
            "(LostRuins/koboldcpp#936); the index's copy of the console output ends at the start-up banner, before the "
            "argparse Namespace line and any error line",


    # s22-toolswin (set FO)
    "2701": "held-out FO: omniperf's rocprofv2 failing on an application with its arguments (ROCm/rocprofiler-compute#347) "
            "-- the index's copy stops inside rocprofv2's failing line; the last complete line is bash's setlocale "
            "warning, which is no failure (failure_lines.toml benign since s22-toolswin)",
    "2703": "held-out FO: 'rocgdb internal error' told only in the issue form's prose (ROCm/ROCgdb#28); the paste is the "
            "healthy head of rocminfo --support",

    # s22-ecowin (set FT): 2750 out (s23-mlcwin) -- its pip list, a collect_env chunk that opens inside the library
    # list and is read since set GX, shows two Triton distributions (triton-duplicate, framework)


    # s22-rocm26win2 (set FW)
    "2783": "held-out FW: amd-smi showing N/A for every metric on a Strix Halo (no amdsmi monitoring support for gfx1151) "
            "is told only in the title and AMD's reply; the index's copy of the paste ends at amd-smi's header",
    # s22-hw26win (set FU)
    "2762": "held-out FU: llama.cpp b9672's Vulkan back-end making no progress on a Strix Halo GPU (model on Vulkan0, 0% "
            "GFX/compute, b9660 works) is told only in prose; the one paste is the build's version block",
    # s22-vllm26win (set FI)
    "2640": "held-out FI: the index's copy of vLLM's worker traceback ends in its frames into AITER's fused MoE, before "
            "the exception; Composable Kernel's 'wrong! device_gemm ... does not support this GEMM problem' that the "
            "thread's fix (vllm-project/vllm#35893) names is not in the copy, so only the catch-all reads the frames, at "
            "framework",

    # s21-appwin2 (set FD)
    "2616": "held-out FD: darktable 5.4.1 crashing at start on Windows with AMD's OpenCL driver is told only in prose "
            "(darktable-org/darktable#20957, labelled upstream); the index's copy of the 'darktable -d opencl' log ends in "
            "its compile-options list, before any OpenCL line",
    "2617": "held-out FD: the one failing line is the shell's 'segmentation fault  darktable --configdir \"/tmp\"', "
            "which names no library; the ROCm OpenCL runtime as the cause is told only by the maintainers' labels "
            "(darktable-org/darktable#16986: bug: upstream, depends: external lib)",
    "2619": "held-out FD: waifu2x-ncnn-vulkan closing without output or error on an RX 6500 XT is told only in prose "
            "(nihui/waifu2x-ncnn-vulkan#181); the pastes are ncnn's healthy device lines",

    # s22-drmwin (set FL)
    "2672": "held-out FL: a Radeon Pro W7900 desktop broken after the amdgpu-dkms 6.8.5 update is told only in prose "
            "and a photo (ROCm/amdgpu#170); the pastes kept are rocm-smi setting the fan and the start of dmesg, which "
            "show the DKMS driver loading and no failing line",

    # s21-wslwin (set FH)
    "2628": "held-out FH: Ollama's Linux GPU discovery giving up on AMD under WSL2 because the amdgpu kernel module and "
            "KFD's sysfs nodes are absent there is told only in prose (ollama/ollama#9599); the paste is rocminfo's "
            "healthy WSL header (cut after 'Machine Model') and no Ollama line is pasted",

    # s21-ollama26win (set EX)
    "2586": "held-out EX: Ollama 0.12.6-rc0's slow model load that ends in a timeout, and later rc's hanging the GPU and "
            "the whole system, are told only in prose (ollama/ollama#12939); the one pasted line is Ollama's INFO "
            "'waiting for server to become available' status=\"llm server not responding\", the status server.go "
            "logs whenever the runner's health check gets no answer, healthy loads included",

    # s21-fwwin (set EV)
    "2575": "held-out EV: DeepSpeed's ZeRO stage 2 optimizer failing with a HIP error on MI200 is told only in prose "
            "(deepspeedai/DeepSpeed#5100); the paste is ds_report's op table, whose only problem line is its async_io "
            "note of a missing libaio (read at packaging), and no line names the HIP error",
    "2577": "held-out EV: TensorFlow ignoring the RX 7600 (gfx1102) is told only in prose quoting its supported list "
            "(ROCm/tensorflow-upstream#3169); the index's copy of the session is cut before the 'Ignoring visible gpu "
            "device' line, and the lines kept are the import's informational ones",

    # s21-torch26win (set EZ)
    "2598": "held-out EZ: torch's Tensor.to('cuda') hanging in the ROCm thunk's hsaKmtMemoryVaMap under "
            "expandable_segments:True is told only in the title and prose (pytorch/pytorch#192259); the paste is the "
            "collect_env head (torch 2.14 nightly, ROCm 7.2, Debian 13) and a hang prints no line",
    "2599": "held-out EZ: SDPA's memory-efficient (AOTriton) backend returning wrong values for fully masked rows is "
            "told only in the title and prose (pytorch/pytorch#147460); the paste kept is the reproducer's print of "
            "its attention mask, the comparison lines being cut in the index's copy, so no line shows the failure",

    # s21-rocm26win (set ET)
    "2562": "held-out ET: a ROCm 7.1 slowdown of fastai's text training (02:53 per epoch against 02:03 on ROCm 6.4) "
            "that ROCm#5805's title puts in an fp32 GEMM kernel; the pastes are the two successful runs' timing "
            "tables and a healthy rocminfo, so no line is an error and only comparing numbers across two runs shows it",

    # s21-ctrwin (set EW)
    "2578": "held-out EW: the AMD GPU Operator's Node Feature Discovery failing on minikube (an MI300X VF that v1.2.0's NFD "
            "rule does not label) is told only in the title and prose; the pasted kubectl describe output shows the "
            "operator's own pods Running and no line of NFD or the device plugin",
    "2580": "held-out EW: the rocm/pytorch images failing on an RX 7600 (gfx1102) is told only in the title and prose; the "
            "pasted rocm-smi, lsmod and AMD_LOG_LEVEL=3 lines are the HIP runtime's healthy start-up, and the index's copy "
            "cuts the trace before its error",
    "2581": "held-out EW: Apptainer's --rocm container seeing no GPU is told only in the title; the index's copy holds the "
            "'Expected behavior' block (TensorFlow listing two GPUs) and not the actual one",
    # s21-libwin (set EQ)
    "2543": "held-out EQ: rocBLAS 5.7.1's source build for gfx902:xnack- on Windows stopped at CMake's copy_if_different "
            "('Error copying file (if different)', rocBLAS#1547's title: a file an earlier step of the library's build, "
            "Tensile, should have produced is missing); the title names no project and the index's copy holds neither "
            "the description's log nor the comment's Tensile error, so nothing places it at the library",
    "2545": "held-out EQ: MIOpen's gtest on TheRock's Windows gfx1151 runner ended by an unhandled exception; the paste "
            "holds only LLVM's 'Exception Code: 0x80000003' after the test's RUN line (rocm-libraries#9967), its stack "
            "naming amd_comgr.dll is told only in prose, and the line itself names no module (read as a failure with no "
            "layer since set EQ)",
    # s20-torchwin (set EM)
    "2522": "held-out EM: a segfault of torch.distributed's barrier over RCCL on MI250X is told only in the title "
            "('Distributed `Segmentation fault` in basic operation', pytorch/pytorch#135486), which names no layer; the "
            "index's copy stops before the crash, and the pasted RCCL lines are INFO-level set-up (net plugin probing)",
    # s20-ollamawin (set EJ)
    "2493": "held-out EJ: Ollama 0.1.29's refusal of the RX 5600 ('amdgpu [0] gfx1010 is not supported by ...', "
            "ollama/ollama#2503) is cut in the index's copy; the pasted discovery lines up to 'detected amdgpu versions "
            "[gfx1010]' are the same on a machine whose GPU Ollama then takes, and the refusal is told only in prose",

    # s20-rocmwin3 (set EH)
    "2482": "held-out EH: a GPU not detected under WSL2 with ROCm 7.0.2 (no WSL runtime in 7.0.x) is told only in the "
            "prose (ROCm/ROCm#5535); the one paste, wsl --version, is healthy and no program prints an error",
    "2483": "held-out EH: apt's refusal of ROCm 7.0.2's noble packages on Debian 13 is told only in title and prose "
            "(ROCm/ROCm#5577); the index's copy holds apt's list of packages to install and the commands, no error line",
    "2484": "held-out EH: random system crashes with amdgpu-dkms 6.4.2.1 are told only in prose (ROCm/ROCm#5370); the "
            "one paste is modinfo's alias lines",
    "2485": "held-out EH: the 404 of amdgpu-install's repository is told only in the title (ROCm/ROCm#5160); the pasted "
            "wget (200 OK) and dnf transaction are healthy and the copy is cut before any error",

    # s20-rocmwin4 (set EL)
    "2511": "held-out EL: a segfault in libamdhip64 told only in the title in the user's words ('libamdhip.so got "
            "segmentfault', ROCm/ROCm#2122); the pasted rocminfo excerpt (gfx1100 in a rocm/pytorch container) is healthy "
            "and the index's copy holds no crash line or backtrace",
    # s20-rocmwin2 (set EG)
    "2472": "held-out EG: torch.cuda.is_available() returning False is told only in the prose (ROCm/ROCm#3485); the pasted "
            "pip list and rocminfo start are healthy and no program prints an error",
    "2475": "held-out EG: amd-smi's bare 'ModuleNotFoundError: No module named 'yaml'' (ROCm/ROCm#3049, ROCm 6.1, the "
            "traceback above it not pasted) names no program; read as a Python program's line at framework, while amd-smi "
            "(runtime) printed it -- told only in prose.  Its traceback through libexec/amdsmi_cli and the launcher's "
            "later 'Still couldn't import' line are read at runtime (eg_amdsmi_cli_import_failed)",
    # s20-appwin (set ED): the failure is told only in prose or a title; the index's copy holds no failing line
    "2441": "held-out ED: Ollama's bundled rocBLAS without TensileLibrary_lazy_gfx1010.dat is read from two `ls` listings "
            "and the thread (ollama/ollama#9180); no program prints a line, and the listings do not name the GPU's target",
    "2443": "held-out ED: an own llama.cpp HIP build's instant segfault is told in the title and prose (the crash log was "
            "uploaded, not pasted); the only paste is llama-server's version output (ggml-org/llama.cpp#24704)",
    "2444": "held-out ED: ComfyUI's silent crash at KSampler is told only in the title and prose; the pasted start-up lines are "
            "healthy and no program prints an error (Comfy-Org/ComfyUI#7672)",
    "2364": "held-out DV: an R9700's fan that does not spin under load is told only in the title and prose (ROCm/ROCm#6078); "
            "the pasted lines are amdgpu's SMU interface notice (smu_v14_0_check_fw_version's dev_info, 'not critical'), "
            "which the corpus reads as information on a working card (508)",
    # s20-nonen (set EB)
    "2421": "held-out EB: a 32 GB MI50 flashed with the 16 GB Radeon Pro VII VBIOS; the only failing line is the "
            "driver core's 'probe with driver amdgpu failed with error -22' (amdgpu-init-failed, at kernel: the line "
            "names no cause), and that the wrong VBIOS image (firmware) is the cause is the page's prose, named by no "
            "line",
    "2243": "held-out DL: Ollama's out-of-memory on ROCm 7.2 is only the title's and prose's words ('Ollama Out of Memory on "
            "7.2'); the pasted lines are the kernel's healthy 'amdgpu: 98304M of VRAM memory ready' and the start of amd-smi's "
            "table, cut off in the index's copy before any allocation line",
    "2223": "held-out DK: Mesa's winsys line 'amdgpu: Failed to allocate a buffer:' (title only) is a catalogue row, "
            "by_mesa_winsys_buffer_alloc_failed, at framework as the corpus's vulkan-out-of-memory fixtures are; the set "
            "labelled Mesa's user-space driver runtime -- a layer choice for the lead, not an unknown line",
    "2201": "held-out DJ: torch_scatter's extension needs libc10_hip.so, which only a ROCm build of torch ships; the thread puts "
            "the cause in the wheels (packaging), but the line is ctypes' OSError at import, which the corpus reads at framework "
            "(library-missing-at-import, 11 fixtures); the line alone cannot tell the two apart",
    "2202": "held-out DJ: PyG's 'Could not load this library: .../torch_scatter/_version_cuda.so' warning at import; the thread "
            "puts the cause in extension wheels built for another torch/ROCm release (packaging, a suggested older container), "
            "the warning itself is the framework's; no general rule places it at packaging from the line alone (left, time)",
    "2165": "held-out DH: AutoGPTQ's hipified kernel source rejected by clang ('autogptq_hip_kernel_64.hip:1023:3: error:"
            " no viable conversion from 'const DeprecatedTypeProperties' to 'at::ScalarType'') is read by "
            "bm_torch_extension_hipified_source_compile_error at framework, the corpus' settled layer for a package's own"
            " source failing to compile (1563, 1565, 2143, 2144); the label says packaging (the compiler of a source "
            "build); the disagreement is the label's convention, not a line doctor cannot read, so no row was moved",
    "2065": "held-out DC: XLA's missing ld.lld is only the title's words ('jaxlib-binary errors, can't find ld.lld'); the "
            "index's copy of the log ends inside the jnp.arange traceback, before XLA's 'unable to find ld.lld in PATH' line "
            "(read since set DC, dc_xla_rocm_ld_lld_not_found); the lines shown are the runtime's KFD-topology warnings",
    "699": "held-out R: the memory access fault is only the title's words ('Memory Access Fault on gfx1151'), without ROCr's "
           "'Memory access fault by GPU node-N' line; it counted at runtime only through hsa-override-unneeded on a no-op "
           "override (11.5.1 on gfx1151), information since set CQ (s14-heldcq)",
    "203": "amdgpu-dkms on an unsupported Ubuntu: the paste shows versions only, no build error line",
    "280": "an SR-IOV VF not enumerated: the failure is told in prose, reported as a VM limit (firmware)",
    "446": "held-out F: amd-smi's 'driver not initialized (amdgpu not found in modules)' comes from its check of "
           "/sys/module/amdgpu/initstate (ROCm/amdsmi amdsmi_cli/amdsmi_init.py), which a built-in amdgpu fails as a "
           "missing one does (fixed by ROCm/rocm-systems#2689); nothing in the paste tells the two apart",
    "469": "held-out G: HIP's 'the operation cannot be performed in the present state' (hipErrorIllegalState, ROCm/clr "
           "hip_error.cpp) is reported at hip; the thread's fix was another torch build (the label's framework layer), "
           "which no line of the paste names",
    "516": "held-out I: vLLM's 'HIP out of memory' on a GPU of 'total capacity of 62.47 GiB' (a Strix Halo whose GTT stayed at "
           "the kernel's default, half of RAM, although larger ttm/gttsize values were set); the ceiling is the kernel's "
           "but nothing in the paste names the GPU, the RAM or the GTT, so the out-of-memory line can only be the framework's",
    "541": "held-out J: AOTriton's SDPA kernel launch fails unchecked and the next op reports HIP's 'invalid argument' "
           "(hipErrorInvalidValue, reported at hip); no line names SDPA or AOTriton (pytorch/pytorch#194100 adds the check at "
           "the call site, after which the failing op is the attention call)",
    # s6-heldout (set K)
    "556": "held-out K: Lemonade's 'Still waiting for llama-server...' on a Strix Halo, fixed by downgrading linux-firmware "
           "(a firmware release that broke ROCm on gfx1151); the paste has no error line, the cause is only in the thread",
    "558": "held-out K: only the title, which quotes HIP's 'device kernel image is invalid' (hipErrorInvalidImage, reported at "
           "hip); the cause (lemond starting llama-server with a sanitised environment, so ROCR_VISIBLE_DEVICES never reaches "
           "it and llama.cpp uses the iGPU too) is told in the title's prose only",
    # s7-heldn (set N)
    "615": "held-out N: Ollama's runner dies on ggml's hipErrorInvalidValue from the device-memory query (ggml-cuda.cu's "
           "CUDA_CHECK, 'current device: 0, in function ggml_backend_cuda_device_get_memory'); the thread's fix was the host's "
           "kernel (Ubuntu 22.04's 5.x under a ROCm 6.4 container), which no line of the paste names",
    # s7-heldm (set M): failures whose cause (a kernel series, a linux-firmware release) no line of the paste names
    "593": "held-out M: a typed list of paraphrased messages (no 'SMU: mailbox access failed' or 'VPE: powergate request "
           "failed' exists in amdgpu's source; the catch-all puts the SMU/PSP lines at firmware) and the display core's "
           "REG_WAIT timeout (row dc_reg_wait_timeout, information); the cause, the 6.19.x kernels, is told only in prose",
    "594": "held-out M: the runtime's 'Memory access fault ... Page not present' on gfx1151 (reported at runtime); the fix was "
           "another kernel and removing amdgpu-dkms (ROCm/TheRock#2991), which the issue form's versions only imply",
    "595": "held-out M: the same memory access fault and gfxhub page faults, caused by linux-firmware 20251125's MES firmware; "
           "the paste names no firmware version",
    "597": "held-out M: the display core's REG_WAIT timeout and a WARN in dcn31_hubbub.c (kernel rows) after a linux-firmware "
           "update the paste does not name",
    # s8-heldp (set P): a newcomer's first hour, where what went wrong is in prose or in nothing the paste prints
    "650": "held-out P: an app launcher's uv command with PyTorch's rocm6.3 index and an issue form naming an RX 9070 XT; no "
           "error line, and the catalogue's observed arch list of the rocm6.3 wheels (2.7.1+rocm6.3 get_arch_list) includes "
           "gfx1201, so no fact shows the wheels failing on this GPU (the thread's PR says rocm6.3 predates gfx1201)",
    "654": "held-out P: prose only -- an installer took the iGPU for the dGPU; the iGPU's target (gfx1036) is named only as an "
           "example in a sentence, and the fix (HIP_VISIBLE_DEVICES=1 through Windows' setx) is no output",
    "657": "held-out P: hipInfo's 'no ROCm-capable device is detected' on Windows with ROCm 7.14; the thread's fix was "
           "repairing the Visual C++ redistributable, which no line of the paste names",
    "659": "held-out P: prose only -- CTranslate2's ROCm 7.2 Windows wheel against the HIP SDK 7.1.1 installer (hipBLAS's "
           "DLL renamed between them, 'causing a crash'); no error line",
    # s9-heldu (set U)
    "760": "held-out U: a third-party tool's (llm-checker) hardware report on a Strix Halo, 'Total VRAM: 2GB' and 'Max model "
           "size: 0GB' (the BIOS carve-out, not the GTT the APU's GPU allocates from); no error line, the figures are wrong "
           "only by the thread's prose, and the tool's memory lines reach no detected field",
    # s9-heldt (set T)
    "734": "held-out T: an MI50 (gfx906) listed by a mining application's own --list-devices as 'backend=unsupported "
           "... status=unsupported' (the application ships no gfx906 build); no component of the stack prints the line "
           "and the application's source is not public, so no row can be taken from it; doctor reports only that "
           "ROCm 7.2.1 no longer lists gfx906 (runtime)",
    # s12-heldat (set AT)
    "1205": "held-out AT: a community gfx803 PyTorch image segfaults at 'import torch' (told in the title); that the "
            "image's gfx803 setting also applies to the laptop's Raven Ridge iGPU, the reporter's suspected cause, is "
            "prose only: no line shows an override, an agent list or a gfx target (the pasted outputs are ls /dev, "
            "the KFD io_links flags and groups)",
    # s11-heldas (set AS)
    "1264": "held-out AW: the crash of the wheel's bundled rocBLAS is told only in the reporter's prose and title (a heading 'rocBLAS lazy Tensile load segfaults ...', a code comment '-> SIGSEGV (no Python traceback)'); the gdb transcript that shows the frame is a link, not in the paste",
    "1443": "held-out BF: the failing words, 'invalid device ordinal', are only in the title (the index's copy of the vLLM "
            "traceback is cut before its exception, so only 'EngineCore failed to start.' is read, at framework); that "
            "Ray's per-worker ROCm visibility variables narrowed the device list is told only in a comment's prose",
    "1424": "held-out BE: the only pasted lines are strace's of the package's 'bench' executable killed by SIGSEGV "
            "(SEGV_ACCERR) right after exec, which no layer owns; that nixpkgs' ollama-rocm package ships that broken "
            "executable (the -cpu and -vulkan variants' bench works) is told only in the issue's title and prose",
    "1181": "held-out AS: the only pasted line is ggml's 'failed to initialize ROCm: no ROCm-capable device is "
            "detected' inside the toolbox (reported at hip); that 'nomodeset' on the host's kernel command line kept "
            "amdgpu from binding is the reporter's prose, with no /proc/cmdline, dmesg or lsmod line to show it",
    # s10-heldv (set V)
    "773": "held-out V: the AMD GPU Operator's uninstall/reinstall left the driver unusable until a reboot (the title, "
           "'Driver Stops Functioning'); the lines show only its symptoms in user space, the metrics exporter's profiler "
           "helper aborting ('rocpclient.go:66: exec error :signal: aborted (core dumped)') and the user's '(hangs)' "
           "after rocm-smi, and no line names the driver's state",
    # s10-heldx (set X)
    "815": "held-out X: the lines are a reproducer's own prints (hipPeekAtLastError = hipErrorInvalidValue after a "
           "hipblasGemmEx that returned HIPBLAS_STATUS_SUCCESS) and the title; HIP's error is reported (hip), while that "
           "rocBLAS routing 16-bit GEMMs through hipBLASLt causes it (ROCBLAS_USE_HIPBLASLT=0 avoids it) is the thread's "
           "comment: no line of a ROCm library reports the failure",
    "956": "held-out AF: the library missing from TheRock's wheels is only the title's quote of rocm-sdk test's OSError "
           "(liborigami.so.1); the index's copy of the CI log ends at four 'ok' lines, so no line shows the load test "
           "failing, and the quoted OSError alone reads as a program missing a library (framework)",
    "958": "held-out AF: TheRock's PyTorch smoke test line 'Failed to retrieve GPU info: ERROR:libMIOpen.so.1: cannot open "
           "shared object file' does not say whether the wheel set lacks the library (the reporter's word, packaging) or "
           "torch links one it should not (238 labels the same line framework); no line of the paste tells the two apart",
    "817": "held-out X: only the kernel's decode of a GPU page fault is pasted (GCVM_L2_PROTECTION_FAULT_STATUS, reported "
           "at kernel); that a hipBLASLt/Tensile kernel made the access (rocm-libraries#8909) is a later comment's word",
    # s10-heldae (set AE): 930 out (s14-heldbl: HIP's illegal-address error as the program's HIP check prints it is the
    # memory-access-fault rule's, at the program's layer)
    "913": "held-out AC: only the HIP runtime's queue abort (HSA_STATUS_ERROR_EXCEPTION 0x1016, reported at runtime as "
           "912's same line) is pasted; that AITER's custom all-reduce faulted (ROCm/aiter PR #2324) is AMD's comment",
    "915": "held-out AC: the paste is HIP's hipErrorStreamCaptureInvalidated under SGLang's 'Capture cuda graph failed' "
           "(reported at hip, its own row); that AITER's all-reduce launched on a stream outside the capture is the "
           "reporter's diagnosis, named by no line",
    # s10-heldag (set AG)
    "972": "held-out AG: a Steam Deck (gfx1033) under Windows; 'import torch' prints only 'Failed to get device count', a "
           "phrase no ROCm, TheRock or PyTorch source found prints (CUDA/NVML/OpenCL samples, audio and DRM tools do), so no "
           "row can say it is HIP's device count; the reporter's hipInfo line that names HIP's hipErrorNoDevice ('no "
           "ROCm-capable device is detected') is cut inside its file path in the index's copy and was not kept",
    # s11-heldam (set AM)
    "1061": "held-out AM: only amdgpu's gfxhub0 retry page fault at address 0 from python3 is pasted (reported at kernel, "
            "row kernel_gfxhub_page_fault); that AITER's fused_moe under SGLang made the access is the reporter's word in "
            "the title and prose, named by no line",
    # s11-heldap (set AP)
    "1123": "held-out AP: Ollama's 'ROCm error: out of memory' is pasted (reported at framework, "
            "df_ggml_hip_error_out_of_memory); that a "
            "Fedora kernel update (6.17.1 -> 6.18.12) caused it is the reporter's prose, named by no line",
    "1125": "held-out AP: the SIGSEGV in llama_n_ctx under LM Studio's bundled ROCm runtime is only the title's and the "
            "prose's words; the index's copy holds no stack trace or log line",
    "1126": "held-out AP: a title alone ('... runtime crash during hardware survey ...'), the description prose; no line "
            "of LM Studio's or the runtime's output is in the index's copy",
    "1127": "held-out AP: the crash inside the prebuilt's bundled libhsa-runtime64 is told in prose; the only program line "
            "is Unsloth Studio's 'llama-server failed to start' (reported at framework)",
    # s12-heldba (set BA)
    "1340": "held-out BA: inxi's healthy report of the working kernel (7.2.3-1-cachyos); the Plasma/Wayland freeze on "
            "7.2.4-1 is only the title's words, no line of a program's or the kernel's output shows it",
    "1343": "held-out BA: llama-server's log stops at its model-fitting step with no error line; that a kernel update "
            "(6.19.12) stopped ROCm loading larger models is the reporter's prose (the title's 'failes to load model' is "
            "told, with no layer)",
    # s14-heldca (set CA)
    "1680": "held-out CA: the ERST record of a data fabric sync flood and the MCE decoder's 'System Fatal error.' "
            "(reported at firmware, ca_ rows: a platform fault the kernel reports); that the identical MC5 signature "
            "appears on linux-cachyos builds only (a kernel regression) is told only in the title and prose",
    # s13-heldbg (set BG): MIOpen's 'CK grouped conv library not found for device <gfx>' alone is no failure (MIOpen
    # runs its other solvers; 1464 passes its test with it): reported as information (its row), the failure told in prose
    "1460": "held-out BG: the only line is the title's quote of MIOpen's 'CK grouped conv library not found for device "
            "gfx90c' (reported as information: MIOpen falls back to its other solvers); that the reporter's Conv2d fails "
            "and the nightly wheels should ship libMIOpenCKGroupedConv_gfx90c.so is told in prose",
    "1461": "held-out BG: MIOpen's warnings that the gfx1151 find-db and CK grouped-conv library are missing and that "
            "GemmFwdRest gets no workspace (reported as information); that convolutions run 3-5x slower than on the CPU "
            "is told only in the title and prose",
    "1462": "held-out BG: the lines are pytest's FAILED torch convolution tests (reported at framework); that they fail "
            "because MIOpen has no CK grouped-conv library, so no grouped/depthwise solver, for gfx1103 is only the "
            "title's word",
    "1642": "held-out BY: a TheRock develop build's HIP reporting totalGlobalMem/hipMemGetInfo's total as 64077 MiB where "
            "the build before reported 126976 MiB is told only in the title and the user's two version lines (prose); no "
            "program's output is in the index's copy (the reproducer is cut after its first comment line)",
    "1643": "held-out BY: HIP's hipMemGetInfo free (120 GiB) over its total (62.47 GiB) is read from a user's own probe "
            "script's labels; HIP printing free over total is also what working Strix Halo systems show (llama.cpp's "
            "device_info '(122880 MiB, 125693 MiB free)'), so no line tells this paste's failure from a healthy APU",
    "1804": "held-out CP: the only failing line is ctest's 'Subprocess aborted***Exception' of MIGraphX's test_api_gpu "
            "(no layer: any test program's abort); the 'no hip device' it ended in is cut out of the index's copy and "
            "its cause, the CI container's video group GID not the host's, is told only in the author's prose and a "
            "later PR (AMDMIGraphX #4340)",
    "1864": "held-out CS: as 541, AOTriton's fused SDPA kernels fail their launch unchecked and the next checked op (a "
            "residual add in SenseNova-U1's forward_gen) reports HIP's 'invalid argument' (hipErrorInvalidValue, reported "
            "at hip); no line of the paste names SDPA or AOTriton, the author's diagnosis is in prose",
    "2020": "held-out DA: an fp64 GEMM through hipBLASLt/rocBLAS on gfx1201 wrong from M = 2e6 and NaN for N >= 16; the "
            "only output is the numbers the user's own scan script printed ('fwd=  nan  finite=False  <<<') and the "
            "title's words; no program of the stack prints a line about it (the fix, rocm-libraries PR 9184, is "
            "rocBLAS's grid.y limit)",
    "2262": "held-out DM: AOT Inductor's C++ wrapper compile (g++ -D USE_ROCM) cannot find hip/hip_runtime.h in a "
            "TheRock/source-built torch; the index's copy of the g++ command and of the traceback stops before the "
            "compiler's 'fatal error:' line, so only the title's paraphrase ('`hip/hip_runtime.h` not found in `torch`') "
            "tells it, not a line any program prints",
    "2263": "held-out DM: vs-mlrt's migraphx-driver 2.11 'compile --onnx' on Windows prints 'Compiling ...' and "
            "'Reading: <model>' and returns to the prompt with no error and no output file; MIGraphX prints no failing "
            "line (the thread reads it as a crash in prose), so no row can name it",
    # s24-rocm4win (set IC)
    "3322": "held-out IC: the same reporter's R9700 fan that does not spin under load, followed up on kernel 7.0 / Ubuntu "
            "26.04 (ROCm/ROCm#6101), told only in the title and prose; the pasted lines are amdgpu's SMU interface notice "
            "(smu_v14_0_check_fw_version's dev_info), which the corpus reads as information on a working card (508, 2364)",
    # s24-hpcwin (set IG)
    "3363": "held-out IG: an MI300A's hipMalloc on GPU 0 placed partly in NUMA node 1's HBM under memory pressure "
            "(ROCm/amdgpu#186), shown only by the reproducer's per-node memory table and told in the title; no program "
            "prints a line that says anything failed, so no row can name it",
}


def _labels(folder: Path) -> dict:
    with open(folder / "labels.toml", "rb") as fh:
        return tomllib.load(fh)


def _folders() -> List[Path]:
    return sorted(p for p in FIXTURES.iterdir() if (p / "labels.toml").is_file()) if FIXTURES.is_dir() else []


@functools.lru_cache(maxsize=None)
def _diag(folder: Path):
    return realrun.diagnosis(folder)


FAILING = [pytest.param(f, id=f.name.split("-", 1)[0], marks=[pytest.mark.xfail(strict=True, reason=MISSES[f.name.split("-", 1)[0]])]
                        if f.name.split("-", 1)[0] in MISSES else [])
           for f in _folders() if _labels(f).get("failure_layer") not in (None, "", "none")]
# Healthy fixtures that still get a catalogue finding of warning or worse, with why no general change clears it (a
# strict xfail: the day one is cleared, the test says so and the entry goes).
FALSE_ALARMS = {
    "3353": "held-out IF: TheRock's rocminfo under WSL2 on Strix Halo, healthy by the thread (ROCm/rocm-cli#287), the index's "
            "copy cut inside the CPU agent; no_gpu_agent reads the CPU-only list, which no text tells from 240's cut paste of a "
            "WSL system that truly lists only the CPU (ROCm/ROCm#4456, no-gpu-agent)",
}
HEALTHY = [pytest.param(f, id=f.name.split("-", 1)[0], marks=[pytest.mark.xfail(strict=True, reason=FALSE_ALARMS[f.name.split("-", 1)[0]])]
                        if f.name.split("-", 1)[0] in FALSE_ALARMS else [])
           for f in _folders() if _labels(f).get("failure_class") == "none"]


def test_the_corpus_is_there():
    assert len(FAILING) >= 60 and HEALTHY
    assert len(MISSES) <= 162  # (s25-torch210win: set JM's one, 3682 -- torch from pytorch.org's rocm7.1 wheel crashing, told only in the title and prose, the paste a rocminfo fragment of a DSP agent); (s25-ryzenaiwin: set JK's one, 3663 -- VoiceStudio's CPU choice on Strix Halo told only in prose, every pasted output a working torch run); (s25-mi3win: set JL's one, 3673 -- SGLang's ncclAllReduce error across two MI300X VF nodes told only in the title and prose, the paste check_env's healthy lines, warned at firmware by vm-gpu-unsupported); (s25: 3621, set JG's, dropped at the merge -- the same thread as set JF's 3612, collected at the same time); (s25-mixedwin: set JF's one, 3612 -- Ollama's CPU fallback beside a discovered RX 6800M told only in prose, as 2744, the paste its ROCm discovery lines, warned at runtime by hsa-override-missing); (s25-newestwin: set IX's one, 3533 -- llama.cpp's win-rocm-7.14 release listing no device, read at framework by llama.cpp's row, its missing HIP DLLs told only in sibling threads and prose, ggml loading the backend silently); (s25-smiwin: set IS's one, 3482 -- amd-smi's 'static --csv' printing nothing, told only in the title and prose, the paste the form's healthy rocminfo cut inside its CPU agent); (s25-researchwin: set IW's one, 3521 -- pip's metadata-preparation failure for mamba-ssm on ROCm, labelled framework by the thread's diagnosis (the sdist lacking setup.py's C++ source) where the pip row reads pip's line at packaging, as 2982, the setup.py traceback cut before its exception); (s25-envwin: set IV's two, 3512 and 3513 -- vLLM's gfx1151 tuned-config lookup miss told only in the title and prose beside collect_env's healthy head, and a vLLM gfx906 image's 'hip error' told only in a title that quotes no line, the pastes cut before any error); (s24-cloudwin: set IQ's one, 3461 -- the AMD k8s device plugin never registering amd.com/gpu on a node without /sys/class/kfd, told only in prose, the paste its healthy start-up lines); (s24-img3win: set IP's one, 3452 -- an RCCL error under vLLM's tensor parallelism in rocm/vllm-dev told only in the title and prose, the logs attached, the index's copy of the pasted rocminfo cut after its CPU agent); (s24-rpm2win: set IN's two, 3431 and 3432 -- hipfire's Fedora installer check and an Arch kernel-6.12 segfault, each told only in prose or a title, the pastes ldconfig's healthy line and pacman -Q's package list); (s24-triton2win: set II's two, 3383 and 3384 -- a vLLM Triton kernel's fault on MI350X and comfy-kitchen's Triton rope kernel's fault on gfx1151, each told only in a title, the pastes rocm-smi's healthy topology and HIP's trace cut before the fault); (s24-hpcwin: set IG's one, 3363 -- an MI300A allocation landing in another APU's HBM, shown only by per-node memory figures and the title); (s24-ggml5win: set ID's one, 3331 -- llama.cpp's HIP wrong logits on gfx1151 shown only by llama-perplexity's completed runs, no failing line); (s24-rocm4win: set IC's one, 3322 -- an R9700 fan failure told only in the title and prose, the pasted lines amdgpu's SMU interface notice, as 2364); (s24-torch4win: set IA's two, 3302 and 3303 -- a hipSOLVER crash under torch.linalg.eigh and torch's CK SDPA assert on RDNA4, each told only in a title, the pastes a collect_env head and a healthy build log); (s24-vllm4win: set IE's one, 3342 -- SGLang's GSM8K score of 0 with every answer invalid, read at framework by the benchmark's row, its cause (AITER in the image, libraries) told only in prose); (s24-inst2win: set HW's two, 3261 and 3262 -- TheRock nightly meta packages missing their dependencies, shown only by what dpkg -I / rpm -qR do not list, no line failing); (s24-drm2win: set HX's one, 3273 -- a distribution-kernel regression breaking Ollama's hipMemGetInfo, told only by the reporter's kernel revert in prose, the paste warned at hip by the HIP-error rows); (s23: 3154 in -- set HH's row for torch's hipBLASLt fallback notice taken out at the merge, the notice being information by the existing rule); (s23-wheels26win: set HT's one, 3221 -- comfyui-rocm not starting with HIP_VISIBLE_DEVICES=1 left set, told only in prose, the paste detect_gpu.py's healthy report); (s23-distrodebwin: set HS's two, 3211 and 3212 -- a distribution's ROCm package (Ubuntu universe's rocminfo 5.7.1, libhsa-runtime-dev) conflicting with AMD's, told only in titles and prose, the pastes apt 'Get:' lines and debtree's edges); (s23: 3191, 3192 and 3195 out -- relabelled after set HL measured them: HIP's relay of an HSA status at runtime, llama.cpp's '<op> failed' after a HIP error at hip, the corpus's conventions); (s23-ggml4win: set HL's four, 3190, 3191, 3192 and 3195 -- an AddressSanitizer report header naming no layer; an HSA queue status in a title labelled hip where the corpus reads it at runtime; llama.cpp's failed-op lines labelled framework where the catalogue row reads them at hip); (s23-comfy3win: set HG's one, 3141 -- a ComfyUI AMD portable hang told only in prose, the title's line a start-up warning of the Windows ROCm torch wheels printed on working systems too); (s23-rocm2526win: set HH's two, 3152 and 3153 -- an amdgpu DKMS build failure told only in the title and prose beside rocminfo's healthy header; torch's hipBLASLt refusal cut by the index inside its warning line, told only in the title and prose); (s23-torch2526win: set HI's one, 3162 -- a torch HIP-graph teardown crash told only in a title naming HIP graphs, the framework cause only in prose); (s23-mlcwin: 2750 out -- its pip list, a collect_env chunk read since set GX, shows two Triton distributions, a framework warning; the build's failing line is still read at libraries); (s23-ggml24win: set HD's one, 3113 -- a llama.cpp hipBLAS build quitting silently on Windows, told only in the title's prose, the line it quotes ggml's debug-build scheduler note printed on healthy runs too); (s23-kernlibs: set GQ's one, 2982 -- pip's two summary lines for a flash-attention build, labelled framework by the thread's diagnosis where the pip row reads them at packaging, the build's own output not pasted); (s23-rpmdist: set GR's one, 2994 -- rocBLAS failing to emerge on Gentoo, out of memory, told only in the title and prose, the paste rocminfo's healthy header); (s23-finetune: set GT's three, 3010, 3011 and 3013 -- an Unsloth desktop install failure told only in the title, the pastes install.ps1's phase logs cut after their first steps; LLaMA-Factory's two-GPU training failure told only in prose, the rank traceback cut before its exception; Unsloth Studio's CPU-only backend told only in prose, the paste its healthy-looking update lines); (s23-webuiwin: set GP's two, 2971 and 2973 -- KoboldCpp's 'ROCm CUDA error' told only in the title, the paste its banner cut before the error, and exllamav2's HIP error told only in the title 'HIP kernel errors', the traceback cut before its exception line); (s22-multiwin: set GM's one, 2943 -- DeepSpeed's CPU Adam JIT-build traceback cut before its exception line, the CUDA-only builder path told only in the title and prose); (s22-jaxwin: set GI's two, 2901 and 2902 -- JAX's 'Jax plugin configuration error' labelled framework where the catalogue row reads it at packaging, the plugins' exceptions cut in the index's copies); (s22-hfwin2: set GJ's two, 2912 and 2913 -- an Unsloth training crash in an attached log only, the paste its banner cut before the crash, and a TGI failure told only in the title, the pastes its runtime block and an idle rocm-smi table); (s22-mathwin: set GL's two, 2930 and 2934 -- a rocBLAS wrong result shown only by the reporter's own comparison numbers, and a hipsparse-test segfault told only in prose and a screenshot, the paste rocminfo's head); (s22-archwin: set GH's one, 2891 -- an AUR hipsparse build's CMake failure told only in prose, the log only attached, the paste hipconfig's healthy report); (s22-comfy26win2: set GE's one, 2863 -- torch's 'No HIP GPUs are available' told only in a title the user retyped with a misspelling, the paste ComfyUI Desktop's start-up lines cut before the failure); (s22-nixwin: set GC's one, 2841 -- Ollama's CPU fallback on NixOS told only in prose, the paste Ollama's benign amdgpu-version warning); (s22-rocmmidwin2: set GD's three, 2850, 2851 and 2853 -- a HIP toolchain compiling nothing, torch's segfault and ROCm's source-build instructions, each told only in a title or prose, the pastes a clean cmake run, HIP's device-setup trace cut before the crash and rocminfo's healthy header); (s22-rocm26win2: set FW's one, 2783 -- amd-smi's all-N/A metrics on Strix Halo told only in the title and prose, the paste amd-smi's header cut before the values); (s22-ggml26win2: set FY's five, 2800-2804 -- llama.cpp's Vulkan back-end on AMD crashing or exiting silently, each told only in prose, the pastes version blocks, device listings and start-up lines); (s22-torch26win2: set FV's four, 2770-2773 -- a torch.compile wrong result, a slow Conv3d, AOTriton's wrong SDPA values and TunableOp tuning past its limits, each told only in prose or a title, the pastes a script's print, timings, a bisect list and a collect_env head); (s22: 2693 out -- clang's refusal of a GPU target read at packaging, the compiler-driver rows' layer); (s22-hw26win: set FU's one, 2762 -- a llama.cpp Vulkan regression on Strix Halo told only in prose, the paste the version block); (s22-ecowin: set FT's one, 2750 -- a package's CK-backend device compile cut to clang's 'N error generated when compiling for gfxN' summary, read at libraries, the error line showing the package's own source not in the copy); (s22-ggmloldwin: set FR's two, 2731 and 2732 -- llama.cpp HIP builds failing, told only in prose, the build logs cut before any error line); (s22-ollama24win: set FS's one, 2744 -- Ollama's CPU fallback told only in prose, the pastes its benign verbose rsmi field lines and a debug log cut before discovery); (s22-comfyoldwin: set FQ's two, 2720 and 2721 -- an SD.Next start-up hang and an unused GPU, each told only in prose, the pastes SD.Next's healthy start-up lines); (s22-vllm26win: set FI's one, 2640 -- vLLM's worker traceback frames into AITER's fused MoE cut before CK's device_gemm refusal, which the thread names only through its fix); (s22-toolswin: set FO's two, 2701 -- rocprofv2's failing line cut in the index's copy, the line left bash's setlocale warning -- and 2703 -- a ROCgdb internal error told only in prose beside a healthy rocminfo head); (s22-llmappwin: set FN's two, 2690 -- KoboldCpp's 'CUDA error' told only in the title, the paste cut at the start-up banner -- and 2693 -- clang's 'invalid target ID' labelled packaging where the catalogue row, held by set DE's test, reads it at hip); (s22-rocmmidwin: set FK's one, 2660 -- rocminfo absent from the Windows HIP SDK shown only by a user's script's own 'was not found' words, read at runtime by the tool it names); (s22-drmwin: set FL's one, 2672 -- a desktop broken by a DKMS driver update told only in prose and a photo, the pastes rocm-smi and the start of dmesg); (s22: 2630 out -- relabelled runtime, the corpus' convention for torch's 'No HIP GPUs are available'); (s21-wslwin: set FH's two, 2628 -- Ollama's WSL discovery failure told only in prose, the paste rocminfo's healthy header -- and 2630 -- torch's 'No HIP GPUs are available' labelled framework where the corpus reads it at runtime); (s21-appwin2: set FD's three, 2616, 2617 and 2619 -- a darktable crash with AMD's OpenCL driver told only in prose, the log cut before OpenCL; a shell's segfault line naming no library, the ROCm OpenCL runtime blamed only by labels; waifu2x-ncnn-vulkan closing silently, the pastes ncnn's device lines); (s21-ollama26win: set EX's one, 2586 -- an Ollama model-load timeout and system hang told only in prose, the one pasted line Ollama's INFO status 'llm server not responding', printed on healthy loads too); (s21-torch26win: set EZ's two, 2598 and 2599 -- a thunk hang under torch's expandable segments and an AOTriton wrong result, each told only in a title and prose, the pastes a collect_env head and the reproducer's input print); (s21-ctrwin: set EW's three, 2578, 2580 and 2581 -- a GPU Operator's NFD failure, an image's unsupported gfx1102 and an Apptainer container seeing no GPU, each told only in a title and prose, the pastes healthy or cut before the error); (s21-rocm26win: set ET's one, 2562 -- a performance regression shown only by comparing two successful runs' timings); (s21-fwwin: set EV's two, 2575 -- a HIP error of DeepSpeed's optimizer told only in prose, the paste ds_report's op table -- and 2577 -- TensorFlow's ignored-GPU line cut in the index's copy, quoted only in prose); (s21-libwin: set EQ's two, 2543 -- CMake's copy error of a library build told in a title naming no project -- and 2545 -- LLVM's Windows exception line without the stack naming comgr); (s20-torchwin: set EM's one, 2522 -- an RCCL segfault told only in a title naming no layer, the pasted RCCL lines INFO-level); (s20-rocmwin4: set EL's one, 2511 -- a HIP runtime segfault told only in the title, the pasted rocminfo healthy); (s20-rocmwin3: set EH's four, 2482-2485 -- failures told only in prose or a title, the pastes healthy: wsl --version, apt's install list, modinfo's aliases, wget and a dnf transaction); (s20-ollamawin: set EJ's one, 2493 -- Ollama's gfx1010 refusal cut in the index's copy, the discovery lines before it healthy); (s20-rocmwin2: set EG's two, 2472 and 2475 -- a torch failure told only in prose; amd-smi's bare ModuleNotFoundError line naming no program); (s20: 1321 and 2445 out -- 2445's cut vLLM traceback read behind its '(APIServer pid=N)' prefix --, its llama-server's 'exited with code' line read at framework by the catch-all); 12 before set M's four (s7-heldm); set N's one (s7-heldn) is among those twelve; set P's four (s8-heldp); set U's one (s9-heldu); set T's one (s9-heldt); set V's one (s10-heldv); set X's two, and 482 out (s10-heldx); set AE's one (s10-heldae); set AC's two (s10-heldac); set AF's two (s10-heldaf); set AG's one, 972 (s10-heldag); set AM's one, 1061, and 562 out (s11-heldam: its vLLM log, with AITER's frame known, is read as a program's log and the EngineCore ERROR traceback through AITER's sampling op is reported at framework); set AS's one, 1181 (s11-heldas: a kernel-parameter cause told only in prose); set AP's four, 1123, 1125-1127 (s11-heldap: a cause or a crash told only in a title or prose); set BA's two, 1340 and 1343 (s12-heldba: a kernel regression told only in a title or prose); set AW's one, 1264 (s12-heldaw: a bundled library's crash told only in prose and title); set AT's one, 1205 (s12-heldat: a segfault told in the title, its suspected cause in prose); set AZ's one, 1321 (s13-heldaz: which GPU an application selected, an iGPU, told only in prose); set BF's one, 1443 (s13-heldbf: an invalid device ordinal told in the title, its cause, Ray's visibility variables, in prose); set BE's one, 1424 (s13-heldbe: a packaged executable's SIGSEGV whose package is told only in title and prose); set BG's three, 1460-1462 (s13-heldbg: MIOpen's CK grouped-conv library missing, a fallback the line alone shows, the failure told in a title or prose); 218 out (s13: its caption is placed at packaging by the block it introduces); 930 out (s14-heldbl: HIP's hipErrorIllegalAddress as a program's HIP check prints it is the memory-access-fault rule's, at the program's layer); set CA's one, 1680 (s14-heldca: a kernel build regression told only in title and prose, the lines a platform machine check); set BY's two, 1642-1643 (s14-heldby: HIP's memory report wrong or inconsistent, told only in a title and prose or read from a user's probe script); set CP's one, 1804 (s14-heldcp: a CI container's group-ID cause told only in prose and a later PR, the line ctest's abort); 699 in (s14-heldcq: its runtime finding was a no-op override's warning, now information; the fault is the title's words only); set CS's one, 1864 (s15-heldcs: AOTriton's unchecked SDPA launch failure surfacing at a later op, as 541; the cause told only in prose); set DC's one, 2065 (s16-helddc: XLA's missing linker told only in the title, the log cut before its line); set DA's one, 2020 (s16-heldda: a library's wrong result shown only in the numbers of the user's own script and the title); set DL's one, 2243 (s17-helddl: an application's out-of-memory told only in title and prose, the pasted lines healthy); set DM's two, 2262-2263 (s17-helddm: an AOTI missing HIP header told only in the title, the copy cut before the compiler's line; migraphx-driver returning with no failing line printed); set DK's one, 2223 (s17-helddk: Mesa's winsys allocation line read at the existing row's framework layer, labelled runtime); set DJ's two, 2201-2202 (s17-helddj: an extension's missing library at import, the cause the wheels, told by the thread); set DH's one, 2165 (s18-helddh: a hipified extension's compile error read at the corpus' framework layer for a package's own source, labelled packaging); set DV's one, 2364 (s19-fwblobs: a fan failure told only in title and prose, the pasted lines the SMU interface notice); set ED's four, 2441 and 2443-2445 (s20-appwin: failures told only in titles and prose, the pastes listings, a version, healthy start-up lines or traceback frames without their exception); set EB's one, 2421 (s20-nonen: a wrong VBIOS told only in the page's prose, the line amdgpu's probe error -22)


@pytest.mark.parametrize("folder", FAILING)
def test_a_problem_is_reported_at_the_failure_layer(folder: Path) -> None:
    layer = _labels(folder)["failure_layer"]
    findings = _diag(folder).findings
    assert [f for f in findings if f.severity in PROBLEM], "no problem reported on a failing system"
    at = [f.id for f in findings if f.layer == layer and f.severity in PROBLEM]
    assert at, (layer, sorted((f.id, f.layer) for f in findings))


@pytest.mark.parametrize("folder", HEALTHY)
def test_healthy_fixtures_get_no_known_failure(folder: Path) -> None:
    assert not [f.evidence for f in _diag(folder).findings if f.id == "known-failure" and f.severity in PROBLEM]


def _system(*pairs) -> System:
    sys_ = System()
    for sig, text in pairs:
        es = ErrorSighting()
        es.put("signature", sig, "test")
        es.put("text", text, "paste:log")
        sys_.errors.append(es)
    return sys_


def _row(rid):
    return error_signatures.failure(rid)


def test_known_failure_one_finding_per_layer_lowest_first():
    fw, kern, pkg = _row("fw_psp_load_failed"), _row("kernel_ring_timeout"), _row("apt_404_not_found")
    diag = diagnose(_system(("apt_404_not_found", pkg.example), ("kernel_ring_timeout", kern.example),
                            ("fw_psp_load_failed", fw.example)))
    found = [f for f in diag.findings if f.id == "known-failure"]
    assert sorted(f.layer for f in found) == ["firmware", "kernel", "packaging"]
    by = {f.layer: f for f in found}
    assert any(fw.example[:60] in e for e in by["firmware"].evidence)
    assert by["kernel"].fix == kern.fix and by["kernel"].next_commands == list(kern.next)[:6]
    assert all(f.severity == "error" for f in found)


def test_known_failure_takes_path_and_severity_from_rows():
    tensile = _row("rocblas_tensile_cannot_read")
    diag = diagnose(_system(("rocblas_tensile_cannot_read", tensile.example)))
    f = next(f for f in diag.findings if f.id == "known-failure")
    assert f.layer == "libraries" and f.severity == tensile.severity
    # a warning row, and an information row (amdgpu prints the SMU interface notice with dev_info)
    for rid, severity in (("kernel_warn_in_amdgpu", "warning"), ("fw_smu_if_mismatch", "info")):
        row = _row(rid)
        f = next(f for f in diagnose(_system((rid, row.example))).findings if f.id == "known-failure")
        assert f.severity == row.severity == severity


def test_known_failure_leaves_claimed_rows_to_their_rule():
    claimed = {s for r in rules().values() if r.id != "known-failure" for s in r.error_signatures}
    for rid in sorted(claimed & {f.id for f in error_signatures.FAILURES}):
        row = _row(rid)
        assert not [f for f in diagnose(_system((rid, row.example))).findings if f.id == "known-failure"], rid
    # Python rows and unrecognised lines are never reported here
    diag = diagnose(_system(("unrecognised", "something failed"), ("gpu_hang", "ring gfx timeout")))
    assert not [f for f in diag.findings if f.id == "known-failure"]


def test_a_real_paste_sighting_carries_the_row_layer():
    folder = next(p for p in _folders() if p.name.startswith("215-"))
    errs = [e for e in detect_snapshot(str(folder)).errors if e.signature == "kernel_ring_timeout"]
    assert errs and all(e.layer == "kernel" for e in errs)
