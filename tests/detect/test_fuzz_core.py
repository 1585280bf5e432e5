"""Property tests: the core parsers, the signature scan and whole detection never raise, whatever
text they are given (random text, and real pastes cut, shuffled and spliced)."""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from rwtest import ci
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.detect.parsers import collect_env, dmesg, error_log, os_release, pip_freeze, uname
from rocm_wizard.model import System, to_dict

from _detect_core_support import REAL_FIXTURES

PARSERS = (os_release, uname, collect_env, pip_freeze, dmesg, error_log)
REAL_LINES = []
if REAL_FIXTURES.is_dir():
    for f in sorted(REAL_FIXTURES.glob("*/*.txt")):
        REAL_LINES.extend(f.read_text(encoding="utf-8", errors="replace").splitlines()[:80])
LINE_POOL = REAL_LINES or ["PyTorch version: 2.4.1+rocm6.1", "ID=ubuntu", "Linux h 6.8.0-45-generic #45 x86_64"]
LINE_POOL = LINE_POOL + [" + torch==2.7.1+rocm7.0.0rc20250731", " - rocm-sdk-core==7.14.0", "Versions of relevant libraries:",
                         "[pip3] amd-torch-device-gfx1201==2.12.0+rocm7.14.0"]

texts = st.one_of(
    st.text(max_size=2000),
    st.lists(st.sampled_from(LINE_POOL), max_size=60).map("\n".join),
    st.lists(st.one_of(st.sampled_from(LINE_POOL), st.text(max_size=80)), max_size=40).map("\r\n".join),
)
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(texts)
def test_parsers_never_raise(text):
    for mod in PARSERS:
        score = mod.looks_like(text)
        assert 0.0 <= score <= 1.0
        mod.parse(text)


@FAST
@given(texts)
def test_signature_scan_never_raises_and_lines_come_from_text(text):
    for sig, line in error_signatures.scan(text):
        assert sig.whole or line in text.replace("\r\n", "\n").replace("\r", "\n")


@FAST
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_collect_env_fields_are_strings_or_none(text):
    c = collect_env.parse("PyTorch version: " + text + "\nROCM used to build PyTorch: " + text[::-1])
    for v in (c.torch_version, c.hip_build, c.python, c.kernel):
        assert v is None or isinstance(v, str)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(LINE_POOL), st.text(max_size=60)), min_size=1, max_size=80))
def test_detect_from_any_paste_never_raises(lines):
    d = tempfile.mkdtemp(prefix="rw-fuzz-")
    try:
        Path(d, "paste.txt").write_text("\n".join(lines), encoding="utf-8", errors="surrogatepass")
        try:
            system = detect_snapshot(d)
        except Exception as exc:  # only the documented "nothing readable" refusal is allowed
            assert type(exc).__name__ == "SnapshotError", repr(exc)
            return
        assert isinstance(system, System)
        assert not [n for n in system.notes if "probe failed" in n], system.notes
        to_dict(system)
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.mark.skipif(not REAL_LINES, reason=ci.MISSING + "shared fixtures not available")
@settings(max_examples=20, deadline=None)
@given(st.data())
def test_real_pastes_cut_anywhere(data):
    files = sorted(REAL_FIXTURES.glob("*/*.txt"))
    f = data.draw(st.sampled_from(files))
    text = f.read_text(encoding="utf-8", errors="replace")
    cut = data.draw(st.integers(min_value=0, max_value=len(text)))
    for mod in PARSERS:
        mod.looks_like(text[:cut])
        mod.parse(text[:cut])
        mod.parse(text[cut:])
