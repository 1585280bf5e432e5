"""Splitting pastes at prompts / fences and recognising each part by content."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from rwtest import ci

from rocm_wizard.detect import recognize
from rocm_wizard.detect.sources import KIND_COMMANDS

REAL = ci.REAL

ROCMINFO = """\
ROCk module is loaded
=====================
HSA System Attributes
=====================
Runtime Version:         1.14
==========
HSA Agents
==========
*******
Agent 2
*******
  Name:                    gfx1100
  Marketing Name:          Radeon RX 7900 XTX
  Device Type:             GPU
*** Done ***
"""

LSMOD = "amdgpu              19632128  0\namdttm                110592  2 amdgpu,amddrm_ttm_helper\n"
DPKG = "ii  rocm-core  6.2.2.60202-116~24.04  amd64  Radeon Open Compute (ROCm) Runtime software stack\n"


@pytest.mark.parametrize("prompt", [
    "$ lsmod | grep amdgpu",
    "user@host:~$ lsmod | grep amdgpu",
    "(venv) user@host:~/work$ lsmod | grep amdgpu",
    "[root@x ~]# lsmod | grep amdgpu",
    "root@hs2 ~# lsmod | grep amdgpu",
    "~# lsmod | grep amdgpu",
])
def test_prompt_forms_split_and_label(prompt):
    text = "$ rocminfo\n" + ROCMINFO + prompt + "\n" + LSMOD
    segs = recognize.recognize(text)
    assert [(k, l) for k, _t, l in segs] == [("rocminfo", "rocminfo"), ("lsmod", "lsmod | grep amdgpu")]
    assert "amdgpu" in segs[1][1] and "lsmod" not in segs[1][1]


def test_markdown_fences_split():
    text = ("Here is my setup.\n\n```\n" + ROCMINFO + "```\n\nand the modules:\n```bash\n" + LSMOD + "```\n")
    kinds = [k for k, _t, _l in recognize.recognize(text)]
    assert "rocminfo" in kinds and "lsmod" in kinds


def test_prompt_directly_followed_by_fence_keeps_its_label():
    text = "$ dpkg -l | grep rocm\n```\n" + DPKG + "```\n"
    segs = [s for s in recognize.recognize(text) if s[0]]
    assert segs == [("dpkg", DPKG, "dpkg -l | grep rocm")]


def test_bare_command_line_at_the_start():
    segs = recognize.recognize("lsmod | grep amdgpu\n" + LSMOD)
    assert [(k, l) for k, _t, l in segs] == [("lsmod", "lsmod | grep amdgpu")]


def test_hash_comment_is_not_a_prompt():
    text = "# deb https://repo.radeon.com/rocm/apt/6.2 jammy main\ndeb [arch=amd64] https://repo.radeon.com/rocm/apt/6.2.4 jammy main\n"
    segs = recognize.recognize(text)
    assert len(segs) == 1 and segs[0][0] == "apt-sources"


def test_command_hint_rescues_short_outputs():
    segs = recognize.recognize("$ uname -r\n6.8.0-45-generic\n")
    assert segs[0][0] == "uname"
    kind, _ = recognize.classify("6.8.0-45-generic\n", "uname -r")
    assert kind == "uname"


def test_unrecognised_text_has_no_kind():
    assert recognize.recognize("just some words\nabout my day\n") == [(None, "just some words\nabout my day\n", "part 1")]
    assert recognize.recognize("") == []


def test_crlf_and_indentation():
    text = "\r\n".join("    " + l for l in ROCMINFO.splitlines()) + "\r\n"
    (seg,) = recognize.recognize(text)
    assert seg[0] == "rocminfo"


def test_missing_registry_modules_are_ignored(monkeypatch):
    monkeypatch.setattr(recognize, "PARSERS", recognize.PARSERS + ("rocm_wizard.detect.parsers.does_not_exist",))
    monkeypatch.setattr(recognize, "_loaded", None)
    mods = recognize.parser_modules()
    assert mods and all(m.__name__ != "rocm_wizard.detect.parsers.does_not_exist" for m in mods)
    assert recognize.recognize(ROCMINFO)[0][0] == "rocminfo"


def test_every_registered_kind_is_known():
    for mod in recognize.parser_modules():
        assert mod.KIND in KIND_COMMANDS, mod.__name__


# what each real file is (the file names are not used by the code: content decides)
EXPECTED = {
    ("001", "rocminfo.txt"): ["rocminfo"],
    ("008", "collect_env.txt"): ["collect_env"],
    ("010", "rocm-smi-a.txt"): ["rocm-smi"],
    ("010", "rocminfo.txt"): ["rocminfo"],
    ("011", "lspci.txt"): ["lspci"],
    ("011", "os-release.txt"): ["os-release"],
    ("011", "rocm-smi-showproductname.txt"): ["rocm-smi"],
    ("011", "rocm-smi.txt"): ["rocm-smi"],
    ("011", "uname.txt"): ["uname"],
    ("013", "dpkg-rocm.txt"): ["dpkg"],
    ("013", "lsmod-amdgpu.txt"): ["lsmod"],
    ("013", "rocminfo.txt"): ["rocminfo"],
    ("017", "rocminfo.txt"): ["rocminfo"],
    ("019", "amd-smi-list.txt"): ["amd-smi"],
    ("019", "amd-smi-static.txt"): ["amd-smi"],
    ("019", "amd-smi-version.txt"): ["amd-smi-version"],
    ("019", "collect_env.txt"): ["collect_env"],
    ("019", "rocminfo.txt"): ["rocminfo"],
    ("021", "rocminfo.txt"): ["rocminfo"],
    ("026", "apt-list-rocm.txt"): ["apt-list"],
    ("026", "lshw-video.txt"): ["lshw"],
    ("026", "rocminfo.txt"): ["rocminfo"],
    ("028", "dnf-amdgpu.txt"): ["dnf-list"],
    ("028", "dnf-rocm.txt"): ["dnf-list"],
    ("028", "lsmod-amdgpu.txt"): ["lsmod"],
    ("028", "rocm-smi-idle.txt"): ["rocm-smi"],
    ("028", "rocminfo.txt"): ["rocminfo"],
    ("028", "uname.txt"): ["uname"],
}


def _real(prefix: str, name: str) -> str:
    if not REAL.is_dir():
        ci.missing(f"shared fixtures not present at {REAL}")
    folder = next((p for p in REAL.iterdir() if p.name.startswith(prefix)), None)
    if folder is None or not (folder / name).is_file():
        ci.missing(f"fixture {prefix}*/{name} not present in {REAL}")
    return (folder / name).read_text(encoding="utf-8", errors="replace")


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_real_files_recognised_by_content(key):
    text = _real(*key)
    kinds = [k for k, _t, _l in recognize.recognize(text)]
    assert kinds == EXPECTED[key]


def test_real_files_glued_into_one_terminal_paste():
    # 028's files were one continuous terminal paste, split at the prompts; glue them back
    parts = [_real("028", n) for n in ("system-release.txt", "uname.txt", "dnf-rocm.txt", "dnf-amdgpu.txt",
                                       "lsmod-amdgpu.txt", "rocm-smi-idle.txt")]
    segs = recognize.recognize("".join(p if p.endswith("\n") else p + "\n" for p in parts))
    kinds = [k for k, _t, _l in segs]
    assert kinds == ["os-release", "uname", "dnf-list", "dnf-list", "lsmod", "rocm-smi"]
    assert segs[2][2] == "dnf list --installed | grep rocm"


def test_every_real_paste_recognition_never_raises():
    if not REAL.is_dir():
        ci.missing(f"shared fixtures not present at {REAL}")
    for path in sorted(REAL.glob("*/*.txt")):
        for kind, text, label in recognize.recognize(path.read_text(encoding="utf-8", errors="replace")):
            assert kind is None or kind in KIND_COMMANDS
            assert isinstance(text, str) and isinstance(label, str)


def test_hint_wins_when_the_content_agrees():
    assert recognize.recognize("$ cat /opt/rocm/.info/version\n6.2.4-139\n")[0][0] == "rocm-info-version"
    assert recognize.recognize("$ /opt/rocm/bin/rocm_agent_enumerator\ngfx000\ngfx1100\n")[0][0] == "rocminfo"
    # a hint the content contradicts is not taken
    assert recognize.recognize("$ rocminfo\nbash: rocminfo: command not found\n")[0][0] != "rocminfo"


def test_tool_names_inside_output_do_not_split_it():
    text = "$ pacman -Q | grep rocm\nrocm-core 6.4.1-1\nrocminfo 6.4.1-1\nrocm-smi-lib 6.4.1-1\n"
    (seg,) = recognize.recognize(text)
    assert seg[0] == "pacman-list" and seg[1].count("\n") == 3
    # but a bare command after a blank line starts a new output
    glued = "lsmod | grep amdgpu\n" + LSMOD + "\ndpkg -l | grep rocm\n" + DPKG
    assert [(k, l) for k, _t, l in recognize.recognize(glued)] == [("lsmod", "lsmod | grep amdgpu"),
                                                                   ("dpkg", "dpkg -l | grep rocm")]
