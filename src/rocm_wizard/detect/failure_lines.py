"""Lines that look like a failure, and the layer of the stack each belongs to (data:
``failure_lines.toml``).

The errors probe records every known error text (``error_signatures``); a line that looks like an
error but that no known text matches is recorded too, as an ``unrecognised`` sighting with its
layer, so that ``doctor`` never calls a system healthy while its pastes show a failure it cannot
name.  Linear in the input: a substring pre-check on the lower-cased line before any regular
expression, and a cap on the lines kept.
"""
from __future__ import annotations

import functools
import os
import re
from typing import Dict, List, Optional, Sequence, Tuple

LAYERS = ("firmware", "kernel", "runtime", "hip", "libraries", "framework", "packaging")
MAX_LINE = 500  # characters of a line kept
MAX_LINES = 60  # unrecognised lines kept per run (the first ones, deduplicated)
_SCAN_LINE = 4000  # longer lines are cut before matching (a binary blob is no error message)


class _Table:
    # word_rx, benign_rx, layers and shape_rx are compiled when first used (__getattr__): a kernel
    # log with no line that names the GPU stack, the common case of a live detection, needs none
    # or only the first of them

    def __init__(self, data: dict) -> None:
        words = [str(w).lower() for w in data.get("words", [])]
        self._words = words
        self._data = data
        # (the words' literal text, and what a word pattern that holds none of the words starts from: a line without
        # one of these is no failure line)
        self.needles = tuple(sorted(set(w.replace("\\b", "") for w in words)
                                    | set(str(n).lower() for n in data.get("word_pattern_needles", []))))
        self.listing_kinds = frozenset(data.get("listing_kinds", []))
        self.kernel_log_kinds = frozenset(data.get("kernel_log_kinds", []))
        self.generic_kinds = frozenset(data.get("generic_kinds", []))
        self.kernel_words = tuple(str(w).lower() for w in data.get("kernel_log_words", []))
        for row in data.get("layer", []):
            if row.get("layer") not in LAYERS:
                raise ValueError("failure_lines.toml: unknown layer %r" % row.get("layer"))
        self.kind_layer: Dict[str, str] = dict(data.get("kind_layer", {}))
        self.tool_kinds = frozenset(data.get("tool_output_kinds", []))
        self.prose_words = tuple(str(w).lower() for w in data.get("prose_stack_words", []))
        self.next_commands: Dict[str, List[str]] = {k: list(v) for k, v in data.get("next_commands", {}).items()}
        self.frame_layer: Dict[str, str] = {str(k).lower(): v for k, v in data.get("frame_package_layer", {}).items()}
        for v in self.frame_layer.values():
            if v not in LAYERS:
                raise ValueError("failure_lines.toml: unknown layer %r" % v)

    def __getattr__(self, name: str):
        data = self._data
        if name == "word_rx":
            value = re.compile("|".join([r"(?<![\w-])(?:%s)(?![\w-])" % "|".join(re.escape(w) for w in self._words)]
                                        + ["(?:%s)" % p for p in data.get("word_patterns", [])]), re.I)
        elif name == "benign_rx":
            value = re.compile("|".join("(?:%s)" % b for b in data.get("benign", [])), re.I)
        elif name == "layers":
            value = [(row["layer"], re.compile(row["pattern"], re.I)) for row in data.get("layer", [])]
        elif name == "listing_failure_rx":
            value = re.compile("|".join("(?:%s)" % p for p in data.get("listing_failure_shapes", [])) or r"(?!x)x", re.I)
        elif name == "shape_rx":
            value = re.compile("|".join("(?:%s)" % p for p in data.get("message_shapes", [])), re.I)
        elif name == "_layer_rows":  # [(layer, pattern text, flags)], compiled one by one (layer_in)
            value = [(row["layer"], row["pattern"]) for row in data.get("layer", [])]
            self._layer_rx = [None] * len(value)
        else:
            raise AttributeError(name)
        setattr(self, name, value)
        return value

    def layer_in(self, text: str) -> Optional[str]:
        """The layer of the first row of the table whose pattern ``text`` matches, else None: what
        ``for layer, rx in self.layers`` finds, each row's pattern compiled only when a line gets to
        it (a line the first rows place costs no compiling of the others).  (s19) An answer is kept for
        the same text (at most _LAYER_MEMO of them): a line repeated through a paste, and the lines above
        each copy that place it, cost one pass of the rows (2000 copies of one unplaced line took 4.6 s)."""
        memo = self.__dict__.get("_layer_memo")
        if memo is None:
            memo = self._layer_memo = {}
        try:
            return memo[text]
        except (KeyError, TypeError):
            pass
        layer = self._layer_in(text)
        if len(memo) >= _LAYER_MEMO:
            memo.clear()
        memo[text] = layer
        return layer

    def _layer_in(self, text: str) -> Optional[str]:
        """:meth:`layer_in` without its memo."""
        if "layers" in vars(self):
            for layer, rx in self.layers:
                if rx.search(text):
                    return layer
            return None
        rows, compiled = self._layer_rows, self._layer_rx
        for i, (layer, pattern) in enumerate(rows):
            rx = compiled[i]
            if rx is None:
                rx = compiled[i] = re.compile(pattern, re.I)
            if rx.search(text):
                return layer
        return None


_LAYER_MEMO = 1 << 16  # texts whose layer_in answer is kept (then the memo starts again)


@functools.lru_cache(maxsize=1)
def table() -> _Table:
    # the file beside this module, through the catalog's reader: its parsed form is kept on disk
    # as the catalog's files are (no TOML parser, and no importlib.resources with the pathlib,
    # tempfile and zipfile it imports, on a warm start)
    from ..catalog import _data

    return _Table(_data.parse_toml_file(os.path.join(os.path.dirname(os.path.abspath(__file__)), "failure_lines.toml"),
                                        _data._PKG_ROOT))


SHOWN, TOLD = "shown", "told"
_QUOTED = re.compile(r'"([^"]{15,400})"|`([^`]{15,400})`')


def classify(line: str, kind: Optional[str] = None) -> Optional[str]:
    """``"shown"`` when ``line`` (of a text of ``kind``) reads as an error message a program printed,
    ``"told"`` when it is prose telling of a failure in the stack ("I get the following error
    trying to install rocm"), None otherwise."""
    t = table()
    if kind in t.listing_kinds:
        return None
    low = line[:_SCAN_LINE].lower().lstrip("`'\">|* ")
    if not any(n in low for n in t.needles):
        return None
    if kind in t.kernel_log_kinds and not any(w in low for w in t.kernel_words):
        return None
    if not t.word_rx.search(low) or t.benign_rx.search(low):
        return None
    # prose, forms and files no tool output was recognised in: only message-shaped lines are shown
    if kind in t.tool_kinds or t.shape_rx.search(low):
        return SHOWN
    # a message quoted in a sentence ('I get a "...: cudaMalloc failed: out of memory" error')
    for pair in _QUOTED.findall(low):
        q = pair[0] or pair[1]
        if t.word_rx.search(q) and t.shape_rx.search(q):
            return SHOWN
    return TOLD if any(w in low for w in t.prose_words) else None


def looks_like_failure(line: str, kind: Optional[str] = None) -> bool:
    """Whether ``line`` (of a text of ``kind``) reads as an error message a program printed."""
    return classify(line, kind) == SHOWN


def next_commands(layers: Sequence[str], per_layer: int = 3) -> List[str]:
    """The commands that settle a failure at each of ``layers`` (in that order), each once."""
    out: List[str] = []
    for layer in layers:
        for cmd in table().next_commands.get(layer, [])[:per_layer]:
            if cmd not in out:
                out.append(cmd)
    return out


def layer_of(line: str, kind: Optional[str] = None) -> Optional[str]:
    """The layer ``line`` names (first matching row), else the layer of its text's kind, else None."""
    t = table()
    return t.layer_in(line[:_SCAN_LINE]) or t.kind_layer.get(kind or "")


def named_layer(line: str) -> Optional[str]:
    """The layer ``line`` itself names (first matching row), else None: :func:`layer_of` without the kind's
    (``layer_of(line, kind) == with_kind(named_layer(line), kind)``)."""
    return table().layer_in(line[:_SCAN_LINE])


def with_kind(named: Optional[str], kind: Optional[str] = None) -> Optional[str]:
    """:func:`layer_of` of a line whose :func:`named_layer` is ``named``."""
    return named or table().kind_layer.get(kind or "")


_CONTEXT_LINES = 12  # lines above a failure line that may name its layer

# (s20-appwin) a shell command run with variable assignments before its name (POSIX Shell Command Language 2.9.1,
# Simple Commands: "VAR=value ... command args"), as "LD_LIBRARY_PATH=/opt/rocm-6.4.4/lib ROCBLAS_TENSILE_LIBPATH=...
# llama-server ...": the assignments are settings handed to the program; what failed under the command (bash's job
# report "Segmentation fault (core dumped)", jobs.c/nojobs.c: j_strsignal(WTERMSIG) then " (core dumped)" when
# WIFCORED) is the program's, so the command's own words name its layer before the settings' values (a library path
# naming rocBLAS).  An optional prompt ("$ ", "user@host:~$ ") may precede; values are unquoted words or quoted strings.
# The names are environment variables' (POSIX XBD 8.1: upper-case letters, digits and underscores), so a logfmt line's
# lower-case keys (Ollama's "time=... level=INFO source=... msg=...") are not taken for a command's settings.
_SHELL_ASSIGNMENTS = re.compile(r"^\s*(?:\S{0,80}[$#]\s)?\s{0,4}(?:[A-Z_][A-Z0-9_]{0,60}="
                                r"(?:'[^'\n]{0,400}'|\"[^\"\n]{0,400}\"|[^\s'\"]{0,400})\s{1,8}){1,20}(?=\S)")


def _context_layer(text: str, start: int) -> Optional[str]:
    """The layer the nearest of the lines just above ``start`` names (a log line such as
    "readelf: Error: Not an ELF file" in a DKMS build sits in the layer its block is about).  A shell
    command with variable assignments before its name is read by the command's own words first."""
    t = table()
    above = text[max(0, start - 200 * _CONTEXT_LINES):start].splitlines()[-_CONTEXT_LINES:]
    for line in reversed(above):
        if "=" in line:
            run = _SHELL_ASSIGNMENTS.match(line[:_SCAN_LINE])
            if run is not None:
                layer = t.layer_in(line[run.end():_SCAN_LINE])
                if layer is not None:
                    return layer
        layer = t.layer_in(line[:_SCAN_LINE])
        if layer is not None:
            return layer
    return None


def layer_above(text: str, line: str) -> Optional[str]:
    """The layer the lines just above ``line`` in ``text`` name, ``text`` being the whole paste ``line``
    was read from: the recogniser cuts a paste at its prompt lines, so a failure line that names no
    layer ("free(): invalid pointer" under "$ clinfo") loses the command that printed it; the paste as
    written still has it (s10-heldy).  None when ``line`` is not in ``text`` or nothing above names a layer."""
    start = text.find(line) if isinstance(text, str) and line else -1
    if start < 0:
        return None
    return _context_layer(text, text.rfind("\n", 0, start) + 1)


# s19-libmore (issue 28): a build's summary lines say that something failed to compile, not what: clang's
# "N error(s) generated[ when compiling for <target>]." (llvm/llvm-project clang/lib/Frontend/CompilerInstance.cpp,
# printDiagnosticStats), ninja's "ninja: build stopped: subcommand failed." (ninja-build/ninja src/ninja.cc) and
# setuptools' "error: command '<compiler>' failed with exit code N" (pypa/setuptools distutils errors).  Their layer
# is the first compiler error above them: its file a HIP header -> hip, a ROCm library's header (or Composable
# Kernel's, vendored or installed) -> libraries, any other source (the package's or program's own) -> framework; a
# compiler or tool the shell could not find -> packaging.  None when no such line is above (the summary alone).
SUMMARY_ROWS = frozenset({"s10x_hip_device_code_compile_errors"})  # catalogue rows that read a summary line
_BUILD_SUMMARY = re.compile(r"^\s*(?:\d{1,6} errors? generated\b|\d{1,6} warnings? and \d{1,6} errors? generated\b"
                            r"|ninja: build stopped: subcommand failed\b|error: command '[^'\n]{1,400}' failed with "
                            r"exit (?:code|status) \d{1,4})")
_CLANG_SUMMARY = re.compile(r"^\s*(?:\d{1,6} warnings? and )?\d{1,6} errors? generated\b")
_BUILD_SUMMARY_ANY = re.compile(_BUILD_SUMMARY.pattern.replace(r"^\s*", r"(?:^|(?<=\\n)|(?<=\s))", 1))
_COMPILE_ERROR = re.compile(r"^\s*(?:\S{1,40}\s{1,8})?((?:[A-Za-z]:)?[^\s:'\"]{1,400}?\.[A-Za-z+]{1,5}):\d{1,7}(?::\d{1,5})?:"
                            r" (?:fatal )?error: ")
# (s23-scigpu, set GV 3035) clang's notes under an error ("<file>:<line>:<col>: note: in instantiation of member function
# ... requested here", "note: expanded from macro ...", "note: candidate template ignored: ..."; clang/lib/Frontend
# TextDiagnostic.cpp prints every diagnostic, notes too, as "<file>:<line>:<col>: <level>: <message>"): they belong to the
# error above them, so where a cut paste kept only the notes of a build step, the first of them names the source that
# was being compiled
_COMPILE_NOTE = re.compile(_COMPILE_ERROR.pattern.replace(r" (?:fatal )?error: ", r" note: "))
_TOOL_MISSING = re.compile(r"^\s*(?:/bin/)?(?:ba|da)?sh: (?:\d{1,6}: )?(?:line \d{1,6}: )?\S{0,300}?"
                           r"\b(?:hipcc|hipconfig|clang\+\+|clang|amdclang\+\+|amdclang|nvcc|g\+\+|gcc|c\+\+|cc|ninja|make|cmake"
                           r"|ld\.lld|lld)(?:-\d{1,3})?: (?:command )?not found")
_HIP_HEADER = re.compile(r"(?:^|[\\/])include[\\/]hip[\\/]|(?:^|[\\/])hip[\\/](?:amd_detail|nvidia_detail)[\\/]")
_LIBRARY_HEADER = re.compile(r"(?:^|[\\/])include[\\/](?:rocprim|hipcub|thrust|rocthrust|cub|rocblas|hipblas|hipblaslt"
                             r"|hipblas-common|rocsparse|hipsparse|hipsparselt|rocsolver|hipsolver|rocfft|hipfft|rocrand"
                             r"|hiprand|miopen|rccl|rocwmma|hiptensor|rocalution|ck|ck_tile|migraphx)[\\/]"
                             r"|(?:^|[\\/])composable_kernel[\\/]")
_SYSTEM_HEADER = re.compile(r"^/usr/(?:local/)?(?:include|lib(?:64)?/gcc)/|[\\/]llvm[\\/]lib[\\/]clang[\\/]")
_KERNEL_SOURCE = re.compile(r"[\\/](?:dkms|lib[\\/]modules|linux-headers[^\\/]*|usr[\\/]src)[\\/]")
_SUMMARY_LOOKBACK = 400  # lines above a summary searched for the first compiler error of its build step


def first_error_layer(text: str, start: int) -> Optional[str]:
    """The layer of the first compiler error above the build summary line at ``start`` of ``text`` (see
    :data:`SUMMARY_ROWS`): the earliest ``<file>:<line>:<col>: error:`` (or a missing compiler) since the previous
    summary line, within :data:`_SUMMARY_LOOKBACK` lines; None when there is none or its file says nothing."""
    above = text[max(0, start - 300 * _SUMMARY_LOOKBACK):start].splitlines()[-_SUMMARY_LOOKBACK:]
    end = text.find("\n", start)
    clang = bool(_CLANG_SUMMARY.match(text[start:end if end >= 0 else len(text)]))
    first = None
    ninja = None
    note = None
    for line in reversed(above):
        m = _BUILD_SUMMARY.match(line)
        if m and bool(_CLANG_SUMMARY.match(line)) == clang:
            break  # the previous compile's (or build's) summary: its errors are its own
        if _COMPILE_ERROR.match(line) or _TOOL_MISSING.match(line):
            first = line
        elif ninja is None and line.lstrip().startswith("FAILED: "):
            ninja = line
        elif _COMPILE_NOTE.match(line):
            note = line
    if first is None:
        # (s23-ggmlapps) no compiler error above (a cut paste): the build tool's line names the object it was building
        # -- ninja's "FAILED:" above the compiler's output, make's "*** [...] Error N" under clang's summary -- and
        # that names whose source failed to compile
        if not clang:
            return None
        if ninja is not None:
            return _failed_object_layer(ninja, -1)
        below = _failed_object_layer(text, end) if end >= 0 else None
        if below is None and note is not None:
            # (s23-scigpu) nor a build tool's line: the first note of the step names the source being compiled
            return _compile_error_layer(note, _COMPILE_NOTE)
        return below
    if _TOOL_MISSING.match(first):
        return "packaging"
    return _compile_error_layer(first)


# s23-ggmlapps (issue 28): the build tool's line under a compiler's failure names the object it was building: GNU
# make's "make[2]: *** [CMakeFiles/ggml-rocm.dir/build.make:79: CMakeFiles/ggml-rocm.dir/ggml-cuda.cu.o] Error 1"
# (make src/job.c child_error: "%s[%s: %s] Error %d" with the recipe's "<makefile>:<line>: <target>", "[%s] Error %d"
# where no location is known; gmake/mingw32-make the same), ninja's "FAILED: <outputs>" (ninja-build/ninja
# src/status_printer.cc BuildEdgeFinished).  An object of a ROCm library's own CMake target (CMakeFiles/rocblas.dir,
# MIOpen.dir, device_gemm_instance.dir of Composable Kernel) -> libraries, of HIP's runtime (amdhip64, rocclr) -> hip,
# of ROCr or its tools (hsa-runtime64, rocminfo) -> runtime, a kernel module's (kbuild, DKMS) -> None, any
# other object (the project's or application's own source: whisper.cpp's ggml-rocm, a package's extension) ->
# framework, as first_error_layer reads a compiler error in that source.
_FAILED_OBJECT = re.compile(r"^\s*(?:(?:g|mingw32-)?make(?:\[\d{1,4}\])?: \*\*\* \[(?:[^\]\n]{1,400}?:\d{1,7}: )?"
                            r"|FAILED: )(?P<obj>[^\s\]]{1,400}?\.(?:o|obj))(?:\] Error \d{1,4}|\s|$)")
_CMAKE_TARGET = re.compile(r"CMakeFiles[\\/]([\w.+-]{1,120})\.dir[\\/]")
_LIBRARY_TARGET = re.compile(r"^(?:rocprim|hipcub|rocthrust|rocblas|hipblas|hipblaslt|rocblaslt|rocsparse|hipsparse"
                             r"|hipsparselt|rocsolver|hipsolver|rocfft|hipfft|rocrand|hiprand|miopen|rccl|rocwmma"
                             r"|hiptensor|rocalution|migraphx|tensile|composable_kernel|ck_tile|device_\w{1,80}_instances?)"
                             r"(?:[_.-]\w{0,40})?$", re.I)
_HIP_TARGET = re.compile(r"^(?:amdhip64|hiprtc|hip64|amdrocclr|rocclr)(?:[_.-]\w{0,40})?$", re.I)
_RUNTIME_TARGET = re.compile(r"^(?:hsa-runtime64|hsakmt|hsa_runtime64|rocminfo|rocm_agent_enumerator)(?:[_.-]\w{0,40})?$", re.I)
_KBUILD_OBJECT = re.compile(r"\[scripts/Makefile\.\w{1,20}:\d{1,7}: ")
_BELOW_SUMMARY = 3  # lines under a summary searched for the build tool's failure line


def _failed_object_layer(text: str, end: int) -> Optional[str]:
    """The layer of the object the build tool's failure line just under a compiler summary (ending at ``end`` of
    ``text``) names (see :data:`_FAILED_OBJECT`), else None."""
    below = [l for l in text[end + 1:end + 1 + 600 * _BELOW_SUMMARY].splitlines()[:_BELOW_SUMMARY + 2] if l.strip()]
    for line in below[:_BELOW_SUMMARY]:
        m = _FAILED_OBJECT.match(line)
        if m is None:
            continue
        obj = m.group("obj")
        if _KERNEL_SOURCE.search(obj) or _KBUILD_OBJECT.search(line):
            return None  # a kernel module's object (DKMS, kbuild): the words around it say
        target = _CMAKE_TARGET.search(obj)
        name = target.group(1) if target else ""
        if _RUNTIME_TARGET.match(name):
            return "runtime"
        if _HIP_TARGET.match(name):
            return "hip"
        if _LIBRARY_TARGET.match(name) or _LIBRARY_HEADER.search(obj):
            return "libraries"
        return "framework"
    return None


def _compile_error_layer(line: str, form: "re.Pattern[str]" = _COMPILE_ERROR) -> Optional[str]:
    """The layer of a compiler error line (or, with ``form``, a note line) by its file (see :func:`first_error_layer`),
    else None."""
    m = form.match(line)
    if m is None:
        return None
    path = m.group(1)
    if _HIP_HEADER.search(path):
        return "hip"
    if _LIBRARY_HEADER.search(path):
        return "libraries"
    if _SYSTEM_HEADER.search(path) or _KERNEL_SOURCE.search(path):
        return None  # the C/C++ library's, the compiler's or a kernel module's source: the words around it say
    return "framework"


def summary_layer(text: str, line: str) -> Optional[str]:
    """:func:`first_error_layer` of the summary ``line`` of ``text`` (its first occurrence); None when ``line`` is no
    build summary or is not in ``text``."""
    m = _BUILD_SUMMARY_ANY.search(line[:_SCAN_LINE]) if isinstance(line, str) else None
    if m is None or not isinstance(text, str):
        return None
    start = text.find(line.strip()[:200])
    if start < 0:
        return None
    return first_error_layer(text, text.rfind("\n", 0, start) + 1)


_CAPTION_WORDS = 8  # words of a caption at most: a longer line ending in a colon is a sentence or a log record


def is_caption(line: str) -> bool:
    """Whether ``line`` is a short caption that ends with a colon ("Compilation failure:", "Error when running
    rocminfo:"): it introduces what follows it -- the command and output under it tell what it is about."""
    body = line.strip().strip("`*#>_ ")
    if not (body.endswith(":") and len(body) <= 80 and len(body.split()) <= _CAPTION_WORDS):
        return False
    # (a trace's header -- abseil's "*** Check failure stack trace: ***", "Call Trace:", "Backtrace:" -- heads the
    # frames of the failure printed above it, not a block of its own)
    low = body.lower()
    return not any(w in low for w in ("trace", "traceback", "backtrace", "stack"))


def layer_below(text: str, line: str) -> Optional[str]:
    """The layer the lines just below ``line`` in ``text`` (the whole paste) name, where ``line`` is a caption
    (:func:`is_caption`).  None for any other line, when ``line`` is not in ``text``, or when nothing in the
    :data:`_CONTEXT_LINES` lines under it names a layer."""
    if not isinstance(text, str) or not line or not is_caption(line):
        return None
    start = text.find(line)
    if start < 0:
        return None
    end = text.find("\n", start)
    if end < 0:
        return None
    t = table()
    below = text[end + 1:end + 1 + 200 * _CONTEXT_LINES].splitlines()[:_CONTEXT_LINES]
    for other in below:
        layer = t.layer_in(other[:_SCAN_LINE])
        if layer is not None:
            return layer
    return None


# a Python exception line as traceback.format_exception_only writes it (after a log prefix such as
# vLLM's "ERROR 05-15 18:58:58 [engine.py:448] " or a container's "name  | ")
# (s21-libwin) or after a Markdown quote marker (">IndexError: ..." in a quoted paste)
_EXC_LINE = re.compile(r"(?:^(?:>[ \t]?){0,3}|[\]|] )\s*([A-Za-z_]\w{0,80}(?:\.[A-Za-z_]\w{0,80}){0,8}(?:Error|Exception))(?::|\s*$)")
# (s21-libwin) also when a quoted paste's wrapped frame line carries the quote marker before "line" (rocBLAS#1356:
# '>  File ".../Tensile/TensileCreateLibrary.py", >line 1400, in TensileCreateLibrary')
_FRAME_FILE = re.compile(r'\bFile "([^"\n]{1,400})",[ \t]{0,2}>?[ \t]{0,2}line \d+')
_SITE = re.compile(r"[/\\](?:site|dist)-packages[/\\]([A-Za-z_][\w.-]*)")
# (s11-catchall) lib64 too: Fedora/RHEL's Python keeps its standard library in /usr/lib64/python3.X
_STDLIB = re.compile(r"[/\\]lib(?:64)?[/\\]python\d[\d.]*[/\\][\w.-]+\.py$|[/\\]Lib[/\\][\w.-]+\.py$")
_FRAME_LINES = 40  # lines above an exception line searched for its innermost frame


def frame_package(path: str, t: Optional["_Table"] = None) -> Optional[str]:
    """The package a traceback frame's file belongs to: the directory after site-packages/ or
    dist-packages/, else the nearest directory of the path that the table names (None if neither)."""
    t = t or table()
    m = _SITE.search(path)
    if m:
        return m.group(1).split(".")[0].lower()
    if _STDLIB.search(path):
        return None  # Python's own library (subprocess.py...), wherever that Python lives (uv's, conda's)
    parts = [p.lower() for p in re.split(r"[/\\]", path)[:-1] if p]
    for part in reversed(parts):
        if part in t.frame_layer:
            return part
    return None


def _frame_layer(text: str, start: int, t: "_Table") -> Optional[str]:
    """The layer of the package whose frame raised the exception on the line at ``start``: the last
    'File "...", line N' within the lines just above it (None when there is none, or its package has
    no layer in the table).  (s11-catchall) Frames in Python's own library are passed over: an exception
    that subprocess.py, shutil.py or importlib raised (``subprocess.CalledProcessError`` from
    ``check_call``) was raised for the package that called it, the nearest frame above that is not the
    standard library's."""
    above = text[max(0, start - 400 * _FRAME_LINES):start].splitlines()[-_FRAME_LINES:]
    for line in reversed(above):
        m = _FRAME_FILE.search(line)
        if m:
            if _STDLIB.search(m.group(1)) and not _SITE.search(m.group(1)):
                continue  # Python's own library: its caller's frame names the package
            pkg = frame_package(m.group(1), t)
            return t.frame_layer.get(pkg) if pkg else None
    return None


# (s11-catchall) unittest's report of a failed test (cpython Lib/unittest/runner.py, TextTestResult.printErrorList:
# "%s: %s" % (flavour, self.getDescription(test)), flavour "ERROR" or "FAIL"; TestCase.__str__ "<method>
# (<module>.<Class>[.<method>])", a subTest's " [<msg>] (<params>)" after it): the test's module names the package
# under test, whose layer is the table's frame_package_layer (a rocm_sdk test is the install's, a torch test the
# framework's)
_UNITTEST_LINE = re.compile(r"^\s*(?:ERROR|FAIL):\s+\w+\s+\(([A-Za-z_]\w*)(?:\.\w+)+\)")


# (s11-catchall) a program refusing its own command line: clap's errors (clap-rs/clap clap_builder/src/error/format.rs:
# "error: invalid value '<v>' for '<arg>'", "error: unexpected argument '<arg>' found", "error: the argument '<a>' cannot
# be used with '<b>'"; uv, ripgrep...), argparse's (cpython Lib/argparse.py ArgumentParser.error: "<prog>: error:
# <message>" with "unrecognized arguments: ...", "argument <a>: invalid choice: ...", "the following arguments are
# required: ...").  The words of the refused argument ("--torch-backend") name no layer: the program that ran (the
# command echoed above it, "uv pip install ...") does.
_USAGE_ERROR = re.compile(r"^\s*(?:[\w.-]{1,40}: )?error: (?:invalid value '[^'\n]{0,200}' for '|unexpected argument '"
                          r"|the argument '[^'\n]{0,200}' cannot be used with|unrecognized arguments: "
                          r"|argument [^:\n]{1,80}: invalid choice: |the following arguments are required: )")


def usage_error(line: str) -> bool:
    """Whether ``line`` is a program refusing its command line (clap's, argparse's grammar): its layer is
    the program's that ran, which the command echoed above it names (``layer_above`` over the whole paste,
    where the recogniser cut the echo into a segment of its own)."""
    return bool(_USAGE_ERROR.search(line[:_SCAN_LINE]))


def _unittest_layer(line: str, t: "_Table") -> Optional[str]:
    """The layer of the package a unittest failure line's test module is in, else None."""
    m = _UNITTEST_LINE.match(line)
    return t.frame_layer.get(m.group(1).lower()) if m else None


# (s15-heldcs) unittest prints each failed test's traceback under its header (cpython Lib/unittest/runner.py,
# printErrorList: the "ERROR: <test> (<module>.<Class>)" line, a separator, then the formatted exception): where the
# header's module names no package of the table (a test script run as __main__, a project's own test module), the
# test failed with the exception that ends that traceback, raised by the package of its innermost frame -- not in
# the layer of words above the header (a kernel's name in the compiler's note before it) or in the test's own name
_UNITTEST_SEPARATOR = re.compile(r"^\s*(?:={20,}|-{20,})\s*$")
_UNITTEST_BELOW = 60  # lines under a header searched for the exception ending its traceback


def _unittest_exception(text: str, start: int) -> Optional[Tuple[str, int]]:
    """``(line, offset)`` of the exception line ending the traceback printed under the unittest header at
    ``start`` (before the next test's separator), else None."""
    lines = text[start:start + 400 * _UNITTEST_BELOW].splitlines(True)
    offset, seen_tb = start + (len(lines[0]) if lines else 0), False
    for line in lines[1:_UNITTEST_BELOW]:
        if seen_tb and _UNITTEST_SEPARATOR.match(line):
            break  # the next test's block
        if _TB_HEADER.search(line):
            seen_tb = True
        elif seen_tb and not _FRAME_FILE.search(line) and _EXC_LINE.search(line[:_SCAN_LINE]):
            return line.strip(), offset
        offset += len(line)
    return None


def _unittest_raised_layer(text: str, start: int, t: "_Table") -> Optional[str]:
    """The layer of the exception ending the traceback under the unittest header at ``start``: what the
    exception line names, else the package of the frame that raised it (None when no traceback follows)."""
    found = _unittest_exception(text, start)
    if found is None:
        return None
    line, offset = found
    layer = t.layer_in(line[:_SCAN_LINE])
    if layer in (None, "framework"):
        layer = _frame_layer(text, offset, t) or layer
    return layer


# a line that is only a severity word ("Error:", "error", "ERROR:"): dnf and yum print "Error: " and the
# problem below it (dnf/cli/main.py: logger.critical(_('Error: %s'), ...) with a multi-line message),
# a build tool its summary line before the details
# (s11-catchall) and DKMS's "Failed command:" with the command on the next line (dell/dkms dkms.in, invoke_command:
# echo -e "\nFailed command:\n$1")
_BARE_MARKER = re.compile(r"^\W*(error|errors|fatal|failed|failure|failed command)\s*:?\s*$", re.I)
_BELOW_LINES = 3


def _placed(line: str, kind: Optional[str], text: str, start: int, t: "_Table") -> Optional[str]:
    """The layer of a failure line at ``start`` of ``text``: what the line names (the first row of the
    table), for a Python exception line that names none or only the framework the layer of the package
    that raised it, then the kind of its text, then what the lines just above it name."""
    if _BUILD_SUMMARY.match(line[:_SCAN_LINE]):  # (s19-libmore) a build's summary: the first compiler error above it
        first = first_error_layer(text, start)
        if first is not None:
            return first
    tested = _unittest_layer(line, t)  # a failed test: its module's package, whatever its description names
    if tested is not None:
        return tested
    if _UNITTEST_LINE.match(line):  # (s15-heldcs) a test module of no known package: what its traceback raised
        raised = _unittest_raised_layer(text, start, t)
        if raised is not None:
            return raised
    if _USAGE_ERROR.search(line[:_SCAN_LINE]):  # the command line was refused: the program run above it is who refused
        ran = _context_layer(text, start)
        if ran is not None:
            return ran
    layer = t.layer_in(line[:_SCAN_LINE])
    if layer in (None, "framework") and 'File "' in text and _EXC_LINE.search(line[:_SCAN_LINE]):
        raised = _frame_layer(text, start, t)
        if raised is not None:
            return raised
    if layer:
        return layer
    own = _compile_error_layer(line[:_SCAN_LINE])  # (s19-libmore) a compiler error naming no layer: its file's
    if own is not None:
        return own
    caption = is_caption(line)
    if _BARE_MARKER.match(line) or caption:  # "Error:" alone: its message is on the lines that follow
        # (s13: as for any short caption, "Compilation failure:" over the make.log it introduces)
        below = text[start:start + 200 * _BELOW_LINES].splitlines()[1:_BELOW_LINES + 1]
        for nxt in below:
            layer = t.layer_in(nxt[:_SCAN_LINE])
            if layer is not None:
                return layer
        if caption:  # (not what is above it: the errors probe reads the lines under it in the whole paste first,
            return t.kind_layer.get(kind or "")  # where the recogniser cut what it introduces into a segment of its own)
    if kind in t.generic_kinds:  # an error text of no known program: the lines above it first
        return _context_layer(text, start) or t.kind_layer.get(kind or "")
    return t.kind_layer.get(kind or "") or _context_layer(text, start)


_TIMESTAMP = re.compile(r"^\s*(\[\s*\d+\.\d+\]|\w{3} +\d+ [\d:]{8} \S+|\d{4}-\d\d-\d\dT?[\d:.]*\S*)\s*")


def _key(line: str) -> str:
    """Two lines that differ only in their time stamp and numbers are one failure."""
    return re.sub(r"0x[0-9a-f]+|\d+", "#", _TIMESTAMP.sub("", line.lower()))


def _kernel_log_lines(text: str, t: _Table):
    """(start, end) of the lines of a kernel log that hold one of the table's words as the word
    pattern finds them, among those with a kernel-log word and a needle: every other line of a
    kernel log is one :func:`classify` passes over, so the word pattern need not run over them."""
    low = text.lower()
    if not any(w in low for w in t.kernel_words) or not any(n in low for n in t.needles):
        return
    if len(low) == len(text):
        # the lines holding a kernel-log word, found by searching for each word: the same lines as
        # the loop below takes (a line's own lower-cased text is its slice of ``low`` where the
        # lengths agree: no character lower-cases to two, and none's case depends on the next line)
        starts = set()
        for w in t.kernel_words:
            i = low.find(w)
            while i >= 0:
                line_start = low.rfind("\n", 0, i) + 1
                starts.add(line_start)
                nl = low.find("\n", i + len(w))
                if nl < 0:
                    break
                i = low.find(w, nl + 1)
        for start in sorted(starts):
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            line_low = low[start:end]
            if any(n in line_low for n in t.needles) and t.word_rx.search(text, start, end):
                yield start, end
        return
    start = 0
    size = len(text)
    while start <= size:
        end = text.find("\n", start)
        end = size if end < 0 else end
        low = text[start:end].lower()
        if any(w in low for w in t.kernel_words) and any(n in low for n in t.needles) \
                and t.word_rx.search(text, start, end):
            yield start, end
        start = end + 1


def _word_lines(text: str, t: _Table):
    """(start, end) of every line of ``text`` the word pattern matches, in order (one pass)."""
    next_start = 0  # lines before this offset were looked at already
    for m in t.word_rx.finditer(text):
        if m.start() < next_start:
            continue
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        next_start = end + 1
        yield start, end


# (s14-heldcp) a record of pytest's live log (and of its captured-log report): pytest's DEFAULT_LOG_FORMAT,
# "%(levelname)-8s %(name)s:%(filename)s:%(lineno)d %(message)s" (pytest-dev/pytest src/_pytest/logging.py), under
# a CI runner's time stamp where one is kept ("2026-01-07T00:09:10.4967156Z ERROR    test_rocm_sanity:
# test_rocm_sanity.py:34 ...").  The level is the one the test chose for the line (a sanity test logs the whole
# output of a failed command at ERROR); whether the line is a failure, and of which layer, is the message's.
_PYTEST_LOG = re.compile(r"^(?:\d{4}-\d\d-\d\dT[\d:.]+Z\s+)?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) +"
                         r"[\w.<>-]{1,120}:[\w.-]{1,120}\.py:\d{1,6} (?=\S)")


def log_message(line: str) -> str:
    """``line`` without pytest's live-log record prefix (level, logger, file and line), where it has one."""
    m = _PYTEST_LOG.match(line)
    return line[m.end():] if m else line


_UNSET = object()
_PLACE_RETRIES = 64  # copies of a line kept without a layer whose context is read again (each may name the layer)


def scan(texts: Sequence[Tuple[str, Optional[str], str]], known: Sequence[str] = (),
         limit: int = MAX_LINES, told: Optional[List[Tuple[str, Optional[str], str]]] = None,
         prefilter: bool = True) -> List[Tuple[str, Optional[str], str]]:
    """``[(line, layer, label)]`` of the failure-looking lines of ``texts`` (``(text, kind, label)``)
    that are not among the ``known`` lines (those a known error text already matched).  One pass of
    the word pattern over each text finds the candidate lines (over a kernel log, only the lines
    that name the GPU stack and hold a needle, the only ones :func:`classify` can take; ``prefilter``
    False: every line, the same answer).  Prose lines that tell of a failure are appended to
    ``told`` when a list is given."""
    t = table()
    # (s13-heldbd) a known text that spans lines (a row whose pattern takes the command and the error under it;
    # a whole-text row gives its lines joined with " / ") knows each of its lines
    known_keys = {_key(part.strip()) for k in known if isinstance(k, str)
                  for part in [k] + k.replace(" / ", "\n").split("\n") if part.strip()}
    out: List[Tuple[str, Optional[str], str]] = []
    seen = set()
    # (s13-heldaz) where each kept line sits in ``out``: the same line pasted again where its context names the
    # layer (the lines above it) places the one kept without a layer (a bare "free(): invalid pointer" block and
    # the log that shows it right after a rocBLAS call)
    where: Dict[str, int] = {}
    classified: Dict[Tuple[str, Optional[str]], Optional[str]] = {}
    retried: Dict[str, int] = {}  # (s19) copies of an unplaced line tried again for their context, at most _PLACE_RETRIES
    # (s22-llmappwin) the file each segment was cut from ("paste:NAME#KIND" -> "paste:NAME") and the last segment of
    # each: a traceback that ends a segment the recogniser cut from the middle of a paste goes on in the next one
    files = [label.split("#", 1)[0] if isinstance(label, str) else label for _text, _kind, label in texts]
    last_of = {f: i for i, f in enumerate(files)}
    for i, (text, kind, label) in enumerate(texts):
        if not isinstance(text, str) or not text:
            continue
        listing = kind in t.listing_kinds
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        before = len(out)
        lines = _kernel_log_lines(text, t) if prefilter and kind in t.kernel_log_kinds else _word_lines(text, t)
        for start, end in lines:
            line = text[start:end].strip()
            if listing:
                # a listing's rows are no failures; a package tool's own failure line in it is (s11-catchall)
                if not line or not t.listing_failure_rx.search(line):
                    continue
                kind = None
            if line and (_in_traceback_body(text, start, line) or _warning_source_echo(text, start)):
                continue
            msg = log_message(line)
            if not msg:
                how = None
            else:
                how = classified.get((msg, kind), _UNSET)
                if how is _UNSET:  # (s19) classify is a function of the line and its kind: a repeated line is read once
                    how = classified[(msg, kind)] = classify(msg, kind)
            if how == TOLD and told is not None and len(told) < limit:
                told.append((line[:MAX_LINE], layer_of(msg, kind), label))
            if how != SHOWN:
                continue
            key = _key(line[:_SCAN_LINE])
            if key in known_keys:
                continue
            if _LEVEL_ONLY.match(line) and _message_below(text, end, kind, known_keys):
                continue
            if _UNITTEST_LINE.match(msg):  # (s15-heldcs) a test's header over a traceback whose exception is known:
                raised = _unittest_exception(text, start)  # the known line says why the test failed
                if raised is not None and _key(raised[0][:_SCAN_LINE]) in known_keys:
                    continue
            if key in seen:
                i = where.get(key)
                if i is not None and out[i][1] is None and retried.get(key, 0) < _PLACE_RETRIES:
                    retried[key] = retried.get(key, 0) + 1
                    placed = _placed(msg, kind, text, start, t)
                    if placed is not None:
                        out[i] = (line[:MAX_LINE], placed, label)
                continue
            seen.add(key)
            where[key] = len(out)
            out.append((line[:MAX_LINE], _placed(msg, kind, text, start, t), label))
            if len(out) >= limit:
                return out
        # (s22-llmappwin, set FN 2691) an error log of no known program is where a cut traceback is pasted too: a start-up
        # log whose last lines are a traceback into the program's library loading (KoboldCpp's init_library), the paste
        # ending at its last frame -- when the segment is the last of its paste (a traceback the recogniser cut in two
        # goes on in the next segment, its exception there) and shows no known error line (a chained traceback cut
        # after the exception a row already read, 'ImportError: libamdhip64.so.3: ...' then 'During handling of the above
        # exception...', is told by that line; (s22-torcholdwin, set FM) so is a cut traceback chained after a known
        # exception in an earlier segment of the same pasted file); the tools' own outputs (dmesg, rocminfo, the SMIs)
        # hold no Python traceback
        if len(out) == before and not listing and (kind not in t.tool_kinds
                                                   or (kind in t.generic_kinds and last_of.get(files[i]) == i
                                                       and not any(_shows_known(tx, known_keys)
                                                                   for (tx, _k, _l), f in zip(texts, files)
                                                                   if f == files[i] and isinstance(tx, str)))):
            frame = _cut_traceback(text)
            if frame is not None and _key(frame) not in seen:
                seen.add(_key(frame))
                out.append(("(a Python traceback cut before its exception) " + frame[:MAX_LINE], "framework", label))
                if len(out) >= limit:
                    return out
    return out


_FRAME = re.compile(r'^\s+File "[^"\n]{1,400}", line \d+, in ')
# (s11-catchall) a frame line of a Python traceback, after any log prefix (vLLM's "ERROR 05-15 18:58:58 [engine.py:448] ",
# a container's "name  | "): traceback.format_list writes '  File "<file>", line <n>, in <name>' and under it the
# frame's source line and (3.11+) a line of carets; these echo the program's code, not a message it printed (a source
# line "return run(*popenargs, timeout=timeout, check=True," holds error-looking words, its frame says nothing failed)
_FRAME_ANY = re.compile(r'(?:^|\s)File "[^"\n]{1,400}", line \d+, in \S')
_CARETS = re.compile(r"^[\s^~]*\^[\s^~]*$")
# (s20) the prefix a multi-process Python server puts before each line of its workers' output: vLLM's
# "(APIServer pid=407452) ", "(EngineCore_DP0 pid=N) ", "(VllmWorker rank=0 pid=N) " (vllm/utils: the log prefix of a
# worker process, "({worker_name} pid={pid}) ") and Ray's "(RayWorkerWrapper pid=N, ip=10.0.0.1) " (ray's log monitor)
_PROC = r"\((?:[\w.-]+ )?(?:[\w.-]+=[\w.:-]+,? )*pid=\d+(?:, ip=[\w.:]+)?\) "
_PROC_PREFIX = re.compile("^" + _PROC)
# "ERROR 05-15 18:58:58 [engine.py:448] ", "name  | ", (s20) a journal's "Mar 01 10:11:12 host python3[4242]: ", a worker's
_LOG_PREFIX = re.compile(r"^(?:" + _PROC + r"|.{0,80}?[\]|]:?\s)")
_TB_HEADER = re.compile(r"traceback \(most recent call last\):?\s*$", re.I)


def _carets(line: str) -> bool:
    """Whether ``line`` is a traceback's caret line, after any log prefix."""
    return bool(_CARETS.match(line) or _CARETS.match(_LOG_PREFIX.sub("", line, count=1)))


def _in_traceback_body(text: str, start: int, line: str) -> bool:
    """Whether ``line`` (at ``start`` of ``text``) is a traceback's frame line or the source line a frame
    echoes: the exception line after them is the message."""
    if 'File "' in line and _FRAME_ANY.search(line):
        return True
    if _TB_HEADER.search(line) and _LOG_PREFIX.sub("", line, count=1).strip().lower().startswith("traceback"):
        return True  # the header, after a log prefix (the benign list takes it where no prefix is)
    if _EXC_LINE.search(line) or 'File "' not in text[max(0, start - 600):start]:
        return False
    if _carets(line):
        return True
    prev_end = start - 1 if start > 0 else 0
    prev = text[text.rfind("\n", 0, max(prev_end, 0)) + 1:prev_end]
    if _carets(prev):  # the caret line under a source line: look one line further up
        prev_end = text.rfind("\n", 0, max(prev_end, 0))
        prev = text[text.rfind("\n", 0, max(prev_end, 0)) + 1:max(prev_end, 0)]
    return bool(_FRAME_ANY.search(prev))


# (s25-researchwin, set IW) Python's warnings module shows a warning as "<file>:<line>: <Category>: <message>" and under
# it, indented by two spaces, the source line that raised it (cpython Lib/warnings.py _formatwarnmsg_impl:
# "%s:%s: %s: %s\n" then "  %s\n" % line.strip()): torch's "UserWarning: Can't initialize amdsmi - Error code: 34" is
# followed by '  warnings.warn(f"Can't initialize amdsmi - Error code: {e.err_code}")', the program's code, not a message
_PY_WARNING = re.compile(r"\.py:\d{1,7}: (?:[A-Za-z_]\w{0,60}\.){0,4}[A-Z]\w{0,60}Warning: ")


def _warning_source_echo(text: str, start: int) -> bool:
    """Whether the line at ``start`` of ``text`` is the source line Python's warnings module echoes under a warning."""
    if not text.startswith("  ", start):
        return False
    prev_end = start - 1
    if prev_end <= 0:
        return False
    prev = text[text.rfind("\n", 0, prev_end) + 1:prev_end]
    return bool(_PY_WARNING.search(prev))


# (s24-lmswin, set IK) a log record's header that a viewer or logger writes on a line of its own, its message on the next
# line: LM Studio's developer log ("2026-01-21 18:19:50 [ERROR]" then " [model] <message>"), Jan's log view ("ERROR" under
# the record's "[00:25:46]") -- the level word is no message; the line under it is read (and, when it is a failure the
# catalogue does not know, kept) on its own.  A marker with a colon ("Error:", dnf's over libsolv's problem text) is a
# message's start and stays, placed by the message below it (s6-layer)
_LEVEL_ONLY = re.compile(r"^(?:\[?\d{4}-\d\d-\d\d[ T][\d:.]{5,15}\]?\s{1,4}|\[[\d:.]{5,15}\]\s{1,4})?"
                         r"\[?(?:error|err|fatal|critical|crit)\]?$", re.I)


def _message_below(text: str, end: int, kind: Optional[str], known_keys) -> bool:
    """Whether the first non-empty line after ``end`` of ``text`` (within a few lines) is a known line or a failure
    line of its own: the message of the header line that ends at ``end``."""
    for nxt in text[end:end + 2000].split("\n")[1:4]:
        nxt = nxt.strip()
        if nxt:
            return _key(nxt[:_SCAN_LINE]) in known_keys or classify(log_message(nxt), kind) == SHOWN
    return False


def _shows_known(text: str, known_keys) -> bool:
    """Whether a line of ``text`` is one of the ``known_keys`` (lines a known error text matched)."""
    return bool(known_keys) and any(_key(line.strip()[:_SCAN_LINE]) in known_keys
                                    for line in text.splitlines() if line.strip())


def _cut_traceback(text: str) -> Optional[str]:
    """The last frame of a Python traceback that ends the text without its exception line (the paste
    was cut, or the user left the message out): a failure is shown even though its message is not."""
    if 'File "' not in text:
        return None
    tail = [_PROC_PREFIX.sub("", l) if l[:1] == "(" else l for l in text[-8000:].splitlines()]
    tail = [l for l in tail if l.strip() and not l.strip().startswith(("```", "~~~"))][-40:]
    if not tail or not tail[-1][:1].isspace():
        return None  # the last line is unindented: the exception (or other text) is there
    frames = [l for l in tail if _FRAME.match(l)]
    return frames[-1].strip() if frames else None


__all__ = ["LAYERS", "SHOWN", "TOLD", "classify", "layer_of", "next_commands", "looks_like_failure", "scan", "table"]
