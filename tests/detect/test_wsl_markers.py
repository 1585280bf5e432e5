"""WSL markers and the ROCm-on-WSL user space (rocr4wsl for 6.x-7.1, librocdxg for 7.2+) from pasted text.

The rows are shaped as dpkg/apt/dnf print them; the runtime strings are the ones ROCm's WSL builds print
(real reports under tests/data/real carry the wsl_userspace label)."""
from rocm_wizard.detect.parsers import wsl
from rocm_wizard.detect import detect_snapshot


def _gen(text):
    us = wsl.userspace([("p", text)])
    return us.generation if us else None


def test_installed_rocr4wsl_rows():
    assert _gen("ii  hsa-runtime-rocr4wsl-amdgpu   24.30-2089753.24.04 amd64  HSA runtime for WSL") == wsl.ROCR4WSL
    assert _gen("hsa-runtime-rocr4wsl-amdgpu/noble,now 25.10-2209220.24.04 amd64 [installed,automatic]") == wsl.ROCR4WSL
    assert _gen("hsa-runtime-rocr4wsl-amdgpu.x86_64          1.14.0.60200-2009582.el9   @amdgpu") == wsl.ROCR4WSL


def test_package_named_in_an_apt_error_is_not_installed():
    assert _gen("E: Unable to locate package hsa-runtime-rocr4wsl-amdgpu") is None
    assert _gen("sudo apt install hsa-runtime-rocr4wsl-amdgpu") is None


def test_thunk_proxy_is_the_6x_runtime():
    text = ("WSL environment detected.\nrocminfo: ./sources/wsl/libhsakmt/src/thunk_proxy/thunk_proxy.cpp:111: void "
            "thunk_proxy::QueryAdapterInfo(D3DKMT_HANDLE, ATIADAPTERINFO*): Assertion `ret == STATUS_SUCCESS' failed.")
    assert _gen(text) == wsl.ROCR4WSL


def test_librocdxg_wins_and_carries_its_source():
    us = wsl.userspace([("a", "ii  hsa-runtime-rocr4wsl-amdgpu 24.30 amd64 x"), ("b", "export HSA_ENABLE_DXG_DETECTION=1")])
    assert us.generation == wsl.LIBROCDXG and us.where == "b" and us.sources == ("librocdxg-readme",)
    assert _gen("ii  rocdxg-roct  1.2.2  amd64  ROCDXG thunk") == wsl.LIBROCDXG


def test_wsl_mark():
    assert wsl.wsl_mark("$ ls /usr/lib/wsl/lib\nlibd3d12.so libdxcore.so") == "/usr/lib/wsl/lib"
    assert wsl.wsl_mark("crw-rw-rw- 1 root root 10, 125 Jun  1 10:00 /dev/dxg") is not None
    assert wsl.wsl_mark("Linux box 6.8.0-45-generic #45-Ubuntu SMP x86_64 GNU/Linux") is None
    assert wsl.wsl_mark("") is None


def test_detection_sets_wsl_and_userspace_from_pastes(tmp_path):
    (tmp_path / "dpkg.txt").write_text("Desired=Unknown/Install/Remove/Purge/Hold\n"
                                       "ii  hsa-runtime-rocr4wsl-amdgpu   24.30-2089753.24.04 amd64  HSA runtime for WSL\n")
    system = detect_snapshot(str(tmp_path))
    assert system.os.wsl is True
    assert system.os.wsl_userspace == wsl.ROCR4WSL
    assert "amd-wsl" in system.os.sources["wsl_userspace"]


def test_dxcore_listing_alone_says_wsl(tmp_path):
    (tmp_path / "ls.txt").write_text("$ ls /usr/lib/wsl/lib\nlibd3d12.so  libd3d12core.so  libdxcore.so\n")
    system = detect_snapshot(str(tmp_path))
    assert system.os.wsl is True and system.os.wsl_userspace is None
