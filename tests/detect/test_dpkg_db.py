"""dpkg's database read from its files (``detect/dpkg_db.py``) says what ``dpkg-query -W`` and
``dpkg --audit`` say: checked against the real tools (``--admindir`` on a database built in a
temporary directory: nothing of this machine's dpkg state is read), on clean databases and on
every state, flag and info-file problem that the audit reports, where the files must give way to
the tool."""
from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

import pytest

from rocm_wizard.detect import dpkg_db
from rocm_wizard.detect.sources import KIND_COMMANDS, LiveSource

pytestmark = pytest.mark.skipif(shutil.which("dpkg-query") is None or shutil.which("dpkg") is None,
                                reason="needs dpkg and dpkg-query (Debian-like system)")

QUERY_FORMAT = KIND_COMMANDS["dpkg"][0][2]  # -f=...


def _stanza(name: str, version: str = "1.0-1", status: str = "install ok installed", arch: str = "amd64",
            extra: str = "") -> str:
    return ("Package: %s\nStatus: %s\nPriority: optional\nSection: misc\nInstalled-Size: 10\n"
            "Maintainer: Someone <s@example.org>\nArchitecture: %s\nVersion: %s\n%sDescription: %s package\n"
            " a longer description\n .\n with a paragraph\n" % (name, status, arch, version, extra, name))


def _admindir(root: Path, stanzas: List[str], info: Optional[List[str]] = None, fmt: str = "1",
              arch_file: Optional[str] = None, updates: Dict[str, str] = None) -> Path:
    """``root/var/lib/dpkg`` with a status file of ``stanzas`` (dpkg of amd64 first) and, unless
    ``info`` names them, a list and an md5sums file for every installed package."""
    admin = root / "var" / "lib" / "dpkg"
    (admin / "info").mkdir(parents=True)
    (admin / "updates").mkdir()
    all_stanzas = [_stanza("dpkg", "1.21.22")] + stanzas
    (admin / "status").write_text("\n".join(all_stanzas) + "\n", encoding="utf-8")
    (admin / "available").write_text("", encoding="utf-8")
    (admin / "info" / "format").write_text(fmt + "\n", encoding="utf-8")
    if info is None:
        info = []
        for st in dpkg_db.stanzas("\n".join(all_stanzas)):
            if st["status"].endswith(" installed") and not st["status"].endswith("not-installed"):
                base = st["package"] + (":" + st["architecture"] if st.get("multi-arch") == "same" else "")
                info += [base + ".list", base + ".md5sums"]
    for name in info:
        (admin / "info" / name).write_text("", encoding="utf-8")
    if arch_file is not None:
        (admin / "arch").write_text(arch_file, encoding="utf-8")
    for name, text in (updates or {}).items():
        (admin / "updates" / name).write_text(text, encoding="utf-8")
    return admin


def _tools(admin: Path):
    env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL": "C"}
    q = subprocess.run(["dpkg-query", "--admindir=%s" % admin, "-W", QUERY_FORMAT], capture_output=True, env=env)
    a = subprocess.run(["dpkg", "--admindir=%s" % admin, "--audit"], capture_output=True, env=env)
    return q.stdout.decode(), a.stdout.decode()


def _files(root: Path):
    src = LiveSource(root=str(root), commands=True, environ={"PATH": "/usr/bin:/bin"})
    return src._dpkg_from_files("dpkg"), src._dpkg_from_files("dpkg-audit")


CLEAN = [
    [],
    [_stanza("rocm-core", "7.2.1.70201-81~24.04"), _stanza("rocminfo", "1:1.0.0.70201-81~24.04")],
    [_stanza("libfoo", "2.0", status="deinstall ok config-files"), _stanza("zz-top", "0.1")],
    [_stanza("gone", "1.0", status="purge ok not-installed"), _stanza("hip-runtime-amd", "7.2.1-1")],
    [_stanza("held", "3.1-2", status="hold ok installed"), _stanza("allarch", "1.0", arch="all")],
    [_stanza("libmulti", "1.0", extra="Multi-Arch: same\n"), _stanza("b-pkg", "2.0+dfsg-1")],
]


@pytest.mark.parametrize("case", range(len(CLEAN)))
def test_a_clean_database_is_answered_from_the_files_as_the_tools_answer(tmp_path, case):
    admin = _admindir(tmp_path, CLEAN[case])
    query, audit = _tools(admin)
    assert audit == ""
    q, a = _files(tmp_path)
    assert q is not None and q.text == query and q.source == "file:/var/lib/dpkg/status"
    assert a is not None and a.text == "" and a.rc == 0


PROBLEMS = {
    "unpacked": dict(stanzas=[_stanza("rocm-core", status="install ok unpacked")]),
    "half-configured": dict(stanzas=[_stanza("rocm-core", status="install ok half-configured")]),
    "half-installed": dict(stanzas=[_stanza("rocm-core", status="install reinstreq half-installed")]),
    "reinstreq": dict(stanzas=[_stanza("rocm-core", status="install reinstreq installed")]),
    "triggers-pending": dict(stanzas=[_stanza("libc-bin", status="install ok triggers-pending",
                                              extra="Triggers-Pending: ldconfig\n")]),
    "missing list": dict(stanzas=[_stanza("rocm-core")], info=["dpkg.list", "dpkg.md5sums", "rocm-core.md5sums"]),
    "missing md5sums": dict(stanzas=[_stanza("rocm-core")], info=["dpkg.list", "dpkg.md5sums", "rocm-core.list"]),
    "multi-arch same under its bare name": dict(stanzas=[_stanza("libm", extra="Multi-Arch: same\n")],
                                                info=["dpkg.list", "dpkg.md5sums", "libm.list", "libm.md5sums"]),
    "unknown foreign architecture": dict(stanzas=[_stanza("libx", arch="i386")]),
}


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_a_database_the_audit_complains_about_is_left_to_dpkg(tmp_path, name):
    admin = _admindir(tmp_path, **PROBLEMS[name])
    query, audit = _tools(admin)
    assert audit.strip(), name  # the real tool reports it
    q, a = _files(tmp_path)
    assert a is None  # so the files give way and dpkg --audit runs
    if q is not None:  # the package list itself may still come from the files: then exactly as the tool
        assert q.text == query


def test_a_registered_foreign_architecture_is_clean(tmp_path):
    admin = _admindir(tmp_path, [_stanza("libx", arch="i386", extra="Multi-Arch: same\n")], arch_file="amd64\ni386\n")
    query, audit = _tools(admin)
    assert audit == ""
    q, a = _files(tmp_path)
    assert q.text == query and a.text == ""


def test_a_pending_journal_or_an_old_layout_leaves_both_to_the_tools(tmp_path):
    _admindir(tmp_path / "j", [_stanza("rocm-core")], updates={"0000": _stanza("rocm-core", "2.0")})
    assert _files(tmp_path / "j") == (None, None)
    _admindir(tmp_path / "old", [_stanza("rocm-core")], fmt="0")
    q, a = _files(tmp_path / "old")
    assert q is not None and a is None


def test_two_architectures_of_one_package_leave_the_list_to_dpkg_query(tmp_path):
    admin = _admindir(tmp_path, [_stanza("libm", arch="amd64", extra="Multi-Arch: same\n"),
                                 _stanza("libm", arch="i386", extra="Multi-Arch: same\n")], arch_file="amd64\ni386\n")
    q, a = _files(tmp_path)
    assert q is None
    assert a.text == _tools(admin)[1] == ""


def test_without_commands_or_a_database_nothing_is_read(tmp_path):
    _admindir(tmp_path, [_stanza("rocm-core")])
    got = LiveSource(root=str(tmp_path), commands=False).outputs("dpkg")
    assert [(r.text, r.error) for r in got] == [(None, "commands disabled for this source")]
    shutil.rmtree(tmp_path / "var")
    assert LiveSource(root=str(tmp_path), commands=True)._dpkg_from_files("dpkg") is None


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("id") is None,
                    reason="needs root to give a child process groups of the test's choosing")
@pytest.mark.parametrize("groups", [[], [44], [44, 12345, 0], [65534, 44]])
def test_the_session_groups_are_what_id_prints(groups):
    # a child process with groups of the test's choosing: its own credentials read as `id` prints them
    code = ("import os, subprocess, sys; os.setgroups(%r); os.setgid(%d); "
            "from rocm_wizard.detect.probes import access; from rocm_wizard.detect.sources import LiveSource; "
            "raw = access._session_id(LiveSource()); out = subprocess.run(['id'], capture_output=True, text=True).stdout; "
            "print(repr((access.parse_id(raw.text), access.parse_id(out))))" % (groups, 44))
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stderr
    ours, ids = ast.literal_eval(res.stdout)
    assert ours == ids and ours[2][0][0] == 44


@pytest.mark.parametrize("version", ["0:1.0", "01:2.0-1", "2:1.0:3-1", "1.0-1", "1:7.2.1.70201-81~24.04"])
def test_a_version_dpkg_would_print_otherwise_leaves_the_list_to_dpkg_query(tmp_path, version):
    # dpkg prints a version back in its own form (no epoch 0, the epoch as a number): the files
    # answer only for versions that are already in that form
    admin = _admindir(tmp_path, [_stanza("rocm-core", version)])
    query, _audit = _tools(admin)
    q, _a = _files(tmp_path)
    assert q is None or q.text == query
    assert (q is None) == (version in ("0:1.0", "01:2.0-1", "2:1.0:3-1"))
