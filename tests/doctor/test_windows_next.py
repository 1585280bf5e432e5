"""On a native Windows host doctor names commands that run there (doctor/windows.toml): the catalogue's
Linux commands (dmesg, rocminfo, /opt/rocm, POSIX pipes and VAR=value prefixes) are dropped, cmd.exe
spellings become PowerShell's, the layer's Windows commands are added; Linux and WSL hosts keep theirs."""
from pathlib import Path

import pytest

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.detect import error_signatures, failure_lines
from rocm_wizard.doctor import diagnose, evidence, windows_next

REAL = Path(__file__).resolve().parents[1] / "data" / "real"

# an issue form's environment block and a HIP error line, as a Windows and as a Linux user types them
FORM = """### Environment
- {os_line}
- GPU: AMD Radeon RX 7900 XTX
- torch 2.10.0+rocm7.12

### Error
RuntimeError: HIP error: invalid device function
"""


def _diagnose(tmp_path: Path, os_line: str):
    (tmp_path / "issue.txt").write_text(FORM.format(os_line=os_line))
    system = detect_snapshot(str(tmp_path))
    return system, diagnose(system)


def _commands(diag):
    return [c for f in diag.findings for c in f.next_commands]


@pytest.mark.parametrize("command", [
    "sudo dmesg | grep -iE 'amdgpu|drm|kfd'",
    "rocminfo",
    "rocminfo 2>/dev/null | grep -m2 gfx",
    "ls -l /dev/kfd /dev/dri; id",
    "AMD_LOG_LEVEL=3 <the failing command> 2>&1 | tail -40",
    "uname -r; cat /sys/module/amdgpu/version 2>/dev/null; dkms status",
    "amd-smi static --asic --driver",
    "apt-cache policy rocm-core amdgpu-dkms; ls /etc/apt/sources.list.d",
    "pip list 2>/dev/null | grep -iE 'torch|triton|rocm'",
    "ldd $(which llama-server) | grep -E 'amdhip64|hipblas|rocblas' (Linux)",
    "WSL: the Adrenalin version (Windows) and dmesg | grep -i dxg",
])
def test_linux_commands_are_known_as_linux(command):
    assert windows_next.linux_only(command)


@pytest.mark.parametrize("command", [
    "python -m torch.utils.collect_env",
    "python -c 'import torch; print(torch.cuda.get_arch_list())'",
    "hipInfo (HIP SDK or TheRock) to list the GPUs HIP sees and their order",
    "where amdhip64_7.dll",
    "rocm-sdk version; rocm-sdk targets",
    "hipconfig --full",
    # near-misses: a program's name inside another word is not that program
    "python -m pip show rocm-sdk-core   # its repo-id",
    "python -m pip show amd-smi-lib",
])
def test_windows_runnable_commands_are_kept(command):
    assert not windows_next.linux_only(command)


def test_cmd_spellings_become_powershell():
    assert windows_next.rewrite("where amdhip64_7.dll") == "where.exe amdhip64_7.dll"
    assert windows_next.rewrite('echo %HIP_PATH% & dir "%HIP_PATH%\\bin\\*.dll"') == \
        'echo $env:HIP_PATH; dir "$env:HIP_PATH\\bin\\*.dll"'
    assert windows_next.rewrite('pip list 2>NUL | findstr /i "rocm torch"') == 'pip list 2>$null | findstr /i "rocm torch"'
    assert windows_next.rewrite('set | findstr /i "MIOPEN ZLUDA"') == 'Get-ChildItem env: | findstr /i "MIOPEN ZLUDA"'
    assert windows_next.rewrite("echo HIP_VISIBLE_DEVICES=$HIP_VISIBLE_DEVICES") == \
        "echo HIP_VISIBLE_DEVICES=$env:HIP_VISIBLE_DEVICES"
    # already PowerShell: unchanged
    assert windows_next.rewrite("$env:AMD_LOG_LEVEL = 3; <the failing command>") == "$env:AMD_LOG_LEVEL = 3; <the failing command>"


def test_windows_table_is_consistent():
    t = windows_next.table()
    assert set(failure_lines.LAYERS) <= set(t.next_commands)
    for layer in failure_lines.table().next_commands:  # every layer the catch-all names has Windows commands
        assert t.next_commands.get(layer), layer
    for cmds in list(t.next_commands.values()) + list(t.ask.values()):
        for cmd in cmds:
            assert cmd == windows_next.rewrite(cmd), cmd
    assert set(t.ask) == set(evidence.ASK)
    assert t.sources and all(v.strip() for v in t.sources.values())


def test_adapt_drops_linux_adds_layer_and_caps():
    rows_linux = ["sudo dmesg | grep -iE 'amdgpu|drm|kfd'", "lspci -nnk -d 1002:", "rocminfo"]
    out = windows_next.adapt(rows_linux + ["where amdhip64_7.dll"], "kernel")
    assert out[0] == "where.exe amdhip64_7.dll"
    assert not any(windows_next.linux_only(c) for c in out)
    assert any("Win32_VideoController" in c for c in out)
    many = ["tool%d --version" % i for i in range(10)]
    assert len(windows_next.adapt(many, "runtime")) == windows_next.MAX_COMMANDS
    # the same python -c quoted either way is given once
    q = windows_next.adapt(["python -c 'import torch; print(torch.__version__, torch.version.hip, "
                            "torch.cuda.is_available())'"], "framework")
    assert len([c for c in q if "torch.cuda.is_available()" in c]) == 1


def test_native_windows_paste_gets_windows_commands(tmp_path):
    system, diag = _diagnose(tmp_path, "OS: Windows 11")
    assert system.os.windows_native is True
    cmds = _commands(diag)
    assert cmds, [f.id for f in diag.findings]
    assert not [c for c in cmds if windows_next.linux_only(c)]
    assert any("hipInfo.exe" in c or "rocm-sdk" in c or "Win32_VideoController" in c for c in cmds)


def test_linux_paste_keeps_linux_commands(tmp_path):
    system, diag = _diagnose(tmp_path, "OS: Ubuntu 24.04")
    assert system.os.windows_native is None
    cmds = _commands(diag)
    assert any(windows_next.linux_only(c) for c in cmds)
    assert not any("Win32_VideoController" in c or "Select-String" in c for c in cmds)


def test_wsl_is_linux(tmp_path):
    (tmp_path / "uname.txt").write_text(
        "Linux DESKTOP-1 6.6.87.2-microsoft-standard-WSL2 #1 SMP PREEMPT_DYNAMIC x86_64 GNU/Linux\n")
    (tmp_path / "error.txt").write_text("RuntimeError: HIP error: invalid device function\n")
    system = detect_snapshot(str(tmp_path))
    assert not windows_next.windows_host(system)
    assert not any("Win32_VideoController" in c for c in _commands(diagnose(system)))


@pytest.mark.parametrize("number", ["972", "992", "738"])
def test_real_windows_fixtures(number):
    folder = next(REAL.glob(number + "-*"))
    system = detect_snapshot(str(folder))
    assert system.os.windows_native is True
    diag = diagnose(system)
    cmds = _commands(diag)
    assert cmds
    assert not [c for c in cmds if windows_next.linux_only(c)], cmds
    # the ways out say why they do not apply: Linux plans, and what AMD's route on Windows is
    blocked = [r for r in diag.recommendations if not r.applies]
    assert blocked and all("native Windows host" in r.why for r in blocked)


def test_ask_on_windows_names_windows_commands(tmp_path):
    (tmp_path / "issue.txt").write_text("OS: Windows 11\nRuntimeError: HIP error: invalid device function\n")
    system = detect_snapshot(str(tmp_path))
    assert system.os.windows_native is True
    asked = evidence.ask(system)
    assert asked and not [c for c in asked if windows_next.linux_only(c)]
    assert any("Win32_VideoController" in c for c in asked)


def test_ask_on_linux_is_unchanged(tmp_path):
    (tmp_path / "issue.txt").write_text("OS: Ubuntu 24.04\nRuntimeError: HIP error: invalid device function\n")
    system = detect_snapshot(str(tmp_path))
    assert evidence.ask(system)[0] == "lspci -nn -d 1002:"


def test_catalogue_rows_run_somewhere_on_windows():
    """Every catalogue row's commands, adapted for Windows, leave at least the layer's Windows commands."""
    for row in error_signatures.FAILURES:
        out = windows_next.adapt(list(row.next), row.layer)
        assert out and not [c for c in out if windows_next.linux_only(c)], row.id
