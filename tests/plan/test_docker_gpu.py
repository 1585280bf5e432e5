"""Docker images are checked for the GPU as wheels are (issue 30): the image's ROCm support list
(a Core SDK image: its tag's GPU list) intersected with what ROCm's own libraries of that release
ship (``torch_wheels.toml`` ``[[library]]`` ``rocm``).  An MI50 (gfx906) gets no image whose
rocBLAS has no Tensile kernels for it (ROCm >= 6.4: ROCm/legacy-rocm-build#4625, the library named),
an RX 9070 XT (gfx1201) no image from before its ROCm lists it."""
from __future__ import annotations

import json

import pytest

from plan_helpers import FIXTURES, SYSTEMS, run_cli
from rocm_wizard import model, resolve
from rocm_wizard.catalog import docker
from rocm_wizard.plan.build import Choices, PlanError, build_plan
from rocm_wizard.resolve.resolver import docker_checks, image_has_gfx

RX9070XT = FIXTURES / "203-rx9070xt-ubuntu25.10-amdgpu-dkms-kernel6.17-rocm6.4.4"
IMG_724 = "rocm/pytorch:rocm7.2.4_ubuntu24.04_py3.12_pytorch_release_2.10.0"
IMG_7141 = "rocm/pytorch:rocm7.14.1_ubuntu24.04_py3.12_pytorch_release_2.12.0"
IMG_633 = "rocm/pytorch:rocm6.3.3_ubuntu22.04_py3.10_pytorch_release_2.4.0"


def _parse(image):
    from rocm_wizard.plan.catalog_adapter import docker_parse

    tag = docker_parse(image)
    assert tag is not None, image
    return tag


def _vt(v):
    return tuple(int(x) for x in v.split(".")[:2])


@pytest.fixture
def mi50(tmp_path):
    """A fresh Ubuntu 26.04 host (the seed scenario) with an MI50 (PCI 1002:66a1, gfx906) in it."""
    data = json.loads((SYSTEMS / "seed-rx7900xt-resolute-fresh.json").read_text())
    for g in data["gpus"]:
        if g.get("vendor_id", "").lower().endswith("1002") or "Radeon" in (g.get("name") or ""):
            g.update(name="AMD Instinct MI50", device_id="66a1", gfx_target="gfx906", revision=None)
    path = tmp_path / "mi50.json"
    path.write_text(json.dumps(data))
    system = model.from_dict(model.System, data)
    assert [g.gfx_target for g in system.gpus if g.is_amd] == ["gfx906"]
    return system, str(path)


def test_image_coverage_names_the_library_for_gfx906():
    tag = _parse(IMG_724)
    answer, gaps = image_has_gfx(tag, "gfx906")
    assert answer is False and [g.library for g in gaps] == ["rocBLAS"]
    assert "rocm-legacy-4625" in gaps[0].sources
    assert image_has_gfx(tag, "gfx1100")[0] is True and image_has_gfx(tag, "gfx1100")[1] == []
    # the exact target with features is the same gfx906
    assert image_has_gfx(tag, "gfx906:sramecc+:xnack-")[0] is False


def test_mi50_is_never_given_an_image_without_its_kernels(mi50):
    system, path = mi50
    facts = resolve.from_system(system)
    res = resolve.docker_ways(facts)
    for w in res.offered:
        assert not (w.subject.rocm and _vt(w.subject.rocm) >= (6, 4)), w.key
    c = next(c for c in docker_checks(facts, _parse(IMG_724)) if c.constraint == "image-gfx")
    assert c.verdict == resolve.VIOLATED and "rocBLAS" in c.detail and "gfx906" in c.detail
    # the plan: the default image is one that may carry them, said not to be proven
    plan = build_plan(system, Choices(path="docker"))
    image = plan.inputs["image"]
    assert _vt(_parse(image).rocm) < (6, 4), image
    assert any(n.startswith("not proven (image-gfx)") for n in plan.notes)


@pytest.mark.parametrize("choice,words", [
    ({"image": IMG_724}, ["carries no kernels for gfx906", "rocBLAS", "Tensile"]),
    ({"rocm": "7.2"}, ["no known rocm/pytorch image with ROCm 7.2 carries kernels for gfx906", "rocBLAS"]),
    ({"image": IMG_7141}, ["ROCm 7.14.1", "does not list gfx906"]),  # a Core SDK image: its GPU list
])
def test_mi50_image_lacking_kernels_is_refused_with_the_library_named(mi50, choice, words):
    system, path = mi50
    with pytest.raises(PlanError) as exc:
        build_plan(system, Choices(path="docker", **choice))
    for w in words:
        assert w in exc.value.message
    flag = ["--image", choice["image"]] if "image" in choice else ["--rocm", choice["rocm"]]
    code, out, err = run_cli(["--plan-only", "--snapshot", path, "--path", "docker"] + flag)
    assert code == 64 and out == "" and words[0] in err


def test_gfx1201_gets_an_image_whose_rocm_lists_it():
    from rocm_wizard.detect import detect_snapshot

    system = detect_snapshot(str(RX9070XT))
    plan = build_plan(system, Choices(path="docker"))
    tag = _parse(plan.inputs["image"])
    assert image_has_gfx(tag, "gfx1201")[0] is True
    assert not any("image-gfx" in n for n in plan.notes)
    for choice, words in (({"image": IMG_633}, "ROCm 6.3.3 of rocm6.3.3_ubuntu22.04_py3.10_pytorch_release_2.4.0 does "
                                               "not list gfx1201"),
                          ({"rocm": "6.3"}, "no known rocm/pytorch image with ROCm 6.3 carries kernels for gfx1201")):
        with pytest.raises(PlanError) as exc:
            build_plan(system, Choices(path="docker", **choice))
        assert words in exc.value.message
    code, out, err = run_cli(["--plan-only", "--snapshot", str(RX9070XT), "--path", "docker", "--image", IMG_633])
    assert code == 64 and "does not list gfx1201" in err
