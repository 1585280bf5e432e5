"""What a dnf or zypper run did to rpm's database, as the journal and ``rollback`` say it (issue 26):
the database a plan changes is chosen by its steps' kinds, ``rpm -qa`` is read into ``name ->
version`` (several versions joined, each imported key its own entry), and the commands that would
go back are dnf's or zypper's, never apt's.  The real runs are in tests/integration/test_exec_dnf.py
(and test_zypper_sles.py)."""
from __future__ import annotations

import subprocess

from rocm_wizard.execute import pkgdb
from rocm_wizard.execute.rollback import cannot_undo, package_changes

# rpm -qa --qf pkgdb.RPM_QF on a Rocky 9 host (shape: NAME<TAB>[EPOCH:]VERSION-RELEASE)
QA_BEFORE = """rocm-core\t6.2.4.60204-1.el9
rocm\t6.2.4.60204-1.el9
kernel-core\t5.14.0-427.13.1.el9_4
kernel-core\t5.14.0-362.8.1.el9_3
gpg-pubkey\tfd431d51-4ae0493b
hipcc\t1.1.1.60204-1.el9
perl-Errno\t1.30-480.el9
shadow-utils\t2:4.9-8.el9
"""
QA_AFTER = """rocm-core\t6.4.3.60403-1.el9
rocm\t6.4.3.60403-1.el9
kernel-core\t5.14.0-427.13.1.el9_4
kernel-core\t5.14.0-362.8.1.el9_3
gpg-pubkey\tfd431d51-4ae0493b
gpg-pubkey\t1a693c5c-65d5a1b2
amdgpu-dkms\t1:6.8.5.60403-1.el9
perl-Errno\t1.30-480.el9
shadow-utils\t2:4.9-8.el9
"""


def test_the_plans_steps_say_which_database_it_changes():
    assert pkgdb.tool_of(["apt-key", "apt-install", "file"]) == "apt"
    assert pkgdb.tool_of(["rpm-key", "file", "dnf-install"]) == "dnf"
    assert pkgdb.tool_of(["zypper-key", "zypper-repos", "zypper-install", "file"]) == "zypper"
    assert pkgdb.tool_of(["pip-install", "venv"]) == "apt"  # no rpm step: dpkg, as before
    assert [pkgdb.db_of(t) for t in ("apt", "dnf", "zypper")] == ["dpkg", "rpm", "rpm"]
    assert pkgdb.BEFORE_FILES == {"dpkg": "dpkg-before.json", "rpm": "rpm-before.json"}


def test_rpm_qa_is_read_by_name_with_keys_apart_and_several_versions_joined():
    got = pkgdb.parse_rpm_qa(QA_BEFORE + "garbage line\n\t\nname with space\t1-1\n")
    assert got["rocm"] == "6.2.4.60204-1.el9" and got["shadow-utils"] == "2:4.9-8.el9"
    assert got["kernel-core"] == "5.14.0-362.8.1.el9_3, 5.14.0-427.13.1.el9_4"
    assert got["gpg-pubkey-fd431d51"] == "fd431d51-4ae0493b" and "gpg-pubkey" not in got
    assert len(got) == 7


def test_dnf_rollback_says_what_changed_and_prints_dnf_commands_that_go_back():
    changes = package_changes(pkgdb.parse_rpm_qa(QA_BEFORE + "distro-tool\t1.0-1.el9\n"),
                              pkgdb.parse_rpm_qa(QA_AFTER))
    assert [c["name"] for c in changes] == ["amdgpu-dkms", "distro-tool", "gpg-pubkey-1a693c5c", "hipcc", "rocm",
                                            "rocm-core"]
    text = "\n".join(cannot_undo(changes, {"steps": [{"kind": "rpm-key"}, {"kind": "dnf-install"}]}))
    assert "apt-get" not in text and "zypper" not in text
    assert "  rocm: 6.2.4.60204-1.el9 -> 6.4.3.60403-1.el9" in text
    assert "  hipcc: 1.1.1.60204-1.el9 -> (removed)" in text
    assert "sudo dnf --refresh downgrade rocm-6.2.4.60204-1.el9 rocm-core-6.2.4.60204-1.el9" in text
    assert "sudo dnf --refresh install distro-tool-1.0-1.el9 hipcc-1.1.1.60204-1.el9" in text
    assert "sudo dnf remove amdgpu-dkms" in text
    assert "  signing key gpg-pubkey-1a693c5c: (not installed) -> 1a693c5c-65d5a1b2" in text
    assert "sudo rpm -e gpg-pubkey-1a693c5c-65d5a1b2" in text
    assert "amdgpu kernel module stays the new one (1:6.8.5.60403-1.el9)" in text


def test_zypper_rollback_prints_zypper_commands():
    changes = package_changes({"rocm": "6.2.4.60204-sles156.1", "kernel-default": "5.14.21-150500.55.65.1, 6.4.0-1.1"},
                              {"rocm": "6.4.3.60403-sles156.1", "kernel-default": "6.4.0-1.1", "hip": "1:6.4.3-1"})
    text = "\n".join(cannot_undo(changes, {"steps": [{"kind": "zypper-key"}, {"kind": "zypper-install"}]}))
    assert "apt-get" not in text and "dnf" not in text
    assert "sudo zypper refresh" in text
    assert "sudo zypper install --oldpackage rocm=6.2.4.60204-sles156.1" in text
    assert "sudo zypper remove hip" in text
    # which of several earlier versions to go back to is the user's choice, named, not guessed
    assert "kernel-default: several versions were installed before; pick them by hand" in text
    assert "kernel-default=" not in text


def test_nothing_changed_says_nothing_about_packages():
    assert cannot_undo([], {"steps": [{"kind": "dnf-install"}]}) == []
    assert package_changes(pkgdb.parse_rpm_qa(QA_BEFORE), pkgdb.parse_rpm_qa(QA_BEFORE)) == []


def test_rpm_versions_asks_rpm_for_a_root_of_its_own(tmp_path):
    """The real rpm on an empty database under a test directory: the query format is rpm's."""
    from rwtest import ci

    root = tmp_path / "r"
    root.mkdir()
    init = subprocess.run([ci.tool("rpm"), "--root", str(root), "--initdb"], capture_output=True, text=True)
    assert init.returncode == 0, init.stderr
    assert pkgdb.rpm_versions(str(root)) == {}
    assert pkgdb.rpm_versions(str(tmp_path / "no-such-root")) in (None, {})
