"""``failure_lines.scan`` over a kernel log looks only at the lines that name the GPU stack and hold
a needle (the only lines ``classify`` can take there), and the table compiles its patterns when
first used.  The answer must be the one pass of the word pattern over every line gives."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rocm_wizard.detect import failure_lines
from rwtest import ci


def _both(text, kind="dmesg", known=()):
    told_a, told_b = [], []
    a = failure_lines.scan([(text, kind, "cmd:dmesg")], known, told=told_a)
    b = failure_lines.scan([(text, kind, "cmd:dmesg")], known, told=told_b, prefilter=False)
    return (a, told_a), (b, told_b)


def test_every_fixture_read_as_a_kernel_log_gives_the_same_lines():
    rows = texts = 0
    for folder in ci.real_fixtures():
        for path in sorted(folder.iterdir()):
            if not path.is_file() or path.suffix == ".toml":
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            fast, full = _both(text)
            assert fast == full, path
            rows += len(fast[0]) + len(fast[1])
            texts += 1
    assert texts > 300 and rows > 100  # the fixtures' kernel logs do have failure lines


_WORDS = failure_lines.table().kernel_words[:12] + ("error", "failed", "fault", "default", "timed out", "-error",
                                                     "amdgpu:", "ring gfx timeout", "I get this error", "Error:")
_pieces = st.lists(st.one_of(st.sampled_from(_WORDS), st.text(alphabet="abcXYZ :-_[].\t`*0123456789İ", max_size=6)),
                   max_size=8).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(_pieces, max_size=12), crlf=st.booleans())
def test_random_kernel_logs_give_the_same_lines(lines, crlf):
    text = ("\r\n" if crlf else "\n").join(lines)
    fast, full = _both(text)
    assert fast == full


def test_patterns_are_compiled_when_first_used():
    t = failure_lines._Table({"words": ["error"], "benign": ["no error"], "layer": [{"layer": "kernel", "pattern": "amdgpu"}],
                              "message_shapes": [r"\w+: "], "kernel_log_kinds": ["dmesg"], "kernel_log_words": ["amdgpu"]})
    assert not {"word_rx", "benign_rx", "layers", "shape_rx"} & set(vars(t))
    assert t.word_rx.search("an error") and "benign_rx" not in vars(t)
    assert [layer for layer, _rx in t.layers] == ["kernel"] and t.shape_rx.search("amdgpu: x")
    assert t.benign_rx.search("no error here")
