"""Held-out set BB (HELDOUT.md): known error texts printed under another locale.  detect/translations.toml holds the
messages the catalogue quotes in English with their translations from the printing program's own po files (glibc's
loader and strerror texts); the errors probe scans a paste a second time with the English messages in place and records
what it finds with the line as pasted.  Tested on the translations of the table, on whole pastes against their English
form, and on near-misses (prose, a text without a translation)."""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from rocm_wizard.detect import translations
from rwtest.heldout import doctor_files, problems

ROWS = (Path(__file__).resolve().parents[2] / "src" / "rocm_wizard" / "detect" / "failures.toml").read_text(
    encoding="utf-8").lower()


def _messages():
    from rocm_wizard.catalog import _data

    path = Path(translations.__file__).with_name("translations.toml")
    return _data.parse_toml_file(str(path), _data._PKG_ROOT)["message"]


def test_every_message_is_one_the_catalogue_quotes_and_has_a_source():
    for msg in _messages():
        assert msg["msgid"].lower() in ROWS, msg["msgid"]
        assert msg["source"].startswith("bminor/glibc "), msg["source"]
        assert len(msg["msgstr"]) >= 8, msg["msgid"]


def test_each_translation_reads_as_its_english_message_and_keeps_the_lines():
    for msg in _messages():
        for lang, text in msg["msgstr"].items():
            pasted = "first line\nlib.so.1: %s\nlast line" % text
            en = translations.english(pasted)
            assert en == "first line\nlib.so.1: %s\nlast line" % msg["msgid"], (lang, text)


@pytest.mark.parametrize("text", [
    "rocminfo: error while loading shared libraries: libhsa-runtime64.so.1: cannot open shared object file: "
    "No such file or directory\n",                                            # already English
    "Ich habe keinen Zugriff, aber sonst läuft alles.\n",                     # prose, no message of the table
    "",
])
def test_a_text_without_a_translation_is_left_alone(text):
    assert translations.english(text) is None


# the same paste in English and in another locale (glibc's own translations): the same findings, the pasted line quoted
@pytest.mark.parametrize("english, translated", [
    ("rocminfo: error while loading shared libraries: libhsa-runtime64.so.1: cannot open shared object file: "
     "No such file or directory",
     "rocminfo: Fehler beim Laden der Shared Libraries: libhsa-runtime64.so.1: Kann die Shared-Object-Datei nicht "
     "öffnen: Datei oder Verzeichnis nicht gefunden"),
    ("ImportError: libamdhip64.so.6: cannot open shared object file: No such file or directory",
     "ImportError: libamdhip64.so.6: 无法打开共享目标文件: 没有那个文件或目录"),
    ("Unable to open /dev/kfd read-write: Permission denied",
     "Unable to open /dev/kfd read-write: Keine Berechtigung"),
    ("Unable to open /dev/kfd read-write: Permission denied",
     "Unable to open /dev/kfd read-write: Отказано в доступе"),
    ("Unable to open /dev/kfd read-write: Invalid argument",
     "Unable to open /dev/kfd read-write: Argumento inválido"),
])
def test_a_translated_paste_gets_the_findings_of_its_english_form(english, translated):
    want = problems(doctor_files(Path(tempfile.mkdtemp()), {"a.txt": "ROCk module is loaded\n" + english + "\n"}))
    diag = doctor_files(Path(tempfile.mkdtemp()), {"a.txt": "ROCk module is loaded\n" + translated + "\n"})
    assert want and problems(diag) == want
    evidence = "\n".join(e for f in diag.findings for e in f.evidence)
    assert translated in evidence  # the line as pasted, not its English form
    assert english not in evidence


def test_prose_with_a_translated_word_gets_no_finding():
    diag = doctor_files(Path(tempfile.mkdtemp()), {"a.txt": "Ich habe Keine Berechtigung für den Ordner gebraucht.\n"})
    assert problems(diag) == []


def test_known_lines_leaves_out_what_the_pasted_text_gave_already():
    text = "x: Permission denied\ny: Keine Berechtigung\n"

    def scan(t):
        return [("row", line) for line in t.split("\n") if "Permission denied" in line]

    assert translations.known_lines(text, scan, scan(text)) == [("row", "y: Keine Berechtigung")]


# the catch-all reads a translated paste the same way: a program killed by SIGSEGV under another locale
@pytest.mark.parametrize("translated", [
    "Speicherzugriffsfehler (Speicherabzug geschrieben)",   # de: glibc's strsignal, bash's "(core dumped)" as 1362 shows it
    "段错误 (核心已转储)",                                     # zh_CN
    "Ошибка сегментирования",                                # ru, without a core file
    "Erreur de segmentation (core dumped)",                  # fr: glibc's strsignal
])
def test_a_translated_crash_line_is_heard_as_the_english_one(translated):
    english = "$ python train.py\nSegmentation fault (core dumped)\n"
    want = problems(doctor_files(Path(tempfile.mkdtemp()), {"a.txt": english}))
    diag = doctor_files(Path(tempfile.mkdtemp()), {"a.txt": "$ python train.py\n%s\n" % translated})
    assert want and problems(diag) == want
    assert translated in "\n".join(e for f in diag.findings for e in f.evidence)


@pytest.mark.parametrize("prose", [
    "Ich habe die Installation abgebrochen und neu gestartet.",   # 'Aborted' is not in the table: a word of prose
    "Die Datei liegt im Verzeichnis /opt/rocm, alles gefunden.",
])
def test_prose_is_not_heard_as_a_failure(prose):
    assert problems(doctor_files(Path(tempfile.mkdtemp()), {"a.txt": prose + "\n"})) == []
