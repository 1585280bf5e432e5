"""A distribution named only by its pretty name (an issue form's "OS:", fastfetch, hostnamectl, prose
fields) gets the ID its own /etc/os-release carries: checked against every real os-release file of
tests/data/os-release (SOURCES.md), and for names typed without "Linux"."""
from pathlib import Path

import pytest

from rocm_wizard.detect.parsers import os_release

FILES = sorted(p for p in (Path(__file__).resolve().parents[1] / "data" / "os-release").iterdir() if p.name != "SOURCES.md")


def _fields(path: Path):
    out = {}
    for line in path.read_text().splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            out[k] = v.strip().strip('"')
    return out


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_pretty_name_gives_the_files_id(path):
    f = _fields(path)
    r = os_release.from_pretty(f["PRETTY_NAME"])
    assert r.id == f["ID"]
    if f.get("VERSION_ID") and f["VERSION_ID"] in f["PRETTY_NAME"].replace("-SP", "."):
        assert r.version_id in (f["VERSION_ID"], f["VERSION_ID"].rsplit(".", 1)[0])


@pytest.mark.parametrize("pretty, ident, version", [
    ("SUSE Linux Enterprise Server 15 SP7", "sles", "15.7"),  # os-release VERSION_ID="15.7"
    ("SLES 15-SP6", "sles", "15.6"),
    ("Bazzite 43", "bazzite", "43"),
    ("Bazzite", "bazzite", None),
    ("Nobara Linux 43 (KDE Plasma Desktop Edition)", "nobara", "43"),
    ("Garuda Linux", "garuda", None),
    ("RHEL 9.6", "rhel", "9.6"),
    ("Rocky 9.5", "rocky", "9.5"),
    ("Tumbleweed", "opensuse-tumbleweed", None),
    ("KDE neon 24.04", "neon", "24.04"),
])
def test_names_typed_by_users(pretty, ident, version):
    r = os_release.from_pretty(pretty)
    assert (r.id, r.version_id) == (ident, version)


@pytest.mark.parametrize("pretty", ["Windows 11 Pro 24H2", "macOS 15.1", "Linux Lite 7.4"])
def test_names_it_does_not_know_stay_unknown(pretty):
    assert os_release.from_pretty(pretty).id is None
