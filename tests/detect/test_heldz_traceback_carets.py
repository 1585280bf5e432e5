"""(s10-heldz, set Z's 858) Python 3.11+ prints, under a traceback frame's source line, the error location as a
line of tildes and carets (Lib/traceback.py: '    ~~~~~~~~^^'); a tilde Markdown fence ('~~~', '~~~python')
is another thing.  The caret line must not end a paste's segment: the traceback stays whole, with its exception."""
from __future__ import annotations

from rocm_wizard.detect import recognize
from rocm_wizard.detect.parsers import _core_text

TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "C:\\AI\\sd-webui-forge-neo\\modules\\memmon.py", line 60, in run\n'
    "    free, total = self.cuda_mem_get_info()\n"
    "                  ~~~~~~~~~~~~~~~~~~~~~~^^\n"
    '  File "C:\\AI\\venv\\Lib\\site-packages\\torch\\cuda\\memory.py", line 897, in mem_get_info\n'
    "    return torch.cuda.cudart().cudaMemGetInfo(device)\n"
    "           ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~^^^^^^^^\n"
    "    x = a[i]\n"
    "        ~^^^\n"
    "torch.AcceleratorError: HIP error: unspecified launch failure\n"
)


def test_caret_lines_do_not_split_a_traceback():
    segs = recognize.split(TRACEBACK)
    assert len(segs) == 1, segs
    assert "memory.py" in segs[0][2] and "HIP error: unspecified launch failure" in segs[0][2]


def test_tilde_fences_still_end_segments():
    text = "~~~\n  Marketing Name: AMD Radeon RX 9070 XT\n~~~\nsome prose\n~~~python\nprint(1)\n~~~~\n"
    bodies = [body for _label, _cmd, body in recognize.split(text)]
    assert any("  Marketing Name: AMD Radeon RX 9070 XT" in b and "some prose" not in b for b in bodies), bodies
    for fence in ("~~~", "~~~python", "  ~~~~", "```", "```shell"):
        assert recognize._FENCE.match(fence) and _core_text._FENCE.match(fence), fence
    for caret in ("                  ~~~~~~~~^^", "        ~^^^", "~~~^~~~~"):
        assert not recognize._FENCE.match(caret) and not _core_text._FENCE.match(caret), caret
