"""Proof by test for the compatibility resolver (issue 10).

* A small, independent oracle reads the catalog's TOML files with tomllib (no ``rocm_wizard.catalog``,
  no ``resolve``) and re-checks every way out the resolver offers over a generated matrix of systems:
  gfx target (with or without a hidden iGPU) x host ROCm x driver train x Python x Ubuntu x WSL x the
  venv's torch.  No offered way out may violate a constraint.
* The oracle knows (issue 30) what each library bundled in a wheel ships (``[[library]]``: a wheel
  covers a GPU only when torch's arch list and every library have its kernels), the per-family and
  per-product OS lists of the Core SDK (``[[product_os]]``, ``[[family_os]]``) and that Ryzen APUs run
  the kernel's own driver (no amdgpu-dkms); ``test_the_oracle_fails_on_the_old_facts`` feeds the
  resolver the facts before issue 30 and shows the oracle finding the harm.
* The three frontends agree: the doctor's way out, ``--plan-only`` with the path only (the plan
  engine), and the TUI's form default give the same target and, for the same choices, the same plan id.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

try:
    import tomllib  # type: ignore[import-not-found]
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from rocm_wizard.catalog import wheels
from rocm_wizard.model import GPU, AccessInfo, OSInfo, RocmInfo, System, TorchEnv

DATA = Path(__file__).resolve().parents[2] / "src" / "rocm_wizard" / "catalog" / "data"
PROFILE = dict(deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])


# ------------------------------------------------------------------ the oracle (reads the data itself)
def _toml(name: str) -> dict:
    with open(DATA / name, "rb") as fh:
        return tomllib.load(fh)


WHEELS = _toml("torch_wheels.toml")
COMPAT = _toml("compat.toml")
CORE = _toml("coresdk.toml")
PROVEN = ("documented", "observed", "third-party")


def _vt(text: str) -> Tuple[int, ...]:
    return tuple(int("".join(c for c in p if c.isdigit()) or 0) for p in text.split(".")[:3])


def oracle_torch(version: str) -> dict:
    return next(t for t in WHEELS["torch"] if t["version"] == version)


def oracle_kernels(version: str, index: str, gfx: str) -> bool:
    """True only when the data proves the build carries ``gfx``."""
    t = oracle_torch(version)
    name = (t.get("gfx_set_on") or {}).get(index, t["gfx_set"])
    s = WHEELS["gfx_sets"][name]
    listed = gfx in s["gfx"] and s["status"] in PROVEN and gfx not in s.get("inferred", [])
    return listed and not oracle_library_gaps(version, index, gfx)


def oracle_library_gaps(version: str, index: str, gfx: str) -> List[str]:
    """The bundled libraries of that build with no kernels for ``gfx`` (any variant of it: a gap
    for one exact target already makes the bare target unproven)."""
    return [g["library"] for g in WHEELS.get("library", [])
            if index in g["indexes"] and (not g.get("torch") or version in g["torch"])
            and any(e.split(":")[0] == gfx for e in g["lacks"])]


def oracle_image_library_gaps(rocm: str, gfx: str) -> List[str]:
    """The libraries of ROCm ``rocm``'s own packages (so of AMD's images built on it) with no kernels
    for ``gfx`` (issue 30: Docker images are checked for the GPU like wheels)."""
    series = ".".join(rocm.split(".")[:2])
    return [g["library"] for g in WHEELS.get("library", [])
            if series in g.get("rocm", []) and any(e.split(":")[0] == gfx for e in g["lacks"])]


def oracle_core_os_ok(series: str, os_id: str, os_version: str, gfx: str, name: str) -> bool:
    """Whether the Core SDK series may be offered for that GPU on that OS: Debian only for the
    products whose row names the Debian release, Ryzen APUs not on Ubuntu 22.04."""
    s = CORE["series"][series]
    if os_id == "ubuntu":
        return not any(gfx in f["gfx"] and series in f["series"] and os_version[:5] in f["ubuntu_not"]
                       for f in CORE.get("family_os", []))
    if os_id == "debian":
        if gfx not in s.get("gfx_debian", []):
            return False
        for row in CORE.get("product_os", []):
            if row["gfx"] == gfx and any(p.lower() in name.lower() for p in row["products"]):
                return os_version.split(".")[0] in row["debian"]
        return True
    return True


def oracle_python_not_excluded(version: str, python: str) -> bool:
    t = oracle_torch(version)
    return not t.get("python") or python in t["python"]


def oracle_in_window(train: str, rocm: str) -> Optional[bool]:
    w = COMPAT["kmd_window"]
    series = ".".join(rocm.split(".")[:2])
    if _vt(series) > _vt(w["horizon"]):
        return None
    for row in w["driver"]:
        if row["train"] == train:
            return _vt(row["user_min"]) <= _vt(series) <= _vt(row["user_max"])
    return None


def oracle_wsl(gfx: str, rocm: str) -> bool:
    rows = [r for r in COMPAT["wsl"]["support"] if _vt(rocm) >= _vt(r["rocm_min"])]
    return bool(rows) and gfx in sorted(rows, key=lambda r: _vt(r["rocm_min"]))[-1]["gfx"]


# ------------------------------------------------------------------ generated systems
GFX = ["gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1200", "gfx1201", "gfx1030",
       "gfx90a", "gfx942", "gfx906", "gfx1031"]
HOST_ROCM = [None, "5.7.1", "6.0.2", "6.2.4", "6.4.3", "7.0.2", "7.2.1"]
DRIVER = {None: None, "5.7": "1:6.1.5.50700-1664922.22.04", "6.2": "1:6.8.5.60200-2009582.24.04",
          "6.4": "1:6.12.12.60403-2194681.22.04", "30.10": "1:6.14.14.30100000-2204008.24.04",
          "30.30": "1:6.16.13.30300000-2278356.24.04"}
PYTHON = [None, "3.8.18", "3.10.12", "3.12.3", "3.13.1", "3.14.0"]
VENV_TORCH = [None, "2.4.1+rocm6.1", "2.5.1+rocm6.2", "2.6.0+rocm6.2.4", "2.8.0+rocm6.4", "2.13.0+rocm7.2"]


APU_GFX = ("gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153")
PRODUCT = {"gfx90a": ["AMD Instinct MI210", "AMD Instinct MI250X"], "gfx942": ["AMD Instinct MI300A", "AMD Instinct MI300X"],
           "gfx908": ["AMD Instinct MI100"], "gfx950": ["AMD Instinct MI350P", "AMD Instinct MI355X"]}


def make_system(gfx: str, igpu: bool, host: Optional[str], train: Optional[str], python: Optional[str],
                ubuntu: str, wsl: bool, venv_torch: Optional[str], os_id: str = "ubuntu", pick: int = 0) -> System:
    s = System()
    s.origin = "snapshot"
    name = PRODUCT[gfx][pick % len(PRODUCT[gfx])] if gfx in PRODUCT else "AMD Radeon test GPU"
    if os_id == "debian":
        ubuntu = {"22.04": "12", "24.04": "13"}.get(ubuntu, ubuntu)
        s.os = OSInfo(id="debian", version_id=ubuntu, pretty_name=f"Debian GNU/Linux {ubuntu}", kernel="6.12.38+deb13-amd64")
    else:
        s.os = OSInfo(id="ubuntu", version_id=ubuntu, pretty_name=f"Ubuntu {ubuntu}",
                      kernel="5.15.153.1-microsoft-standard-WSL2" if wsl else "6.8.0-45-generic", wsl=wsl)
    apu = gfx in APU_GFX
    # 744c is a gfx1100 chip: other targets get no PCI id (the chip's own target wins over a reported one)
    s.gpus = [GPU(vendor_id="1002", device_id="744c" if gfx == "gfx1100" else None, gfx_target=gfx, name=name, kind="igpu" if apu else "dgpu",
                  segment="apu" if apu else ("instinct" if gfx in PRODUCT else "radeon"))]
    if apu:
        igpu = False
    if igpu:
        s.gpus.append(GPU(vendor_id="1002", device_id="13c0", gfx_target="gfx1036", name="AMD Radeon Graphics",
                          kind="igpu", segment="apu"))
    pkgs = {}
    if host:
        pkgs["rocm-core"] = f"{host}.{int(host.split('.')[0]) * 10000 + int(host.split('.')[1]) * 100 + int(host.split('.')[2])}-1"
    if DRIVER[train]:
        pkgs["amdgpu-dkms"] = DRIVER[train]
    s.rocm = RocmInfo(version=host, packages=pkgs, amdgpu_loaded=True)
    s.access = AccessInfo(user="alice", env={})
    if venv_torch or python:
        s.torch = [TorchEnv(path="/home/alice/venv", site_packages="/home/alice/venv/lib/site-packages",
                            python=python, active=True, version=venv_torch, build="rocm" if venv_torch else None)]
    return s


systems = st.builds(make_system, st.sampled_from(GFX), st.booleans(), st.sampled_from(HOST_ROCM),
                    st.sampled_from(sorted(DRIVER, key=str)), st.sampled_from(PYTHON),
                    st.sampled_from(["22.04", "24.04"]), st.booleans(), st.sampled_from(VENV_TORCH),
                    st.sampled_from(["ubuntu", "ubuntu", "debian"]), st.integers(0, 1))


def violations(system, res, facts) -> List[str]:
    """What the independent oracle finds wrong in the offered ways out (empty: nothing)."""
    from rocm_wizard import resolve

    out: List[str] = []
    gfx = facts.compute_gfx
    for w in res["torch-reinstall"].offered:
        t, idx = w.subject
        for g in gfx:
            if not oracle_kernels(t.version, idx.name, g):
                out.append(f"{w.key} offered for {g}: no proven kernels"
                           + (f" ({', '.join(oracle_library_gaps(t.version, idx.name, g))} lacks them)"
                              if oracle_library_gaps(t.version, idx.name, g) else ""))
        for c in w.checks:
            if c.verdict == resolve.SATISFIED and c.constraint == "wheel-has-gfx" and not all(
                    oracle_kernels(t.version, idx.name, g) for g in gfx):
                out.append(f"{w.key}: wheel-has-gfx satisfied without proof")
    for w in res["docker"].offered:  # issue 30 re-check: a container under WSL reaches the GPU through the host
        if facts.wsl:
            for g in gfx:
                if not oracle_wsl(g, facts.host_rocm or w.subject.rocm):
                    out.append(f"{w.key} offered for {g} under WSL: not on AMD's WSL list")
    for w in res["rocm-upgrade"].offered:
        rel = w.subject
        if getattr(rel, "core", False):
            for g in gfx:
                if not oracle_core_os_ok(rel.series, system.os.id, system.os.version_id, g, facts.names):
                    out.append(f"{w.key} offered for {g} ({facts.names}) on {system.os.id} {system.os.version_id}")
    return out


def apu_dkms_violations(system) -> List[str]:
    """A Ryzen APU host's ROCm upgrade must not install amdgpu-dkms (the kernel's own driver)."""
    from rocm_wizard.doctor import diagnose
    from rocm_wizard.plan.build import Choices, PlanError, build_plan

    if not system.gpus or not all(g.kind == "igpu" for g in system.gpus):
        return []
    out = []
    rec = [r for r in diagnose(system).recommendations if r.path == "rocm-upgrade"][0]
    if rec.applies and rec.target.get("kernel_driver", "").startswith("amdgpu-dkms"):
        out.append(f"doctor: amdgpu-dkms for an APU ({rec.target.get('rocm')})")
    try:
        plan = build_plan(system, Choices(path="rocm-upgrade", dkms=None,
                                          rocm_core_key_fingerprint=None))
    except PlanError:
        return out
    if plan.inputs.get("dkms") or any("amdgpu-dkms" in str(getattr(st, "packages", "")) or st.id == "amdgpu-dkms"
                                      for st in plan.steps):
        out.append(f"plan: amdgpu-dkms for an APU ({plan.inputs.get('rocm')})")
    return out


# ------------------------------------------------------------------ property: nothing offered violates a constraint
@settings(max_examples=150, **PROFILE)
@given(systems)
def test_no_offered_way_out_violates_a_constraint(system):
    from rocm_wizard import resolve

    facts = resolve.from_system(system)
    res = resolve.resolve(system, facts=facts)
    gfx = facts.compute_gfx
    assert "gfx1036" not in gfx  # the hidden iGPU never decides
    for w in res["torch-reinstall"].offered:
        t, idx = w.subject
        for g in gfx:
            assert oracle_kernels(t.version, idx.name, g), (w.key, g)
        py = system.torch[0].python if system.torch else None
        if py:
            assert oracle_python_not_excluded(t.version, ".".join(py.split(".")[:2])), (w.key, py)
        if facts.wsl:
            assert all(oracle_wsl(g, facts.host_rocm or idx.rocm) for g in gfx), w.key
        elif facts.driver_train:
            assert oracle_in_window(facts.driver_train, idx.rocm) is not False, (w.key, facts.driver_train)
        # unknown is never shown as supported
        for c in w.checks:
            if c.verdict == resolve.SATISFIED and c.constraint == "wheel-has-gfx":
                assert all(oracle_kernels(t.version, idx.name, g) for g in gfx)
    for w in res["docker"].offered:
        for g in gfx:
            assert g in w.subject.gfx_observed or not oracle_image_library_gaps(w.subject.rocm, g), (w.key, g)
        if facts.driver_train and not facts.wsl:
            assert oracle_in_window(facts.driver_train, w.subject.rocm) is not False, w.key
        if facts.wsl:
            assert all(oracle_wsl(g, facts.host_rocm or w.subject.rocm) for g in gfx), w.key
    for w in res["rocm-upgrade"].offered:
        assert all(g in w.subject.gfx_official for g in gfx), w.key
        if facts.gpus and all(g.igpu for g in facts.gpus) and not facts.wsl:
            assert apu_dkms_violations(system) == []
        if facts.wsl:
            assert all(oracle_wsl(g, w.subject.version) for g in gfx), w.key
    # every candidate is either offered or rejected with a named reason, exactly once
    for r in res.values():
        keys = [w.key for w in r.offered + r.rejected]
        assert len(keys) == len(set(keys))
        for w in r.rejected:
            assert w.violated or any(c.on_unknown == "reject" for c in w.unknown)
        if not r.offered:
            assert r.reason
    assert violations(system, res, facts) == []


# ------------------------------------------------------------------ the three frontends agree
CORE_FPR = "0123456789ABCDEF0123456789ABCDEF01234567"


def _frontends(system) -> Dict[str, Tuple[Optional[str], Optional[str], Optional[str], Optional[str]]]:
    """Per path: (doctor's key, plan engine's key, TUI default, "same plan id" marker)."""
    from rocm_wizard.doctor import diagnose
    from rocm_wizard.plan.build import Choices, PlanError, build_plan
    from rocm_wizard.tui import fields as F
    from rocm_wizard.tui.core import _choice_kwargs

    d = diagnose(system)
    out = {}
    for rec in d.recommendations:
        if not rec.applies:
            continue
        key_of = {"torch-reinstall": lambda t: f"{t['torch']}+{wheels.index(t['index']).label}",
                  "rocm-upgrade": lambda t: t["rocm"],
                  "docker": lambda t: t["image"]}[rec.path]
        doctor_key = key_of(rec.target)
        # a torch reinstall needs a venv: with none detected, the user names a new one (the same for
        # both frontends); every other choice is left to the frontend
        venv = (rec.target.get("venv") or "/home/agree/new-venv") if rec.path == "torch-reinstall" else None
        # with the running kernel unknown amdgpu-dkms cannot be planned: the doctor's way out says
        # "none", the TUI's form has the flag off, --plan-only is given --no-dkms
        dkms = rec.target.get("kernel_driver", "amdgpu-dkms") == "amdgpu-dkms"
        # a Core SDK release needs the key fingerprint the user checked (AMD publishes none): given to
        # both frontends alike, as a user would type it
        core_fpr = CORE_FPR if rec.path == "rocm-upgrade" and rec.target.get("stream") == "core-sdk" else None
        try:
            plan = build_plan(system, Choices(path=rec.path, venv=venv, dkms=dkms, rocm_core_key_fingerprint=core_fpr))
        except PlanError as exc:
            out[rec.path] = (doctor_key, f"refused: {exc.message}", None, None)
            continue
        plan_key = {"torch-reinstall": plan.inputs.get("torch"), "rocm-upgrade": plan.inputs.get("rocm"),
                    "docker": plan.inputs.get("image")}[rec.path]
        form = F.fields_for(rec.path, system, rec.target)
        values = F.values(form)
        if venv and not values.get("venv"):
            values["venv"] = venv
        if core_fpr:
            values["rocm_core_key_fingerprint"] = core_fpr
        tui_key = {"torch-reinstall": values.get("torch"), "rocm-upgrade": values.get("rocm"),
                   "docker": values.get("image")}[rec.path]
        if rec.path == "docker" and tui_key and ":" not in str(tui_key):
            tui_key = f"rocm/pytorch:{tui_key}"
        same_id = None
        try:
            tui_plan = build_plan(system, Choices(**_choice_kwargs(rec.path, values)))
            same_id = "same" if tui_plan.plan_id == plan.plan_id else f"{tui_plan.plan_id} != {plan.plan_id}"
        except PlanError as exc:
            same_id = f"tui refused: {exc.message}"
        out[rec.path] = (doctor_key, plan_key, tui_key, same_id)
    return out


def _assert_agree(system, label: str) -> None:
    for path, (doctor_key, plan_key, tui_key, same_id) in _frontends(system).items():
        assert doctor_key == plan_key, f"{label} {path}: doctor {doctor_key} vs --plan-only {plan_key}"
        assert doctor_key == tui_key, f"{label} {path}: doctor {doctor_key} vs TUI {tui_key}"
        assert same_id == "same", f"{label} {path}: {same_id}"


@settings(max_examples=12, **PROFILE)
@given(systems.filter(lambda s: not s.os.wsl))
def test_doctor_plan_only_and_tui_agree_on_generated_systems(system):
    _assert_agree(system, "generated")


def _real_fixtures() -> List[Path]:
    from rwtest import ci

    return ci.real_fixtures(labelled=True)


PLAN_SYSTEMS = sorted((Path(__file__).resolve().parents[1] / "plan" / "systems").glob("*.json"))


@pytest.mark.parametrize("folder", _real_fixtures(), ids=lambda p: p.name)
def test_frontends_agree_on_every_real_fixture(folder):
    from rocm_wizard.detect import detect_snapshot

    _assert_agree(detect_snapshot(str(folder)), folder.name)


@pytest.mark.parametrize("path", PLAN_SYSTEMS, ids=lambda p: p.stem)
def test_frontends_agree_on_every_seed_scenario(path):
    from rocm_wizard import model

    with open(path) as fh:
        s = model.from_dict(model.System, json.load(fh))
    s.origin = "snapshot"
    _assert_agree(s, path.stem)


def test_the_issue_cases_are_refused_or_not_offered():
    """The harmful advice listed in issue 10, on the generated-system builder."""
    from rocm_wizard import resolve

    # torch 2.6.0 for an RX 9070 (gfx1201)
    s = make_system("gfx1201", False, "6.4.3", "6.4", "3.12.3", "24.04", False, None)
    offered = [w.key for w in resolve.torch_ways(resolve.from_system(s)).offered]
    assert offered and not any(k.startswith("2.6.0+") for k in offered)
    # "keep torch 2.5.1+rocm6.1" for an RX 7800 XT (gfx1101)
    s = make_system("gfx1101", False, "6.4.3", "6.4", "3.12.3", "24.04", False, "2.5.1+rocm6.2")
    assert "2.5.1+rocm6.1" not in [w.key for w in resolve.torch_ways(resolve.from_system(s)).offered]
    # torch 2.4.1 for a Python 3.13 venv
    s = make_system("gfx1100", False, "6.4.3", "6.4", "3.13.1", "24.04", False, "2.4.1+rocm6.1")
    assert not any(k.startswith("2.4.1+") for k in [w.key for w in resolve.torch_ways(resolve.from_system(s)).offered])
    # a ROCm 7.0 image on a 6.2 driver; rocm6.4 wheels on a ROCm 5.7 driver
    s = make_system("gfx1100", False, "6.2.4", "6.2", "3.12.3", "24.04", False, None)
    assert not any(w.subject.rocm.startswith("7.2") for w in resolve.docker_ways(resolve.from_system(s)).offered)
    s = make_system("gfx1100", False, "5.7.1", "5.7", "3.10.12", "22.04", False, None)
    assert "2.8.0+rocm6.4" not in [w.key for w in resolve.torch_ways(resolve.from_system(s)).offered]
    # under WSL: an RDNA2 card gets nothing
    s = make_system("gfx1030", False, "6.4.3", None, "3.12.3", "24.04", True, None)
    assert resolve.torch_ways(resolve.from_system(s)).offered == []


@pytest.mark.parametrize("name", ["seed_alloc_failed", "seed_triton", "seed_gfx803"])
def test_frontends_agree_on_the_doctor_seed_systems(name):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "doctor"))
    import test_seeds

    _assert_agree(getattr(test_seeds, name)(), name)


def test_the_oracle_fails_on_the_old_facts(monkeypatch):
    """Issue 30: fed the facts before it (no per-library coverage, no per-product Debian lists,
    amdgpu-dkms on every host), the resolver offers what the oracle calls harmful."""
    from rocm_wizard import resolve
    from rocm_wizard.catalog import coresdk

    mi50 = make_system("gfx906", False, "6.4.3", "6.4", "3.12.3", "24.04", False, "2.8.0+rocm6.4")
    mi210 = make_system("gfx90a", False, None, None, "3.12.3", "22.04", False, None, os_id="debian", pick=0)
    apu = make_system("gfx1151", False, None, None, "3.12.3", "24.04", False, None)
    apu.os.pretty_name, apu.os.kernel = "Ubuntu 24.04.4 LTS", "6.17.0-19-generic"

    def found(system):
        f = resolve.from_system(system)
        return violations(system, resolve.resolve(system, facts=f), f)

    # today's facts: nothing harmful
    assert found(mi50) == [] and found(mi210) == [] and apu_dkms_violations(apu) == []
    # the old facts
    monkeypatch.setattr(wheels, "_library_gaps", lambda: ())
    real = coresdk._data()
    monkeypatch.setattr(coresdk, "_data", lambda: {k: v for k, v in real.items() if k not in ("product_os", "family_os")})
    old_mi50 = found(mi50)
    assert any(v.startswith("2.13.0+rocm7.2 offered for gfx906") and "rocBLAS" in v for v in old_mi50), old_mi50
    assert any("on debian 12" in v and "MI210" in v for v in found(mi210)), found(mi210)
    from rocm_wizard.plan import build

    monkeypatch.setattr(build, "_dkms_choice", lambda system, choices, rel, known, notes: True)
    assert any(v.startswith("plan: amdgpu-dkms") for v in apu_dkms_violations(apu))


def test_the_oracle_fails_on_docker_without_the_wsl_check(monkeypatch):
    """Issue 30 re-check: an RDNA2 card under WSL (no WSL list names gfx1030) was offered rocm/pytorch
    images, which reach the GPU only through the host's WSL runtime; the oracle calls that harmful."""
    from rocm_wizard import resolve
    from rocm_wizard.resolve import resolver

    rdna2 = make_system("gfx1030", False, "6.2.4", None, "3.12.3", "24.04", True, None)

    def found(system):
        f = resolve.from_system(system)
        return violations(system, resolve.resolve(system, facts=f), f)

    assert found(rdna2) == []
    monkeypatch.setattr(resolver, "check_wsl_gpu", lambda facts, rocm: resolver._check("wsl-gpu", resolve.SATISFIED, "old"))
    old = found(rdna2)
    assert any("under WSL: not on AMD's WSL list" in v for v in old), old

