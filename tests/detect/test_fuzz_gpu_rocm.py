"""Property tests: the GPU/ROCm parsers, the recogniser and the probes never raise, whatever the
text -- random, or a real paste cut, spliced, re-indented, re-encoded or sprinkled with junk."""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from rwtest import ci
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from rocm_wizard.detect import recognize
from rocm_wizard.detect.parsers import (amd_smi, apt_policy, apt_prefs, apt_sources, dkms, hipconfig, lshw, lsmod,
                                        lspci, packages, rocm_sdk, rocm_smi, rocminfo, sysfs)
from rocm_wizard.detect.parsers import rocm_version as rv

REAL = ci.REAL

PARSERS = (amd_smi, apt_policy, apt_prefs, apt_sources, dkms, hipconfig, lshw, lsmod, lspci, packages, rocm_sdk, rocm_smi,
           rocminfo, sysfs)

SAMPLES = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(REAL.glob("*/*.txt"))] if REAL.is_dir() else []
SAMPLES += [  # small inline samples so the test means something without the shared fixtures
    "ROCk module is loaded\n=====================\nHSA System Attributes\n*******\nAgent 1\n*******\n  Name:  gfx1100\n",
    "GPU[0]\t\t: Card series: \t\tNavi 21 [Radeon RX 6800/6800 XT / 6900 XT]\n",
    "GPU: 0\n    ASIC:\n        DEVICE_ID: 0x150e\n",
    "0000:03:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 [1002:744c] (rev c8)\n",
    "ii  rocm-core  6.2.2.60202-116~24.04  amd64  x\n",
    "amdgpu/6.8.5-2041575.24.04, 6.8.0-45-generic, x86_64: installed\n",
    "deb [arch=amd64 signed-by=/k.gpg] https://repo.radeon.com/rocm/apt/6.2.4 noble main\n",
    "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n",
    "ii  amdrocm-core-sdk10.0-gfx1201  10.0.0-4  amd64  x\namdrocm7.14-gfx1100-7.14.0-27.el9.x86_64\n",
    "HIP version  : 7.15.26333-0000000\nROCM_PATH    : /opt/rocm/core-10.0\nHIP_VERSION_MAJOR=7\nHIP_VERSION_MINOR=15\n",
    "gfx1100;gfx1101;gfx1102\n7.14.0\n",
    "rocm-core:\n  Installed: (none)\n  Candidate: 1\n  Version table:\n     1 500\n        500 http://x/ y/z amd64 Packages\n",
]

JUNK = st.sampled_from(["", "\r", "\t", "```", "    [391/1815]", "\ufffd", "\x00", "$ ", "GPU[0]", ":", "0x", "*******",
                        "Agent 1", "Name:", "  ", "\n", "deb [", "Types:", "Pin-Priority:", "@", "#", "\x1b[31m",
                        "Marketing Name:", "Device Type: GPU", "BDFID: 99999999999999999999", "Chip ID: -1(0x)"])


@st.composite
def mutated(draw):
    base = draw(st.sampled_from(SAMPLES))
    lines = base.splitlines(keepends=True)
    ops = draw(st.lists(st.integers(0, 6), max_size=6))
    for op in ops:
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, draw(JUNK) + draw(st.text(max_size=20)) + "\n")
        elif op == 2:
            cut = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:cut]
        elif op == 3:
            lines = lines[: i + 1]
        elif op == 4:
            lines[i] = lines[i].replace(" ", "\t").replace(":", "")
        elif op == 5:
            lines = ["    " + l for l in lines]
        else:
            lines[i] = lines[i] + draw(JUNK)
    text = "".join(lines)
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    if draw(st.booleans()):
        text = text.encode("utf-8", "replace").decode("latin-1")
    return text


ANY_TEXT = st.one_of(st.text(max_size=400), mutated(), st.binary(max_size=300).map(lambda b: b.decode("utf-8", "replace")))
FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(ANY_TEXT)
def test_parsers_never_raise(text):
    for mod in PARSERS:
        score = mod.looks_like(text)
        assert 0.0 <= score <= 1.0
        mod.parse(text)
        if hasattr(mod, "kind_of"):
            assert isinstance(mod.kind_of(text), str)
    sysfs.parse_properties(text)
    sysfs.parse_uevent(text)
    sysfs.parse_hex(text)
    sysfs.parse_int(text)
    rv.parse_info_version(text)
    rv.parse_version_header(text)
    packages.release_of(text)
    packages.core_sdk_name(text)
    packages.core_sdk_release(text)
    apt_sources.classify_uri(text)


def _safety_nets():
    """file -> the lines of its last-resort ``except Exception:`` (each parser has one in parse())."""
    nets = {}
    for mod in PARSERS:
        lines = {i for i, line in enumerate(Path(mod.__file__).read_text().splitlines(), 1)
                 if re.match(r"\s*except Exception\b", line)}
        assert lines, f"{mod.__name__} has no safety net: fuzzing parse() alone is enough for it"
        nets[mod.__file__] = lines
    return nets


NETS = _safety_nets()


class NetWatch:
    """A trace function that records every time a parser's safety net catches something, with the
    exception it caught: the fuzzing then sees the parsers as if the net were not there."""

    def __init__(self) -> None:
        self.caught = []
        self._last = {}

    def __call__(self, frame, event, arg):
        return self._local if frame.f_code.co_filename in NETS else None

    def _local(self, frame, event, arg):
        if event == "exception":
            self._last[id(frame)] = arg[1]
        elif event == "line" and frame.f_lineno in NETS[frame.f_code.co_filename]:
            where = f"{Path(frame.f_code.co_filename).name}:{frame.f_lineno}"
            self.caught.append((where, repr(self._last.get(id(frame)))))
        return self._local


@settings(FUZZ, phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink])  # no tracing "explain"
@given(ANY_TEXT)
def test_parsers_do_not_rely_on_their_safety_net(text):
    # parse() ends in a last-resort ``except Exception``; the parsing itself must never need it
    watch = NetWatch()
    sys.settrace(watch)
    try:
        for mod in PARSERS:
            mod.parse(text)
    finally:
        sys.settrace(None)
    assert watch.caught == []


def test_the_net_watch_sees_a_caught_exception(monkeypatch):
    """The watcher above can fail: a parser whose inner code raises is reported, with the error."""
    def broken(*_a, **_k):
        raise ZeroDivisionError("inner bug")

    monkeypatch.setattr(rocm_smi, "_parse", broken)
    watch = NetWatch()
    sys.settrace(watch)
    try:
        rocm_smi.parse("GPU[0] : x\n")
    finally:
        sys.settrace(None)
    assert len(watch.caught) == 1 and "ZeroDivisionError('inner bug')" in watch.caught[0][1]


@FUZZ
@given(ANY_TEXT)
def test_recognize_never_raises(text):
    for kind, body, label in recognize.recognize(text):
        assert kind is None or isinstance(kind, str)
        assert isinstance(body, str) and isinstance(label, str)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(ANY_TEXT, min_size=1, max_size=3))
def test_probes_never_raise_on_pasted_junk(tmp_path_factory, texts):
    from rocm_wizard.detect.bundle import BundleSource
    from rocm_wizard.detect.probes import gpus, rocm
    from rocm_wizard.model import System, to_dict

    folder = tmp_path_factory.mktemp("paste")
    for i, t in enumerate(texts):
        (folder / ("p%d.txt" % i)).write_text(t, encoding="utf-8", errors="replace")
    src = BundleSource(str(folder))
    system = System(origin="snapshot")
    gpus.probe(src, system)
    rocm.probe(src, system)
    to_dict(system)  # JSON-ready whatever came in
    for g in system.gpus:
        assert g.is_amd in (True, False)


@pytest.mark.skipif(not SAMPLES, reason=ci.MISSING + "no samples (shared fixtures not available)")
def test_mutations_are_generated():
    # the strategy really changes texts (guards against a silently empty fuzz)
    seen = set()

    @settings(max_examples=30, deadline=None)
    @given(mutated())
    def collect(t):
        seen.add(t)

    collect()
    assert len(seen) > 5
