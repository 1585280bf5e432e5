"""``--path clean`` for real in the Debian root (issue "Keep it ROCm and keep it clean"): two old
ROCm trees (one a package owns), the tree /opt/rocm names, two venvs a torch plan left beside its
link and the one it names, alice's caches.  Without --clean nothing goes; the picked ones go (as
alice for hers), the packaged tree is refused with the apt command, what is in use stays, and a
second run has nothing to do."""
from __future__ import annotations

from harness import checks, wizard

HOME = "/home/alice"


def _world(root):
    root.add_user("alice")
    for v in ("6.2.0", "6.4.3", "7.2.4"):
        root.write(f"/opt/rocm-{v}/.info/version", f"{v}-1\n")
        root.write(f"/opt/rocm-{v}/bin/hipcc", "x" * 4096)
    root.run(["ln", "-sfn", "/opt/rocm-7.2.4", "/opt/rocm"], check=True)
    # a dpkg database entry that owns /opt/rocm-6.4.3 (what dpkg-query -S reads)
    root.write("/var/lib/dpkg/info/rocm-core6.4.3.list", "/opt/rocm-6.4.3\n/opt/rocm-6.4.3/.info\n")
    status = root.read("/var/lib/dpkg/status")
    root.write("/var/lib/dpkg/status", status.rstrip("\n") + "\n\nPackage: rocm-core6.4.3\nStatus: install ok "
               "installed\nPriority: optional\nSection: devel\nMaintainer: x <x@example.invalid>\nArchitecture: "
               "amd64\nVersion: 6.4.3.60403-128~22.04\nDescription: stand-in\n")
    for n in ("venv-torch2.4.1-rocm6.1", "venv-torch2.5.1-rocm6.2", "venv-previous"):
        root.run(["python3", "-m", "venv", "--without-pip", f"{HOME}/{n}"], user="alice", check=True)
    root.run(["ln", "-s", f"{HOME}/venv-torch2.5.1-rocm6.2", f"{HOME}/venv"], user="alice", check=True)
    root.run(["sh", "-c", f"mkdir -p {HOME}/.cache/pip/http {HOME}/.cache/uv && head -c 300000 /dev/zero > "
              f"{HOME}/.cache/pip/http/blob"], user="alice", check=True)


def _args(*picks):
    out = ["--path", "clean", "--user", "alice", "--venv", HOME + "/venv"]
    for p in picks:
        out += ["--clean", p]
    return out


def test_clean_removes_only_what_was_picked_and_never_what_is_in_use(wroot):
    root = wroot
    _world(root)
    listing = wizard.run(root, "--plan-only", "--format", "json", *_args())
    assert listing.returncode == 0, listing.stderr  # nothing picked: nothing to do
    err = listing.stderr
    for item in ("rocm:/opt/rocm-6.2.0", "rocm:/opt/rocm-6.4.3", f"venv:{HOME}/venv-torch2.4.1-rocm6.1",
                 f"venv:{HOME}/venv-previous", "cache:pip", "cache:uv"):
        assert f"kept: {item}" in err, err
    assert "rocm-7.2.4" not in err and "venv-torch2.5.1-rocm6.2  " not in err

    res = wizard.run(root, "--yes", "--no-verify",
                     *_args("rocm:/opt/rocm-6.2.0", f"venv:{HOME}/venv-previous", "cache:pip"))
    assert res.returncode == 0, res.stderr
    assert not root.exists("/opt/rocm-6.2.0") and not root.exists(f"{HOME}/venv-previous")
    assert not root.exists(f"{HOME}/.cache/pip")
    for kept in ("/opt/rocm-7.2.4/bin/hipcc", "/opt/rocm-6.4.3/bin/hipcc", f"{HOME}/venv-torch2.5.1-rocm6.2/pyvenv.cfg",
                 f"{HOME}/venv-torch2.4.1-rocm6.1/pyvenv.cfg", f"{HOME}/.cache/uv"):
        assert root.exists(kept), kept
    assert "cannot be rolled back" in res.stderr

    packaged = wizard.run(root, "--yes", "--no-verify", *_args("rocm:/opt/rocm-6.4.3"))
    assert packaged.returncode != 0
    assert "belongs to packages (rocm-core6.4.3)" in packaged.stderr and "apt-get purge" in packaged.stderr
    assert root.exists("/opt/rocm-6.4.3/bin/hipcc")

    gone = wizard.run(root, "--plan-only", *_args("rocm:/opt/rocm-6.2.0"))
    assert gone.returncode == 64 and "not on the list" in gone.stderr  # already removed: not offered again
    again = wizard.run(root, "--yes", "--no-verify", *_args())
    assert again.returncode == 0, again.stderr
    assert checks.step_lines(again.stderr) == {}, again.stderr  # nothing picked, nothing run


def test_the_script_removes_as_the_executor_does(wroot):
    root = wroot
    _world(root)
    script = wizard.run(root, "--plan-only", *_args(f"venv:{HOME}/venv-torch2.4.1-rocm6.1", "cache:uv"))
    assert script.returncode == 2, script.stderr
    root.write("/root/clean.sh", script.stdout, mode=0o755)
    dry = root.run(["bash", "/root/clean.sh"], env={"DRY_RUN": "1"})
    assert dry.returncode == 2 and root.exists(f"{HOME}/.cache/uv"), dry.stderr
    res = root.run(["bash", "/root/clean.sh"], timeout=300)
    assert res.returncode == 0, res.stderr
    assert not root.exists(f"{HOME}/venv-torch2.4.1-rocm6.1") and not root.exists(f"{HOME}/.cache/uv")
    assert root.exists(f"{HOME}/venv-torch2.5.1-rocm6.2/pyvenv.cfg")
