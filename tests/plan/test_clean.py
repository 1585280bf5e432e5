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
