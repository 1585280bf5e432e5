"""Issue 27, LOW item: ``catalog status`` printed the Python tags ``catalog refresh`` learnt from an
index raw.  With ``packaging`` 23.0 (the dependency range allows it) a wheel file name's python tag
is kept as written, so a hostile index can put terminal control sequences (an OSC title, a screen
clear, C1 controls) into the overlay, and root's terminal ran them.  Here the whole command runs
(``python -m rocm_wizard catalog status``) on an overlay file holding what such an index gives; its
output carries the entries, never a control character, in text and as JSON."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EVIL_TAG = "cp312\x1b]0;owned\x07\x1b[2J\x9b31m"
EVIL_SOURCE = "https://mirror.example/simple/torch/\x1b[31mred\x1b[0m"


def overlay(tmp_path) -> Path:
    data = {
        "schema": "rocm-wizard-catalog-overlay/1", "created": "2026-11-26",
        "sources": {"pytorch\x1b[5m": {"url": EVIL_SOURCE, "read_at": "2026-11-26\x07"}},
        "warnings": ["learnt from a mirror\x1b]52;c;cm0gLXJmIH4=\x07"],
        "torch": [{"version": "9.9.9", "index": "rocm9.9", "python_tags": [EVIL_TAG, "cp311"],
                   "torchvision": "0.99.0", "torchaudio": "9.9.9", "source": EVIL_SOURCE}],
        "docker_tags": [{"tag": "rocm9.9_ubuntu24.04_py3.12_pytorch_9.9.9\x1b[2J", "source": EVIL_SOURCE}],
        "rocm_releases": [], "torch_indexes": {},
    }
    path = tmp_path / "catalog-overlay.json"
    path.write_text(json.dumps(data))
    os.chmod(path, 0o644)  # root reads only a file of its own, writable by root alone
    return path


def status(path, *more):
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), ROCM_WIZARD_CATALOG_OVERLAY=str(path))
    return subprocess.run([sys.executable, "-m", "rocm_wizard", "catalog", "status", *more], capture_output=True,
                          text=True, env=env, timeout=120, cwd=str(REPO))


def controls(text: str):
    return sorted({hex(ord(c)) for c in text if (c < " " and c not in "\n\t") or "\x7f" <= c <= "\x9f"})


def test_catalog_status_prints_a_hostile_overlays_tags_without_control_sequences(tmp_path):
    path = overlay(tmp_path)
    res = status(path)
    assert res.returncode == 0, res.stderr
    assert "torch 9.9.9+rocm9.9" in res.stdout and "cp312" in res.stdout and "cp311" in res.stdout, res.stdout
    assert "mirror.example" in res.stdout, res.stdout
    assert controls(res.stdout) == [] and controls(res.stderr) == [], (res.stdout, res.stderr)

    as_json = status(path, "--json")
    assert as_json.returncode == 0, as_json.stderr
    doc = json.loads(as_json.stdout)  # JSON keeps the data (escaped), for a program to judge
    assert controls(as_json.stdout) == [] and controls(as_json.stderr) == []
    assert any(EVIL_TAG in t.get("python_tags", []) for t in doc["added"]["torch"])
