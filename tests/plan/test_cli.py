"""``rocm-wizard --plan-only``: refusals before any output, exit statuses, stdout holds only the
artifact, Textual never imported, the JSON plan round-trips, recipes load from plans/."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from rwtest import ci

from plan_helpers import FIXTURES, REPO, SYSTEMS, needs_fixtures, run_cli

SEED = str(SYSTEMS / "seed-rx7900xt-jammy-rocm6.2.json")
GFX803 = str(SYSTEMS / "seed-gfx803-rx580.json")


@pytest.mark.parametrize("args,rc,words", [
    (["--path", "rocm-upgrade", "--rocm", "6.9"], 64, "unknown ROCm release '6.9'"),
    (["--path", "rocm-upgrade", "--rocm", "latest-greatest"], 64, "unknown ROCm release"),
    # 7.0.0's driver directory is not known: planned keeping the installed driver, said in a note (issue 30)
    (["--path", "rocm-upgrade", "--rocm", "7.0.0"], 0, ""),
    (["--path", "torch-reinstall", "--torch", "2.4.1+rocm6.2"], 64, "is not published on an index named 'rocm6.2'"),
    (["--path", "torch-reinstall", "--torch", "1.9.0"], 64, "not in the catalog"),
    (["--path", "torch-reinstall", "--torch", "2.3.0+rocm6.0", "--venv", "/opt/v"], 0, ""),
    (["--path", "torch-reinstall", "--venv-mode", "sideways"], 64, "invalid choice"),
    (["--path", "teleport"], 64, "invalid choice"),
    (["--path", "docker", "--image", "rocm/pytorch:bad tag"], 64, "not a valid name[:tag]"),
    (["--path", "docker", "--rocm", "5.7"], 64, "no known rocm/pytorch image has ROCm 5.7"),
    (["--path", "torch-reinstall", "--env", "BAD NAME=1"], 64, "--env"),
    (["--path", "torch-reinstall", "--env", "NOEQUALS"], 64, "expected NAME=VALUE"),
])
def test_invalid_choices_are_refused_before_any_output(args, rc, words):
    code, out, err = run_cli(["--plan-only", "--snapshot", SEED] + args)
    if rc == 0:
        assert code == 2 and out
        return
    assert code == rc, err
    assert out == ""
    assert words in err and "Traceback" not in err


def test_gpu_the_wheels_lack(tmp_path):
    sysd = json.loads(Path(SEED).read_text())
    sysd["gpus"][0].update({"device_id": "7550", "pci_id": "1002:7550", "gfx_target": "gfx1201",
                            "name": "AMD Radeon RX 9070 XT"})
    path = tmp_path / "rx9070.json"
    path.write_text(json.dumps(sysd))
    code, out, err = run_cli(["--plan-only", "--snapshot", str(path), "--path", "torch-reinstall", "--torch", "2.4.1"])
    assert code == 3 and out == ""  # the system is outside what was asked, not a bad command line
    assert "have no kernels for gfx1201" in err
    from rocm_wizard.catalog import wheels

    offered = err.split("torch versions whose wheels do: ", 1)[1].strip().split(", ")
    assert offered and all(wheels.wheel_has_gfx(*o.split("+"), "gfx1201") for o in offered)
    code, out, _ = run_cli(["--plan-only", "--snapshot", str(path), "--path", "torch-reinstall", "--torch", "2.7.1"])
    assert code == 2 and "torch==2.7.1+rocm6.3" in out


def test_the_last_legacy_release_plans_with_its_driver_directory():
    # 7.2.4 (2026-05-29): amdgpu-install 7.2.4.70204, driver 30.30.4 (rocm-2026.md 1.1)
    code, out, err = run_cli(["--plan-only", "--snapshot", SEED, "--path", "rocm-upgrade", "--rocm", "7.2.4",
                              "--format", "json"])
    assert code == 2, err
    plan = json.loads(out)
    text = json.dumps(plan["steps"])
    assert "https://repo.radeon.com/amdgpu/30.30.4/ubuntu jammy main" in text
    assert "https://repo.radeon.com/rocm/apt/7.2.4 jammy main" in text
    from rocm_wizard.catalog import releases

    # errata 2026-11-26: 7.2.1 pairs with 30.30.1 (AMD staff in ROCm/ROCm#6156), 7.2.2 with 30.30.2
    assert releases.get("7.2.1").amdgpu_dir == "30.30.1" and releases.get("7.2.3").amdgpu_dir == "30.30.3"
    assert releases.get("6.1.5").status == "documented" and releases.resolve("7.2").version == "7.2.4"


def test_torch_2_13_plans_on_a_rocm_7_2_host():
    needs_fixtures()
    sysdir = FIXTURES / "019-gfx1150-radeon890m-rocm7.2.0-ubuntu24.04"
    code, out, err = run_cli(["--plan-only", "--snapshot", str(sysdir), "--path", "torch-reinstall",
                              "--torch", "2.13.0", "--venv", "/home/u/venvs/t", "--format", "json"])
    assert code == 2, err
    torch = json.loads(out)["facts"]["torch"]
    assert (torch["version"], torch["index"], torch["torchvision"], torch["torchaudio"], torch["triton"]) == \
        ("2.13.0", "rocm7.2", "0.28.0", "2.11.0", "triton-rocm==3.7.1")
    assert "gfx1150" in torch["wheel_gfx"]


def test_release_for_another_ubuntu(tmp_path):
    sysd = json.loads(Path(SEED).read_text())
    sysd["os"].update({"version_id": "24.04", "codename": "noble", "pretty_name": "Ubuntu 24.04.1 LTS"})
    path = tmp_path / "noble.json"
    path.write_text(json.dumps(sysd))
    code, out, err = run_cli(["--plan-only", "--snapshot", str(path), "--path", "rocm-upgrade", "--rocm", "6.1.3"])
    assert code == 64 and out == "" and "ROCm 6.1.3 is for Ubuntu 22.04 and 20.04, not 24.04" in err
    code, out, err = run_cli(["--plan-only", "--snapshot", str(path), "--path", "rocm-upgrade", "--rocm", "6.4.3"])
    assert code == 2 and "rocm/apt/6.4.3 noble main" in out


def _no_gpu_seed(tmp_path, unknown_amd: bool = False) -> str:
    """The seed system before its card is in (or with an AMD card whose gfx target is not known)."""
    sysd = json.loads(Path(SEED).read_text())
    if unknown_amd:
        sysd["gpus"][0].update({"device_id": "ffff", "pci_id": "1002:ffff", "gfx_target": None, "name": None})
    else:
        sysd["gpus"] = []
    path = tmp_path / "nogpu.json"
    path.write_text(json.dumps(sysd))
    return str(path)


def test_no_gpu_and_no_path_explains_and_stops(tmp_path):
    code, out, err = run_cli(["--plan-only", "--snapshot", _no_gpu_seed(tmp_path)])
    assert code == 3 and out == ""  # not applicable to this system, as doctor's "no AMD GPU" (README's table)
    assert "no AMD GPU was found" in err and "--path rocm-upgrade, --path torch-reinstall or --path docker" in err


@pytest.mark.parametrize("args,default", [
    (["--path", "rocm-upgrade"], "no GPU: ROCm 7.2.4 is the catalog's default"),
    (["--path", "rocm-upgrade", "--rocm", "7.0.0", "--no-dkms"], "no GPU: ROCm 7.0.0, as chosen, is not checked"),
    # the resolver prefers the index of the host's ROCm series (6.2 in this seed)
    (["--path", "torch-reinstall"], "no GPU: torch 2.6.0+rocm6.2.4 is the catalog's default"),
    (["--path", "torch-reinstall", "--torch", "2.4.1"], "no GPU: the rocm6.1 wheels of torch 2.4.1 are the catalog"),
    (["--path", "docker"], "no GPU: the image's ROCm is not checked"),
])
def test_an_explicit_path_without_a_gpu_is_planned_with_a_warning(tmp_path, args, default):
    code, out, err = run_cli(["--plan-only", "--snapshot", _no_gpu_seed(tmp_path)] + args)
    assert code == 2, err
    assert err.startswith("rocm-wizard: warning: no AMD GPU was found") and f"planning {args[1]} anyway" in err
    assert "# Note: WARNING: no AMD GPU was found" in out and default in out
    if args[1] == "torch-reinstall":
        assert "TORCH_BLAS_PREFER_HIPBLASLT is not set" in out and "TORCH_BLAS_PREFER_HIPBLASLT=" not in out
        code, out, err = run_cli(["--plan-only", "--snapshot", _no_gpu_seed(tmp_path)] + args
                                 + ["--env", "TORCH_BLAS_PREFER_HIPBLASLT=0"])
        assert code == 2 and "is not set" not in out and "TORCH_BLAS_PREFER_HIPBLASLT=0" in out


def test_an_amd_gpu_of_unknown_gfx_is_not_called_missing(tmp_path):
    path = _no_gpu_seed(tmp_path, unknown_amd=True)
    code, out, err = run_cli(["--plan-only", "--snapshot", path])
    assert code == 3 and "the gfx target of the AMD GPU (PCI device ffff) is not known" in err
    code, out, err = run_cli(["--plan-only", "--snapshot", path, "--path", "docker"])
    assert code == 2 and "warning: the gfx target of the AMD GPU (PCI device ffff) is not known" in err


def test_a_detected_gpu_without_any_build_stays_refused_with_a_path():
    code, out, err = run_cli(["--plan-only", "--snapshot", GFX803, "--path", "rocm-upgrade", "--no-dkms"])
    assert code == 3 and out == "" and "gfx803" in err and "warning" not in err


def test_plan_only_detects_the_venv_it_plans_for(tmp_path):
    """--plan-only --venv PATH looks at PATH even when it is not VIRTUAL_ENV and not where detection
    looks by itself: the fingerprint then expects its torch, not 'none'."""
    from plan_helpers import make_root

    root = make_root(tmp_path / "root")
    venv = "/srv/my envs/ml"
    site = root / venv.lstrip("/") / "lib/python3.10/site-packages"
    (site / "torch-2.5.1+rocm6.2.dist-info").mkdir(parents=True)
    (site / "torch-2.5.1+rocm6.2.dist-info/METADATA").write_text("Metadata-Version: 2.1\nName: torch\n"
                                                                 "Version: 2.5.1+rocm6.2\n")
    (site / "torch").mkdir()
    (site / "torch/version.py").write_text("__version__ = '2.5.1+rocm6.2'\nhip = '6.2.41133-dd7f95766'\n")
    (root / venv.lstrip("/") / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.10.12\n")
    code, out, err = run_cli(["--plan-only", "--format", "json", "--root", str(root), "--path", "torch-reinstall",
                              "--torch", "2.4.1+rocm6.1", "--venv", venv, "--venv-mode", "existing"])
    assert code == 2, err
    fp = json.loads(out)["system"]["fingerprint"]
    assert fp["fields"]["torch"] == ["2.5.1+rocm6.2", "2.4.1+rocm6.1"] and fp["venv"] == venv


def test_bad_snapshots_are_errors_not_tracebacks(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    for snap, words in ((str(bad), "cannot read"), (str(tmp_path / "missing.json"), "no such file or directory"),
                        (str(tmp_path / "missing-dir"), "no such file or directory")):
        code, out, err = run_cli(["--plan-only", "--snapshot", snap])
        assert code == 1 and out == "" and words in err and "Traceback" not in err
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps({"os": "ubuntu", "gpus": "many", "torch": 3}))
    code, out, err = run_cli(["--plan-only", "--snapshot", str(odd)])
    assert code in (1, 64) and out == "" and "Traceback" not in err


def test_exit_status_and_streams():
    code, out, err = run_cli(["--plan-only", "--format", "json", "--snapshot", SEED, "--path", "docker"])
    assert code == 2
    data = json.loads(out)  # stdout is the artifact and nothing else
    assert data["format"] == "rocm-wizard-plan" and data["format_version"] == 1
    assert data["summary"]["change"] >= 1
    assert "would change" in err


def test_default_path_comes_from_the_diagnosis():
    code, out, err = run_cli(["--plan-only", "--format", "json", "--snapshot",
                              str(SYSTEMS / "seed-triton-language-rocm6.0.json")])
    assert code == 2, err
    data = json.loads(out)
    assert data["path"] in ("torch-reinstall", "rocm-upgrade", "docker")
    assert any("diagnosis" in n or "default rule" in n for n in data["notes"])


def test_gfx803_is_refused_honestly():
    code, out, err = run_cli(["--plan-only", "--snapshot", GFX803])
    assert code == 3 and out == ""  # a GPU no build supports (README's table)
    assert "gfx803" in err and "no ROCm release, PyTorch wheel or AMD image" in err


def test_other_modes_without_their_modules(monkeypatch):
    import importlib

    real = importlib.import_module

    def fake(name, *a, **kw):
        if name in ("rocm_wizard.commands.apply", "rocm_wizard.tui.app"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real(name, *a, **kw)

    monkeypatch.setattr(importlib, "import_module", fake)
    code, out, err = run_cli(["--yes", "--snapshot", SEED])
    assert code == 1 and "not available" in err and out == ""
    code, out, err = run_cli([])
    assert code == 64 and "--plan-only" in err and out == ""
    code, out, err = run_cli(["--plan-only", "--dry-run"])
    assert code == 64


def test_plan_only_never_imports_textual():
    code = (
        "import sys; from rocm_wizard.cli import main\n"
        f"rc = main(['--plan-only', '--format', 'json', '--snapshot', {SEED!r}, '--path', 'torch-reinstall'])\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'torch'))\n"
        "print(bad, file=sys.stderr); sys.exit(rc if not bad else 99)\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 2, res.stderr
    assert res.stderr.strip().endswith("[]")


def test_json_plan_round_trips(seed_system):
    from rocm_wizard.plan import Choices, build_plan, plan_from_dict, plan_to_dict, render_ansible, render_shell

    for choices in (Choices(path="rocm-upgrade", rocm="6.4.3"), Choices(path="torch-reinstall", torch="2.4.1"),
                    Choices(path="torch-reinstall", torch="2.4.1", venv="/opt/x y"), Choices(path="docker")):
        plan = build_plan(seed_system("seed-rx7900xt-jammy-rocm6.2"), choices)
        data = json.loads(json.dumps(plan_to_dict(plan)))
        again = plan_from_dict(data)
        assert again.plan_id == plan.plan_id
        assert render_shell(again) == render_shell(plan)
        assert render_ansible(again) == render_ansible(plan)
    data["steps"][0]["params"]["image"] = "rocm/pytorch:other"
    from rocm_wizard.plan.jsonplan import PlanFormatError

    with pytest.raises(PlanFormatError):
        plan_from_dict(data)
    with pytest.raises(PlanFormatError):
        plan_from_dict({"format": "something-else"})


def test_recipes_are_data_with_known_step_kinds():
    from rocm_wizard.plan.recipes import load_recipe, plans_dir
    from rocm_wizard.plan.steps import KINDS

    assert Path(plans_dir()).resolve() == (REPO / "plans").resolve()
    for name in ("rocm-upgrade", "torch-reinstall", "docker"):
        recipe = load_recipe(name)
        assert recipe.steps and all(s.kind in KINDS for s in recipe.steps)
        assert len({s.id for s in recipe.steps}) == len(recipe.steps)


def test_template_rendering():
    from rocm_wizard.plan.recipes import RecipeError, render

    ns = {"a": {"b": [1, 2], "c": "x{y}"}}
    assert render("{a.b}", ns) == [1, 2]
    assert render("v{a.c}!", ns) == "vx{y}!"  # a value's braces are never expanded again
    assert render("{{literal}}", ns) == "{literal}"
    with pytest.raises(RecipeError):
        render("{a.missing}", ns)


@pytest.mark.slow
def test_wheel_carries_the_recipes(tmp_path):
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)],
                         capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        ci.missing("cannot build the wheel here (no network to PyPI for the build backend?): " + res.stderr[-300:])
    import zipfile

    (whl,) = tmp_path.glob("rocm_wizard-*.whl")
    names = zipfile.ZipFile(whl).namelist()
    for recipe in ("rocm-upgrade", "torch-reinstall", "docker"):
        assert f"rocm_wizard/plans/{recipe}.toml" in names
