"""doctor claims no more than the input shows: an unrelated file is 'no system' (exit 1), a thin
snapshot is not called healthy, and a real failure paste gets its findings."""
from __future__ import annotations

import json
from pathlib import Path

from rocm_wizard.cli import main
from rocm_wizard.doctor.evidence import described, missing
from rocm_wizard.exitcodes import ERROR, OK, PENDING
from rocm_wizard.model import GPU, System

REPO = Path(__file__).resolve().parents[2]
REAL = REPO / "tests" / "data" / "real"


def test_an_unrelated_file_describes_no_system(tmp_path, capsys):
    f = tmp_path / "notes.txt"
    f.write_text((REPO / "pyproject.toml").read_text(encoding="utf-8"), encoding="utf-8")
    rc = main(["doctor", "--snapshot", str(f)])
    out, err = capsys.readouterr()
    assert rc == ERROR and out == ""
    assert "describes no system" in err and "No known problem" not in err


def test_a_thin_snapshot_is_not_called_healthy(tmp_path, capsys):
    f = tmp_path / "uname.txt"
    f.write_text("$ uname -a\nLinux box 6.8.0-45-generic #45-Ubuntu SMP PREEMPT_DYNAMIC Fri Aug 30 12:02:04 UTC "
                 "2024 x86_64 x86_64 x86_64 GNU/Linux\n", encoding="utf-8")
    rc = main(["doctor", "--snapshot", str(f)])
    out, _err = capsys.readouterr()
    assert rc == OK
    assert "No known problem" not in out and "too little to call it healthy" in out
    rc = main(["doctor", "--snapshot", str(f), "--json"])
    doc = json.loads(capsys.readouterr()[0])
    assert doc["evidence"]["described"] == ["the operating system"]
    assert "which AMD GPU it is" in doc["evidence"]["missing"]


def test_a_real_failure_paste_is_diagnosed(capsys):
    rc = main(["doctor", "--snapshot", str(REAL / "121-nuc8-radeon540-atomics"), "--json"])
    doc = json.loads(capsys.readouterr()[0])
    assert rc == PENDING and "pcie-atomics-missing" in [f["id"] for f in doc["findings"]]


def test_described_and_missing():
    assert described(System()) == [] and "which AMD GPU it is" in missing(System())
    s = System()
    s.gpus.append(GPU(is_amd=True, gfx_target="gfx1100"))
    assert described(s) == ["1 GPU(s)"]
    assert missing(s) == ["the ROCm release or the PyTorch build"]
