"""The torch plan under WSL 2 (issue 25): the wheel fits the WSL user space installed (the resolver's
wsl-userspace check), and with the 6.x runtime (rocr4wsl) the plan removes the wheel's own
libhsa-runtime64 from torch/lib (AMD's WSL steps); natively, and with librocdxg, it does not."""
from __future__ import annotations

from pathlib import Path

from rocm_wizard.detect import detect_snapshot
from rocm_wizard.plan import Choices, build_plan
from rocm_wizard.plan.ansible import render_ansible
from rocm_wizard.plan.shell import render_shell
from rocm_wizard.resolve.facts import Facts
from rocm_wizard.resolve.model import SATISFIED, UNKNOWN, VIOLATED
from rocm_wizard.resolve.resolver import check_wsl_userspace

FORM = ("### Problem Description\n\ntorch.cuda.is_available() returns False\n\n### Operating System\n\n{os}\n\n"
        "### GPU\n\nAMD Radeon RX 7900 XTX\n\n### ROCm Version\n\nROCm {rocm}\n")


def _system(tmp_path: Path, rocm: str, os_: str = "Ubuntu 24.04 WSL2", dpkg: str = ""):
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "issue.txt").write_text(FORM.format(os=os_, rocm=rocm))
    if dpkg:
        (tmp_path / "dpkg.txt").write_text(dpkg)
    return detect_snapshot(str(tmp_path))


ROCR4WSL = "ii  hsa-runtime-rocr4wsl-amdgpu   25.10-2209220.24.04 amd64  HSA runtime for WSL\n"


def _torch_plan(system):
    return build_plan(system, Choices(path="torch-reinstall", venv="/home/u/venv", venv_mode="existing"))


def test_rocr4wsl_host_gets_a_6x_wheel_and_the_removal_step(tmp_path):
    plan = _torch_plan(_system(tmp_path, "6.3.4", dpkg=ROCR4WSL))
    kinds = [s.kind for s in plan.steps]
    assert "wsl-hsa-remove" in kinds
    assert kinds.index("wsl-hsa-remove") > kinds.index("pip-install")
    torch = plan.inputs.get("torch") or ""
    assert "+rocm6." in torch, torch
    script = render_shell(plan)
    assert "libhsa-runtime64.so*" in script and 'rw_as "$owner" rm -f --' in script
    play = render_ansible(plan)
    assert "libhsa-runtime64.so*" in play and "become_user" in play


def test_librocdxg_or_native_hosts_keep_the_wheels_runtime(tmp_path):
    new = _torch_plan(_system(tmp_path / "a", "7.2.1"))
    assert "wsl-hsa-remove" not in [s.kind for s in new.steps]
    native = _torch_plan(_system(tmp_path / "b", "6.3.4", os_="Ubuntu 24.04"))
    assert "wsl-hsa-remove" not in [s.kind for s in native.steps]


def _facts(**kw):
    base = dict(wsl=True)
    base.update(kw)
    return Facts(**base)


def test_wsl_userspace_check():
    assert check_wsl_userspace(_facts(wsl_userspace="rocr4wsl", host_rocm="6.3.4"), "6.3").verdict == SATISFIED
    assert check_wsl_userspace(_facts(wsl_userspace="rocr4wsl", host_rocm="6.3.4"), "6.4").verdict == VIOLATED
    assert check_wsl_userspace(_facts(wsl_userspace="rocr4wsl"), "7.2").verdict == VIOLATED
    assert check_wsl_userspace(_facts(host_rocm="6.4.2"), "6.4").verdict == SATISFIED  # generation from the release
    assert check_wsl_userspace(_facts(wsl_userspace="librocdxg", host_rocm="7.2.1"), "6.4").verdict == VIOLATED
    assert check_wsl_userspace(_facts(wsl_userspace="librocdxg"), "7.1").verdict == SATISFIED
    assert check_wsl_userspace(_facts(), "6.4").verdict == UNKNOWN


OS_RELEASE = ('PRETTY_NAME="Ubuntu 24.04.1 LTS"\nNAME="Ubuntu"\nVERSION_ID="24.04"\nVERSION_CODENAME=noble\nID=ubuntu\n'
              'ID_LIKE=debian\nUBUNTU_CODENAME=noble\n')


def _wsl_host(tmp_path: Path, rocm: str = "6.3.4", gpu: str = "AMD Radeon RX 7900 XTX", dpkg: str = ROCR4WSL):
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "issue.txt").write_text(FORM.format(os="Ubuntu 24.04 WSL2", rocm=rocm).replace("AMD Radeon RX 7900 XTX", gpu))
    (tmp_path / "os-release").write_text(OS_RELEASE)
    if dpkg:
        (tmp_path / "dpkg.txt").write_text(dpkg)
    return detect_snapshot(str(tmp_path))


def test_rocm_upgrade_under_wsl_installs_the_wsl_user_space_and_no_driver(tmp_path):
    plan = build_plan(_wsl_host(tmp_path), Choices(path="rocm-upgrade"))
    assert plan.inputs.get("rocm") == "6.3.4" or "6.3.4" in plan.title
    names = [p["name"] for s in plan.steps if s.kind == "apt-install" for p in s.params["packages"]]
    assert "hsa-runtime-rocr4wsl-amdgpu" in names and "amdgpu-dkms" not in names
    assert not [s for s in plan.steps if s.id in ("kernel-driver", "reboot-flag", "secure-boot")]
    assert any("never amdgpu-dkms under WSL" in n for n in plan.notes)


def test_rocm_upgrade_under_wsl_refuses_librocdxg_releases_and_unlisted_gpus(tmp_path):
    import pytest
    from rocm_wizard.plan import PlanError

    with pytest.raises(PlanError, match="librocdxg"):  # 10.0: AMD's release packages, not planned
        build_plan(_wsl_host(tmp_path / "a"), Choices(path="rocm-upgrade", rocm="10.0"))
    with pytest.raises(PlanError, match="under WSL"):
        build_plan(_wsl_host(tmp_path / "b", gpu="AMD Radeon RX 7800 XT"), Choices(path="rocm-upgrade", rocm="6.3.4"))
    with pytest.raises(PlanError, match="--rocm"):  # no WSL user space, no release: nothing to default to
        build_plan(_wsl_host(tmp_path / "c", rocm="unknown", dpkg=""), Choices(path="rocm-upgrade"))


def test_rocm_upgrade_under_wsl_refuses_a_release_without_the_wsl_runtime(tmp_path):
    import pytest
    from rocm_wizard.catalog import compat
    from rocm_wizard.plan import PlanError

    assert compat.wsl_runtime_missing("6.2.0") and compat.wsl_runtime_missing("6.3.4") is None
    with pytest.raises(PlanError, match="hsa-runtime-rocr4wsl-amdgpu"):
        build_plan(_wsl_host(tmp_path), Choices(path="rocm-upgrade", rocm="6.2.0"))


def test_rocm_upgrade_7_2_under_wsl_builds_librocdxg_as_its_readme_says(tmp_path):
    """ROCm 7.2.x under WSL: ROCm's user space without the 6.x WSL runtime, the build tools the
    librocdxg README asks for, the build step (network and compiler said in the plan), and
    HSA_ENABLE_DXG_DETECTION=1 for login shells; facts with source and status."""
    from rocm_wizard.catalog import compat

    b = compat.wsl_facts()["librocdxg_build"]
    plan = build_plan(_wsl_host(tmp_path, dpkg=""), Choices(path="rocm-upgrade", rocm="7.2.1"))
    ids = [s.id for s in plan.steps]
    assert ids.index("rocm-packages") < ids.index("librocdxg-tools") < ids.index("librocdxg") < ids.index("ldconfig")
    names = [p["name"] for s in plan.steps if s.kind == "apt-install" for p in s.params["packages"]]
    assert "hsa-runtime-rocr4wsl-amdgpu" not in names and "amdgpu-dkms" not in names
    assert set(b["tools"]) <= set(names) and {"cmake", "gcc", "git"} <= set(b["tools"])
    step = plan.step("librocdxg")
    assert step.params["repo"] == "https://github.com/ROCm/librocdxg.git"
    assert step.params["library"] == "/opt/rocm/lib/librocdxg.so"
    env = plan.step("dxg-env")
    assert env.params["path"].startswith("/etc/profile.d/") and "export HSA_ENABLE_DXG_DETECTION=1\n" in env.params["content"]
    note = next(n for n in plan.notes if "librocdxg" in n)
    assert "network" in note and "compiler" in note and "Windows SDK" in note
    fact = plan.facts["wsl_librocdxg"]
    assert fact["status"] == "documented" and fact["sources"] and fact["needs_at_run_time"] == ["network", "compiler"]
    script = render_shell(plan)
    assert "-DWIN_SDK=$sdk" in script and "DESTDIR=$work/stage" in script and 'rw_remember "$RW_ROOT$f"' in script
    play = render_ansible(plan)
    assert "-DWIN_SDK={{" in play and "librocdxg" in play


def test_librocdxg_sdk_versions_pick_the_newest_windows_kit():
    from rocm_wizard.plan.steps.wsl import sdk_versions

    assert sdk_versions(["10.0.19041.0", "wdf", "10.0.26100.0", "10.0.22621.0", "x10.0"]) == [
        "10.0.26100.0", "10.0.22621.0", "10.0.19041.0"]
    assert sdk_versions([]) == []


def test_librocdxg_step_refuses_bad_parameters():
    import pytest
    from rocm_wizard.plan.steps import make_step

    good = dict(repo="https://github.com/ROCm/librocdxg.git", win_kits="/mnt/c/K/10/Include", library="/opt/rocm/lib/librocdxg.so")
    make_step("librocdxg-build", "x", "t", dict(good))
    for bad in (dict(good, repo="ftp://x/y"), dict(good, ref="--upload-pack=evil"), dict(good, win_kits="rel"),
                dict(good, sdk_subdir=".."), dict(good, tools=["rm -rf"])):
        with pytest.raises(ValueError):
            make_step("librocdxg-build", "x", "t", bad)


def _lib_step():
    from rocm_wizard.plan.steps import make_step

    return make_step("librocdxg-build", "librocdxg", "t", dict(
        repo="https://github.com/ROCm/librocdxg.git", win_kits="/mnt/c/K/10/Include", library="/opt/rocm/lib/librocdxg.so"))


def test_librocdxg_step_stops_before_running_anything_without_the_windows_sdk(tmp_path):
    """No SDK headers under /mnt/c: the check says what is missing on Windows, and apply stops with
    the fix before it clones or builds anything (no command runs)."""
    import pytest
    from rocm_wizard.plan.context import Context, StepError
    from rocm_wizard.plan.core import CHANGE, OK
    from rocm_wizard.plan.state import PlanState

    calls = []
    for tool in ("cmake", "gcc", "g++", "make", "git"):
        exe = tmp_path / "usr/bin" / tool
        exe.parent.mkdir(parents=True, exist_ok=True)
        exe.write_text("#!/bin/sh\nexit 1\n")
        exe.chmod(0o755)
    (tmp_path / "mnt/c/K/10/Include/10.0.26100.0").mkdir(parents=True)  # an SDK without its shared headers
    ctx = Context(root=str(tmp_path), runner=lambda argv, **kw: calls.append(argv), env={"PATH": "/usr/bin"})
    step = _lib_step()
    res = step.check(PlanState(ctx))
    assert res.status == CHANGE and "install the Windows SDK on Windows" in res.detail
    with pytest.raises(StepError, match="Windows SDK headers are not under"):
        step.apply(ctx)
    assert calls == []
    (tmp_path / "mnt/c/K/10/Include/10.0.26100.0/shared").mkdir()
    assert "with the Windows SDK headers in /mnt/c/K/10/Include/10.0.26100.0/shared" in step.check(PlanState(ctx)).detail
    (tmp_path / "opt/rocm/lib").mkdir(parents=True)
    (tmp_path / "opt/rocm/lib/librocdxg.so").write_text("")  # installed (built before, or AMD's package)
    assert step.check(PlanState(ctx)).status == OK
    assert step.apply(ctx).status == OK and calls == []


def test_librocdxg_step_needs_its_build_tools(tmp_path):
    import pytest
    from rocm_wizard.plan.context import Context, StepError

    calls = []
    ctx = Context(root=str(tmp_path), runner=lambda argv, **kw: calls.append(argv), env={"PATH": "/usr/bin"})
    with pytest.raises(StepError, match="needs cmake, gcc, g\\+\\+, make, git"):
        _lib_step().apply(ctx)
    assert calls == []


ROCR4WSL_613 = "ii  hsa-runtime-rocr4wsl-amdgpu   1.13.0.60103-1871153.22.04 amd64  HSA runtime for WSL\n"


def test_torch_plan_copies_the_wsl_runtime_in_for_6_1_3_to_6_2_hosts_only(tmp_path):
    from rocm_wizard.catalog import compat

    w = compat.wsl_facts()
    old = _torch_plan(_system(tmp_path / "a", "6.1.3", dpkg=ROCR4WSL_613)).step("wsl-hsa")
    assert old.params["replace_from"] == w["hsa_replace_from"] == "/opt/rocm/lib/libhsa-runtime64.so.1.2"
    newer = _torch_plan(_system(tmp_path / "b", "6.3.4", dpkg=ROCR4WSL)).step("wsl-hsa")
    assert newer.params["replace_from"] == ""


def _hsa_step(replace_from="/opt/rocm/lib/libhsa-runtime64.so.1.2"):
    from rocm_wizard.plan.steps import make_step

    return make_step("wsl-hsa-remove", "wsl-hsa", "t", {"venv": "/home/u/venv", "replace_from": replace_from})


def test_copy_back_is_done_when_torch_lib_holds_just_the_hosts_runtime(tmp_path):
    from rocm_wizard.plan.context import Context, StepError
    from rocm_wizard.plan.core import CHANGE, OK
    from rocm_wizard.plan.state import PlanState

    lib = tmp_path / "home/u/venv/lib/python3.11/site-packages/torch/lib"
    lib.mkdir(parents=True)
    (lib / "libhsa-runtime64.so").write_bytes(b"wheel's own")
    calls = []
    ctx = Context(root=str(tmp_path), runner=lambda argv, **kw: calls.append(argv), env={})
    step = _hsa_step()
    assert "is not there" in step.check(PlanState(ctx)).detail
    import pytest

    with pytest.raises(StepError, match="nothing was removed"):
        step.apply(ctx)
    assert calls == [] and (lib / "libhsa-runtime64.so").read_bytes() == b"wheel's own"
    src = tmp_path / "opt/rocm-6.1.3/lib/libhsa-runtime64.so.1.2"
    src.parent.mkdir(parents=True)
    src.write_bytes(b"WSL runtime")
    (tmp_path / "opt/rocm").symlink_to("rocm-6.1.3")
    assert step.check(PlanState(ctx)).status == CHANGE
    (lib / "libhsa-runtime64.so").write_bytes(b"WSL runtime")
    assert step.check(PlanState(ctx)).status == OK
    (lib / "libhsa-runtime64.so.1").write_bytes(b"another")  # any other copy of the runtime: not done
    assert step.check(PlanState(ctx)).status == CHANGE
    script = "\n".join(step.render_shell_body())
    assert 'cmp -s -- "$RW_ROOT$src"' in script and 'rw_as "$owner" cp --' in script


def test_core_sdk_under_wsl_is_refused_with_the_sources_and_doctor_says_the_same(tmp_path):
    # issue 25: AMD lists WSL2 for the Core SDK (os-support.yaml), but its DXG thunk is TheRock's own
    # artifact built with the runtime it serves, and a thunk of another source breaks the runtime
    # (rocprofiler-sdk's WSL page): the 7.2.x source build is no way for 10.x, and which Core SDK
    # package carries the thunk is not known -- the plan refuses naming that, and doctor says the same
    import json

    import pytest
    from plan_helpers import FIXTURES, run_cli

    from rocm_wizard.catalog import compat, sources
    from rocm_wizard.plan import PlanError

    why, srcs = compat.wsl_core_sdk_refusal("10.1.0")
    assert "AMD lists WSL2 for the Core SDK" in why and "same source" in why
    assert {"amd-wsl-os-support", "rocprofiler-wsl-thunk-abi", "amd-release-notes-101-wsl"} <= set(srcs)
    assert all(sources.get(s) is not None for s in srcs)  # each names a source entry
    for rocm, what in (("10.0", "rocdxg-roct and rocdxg-amd-smi-lib 1.2.2 packages"),
                       ("10.1", "the Core SDK's own librocdxg")):
        with pytest.raises(PlanError) as exc:
            build_plan(_wsl_host(tmp_path / rocm), Choices(path="rocm-upgrade", rocm=rocm))
        msg = exc.value.message
        assert "AMD lists WSL2 for the Core SDK" in msg and what in msg
        assert "librocdxg source build is no way for it" in msg and "rocprofiler-wsl-thunk-abi" in msg
    # a real WSL paste (420: RX 7800 XT, Ubuntu 24.04, ROCm 7.2.1): --plan-only and doctor agree
    snap = str(FIXTURES / "420-wsl2-rx7800xt-rocm7.2.1-librocdxg-howto")
    rc, out, err = run_cli(["--plan-only", "--path", "rocm-upgrade", "--rocm", "10.1", "--snapshot", snap])
    assert rc == 3 and not out and compat.wsl_core_sdk_refusal("10.1.0")[0] in err
    rc, out, err = run_cli(["doctor", "--json", "--snapshot", snap])
    rec = next(r for r in json.loads(out)["recommendations"] if r["path"] == "rocm-upgrade")
    assert compat.wsl_core_sdk_refusal()[0] in rec["why"]
    # the 7.2.x way stays planned there (librocdxg built from source, the same step as before)
    rc, out, err = run_cli(["--plan-only", "--path", "rocm-upgrade", "--rocm", "7.2.4", "--snapshot", snap,
                            "--format", "json"])
    assert rc == 2, err
    assert "librocdxg" in [s["id"] for s in json.loads(out)["steps"]]
