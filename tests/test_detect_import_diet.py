"""What a detection must not import (``benchmarks/README.md``: importing modules is most of a live
``detect --json``'s CPU time).  Each case runs the command in a fresh interpreter, in-process, with
``PYTHONDONTWRITEBYTECODE=1`` (many container images set it; then no ``__pycache__`` cache of
parsed TOML can be written) and lists the modules it loaded.

- no TOML parser: the package's tables come from their shipped parsed forms (``rocm_wizard/_parsed``);
- on a live system, none of the parsers that only read pasted text (a live run has none);
- no OpenSSL bindings (``hashlib``): the shipped forms are found with the built-in SHA-256;
- where no ROCm tool printed anything, none of the tools' parsers (``probes._gpu_shared.tool_parser``);
- no ``shutil`` (with ``bz2``, ``lzma``): argparse's help formatter gets its width from ``cli._Formatter``
  and the command start finds tools with ``live_start.which``;
- not the WSL parser, which reads pasted texts only (a live WSL system is told by its kernel and files).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from rwtest import ci

REPO = Path(__file__).resolve().parents[1]

RUNNER = r"""
import io, json, os, runpy, sys, contextlib
sys.argv = ["rocm-wizard"] + json.loads(os.environ["RW_ARGV"])
out = io.StringIO()
code = None
with contextlib.redirect_stdout(out):
    try:
        runpy.run_module("rocm_wizard", run_name="__main__")
    except SystemExit as exc:
        code = exc.code
sys.__stdout__.write(json.dumps({"modules": sorted(sys.modules), "code": code, "out": out.getvalue()[:200]}))
"""

NEVER = ("tomllib", "tomli", "hashlib", "_hashlib")
LIVE_NEVER = ("shutil", "bz2", "lzma", "_bz2", "_lzma", "rocm_wizard.detect.parsers.wsl")
# read only from their files or pasted outputs: none of them on a machine without ROCm (the captured
# tree below); the parsers of pasted pip and rocm-sdk lists, and of a kernel log given as one, never live
NO_ROCM_NEVER = tuple("rocm_wizard.detect.parsers." + n for n in ("hipconfig", "opt_listing", "rocm_version"))
LIVE_PASTE_ONLY = tuple("rocm_wizard.detect.parsers." + n for n in ("pip_freeze", "rocm_sdk", "dmesg"))
TOOL_PARSERS = tuple("rocm_wizard.detect.parsers." + n for n in ("amd_smi", "rocm_smi", "rocminfo", "lspci", "dkms",
                                                                "apt_policy"))
PASTE_ONLY = ("rocm_wizard.detect.parsers.paste_facts", "rocm_wizard.detect.parsers.issue_form",
              "rocm_wizard.detect.parsers.lshw")


def modules_of(*argv: str):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["RW_ARGV"] = json.dumps(list(argv))
    r = subprocess.run([sys.executable, "-c", RUNNER], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["code"] in (0, None) and res["out"].startswith("{"), res
    return set(res["modules"])


def test_the_check_can_fail():
    """A snapshot made of pastes does use the paste parsers: the listing sees them."""
    loaded = modules_of("detect", "--json", "--snapshot", str(ci.real_fixture("019")))
    assert "rocm_wizard.detect.parsers.paste_facts" in loaded
    assert "rocm_wizard.detect.parsers.rocminfo" in loaded and "rocm_wizard.detect.parsers.amd_smi" in loaded


def test_live_detect_imports_no_toml_parser_and_no_paste_parser():
    loaded = modules_of("detect", "--json")
    assert not loaded & set(NEVER)
    assert not loaded & set(PASTE_ONLY)
    assert not loaded & set(LIVE_NEVER)
    assert not loaded & set(LIVE_PASTE_ONLY)


def test_snapshot_detect_imports_no_toml_parser():
    loaded = modules_of("detect", "--json", "--snapshot", str(ci.real_fixture("019")))
    assert not loaded & set(NEVER)


def test_detect_where_no_tool_printed_imports_no_tool_parser(tmp_path):
    """A captured tree with no tool output (commands do not run for one): the gpus and rocm probes
    load none of the tools' parsers."""
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "version").write_text("Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP\n")
    loaded = modules_of("detect", "--json", "--root", str(tmp_path))
    assert "rocm_wizard.detect.probes.gpus" in loaded and "rocm_wizard.detect.probes.rocm" in loaded
    assert not loaded & set(TOOL_PARSERS)
    assert not loaded & set(NO_ROCM_NEVER + LIVE_PASTE_ONLY)


def test_live_detect_scans_the_kernel_log_without_loading_the_error_table():
    """The errors probe scans the kernel log through the table's shipped index
    (``detect/error_index.py``): the table module, which unmarshals the whole failure catalogue, is
    not loaded; a snapshot of pastes (the recogniser asks the table) does load it."""
    assert "rocm_wizard.detect.error_signatures" not in modules_of("detect", "--json")
    assert "rocm_wizard.detect.error_signatures" in modules_of("detect", "--json", "--snapshot",
                                                               str(ci.real_fixture("019")))


def test_live_detect_imports_no_dataclasses():
    """The records, the parsers' records and the catalogue rows a live detection builds are made by
    ``model.lean_dataclass`` without :mod:`dataclasses` (and the ``inspect``, ``ast`` and ``dis``
    it imports); a snapshot of pastes (their paste-only records go to ``@dataclass``) does import it."""
    loaded = modules_of("detect", "--json")
    assert not loaded & {"dataclasses", "inspect", "ast", "dis"}
    assert "dataclasses" in modules_of("detect", "--json", "--snapshot", str(ci.real_fixture("019")))
