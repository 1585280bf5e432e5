"""``rocm-wizard catalog refresh|status`` against local mirrors laid out like the real sources
(``refresh_data/``, see its README), and the overlay's effect on planning."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from refresh_mirror import DATA, Mirror

REPO = Path(__file__).resolve().parents[2]
SEED = str(REPO / "tests" / "plan" / "systems" / "seed-rx7900xt-jammy-rocm6.2.json")
T216 = "/whl/rocm10.1/torch-2.16.0+rocm10.1-cp312-cp312-manylinux_2_28_x86_64.whl"
T214 = "/whl/rocm7.2/torch-2.14.2+rocm7.2-cp312-cp312-manylinux_2_28_x86_64.whl"
PAYLOAD = 3 * 1024 * 1024


def q(path: str) -> str:
    """A path as the index pages link it (the local label's + percent-encoded)."""
    return path.replace("+", "%2B")


def _wheel(metadata: bytes, dist_info: str, gfx) -> bytes:
    """A constructed wheel: a stored payload bigger than any range the refresh may read, the
    per-gfx kernel files a ROCm torch build carries, and its METADATA."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("torch/lib/libtorch_hip.so"), os.urandom(PAYLOAD), zipfile.ZIP_STORED)
        z.writestr("torch/__init__.py", "")
        for g in gfx:
            z.writestr(f"torch/lib/rocblas/library/TensileLibrary_lazy_{g}.dat", b"x")
            z.writestr(f"torch/lib/hipblaslt/library/TensileLibrary_HH_{g}.co", b"x")
        z.writestr(f"{dist_info}/METADATA", metadata)
        z.writestr(f"{dist_info}/RECORD", b"")
    return buf.getvalue()


def _wheels():
    with open(os.path.join(DATA, "pytorch" + T216 + ".metadata"), "rb") as fh:
        meta216 = fh.read()
    meta214 = (b"Metadata-Version: 2.4\nName: torch\nVersion: 2.14.2+rocm7.2\nRequires-Python: >=3.10\n"
               b"Requires-Dist: filelock\nRequires-Dist: triton-rocm==3.8.0; platform_system == \"Linux\"\n\n")
    return {T216: _wheel(meta216, "torch-2.16.0+rocm10.1.dist-info", ["gfx1100", "gfx1201", "gfx942", "gfx950"]),
            T214: _wheel(meta214, "torch-2.14.2+rocm7.2.dist-info", ["gfx1100", "gfx1103", "gfx90a"])}


@pytest.fixture()
def mirror():
    m = Mirror(extra=_wheels()).start()
    yield m
    m.stop()


@pytest.fixture()
def overlay(tmp_path, monkeypatch):
    path = tmp_path / "state" / "catalog-overlay.json"
    monkeypatch.setenv("ROCM_WIZARD_CATALOG_OVERLAY", str(path))
    return path


def cli(args, overlay_path, timeout=120):
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), ROCM_WIZARD_CATALOG_OVERLAY=str(overlay_path))
    p = subprocess.run([sys.executable, "-m", "rocm_wizard", *args], capture_output=True, text=True, env=env,
                       timeout=timeout, cwd=str(REPO))
    return p.returncode, p.stdout, p.stderr


def seed_on_30_30(tmp_path) -> str:
    """The seed system with a 7.2-era kernel driver (train 30.30, AMD's window reaches 10.0): a
    torch of a ROCm beyond AMD's table is unknown there, not refused for the driver (the seed's own
    6.2 driver ends at 7.0)."""
    data = json.loads(Path(SEED).read_text())
    data["rocm"]["packages"]["amdgpu-dkms"] = "1:6.16.13.30300000-2278356.24.04"
    path = tmp_path / "seed-30.30.json"
    path.write_text(json.dumps(data))
    return str(path)


def refresh_args(m: Mirror, *more):
    return ["catalog", "refresh", "--pytorch-mirror", m.url + "/whl", "--docker-hub", m.url + "/hub", *more]


def test_refresh_learns_release_and_tag_then_plans_from_the_mirror(mirror, overlay, tmp_path):
    code, out, err = cli(refresh_args(mirror), overlay)
    assert code == 0, err
    assert out == ""
    data = json.loads(overlay.read_text())
    assert data["schema"] == "rocm-wizard-catalog-overlay/1"
    t = {(e["version"], e["index"]): e for e in data["torch"]}
    new = t[("2.16.0", "rocm10.1")]
    assert (new["triton_dist"], new["triton_version"]) == ("triton-rocm", "3.9.0")
    assert new["triton_source"] == mirror.url + q(T216) + ".metadata"
    assert new["torchvision"] == "0.31.0" and new["torchaudio"] == "2.11.0"
    assert new["python_tags"] == ["cp310", "cp311", "cp312", "cp313", "cp314"] and new["requires_python"] == ">=3.10"
    # no PEP 658 file for this one: the pin came from METADATA inside the wheel, read by ranges
    old_idx = t[("2.14.2", "rocm7.2")]
    assert old_idx["triton_version"] == "3.8.0" and old_idx["metadata_source"] == mirror.url + q(T214)
    assert mirror.sent[T214] < PAYLOAD and mirror.sent[T216] < PAYLOAD  # never the whole wheel
    assert not any("2.15.0" in e["version"] for e in data["torch"])  # nightlies are not releases
    idx = data["torch_indexes"]["rocm10.1"]
    assert idx["gfx_status"] == "observed" and idx["gfx_method"] == "wheel-directory"
    assert idx["gfx"] == ["gfx1100", "gfx1201", "gfx942", "gfx950"]
    assert "rocm7.2" not in data["torch_indexes"]  # known index: its bundled gfx list stays
    assert old_idx["gfx"] == ["gfx1100", "gfx1103", "gfx90a"]  # ...and each release keeps its own
    assert sum(1 for r in mirror.requests if r.startswith(q(T214))) == 3  # tail, directory, METADATA
    tags = [d["tag"] for d in data["docker_tags"]]
    assert tags == ["rocm10.2.0_ubuntu26.04_py3.14_pytorch_release_2.15.0"]
    assert data["docker_tags"][0]["source"].startswith(mirror.url + "/hub/v2/repositories/rocm/pytorch/tags")
    assert any("page=2" in r for r in mirror.requests)  # followed `next` (rewritten onto the mirror)
    assert set(data["sources"]) == {"pytorch", "docker"}  # only the sources named were read

    code, out, err = cli(["catalog", "status", "--json"], overlay)
    assert code == 0, err
    st = json.loads(out)
    assert st["overlay"]["present"] and st["overlay"]["sources"]["pytorch"]["url"] == mirror.url + "/whl"
    added = {(e["version"], e["index"]): e for e in st["added"]["torch"]}
    assert added[("2.16.0", "rocm10.1")]["source"] == mirror.url + q(T216)
    assert [e["tag"] for e in st["added"]["docker_tags"]] == tags
    assert st["overlay"]["gfx_method"] == ["wheel-directory"]
    code, human, _ = cli(["catalog", "status"], overlay)
    assert "torch 2.16.0+rocm10.1" in human and "triton-rocm==3.9.0" in human
    assert "gfx read from the wheel's zip directory" in human

    plan = ["--plan-only", "--snapshot", seed_on_30_30(tmp_path), "--path", "torch-reinstall", "--torch", "2.16.0",
            "--pytorch-mirror", mirror.url + "/whl"]
    code, script, err = cli(plan, overlay)
    assert code == 2, err
    assert f"{mirror.url}/whl/rocm10.1" in script
    for req in ("torch==2.16.0+rocm10.1", "torchvision==0.31.0+rocm10.1", "torchaudio==2.11.0+rocm10.1",
                "triton-rocm==3.9.0"):
        assert req in script
    code, script, err = cli(plan[:-2], overlay)  # without the mirror: the public index, and a note
    assert code == 2 and "https://download.pytorch.org/whl/rocm10.1" in script
    assert f"plan with --pytorch-mirror {mirror.url}/whl" in err
    code, out, err = cli(["--plan-only", "--snapshot", SEED, "--path", "docker", "--image",
                          "rocm10.2.0_ubuntu26.04_py3.14_pytorch_release_2.15.0"], overlay)
    # the learnt tag is known (its ROCm read from the tag), and checked like any other against the
    # host's kernel-driver window: the seed's 6.2 driver is documented for 6.0-7.0
    assert code == 64 and "brings ROCm 10.2.0 user space" in err and "outside AMD's window" in err, err

    # the servers gone: a clear one-line failure, the overlay untouched, planning still works
    before = overlay.read_bytes()
    mirror.stop()
    code, out, err = cli(refresh_args(mirror), overlay)
    assert code == 1 and out == ""
    failure = [line for line in err.splitlines() if "failed" in line]
    assert len(failure) == 1 and "cannot connect" in failure[0] and mirror.url + "/whl/torch/" in failure[0]
    assert overlay.read_bytes() == before
    code, script, err = cli(["--plan-only", "--snapshot", SEED, "--path", "torch-reinstall", "--torch", "2.4.1"],
                            overlay)
    assert code == 2 and "torch==2.4.1+" in script, err
    code, script, err = cli(plan, overlay)
    assert code == 2 and "triton-rocm==3.9.0" in script, err


def test_without_overlay_the_new_release_is_unknown(tmp_path):
    code, out, err = cli(["--plan-only", "--snapshot", SEED, "--path", "torch-reinstall", "--torch", "2.16.0"],
                         tmp_path / "none.json")
    assert code == 64 and out == "" and "2.16.0" in err


def test_inferred_gfx_is_labelled_and_treated_as_unknown(mirror, overlay, tmp_path):
    code, _, err = cli(refresh_args(mirror, "--no-wheel-reads"), overlay)
    assert code == 0, err
    idx = json.loads(overlay.read_text())["torch_indexes"]["rocm10.1"]
    assert idx["gfx_status"] == "inferred" and idx["gfx_method"] == "inferred" and idx["gfx"]
    assert T216 not in mirror.sent  # no range reads: the .metadata file was enough
    code, human, _ = cli(["catalog", "status"], overlay)
    assert "gfx INFERRED" in human
    probe = ("from rocm_wizard.catalog import wheels as w; g = w.wheel_gfx('2.16.0', 'rocm10.1'); "
             "print(g.status, g.proven, 'gfx1100' in g.gfx)")
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), ROCM_WIZARD_CATALOG_OVERLAY=str(overlay))
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env).stdout
    assert out.split() == ["inferred", "False", "True"]  # listed, but not proven
    # and the resolver does not take an inferred list as support: the release is refused for the GPU
    code, _, err = cli(["--plan-only", "--snapshot", seed_on_30_30(tmp_path), "--path", "torch-reinstall",
                        "--torch", "2.16.0", "--pytorch-mirror", mirror.url + "/whl"], overlay)
    assert code == 3 and "2.16.0" in err and "gfx" in err and "driver-window" not in err, err


def test_server_ignoring_ranges(mirror, overlay):
    # the gfx list is best effort: read from 2.16.0's wheel when ranges work, inferred when not
    mirror.ignore_range = {T216}
    code, _, err = cli(refresh_args(mirror), overlay)
    assert code == 0, err
    assert "gfx targets not read from the wheel" in err and "does not answer range requests" in err
    idx = json.loads(overlay.read_text())["torch_indexes"]["rocm10.1"]
    assert idx["gfx_method"] == "inferred"
    # 2.14.2 has no .metadata file: without ranges its triton pin cannot be read, which fails the refresh
    before = overlay.read_bytes()
    mirror.ignore_range = {T214}
    code, out, err = cli(refresh_args(mirror), overlay)
    assert code == 1 and out == "" and "does not answer range requests" in err
    assert overlay.read_bytes() == before


def test_sources_not_read_are_carried_over(mirror, overlay):
    assert cli(refresh_args(mirror), overlay)[0] == 0
    code, _, err = cli(["catalog", "refresh", "--rocm-mirror", mirror.url + "/radeon"], overlay)
    assert code == 0, err
    data = json.loads(overlay.read_text())
    assert set(data["sources"]) == {"pytorch", "docker", "apt"}
    assert [d["tag"] for d in data["docker_tags"]] == ["rocm10.2.0_ubuntu26.04_py3.14_pytorch_release_2.15.0"]
    rel = data["rocm_releases"]
    assert [r["directory"] for r in rel] == ["7.2.9"]  # 6.2.4, 7.2.3 and 7.2.4 are known; latest/ is no version
    assert rel[0]["suites"][0]["Codename"] == "noble" and rel[0]["version"] == "7.2.9"
    assert not any("elsewhere.example" in r for r in mirror.requests)
    code, human, _ = cli(["catalog", "status"], overlay)
    assert "ROCm 7.2.9 (legacy apt; noble) - listed only" in human


def test_amd_index(mirror, overlay):
    code, _, err = cli(["catalog", "refresh", "--amd-index", mirror.url + "/amd/whl-next"], overlay)
    assert code == 0, err
    amd = json.loads(overlay.read_text())["amd_index"]
    assert amd["torch"] == [{"version": "2.14.0+rocm10.1.0", "python_tags": ["cp310", "cp312"]}]
    assert amd["device_gfx"] == ["gfx1100", "gfx942"]


def test_bad_mirror_url_is_a_usage_error(overlay):
    code, out, err = cli(["catalog", "refresh", "--pytorch-mirror", "file:///etc"], overlay)
    assert code == 64 and "http" in err


def test_root_ignores_an_overlay_another_user_owns(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root to give the file another owner")  # the suite runs as root (HELPERS)
    path = tmp_path / "ov.json"
    path.write_text(json.dumps({"schema": "rocm-wizard-catalog-overlay/1", "created": "2026-11-23T00:00:00Z",
                                "torch": [], "docker_tags": [{"tag": "rocm9.9_ubuntu24.04_py3.12_pytorch_release_2.99.0"}],
                                "rocm_releases": [], "torch_indexes": {}}))
    os.chown(path, 1000, 1000)
    code, out, _ = cli(["catalog", "status", "--json"], path)
    st = json.loads(out)
    assert not st["overlay"]["present"] and any("owned by root" in w for w in st["warnings"])
    os.chown(path, 0, 0)
    st = json.loads(cli(["catalog", "status", "--json"], path)[1])
    assert st["overlay"]["present"] and st["added"]["docker_tags"]


def test_doctor_says_when_the_knowledge_is_old_and_how_to_refresh(mirror, overlay, tmp_path):
    env_day = "2027-02-20"  # 91 days after the bundled catalog's date
    snap = ["doctor", "--snapshot", SEED, "--json"]
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), ROCM_WIZARD_TODAY=env_day,
               ROCM_WIZARD_CATALOG_OVERLAY=str(tmp_path / "none.json"))
    out = subprocess.run([sys.executable, "-m", "rocm_wizard", *snap], capture_output=True, text=True, env=env).stdout
    notes = json.loads(out)["notes"]
    assert any("91 days old" in n and "rocm-wizard catalog refresh" in n for n in notes)
    # a refresh two days younger than the bundled catalog makes the knowledge 89 days old: no warning
    assert cli(refresh_args(mirror), overlay)[0] == 0
    data = json.loads(overlay.read_text())
    data["created"] = "2026-11-23T12:00:00Z"
    overlay.write_text(json.dumps(data))
    env["ROCM_WIZARD_CATALOG_OVERLAY"] = str(overlay)
    out = subprocess.run([sys.executable, "-m", "rocm_wizard", *snap], capture_output=True, text=True, env=env).stdout
    assert not any("days old" in n for n in json.loads(out)["notes"])
    st = subprocess.run([sys.executable, "-m", "rocm_wizard", "catalog", "status", "--json"], capture_output=True,
                        text=True, env=dict(env, ROCM_WIZARD_CATALOG_OVERLAY=str(tmp_path / "none.json"))).stdout
    assert json.loads(st)["stale"] is True


def test_catalog_commands_stay_headless(overlay):
    code = ("import sys; from rocm_wizard.cli import main; rc = main(['catalog', 'status', '--json']); "
            "bad = [m for m in ('textual', 'rich') if m in sys.modules]; sys.exit(9 if bad else rc)")
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), ROCM_WIZARD_CATALOG_OVERLAY=str(overlay))
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, env=env).returncode == 0


def test_yes_and_answers_take_the_pytorch_mirror(tmp_path):
    from rocm_wizard.cli import build_parser
    from rocm_wizard.commands.main import choices_from_args as resolve_choices

    args = build_parser().parse_args(["--yes", "--pytorch-mirror", "http://127.0.0.1:9/whl"])
    assert resolve_choices(args).pytorch_mirror == "http://127.0.0.1:9/whl"
    answers = tmp_path / "answers.toml"
    answers.write_text('format = 1\npytorch_mirror = "http://127.0.0.1:8/whl"\n')
    args = build_parser().parse_args(["--yes", "--answers", str(answers)])
    assert resolve_choices(args).pytorch_mirror == "http://127.0.0.1:8/whl"


def test_the_wizard_diagnosis_carries_the_age_warning(monkeypatch, tmp_path):
    """The TUI's findings screen lists the diagnosis' notes; its core adds the catalog's age."""
    from rocm_wizard.catalog import overlay as ov
    from rocm_wizard.tui.core import Core

    monkeypatch.setenv("ROCM_WIZARD_CATALOG_OVERLAY", str(tmp_path / "none.json"))
    monkeypatch.setenv("ROCM_WIZARD_TODAY", "2027-06-01")
    ov.read.cache_clear()
    core = Core(snapshot=str(REPO / "src" / "rocm_wizard" / "demo" / "system"))
    source = core.open_source()
    system = core.new_system(source)
    for name in core.probe_names():
        core.run_probe(name, source, system)
    notes = core.finish(source, system).notes
    assert any("192 days old" in n and "catalog refresh" in n for n in notes)
    ov.read.cache_clear()


def test_rocm_core_mirror_is_the_hosts_base_as_when_planning(mirror, overlay):
    """--rocm-core-mirror means one thing everywhere (issue 22): the base of a mirror of AMD's Core SDK
    host; refresh reads the apt packages at rocm/core/packages below it, as the plans' paths are."""
    before = len(mirror.requests)
    cli(["catalog", "refresh", "--rocm-core-mirror", mirror.url + "/amdhost"], overlay)
    asked = mirror.requests[before:]
    assert asked and all(r.startswith("/amdhost/rocm/core/packages/") for r in asked), asked
