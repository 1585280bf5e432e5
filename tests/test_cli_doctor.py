"""`rocm-wizard doctor` end to end: arguments, JSON shape, human report, exit statuses."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rwtest import ci

from rocm_wizard.cli import main
from rocm_wizard.exitcodes import ERROR, OK, PENDING, USAGE
from rocm_wizard.model import to_dict

sys.path.insert(0, str(Path(__file__).resolve().parent / "doctor"))
from _doctor_systems import healthy  # noqa: E402

ALLOC = "RuntimeError: CUDA error: HIPBLAS_STATUS_ALLOC_FAILED when calling `hipblasCreate(handle)`\n"


def _write_system(tmp_path, sysm, name="system.json"):
    p = tmp_path / name
    p.write_text(json.dumps(to_dict(sysm)), encoding="utf-8")
    return str(p)


def _json_run(capsys, argv):
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, json.loads(out), err


def test_healthy_snapshot_exits_0_with_json(tmp_path, capsys):
    rc, doc, err = _json_run(capsys, ["doctor", "--snapshot", _write_system(tmp_path, healthy()), "--json"])
    assert rc == OK and err == ""
    assert doc["findings"] == [] and doc["problems"] == 0
    assert [r["path"] for r in doc["recommendations"]][0] == "torch-reinstall"
    for r in doc["recommendations"]:
        assert set(r) >= {"path", "rank", "target", "why"}


def test_problems_exit_2_and_findings_have_the_documented_keys(tmp_path, capsys):
    sysm = healthy()
    sysm.rocm.apt_pins = []
    log = tmp_path / "err.txt"
    log.write_text(ALLOC, encoding="utf-8")
    rc, doc, _ = _json_run(capsys, ["doctor", "--snapshot", _write_system(tmp_path, sysm), "--error-log", str(log), "--json"])
    assert rc == PENDING
    ids = [f["id"] for f in doc["findings"]]
    assert "apt-pin-missing" in ids and "hipblas-alloc-failed" in ids
    for f in doc["findings"]:
        assert set(f) >= {"id", "severity", "title", "evidence", "fix", "sources"}
        assert f["sources"] and isinstance(f["evidence"], list)
    ranked = [r for r in doc["recommendations"] if r["applies"]]
    assert ranked[0]["path"] == "rocm-upgrade" and ranked[0]["rank"] == 1


def test_error_log_from_stdin(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(ALLOC.encode())))
    rc, doc, _ = _json_run(capsys, ["doctor", "--snapshot", _write_system(tmp_path, healthy()), "--error-log", "-", "--json"])
    assert rc == PENDING and doc["findings"][0]["id"] == "hipblas-alloc-failed"


def test_info_only_findings_exit_0(tmp_path, capsys):
    log = tmp_path / "w.txt"
    log.write_text("UserWarning: Attempting to use hipBLASLt on an unsupported architecture! Overriding blas backend "
                   "to hipblas\n", encoding="utf-8")
    rc, doc, _ = _json_run(capsys, ["doctor", "--snapshot", _write_system(tmp_path, healthy()), "--error-log", str(log),
                                    "--json"])
    assert rc == OK and [f["severity"] for f in doc["findings"]] == ["info"]


def test_bad_snapshot_path_is_a_clear_error(tmp_path, capsys):
    rc = main(["doctor", "--snapshot", str(tmp_path / "missing"), "--json"])
    out, err = capsys.readouterr()
    assert rc == ERROR and out == "" and "no such file or directory" in err and "Traceback" not in err


def test_missing_error_log_is_a_clear_error(tmp_path, capsys):
    rc = main(["doctor", "--snapshot", _write_system(tmp_path, healthy()), "--error-log", str(tmp_path / "nope.txt")])
    out, err = capsys.readouterr()
    assert rc == ERROR and out == "" and "error log not found" in err


def test_error_log_that_is_a_directory(tmp_path, capsys):
    rc = main(["doctor", "--snapshot", _write_system(tmp_path, healthy()), "--error-log", str(tmp_path)])
    assert rc == ERROR and "is a directory" in capsys.readouterr().err


def test_unusable_snapshot_file_is_a_clear_error_or_a_diagnosis(tmp_path, capsys):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00\xff" * 100)
    rc = main(["doctor", "--snapshot", str(junk), "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    if rc == ERROR:
        assert out == "" and err.strip()
    else:  # detection read it as an (empty) paste: a diagnosis with no GPU information
        assert rc in (OK, PENDING) and json.loads(out)["recommendations"]


def test_unknown_option_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["doctor", "--no-such-option"])
    assert exc.value.code == USAGE


def test_skip_and_unknown_skip(tmp_path, capsys):
    sysm = healthy()
    sysm.rocm.apt_pins = []
    rc, doc, err = _json_run(capsys, ["doctor", "--snapshot", _write_system(tmp_path, sysm), "--json",
                                      "--skip", "apt-pin-missing", "--skip", "bogus-rule"])
    assert rc == OK and doc["findings"] == [] and "bogus-rule" in err


def test_mirror_options_reach_the_targets(tmp_path, capsys):
    sysm = healthy()
    sysm.rocm.version = "6.2.4"
    rc, doc, _ = _json_run(capsys, ["doctor", "--snapshot", _write_system(tmp_path, sysm), "--json",
                                    "--repo-base", "https://mirror.lan/radeon", "--index-base", "https://mirror.lan/whl"])
    text = json.dumps(doc["recommendations"])
    assert "https://repo.radeon.com" not in text and "https://download.pytorch.org" not in text
    assert "https://mirror.lan/whl/rocm" in text
    up = next(r for r in doc["recommendations"] if r["path"] == "rocm-upgrade")
    assert up["plan"]["error"] is None and "--rocm-mirror https://mirror.lan/radeon" in up["plan"]["command"]
    # an http:// mirror: the plan engine's own refusal is what the doctor shows for that way
    rc, doc, _ = _json_run(capsys, ["doctor", "--snapshot", _write_system(tmp_path, sysm), "--json",
                                    "--repo-base", "http://mirror.lan/radeon"])
    up = next(r for r in doc["recommendations"] if r["path"] == "rocm-upgrade")
    assert "--allow-http-mirror" in up["plan"]["error"] and up["plan"]["steps"] == []


def test_human_report_lists_findings_and_ways_out(tmp_path, capsys):
    sysm = healthy()
    sysm.gpus[0].gfx_target, sysm.gpus[0].device_id, sysm.gpus[0].revision = "gfx803", "67df", None  # an RX 580 chip
    sysm.gpus[0].name = "Radeon RX 580 [bold]Series[/bold]"  # markup in data must not be interpreted
    rc = main(["doctor", "--snapshot", _write_system(tmp_path, sysm)])
    out, _ = capsys.readouterr()
    assert rc == PENDING
    assert "CRITICAL" in out and "gfx-no-official-build" in out and "Ways out" in out
    assert "does not apply" in out and "[bold]Series[/bold]" in out


def test_json_path_imports_neither_rich_nor_textual(tmp_path):
    path = _write_system(tmp_path, healthy())
    code = ("import sys; from rocm_wizard.cli import main; rc = main(['doctor', '--snapshot', %r, '--json']); "
            "bad = [m for m in ('rich', 'textual') if m in sys.modules]; "
            "sys.stderr.write('LOADED:' + ','.join(bad)); sys.exit(rc)" % path)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.returncode == OK, proc.stderr
    assert proc.stderr.strip().endswith("LOADED:"), proc.stderr
    json.loads(proc.stdout)


def test_real_fixture_folder_as_snapshot(capsys):
    path = ci.REAL / "021-gfx902-cezanne-apu-rocm4.3.1-arch"
    rc, doc, _ = _json_run(capsys, ["doctor", "--snapshot", str(path), "--json"])
    assert rc == PENDING
    assert "gfx-no-official-build" in [f["id"] for f in doc["findings"]]
    assert all(not r["applies"] for r in doc["recommendations"])


def test_json_states_the_catalogs_date_of_knowledge(tmp_path):
    # a subprocess each: the overlay is read once per process
    snap = _write_system(tmp_path, healthy())
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"),
               ROCM_WIZARD_CATALOG_OVERLAY=str(tmp_path / "none.json"), ROCM_WIZARD_TODAY="2026-12-01")
    argv = [sys.executable, "-m", "rocm_wizard", "doctor", "--snapshot", snap, "--json"]
    from rocm_wizard.catalog import overlay

    doc = json.loads(subprocess.run(argv, capture_output=True, text=True, env=env).stdout)
    assert doc["catalog"] == {"knowledge_date": overlay.bundled_date(), "bundled": overlay.bundled_date(),
                              "overlay": None, "stale": False}
    # an overlay from `catalog refresh` a year later: its date is the knowledge's; two years on, stale
    ov = tmp_path / "overlay.json"
    ov.write_text(json.dumps({"schema": overlay.SCHEMA, "created": "2027-11-02T10:00:00Z"}), encoding="utf-8")
    env.update(ROCM_WIZARD_CATALOG_OVERLAY=str(ov), ROCM_WIZARD_TODAY="2028-12-01")
    os.chmod(ov, 0o644)
    doc = json.loads(subprocess.run(argv, capture_output=True, text=True, env=env).stdout)
    assert doc["catalog"] == {"knowledge_date": "2027-11-02", "bundled": overlay.bundled_date(),
                              "overlay": "2027-11-02", "stale": True}
    assert any("2027-11-02" in n and "catalog refresh" in n for n in doc["notes"])
