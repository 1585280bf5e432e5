"""The one terminal sanitiser (issue 14, item 4) and the paths that print outside text through it."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import rocm_wizard.demo
from rocm_wizard import termsafe
from rocm_wizard.detect.sources import command_key
from rocm_wizard.plan import shell
from rocm_wizard.plan.shellquote import comment, q
from rocm_wizard.tui.screens.findings import finding_body
from rocm_wizard.tui.text import short

ESC, BEL, ST = "\x1b", "\x07", "\x1b\\"
ATTACKS = {
    "osc52-bel": ESC + "]52;c;cm0gLXJmIH4vCg==" + BEL,
    "osc52-st": ESC + "]52;p;cm0gLXJm" + ST,
    "osc0-title": ESC + "]0;root shell" + BEL,
    "osc8-link": ESC + "]8;;http://evil.example/" + ST + "docs" + ESC + "]8;;" + ST,
    "dcs": ESC + "P+q544e" + ST,
    "dcs-decrqss": ESC + "P$qm" + ST,
    "sos": ESC + "Xhidden" + ST,
    "pm": ESC + "^privacy" + ST,
    "apc": ESC + "_Gf=100;AAAA" + ST,
    "csi": ESC + "[2J" + ESC + "[1;31m",
    "csi-8bit": "\x9b2J\x9b31m",
    "osc-8bit": "\x9d52;c;AAAA\x9c",
    "dcs-8bit": "\x90+q544e\x9c",
    "apc-8bit": "\x9fhidden\x9c",
    "lone-esc": ESC + "\n",  # (ESC then a blank and a letter is a 3-byte sequence to a terminal)
    "esc-charset": ESC + "(0",
    "c0": "\x08\x08\x08\r\x0b\x0c\x7f\x00\x05",
    "unterminated-osc": ESC + "]52;c;AAAA",
}
DEMO = Path(rocm_wizard.demo.__file__).parent / "system"
CONTROL = [chr(c) for c in range(0x20) if chr(c) not in "\t\n"] + [chr(c) for c in range(0x7F, 0xA0)]


def _no_control(text: str) -> bool:
    return not any(c in text for c in CONTROL)


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_every_kind_of_sequence_is_removed(name):
    out = termsafe.clean("before " + ATTACKS[name] + " after")
    assert _no_control(out), repr(out)
    assert out.startswith("before ")
    if name != "unterminated-osc":  # that one runs to the line's end, as a terminal would read it
        assert out.endswith(" after")
    assert "52;" not in out and "root shell" not in out and "http://evil" not in out and "hidden" not in out


def test_plain_text_is_kept():
    text = "Ubuntu 24.04.1 LTS\tgfx1100 ✓ über [391/1815] $'x'\nnext line"
    assert termsafe.clean(text) is text
    assert termsafe.clean("a\r\nb") == "a\nb"
    assert termsafe.clean_line("a\nb\tc") == "a b c"
    assert termsafe.clean(None) == "" and termsafe.clean(b"x\x1b[1my") == "xy" and termsafe.clean(12) == "12"


def test_json_stays_json_with_c1_escaped():
    value = {"name": "GPU" + "".join(ATTACKS.values()), "ü": ["\x85", "ok"]}
    text = termsafe.json_c1(json.dumps(value, ensure_ascii=False))
    assert json.loads(text) == value
    assert _no_control(text.replace("\n", ""))
    assert termsafe.clean_tree(value) == {"name": "GPUdocs\n", "ü": ["", "ok"]}  # (the link text stays)


# -- generated scripts ---------------------------------------------------------------------------

HOSTILE_VENV = "/home/u/v" + ATTACKS["osc52-bel"] + ATTACKS["csi-8bit"] + "x' $(id) `id`"


def test_q_is_exact_and_keeps_control_bytes_out_of_the_script():
    word = q(HOSTILE_VENV)
    assert word.startswith("$'") and _no_control(word)
    out = subprocess.run(["bash", "-c", "printf %s " + word], capture_output=True, check=True).stdout
    assert out.decode("utf-8") == HOSTILE_VENV  # the path itself is unchanged
    assert q("/home/u/venv") == "/home/u/venv" and q("a b\nc") == "'a b\nc'"  # plain values as before
    assert _no_control(comment(HOSTILE_VENV + "\nrm -rf /")) and "\n" not in comment("a\nb")


def test_script_messages_are_cleaned_when_the_script_runs(tmp_path):
    script = tmp_path / "s.sh"
    script.write_text("#!/usr/bin/env bash\n" + shell._prelude() + f"\nv={q(HOSTILE_VENV)}\n"
                      'rw_say "venv $v"\nrw_warn "in $v"\n'
                      f"rw_show_diff /nonexistent {q('line ' + ATTACKS['osc8-link'] + chr(10))}\n")
    res = subprocess.run(["bash", str(script)], capture_output=True, env={**os.environ, "DRY_RUN": "1"})
    err = res.stderr.decode("utf-8")
    assert res.returncode == 0, err
    assert "venv /home/u/v" in err and "warning: in /home/u/v" in err and "+line" in err
    assert _no_control(err.replace("\n", "")), repr(err)


# -- detect, doctor, TUI text ---------------------------------------------------------------------

def _hostile_bundle(tmp_path):
    """The bundled demo system with terminal sequences in its os-release, uname and GPU env."""
    root = tmp_path / "bundle"
    shutil.copytree(DEMO, root)
    os_release = root / "files" / "etc" / "os-release"
    os_release.unlink()  # (a copy of a packaged file may be read-only)
    os_release.write_text(
        'NAME="Ubuntu"\nID=ubuntu\nVERSION_ID="22.04"\n'
        f'PRETTY_NAME="Ubuntu 22.04 {ATTACKS["osc52-bel"]}{ATTACKS["osc0-title"]}{ATTACKS["csi-8bit"]}"\n')
    (root / "env.json").unlink()
    (root / "env.json").write_text(json.dumps({"HSA_OVERRIDE_GFX_VERSION": "11.0.0" + ATTACKS["dcs"] + ATTACKS["osc-8bit"]}))
    uname = root / "commands" / (command_key(["uname", "-a"]) + ".txt")
    uname.unlink()
    uname.write_text("Linux box 6.8.0-45-generic" + ATTACKS["osc8-link"] + ATTACKS["apc"] + " #45 SMP x86_64 GNU/Linux\n")
    return root


@pytest.mark.parametrize("argv", [["detect"], ["detect", "--json"], ["doctor"], ["doctor", "--json"]])
def test_detect_and_doctor_print_no_terminal_sequences(tmp_path, argv):
    root = _hostile_bundle(tmp_path)
    res = subprocess.run([sys.executable, "-m", "rocm_wizard", *argv, "--snapshot", str(root)], capture_output=True,
                         env=dict(os.environ), timeout=300)
    assert res.returncode in (0, 2), res.stderr.decode()
    out = res.stdout.decode("utf-8")
    assert "gfx1100" in out or "rocm" in out.lower()
    assert _no_control(out.replace("\n", "").replace("\t", "")), repr(out)
    assert _no_control(res.stderr.decode("utf-8").replace("\n", ""))
    if "--json" in argv:
        json.loads(out)  # still JSON, the sequences escaped or removed
    if argv == ["detect"]:
        assert "Ubuntu 22.04" in out and "11.0.0" in out


def test_tui_text_has_no_terminal_sequences():
    class F:
        title = "Bad " + ATTACKS["osc0-title"]
        evidence = ["line " + ATTACKS["osc52-st"]]
        explanation = "why " + ATTACKS["csi-8bit"]
        fix = "fix " + ATTACKS["dcs"]
        path = "rocm-upgrade"
        community = False
        sources = ["src " + ATTACKS["apc"]]
        severity = "error"

    assert _no_control(finding_body(F()).plain.replace("\n", ""))
    assert short("venv " + ATTACKS["osc8-link"], 40) == "venv docs"


SEED = Path(__file__).resolve().parent / "plan" / "systems" / "seed-rx7900xt-jammy-rocm6.2.json"


@pytest.mark.parametrize("fmt", ["shell", "ansible", "json"])
def test_a_hostile_venv_name_reaches_no_plan_format_raw(fmt):
    venv = "/opt/v" + ATTACKS["osc52-bel"] + ATTACKS["csi-8bit"] + "x"
    res = subprocess.run([sys.executable, "-m", "rocm_wizard", "--plan-only", "--snapshot", str(SEED), "--path",
                          "torch-reinstall", "--torch", "2.3.0+rocm6.0", "--venv", venv, "--format", fmt],
                         capture_output=True, env=dict(os.environ), timeout=300)
    out, err = res.stdout.decode("utf-8"), res.stderr.decode("utf-8")
    assert res.returncode == 2, err
    assert _no_control(out.replace("\n", "").replace("\t", "")) and _no_control(err.replace("\n", ""))
    if fmt == "shell":
        assert q(venv) in out  # the exact path, quoted; never the raw bytes
    if fmt == "json":
        assert json.dumps(venv)[1:-1] in json.dumps(json.loads(out))  # the exact path, escaped
