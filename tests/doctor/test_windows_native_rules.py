"""Rules resting on the Linux support list stay silent on a native Windows host, and still fire on Linux."""
from pathlib import Path

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.doctor import diagnose

PASTE = """### Environment
- {os_line}
- GPU: AMD Radeon RX 7600 XT (gfx1102)
- ROCm: 6.0.0
"""


def _ids(tmp_path: Path, os_line: str):
    (tmp_path / "description.txt").write_text(PASTE.format(os_line=os_line))
    system = detect_snapshot(str(tmp_path))
    return system, {f.id for f in diagnose(system).findings}


def test_silent_on_native_windows(tmp_path):
    system, ids = _ids(tmp_path, "OS: Windows 11")
    assert system.os.windows_native is True
    assert "rocm-too-old-for-gpu" not in ids


def test_still_fires_on_linux(tmp_path):
    system, ids = _ids(tmp_path, "OS: Ubuntu 24.04")
    assert system.os.windows_native is None
    assert "rocm-too-old-for-gpu" in ids


HIP_FORM = """### Environment
- {os_line}
- GPU: AMD Radeon RX 6700 XT
- torch 2.9.0+rocm6.4

RuntimeError: HIP error: invalid device function
"""


def test_no_hsa_override_advice_on_native_windows(tmp_path):
    """HSA_OVERRIDE_GFX_VERSION is read by the Linux thunk (ROCT topology.c, /sys/class/kfd): on native
    Windows HIP never reads it, so the community override is not offered there."""
    (tmp_path / "issue.txt").write_text(HIP_FORM.format(os_line="OS: Windows 11"))
    ids = {f.id for f in diagnose(detect_snapshot(str(tmp_path))).findings}
    assert "hsa-override-missing" not in ids
    assert "no-binary-for-gpu" in ids


def test_hsa_override_advice_still_on_linux(tmp_path):
    (tmp_path / "issue.txt").write_text(HIP_FORM.format(os_line="OS: Ubuntu 24.04"))
    ids = {f.id for f in diagnose(detect_snapshot(str(tmp_path))).findings}
    assert "hsa-override-missing" in ids
