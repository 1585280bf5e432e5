"""The user chosen for the render and video groups (``--user``) is the one added, by ``--yes`` and by
the script alike, whoever runs sudo; a user that does not exist stops the step and is not created."""
from __future__ import annotations

import pytest

from harness import wizard


def upgrade_args(world, *extra):
    return ["--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-mirror", world.radeon_url, "--allow-http-mirror",
            "--rocm-key-fingerprint", world.site.radeon_key.fingerprint, *extra]


def _run(root, frontend, args, env):
    if frontend == "yes":
        return wizard.run(root, "--yes", "--no-verify", *args, extra_env=env)
    made = wizard.run(root, "--plan-only", *args)
    assert made.returncode in (0, 2), made.stderr
    root.write("/root/plan.sh", made.stdout, mode=0o755)
    return root.run(["bash", "/root/plan.sh"], env=env, timeout=600)


def _groups(root, user):
    res = root.run(["id", "-nG", user])
    return set(res.stdout.split()) if res.returncode == 0 else None


@pytest.fixture
def users(rocm_old):
    rocm_old.add_user("alice", 1000)
    rocm_old.add_user("bob", 1001)
    if rocm_old.run(["getent", "group", "render"]).returncode != 0:
        rocm_old.run(["groupadd", "--system", "render"], check=True)
    return rocm_old


@pytest.mark.parametrize("frontend", ["yes", "script"])
def test_the_chosen_user_gets_the_groups_not_sudo_user(users, apt_site, frontend):
    root = users
    res = _run(root, frontend, upgrade_args(apt_site, "--user", "alice"), {"SUDO_USER": "bob"})
    assert res.returncode == 0, res.stderr
    assert {"render", "video"} <= _groups(root, "alice")
    assert not {"render", "video"} & _groups(root, "bob")


@pytest.mark.parametrize("frontend", ["yes", "script"])
def test_a_user_that_does_not_exist_is_an_error_and_is_not_created(users, apt_site, frontend):
    root = users
    res = _run(root, frontend, upgrade_args(apt_site, "--user", "ghost"), {})
    assert res.returncode == 1, res.stderr
    assert "user ghost does not exist" in res.stderr and "never creates" in res.stderr
    assert _groups(root, "ghost") is None
