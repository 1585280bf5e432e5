"""(s25) torchcodec's loader failure as its source prints it (failures.toml ``s25_torchcodec_cannot_load``:
meta-pytorch/torchcodec's load_torchcodec_shared_libraries collects one 'FFmpeg version N: <error>' per FFmpeg major it
tries, then raises 'RuntimeError: Could not load libtorchcodec. Likely causes: ...').  Each wording below is a real
paste, with the thread it is from; the near-misses are lines of the same pastes that are not the failure, and other
programs' FFmpeg lines."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import ids

ROW = "s25_torchcodec_cannot_load"


@pytest.mark.parametrize("line", [
    # Linux, conda env, torch 2.4 (SWivid/F5-TTS#1235)
    "RuntimeError: Could not load libtorchcodec. Likely causes:",
    "FFmpeg version 8: libavutil.so.60: cannot open shared object file: No such file or directory",
    # Windows venv, every major's library refused by torch's load_library (meta-pytorch/torchcodec#1143)
    " FFmpeg version 7: Could not load this library: G:\\Indextts2\\.venv\\Lib\\site-packages\\torchcodec\\"
    "libtorchcodec_core7.dll ",
    # ComfyUI's one-line relay of the whole message (meta-pytorch/torchcodec#998)
    "!!! Exception during processing !!! Could not load libtorchcodec. Likely causes: 1. FFmpeg is not properly "
    "installed in your environment. We support versions 4, 5, 6 and 7.",
    # pytest's 'E' prefix in a CI log (meta-pytorch/torchcodec#1046)
    "E       RuntimeError: Could not load libtorchcodec. Likely causes:",
])
def test_the_row_reads_torchcodecs_own_lines(line):
    assert ROW in ids(line)
    assert error_signatures.failure_layer(ROW) == "framework"


@pytest.mark.parametrize("line", [
    # the message's own advice lines (F5-TTS#1235) and the traceback's frame
    "          1. FFmpeg is not properly installed in your environment. We support",
    "    ffmpeg_major_version, core_library_path = load_torchcodec_shared_libraries()",
    # ffmpeg's own banner and an ordinary library listing
    "ffmpeg version 6.1.1-3ubuntu5 Copyright (c) 2000-2023 the FFmpeg developers",
    "\tlibavutil.so.58 (libc6,x86-64) => /lib/x86_64-linux-gnu/libavutil.so.58",
    # torchaudio's own refusal has its row (ih_torchaudio_torchcodec_required), not this one
    "ImportError: TorchCodec is required for load_with_torchcodec. Please install torchcodec to use this function.",
])
def test_near_misses_are_not_the_loader_failure(line):
    assert ROW not in ids(line)
