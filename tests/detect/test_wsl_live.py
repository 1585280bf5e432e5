"""Live detection under WSL 2, from files only (no command runs): a captured tree posing as WSL (the
kernel, /dev/dxg, /usr/lib/wsl/lib, the driver store, dpkg's status, a venv whose torch still carries its
own libhsa-runtime64), never the machine the tests run on."""
from __future__ import annotations

from _detect_core_support import FakeSource, FakeSystem

from rocm_wizard.detect import detect
from rocm_wizard.detect.parsers import wsl as p_wsl

WSL_KERNEL = "6.6.87.2-microsoft-standard-WSL2"


def _dpkg(*rows):
    out = []
    for name, ver in rows:
        out.append("Package: %s\nStatus: install ok installed\nPriority: optional\nArchitecture: amd64\n"
                   "Version: %s\nDescription: x\n" % (name, ver))
    return "\n".join(out) + "\n"


def _wsl_tree(tmp_path, packages=(), libs=("libdxcore.so", "libd3d12.so", "libd3d12core.so"), dxg=True):
    fs = FakeSystem(tmp_path).ubuntu("24.04", "noble", kernel=WSL_KERNEL)
    if dxg:
        fs.write("/dev/dxg", "")
    for lib in libs:
        fs.write("/usr/lib/wsl/lib/" + lib, "")
    fs.mkdir("/usr/lib/wsl/drivers/u0412345.inf_amd64_0123456789abcdef")
    fs.write("/var/lib/dpkg/status", _dpkg(*packages))
    return fs


def _detect(tmp_path, environ=None, venvs=()):
    src = FakeSource(str(tmp_path), dict(environ or {"PATH": "/usr/bin"}))
    return detect(src, venvs), src


def test_rocr4wsl_tree_with_a_wheel_that_keeps_its_own_runtime(tmp_path):
    fs = _wsl_tree(tmp_path, packages=[("hsa-runtime-rocr4wsl-amdgpu", "25.10-2209220.24.04")])
    site = fs.venv("/home/u/venv", torch="2.4.0+rocm6.3.4.git7cecbf6d", hip="6.3.42134")
    fs.write(site + "/torch/lib/libhsa-runtime64.so", "")
    fs.write(site + "/torch/lib/libhsa-runtime64.so.1", "")
    fs.write(site + "/torch/lib/libamdhip64.so", "")
    system, src = _detect(tmp_path, venvs=["/home/u/venv"])
    o = system.os
    assert o.wsl is True and o.wsl_version == "2" and o.wsl_dxg is True
    assert o.wsl_libs == ["libd3d12.so", "libd3d12core.so", "libdxcore.so"]
    assert o.wsl_userspace == p_wsl.ROCR4WSL and "hsa-runtime-rocr4wsl-amdgpu" in o.sources["wsl_userspace"]
    assert o.wsl_dxg_switch is None and o.windows_driver is None
    assert any("cannot be read from inside WSL" in n for n in o.notes)
    (t,) = [e for e in system.torch if e.path == "/home/u/venv"]
    assert t.bundled_hsa == ["libhsa-runtime64.so", "libhsa-runtime64.so.1"]
    native = FakeSystem(tmp_path / "native").ubuntu("24.04", "noble")
    native.venv("/home/u/venv", torch="2.4.0+rocm6.3.4.git7cecbf6d", hip="6.3.42134")
    _, nsrc = _detect(tmp_path / "native", venvs=["/home/u/venv"])
    assert set(src.ran) <= set(nsrc.ran)  # the WSL facts run no command: files, listings, the environment

    from rocm_wizard.doctor import diagnose
    ids = {f.id for f in diagnose(system).findings}
    assert "wsl-torch-own-hsa" in ids


def test_wheel_without_its_own_runtime_is_not_flagged(tmp_path):
    fs = _wsl_tree(tmp_path, packages=[("hsa-runtime-rocr4wsl-amdgpu", "25.10-2209220.24.04")])
    site = fs.venv("/home/u/venv", torch="2.4.0+rocm6.3.4.git7cecbf6d", hip="6.3.42134")
    fs.write(site + "/torch/lib/libamdhip64.so", "")
    system, _ = _detect(tmp_path, venvs=["/home/u/venv"])
    (t,) = [e for e in system.torch if e.path == "/home/u/venv"]
    assert t.bundled_hsa == []
    from rocm_wizard.doctor import diagnose
    assert "wsl-torch-own-hsa" not in {f.id for f in diagnose(system).findings}


def test_librocdxg_from_packages_or_a_built_library_and_the_switch(tmp_path):
    _wsl_tree(tmp_path / "a", packages=[("rocdxg-roct", "1.2.2")])
    system, _ = _detect(tmp_path / "a", environ={"PATH": "/usr/bin", "HSA_ENABLE_DXG_DETECTION": "1"})
    assert system.os.wsl_userspace == p_wsl.LIBROCDXG and system.os.wsl_dxg_switch == "1"
    assert system.os.sources["wsl_dxg_switch"] == "env:HSA_ENABLE_DXG_DETECTION"
    fs = _wsl_tree(tmp_path / "b")
    fs.write("/opt/rocm/lib/librocdxg.so", "")
    system, _ = _detect(tmp_path / "b")
    assert system.os.wsl_userspace == p_wsl.LIBROCDXG and system.os.sources["wsl_userspace"].startswith("file:/opt/rocm/lib/librocdxg.so")
    assert system.os.wsl_dxg_switch is None


def test_dxg_node_missing_is_said(tmp_path):
    _wsl_tree(tmp_path, dxg=False)
    system, _ = _detect(tmp_path)
    assert system.os.wsl is True and system.os.wsl_dxg is False


def test_native_linux_has_none_of_it(tmp_path):
    fs = FakeSystem(tmp_path).ubuntu("24.04", "noble")
    fs.write("/var/lib/dpkg/status", _dpkg(("rocm-core", "6.4.1.60401-83~24.04")))
    system, _ = _detect(tmp_path, environ={"PATH": "/usr/bin", "HSA_ENABLE_DXG_DETECTION": "1"})
    o = system.os
    assert o.wsl is False and o.wsl_dxg is None and o.wsl_libs == [] and o.wsl_dxg_switch is None
    assert o.wsl_version is None and o.wsl_userspace is None
