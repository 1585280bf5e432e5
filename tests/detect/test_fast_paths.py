"""The shortcuts that keep ``detect --json`` fast behave like the plain code they replace:
job running (threads live, in line for snapshots), the cached paste clean-up, lazily compiled
patterns and the text sniffing of bundle files."""
from __future__ import annotations

import importlib
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

import rocm_wizard.detect as det
from rocm_wizard.detect import _jobs, bundle
from rocm_wizard.detect.parsers import _paste
from rocm_wizard.detect.parsers._core_text import lazy
from rocm_wizard.detect.sources import LiveSource


# -- jobs -------------------------------------------------------------------------------------------

def test_jobs_results_in_order_and_errors_returned():
    def boom():
        raise ValueError("bad")

    for parallel in (True, False):
        out = _jobs.run_jobs([(lambda x: x * 2, (1,)), (boom, ()), (str.upper, ("a",))], parallel)
        assert out[0] == (True, 2) and out[2] == (True, "A")
        assert out[1][0] is False and isinstance(out[1][1], ValueError)


def test_jobs_run_concurrently_only_when_asked():
    barrier = threading.Barrier(3, timeout=5)  # passes only if all three jobs run at once
    out = _jobs.run_jobs([(barrier.wait, ())] * 3, parallel=True)
    assert all(ok for ok, _ in out)
    me = threading.get_ident()
    out = _jobs.run_jobs([(threading.get_ident, ())] * 3, parallel=False)
    assert [v for _, v in out] == [me] * 3


def test_jobs_raise_what_is_not_an_exception():
    def stop():
        raise KeyboardInterrupt

    ran = []
    for parallel in (True, False):
        with pytest.raises(KeyboardInterrupt):
            _jobs.run_jobs([(stop, ()), (ran.append, (parallel,))], parallel)
    assert ran == [True]  # threads all ran; in line, nothing after the interrupt


def test_snapshot_probes_run_in_the_calling_thread(tmp_path, monkeypatch):
    (tmp_path / "uname.txt").write_text("$ uname -r\n6.8.0-45-generic\n")
    seen = {}
    for name in det.PROBES:
        mod = importlib.import_module("rocm_wizard.detect.probes." + name)

        def spy(*args, _real=mod.probe, _name=name, **kwargs):
            seen[_name] = threading.get_ident()
            return _real(*args, **kwargs)

        monkeypatch.setattr(mod, "probe", spy)
    system = det.detect_snapshot(str(tmp_path))
    assert system.os.kernel == "6.8.0-45-generic"
    assert set(seen) == set(det.PROBES) and set(seen.values()) == {threading.get_ident()}
    seen.clear()
    det.detect(LiveSource(root=str(tmp_path / "empty"), commands=False, environ={}))
    assert set(seen) == set(det.PROBES) and threading.get_ident() not in seen.values()
    assert _jobs.in_parallel(LiveSource(root=str(tmp_path), commands=False)) is True
    assert _jobs.in_parallel(bundle.open_snapshot(str(tmp_path))) is False


# -- clean_lines cache ----------------------------------------------------------------------------------

def test_clean_lines_cache_hands_out_fresh_lists():
    text = "```\n  a    [3/40]\r\n  b```\n  \x1b[1mc\x1b[0m\n```"
    first = _paste.clean_lines(text)
    assert first == ["a", "b", "c"]
    first.append("mutated")
    assert _paste.clean_lines(text) == ["a", "b", "c"]
    assert _paste.clean_lines(text, dedent=False) == ["  a", "  b", "  c"]
    assert _paste.clean_lines(b"x\ny") == ["x", "y"] and _paste.clean_lines(None) == []


@given(st.lists(st.sampled_from(["", "  ", "```", "```bash", "~~~", "x    [12/345]", "a]", "\t\tkey: v",
                                 "\x1b[31mred\x1b[0m", "y```", "\r", "ü ∑", "  deb x"]), max_size=12))
def test_clean_lines_matches_the_uncached_cleaner(parts):
    text = "\n".join(parts)
    for dedent in (True, False):
        got = _paste.clean_lines(text, dedent)
        assert got == _reference_clean(text, dedent)
        # and what a clean-up must give, whatever the implementation
        assert not any("\r" in line or "\x1b" in line or line != line.rstrip() for line in got)
        assert not any(line.strip().startswith(("```", "~~~")) and line.strip("`~ bash") == "" for line in got)
        assert not any(line.endswith("[12/345]") for line in got)


def _reference_clean(text: str, dedent: bool):
    """The clean-up as it was written before the cache and the substring pre-checks."""
    import re

    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
    out = []
    for line in text.split("\n"):
        if re.match(r"^\s*(```|~~~)[\w+-]*\s*$", line):
            continue
        line = re.sub(r"\s{4,}\[\d+/\d+\]\s*$", "", line)
        if "```" in line:
            line = re.sub(r"\s*```\s*$", "", line)
        out.append(line.rstrip())
    return _paste._dedent(out) if dedent else out


# -- lazy patterns ---------------------------------------------------------------------------------------

def test_lazy_pattern_compiles_on_first_use_and_acts_like_re():
    rx = lazy(r"(?P<k>\w+)=(\d+)")
    assert rx._rx is None
    assert rx.match("a=1").group("k") == "a" and rx._rx is not None
    assert rx.split("x a=1 y") == ["x ", "a", "1", " y"]
    assert rx.subn("-", "a=1 b=2") == ("- -", 2)
    assert rx.groupindex == {"k": 1} and rx.groups == 2
    with pytest.raises(AttributeError):
        rx.no_such_attribute


# -- bundle text sniffing ---------------------------------------------------------------------------------

@given(st.binary(max_size=400) | st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_is_text_counts_like_the_per_character_loop(data):
    def reference(data: bytes) -> bool:
        if not data:
            return False
        head = data[:8192]
        if b"\x00" in head:
            return False
        text = head.decode("utf-8", errors="replace")
        bad = sum(1 for c in text if c == "\ufffd" or (ord(c) < 32 and c not in "\n\r\t\f\x1b"))
        return bad <= max(8, len(text) // 20)

    assert bundle._is_text(data) == reference(data)
