"""dpkg's lines handed to the rocm probe as data (``dpkg_db.query_rows`` ->
``packages.from_query_rows``) give the packages that parsing the ``dpkg-query -W`` text made of
them gives (``packages.parse(dpkg_db.query_text(...))``, the path before), on every status, flag
and version form the files may hold; and a live source reading dpkg's files carries the rows with
the text, which the rocm probe takes (same facts either way)."""
from __future__ import annotations

import itertools

from rocm_wizard.detect import dpkg_db
from rocm_wizard.detect.parsers import packages
from rocm_wizard.detect.sources import LiveSource
from rocm_wizard.model import System

WANTS = ("unknown", "install", "hold", "deinstall", "purge")
FLAGS = ("ok", "reinstreq")
STATES = ("not-installed", "config-files", "half-installed", "unpacked", "half-configured", "triggers-awaited",
          "triggers-pending", "installed")
VERSIONS = ("6.2.4.60204-139~24.04", "1:2.3-1ubuntu2", "", "0.13.0.60202", "7.14.0~20260622-27922350966", "1.0+dfsg~b1")
NAMES = ("rocm-core", "rocminfo", "hip-runtime-amd", "libc6", "amdrocm-core-sdk10.0-gfx1201", "g++-13", "python3.12")


def _entries():
    out = []
    for i, (want, flag, state) in enumerate(itertools.product(WANTS, FLAGS, STATES)):
        name = "%s%s" % (NAMES[i % len(NAMES)], "" if i < len(NAMES) else "-x%d" % i)
        out.append({"package": name, "status": "%s %s %s" % (want, flag, state),
                    "version": VERSIONS[i % len(VERSIONS)], "architecture": "amd64"})
    return out


def test_rows_give_the_packages_the_text_gives():
    entries = _entries()
    rows = dpkg_db.query_rows(entries)
    text = dpkg_db.query_text(entries)
    assert rows and "".join("%s\t%s\t%s\n" % r for r in rows) == text
    by_rows, by_text = packages.from_query_rows(rows), packages.parse(text)
    assert by_text.packages and by_rows.packages == by_text.packages and by_rows.format == by_text.format
    assert by_rows.warnings == by_text.warnings
    # the states differ where they should: some installed, some not, an empty version is None
    assert {p.installed for p in by_rows.packages} == {True, False}
    assert any(p.version is None for p in by_rows.packages)
    assert packages.from_query_rows([]).packages == packages.parse("").packages == []


def test_rows_are_none_where_the_text_is():
    bad = _entries() + [{"package": "Bad Name", "status": "install ok installed", "version": "1"}]
    assert dpkg_db.query_rows(bad) is None and dpkg_db.query_text(bad) is None


def _root(tmp_path, entries):
    admin = tmp_path / "var" / "lib" / "dpkg"
    (admin / "updates").mkdir(parents=True)
    stanzas = ["Package: %(package)s\nStatus: %(status)s\nArchitecture: amd64\nVersion: %(version)s\n" % e
               for e in entries]
    (admin / "status").write_text("\n".join(stanzas), encoding="utf-8")
    return tmp_path


def test_the_rocm_probe_takes_the_rows_with_the_same_facts(tmp_path):
    from rocm_wizard.detect.probes import rocm

    entries = [e for e in _entries() if e["version"]]
    src = LiveSource(root=str(_root(tmp_path, entries)))
    raws = src.outputs("dpkg")
    assert len(raws) == 1 and raws[0].text == dpkg_db.query_text(entries)
    assert raws[0].dpkg_rows == dpkg_db.query_rows(entries)
    found_rows = rocm._dpkg_parsed(src, System())
    plain = LiveSource(root=str(tmp_path))
    found_text = [(raw, packages.parse(raw.text)) for raw in plain.outputs("dpkg")]
    kept = [p for p in found_text[0][1].packages if packages.is_rocm_package(p.name)]
    assert kept and found_rows[0][1].packages == kept
    assert found_rows[0][0].text == found_text[0][0].text
