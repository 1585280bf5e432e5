"""``rocm-wizard detect`` as a user runs it: JSON valid against the packaged schema, clear failure
on a bad snapshot path, a human report."""
from __future__ import annotations

import dataclasses
import io
import json
import os
import subprocess
import sys
import typing
from pathlib import Path

import jsonschema
import pytest
from rwtest import ci

from rocm_wizard import model, schema

REPO = Path(__file__).resolve().parents[1]
FIXTURES = ci.real_fixtures()


def cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "rocm_wizard", *args], capture_output=True, env=env, cwd=cwd, timeout=120)


def cli_in_process(*args: str) -> subprocess.CompletedProcess:
    """What :func:`cli` gives (exit code, stdout and stderr bytes), from ``rocm_wizard.cli.main``
    called in this process: the same entry point without a Python start-up (about 0.1 CPU-s) per
    call.  For the tests that are about the command's output, not about its process;
    test_detect_json_snapshot_validates checks on a sample that it gives what the process gives."""
    from rocm_wizard import cli as cli_mod

    out, err = io.BytesIO(), io.BytesIO()
    wrappers = io.TextIOWrapper(out, encoding="utf-8"), io.TextIOWrapper(err, encoding="utf-8")
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = wrappers
    try:
        try:
            code = cli_mod.main(list(args))
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        for w in wrappers:
            w.flush()
        result = subprocess.CompletedProcess(["rocm_wizard", *args], code, out.getvalue(), err.getvalue())
    finally:
        sys.stdout, sys.stderr = streams
        for w in wrappers:
            w.detach()  # (the BytesIO stays open)
    return result


# the fixtures whose ``detect --json --snapshot`` also runs as its own process (and must give the
# same bytes and exit code as the in-process call): every 20th, so the real command stays tested
IN_A_PROCESS = set(FIXTURES[::20])


@pytest.fixture(scope="module")
def validator():
    sch = schema.load()
    jsonschema.Draft202012Validator.check_schema(sch)
    return jsonschema.Draft202012Validator(sch)


def test_schema_is_packaged_with_the_module():
    assert Path(schema.path()).is_file()
    assert Path(schema.path()).parent == Path(model.__file__).parent / "schema"


def _record_defs():
    return {model.System: None, model.OSInfo: "os", model.GPU: "gpu", model.RocmInfo: "rocm", model.RocmInstall: "rocm_install",
            model.AptSource: "apt_source", model.AptPin: "apt_pin", model.TorchEnv: "torch", model.DockerInfo: "docker",
            model.DeviceNode: "device_node", model.AccessInfo: "access", model.ErrorSighting: "error",
            model.WorkloadSighting: "workload"}


def test_schema_describes_every_model_field_and_nothing_else():
    sch = schema.load()
    for cls, name in _record_defs().items():
        props = sch["properties"] if name is None else sch["$defs"][name]["properties"]
        fields = {f.name for f in dataclasses.fields(cls)}
        assert set(props) == fields, (cls.__name__, set(props) ^ fields)


@pytest.mark.skipif(not FIXTURES, reason=ci.MISSING + "shared fixtures not available")
@pytest.mark.parametrize("folder", FIXTURES, ids=lambda p: p.name.split("-", 1)[0])
def test_detect_json_snapshot_validates(folder, validator):
    r = cli_in_process("detect", "--json", "--snapshot", str(folder))
    if folder in IN_A_PROCESS:
        p = cli("detect", "--json", "--snapshot", str(folder))
        assert (p.returncode, p.stdout, p.stderr) == (r.returncode, r.stdout, r.stderr), folder.name
    from rocm_wizard.detect import detect_snapshot
    from rocm_wizard.doctor.evidence import described

    if not described(detect_snapshot(str(folder))):
        # a paste detection reads nothing from: refused as doctor refuses it (exit 1, exitcodes.INPUT)
        assert r.returncode == 1 and r.stdout == b"" and b"describes no system" in r.stderr, r.stderr.decode()
        return
    assert r.returncode == 0, r.stderr.decode()
    data = json.loads(r.stdout)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.path))
    assert not errors, [(list(e.path), e.message) for e in errors[:5]]
    assert data["schema_version"] == model.SCHEMA_VERSION and data["origin"] == "snapshot"
    # and it is the System the Python API gives
    rebuilt = model.from_dict(model.System, data)
    assert model.to_dict(rebuilt) == data


def test_detect_json_live_validates(validator, tmp_path):
    r = cli("detect", "--json")
    assert r.returncode == 0, r.stderr.decode()
    data = json.loads(r.stdout)
    assert not list(validator.iter_errors(data))
    assert data["origin"] == "live" and data["os"]["kernel"]


def test_schema_rejects_wrong_shapes(validator):
    good = model.to_dict(model.System())
    assert not list(validator.iter_errors(good))
    for mutate in (lambda d: d.update(schema_version=2), lambda d: d["os"].update(kernel=5),
                   lambda d: d.update(gpus=[{"sources": {}, "notes": [], "is_amd": True, "pci_id": "1002-744c"}]),
                   lambda d: d.pop("rocm")):
        bad = json.loads(json.dumps(good))
        mutate(bad)
        assert list(validator.iter_errors(bad))


@pytest.mark.parametrize("path", ["/nonexistent/bundle.tar.gz", "BROKEN_TAR", "EMPTY_DIR"])
def test_bad_snapshot_path(tmp_path, path):
    if path == "BROKEN_TAR":
        p = tmp_path / "broken.tar.gz"
        p.write_bytes(b"\x1f\x8b\x08\x00garbage")
        path = str(p)
    elif path == "EMPTY_DIR":
        (tmp_path / "empty").mkdir()
        path = str(tmp_path / "empty")
    for args in (("detect", "--json", "--snapshot", path), ("detect", "--snapshot", path)):
        r = cli(*args)
        assert r.returncode == 1
        assert r.stdout == b""
        assert r.stderr.startswith(b"rocm-wizard detect: ") and b"Traceback" not in r.stderr


def test_human_report(tmp_path):
    folder = next((f for f in FIXTURES if f.name.startswith("008")), None)
    if folder is None:
        ci.missing("shared fixture 008-* not available")
    r = cli("detect", "--snapshot", str(folder))
    assert r.returncode == 0, r.stderr.decode()
    out = r.stdout.decode()
    for needle in ("Snapshot", "AMD Radeon RX 7900 XT", "gfx1100", "2.9.0.dev20250706+rocm6.4", "WSL2"):
        assert needle in out, needle


def test_bad_option_is_usage_error():
    r = cli("detect", "--no-such-option")
    assert r.returncode == 64 and r.stdout == b""


def test_core_sdk_and_legacy_side_by_side_in_json_and_report(tmp_path, validator):
    # documented names (ROCm/rocm-docs 200-install.rst, 10.0): a Core SDK next to legacy packages, and a venv with
    # AMD's torch build and its rocm wheels
    (tmp_path / "dpkg.txt").write_text(
        "$ dpkg -l\nii  amdrocm-core-sdk10.0-gfx1100  10.0.0-4  amd64  ROCm Core SDK\n"
        "ii  rocm-core  7.2.4.70204-1~24.04  amd64  ROCm core\n")
    (tmp_path / "hip.txt").write_text("$ hipconfig --version\n7.15.26333-0000000\n")
    (tmp_path / "pip.txt").write_text("$ pip freeze\ntorch==2.13.0+rocm10.0.0\nrocm==10.0.0\nrocm-sdk-core==10.0.0\n"
                                      "amd-torch-device-gfx1100==2.13.0+rocm10.0.0\n")
    r = cli("detect", "--json", "--snapshot", str(tmp_path))
    assert r.returncode == 0, r.stderr.decode()
    data = json.loads(r.stdout)
    validator.validate(data)
    rocm = data["rocm"]
    assert (rocm["version"], rocm["stream"], rocm["streams"]) == ("10.0.0", "core-sdk", ["legacy", "core-sdk"])
    assert rocm["hip_version"] == "7.15.26333-0000000" and rocm["package_gfx"] == ["gfx1100"]
    (t,) = data["torch"]
    assert (t["rocm"], t["stream"], t["channel"], t["device_gfx"]) == ("10.0.0", "pip", "release", ["gfx1100"])
    human = cli("detect", "--snapshot", str(tmp_path))
    out = human.stdout.decode()
    assert human.returncode == 0 and "10.0.0 (core-sdk)" in out and "legacy, core-sdk side by side" in out
    assert "7.15.26333-0000000" in out and "10.0.0 [pip]" in out
