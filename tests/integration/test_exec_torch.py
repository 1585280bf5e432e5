"""``rocm-wizard --yes`` on the torch-reinstall path inside the test root: real venvs, real pip
against the local download.pytorch.org-like index; torch 2.5.1+rocm6.2 -> 2.4.1+rocm6.1."""
from __future__ import annotations

import os
import re

from harness import checks, wizard
from harness.wheels import read_version_py

ODD = "/srv/my envs/it's \"ml\""  # a venv path with spaces and both quotes


def make_torch_venv(root, pyindex, path, user=None):
    """A venv at ``path`` (made by ``user``, root if None) with torch 2.5.1+rocm6.2, torchvision and
    torchaudio from the stand-in index: ``python3 -m venv`` and ``pip install`` run once per session
    for each path and owner, later roots get a copy of what they made, pip's cache included
    (``PyIndex.made_once``)."""
    def build():
        root.run(["python3", "-m", "venv", path], user=user, check=True)
        root.run([path + "/bin/python", "-m", "pip", "install", "--index-url", pyindex.url("rocm6.2"),
                  "torch==2.5.1+rocm6.2", "torchvision==0.20.1+rocm6.2", "torchaudio==2.5.1+rocm6.2"],
                 user=user, check=True)

    home = f"/home/{user}" if user else "/root"
    pyindex.made_once(root, ("torch-venv-2.5.1", user), [path, home + "/.cache/pip"], build)


def site(root, venv):
    import glob

    found = glob.glob(glob.escape(root.host_path(venv)) + "/lib/python3*/site-packages")
    assert found, venv
    return found[0]


def dists(root, venv):
    out = root.run([venv + "/bin/python", "-m", "pip", "list", "--format=freeze"], check=True).stdout
    return dict(line.split("==", 1) for line in out.split() if "==" in line)


def torch_args(pyindex, venv, mode="existing", url=None):
    return ["--path", "torch-reinstall", "--torch", "2.4.1+rocm6.1", "--venv", venv, "--venv-mode", mode,
            "--torch-index-url", url or pyindex.url("rocm6.1")]


def activated(root, venv, name):
    script = f'. "$0/bin/activate"; printf %s "${{{name}:-unset}}"'
    return root.run(["bash", "-c", script, venv]).stdout


def test_torch_2_5_1_to_2_4_1_with_the_env_var_persisted(wroot, pyindex):
    root = wroot
    make_torch_venv(root, pyindex, ODD)
    assert read_version_py(site(root, ODD))["__version__"] == "2.5.1+rocm6.2"
    res = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, ODD))
    assert res.returncode == 0, res.stderr
    values = read_version_py(site(root, ODD))
    assert (values["__version__"], values["hip"]) == ("2.4.1+rocm6.1", "6.1.40091-a8dbc0c19")
    d = dists(root, ODD)
    assert (d["torchvision"], d["torchaudio"], d["pytorch-triton-rocm"]) == ("0.19.1+rocm6.1", "2.4.1+rocm6.1", "3.0.0")
    # gfx1100 is not on hipBLASLt's list for a ROCm 6.1 wheel: the plan persists the switch to hipBLAS
    assert activated(root, ODD, "TORCH_BLAS_PREFER_HIPBLASLT") == "0"
    assert root.read(ODD + "/bin/activate").count("export TORCH_BLAS_PREFER_HIPBLASLT=") == 1
    assert "TORCH_BLAS_PREFER_HIPBLASLT=0" in root.read(ODD + "/rocm-wizard.env")
    freeze = [p for p in os.listdir(root.host_path(ODD + "/rocm-wizard")) if p.startswith("pip-freeze-before")]
    assert freeze and "torch==2.5.1+rocm6.2" in root.read(ODD + "/rocm-wizard/" + freeze[0])

    again = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, ODD))
    assert again.returncode == 0, again.stderr
    words = checks.step_lines(again.stderr)
    assert words and set(words.values()) == {"ok"}, again.stderr
    assert root.read(ODD + "/bin/activate").count("export TORCH_BLAS_PREFER_HIPBLASLT=") == 1


def test_new_venv_beside_the_old_one_and_rollback_flips_back(wroot, pyindex):
    root = wroot
    old = ODD + "-torch2.5.1"
    make_torch_venv(root, pyindex, old)
    root.run(["ln", "-s", old, ODD], check=True)  # the venv path is a link, as a new-mode run leaves it
    res = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, ODD, mode="new"))
    assert res.returncode == 0, res.stderr
    new = ODD + "-torch2.4.1-rocm6.1"
    assert os.readlink(root.host_path(ODD)) == new
    assert read_version_py(site(root, new))["__version__"] == "2.4.1+rocm6.1"
    assert read_version_py(site(root, old))["__version__"] == "2.5.1+rocm6.2"  # kept as it was
    assert activated(root, ODD, "TORCH_BLAS_PREFER_HIPBLASLT") == "0"

    back = wizard.run(root, "rollback")
    assert back.returncode == 0, back.stderr
    assert f"pointed {ODD} back at {old}" in back.stdout
    assert os.readlink(root.host_path(ODD)) == old
    assert "is kept" in back.stdout  # says the new venv stays, and that it can be removed by hand


def test_new_venv_mode_on_a_venv_made_in_place_moves_it_aside_and_rollback_moves_it_back(wroot, pyindex):
    """The usual venv is a real directory, not a link: `--venv-mode new` moves it aside (named after
    its torch), links the path to the new venv, and rollback puts the directory back."""
    root = wroot
    root.add_user("alice")
    venv = "/home/alice/ml env"
    make_torch_venv(root, pyindex, venv, user="alice")
    res = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, venv, mode="new"))
    assert res.returncode == 0, res.stderr
    aside, new = venv + "-torch2.5.1-rocm6.2", venv + "-torch2.4.1-rocm6.1"
    assert os.readlink(root.host_path(venv)) == new
    assert f"the previous venv moved to {aside}, kept" in res.stderr, res.stderr
    assert read_version_py(site(root, new))["__version__"] == "2.4.1+rocm6.1"
    assert read_version_py(site(root, aside))["__version__"] == "2.5.1+rocm6.2"  # the old venv, whole
    assert dists(root, aside)["torch"] == "2.5.1+rocm6.2"  # and it still runs from where it is now
    for path in (aside, new):  # moved and made by alice, not by root
        assert os.stat(root.host_path(path)).st_uid == os.stat(root.host_path("/home/alice")).st_uid
    again = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, venv, mode="new"))
    assert again.returncode == 0 and set(checks.step_lines(again.stderr).values()) == {"ok"}, again.stderr

    run_id = re.search(r"\(plan \S+, run (\S+)\)", res.stderr).group(1)  # the run that moved it
    back = wizard.run(root, "rollback", run_id)
    assert back.returncode == 0, back.stderr
    assert f"moved {aside} back to {venv}" in back.stdout, back.stdout
    assert not os.path.islink(root.host_path(venv)) and not root.exists(aside)
    assert read_version_py(site(root, venv))["__version__"] == "2.5.1+rocm6.2"
    assert dists(root, venv)["torch"] == "2.5.1+rocm6.2"


def test_the_venv_owner_needs_no_root_and_gets_the_exact_group_command(wroot, pyindex):
    root = wroot
    root.add_user("alice")
    venv = "/home/alice/ml env"
    make_torch_venv(root, pyindex, venv, user="alice")
    res = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, venv), user="alice")
    assert res.returncode == 0, res.stderr
    assert read_version_py(site(root, venv))["__version__"] == "2.4.1+rocm6.1"
    # this root has a video group but no render group: the command names exactly what works here
    assert "skipped: needs root: run  sudo usermod -a -G video alice" in res.stderr
    assert root.run(["usermod", "-a", "-G", "video", "alice"]).returncode == 0
    log_dir = "/home/alice/.local/state/rocm-wizard"  # not root: the XDG state directory
    assert root.exists(log_dir + "/latest/journal.json")
    st = os.stat(root.host_path(venv + "/lib"))
    assert st.st_uid == int(root.run("id -u alice").stdout)  # nothing in the venv became root's


def test_no_secret_lands_in_a_log(wroot, pyindex):
    root = wroot
    make_torch_venv(root, pyindex, "/srv/venv")
    url = pyindex.url("rocm6.1").replace("http://", "http://builder:s3cr3t-t0ken@")
    res = wizard.run(root, "--yes", "--no-verify", *torch_args(pyindex, "/srv/venv", url=url))
    assert res.returncode == 0, res.stderr
    assert "s3cr3t" not in res.stderr + res.stdout
    run_dir = root.host_path(checks.latest_run(root))
    for name in ("run.log", "events.jsonl"):
        with open(os.path.join(run_dir, name), encoding="utf-8") as fh:
            text = fh.read()
        assert "s3cr3t" not in text, name
        assert "builder:***@" in text or "***@" in text
    # the plan (needed by resume) keeps the URL, readable by its owner only
    for name in ("plan.json", "answers.toml"):
        assert oct(os.stat(os.path.join(run_dir, name)).st_mode & 0o777) == "0o600"


def test_the_smoke_test_runs_after_the_last_step(wroot, pyindex):
    """Without --no-verify the run ends with the GPU smoke test of the venv.  The stand-in torch has
    no GPU code, so the test must fail and the run must say so (exit 2), not claim success."""
    root = wroot
    make_torch_venv(root, pyindex, "/srv/venv")
    res = wizard.run(root, "--yes", *torch_args(pyindex, "/srv/venv"))
    assert res.returncode == 2, res.stderr
    assert "verifying: GPU smoke test with /srv/venv" in res.stderr
    assert "the GPU smoke test failed" in res.stderr and "rocm-wizard verify --venv /srv/venv" in res.stderr
    j = checks.journal(root)
    assert j["state"] == "finished" and j["verify"]["status"] == "fail"
