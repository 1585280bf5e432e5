"""The sweep of the stack's own failure strings (issue 28; docs/coverage-sources.md).

``tests/data/coverage_sources.toml`` lists user-visible messages of the stack's sources (HIP's
error strings, ROCr's status strings, CLR, rocBLAS/hipBLASLt, MIOpen, RCCL, PyTorch, Triton's AMD
backend, amdgpu/amdkfd, and the workloads: llama.cpp/ggml, Ollama, vLLM, ComfyUI, TensorFlow, JAX...), each with the source that prints it and a status:

* ``covered`` / ``added``: the catalogue (``detect/failures.toml`` with the Python rows of
  ``detect/error_signatures.py``) knows the message: ``row`` is the first row that matches it and
  ``layer`` the layer the user must act on; ``doctor`` over a folder holding only that line reports
  a warning or worse at that layer.
* ``left``: not a failure, or not added; ``why`` says which.

Most lines are the source's format string filled in with plausible values (the sweep read the
format in the source, not a user's paste); where a public line was found it is used as printed,
and rows added by the sweep keep such lines in ``tests/data/failure_examples.toml`` with their URL.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib  # type: ignore[import-not-found]
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from rocm_wizard.detect import detect_snapshot, error_signatures
from rocm_wizard.doctor import diagnose

REPO = Path(__file__).resolve().parents[2]
TABLE = REPO / "tests" / "data" / "coverage_sources.toml"
DOC = REPO / "docs" / "coverage-sources.md"
STATUSES = ("covered", "added", "left")
PROBLEM = ("warning", "error", "critical")

with TABLE.open("rb") as _fh:
    MESSAGES = tomllib.load(_fh)["message"]
KNOWN = [pytest.param(m, id=m.get("row", "?") + ":" + m["line"][:40]) for m in MESSAGES if m["status"] != "left"]


def _rule_layers():
    with (REPO / "src" / "rocm_wizard" / "doctor" / "rules.toml").open("rb") as fh:
        rules = tomllib.load(fh)["rule"]
    out = {}
    for r in rules:
        for sid in r.get("error_signatures", []):
            out.setdefault(sid, r.get("layer"))
    return out


def test_the_table_is_well_formed_and_covers_each_source():
    assert len(MESSAGES) >= 150
    lines = [m["line"] for m in MESSAGES]
    assert len(lines) == len(set(lines)), "a message is listed twice"
    for m in MESSAGES:
        assert m["status"] in STATUSES, m
        # the source names a repository (owner/name) and the file or function that prints it
        assert re.search(r"\b[\w.-]+/[\w.-]+\b", m["source"]), m["source"]
        if m["status"] == "left":
            assert len(m.get("why", "")) > 20, m
        else:
            assert m["layer"] in error_signatures.LAYERS and m["row"], m
    # every source the sweep was asked for has messages in the table
    for repo in ("ROCm/clr", "ROCm/ROCR-Runtime", "ROCm/rocBLAS", "ROCm/hipBLASLt", "ROCm/MIOpen", "ROCm/rccl",
                 "pytorch/pytorch", "triton-lang/triton", "torvalds/linux",
                 # the workloads above PyTorch and beside it (s9-sweepfw)
                 "ggml-org/llama.cpp", "ollama/ollama", "vllm-project/vllm", "comfyanonymous/ComfyUI", "vladmandic/sdnext",
                 "AUTOMATIC1111/stable-diffusion-webui", "ROCm/tensorflow-upstream", "jax-ml/jax", "microsoft/onnxruntime",
                 "bitsandbytes-foundation/bitsandbytes", "facebookresearch/xformers", "deepspeedai/DeepSpeed", "ROCm/flash-attention",
                 # the math and communication libraries beyond the first sweep (s9-sweeplib)
                 "ROCm/composable_kernel",
                 # the package managers and installers (s9-sweeppkg)
                 "Debian/apt", "dpkg/dpkg", "dell/dkms", "rpm-software-management/dnf", "rpm-software-management/librepo",
                 "openSUSE/libsolv", "openSUSE/zypper", "archlinux/pacman", "pypa/pip", "astral-sh/uv", "conda/conda"):
        assert any(m["source"].startswith(repo) for m in MESSAGES), repo


@pytest.mark.parametrize("m", KNOWN)
def test_the_catalogue_knows_the_message_at_its_layer(m):
    hits = [s.id for s, _line in error_signatures.scan(m["line"])]
    assert m["row"] in hits, (m["row"], hits)
    # the first catalogue row that matches (the one known-failure quotes first) is at the table's
    # layer: a row added later that claims the message at another layer fails here
    rows = [h for h in hits if error_signatures.failure(h) is not None]
    if rows and error_signatures.failure(m["row"]) is not None:
        assert error_signatures.failure_layer(rows[0]) == m["layer"], (rows[0], m["layer"])


def test_added_rows_name_the_source_the_table_names():
    for m in MESSAGES:
        if m["status"] != "added":
            continue
        row = error_signatures.failure(m["row"])
        assert row is not None, m["row"]
        repo = m["source"].split()[0]
        assert repo.lower() in row.source.lower() or repo.split("/")[1].lower() in row.source.lower(), (repo, row.source)


def test_doctor_reports_each_known_message_at_its_layer(tmp_path):
    """doctor over a folder that holds only the message: a warning or worse at the table's layer
    (the layer a rule gives may differ from the row's, e.g. a missing firmware file alone is the
    firmware's); a message left as 'not a failure' gets no known-failure finding."""
    wrong = []
    rule_layers = _rule_layers()
    for i, m in enumerate(MESSAGES):
        d = tmp_path / str(i)
        d.mkdir()
        (d / "log.txt").write_text(m["line"] + "\n", encoding="utf-8")
        findings = diagnose(detect_snapshot(str(d))).findings
        problems = {(f.id, f.layer) for f in findings if f.severity in PROBLEM}
        if m["status"] == "left":
            assert not any(fid == "known-failure" for fid, _l in problems), (m["line"], problems)
            continue
        if m["layer"] not in {layer for _fid, layer in problems}:
            wrong.append((m["line"][:80], m["layer"], sorted(problems), rule_layers.get(m["row"])))
    assert not wrong, wrong


def test_the_doc_shows_the_table_as_it_is():
    """docs/coverage-sources.md carries the table as scripts/coverage_sources_table.py prints it."""
    out = subprocess.run([sys.executable, str(REPO / "scripts" / "coverage_sources_table.py")],
                         capture_output=True, text=True, check=True).stdout
    doc = DOC.read_text(encoding="utf-8")
    start, end = doc.index("<!-- table: begin -->"), doc.index("<!-- table: end -->")
    assert doc[start + len("<!-- table: begin -->"):end].strip() == out.strip(), \
        "docs/coverage-sources.md is stale: run scripts/coverage_sources_table.py --write"
