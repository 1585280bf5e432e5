"""Held-out set ID (tests/data/real/3330-3334, HELDOUT.md): a fifth theme-neutral sample of llama.cpp's AMD GPU issues
(ggml-org/llama.cpp, 2026).  Two fixtures led at their layer on the unchanged code (ggml's Vulkan back-end segfaulting
in libggml-vulkan.so, Vulkan's ErrorDeviceLost in a title).  Two rows were added for Windows' crash statuses as
threads tell them: the fail-fast status STATUS_STACK_BUFFER_OVERRUN (0xC0000409, the status of abort() on Windows) by its
name, its exit code or its message (3330), and the access-violation code in brackets after a crash word (3332); and a
native-Windows sign for llama.cpp's build line 'built with <compiler> for Windows x86_64' (3332's os_id).  3331, wrong
logits shown only by llama-perplexity's completed runs, stays a miss (test_known_failure.py MISSES).  A third row reads
llama-server's router losing the HTTP connection to a model instance ('srv    operator(): http client error: Failed to
read connection', tools/server/server-models.cpp), which the catch-all had read as an unrecognised failure on 3333."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.windows_facts import windows_sign
from rwtest import realrun
from rwtest.heldout import (assert_named_and_leads, fixture as _fixture, ids as _ids, lead_layer as _lead_layer,
                            problems as _problems)

FAIL_FAST = "id_windows_fail_fast_stack_buffer_overrun"
CRASH_AV = "id_windows_crash_access_violation_code"
ROUTER = "id_llama_server_router_proxy_http_error"


@pytest.mark.parametrize("num", ["3333", "3334"])
def test_the_set_id_fixtures_that_led_before_still_lead_at_framework(num):
    assert _lead_layer(_fixture(num)) == "framework"


@pytest.mark.parametrize("num,row", [("3330", FAIL_FAST), ("3332", CRASH_AV)])
def test_the_windows_crash_fixtures_are_named_and_lead_at_framework(num, row):
    assert_named_and_leads(num, row, "framework")


@pytest.mark.parametrize("text", [
    # the fixture's title (ggml-org/llama.cpp#26945)
    "Vulkan backend crash (STATUS_STACK_BUFFER_OVERRUN) when offloading 2+ repeating layers to GPU with qwen35moe",
    # Ollama's runner exit through Go's os/exec (fixture 2588's server log)
    'level=ERROR source=server.go:449 msg="llama runner terminated" error="exit status 0xc0000409"',
    # a launcher's exit code in decimal (fixture 1321's llama-server, fixture 2974)
    "llama-server exited with code 3221226505",
    "                    terminated unexpectedly with exit code: 3221226505",
    # FormatMessage's text behind Ollama's error (continuedev/continue#12799)
    "llama-server process has terminated: exit status 0xc0000409: The system detected an overrun of a stack-based "
    "buffer in this application.",
    # WinDbg's exception record at ucrtbase!abort (lmstudio-ai/lmstudio-bug-tracker#2149)
    "   ExceptionCode: c0000409 (Security check failure or stack buffer overrun)",
])
def test_the_fail_fast_row_reads_windows_fail_fast_status(text):
    assert FAIL_FAST in _ids(text)
    assert error_signatures.failure_layer(FAIL_FAST) == "framework"


@pytest.mark.parametrize("text", [
    # another status and the bare code keep out of the row
    "Error: llama runner process has terminated: exit status 0xc0000005",
    "STATUS_STACK_OVERFLOW in worker thread",
    "0xC0000409",
])
def test_near_misses_do_not_match_the_fail_fast_row(text):
    assert FAIL_FAST not in _ids(text)


@pytest.mark.parametrize("text", [
    # the fixture's title (ggml-org/llama.cpp#27560)
    "Eval bug: llama-server crashes (0xC0000005) on Windows/Vulkan with default ctx-checkpoints (Qwen3.8-27B)",
    # the code after the place of the crash (modelscope/FunASR#3479's title)
    "[Bug] Vulkan backend crashes on AMD GPUs on Windows (0xc0000005)",
    # the signed exit code in brackets
    "the server crashed on the first request (-1073741819)",
])
def test_the_crash_row_reads_a_crash_with_the_access_violation_code(text):
    assert CRASH_AV in _ids(text)
    assert error_signatures.failure_layer(CRASH_AV) == "framework"


@pytest.mark.parametrize("text", [
    # the code without a crash word, and a crash with another status
    "-1073741819",
    "crash report saved (0xC0000409)",
])
def test_near_misses_do_not_match_the_crash_row(text):
    assert CRASH_AV not in _ids(text)


@pytest.mark.parametrize("text", [
    # the fixture's version block (ggml-org/llama.cpp#27560)
    ".\\llama-server.exe --version\nversion: 0.2.0-dev (build 10586, commit b21e4de74)\n"
    "built with Clang 20.1.8 for Windows x86_64",
    # an older build naming the compiler's target triple (ggml-org/llama.cpp#14713)
    "version: 5884 (c31e6064)\nbuilt with clang version 19.1.5 for x86_64-pc-windows-msvc",
    # the start-up log's form
    "0.00.023.420 I cmn  common_param: common_params_print_info: build 10586 (b21e4de74) with Clang 20.1.8 for Windows x86_64",
])
def test_llama_cpp_windows_build_line_is_a_windows_sign(text):
    assert windows_sign(text)[0] == "llama_build_target"


@pytest.mark.parametrize("text", [
    "version: 9144 (4c1c3ac09)\nbuilt with GNU 15.2.0 for Linux x86_64",
    # MSVC builds print only the processor, which names no OS
    "version: 10021 (33a75f41)\nbuilt with MSVC 19.40 for x64",
])
def test_other_build_lines_are_no_windows_sign(text):
    assert windows_sign(text) is None


def test_the_router_line_is_no_longer_an_unrecognised_failure():
    ids = [i for i, _ in _problems(realrun.diagnosis(_fixture("3333")))]
    assert "unrecognised-failure" not in ids


@pytest.mark.parametrize("text", [
    # the fixture's router line (ggml-org/llama.cpp#23065)
    "srv    operator(): http client error: Failed to read connection",
    # the timestamped log line and the client's answer (ggml-org/llama.cpp#25396)
    "0.40.048.527 E srv    operator(): http client error: Failed to read connection",
    "proxy error: Failed to read connection",
    # cpp-httplib's Error::Connection text
    "srv    operator(): http client error: Could not establish connection",
])
def test_the_router_row_reads_the_proxy_http_error(text):
    assert ROUTER in _ids(text)
    assert error_signatures.failure_layer(ROUTER) == "framework"


@pytest.mark.parametrize("text", [
    # another program's logger and the router's ordinary request line
    "[Liber3] HTTP client error: Cannot connect to host",
    "srv  log_server_r: done request: POST /v1/chat/completions ::ffff:10.168.1.104 200",
])
def test_near_misses_do_not_match_the_router_row(text):
    assert ROUTER not in _ids(text)
