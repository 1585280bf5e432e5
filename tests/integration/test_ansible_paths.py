"""The torch-reinstall, Core SDK and Docker playbooks (``--format ansible``) run for real with
``ansible-playbook -c local`` inside the Debian root, under Debian's ansible-core and the newest from
PyPI the root can run (``ansible_in``): ``--check`` changes nothing, the run converges, a second run
reports ``changed=0``.  (The legacy rocm-upgrade playbook: test_ansible_playbook.py.)  Docker is a
recorder: a stand-in docker.io package and a stateful ``systemctl`` (the root runs no systemd)."""
from __future__ import annotations

from harness import ansible, wizard
from harness.wheels import read_version_py

from test_exec_torch import make_torch_venv, site, torch_args  # noqa: E402

VENV = "/srv/venvs/ml"


def test_torch_playbook_check_converge_and_changed_0(wroot, pyindex, ansible_in):
    root = wroot
    make_torch_venv(root, pyindex, VENV)
    ansible_in(root)
    res = wizard.run(root, "--plan-only", "--format", "ansible", *torch_args(pyindex, VENV))
    assert res.returncode in (0, 2), res.stderr
    root.write("/root/torch.yml", res.stdout)
    watched = [VENV, "/etc"]
    before = root.snapshot(watched)

    check = ansible.playbook(root, "/root/torch.yml", "--check", "--diff")
    assert check.returncode == 0, check.stdout[-6000:] + check.stderr[-3000:]
    assert root.snapshot(watched) == before
    assert read_version_py(site(root, VENV))["__version__"] == "2.5.1+rocm6.2"

    run = ansible.playbook(root, "/root/torch.yml")
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert ansible.recap(run.stdout)["changed"] > 0
    assert read_version_py(site(root, VENV))["__version__"] == "2.4.1+rocm6.1"

    again = ansible.playbook(root, "/root/torch.yml")
    assert again.returncode == 0, again.stdout[-6000:] + again.stderr[-3000:]
    counts = ansible.recap(again.stdout)
    assert counts["changed"] == 0 and counts["failed"] == 0, ansible.changed_tasks(again.stdout)


def test_core_sdk_playbook_check_converge_and_changed_0(resolute_root, core_site, ansible_in, request):
    """The Core SDK branch of rocm-upgrade on a fresh Ubuntu 26.04 look-alike: "26.04" is the
    version ansible-core 2.19+ would have turned into a float."""
    from test_exec_coresdk import assert_core_installed, core_args

    root = resolute_root
    ansible_in(root)
    res = wizard.run(root, "--plan-only", "--format", "ansible", *core_args(core_site))
    assert res.returncode in (0, 2), res.stderr
    root.write("/root/core.yml", res.stdout)
    watched = ["/etc", "/var/lib/dpkg/status", "/var/lib/apt/lists", "/opt"]
    before = root.snapshot(watched)
    nobody = ["-e", '{"rocm_wizard_gpu_users": []}']

    check = ansible.playbook(root, "/root/core.yml", "--check", "--diff", *nobody)
    assert check.returncode == 0, check.stdout[-6000:] + check.stderr[-3000:]
    assert root.snapshot(watched) == before
    if not ansible.converges_under(request):
        return  # (2.19: the "26.04" host check ran in --check, above)

    run = ansible.playbook(root, "/root/core.yml", *nobody)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert_core_installed(root)

    core_site.radeon.requests.clear()
    again = ansible.playbook(root, "/root/core.yml", *nobody)
    assert again.returncode == 0, again.stdout[-6000:] + again.stderr[-3000:]
    counts = ansible.recap(again.stdout)
    assert counts["changed"] == 0 and counts["failed"] == 0, ansible.changed_tasks(again.stdout)


# Docker's stand-ins: a docker.io package whose `docker` records its calls and keeps pulled images
# as marker files, and a `systemctl` that keeps the unit's state in /run (the root has no systemd)
DOCKER = r"""#!/bin/sh
echo "$*" >> /var/log/rw-docker.log
img=$(printf %s "$3" | tr '/:' '__')
case "$1 $2" in
  "image inspect") [ -e "/var/lib/rw-docker/$img" ] || { echo "Error: No such image: $3" >&2; exit 1; }; echo '[{}]' ;;
  "pull "*) mkdir -p /var/lib/rw-docker; touch "/var/lib/rw-docker/$(printf %s "$2" | tr '/:' '__')"; echo "pulled $2" ;;
  *) : ;;
esac
"""
SYSTEMCTL = r"""#!/bin/sh
d=/run/rw-systemd
cmd=$1; shift
for a in "$@"; do case $a in -*) ;; *) unit=${a%.service};; esac; done
active=inactive; [ -e $d/$unit.active ] && active=active
enabled=disabled; [ -e $d/$unit.enabled ] && enabled=enabled
case $cmd in
  show) printf 'Id=%s.service\nNames=%s.service\nLoadState=loaded\nActiveState=%s\nSubState=%s\nUnitFileState=%s\n' \
          "$unit" "$unit" "$active" "$([ $active = active ] && echo running || echo dead)" "$enabled" ;;
  start|restart) mkdir -p $d; touch $d/$unit.active ;;
  stop) rm -f $d/$unit.active ;;
  enable) mkdir -p $d; touch $d/$unit.enabled ;;
  disable) rm -f $d/$unit.enabled ;;
  is-enabled) echo $enabled; [ $enabled = enabled ] ;;
  is-active) echo $active; [ $active = active ] ;;
  daemon-reload|list-unit-files) : ;;
esac
"""


def test_docker_playbook_check_converge_and_changed_0(wroot, ansible_in, tmp_path):
    from harness.debs import DebSpec, build_deb

    root = wroot
    deb = build_deb(DebSpec("docker.io", "20.10.99-0rw1", files={"/usr/bin/docker": DOCKER},
                            modes={"/usr/bin/docker": 0o755}, postinst="#!/bin/sh\ngroupadd -f docker\n"),
                    str(tmp_path / "debs"))
    root.bind(str(tmp_path / "debs"), "/opt/rw-docker-debs")
    root.run(["dpkg", "-i", "/opt/rw-docker-debs/" + deb.rsplit("/", 1)[-1]], check=True)
    root.write("/usr/local/bin/systemctl", SYSTEMCTL, mode=0o755)
    root.add_user("alice")
    ansible_in(root)
    res = wizard.run(root, "--plan-only", "--format", "ansible", "--path", "docker", "--user", "alice")
    assert res.returncode in (0, 2), res.stderr
    root.write("/root/docker.yml", res.stdout)
    watched = ["/etc", "/home/alice", "/var/lib/rw-docker", "/run/rw-systemd"]
    before = root.snapshot(watched)

    check = ansible.playbook(root, "/root/docker.yml", "--check", "--diff")
    assert check.returncode == 0, check.stdout[-6000:] + check.stderr[-3000:]
    assert root.snapshot(watched) == before

    run = ansible.playbook(root, "/root/docker.yml")
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert "pull " in root.read("/var/log/rw-docker.log")
    assert root.exists("/run/rw-systemd/docker.active") and root.exists("/run/rw-systemd/docker.enabled")
    assert ":alice" in next(ln for ln in root.read("/etc/group").splitlines() if ln.startswith("docker:")) \
        or ",alice" in next(ln for ln in root.read("/etc/group").splitlines() if ln.startswith("docker:"))

    again = ansible.playbook(root, "/root/docker.yml")
    assert again.returncode == 0, again.stdout[-6000:] + again.stderr[-3000:]
    counts = ansible.recap(again.stdout)
    assert counts["changed"] == 0 and counts["failed"] == 0, ansible.changed_tasks(again.stdout)


def test_docker_playbook_under_wsl_writes_dxg_flags_and_converges(wroot, ansible_in, tmp_path):
    """The same Debian root posing as WSL 2 (WSL_DISTRO_NAME, a /usr/lib/wsl/lib DXCore stand-in): the run
    script and compose file carry AMD's WSL container flags (/dev/dxg, DXCore, librocdxg), never /dev/kfd,
    and a second run changes nothing."""
    from harness.debs import DebSpec, build_deb

    root = wroot
    deb = build_deb(DebSpec("docker.io", "20.10.99-0rw1", files={"/usr/bin/docker": DOCKER},
                            modes={"/usr/bin/docker": 0o755}, postinst="#!/bin/sh\ngroupadd -f docker\n"),
                    str(tmp_path / "debs"))
    root.bind(str(tmp_path / "debs"), "/opt/rw-docker-debs")
    root.run(["dpkg", "-i", "/opt/rw-docker-debs/" + deb.rsplit("/", 1)[-1]], check=True)
    root.write("/usr/local/bin/systemctl", SYSTEMCTL, mode=0o755)
    root.write("/usr/lib/wsl/lib/libdxcore.so", "")
    root.add_user("alice")
    ansible_in(root)
    res = wizard.run(root, "--plan-only", "--format", "ansible", "--path", "docker", "--user", "alice",
                     extra_env={"WSL_DISTRO_NAME": "Ubuntu"})
    assert res.returncode in (0, 2), res.stderr
    assert "--device=/dev/dxg" in res.stdout and "--device=/dev/kfd" not in res.stdout
    root.write("/root/docker.yml", res.stdout)
    run = ansible.playbook(root, "/root/docker.yml")
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    script = root.read("/home/alice/rocm-workspace/run-rocm-pytorch.sh")
    compose = root.read("/home/alice/rocm-workspace/compose.yaml")
    assert "--device=/dev/dxg" in script and "/usr/lib/wsl/lib/libdxcore.so:/usr/lib/libdxcore.so" in script
    assert "/dev/kfd" not in script and "/dev/kfd" not in compose and '"/dev/dxg"' in compose
    again = ansible.playbook(root, "/root/docker.yml")
    assert again.returncode == 0, again.stdout[-6000:] + again.stderr[-3000:]
    counts = ansible.recap(again.stdout)
    assert counts["changed"] == 0 and counts["failed"] == 0, ansible.changed_tasks(again.stdout)
