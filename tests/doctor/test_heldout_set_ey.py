"""Held-out set EY (tests/data/real/2590-2595, HELDOUT.md): a theme-neutral sample of llama.cpp's (and ggml's) HIP/ROCm
and Vulkan-on-AMD issues of late 2025 and 2026.

* 2591, 2594, 2595: LLD's refusal of a shared library's symbol versions (llvm/llvm-project lld/ELF/InputFiles.cpp,
  SharedFile::parse: "corrupt input file: version definition index <n> for symbol <name> is out of bounds\\n>>> defined
  in <file>", and "version need index" for undefined symbols), read at packaging by ey_lld_corrupt_input_version_index.
* 2592: frames of the stack dump an LLVM tool prints when it crashes (llvm/lib/Support/Signals.cpp
  printSymbolizedStackTrace: '#<n> 0x<addr> <symbol> (<module>+0x<offset>)'), read at packaging by
  ey_llvm_tool_crash_stack_frame when the module is the compiler or linker executable.
* 2590: MangoHud's own log lines below error level (flightlessmango/MangoHud src/overlay.cpp, spdlog logger "MANGOHUD")
  are benign for the catch-all (failure_lines.toml), so the gdb backtrace's SIGSEGV leads at framework.
* 2593 led at framework on the unchanged code (llama.cpp's 'error loading model')."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures, failure_lines
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer

LLD = "ey_lld_corrupt_input_version_index"
CRASH = "ey_llvm_tool_crash_stack_frame"


@pytest.mark.parametrize("num,layer", [("2590", "framework"), ("2593", "framework")])
def test_the_set_ey_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num", ["2591", "2594", "2595"])
def test_the_lld_row_names_the_fixtures_line_and_leads_at_packaging(num):
    assert_named_and_leads(num, LLD, "packaging")


def test_the_crash_frame_row_names_2592s_frames_and_leads_at_packaging():
    assert_named_and_leads("2592", CRASH, "packaging")


@pytest.mark.parametrize("line", [
    # 2591's (llama.cpp#17262: ROCm 7's ld.lld linking libggml-hip.so against libggml-base.so.0.9.4)
    "ld.lld: error: corrupt input file: version definition index 0 for symbol ggml_pad_reflect_1d is out of bounds",
    # 2595's title (llama.cpp#17296), without the linker's prefix
    "Compile bug: corrupt input file: version definition index 0 for symbol "
    "_ZN7gguf_kvC2IaEERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEET_ is out of bounds",
    # llvm/llvm-project#73473 (a stub library linked by another linker)
    "ld.lld: error: corrupt input file: version definition index 0 for symbol g_aucPatchArea is out of bounds",
    # OvenMediaLabs/OvenMediaEngine#1713 (an index past the version definitions)
    "ld.lld: error: corrupt input file: version definition index 4 for symbol _ZTVSt9basic_iosIcSt11char_traitsIcEE is out of bounds",
    # the undefined-symbol form of the same check, constructed from lld/ELF/InputFiles.cpp's format
    "ld.lld: error: corrupt input file: version need index 3 for symbol foo is out of bounds",
])
def test_the_lld_row_reads_lld_wordings(line):
    assert LLD in _ids(line)
    assert error_signatures.failure_layer(LLD) == "packaging"


@pytest.mark.parametrize("line", [
    # lld's version-script check (libproxy/libproxy#320): another failure, not a refused input library
    "ld: error: version script assignment of 'LIBPROXY_0.4.16' to symbol 'px_proxy_factory_new' failed: symbol not defined",
    # the '>>> defined in' line under each error, alone
    ">>> defined in ../libggml-base.so.0.9.4",
    # readelf's listing of the version definitions, no error
    "Version definition section '.gnu.version_d' contains 2 entries:",
])
def test_lines_that_are_not_lld_s_refusal_do_not_match(line):
    assert LLD not in _ids(line)


@pytest.mark.parametrize("line", [
    # 2592's (llama.cpp#24964: ROCm 7.2.1's clang-22 in a docker build, the step time before the frame)
    "327.4  #8 0x00005ddc05096b4b clang::Parser::ParseDeclarationOrFunctionDefinition(clang::ParsedAttributes&, "
    "clang::ParsedAttributes&, clang::ParsingDeclSpec*, clang::AccessSpecifier) (/opt/rocm-7.2.1/lib/llvm/bin/clang-22+0x4a8cb4b)",
    "299.8 #22 0x0000623e5e7bf435 llvm::DevirtSCCRepeatedPass::run(llvm::LazyCallGraph::SCC&, llvm::AnalysisManager<"
    "llvm::LazyCallGraph::SCC, llvm::LazyCallGraph&>&, llvm::LazyCallGraph&, llvm::CGSCCUpdateResult&) "
    "(/opt/rocm-7.2.1/lib/llvm/bin/clang-22+0x17bf435)",
    # ROCm/legacy-rocm-build#1585 (a ROCm 4.3 hipcc's clang-13 crashing)
    "#24 0x000055c0e80ba203 llvm::CrashRecoveryContext::RunSafely(llvm::function_ref<void ()>) "
    "(/mnt/data/home/mzw/hipcc_llvm_4.3.0/bin/clang-13+0x211e203)",
    "#26 0x000055c0e88047c9 clang::driver::Compilation::ExecuteCommand(clang::driver::Command const&, "
    "clang::driver::Command const*&) const (/mnt/data/home/mzw/hipcc_llvm_4.3.0/bin/clang-13+0x28687c9)",
])
def test_the_crash_frame_row_reads_llvm_stack_dumps(line):
    assert CRASH in _ids(line)
    assert error_signatures.failure_layer(CRASH) == "packaging"


@pytest.mark.parametrize("line", [
    # AdaptiveCpp/AdaptiveCpp#1588: a frame in a compiler plugin library, not the compiler executable
    "#12 0x00007fa8fa3f7259 hipsycl::compiler::TargetSeparationPass::run(llvm::Module&, llvm::AnalysisManager<llvm::Module>&) "
    "(/home/xieyihui/adaptivecpp/AdaptiveCpp/install/bin/../lib/libacpp-clang.so+0xd0259)",
    # 2590's gdb frame in the Vulkan loader
    "#0  0x00007f37a217fc70 in ?? () from /usr/lib/libvulkan.so.1",
    # a CMake line naming the compiler, no crash
    "-- Check for working HIP compiler: /opt/rocm-7.2.1/lib/llvm/bin/clang++ - skipped",
])
def test_frames_outside_the_compiler_binary_do_not_match(line):
    assert CRASH not in _ids(line)


@pytest.mark.parametrize("line", [
    # 2590's (llama.cpp#27403): the overlay cannot read an Intel iGPU's sysfs file for its own display
    "[2026-08-19 11:08:14.043] [MANGOHUD] [warning] [gpu_fdinfo.cpp:428] Intel i915 gt dir: failed to open "
    "/sys/bus/pci/devices/0000:00:02.0/drm/card1/gt/gt0/throttle_reason_status",
    # the same overlay's info line (llama.cpp#27189)
    "[2026-08-16 17:51:00.592] [MANGOHUD] [info] [gpu.cpp:90] Set renderD128 as active GPU (driver=amdgpu id=1002:1586 "
    "pci_dev=0000:c7:00.0)",
])
def test_mangohud_lines_below_error_are_not_failures(line):
    assert not failure_lines.looks_like_failure(line)


@pytest.mark.parametrize("line", [
    # MangoHud's own error level stays read (src/cpu.cpp SPDLOG_ERROR("failed to open {}", PROCCPUINFOFILE), as spdlog
    # formats it)
    "[2026-08-19 11:08:14.050] [MANGOHUD] [error] [cpu.cpp:807] failed to open /proc/cpuinfo",
    # another program's spdlog warning in the same format stays read
    "[2026-08-19 11:08:14.043] [llama] [warning] [model.cpp:12] failed to open /models/x.gguf",
])
def test_other_lines_of_that_format_stay_failures(line):
    assert failure_lines.looks_like_failure(line)
