"""(s12-heldau, 1226) CLR's device set-up line at AMD_LOG_LEVEL 3, 'Gfx Major/Minor/Stepping: M/m/s', gives a GPU of
target gfx<M><m><s> (minor and stepping one hex digit each); other files' wordings and prose are not read."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import detect_snapshot


def _targets(tmp_path, text):
    (tmp_path / "log.txt").write_text(text, encoding="utf-8")
    return {g.gfx_target for g in detect_snapshot(str(tmp_path)).amd_gpus if g.gfx_target}


@pytest.mark.parametrize("line,gfx", [
    # 1226 (TheRock's Windows CI, with the device id of newer releases)
    ("2026-04-16T13:12:43.9449715Z ERROR    test_rocm_sanity:test_rocm_sanity.py:44 :3:rocdevice.cpp            :1703: "
     "131912687456 us: [pid:13124 tid: 0xff6e6] Gfx Major/Minor/Stepping: 11/5/0, Device ID: 0x1586", "gfx1150"),
    (":3:rocdevice.cpp            :1610: 0031270737 us: [pid:403 tid: 0x7b6b4eeeef80] Gfx Major/Minor/Stepping: 11/5/1",
     "gfx1151"),
    (":3:rocdevice.cpp            :1680: 15186578901 us: [pid:27431 tid:0x7f21a7842000] Gfx Major/Minor/Stepping: 10/3/0",
     "gfx1030"),
    (":3:rocdevice.cpp            :1635: 6744386171 us: [pid:25927 tid: 0x7ff8286d8740] Gfx Major/Minor/Stepping: 9/0/10",
     "gfx90a"),
])
def test_clrs_isa_line_gives_the_target(tmp_path, line, gfx):
    assert _targets(tmp_path, line + "\n") == {gfx}


@pytest.mark.parametrize("line", [
    "GPU arch confirmed: AMD_LOG_LEVEL=3 shows native gfx90a dispatch (Gfx Major/Minor/Stepping 9/0/10).",  # prose
    "IsaVersion: General helper for extracting GFX major/minor/stepping",  # a source comment
    ":3:rocdevice.cpp            :1612: 0031270738 us: [pid:403 tid: 0x7b6b4eeeef80] HMM support: 0, XNACK: 0",
])
def test_other_lines_give_no_target(tmp_path, line):
    assert _targets(tmp_path, line + "\n") == set()
