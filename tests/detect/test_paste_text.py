"""A paste copied out of a web page, a chat or a mail is read as the program printed it
(src/rocm_wizard/detect/paste_text.py): real fixtures re-rendered the ways other sites carry them
(no-break spaces, curly quotes, HTML entities, reply quote marks, escaped line breaks; the renderings
of scripts/paste_renderings.py) keep doctor's lead layer, and what only looks like a rendering (a
Python prompt, a Windows path, an ampersand) is left as it is."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from rocm_wizard.detect import error_signatures
from rocm_wizard.detect.paste_text import normalise
from rwtest.heldout import fixture, lead_layer

_SPEC = importlib.util.spec_from_file_location(
    "paste_renderings", Path(__file__).resolve().parents[2] / "scripts" / "paste_renderings.py")
renderings = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(renderings)  # type: ignore[union-attr]

UNDONE = ["nbsp", "smart_quotes", "entities", "reply_quote", "escaped_breaks", "compose", "ci_timestamps",
          "kubectl_prefix", "journal_service"]
# fixtures of every layer that lost their layer under at least one of these renderings before paste_text
SAMPLE = ["204", "2324", "2331", "2373", "1104", "1361", "410", "515"]


@pytest.mark.parametrize("rendering", UNDONE)
def test_rendered_fixtures_keep_their_lead_layer(tmp_path, rendering):
    for num in SAMPLE:
        folder = fixture(num)
        stored = lead_layer(folder)
        assert stored is not None, num
        copy = renderings.render(folder, tmp_path, renderings.RENDERINGS[rendering])
        assert lead_layer(copy) == stored, (rendering, num)


@pytest.mark.parametrize("line,row", [
    # a line of a real fixture (1361, 2331) as a web page with no-break spaces and curly quotes carries it
    ("ImportError:\u00a0libamdhip64.so.6:\u00a0cannot\u00a0open\u00a0shared\u00a0object\u00a0file:\u00a0No\u00a0such"
     "\u00a0file\u00a0or\u00a0directory", "shared_object_missing_import"),
    ("RuntimeError: HIP error: invalid device function\u2028next", "no_binary_for_gpu"),
    ("&gt; hipErrorNoBinaryForGpu: Unable to find code object for all current devices!", "no_binary_for_gpu"),
    ("{\"log\":\"rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or "
     "directory\\nrocBLAS error: Could not initialize Tensile host:\\nregex_error(error_backtracking)\\n\\n\"}",
     "tensile"),
])
def test_a_rendered_line_is_read_as_printed(line, row):
    text = normalise(line)
    assert "\u00a0" not in text and "&gt;" not in text
    found = {s.id for s, _ in error_signatures.scan(text)}
    assert any(row in sid for sid in found), found


def test_each_rendering_is_undone_exactly():
    printed = "hipErrorNoBinaryForGpu: 'gfx1103' \"x\" <a> & done\n  next line"
    assert normalise(renderings.nbsp(printed)) == printed
    assert normalise(renderings.smart_quotes(printed)) == printed
    assert normalise(renderings.entities(printed)) == printed
    assert normalise(renderings.reply_quote(printed)) == printed
    # (the escaped form of a text of three lines or more: a one-line JSON string of a whole log)
    three = printed + "\nthird\nfourth"
    assert normalise(renderings.escaped_breaks(three)) == three
    assert normalise("\uff32untime\uff25rror\uff1a x") == "RuntimeError: x"
    for rendering in ("compose", "ci_timestamps", "kubectl_prefix"):
        assert normalise(renderings.RENDERINGS[rendering](three)) == three, rendering


@pytest.mark.parametrize("pasted,printed", [
    # BuildKit's plain progress (moby/buildkit progressui printer.go: "#%d %s" with the step's seconds)
    ("#12 5.217 CMake Error at CMakeLists.txt:12 (find_package):", "CMake Error at CMakeLists.txt:12 (find_package):"),
    # kubectl logs --prefix --timestamps: the pod, then the stamp
    ("[pod/ollama-5c9/ollama] 2025-01-02T03:04:05.678901234Z Error: no ROCm devices", "Error: no ROCm devices"),
    # docker logs -t with an offset instead of Z
    ("2025-01-02T03:04:05+01:00 RuntimeError: No HIP GPUs are available", "RuntimeError: No HIP GPUs are available"),
    # a tool's "Key Name: value" line behind a stamp is not journalctl's "<host> <process>[pid]: " (rocminfo's field)
    ("2026-03-01T10:11:05.1234567Z Runtime Version:         1.18", "Runtime Version:         1.18"),
])
def test_a_collector_prefix_is_stripped(pasted, printed):
    assert normalise(pasted) == printed


def test_compose_lines_are_stripped_only_where_they_are_most_of_the_text():
    logs = "ollama-1  | time=x level=ERROR msg=a\nollama-1  | b\nwebui-1   | c\n"
    assert normalise(logs) == "time=x level=ERROR msg=a\nb\nc\n"
    # a user's own table whose first column happens to end in a number: one row among prose is kept
    table = "The GPUs:\nMI300X-1 | gfx942\nsee above\nand below\nand more\nmore\n"
    assert normalise(table) == table


@pytest.mark.parametrize("text", [
    ">>> import torch\n>>> torch.cuda.is_available()\nFalse",       # a Python prompt, not a quote
    ">>>>>>> branch\n=======",                                        # a merge marker
    "C:\\new\\nvidia\\next\\nodes\\n1 not found",                      # a Windows path, not escaped breaks
    "printf(\"a\\nb\") failed",                                        # too few escaped breaks to be an output
    "R&D & friends; AT&T;",                                           # ampersands that are no entity
    "torch>=2.4 -> ok",
    "plain ASCII text\nwith two lines",
    # journalctl -o short-iso: host and process after the stamp say whose line it is (the kernel's)
    "2026-02-27T08:57:36+0100 host kernel: amdgpu 0000:03:00.0: amdgpu: ring gfx timeout",
    # dmesg --time-format iso (a comma before the fraction): the kernel log reader reads it whole
    "2024-01-02T03:04:05,123456+01:00 amdgpu 0000:03:00.0: amdgpu: ring gfx timeout",
])
def test_what_only_looks_like_a_rendering_is_left(text):
    assert normalise(text) == text


def test_nested_quotes_and_a_quoted_python_prompt():
    assert normalise("> > [   3.1] amdgpu: ring gfx timeout\n> >>> x") == "[   3.1] amdgpu: ring gfx timeout\n>>> x"


def test_an_ascii_text_comes_back_unchanged_and_is_the_same_object():
    text = "amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout\n" * 50
    assert normalise(text) is text


def test_the_error_log_option_reads_a_rendered_log(tmp_path):
    from rocm_wizard.commands.doctor import _read_error_log

    log = tmp_path / "log.txt"
    log.write_text("&gt;\u00a0RuntimeError:\u00a0No\u00a0HIP\u00a0GPUs\u00a0are\u00a0available\n", encoding="utf-8")
    assert _read_error_log(str(log)) == "RuntimeError: No HIP GPUs are available\n"


# -- a service's lines in the journal -----------------------------------------------------------------------------------
def test_a_service_s_journal_line_is_read_by_the_catalogue_with_its_line_as_pasted(tmp_path):
    from rocm_wizard.detect import detect_snapshot

    # (Ollama under systemd loading ROCr on a GPU it does not know: the row quotes ROCr's line from its start)
    pasted = [
        "Mar 01 10:11:12 box ollama[4242]: time=2026-03-01T10:11:12.000Z level=INFO source=gpu.go:217 msg=\"looking\"",
        "Mar 01 10:11:12 box ollama[4242]: ROCR: unsupported GPU",
    ]
    (tmp_path / "journal.txt").write_text("\n".join(pasted) + "\n", encoding="utf-8")
    plain = {s.id for s, _ in error_signatures.scan("\n".join(pasted))}
    found = {(e.signature, e.text) for e in detect_snapshot(str(tmp_path)).errors}
    hidden = {sid for sid, text in found if sid not in plain and sid != "unrecognised"}
    assert hidden, found  # rows the prefix hid from the scan of the text as pasted
    assert all(text in pasted for sid, text in found if sid in hidden)


def test_a_traceback_header_in_the_journal_is_no_failure(tmp_path):
    from rocm_wizard.detect import detect_snapshot

    (tmp_path / "journal.txt").write_text(
        "Mar 01 10:11:12 box python3[4242]: Traceback (most recent call last):\n"
        "Mar 01 10:11:12 box python3[4242]:   File \"/srv/app/main.py\", line 3, in <module>\n"
        "Mar 01 10:11:12 box python3[4242]: RuntimeError: No HIP GPUs are available\n", encoding="utf-8")
    texts = [e.text for e in detect_snapshot(str(tmp_path)).errors]
    assert not any("Traceback" in t for t in texts), texts
    assert any("No HIP GPUs" in t for t in texts), texts


def test_a_services_journal_pasted_whole_loses_the_prefix_for_every_reader(tmp_path):
    """(s25) a traceback a service logged, as journalctl -u shows it (three lines and more, most of the paste): each
    line then starts as Python printed it -- the catch-all reads the traceback's end, the catalogue its error line --
    and the kernel's lines beside it keep journalctl's prefix."""
    from rocm_wizard.detect import detect_snapshot

    pasted = ("Mar 01 10:11:12 box python3[4242]: Traceback (most recent call last):\n"
              "Mar 01 10:11:12 box python3[4242]:   File \"/srv/app/main.py\", line 3, in <module>\n"
              "Mar 01 10:11:12 box python3[4242]:     torch.zeros(1).cuda()\n"
              "Mar 01 10:11:12 box python3[4242]: RuntimeError: HIP error: invalid device function\n"
              "Mar 01 10:11:13 box kernel: amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout\n")
    text = normalise(pasted)
    assert text.startswith("Traceback (most recent call last):\n  File \"/srv/app/main.py\"")
    assert "\nRuntimeError: HIP error: invalid device function\n" in text
    assert "Mar 01 10:11:13 box kernel: amdgpu" in text
    (tmp_path / "journal.txt").write_text(pasted, encoding="utf-8")
    found = {(e.signature, e.text) for e in detect_snapshot(str(tmp_path)).errors}
    assert ("no_binary_for_gpu", "RuntimeError: HIP error: invalid device function") in found, found


@pytest.mark.parametrize("pasted", [
    # two lines only (the catalogue reads them a second time without the prefix: the test above this one's pair)
    "Mar 01 10:11:12 box ollama[4242]: ROCR: unsupported GPU\nMar 01 10:11:12 box ollama[4242]: Error: x\n",
    # three journal lines among many more lines of another output
    "\n".join(["rocminfo line %d" % i for i in range(8)]
              + ["Mar 01 10:11:12 box ollama[1]: a", "Mar 01 10:11:12 box ollama[1]: b", "Mar 01 10:11:12 box ollama[1]: c"]),
    # the kernel's lines (journalctl -k): its own readers take the prefix
    "\n".join("Mar 01 10:11:%02d box kernel: amdgpu 0000:03:00.0: amdgpu: x%d" % (i, i) for i in range(5)),
])
def test_a_journal_that_is_not_most_of_the_paste_keeps_its_prefix(pasted):
    assert normalise(pasted) == pasted


@pytest.mark.parametrize("text,want", [
    ("avril 30 18:16:51 host ollama[2038]: Error: x\n", "Error: x\n"),
    ("2026-02-27T08:57:36+0100 host comfyui[77]: RuntimeError: y", "RuntimeError: y"),
    ("Mar 01 10:11:12 host kernel: amdgpu 0000:03:00.0: amdgpu: z", None),  # the kernel's lines keep theirs
    ("no journal here", None),
])
def test_journal_messages(text, want):
    from rocm_wizard.detect.paste_text import journal_messages

    assert journal_messages(text) == want


# -- a hard-wrapped paste -----------------------------------------------------------------------------------------------
def test_a_hard_wrapped_line_is_read_by_the_catalogue_as_pasted(tmp_path):
    from rocm_wizard.detect import detect_snapshot

    printed = [
        "[  812.318062] amdgpu 0000:03:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32769)",
        "[  812.318070] amdgpu 0000:03:00.0: amdgpu:  in process python3 pid 4242 thread python3 pid 4242",
        "[  812.318075] amdgpu 0000:03:00.0: amdgpu:   in page starting at address 0x00007f1c2a000000 from client 0x1b (UTCL2)",
        "Memory access fault by GPU node-1 (Agent handle: 0x5581e0d2b0c0) on address 0x7f1c2a000000. Reason: Page not present or supervisor privilege.",
    ]
    wrapped = renderings.wrapped80("\n".join(printed))
    (tmp_path / "log.txt").write_text(wrapped, encoding="utf-8")
    whole = {s.id for s, _ in error_signatures.scan("\n".join(printed))}
    cut = {s.id for s, _ in error_signatures.scan(wrapped)}
    found = {(e.signature, e.text) for e in detect_snapshot(str(tmp_path)).errors}
    assert whole - cut, "the wrap hides no row: the test reads nothing"
    assert (whole - cut) <= {sid for sid, _t in found}, found
    assert all(t in wrapped.split("\n") for sid, t in found if sid in whole - cut)


@pytest.mark.parametrize("text", [
    "short\nlines\n",
    "=" * 80 + "\n" + "=" * 80 + "\n" + "=" * 80 + "\n",                     # a table's rules
    "GPU  Temp   AvgPwr".ljust(80, " ").rstrip() + "\n" + "x" * 70 + "\n",    # one line at its width
])
def test_what_is_not_hard_wrapped_is_not_unwrapped(text):
    from rocm_wizard.detect.paste_text import unwrapped

    assert unwrapped(text) is None


# -- a file saved on the Windows side -----------------------------------------------------------------------------------
@pytest.mark.parametrize("encoding,bom", [("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"), ("utf-8", b"\xef\xbb\xbf")])
def test_a_paste_with_a_byte_order_mark_is_read(tmp_path, encoding, bom):
    # (Windows PowerShell 5's '>' writes UTF-16LE with its mark; the text is fixture 2432's title line)
    from rocm_wizard.detect import detect_snapshot

    line = "RuntimeError: HIP error: no kernel image is available for execution on the device\r\n"
    (tmp_path / "out.txt").write_bytes(bom + line.encode(encoding))
    sigs = {e.signature for e in detect_snapshot(str(tmp_path)).errors}
    assert "hip_no_kernel_image" in sigs, sigs


def test_the_error_log_option_reads_utf16(tmp_path):
    from rocm_wizard.commands.doctor import _read_error_log

    log = tmp_path / "log.txt"
    log.write_bytes(b"\xff\xfe" + "RuntimeError: No HIP GPUs are available\n".encode("utf-16-le"))
    assert _read_error_log(str(log)) == "RuntimeError: No HIP GPUs are available\n"


def test_nul_bytes_without_a_mark_are_still_no_text(tmp_path):
    from rocm_wizard.detect import detect_snapshot
    from rocm_wizard.detect.bundle import SnapshotError

    (tmp_path / "blob.bin.txt").write_bytes(b"\x00\x01\x02RuntimeError: HIP error: invalid device function\x00" * 20)
    with pytest.raises(SnapshotError):
        detect_snapshot(str(tmp_path))
