"""Issue 30, the vLLM container class: failures inside a vLLM image or build (212: vLLM 0.14.0's
image on an MI355X, vllm-project/vllm#32895; 323: vLLM's ROCm branch built on ROCm 6.1 for MI300X,
vllm._C missing, vllm-project/vllm#7951) are not fixed by a pip torch reinstall: vLLM ships its own
torch, built with its kernels against the image's ROCm (vLLM's install page; its Dockerfile.rocm_base
builds PyTorch from ROCm/pytorch source).  The expert's answer is AMD's vLLM image for that GPU
(rocm/vllm, checked against vLLM's own GPU list), or a refusal naming why none fits; `doctor`'s
recipe and `--plan-only` are the same plan."""
from __future__ import annotations

import json
import shutil

import pytest
from plan_helpers import FIXTURES, run_cli

from rocm_wizard.catalog import docker as docker_cat
from rocm_wizard.detect.parsers import workloads
from rocm_wizard.resolve import resolver
from rocm_wizard.resolve.facts import Facts, GpuFact

MI355X = FIXTURES / "212-gfx950-mi355x-vllm0.14-docker-no-kernel-image"
MI300X = FIXTURES / "323-mi300x8-vllm-rocm6.1-collect-env-vllm-c-missing-ubuntu20.04"
RX6900XT = FIXTURES / "010-gfx1030-rx6900xt-rocmNA-kernel5.17"


def _doctor(snapshot) -> dict:
    rc, out, err = run_cli(["doctor", "--json", "--snapshot", str(snapshot)])
    assert rc == 2, err
    return json.loads(out)


def _plan(snapshot, *args) -> dict:
    rc, out, err = run_cli(["--plan-only", "--format", "json", "--snapshot", str(snapshot), *args])
    assert rc == 2, err
    return json.loads(out)


@pytest.mark.parametrize("snapshot,gfx", [(MI355X, "gfx950"), (MI300X, "gfx942")])
def test_vllm_fixture_gets_amds_vllm_image_not_a_torch_reinstall(snapshot, gfx):
    report = _doctor(snapshot)
    recs = {r["path"]: r for r in report["recommendations"]}
    torch = recs["torch-reinstall"]
    assert torch["applies"] is False and "vLLM" in torch["why"] and "pip torch reinstall" in torch["why"]
    first = next(r for r in report["recommendations"] if r["applies"])
    assert first["path"] == "docker"
    image = first["target"]["image"]
    assert image.startswith("rocm/vllm:") and first["target"]["vllm"]
    assert f"vLLM targets {gfx}" in first["why"]
    # the plan without --path takes the same way and the same image, and says it is vLLM's
    plan = _plan(snapshot)
    assert plan["path"] == "docker" and plan["way"]["changed"] is False
    assert plan["facts"]["docker"]["image"] == image
    assert plan["title"] == f"Run vLLM in {image}"
    assert any("AMD's vLLM image" in n and "never reinstalled" in n for n in plan["notes"])
    # one renderer: the doctor's recipe is that plan's own title and steps
    recipe = first["plan"]
    assert recipe["title"] == plan["title"]
    assert [s.split(". ", 1)[1] for s in recipe["steps"]] == [s["title"] for s in plan["steps"]]


def test_no_binary_finding_points_at_the_vllm_image():
    report = _doctor(MI355X)
    f = next(f for f in report["findings"] if f["id"] == "no-binary-for-gpu")
    assert f["path"] == "docker"
    assert "pip torch reinstall under vLLM is no fix" in f["fix"]
    assert any("one of vLLM's ROCm targets" in e for e in f["evidence"])
    assert not any("wheels with its kernels" in e for e in f["evidence"])


def test_explicit_torch_reinstall_under_vllm_is_refused_with_the_reason():
    rc, out, err = run_cli(["--plan-only", "--path", "torch-reinstall", "--venv", "/opt/vllm-venv",
                            "--snapshot", str(MI300X)])
    assert rc != 2 and not out
    assert "vllm-keeps-its-torch" in err and "vLLM's kernels are built against the torch" in err


def _vllm_paste(tmp_path, src, log: str):
    d = tmp_path / "paste"
    shutil.copytree(src, d)
    (d / "labels.toml").unlink()
    (d / "vllm.log").write_text(log)
    return d


# another vLLM text: its server's start-up lines (vllm/platforms/__init__.py, api_server.py), on a
# GPU that is not one of vLLM's ROCm targets (an RX 6900 XT, gfx1030: 010's real outputs)
VLLM_LOG = ("INFO 06-02 10:11:12 [__init__.py:244] Automatically detected platform rocm.\n"
            "INFO 06-02 10:11:14 [api_server.py:1287] vLLM API server version 0.9.1\n"
            "torch.AcceleratorError: HIP error: invalid device function\n")


def test_vllm_on_a_gpu_outside_vllms_list_is_refused_naming_the_reason(tmp_path):
    paste = _vllm_paste(tmp_path, RX6900XT, VLLM_LOG)
    rc, out, err = run_cli(["doctor", "--json", "--snapshot", str(paste)])
    recs = {r["path"]: r for r in json.loads(out)["recommendations"]}
    assert recs["torch-reinstall"]["applies"] is False and "vLLM" in recs["torch-reinstall"]["why"]
    assert recs["docker"]["applies"] is False
    assert "gfx1030 is not one of vLLM's ROCm targets" in recs["docker"]["why"]
    for args in ([], ["--path", "docker"]):
        rc, out, err = run_cli(["--plan-only", "--snapshot", str(paste), *args])
        assert rc == 3 and not out, err
        assert "no known rocm/vllm image fits" in err and "gfx1030 is not one of vLLM's ROCm targets" in err
        assert "rocm/pytorch" not in err


def test_the_same_gpu_without_vllm_keeps_the_pytorch_answer(tmp_path):
    # the vLLM lines decide: the same outputs with a plain PyTorch error get no vLLM advice
    paste = _vllm_paste(tmp_path, RX6900XT, "torch.AcceleratorError: HIP error: invalid device function\n")
    rc, out, err = run_cli(["doctor", "--json", "--snapshot", str(paste)])
    text = json.dumps(json.loads(out)["recommendations"])
    assert "vLLM" not in text and "rocm/vllm" not in text


@pytest.mark.parametrize("line", [
    "vLLM Version: 0.6.3.post1",
    "vLLM Version                 : 0.16.0",
    "WARNING 09-23 09:11:27 _custom_ops.py:18] Failed to import from vllm._C with ImportError('x')",
    "root@3f2a:/vllm-workspace# python3 -m vllm.entrypoints.openai.api_server",
    "vllm                      0.8.5",
])
def test_vllm_lines_are_recognised(line):
    assert workloads.scan(line) == [("vllm", line)] == workloads.scan_reference(line)


@pytest.mark.parametrize("line", ["vLLM Version: N/A", "pip install vllm fails on my laptop", "vllm-workspace-x"])
def test_vllm_absent_or_prose_is_not(line):
    assert workloads.scan(line) == [] == workloads.scan_reference(line)


def _facts(gfx: str, vllm: str = "vLLM Version: 0.9.1") -> Facts:
    return Facts(gpus=[GpuFact(gfx, "GPU", False)], vllm=vllm)


def test_vllm_image_gfx_follows_vllms_list_the_tag_and_its_modules():
    tags = {t.tag: t for t in docker_cat.vllm_tags()}
    t10 = tags["rocm10.0.0_ubuntu24.04_py3.14_pytorch_2.12.0_vllm_0.27.0"]
    assert t10.image == "rocm/vllm:" + t10.tag
    assert resolver.vllm_image_gfx(t10, "gfx950")[0] is True
    ok, why = resolver.vllm_image_gfx(t10, "gfx1201")  # in vLLM's list, not in the image's modules
    assert ok is False and "prebuilt HIP modules" in why
    cdna = tags["rocm7.14.0_cdna_ubuntu24.04_py3.14_pytorch_2.11.0_vllm_0.23.0"]
    ok, why = resolver.vllm_image_gfx(cdna, "gfx1100")
    assert ok is False and "_cdna" in why
    ok, why = resolver.vllm_image_gfx(cdna, "gfx906")
    assert ok is False and "not one of vLLM's ROCm targets" in why
    # the ROCm release vLLM needs for a target (MI350: 7.0), from its install page
    assert docker_cat.vllm_gpus().min_rocm("gfx950") == "7.0"


def test_resolver_offers_only_vllm_images_for_vllm_and_no_torch():
    res = resolver.docker_ways(_facts("gfx942"))
    assert res.best is not None and res.best.subject.repo == "rocm/vllm"
    assert all(w.subject.repo == "rocm/vllm" for w in res.offered + res.rejected)
    torch = resolver.torch_ways(_facts("gfx942"))
    assert torch.best is None and "vllm-keeps-its-torch" in torch.reason
    plain = resolver.docker_ways(_facts("gfx942", vllm=""))
    assert plain.best is not None and plain.best.subject.repo == ""  # rocm/pytorch as before


def test_tui_docker_form_offers_whole_vllm_images():
    # the TUI's docker form (core fields, no Textual): the choices and the default are AMD's vLLM
    # images by their whole name, so the plan it makes pulls rocm/vllm, as doctor and --plan-only do
    from rocm_wizard.detect import detect_snapshot
    from rocm_wizard.tui import fields

    system = detect_snapshot(str(MI355X))
    target = next(r for r in _doctor(MI355X)["recommendations"] if r["path"] == "docker")["target"]
    form = {f.name: f for f in fields.fields_for("docker", system, target)}
    image = form["image"]
    assert image.label == "rocm/vllm image" and image.value == target["image"]
    assert image.choices and all(key.startswith("rocm/vllm:") for key, _label in image.choices)
