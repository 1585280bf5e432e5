"""Held-out set BK (tests/data/real/1520-1525, HELDOUT.md): crash reports around the GPU stack, placed at the layer of
the frame that faulted, not of the program that crashed.  The frame formats are the printing programs' own: gdb
(gdb/infrun.c 'Thread N "name" received signal SIGSEGV, Segmentation fault.', gdb/corelow.c 'Program terminated with
signal ...', gdb/stack.c '#N  0x... in <function> (...) from <object>'), compiler-rt's AddressSanitizer ('ERROR:
AddressSanitizer: <kind>', frames '#N 0x... (<module>+0x<off>)'), systemd-coredump ('Process N (x) of user N dumped core.',
'Stack trace of thread N:', frames '#N 0x... <function> (<module> + 0x<off>)') and the kernel's fault lines
(arch/x86/mm/fault.c show_signal_msg, arch/x86/kernel/traps.c, mm/memory.c print_vma_addr)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, ids as _ids

ROCR = "bk_native_crash_innermost_frame_in_rocr"
HIP = "bk_native_crash_innermost_frame_in_hip_runtime"
LIB = "bk_native_crash_innermost_frame_in_rocm_math_library"
K_HIP = "bk_kernel_fault_line_in_hip_runtime"
K_ROCR = "bk_kernel_fault_line_in_rocr"
NATIVE = (ROCR, HIP, LIB)


@pytest.mark.parametrize("num,row,layer", [
    ("1520", ROCR, "runtime"),
    ("1521", ROCR, "runtime"),
    ("1522", HIP, "hip"),
    ("1523", ROCR, "runtime"),
    ("1524", K_HIP, "hip"),
])
def test_fixture_is_named_and_leads(num, row, layer):
    assert_named_and_leads(num, row, layer)


def test_rows_sit_at_the_faulting_librarys_layer():
    assert [error_signatures.failure_layer(r) for r in (ROCR, HIP, LIB, K_HIP, K_ROCR)] == \
        ["runtime", "hip", "libraries", "hip", "runtime"]


@pytest.mark.parametrize("text,row", [
    # gdb on a live process, the first frame printed under the stop line (no '#0')
    ('Thread 1 "rocminfo" received signal SIGSEGV, Segmentation fault.\n'
     "0x00007ffff7e1b2a0 in rocr::AMD::GpuAgent::InitDma() () from /opt/rocm/lib/libhsa-runtime64.so.1\n", ROCR),
    # gdb's abort: libc's frames first, then the thunk
    ("Program received signal SIGABRT, Aborted.\n__pthread_kill_implementation (no_tid=0, signo=6) at ./nptl/pthread_kill.c:44\n"
     "(gdb) bt\n#0  __pthread_kill_implementation (no_tid=0, signo=6) at ./nptl/pthread_kill.c:44\n"
     "#1  0x00007ffff7c42476 in __GI_raise (sig=sig@entry=6) at ../sysdeps/posix/raise.c:26\n"
     "#2  0x00007ffff7c287f3 in __GI_abort () at ./stdlib/abort.c:79\n"
     "#3  0x00007fffe81d0a11 in hsaKmtOpenKFD () from /usr/lib/x86_64-linux-gnu/libhsakmt.so.1\n", ROCR),
    # systemd-coredump (journal prefix, the module list between the header and the stack)
    ("Nov 02 10:11:12 box systemd-coredump[4242]: Process 4100 (llama-server) of user 1000 dumped core.\n"
     "                                            \n"
     "                                            Module libamdhip64.so.7 without build-id.\n"
     "                                            Stack trace of thread 4100:\n"
     "                                            #0  0x00007f11aa2b09df n/a (libamdhip64.so.7 + 0x2b09df)\n"
     "                                            #1  0x00007f11aa1c0c12 n/a (libamdhip64.so.7 + 0x1c0c12)\n", HIP),
    # AddressSanitizer without symbols, a sanitizer interceptor frame first
    ("==1420934==ERROR: AddressSanitizer: SEGV on unknown address (pc 0x155552cf11c0 bp 0x7fffffff76f0 sp 0x7fffffff75e0 T0)\n"
     "==1420934==The signal is caused by a READ memory access.\n"
     "    #0 0x7f1670a7b5b6 in __interceptor_memcpy (/opt/rocm/llvm/lib/clang/22/lib/linux/libclang_rt.asan-x86_64.so+0xd05b6)\n"
     "    #1 0x155552cf11c0 in hip::ihipLaunchKernel_validate(ihipModuleSymbol_t*) (/opt/rocm-7.2.1/lib/libamdhip64.so.7+0x2f11c0)\n",
     HIP),
    # a gdb backtrace pasted without its stop line: frame #0 itself is in rocBLAS
    ("#0  0x00007b73e2042a68 in Tensile::hip::SolutionAdapter::launchKernels(std::vector<Tensile::KernelInvocation, "
     "std::allocator<Tensile::KernelInvocation> > const&, ihipStream_t*, ihipEvent_t*, ihipEvent_t*) () from "
     "/opt/rocm_sdk_612/lib64/librocblas.so.4\n", LIB),
    # MIOpen's shared object is spelled libMIOpen
    ("Thread 7 \"python\" received signal SIGSEGV, Segmentation fault.\n"
     "0x00007f1850a5c97d in miopen::kernels[abi:cxx11]() () from /opt/rocm-5.6.0/lib/libMIOpen.so.1\n", LIB),
])
def test_other_crash_reports_are_placed_by_their_faulting_frame(text, row):
    found = _ids(text)
    assert row in found, (row, found)
    assert not (set(NATIVE) - {row}) & found, found


@pytest.mark.parametrize("text", [
    # the innermost non-system frame is the framework's, the ROCm frames are its callees' callers
    ('Thread 1 "python3" received signal SIGSEGV, Segmentation fault.\n'
     "0x00007fff9a11c0de in at::native::copy_impl(at::Tensor&, at::Tensor const&, bool) () from "
     "/venv/lib/python3.12/site-packages/torch/lib/libtorch_hip.so\n"
     "#1  0x00007fffa62dcf0c in hipMemcpyAsync () from /venv/lib/python3.12/site-packages/torch/lib/libamdhip64.so\n"),
    # a hang (gdb interrupted): frame #0 in libc's ioctl, the thunk's wait under it is no crash
    ("Thread 1 \"python3\" received signal SIGINT, Interrupt.\n"
     "0x00007ffff7d1e94f in __GI___ioctl (fd=3, request=3222817548) at ../sysdeps/unix/sysv/linux/ioctl.c:36\n"
     "#1  0x00007fffe81d5c3a in hsaKmtWaitOnMultipleEvents_Ext () from /opt/rocm/lib/libhsakmt.so.1\n"),
    ("#0  0x00007ffff7d1e94f in __GI___ioctl (fd=3, request=3222817548) at ../sysdeps/unix/sysv/linux/ioctl.c:36\n"
     "#1  0x00007fffe81d5c3a in hsaKmtWaitOnMultipleEvents_Ext () from /opt/rocm/lib/libhsakmt.so.1\n"),
    # a later thread of a coredump blocked in ROCr, the crashing thread elsewhere
    ("Process 2478 (nheko) of user 1000 dumped core.\n\nStack trace of thread 2478:\n"
     "#0  0x00007f77916aa87b pthread_kill (libc.so.6 + 0x9e87b)\n#2  0x000055c9df2681a6 n/a (nheko + 0xa6d1a6)\n"
     "#4  0x000055ca02d10940 n/a (libQt6Core.so.6 + 0x0)\n\nStack trace of thread 2480:\n"
     "#0  0x00007f77916a34e9 n/a (libc.so.6 + 0x8f4e9)\n#1  0x00007f778a1d5c3a n/a (libhsakmt.so.1 + 0x15c3a)\n"),
    # the crashing thread's innermost frame is the program's own; a later thread waits in the thunk
    ("Process 4100 (myapp) of user 1000 dumped core.\n\nStack trace of thread 4100:\n"
     "#0  0x000055c9df2681a6 n/a (myapp + 0xa6d1a6)\n#1  0x000055c9df2691b0 n/a (myapp + 0xa6e1b0)\n\n"
     "Stack trace of thread 4101:\n#0  0x00007f77916a34e9 n/a (libc.so.6 + 0x8f4e9)\n"
     "#1  0x00007f778a1d5c3a n/a (libhsakmt.so.1 + 0x15c3a)\n"),
    # LeakSanitizer's leak report is no crash; a symbolized ASan frame names no module
    ("==42==ERROR: LeakSanitizer: detected memory leaks\n\nDirect leak of 64 byte(s) in 1 object(s) allocated from:\n"
     "    #0 0x7f1670a7b5b6 in malloc (/usr/lib/libasan.so.8+0xd05b6)\n    #1 0x7f166f32ed0c  (/opt/rocm/lib/libhsa-runtime64.so.1+0x2ed0c)\n"),
    # a library list, not a crash
    ("ldd ./a.out\n\tlibamdhip64.so.7 => /opt/rocm/lib/libamdhip64.so.7 (0x00007f0a56400000)\n"),
])
def test_near_misses_are_not_a_native_crash_row(text):
    assert not set(NATIVE) & _ids(text), _ids(text)


@pytest.mark.parametrize("line,row", [
    ("[  531.666641] traps: python[7820] general protection fault ip:7fc0288b09df sp:7fbd8b5fa850 error:0 in "
     "libamdhip64.so.7.2.70201[2b09df,7fc028623000+481000]", K_HIP),
    ("[  616.542343] llama-server[15547]: segfault at 34 ip 000076895244e2a4 sp 00007ffd79f420e0 error 4 in "
     "libhsa-runtime64.so.1.18.70100[4e2a4,76895241d000+132000] likely on CPU 6 (core 6, socket 0)", K_ROCR),
    ("kernel: ollama[3321]: trap invalid opcode ip:7f3a1c2b09df sp:7ffd9a1fa850 error:0 in libhsakmt.so.1.0.6[7f3a1c200000+40000]",
     K_ROCR),
])
def test_kernel_fault_lines_are_placed_by_their_object(line, row):
    assert row in _ids(line), _ids(line)


@pytest.mark.parametrize("line", [
    # a math library's segfault line is s10x_crash_in_rocm_math_library's; comgr's is s11ao's
    "python3[99]: segfault at 0 ip 00007f00 sp 00007ff0 error 4 in librocblas.so.4.2[7f0000000000+100000]",
    "python3[99]: segfault at 0 ip 00007f00 sp 00007ff0 error 4 in libamd_comgr.so.3[7f0000000000+100000]",
    # a path that names the HIP runtime in another line
    "ls: cannot access '/opt/rocm/lib/libamdhip64.so.7': No such file or directory",
])
def test_kernel_fault_line_near_misses(line):
    assert not {K_HIP, K_ROCR} & _ids(line), _ids(line)
