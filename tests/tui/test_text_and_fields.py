"""The TUI's pure helpers: what the screens say (text.py) and the options form (fields.py)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rocm_wizard.model import GPU, System
from rocm_wizard.tui import fields as F
from rocm_wizard.tui import text as T


@pytest.fixture(scope="module")
def demo_system():
    from rocm_wizard.demo import bundle_path
    from rocm_wizard.detect import detect_snapshot

    return detect_snapshot(bundle_path())


# -- text ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("env, expected", [
    ({"SSH_CONNECTION": "10.0.0.2 50000 10.0.0.1 22"}, True),
    ({"SSH_TTY": "/dev/pts/3"}, True),
    ({"SSH_CONNECTION": "x", "TMUX": "/tmp/tmux-1000/default,1,0"}, False),
    ({"SSH_CONNECTION": "x", "STY": "1234.pts-0.host"}, False),
    ({}, False),
    ({"TMUX": "x"}, False),
])
def test_ssh_notice_only_over_ssh_without_a_multiplexer(env, expected):
    assert T.ssh_without_multiplexer(env) is expected


@pytest.mark.parametrize("seconds, text", [(0, "0:00"), (59.9, "0:59"), (75.4, "1:15"), (3725, "1:02:05"),
                                           (-3, "0:00"), ("x", "0:00"), (None, "0:00")])
def test_elapsed(seconds, text):
    assert T.elapsed(seconds) == text


def test_summary_of_the_demo_system(demo_system):
    rows = dict(T.summary_rows(demo_system))
    assert rows["OS"].startswith("Ubuntu 22.04.5 LTS")
    assert "(HWE)" in rows["Kernel"]
    assert rows["GPU"].startswith("AMD Radeon RX 7900 XT (gfx1100, 20 GiB")
    assert rows["ROCm"] == "6.2.0 (/opt/rocm-6.2.0)"
    assert rows["Driver"] == "amdgpu 6.8.5 (dkms)"
    assert "torch 2.11.0+rocm7.2" in rows["Venv"] and "triton-rocm 3.6.0" in rows["Venv"]
    assert rows["Docker"].startswith("27.3.1 (daemon running")
    assert "render+video" in rows["Access"] and "/dev/kfd rw" in rows["Access"]


def test_summary_of_an_empty_system_says_unknown_not_blank():
    rows = T.summary_rows(System())
    assert all(value.strip() for _label, value in rows)
    d = dict(rows)
    assert d["GPU"] == "no AMD GPU found" and d["ROCm"] == "not installed" and d["Docker"] == "not installed"


def test_summary_lists_every_amd_gpu_and_names_other_vendors():
    s = System()
    s.gpus = [GPU(name="A", gfx_target="gfx1100"), GPU(name="B", gfx_target="gfx1036")]
    assert [label for label, _ in T.summary_rows(s) if label.startswith("GPU")] == ["GPU 0", "GPU 1"]
    s.gpus = [GPU(is_amd=False, name="Intel UHD")]
    assert dict(T.summary_rows(s))["GPU"] == "no AMD GPU found (other: Intel UHD)"


def test_probe_results(demo_system):
    assert T.probe_result_text("gpus", demo_system) == "AMD Radeon RX 7900 XT (gfx1100)"
    assert T.probe_result_text("errors", demo_system) == "hipblas_status"
    assert T.probe_result_text("python", System()) == "no torch found"
    assert T.probe_result_text("unknown-probe", System()) == "done"


def test_replay_command_quotes_the_path():
    assert T.replay_command("/tmp/a b.json") == "rocm-wizard --yes --answers '/tmp/a b.json'"


def test_short_and_diff_stat():
    assert T.short("a  b\nc", 10) == "a b c"
    assert T.short("x" * 20, 5) == "xxxx…"
    assert T.diff_stat("--- a\n+++ b\n@@\n+x\n+y\n-z\n") == (2, 1)


# -- fields ----------------------------------------------------------------------------------------

def test_torch_choices_only_offer_wheels_with_kernels_for_the_gpu(demo_system):
    from rocm_wizard.catalog import wheels

    choices = F.torch_choices(demo_system)
    assert choices, "the demo GPU (gfx1100) has ROCm wheels"
    for value, _label in choices:
        version, index = value.split("+", 1)
        assert wheels.wheel_has_gfx(version, index, "gfx1100") is True
        assert index in wheels.torch_release(version).indexes
    from rocm_wizard.doctor import diagnose

    rec = diagnose(demo_system).recommendation("torch-reinstall")
    assert f"{rec.target['torch']}+{rec.target['index']}" in [v for v, _ in choices]  # the doctor's way is offered


def test_torch_choices_for_a_gpu_no_wheel_supports():
    s = System()
    s.gpus = [GPU(name="RX 580", gfx_target="gfx803")]
    assert F.torch_choices(s) == []
    form = F.fields_for("torch-reinstall", s)
    torch = next(f for f in form if f.name == "torch")
    assert torch.error() == "no valid choice for this system"


def test_release_choices_are_newer_and_support_the_gpu_on_this_ubuntu(demo_system):
    from packaging.version import Version

    from rocm_wizard.catalog import releases

    values = [v for v, _ in F.release_choices(demo_system)]
    assert values and "6.4.3" in values and "6.2.0" not in values
    for v in values:
        rel = releases.get(v)
        assert Version(v) > Version("6.2.0")
        assert "gfx1100" in rel.gfx_official and rel.supports_ubuntu("22.04") is not False


def test_image_choices_support_the_gpu(demo_system):
    from rocm_wizard.catalog import support

    values = [v for v, _ in F.image_choices(demo_system)]
    assert "rocm7.0_ubuntu22.04_py3.10_pytorch_release_2.8.0" in values
    from rocm_wizard.catalog import docker

    for v in values:
        assert support.status("gfx1100", docker.parse_tag(v).rocm).level in ("official", "limited")


def test_form_defaults_follow_the_recommendation(demo_system):
    from rocm_wizard.doctor import diagnose

    d = diagnose(demo_system)
    rec = d.recommendation("torch-reinstall")
    form = {f.name: f for f in F.fields_for("torch-reinstall", demo_system, rec.target)}
    assert form["torch"].value == f"{rec.target['torch']}+{rec.target['index']}"
    assert form["venv"].value == "/home/demo/trainer/venv" and form["venv_mode"].value == "existing"
    assert F.errors(list(form.values())) == {}
    up = {f.name: f for f in F.fields_for("rocm-upgrade", demo_system, d.recommendation("rocm-upgrade").target)}
    assert up["rocm"].value == "7.2.4" and up["dkms"].value is True and up["user"].value == "demo"


@pytest.mark.parametrize("fn, good, bad", [
    (F.check_venv, ["/home/a/venv", "/opt/venvs/x"], ["", "venv", "/etc/x", "/usr/lib/v", "/home/a b;rm", "/"]),
    (F.check_user, ["", "alice", "bob_2", "svc-ml"], ["Alice", "1x", "a b", "root;x"]),
    (F.check_url, ["", "https://mirror.example/whl", "http://10.0.0.1:8080/x", "file:///srv/mirror"],
     ["ftp://x", "https://a b", "mirror.example", "https://x/\"y"]),
    (F.check_env, ["", "TORCH_BLAS_PREFER_HIPBLASLT=0", "A=1 B=x/y", "HSA_OVERRIDE_GFX_VERSION=11.0.0"],
     ["A", "1A=2", "A=x y'", "A=$(rm)"]),
    (F.check_fingerprint, ["", "CA8BB4727A47B4D09B4EE8969386B48A1A693C5C", "ca8b b472 7a47 b4d0 9b4e e896 9386 b48a 1a69 3c5c"],
     ["CA8B", "zz" * 20]),
])
def test_validators(fn, good, bad):
    for v in good:
        assert fn(v) is None, v
    for v in bad:
        assert isinstance(fn(v), str) and fn(v), v


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_validators_never_raise(text):
    for fn in (F.check_venv, F.check_user, F.check_url, F.check_env, F.check_fingerprint):
        r = fn(text)
        assert r is None or isinstance(r, str)
    F.env_dict(text)


def test_field_error_on_values():
    f = F.Field("x", "X", F.CHOICE, "b", [("a", "A")])
    assert f.error() == "pick one of the offered values"
    assert f.error("a") is None
    flag = F.Field("d", "D", F.FLAG, "yes")
    assert flag.error() == "must be on or off"

    def boom(_):
        raise RuntimeError("bug")

    assert "cannot check" in F.Field("t", "T", F.TEXT, "v", validate=boom).error()


def test_unknown_path_has_no_fields():
    assert F.fields_for("nope", System()) == []


def test_choices_from_form_values_are_the_plan_engines(demo_system):
    from rocm_wizard.tui.core import Core

    c = Core().choices("torch-reinstall", {"venv": "/v", "venv_mode": "new", "torch": "2.4.1+rocm6.1",
                                            "env": "TORCH_BLAS_PREFER_HIPBLASLT=0", "torch_index_url": ""})
    assert (c.path, c.venv, c.venv_mode, c.torch, c.env, c.torch_index_url) == (
        "torch-reinstall", "/v", "new", "2.4.1+rocm6.1", {"TORCH_BLAS_PREFER_HIPBLASLT": "0"}, None)
    c = Core().choices("rocm-upgrade", {"rocm": "6.4.3", "dkms": False, "user": "demo"})
    assert (c.rocm, c.dkms, c.user) == ("6.4.3", False, "demo")
