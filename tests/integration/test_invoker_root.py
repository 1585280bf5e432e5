"""``sudo rocm-wizard detect`` finds the venvs of the user who typed sudo (issue 22): run as root
with ``SUDO_USER=alice`` and root's own HOME, detection lists alice's home as alice (runuser), finds
her torch venv, says where it looked, and does not follow a link alice planted into a directory only
root can read."""
from __future__ import annotations

import json

from harness import wizard

TORCH_VERSION_PY = ("__version__ = '2.5.1+rocm6.2'\ndebug = False\ncuda: Optional[str] = None\n"
                    "git_version = 'x'\nhip: Optional[str] = '6.2.41133-dd7f95766'\n")


def fake_torch_venv(root, path, user):
    """A venv with torch's version file and dist-info (detection reads files; nothing is imported)."""
    root.run(["python3", "-m", "venv", "--without-pip", path], user=user, check=True)
    script = ('set -e; s=$(echo "$0"/lib/python3*/site-packages); mkdir -p "$s/torch" '
              '"$s/torch-2.5.1+rocm6.2.dist-info"; printf "%s" "$1" >"$s/torch/version.py"; '
              ': >"$s/torch/__init__.py"; printf "Metadata-Version: 2.1\\nName: torch\\nVersion: 2.5.1+rocm6.2\\n" '
              '>"$s/torch-2.5.1+rocm6.2.dist-info/METADATA"')
    root.run(["sh", "-c", script, path, TORCH_VERSION_PY], user=user, check=True)


def test_root_run_through_sudo_finds_the_invoking_users_venv(wroot):
    root = wroot
    root.add_user("alice")
    fake_torch_venv(root, "/home/alice/proj/.venv", "alice")
    # root's private venv, and alice's link to it: listed as alice, the link leads nowhere she can read
    root.run(["sh", "-c", "mkdir -p /srv/private && chmod 700 /srv/private"], check=True)
    fake_torch_venv(root, "/srv/private/venv", None)
    root.run(["ln", "-s", "/srv/private/venv", "/home/alice/venv-link"], user="alice", check=True)
    res = root.run(["python3", "-m", "rocm_wizard", "detect", "--json"], cwd="/",
                   env=wizard.env({"SUDO_USER": "alice", "HOME": "/root"}))
    assert res.returncode == 0, res.stderr
    system = json.loads(res.stdout)
    paths = [t["path"] for t in system["torch"]]
    assert "/home/alice/proj/.venv" in paths, (paths, res.stderr)
    assert not any(p and ("venv-link" in p or p.startswith("/srv/private")) for p in paths), paths
    notes = " ".join(system.get("notes") or [])
    assert "looked for venvs in /home/alice" in notes and "read as alice" in notes, notes
    # without sudo's variable, root's search stays in root's home: alice's venv is not found
    plain = root.run(["python3", "-m", "rocm_wizard", "detect", "--json"], cwd="/", env=wizard.env({"HOME": "/root"}))
    assert "/home/alice/proj/.venv" not in [t["path"] for t in json.loads(plain.stdout)["torch"]]
