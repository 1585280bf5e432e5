"""Held-out set IH (tests/data/real/3370-3373, HELDOUT.md): a second theme-neutral sample of PyTorch's extension
libraries on ROCm (TransformerEngine's source build, FlashAttention's CK test, torchaudio twice).  3370 (the package's
own HIP source failing to compile), 3371 (gdb's backtrace innermost in libamdhip64) and 3372 (the catch-all at
framework) led at their layer on the unchanged code.  One did not, and two got a sharper reading:

* 3373: a gdb backtrace pasted from '#0' whose innermost frame outside the C/C++ runtime is in torch's libtorch_cpu.so
  (llvm::cl::Option::~Option at exit) was read by no row (set BK's rows read the HIP runtime's, ROCr's and the math
  libraries' frames).  Row ih_gdb_backtrace_innermost_frame_in_torch_library reads it at framework.
* 3372: torchaudio's own 'TorchCodec is required for save_with_torchcodec' (pytorch/audio
  src/torchaudio/_torchcodec.py) now has row ih_torchaudio_torchcodec_required (framework) naming its cause.
* 3370: clang's 'note: candidate template ignored: substitution failure [with S = te_hip_fp8_e4m3]' was read by the
  catch-all at hip (a second, wrong finding); a compiler's located note is now benign (failure_lines.toml)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect import failure_lines as fl
from rwtest.heldout import assert_named_and_leads, fixture as _fixture, ids, lead_layer as _lead_layer
from rwtest.heldout import problems
from rwtest import realrun

GDB = "ih_gdb_backtrace_innermost_frame_in_torch_library"
CODEC = "ih_torchaudio_torchcodec_required"


@pytest.mark.parametrize("num,layer", [("3370", "framework"), ("3371", "hip"), ("3372", "framework"),
                                       ("3373", "framework")])
def test_the_set_ih_fixtures_lead_at_their_layer(num, layer):
    assert _lead_layer(_fixture(num)) == layer


@pytest.mark.parametrize("num,row", [("3373", GDB), ("3372", CODEC)])
def test_the_new_rows_name_their_fixture_and_lead_at_framework(num, row):
    assert_named_and_leads(num, row, "framework")


def test_the_compiler_note_gives_3370_no_second_finding():
    assert problems(realrun.diagnosis(_fixture("3370"))) == [("known-failure", "framework")]


@pytest.mark.parametrize("text", [
    # the fixture's frames (pytorch/audio#4025, torchaudio.load on an MI300 machine): glibc's free() at #0 with its
    # source line, then torch's libtorch_cpu.so
    "#0  0x00007f64534d4d55 in __GI___libc_free (mem=0x1) at ./malloc/malloc.c:3375\n"
    "#1  0x00007f64427121e7 in llvm::cl::Option::~Option() () from /opt/conda/envs/py_3.12/lib/python3.12/"
    "site-packages/torch/lib/libtorch_cpu.so\n",
    # mesnico/TERN#5 (gdb 'backtrace' after a SIGSEGV under torch): a frame in no object ('?? ()'), then libc10.so on
    # gdb's wrapped ' from' line
    "(gdb) backtrace\n#0  0x00007fb8000055ae in ?? ()\n"
    "#1  0x00007fb8fe29d8dd in c10::detail::LogAPIUsageFakeReturn(std::string const&) ()\n"
    "   from /export/home1/NoCsBack/hci/Erf/anaconda3/envs/tern/lib/python3.6/site-packages/torch/lib/libc10.so\n"
    "#2  0x00007fb903ccefc9 in at::cuda::detail::CUDAHooks::initCUDA() const ()\n",
    # constructed on gdb/stack.c's format: the pthread_kill/raise/abort frames of ROCm/rocBLAS#1339's backtrace with
    # the next frame's object made torch's libtorch_hip.so (libc's frames with source lines are skipped)
    "#0  __pthread_kill_implementation (no_tid=0, signo=6, threadid=140737352507392) at ./nptl/pthread_kill.c:44\n"
    "#1  0x00007ffff7c42476 in __GI_raise (sig=sig@entry=6) at ../sysdeps/posix/raise.c:26\n"
    "#2  0x00007ffff7c287f3 in __GI_abort () at ./stdlib/abort.c:79\n"
    "#3  0x00007fff4e341ccf in at::native::launch_kernel() () from /venv/lib/python3.12/site-packages/torch/lib/"
    "libtorch_hip.so\n",
])
def test_the_gdb_row_reads_a_backtrace_innermost_in_torch(text):
    assert GDB in ids(text)
    assert error_signatures.failure_layer(GDB) == "framework"


@pytest.mark.parametrize("text", [
    # legacy-rocm-build#1973 (rocm 5.4.2): the HIP runtime's frame is innermost, torch's only below it (set BK's row)
    "#0  0x00007fffadcdb335 in ?? () from /opt/rocm-5.4.2/lib/libamdhip64.so\n"
    "#1  0x00007fffadcdb4bd in ?? () from /opt/rocm-5.4.2/lib/libamdhip64.so\n"
    "#6  0x00007fffade116f7 in hipLaunchKernel ()\n   from /opt/rocm-5.4.2/lib/libamdhip64.so\n"
    "#7  0x00007fffafe5a55e in void at::native::gpu_kernel_impl<> () from /venv/torch/lib/libtorch_hip.so\n",
    # pytorch/pytorch#24983: the CUDA runtime innermost at exit, torch's libtorch.so below it
    "#0  0x00007fffc36857d8 in ?? () from /usr/local/cuda/lib64/libcudart.so.10.1\n"
    "#4  0x00007fffcab3f797 in __cudaUnregisterBinaryUtil () from /home/gautam/anaconda3/lib/python3.7/"
    "site-packages/torch/lib/libtorch.so\n",
    # pytorch/pytorch#72086: the interpreter's own library innermost
    "#0  0x00007ffff7d15ea3 in PyBytes_FromStringAndSize () from /usr/lib/libpython3.10.so.1.0\n"
    "#1  0x00007fffbf8c1cc4 in pybind11::bytes::bytes () from /venv/torch/lib/libtorch_python.so\n",
    # prose naming torch's library, no backtrace
    "I think the crash comes from libtorch_cpu.so when the process exits",
])
def test_near_misses_are_not_read_as_a_crash_in_torch(text):
    assert GDB not in ids(text)


@pytest.mark.parametrize("line", [
    # the fixture's line (ROCm/TheRock#1490, ComfyUI's IndexTTS node on TheRock's Windows wheels)
    "ImportError: TorchCodec is required for save_with_torchcodec. Please install torchcodec to use this function.",
    # _torchcodec.py's load path (its other raise), and as a wrapper re-raises it in a chained RuntimeError (a project's
    # notes quote it wrapped over two lines; joined here, the file name shortened)
    "ImportError: TorchCodec is required for load_with_torchcodec. Please install torchcodec to use this function.",
    "RuntimeError: Failed to load 'a.mp3' via torchaudio: TorchCodec is required for load_with_torchcodec.",
])
def test_the_codec_row_reads_torchaudios_refusal(line):
    assert CODEC in ids(line)
    assert error_signatures.failure_layer(CODEC) == "framework"


@pytest.mark.parametrize("line", [
    # other projects' own messages about torchcodec (a frame extractor, a pytest skip reason)
    "ImportError: torchcodec is required for frame extraction.",
    "SKIPPED: TorchCodec is required for MP4 artifacts",
    # torchcodec's own loader failure is another message
    "RuntimeError: Could not load libtorchcodec. Likely causes:",
])
def test_near_misses_are_not_read_as_torchaudios_refusal(line):
    assert CODEC not in ids(line)


@pytest.mark.parametrize("line,failing", [
    # the fixture's note (3370) and clang's instantiation note: explanations of an error, not failures
    ("/te/common/util/../utils_hip.cuh:317:26: note: candidate template ignored: substitution failure "
     "[with S = te_hip_fp8_e4m3]", False),
    ("/te/common/normalization/layernorm/ln_fwd_hip_kernel.hip:81:18: note: in instantiation of function template "
     "specialization 'ln_fwd_general_kernel<Kernel_traits<__half>>' requested here", False),
    # the error line itself is still a failure line
    ("/te/common/normalization/layernorm/ln_fwd_kernels_hip.cuh:341:9: error: no matching member function for "
     "call to 'to'", True),
])
def test_a_compilers_note_is_not_a_failure_line(line, failing):
    assert (fl.classify(line, None) == fl.SHOWN) is failing
