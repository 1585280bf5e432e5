"""Parsers of the detection core (os-release, uname, collect_env, pip, dmesg, error logs) and the
error-signature table, on real pasted outputs (shared/fixtures/real) and hand-written variants."""
from __future__ import annotations

import pytest
from rwtest import ci

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.parsers import collect_env, dmesg, error_log, os_release, pip_freeze, uname

from _detect_core_support import REAL_FIXTURES

CORE_PARSERS = (os_release, uname, collect_env, pip_freeze, dmesg, error_log)


def real(name: str) -> str:
    matches = sorted(REAL_FIXTURES.glob(name))
    if not matches:
        ci.missing("shared fixtures not available (%s/%s)" % (REAL_FIXTURES, name))
    return matches[0].read_text(encoding="utf-8")


# -- os-release ------------------------------------------------------------------------------------

def test_os_release_arch_paste_with_prompt():
    text = real("011-*/os-release.txt")
    assert os_release.looks_like(text) > 0.8
    r = os_release.parse(text)
    assert (r.id, r.version_id, r.pretty_name, r.codename) == ("arch", "rolling", "Arch Linux", None)


def test_os_release_ubuntu_name_and_version_only():
    text = real("013-*/os-release-cpu-gpu-summary.txt")
    r = os_release.parse(text)
    assert (r.id, r.version_id, r.codename) == ("ubuntu", "24.04", "noble")


def test_system_release_rocky():
    text = real("028-*/system-release.txt")
    assert os_release.looks_like(text) >= 0.9
    r = os_release.parse(text)
    assert (r.id, r.version_id, r.format) == ("rocky", "9.0", "system-release")


@pytest.mark.parametrize("text,expected", [
    ('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nVERSION="12 (bookworm)"\n'
     'VERSION_CODENAME=bookworm\nID=debian\n', ("debian", "12", "bookworm")),
    ('NAME="Ubuntu"\r\nVERSION="22.04.4 LTS (Jammy Jellyfish)"\r\nID=ubuntu\r\nVERSION_ID="22.04"\r\n', ("ubuntu", "22.04", "jammy")),
    ("Distributor ID:\tUbuntu\nDescription:\tUbuntu 24.04.1 LTS\nRelease:\t24.04\nCodename:\tnoble\n", ("ubuntu", "24.04", "noble")),
    ("CentOS Linux release 7.9.2009 (Core)\n", ("centos", "7.9.2009", "Core")),
    ('NAME="Fedora Linux"\nVERSION="40 (Workstation Edition)"\nID=fedora\nVERSION_ID=40\n', ("fedora", "40", None)),
])
def test_os_release_formats(text, expected):
    r = os_release.parse(text)
    assert (r.id, r.version_id, r.codename) == expected


@pytest.mark.parametrize("pretty,expected", [("Ubuntu 24.04.2 LTS (x86_64)", ("ubuntu", "24.04")),
                                             ("Arch Linux (x86_64)", ("arch", "rolling")),
                                             ("Rocky Linux release 9.0 (Blue Onyx)", ("rocky", "9.0")),
                                             ("Could not collect", (None, None)), ("", (None, None))])
def test_os_from_pretty(pretty, expected):
    r = os_release.from_pretty(pretty)
    assert (r.id, r.version_id) == expected


def test_os_release_rejects_other_outputs():
    assert os_release.looks_like(real("001-*/rocminfo.txt")) < 0.35
    assert os_release.looks_like(real("008-*/collect_env.txt")) < 0.35
    assert os_release.looks_like("") == 0.0


# -- uname ---------------------------------------------------------------------------------------------

def test_uname_a_arch():
    text = real("011-*/uname.txt")
    assert uname.looks_like(text) >= 0.9
    u = uname.parse(text)
    assert (u.release, u.hostname, u.machine, u.flavour, u.wsl) == ("7.1.4-arch1-1", "zero-arch", "x86_64", "arch", False)


def test_uname_a_el9_with_root_prompt():
    u = uname.parse(real("028-*/uname.txt"))
    assert (u.release, u.hostname, u.flavour) == ("5.14.0-70.30.1.el9_0.x86_64", "hs2", "el9")


@pytest.mark.parametrize("text,release,flavour", [
    ("6.17.0-1012-oem\n", "6.17.0-1012-oem", "oem"),
    ("6.17.0-14-generic", "6.17.0-14-generic", "generic"),
    ("$ uname -r\n5.17.0\n", "5.17.0", None),
    ("Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075) (x86_64-linux-gnu-gcc-13 (Ubuntu 13.2.0) 13.2.0) #45-Ubuntu SMP PREEMPT_DYNAMIC\n",
     "6.8.0-45-generic", "generic"),
    ("Linux 6.6.87.2-microsoft-standard-WSL2 x86_64\n", "6.6.87.2-microsoft-standard-WSL2", "microsoft-standard-WSL2"),
    ("4.4.0-19041-Microsoft\n", "4.4.0-19041-Microsoft", "Microsoft"),
    ("6.1.0-25-amd64\n", "6.1.0-25-amd64", "amd64"),
])
def test_uname_forms(text, release, flavour):
    assert uname.looks_like(text) >= 0.75
    u = uname.parse(text)
    assert (u.release, u.flavour) == (release, flavour)


def test_uname_does_not_claim_bare_versions():
    assert uname.looks_like("6.3.4-76\n") < 0.5  # /opt/rocm/.info/version, not a kernel
    assert uname.looks_like(real("013-*/lsmod-amdgpu.txt")) == 0.0
    assert uname.parse("garbage").release is None


# -- collect_env -----------------------------------------------------------------------------------------

def test_collect_env_wsl2_paste_with_runpy_warning():
    text = real("008-*/collect_env.txt")
    assert collect_env.looks_like(text) > 0.9
    c = collect_env.parse(text)
    assert c.warnings and c.warnings[0].startswith("<frozen runpy>")
    assert c.torch_version == "2.9.0.dev20250706+rocm6.4"
    assert c.hip_build == "6.4.43483-a187df25c" and c.cuda_build is None
    assert (c.hip_runtime, c.miopen) == ("6.4.43483", "3.4.0")
    assert (c.python, c.kernel, c.wsl, c.arch) == ("3.12.3", "6.6.87.2-microsoft-standard-WSL2", True, "x86_64")
    assert c.os == "Ubuntu 24.04.2 LTS (x86_64)"
    assert [(g.name, g.gfx_target) for g in c.gpus] == [("AMD Radeon RX 7900 XT", "gfx1100")]
    assert c.pip["pytorch-triton-rocm"] == "3.3.1+gitc8757738" and c.pip["torchvision"] == "0.24.0.dev20250706+rocm6.4"
    assert c.cpu_model == "AMD Ryzen 7 5700X 8-Core Processor"


def test_collect_env_container_build():
    c = collect_env.parse(real("019-*/collect_env.txt"))
    assert c.torch_version == "2.9.1+rocm7.2.0.git7e1940d4"
    assert c.kernel == "6.17.0-1012-oem" and c.kernel_flavour == "oem" and c.wsl is False
    assert c.pip["triton"] == "3.5.1+rocm7.2.0.gita272dfa8"


def test_collect_env_old_layout_and_nvidia_gpus():
    text = ("Collecting environment information...\nPyTorch version: 1.13.1+rocm5.2\nIs debug build: False\n"
            "CUDA used to build PyTorch: N/A\nROCM used to build PyTorch: 5.2.21151-afdc89f8\n\nOS: Ubuntu 20.04.5 LTS (x86_64)\n"
            "Python version: 3.8.10 (default, Nov 14 2022, 12:59:47)  [GCC 9.4.0] (64-bit runtime)\n"
            "GPU models and configuration: \nGPU 0: NVIDIA A100-SXM4-80GB\nGPU 1: NVIDIA A100-SXM4-80GB\n"
            "Versions of relevant libraries:\n[pip] numpy==1.23.5\n[pip] torch==1.13.1+rocm5.2\n"
            "[conda] torch                     1.13.1+rocm5.2          pypi_0    pypi\n")
    c = collect_env.parse(text)
    assert c.torch_version == "1.13.1+rocm5.2" and c.hip_build == "5.2.21151-afdc89f8" and c.hip_runtime is None
    assert c.python == "3.8.10" and c.kernel is None
    assert [g.name for g in c.gpus] == ["NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB"]
    assert c.pip["numpy"] == "1.23.5" and c.conda["torch"] == "1.13.1+rocm5.2"


def test_collect_env_kernel_on_os_line():
    c = collect_env.parse("PyTorch version: 2.3.0+rocm6.0\nOS: Ubuntu 22.04 Linux-6.5.0-41-generic-x86_64-with-glibc2.35\n")
    assert c.kernel == "6.5.0-41-generic" and c.kernel_flavour == "generic"


def test_collect_env_cut_off_paste_keeps_what_it_has():
    c = collect_env.parse("PyTorch version: 2.4.1+rocm6.1\nIs debug build: False\nCUDA used to bu")
    assert c.torch_version == "2.4.1+rocm6.1" and c.hip_build is None


def test_collect_env_rejects_rocminfo():
    assert collect_env.looks_like(real("017-*/rocminfo.txt")) < 0.35


# -- pip freeze / pip list ---------------------------------------------------------------------------

def test_pip_freeze():
    text = ("torch==2.5.1+rocm6.2\npytorch-triton-rocm==3.1.0\ntorchvision==0.20.1+rocm6.2\n-e git+https://x/y.git@abc#egg=mypkg\n"
            "diffusers @ file:///tmp/diffusers-0.31.0-py3-none-any.whl\nNumPy==1.26.4\n")
    assert pip_freeze.looks_like(text) > 0.8
    p = pip_freeze.parse(text)
    assert p.packages["torch"] == "2.5.1+rocm6.2" and p.packages["pytorch-triton-rocm"] == "3.1.0"
    # a "name @ URL" line of a wheel gives the wheel's version; an editable install has none
    assert p.packages["mypkg"] == "" and p.packages["diffusers"] == "0.31.0" and p.packages["numpy"] == "1.26.4"
    assert p.format == "freeze"


def test_pip_list_columns_and_grep():
    text = ("Package                  Version         Editable project location\n------------------------ --------------- -------------------------\n"
            "pytorch_triton_rocm      3.0.0\ntorch                    2.4.1+rocm6.1\nrocm-wizard              0.1.0           /home/a/src/rocm-wizard\n")
    assert pip_freeze.looks_like(text) >= 0.9
    p = pip_freeze.parse(text)
    assert p.packages == {"pytorch-triton-rocm": "3.0.0", "torch": "2.4.1+rocm6.1", "rocm-wizard": "0.1.0"}
    grep = "$ pip list | grep -i torch\ntorch                    2.6.0+rocm6.2.4\ntorchvision              0.21.0+rocm6.2.4\n"
    assert pip_freeze.looks_like(grep) >= 0.5
    assert pip_freeze.parse(grep).get("torchvision") == "0.21.0+rocm6.2.4"


@pytest.mark.parametrize("name", ["013-*/lsmod-amdgpu.txt", "028-*/dnf-rocm.txt", "013-*/dpkg-rocm.txt",
                                  "026-*/apt-list-rocm.txt", "011-*/rocm-smi.txt", "001-*/rocminfo.txt"])
def test_pip_rejects_other_listings(name):
    assert pip_freeze.looks_like(real(name)) < 0.35


# -- dmesg ---------------------------------------------------------------------------------------------

def test_dmesg_formats():
    text = ("[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02) (gcc) #45-Ubuntu SMP\n"
            "[    4.123456] amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init\n"
            "[    4.200000] usb 1-1: new high-speed USB device\n"
            "[   77.749356] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx timeout, signaled seq=1, emitted seq=3\n")
    assert dmesg.looks_like(text) >= 0.8
    d = dmesg.parse(text)
    assert d.format == "dmesg" and d.kernel_version == "6.8.0-45-generic"
    assert len(d.gpu_lines) == 2 and [l.bdf for l in d.gpu_lines] == ["0000:03:00.0", None]
    assert len(d.errors) == 2
    journal = "Jul 26 22:35:48 dagon kernel: amdgpu 0000:0b:00.0: GPU reset begin!\nJul 26 22:35:49 dagon kernel: [drm] ok\n"
    dj = dmesg.parse(journal)
    assert dj.format == "journal" and all("dagon" not in l.text for l in dj.lines)
    human = "[Mon Jan  1 12:00:00 2024] amdgpu: probe of 0000:03:00.0 failed with error -22\n"
    assert dmesg.parse(human).format == "dmesg-T"


def test_dmesg_rejects_non_logs():
    assert dmesg.looks_like(real("008-*/collect_env.txt")) < 0.35
    assert dmesg.parse("nothing here").lines == []


# -- error logs + signatures -----------------------------------------------------------------------------

def test_error_log_hip_log():
    text = real("021-*/error.txt")
    assert error_log.looks_like(text) >= 0.8
    e = error_log.parse(text)
    assert e.amd_log and e.aborted and "no_binary_for_gpu" in e.signatures


def test_error_log_traceback():
    text = real("032-*/error.txt")
    assert error_log.looks_like(text) >= 0.9
    e = error_log.parse(text)
    assert e.traceback and e.exception == "RuntimeError" and e.message.startswith("CUDA error: HIPBLAS_STATUS_ALLOC_FAILED")
    assert e.signatures == ["hipblas_status"]


def test_error_log_hsa():
    e = error_log.parse(real("026-*/error.txt"))
    assert e.hsa_error and e.signatures == ["hsa_out_of_resources"]


# one real-looking line per signature; a new signature without an example fails test_every_signature_has_an_example
EXAMPLES = {
    "hipblas_status": "RuntimeError: CUDA error: HIPBLAS_STATUS_NOT_SUPPORTED when calling `hipblasGemmEx(handle, ...)`",
    "hipblaslt_unsupported_arch": "UserWarning: Attempting to use hipBLASLt on an unsupported architecture! Overriding blas backend to hipblas (Triggered internally at /pytorch/aten/src/ATen/Context.cpp:296.)",
    "triton_language": "AttributeError: module 'triton' has no attribute 'language'",
    "triton_ops": "ModuleNotFoundError: No module named 'triton.ops'",
    "no_binary_for_gpu": "RuntimeError: HIP error: invalid device function",
    "hsa_out_of_resources": "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.",
    "hsa_out_of_registers": ":0:rocdevice.cpp :2875: HSA_STATUS_ERROR_OUT_OF_REGISTERS: Kernel has requested more VGPRs than are available",
    "hsa_error": "Call returned HSA_STATUS_ERROR_INVALID_ISA",
    "cannot_initialize_type": 'ImportError: generic_type: cannot initialize type "_CudaDeviceProperties": an object with that name is already defined',
    "kfd_permission": "Unable to open /dev/kfd read-write: Permission denied",
    "kfd_missing": "Unable to open /dev/kfd read-write: No such file or directory",
    "kfd_open_failed": "Unable to open /dev/kfd read-write: Invalid argument",
    "amdgpu_init_failed": "[   77.749356] amdgpu 0000:03:00.0: amdgpu_device_ip_init failed",
    "amdgpu_firmware_missing": "[    3.1] amdgpu 0000:03:00.0: Direct firmware load for amdgpu/psp_15_0_0_ta.bin failed with error -2",
    "gpu_hang": "amdgpu 0000:c5:00.0: ring gfx_0.0.0 timeout, signaled seq=748913, emitted seq=748915",
    "memory_access_fault": "Memory access fault by GPU node-1 (Agent handle: 0x55ac14d27600) on address 0x7f9587e00000. Reason: Page not present or supervisor privilege.",
    "oom": "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.98 GiB",
    "host_oom_killer": "[12345.6] Out of memory: Killed process 4242 (python) total-vm:123kB",
    "rocm_smi_error": "ERROR: 15 GPU[0]: od volt: Data (usually from reading a file) was not of the type that was expected",
    "no_gpu_agent": "HSA Agents\n==========\n*******\nAgent 1\n*******\n  Name:                    Intel(R) Core(TM) i5\n  Device Type:             CPU\n",
    "amdgpu_not_loaded": "ROCk module is NOT loaded, possibly no GPU devices",
    "pcie_atomics_rejected": "[   13.155802] kfd kfd: skipped device 1002:699f, PCI rejects atomics",
    "hostcall_no_pcie_atomics": ":1:rocvirtual.cpp           :3103: 0368660788d us:  Pcie atomics not enabled, hostcall not supported",
    "mes_hang": "[  950.818174] amdgpu 0000:c5:00.0: amdgpu: MES might be in unrecoverable state, issue a GPU reset",
    "dkms_build_failed": "Error! Bad return status for module build on kernel: 6.12.100+deb13-amd64 (x86_64)",
    "module_key_rejected": "modprobe: ERROR: could not insert 'amdgpu': Key was rejected by service",
    "gpu_off_bus": "amdgpu 0000:03:00.0: Unable to change power state from D3cold to D0, device inaccessible",
    "rocminfo_killed": "ROCk module is loaded\nfangq is member of video group\nKilled\n",
    "rocminfo_died_signal": "subprocess.CalledProcessError: Command '[PosixPath('/.../rocminfo')]' died with <Signals.SIGSEGV: 11>.",
    "hipblaslt_library_missing": 'rocblaslt error: Could not load "TensileLibrary_lazy_gfx1151.dat"',
    "vm_guest": "         product: Hyper-V virtual VGA",
    "smi_implausible": "GPU[1]          : Temperature: 511.0c",
    "amdgpu_disabled_cmdline": "[    0.019312] Kernel command line: BOOT_IMAGE=/boot/vmlinuz-6.8.0-49-generic root=UUID=0 ro quiet splash nomodeset",
    "smi_no_readings": "  0    0    N/A      N/A     N/A     N/A       N/A    N/A    N/A",
    "miopen_db_error": "MIOpen(HIP): Warning [FindWinogradSolutions] /root/driver/MLOpen/src/sqlite_db.cpp:212: Internal error while accessing SQLite database: disk I/O error",
    "lds_limit": "error: local memory limit exceeded (98304) in _Z17symm_scale_kernelILi128ELi8EPKfPfEviiT1_T2_lil",
    "invalid_device": "RuntimeError: HIP error: invalid device ordinal",
    "iommu_settings": 'g1072:1263985:1263985 [0] init.cpp:122 NCCL WARN Missing "iommu=pt" from kernel command line which can lead to system instablity or hang!',
    "small_vram": "[    4.258469] [drm] amdgpu: 512M of VRAM memory ready",
}
EXAMPLES.update({  # (issue 13, rest) what tells the causes of HSA_STATUS_ERROR_OUT_OF_RESOURCES apart
    "wsl_runtime": "WSL environment detected.",
    "rocr_unsupported_gpu": "ROCR: unsupported GPU",
    "kfd_unsupported_asic": "[    2.721238] amdgpu 0000:02:00.0: kfd not supported on this ASIC",
})
EXAMPLES.update({  # (issue 28, held-out 353) ROCm/hip#3465: the check's answer printed on the next line
    "torch_gpu_unavailable": ('$ python -c "import torch; print(torch.cuda.is_available())"\nFalse'),
})
EXAMPLES.update({  # (issue 30) pytorch/pytorch#179865: a rocm7.2 wheel's rocBLAS without gfx900 Tensile files
    "rocblas_tensile_missing": ("rocBLAS error: Cannot read /venv/lib/python3.12/site-packages/torch/lib/rocblas/library/"
                                "TensileLibrary.dat: Illegal seek for GPU arch : gfx900"),
})


EXAMPLES.update({  # s6-heldout2 (set L): failures told by two lines together (NixOS/nixpkgs#530702, ROCm/rocm-systems#10586)
    "llvm_two_versions_in_backtrace": (
        "/nix/store/5qlw-llvm-22.0.0-rocm-lib/lib/libLLVM.so.22.0(+0x2d56da3) [0x7bfa58556da3]\n"
        "/nix/store/57iz-glibc-2.42-61/lib/libc.so.6(+0x42790) [0x7bfb42e42790]\n"
        "/nix/store/f87i-llvm-19.1.7-lib/lib/libLLVM.so.19.1(_ZN4llvm15AnalysisManager+0x4c5) [0x7bfb2f6223c5]\n"),
    "hip_peer_access_asymmetric": "hipDeviceCanAccessPeer(0, 1) = 0\nhipDeviceCanAccessPeer(1, 0) = 1\n",
})


EXAMPLES.update({  # s9: information, the free memory ggml reports (ggml-org/llama.cpp#19764)
    "ggml_device_free_memory": "  ROCm0: AMD Radeon(TM) Graphics (110511 MiB, 110357 MiB free)",
})
EXAMPLES.update({  # s7-heldn (set N): the distribution's HIP beside AMD's (ggml-org/llama.cpp#15196)
    "hip_distro_and_amd_copies": "/usr/include/hip/hip_bf16.h\n/opt/rocm-6.4.3/include/hip/hip_bf16.h\n",
})
EXAMPLES.update({  # s10-heldx (set X): bitsandbytes without a library for torch's ROCm (unslothai/unsloth#10273)
    "bnb_no_library_for_torch_rocm": "PyTorch: 2.6.0+rocm6.1\nlibbitsandbytes_rocm64.so\nlibbitsandbytes_rocm72.so\n",
})


def test_two_line_signatures_need_both_lines():
    """One libLLVM version in a backtrace, or peer answers that agree both ways, are not failures."""
    one_llvm = ("/usr/lib/libLLVM.so.19.1(+0x10) [0x7f0000000010]\n"
                "/usr/lib/libLLVM.so.19.1(_ZN4llvm4PassEv+0x20) [0x7f0000000020]\n"
                "libLLVM.so.22.0 (libc6,x86-64) => /opt/rocm/lib/llvm/lib/libLLVM.so.22.0\n")
    symmetric = "hipDeviceCanAccessPeer(0, 1) = 0\nhipDeviceCanAccessPeer(1, 0) = 0\nhipDeviceCanAccessPeer(0, 2) = 1\n"
    found = {s.id for s, _ in error_signatures.scan(one_llvm + symmetric)}
    assert not found & {"llvm_two_versions_in_backtrace", "hip_peer_access_asymmetric"}
    # the pair can be anywhere in a long paste, in either order of the two lines
    far = "hipDeviceCanAccessPeer(3, 2) = 1\n" + "noise line\n" * 5000 + "hipDeviceCanAccessPeer(2, 3) = 0\n"
    assert "hip_peer_access_asymmetric" in {s.id for s, _ in error_signatures.scan(far)}


def test_signature_table_is_well_formed():
    ids = [s.id for s in error_signatures.SIGNATURES]
    assert len(ids) == len(set(ids))
    for sig in error_signatures.SIGNATURES:
        assert sig.id and sig.source and sig.meaning and sig.id.islower()
        sig.compiled()


def test_every_signature_has_an_example():
    # the Python rows here; the rows of detect/failures.toml carry their own (test_failure_catalogue.py)
    assert set(EXAMPLES) == {s.id for s in error_signatures.SIGNATURES if error_signatures.failure(s.id) is None}


@pytest.mark.parametrize("sig_id", sorted(EXAMPLES))
def test_signature_matches_its_example(sig_id):
    found = [s.id for s, _line in error_signatures.scan(EXAMPLES[sig_id])]
    assert sig_id in found
    # and only that one of the Python rows (hsa_error must not double-report the specific statuses);
    # a catalogue row may name the same line with its layer
    assert [f for f in found if error_signatures.failure(f) is None] == [sig_id]


# every wording a pattern has, as the emitting source prints it: the needles (a fast pre-check) must be
# in each match, or the pattern is never tried on that wording (issue 28: mes_hang's needle "mes " missed
# the kernel's "failed to remove hardware queue from MES, doorbell=0x1802")
WORDINGS = {
    "mes_hang": [  # linux drivers/gpu/drm/amd/amdgpu/mes_v11_0.c / mes_v12_0.c, amdgpu_mes.c
        "[  950.818166] amdgpu 0000:c5:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE",
        "[  950.818171] amdgpu 0000:c5:00.0: amdgpu: failed to remove hardware queue from MES, doorbell=0x1802",
        "[  950.818174] amdgpu 0000:c5:00.0: amdgpu: MES might be in unrecoverable state, issue a GPU reset",
        "[31327.7] [drm:mes_v11_0_submit_pkt_and_poll_completion [amdgpu]] *ERROR* MES failed to response msg=2",
    ],
}


@pytest.mark.parametrize("sig_id", sorted(EXAMPLES))
def test_needles_are_in_every_match(sig_id):
    sig = error_signatures.by_id(sig_id)
    rx = sig.compiled()
    lines = [EXAMPLES[sig_id]] + WORDINGS.get(sig_id, [])
    for line in lines:
        m = rx.search(line)
        assert m, line
        if sig.needles:
            assert any(n in m.group(0).lower() or n in line.lower() for n in sig.needles), (sig_id, line)
            assert sig_id in [s.id for s, _l in error_signatures.scan(line)], line


@pytest.mark.parametrize("name", ["001-*/rocminfo.txt", "017-*/rocminfo.txt", "008-*/collect_env.txt", "011-*/rocm-smi.txt"])
def test_signatures_quiet_on_healthy_outputs(name):
    assert error_signatures.scan(real(name)) == []


def test_signature_scan_dedupes_and_limits():
    text = "\n".join(["HIPBLAS_STATUS_ALLOC_FAILED"] * 5 + ["x HIPBLAS_STATUS_INTERNAL_ERROR %d" % i for i in range(80)])
    found = error_signatures.scan(text, limit=10)
    assert len(found) == 10 and found[0][1] == "HIPBLAS_STATUS_ALLOC_FAILED"
    assert error_signatures.scan(None) == [] and error_signatures.by_id("oom").id == "oom"


@pytest.mark.parametrize("mod", CORE_PARSERS, ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_parsers_interface(mod):
    assert isinstance(mod.KIND, str) and mod.KIND
    for bad in (None, 42, b"bytes", "", "\x00\xff", "=" * 10000):
        score = mod.looks_like(bad)
        assert 0.0 <= score <= 1.0
        mod.parse(bad)
