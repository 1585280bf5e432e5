"""Measure doctor on the labelled real fixtures re-rendered the ways other sites carry a paste.

    python scripts/paste_renderings.py [RENDERING,...] [--detect]

A log copied out of a web page, a chat or a mail is rarely what the terminal printed (see
``src/rocm_wizard/detect/paste_text.py``).  For each rendering named (all by default) this script
writes every failing labelled fixture of tests/data/real again with its text files rendered that
way (into a temporary folder, removed after), runs detection and diagnosis on the copy, and prints
how many are warned, have a finding at the labelled layer and lead at it, against the fixtures as
stored, with the fixtures that lost their layer.  The renderings undone by paste_text.normalise are
the first nine (a service's lines in the journal since s25, when they are most of the paste); the others
(hard-wrapped lines, lost line breaks, list bullets) are measured to show what is not undone.  With ``--detect``, the labelled detection fields
right instead (the checks of tests/detect/test_real_fixtures.py, run on each copy).
"""
from __future__ import annotations

import html
import re
import shutil
import sys
import tempfile
from pathlib import Path

try:
    import tomllib  # type: ignore[import-not-found]
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from rocm_wizard.detect import detect_snapshot  # noqa: E402
from rocm_wizard.doctor import diagnose  # noqa: E402

PROBLEM = ("warning", "error", "critical")


def _lines(text, fn):
    return "\n".join(fn(line) for line in text.split("\n"))


def nbsp(text):
    """every space a no-break space (HTML's rendering of a run of spaces, kept by a copy)"""
    return text.replace(" ", "\u00a0")


def smart_quotes(text):
    """a typographer's quotes (Discourse, Word, macOS outside code blocks)"""
    text = text.replace("'", "\u2019")
    return re.sub(r'"([^"\n]*)"', "\u201c\\1\u201d", text)


def entities(text):
    """escaped once too often (&quot; &#x27; &lt; &gt; &amp;)"""
    return html.escape(text, quote=True)


def reply_quote(text):
    """each line quoted as a mail or Markdown reply quotes it"""
    return _lines(text, lambda line: "> " + line)


def escaped_breaks(text):
    """the whole output on one line with \\n escapes (a JSON string, a Python repr)"""
    return text.replace("\n", "\\n")


def compose(text):
    """each line behind Docker Compose's container column"""
    return _lines(text, lambda line: "app-1  | " + line)


def ci_timestamps(text):
    """each line behind an RFC 3339 stamp (a CI runner's raw log, docker logs -t)"""
    return "\n".join("2026-03-01T10:11:%02d.1234567Z %s" % (i % 60, line) for i, line in enumerate(text.split("\n")))


def kubectl_prefix(text):
    """each line behind kubectl logs --prefix's pod and container"""
    return _lines(text, lambda line: "[pod/vllm-0/vllm] " + line)


def journal_service(text):
    """each line as the journal holds a service's output (syslog's stamp, host, process[pid])"""
    return _lines(text, lambda line: "Mar 01 10:11:12 host python3[4242]: " + line)


def wrapped80(text):
    """hard-wrapped at 80 columns (a mailing list, a narrow terminal's copy)"""
    out = []
    for line in text.split("\n"):
        while len(line) > 80:
            out.append(line[:80])
            line = line[80:]
        out.append(line)
    return "\n".join(out)


def joined_pairs(text):
    """every two lines joined by a space (a page that lost half its breaks)"""
    ls = text.split("\n")
    return "\n".join(" ".join(ls[i:i + 2]) for i in range(0, len(ls), 2))


def bullets(text):
    """each line made a list item"""
    return _lines(text, lambda line: "- " + line if line.strip() else line)


RENDERINGS = {f.__name__: f for f in (nbsp, smart_quotes, entities, reply_quote, escaped_breaks, compose,
                                       ci_timestamps, kubectl_prefix, journal_service, wrapped80, joined_pairs,
                                       bullets)}


def failing_fixtures():
    real = REPO / "tests" / "data" / "real"
    out = []
    for d in sorted(p for p in real.iterdir() if (p / "labels.toml").is_file()):
        lab = tomllib.loads((d / "labels.toml").read_text(encoding="utf-8"))
        layer = lab.get("failure_layer")
        if "failure_class" not in lab or lab["failure_class"] == "none" or layer in (None, "", "none"):
            continue
        out.append((d, layer))
    return out


def outcome(folder, layer):
    """(warned, a finding at the layer, the lead at the layer) for one folder."""
    probs = [f for f in diagnose(detect_snapshot(str(folder))).findings if f.severity in PROBLEM]
    return bool(probs), any(f.layer == layer for f in probs), bool(probs) and probs[0].layer == layer


def render(folder: Path, into: Path, fn) -> Path:
    """A copy of ``folder`` in ``into`` with its text files (not labels.toml) rendered by ``fn``."""
    out = into / folder.name
    out.mkdir(parents=True)
    for p in folder.iterdir():
        if not p.is_file() or p.name == "labels.toml":
            continue
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            shutil.copy(p, out / p.name)
            continue
        (out / p.name).write_text(fn(text), encoding="utf-8")
    return out


def detection(names) -> None:
    """With ``--detect``: the labelled detection fields (tests/detect/test_real_fixtures.py's checks, each field of each
    fixture) right on the fixtures as stored and on each rendering."""
    import tempfile as _tempfile

    sys.path.insert(0, str(REPO / "tests"))
    import pytest
    from detect import test_real_fixtures as trf  # (the test module's checks, run here one by one)

    cases = [c.values if hasattr(c, "values") else c for c in trf._cases()]
    print("| rendering | detection fields right | wrong |")
    print("|---|---|---|")
    tmp = Path(_tempfile.mkdtemp(prefix="rw-renderings."))
    try:
        for name in ["as stored"] + list(names):
            fn, cache = RENDERINGS.get(name), {}

            def system_of(folder, fn=fn, cache=cache, name=name):
                if folder not in cache:
                    cache[folder] = detect_snapshot(str(folder if fn is None else render(folder, tmp / name, fn)))
                return cache[folder]

            trf.system_of = system_of
            ok = bad = 0
            for folder, field in cases:
                try:
                    trf.test_real_fixture_field(folder, field)
                    ok += 1
                except pytest.skip.Exception:
                    pass
                except AssertionError:
                    bad += 1
            print("| %s | %d | %d |" % (name, ok, bad))
            shutil.rmtree(tmp / name, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv) -> int:
    if "--detect" in argv:
        argv = [a for a in argv if a != "--detect"]
        names = argv[1].split(",") if len(argv) > 1 else list(RENDERINGS)
        detection(names)
        return 0
    names = argv[1].split(",") if len(argv) > 1 else list(RENDERINGS)
    unknown = [n for n in names if n not in RENDERINGS]
    if unknown:
        print("unknown rendering(s): %s (known: %s)" % (", ".join(unknown), ", ".join(RENDERINGS)), file=sys.stderr)
        return 2
    fixtures = failing_fixtures()
    base = {d.name: outcome(d, layer) for d, layer in fixtures}

    def totals(res):
        return tuple(sum(v[i] for v in res.values()) for i in range(3))

    print("| rendering | warned | at the layer | lead at it | lost the layer |")
    print("|---|---|---|---|---|")
    print("| as stored | %d | %d | %d | |" % totals(base))
    tmp = Path(tempfile.mkdtemp(prefix="rw-renderings."))
    try:
        for name in names:
            res, lost = {}, []
            for d, layer in fixtures:
                res[d.name] = outcome(render(d, tmp / name, RENDERINGS[name]), layer)
                if base[d.name][1] and not res[d.name][1]:
                    lost.append(d.name.split("-", 1)[0])
            shutil.rmtree(tmp / name)
            print("| %s | %d | %d | %d | %d%s |" % ((name,) + totals(res) + (len(lost), (": " + " ".join(lost[:20])) if lost else "")))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("\n%d failing labelled fixtures." % len(fixtures))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
