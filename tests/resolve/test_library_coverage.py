"""Issue 30: a wheel's coverage is torch's arch list intersected with what each bundled library
ships, per exact target.  pytorch.org wheels built on ROCm >= 6.4 list gfx900/gfx906 but bundle a
rocBLAS without their Tensile kernels (pytorch/pytorch#179865, ROCm/legacy-rocm-build#4625)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "doctor"))

from _doctor_systems import gpu, healthy, torch_env  # noqa: E402

from rocm_wizard.catalog import wheels  # noqa: E402
from rocm_wizard.doctor import diagnose  # noqa: E402
from rocm_wizard.resolve import resolver  # noqa: E402
from rocm_wizard.resolve.facts import Facts, GpuFact, from_system  # noqa: E402

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


@pytest.mark.parametrize("index", ["rocm6.4", "rocm7.0", "rocm7.1", "rocm7.2"])
@pytest.mark.parametrize("gfx", ["gfx900", "gfx906"])
def test_rocm64_and_later_wheels_lack_rocblas_kernels_for_vega(index, gfx):
    for t in wheels.releases_on(index):
        arch = wheels.wheel_gfx(t, index)
        assert wheels.wheel_has_gfx(t, index, gfx) is not True, (t.version, index)
        if arch is not None and gfx in arch.gfx:
            gaps = wheels.libraries_lacking(t, index, gfx)
            assert [g.library for g in gaps] == ["rocBLAS"] and gaps[0].status == "observed"
            assert {"pytorch-179865", "rocm-legacy-4625"} <= set(gaps[0].sources)


def test_rocm63_is_the_last_pytorch_index_for_gfx906():
    assert wheels.wheel_has_gfx("2.9.1", "rocm6.3", "gfx906") is True
    assert wheels.wheel_has_gfx("2.9.1", "rocm6.4", "gfx906") is False
    newest = wheels.pairings(["gfx906"])[0]
    assert newest[1].name == "rocm6.3"
    # the same GPU with features in its name: the bare gaps match every variant
    assert wheels.wheel_has_gfx("2.8.0", "rocm6.4", "gfx906:sramecc+:xnack-") is False
    assert wheels.wheel_has_gfx("2.8.0", "rocm6.4", "gfx1100") is True


def test_exact_target_gaps_match_by_features():
    gap = wheels.LibraryGap("rocBLAS", "xnack-specific code objects", ("amd-x",), (), ("gfx90a:xnack+",), "observed",
                            ("therock-5976",))
    assert gap.lacks_target("gfx90a:sramecc+:xnack+")
    assert not gap.lacks_target("gfx90a:sramecc+:xnack-")
    assert gap.lacks_target("gfx90a")  # features unknown: the wheel may not load on it
    assert not gap.lacks_target("gfx942:xnack+")
    assert wheels.split_target("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-") == ("gfx90a", frozenset({"sramecc+", "xnack-"}))


def test_amd_714_torch_212_lacks_gfx90a_where_211_works():
    """ROCm/pytorch#3518: 2.12 on AMD's 7.14 index fails on an MI250, 2.11 works."""
    assert wheels.wheel_has_gfx("2.12.0", "amd-rocm7.14.0", "gfx90a:sramecc+:xnack-") is False
    assert wheels.wheel_has_gfx("2.11.0", "amd-rocm7.14.0", "gfx90a") is True
    assert wheels.wheel_has_gfx("2.12.0", "amd-rocm7.14.0", "gfx942") is True


def _mi50(torch_version="2.8.0+rocm6.4"):
    sysm = healthy()
    g = gpu("gfx906", "AMD Instinct MI50", "66a1")
    g.isa = "amdgcn-amd-amdhsa--gfx906:sramecc+:xnack-"
    sysm.gpus = [g]
    env = torch_env(torch_version)
    sysm.torch = [env]
    return sysm


def test_resolver_refuses_rocm64_wheels_for_mi50_and_names_rocblas():
    facts = from_system(_mi50())
    assert facts.compute_targets == ["gfx906:sramecc+:xnack-"]
    res = resolver.torch_ways(facts)
    assert res.best is not None and res.best.subject[1].name == "rocm6.3", res.best.key
    offered = {w.key for w in res.offered}
    assert "2.13.0+rocm7.2" not in offered and "2.8.0+rocm6.4" not in offered
    bad = [w for w in res.rejected if w.key == "2.13.0+rocm7.2"][0]
    detail = bad.check("wheel-has-gfx").detail
    assert bad.check("wheel-has-gfx").verdict == "violated" and "rocBLAS" in detail and "Tensile" in detail


def test_mi50_on_rocm64_torch_is_not_told_it_passes_every_check():
    d = diagnose(_mi50())
    f = d.finding("wheel-library-lacks-kernels")
    assert f is not None and f.severity == "error"
    assert any("rocBLAS" in e and "gfx906" in e for e in f.evidence)
    assert "rocm6.3" in (f.fix or "") and "device-gfx906" in (f.fix or "")
    # the arch-list rule stays quiet: torch lists gfx906, the library does not ship it
    assert d.finding("wheel-missing-gfx") is None
    t = d.recommendation("torch-reinstall")
    assert t.applies and t.target["index"] == "rocm6.3"
    assert "passes every check" not in str(getattr(t, "reason", "")) + str(t.target)


def test_mi50_on_rocm63_torch_keeps_its_build():
    sysm = _mi50("2.7.1+rocm6.3")
    d = diagnose(sysm)
    assert d.finding("wheel-library-lacks-kernels") is None


def test_vega56_real_paste_names_rocblas_and_the_way_out():
    """pytorch/pytorch#179865 (tests/data/real/300-*): the rocBLAS message alone is enough."""
    from rocm_wizard.detect import detect_snapshot

    folder = next(REAL.glob("300-*"))
    d = diagnose(detect_snapshot(str(folder)))
    f = d.finding("wheel-library-lacks-kernels")
    assert f is not None and any("gfx900" in e and "TensileLibrary" in e for e in f.evidence)
    assert "rocm6.3" in f.fix and "device-gfx900" in f.fix


def test_independent_facts_object_sees_the_gap_without_features():
    f = Facts(gpus=[GpuFact("gfx900", "Radeon RX Vega 56", False)], python="3.12")
    keys = {w.key for w in resolver.torch_ways(f).offered}
    assert keys and all(k.endswith(("+rocm6.3", "+rocm6.2.4", "+rocm6.2", "+rocm6.1", "+rocm6.0")) for k in keys), keys


def test_apu_memory_advice_is_a_small_carveout_and_a_larger_gtt():
    from rocm_wizard.doctor.registry import rules

    meta = rules()["gpu-memory-small"]
    assert "amd-ttm --set" in meta.fix and "amd-debug-tools" in meta.fix
    assert "Raise the UMA frame buffer" not in meta.fix and "small" in meta.fix
    assert "amd-apu-memory" in meta.sources


def test_vega_frontier_real_host_gets_the_rocm63_index_from_doctor_and_plan_only():
    """tests/data/real/117-* (a Vega Frontier, gfx900): the expert's answer is the rocm6.3 index."""
    import json as _json
    import contextlib
    import io

    from rocm_wizard.cli import main
    from rocm_wizard.detect import detect_snapshot

    folder = next(REAL.glob("117-*"))
    d = diagnose(detect_snapshot(str(folder)))
    t = d.recommendation("torch-reinstall")
    assert t.applies and t.target["index"] == "rocm6.3", t.target
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["--plan-only", "--format", "json", "--snapshot", str(folder), "--path", "torch-reinstall",
                   "--venv", "/home/user/venvs/comfy"])
    assert rc == 2, err.getvalue()
    plan = _json.loads(out.getvalue())
    assert plan["inputs"]["torch"].endswith("+rocm6.3")
    assert plan["inputs"]["torch_index_url"].endswith("/whl/rocm6.3")


def test_radeon_vii_host_rocm64_paste_names_the_host_rocblas():
    """ROCm/legacy-rocm-build#4625 (tests/data/real/301-*): the host's ROCm 6.4.0 rocBLAS has no
    gfx906 Tensile files; the way out names ROCm 6.3.x for the host and rocm6.3 for torch."""
    from rocm_wizard.detect import detect_snapshot

    d = diagnose(detect_snapshot(str(next(REAL.glob("301-*")))))
    f = d.finding("wheel-library-lacks-kernels")
    assert f is not None and any("/opt/rocm-6.4.0/lib/rocblas" in e and "gfx906" in e for e in f.evidence)
    assert "host's ROCm" in f.fix and "ROCm 6.3.x" in f.fix and "rocm6.3 index" in f.fix
    # the wheel paste (300-*) is not told about the host
    f300 = diagnose(detect_snapshot(str(next(REAL.glob("300-*"))))).finding("wheel-library-lacks-kernels")
    assert "host's ROCm" not in f300.fix


def test_an_applications_own_rocblas_is_not_called_a_torch_wheels():
    """(s24) LM Studio's bundled rocBLAS lacking gfx1151 kernels (tests/data/real/3400, lmstudio-bug-tracker#1269;
    264): no torch is involved -- the finding says whose library it is, offers no torch reinstall, and quotes the
    line once however often the log repeats it."""
    from rocm_wizard.detect import detect_snapshot

    for num in ("3400", "264"):
        d = diagnose(detect_snapshot(str(next(REAL.glob(num + "-*")))))
        f = d.finding("wheel-library-lacks-kernels")
        assert f is not None and "application" in f.title and "PyTorch wheel" not in f.title
        assert ".lmstudio" in " ".join(f.evidence) and len(f.evidence) == len(set(f.evidence))
        assert "torch reinstall" in f.fix and f.path is None
        assert not d.recommendation("torch-reinstall").applies
    # a wheel's and the host's rocBLAS keep their findings (300: torch/lib; 301: /opt/rocm-6.4.0)
    for num in ("300", "301"):
        f = diagnose(detect_snapshot(str(next(REAL.glob(num + "-*"))))).finding("wheel-library-lacks-kernels")
        assert f is not None and "application" not in f.title and f.path == "torch-reinstall"


def test_an_applications_line_beside_a_wheel_gap_is_not_called_the_hosts_rocblas(tmp_path):
    """A venv's torch wheel that lacks gfx900 kernels (tests/data/real/300) and, in the same paste, an application's
    own bundled rocBLAS failing for gfx900 (the line of 3400's LM Studio engine, its target changed): the torch fix
    stays, and the host's /opt/rocm is not named as the failing rocBLAS -- neither line is the host's."""
    import shutil

    from rocm_wizard.detect import detect_snapshot

    src = next(REAL.glob("300-*"))
    for f in src.glob("*.txt"):
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "app.log").write_text(
        "rocBLAS error: Cannot read /home/u/.lmstudio/extensions/backends/vendor/linux-llama-rocm-vendor-v3/rocblas/"
        "library/TensileLibrary.dat: No such file or directory for GPU arch : gfx900\n")
    f = diagnose(detect_snapshot(str(tmp_path))).finding("wheel-library-lacks-kernels")
    assert f is not None and ".lmstudio" in " ".join(f.evidence) and "rocm6.3 index" in f.fix
    assert "host's ROCm" not in f.fix
    # the same application line beside the host's /opt/rocm line (301) does name the host
    (tmp_path / "host.log").write_text(next(p for p in next(REAL.glob("301-*")).glob("*.txt")
                                            if "/opt/rocm-6.4.0/lib/rocblas" in p.read_text(errors="replace"))
                                       .read_text(errors="replace"))
    f = diagnose(detect_snapshot(str(tmp_path))).finding("wheel-library-lacks-kernels")
    assert f is not None and "host's ROCm" in f.fix


@pytest.mark.parametrize("path,owner", [
    # the paths rocBLAS printed in the corpus's 'Cannot read .../TensileLibrary.dat' lines (tests/data/real)
    ("/home/u/venv/lib/python3.10/site-packages/torch/lib/rocblas/library/TensileLibrary.dat", "wheel"),
    ("C:\\SDNext\\sdnext\\venv\\Lib\\site-packages\\_rocm_sdk_devel\\bin\\rocblas\\library/TensileLibrary.dat", "wheel"),
    ("/opt/rocm-6.4.1/lib/llvm/bin/../../../lib/rocblas/library/TensileLibrary.dat", "host"),
    ("/opt/rocm/rocblas/library/TensileLibrary.dat", "host"),
    ("/nix/store/y74cnhncj1zbnsg04dmi87rk4q0ybm6n-rocm-path/lib/rocblas/library/TensileLibrary.dat", "host"),
    ("/usr/lib/x86_64-linux-gnu/rocblas/5.5.1/library/TensileLibrary.dat", "host"),  # Debian's librocblas0
    ("C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\rocblas\\library\\TensileLibrary.dat", "host"),  # the HIP SDK
    ("/home/u/.lmstudio/extensions/backends/vendor/linux-llama-rocm-vendor-v3/rocblas/library/TensileLibrary.dat",
     "application"),
    ("C:\\\\Users\\\\saki\\\\AppData\\\\Local\\\\Programs\\\\Ollama\\\\rocm\\\\/rocblas/library/TensileLibrary.dat", "application"),
    ("/usr/lib/ollama/rocm/rocblas/library/TensileLibrary.dat", "application"),
])
def test_whose_rocblas_failed(path, owner):
    from rocm_wizard.doctor.matchers import _rocblas_owner

    assert _rocblas_owner(path) == owner
