"""Set AP (1123): ggml's device line ('Device 0: AMD Radeon Graphics, gfx1151 (0x1151), VMM: no, ...') read also when
journalctl's prefix stands before it: syslog's 'Feb 27 08:57:36 host ollama[2038]:' (the default short format) or
'2026-02-27T08:57:36+0100 host ollama[2038]:' (-o short-iso)."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot


def _targets(tmp_path, text):
    (tmp_path / "log.txt").write_text(text, encoding="utf-8")
    return {g.gfx_target for g in detect_snapshot(str(tmp_path)).amd_gpus if g.gfx_target}


@pytest.mark.parametrize("line,gfx", [
    # 1123's line
    ("Feb 27 08:57:36 h-2001-9b1-4610-fa00-9ebf-dff-fe01-e24.na.bahnhof.se ollama[2038]:   Device 0: AMD Radeon "
     "Graphics, gfx1151 (0x1151), VMM: no, Wave Size: 32, ID: 0\n", "gfx1151"),
    ("Jun  4 14:14:20 node ollama[220462]:   Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, "
     "Wave Size: 32\n", "gfx1100"),
    ("2026-02-27T08:57:36+0100 host ollama[2038]:   Device 0: AMD Radeon Graphics, gfx1151 (0x1151), VMM: no\n",
     "gfx1151"),
    # without a prefix, and with the process prefix alone (as before)
    ("  Device 0: AMD Radeon RX 9070 XT, gfx1201 (0x1201), VMM: no, Wave Size: 32\n", "gfx1201"),
    ("ollama[2038]:   Device 0: AMD Radeon Graphics, gfx1103 (0x1103), VMM: no\n", "gfx1103"),
])
def test_ggml_device_line_under_a_journal_prefix(tmp_path, line, gfx):
    assert gfx in _targets(tmp_path, line)


@pytest.mark.parametrize("line", [
    # the prefix with another message
    "Feb 27 08:57:36 host ollama[2038]: load_backend: loaded ROCm backend from /usr/local/lib/ollama/rocm/libggml-hip.so\n",
    # prose naming a device and a target
    "Feb 27 08:57:36 I think Device 0 is my gfx1151 card\n",
])
def test_near_misses_give_no_target(tmp_path, line):
    assert not _targets(tmp_path, line)
