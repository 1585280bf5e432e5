"""rocm-upgrade under WSL 2 in a Debian root posing as WSL (WSL_DISTRO_NAME, /dev/dxg, /usr/lib/wsl/lib):
AMD's WSL use case (amdgpu-install --usecase=wsl,rocm --no-dkms) from the local signed radeon-like mirror:
ROCm's user space and hsa-runtime-rocr4wsl-amdgpu, never amdgpu-dkms.  DRY_RUN=1 and --dry-run change
nothing, `--yes` converges, a second run changes nothing."""
from __future__ import annotations

import re

from harness import checks, wizard

WSL = {"WSL_DISTRO_NAME": "Ubuntu"}


def _args(world):
    return ["--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-mirror", world.radeon_url, "--allow-http-mirror",
            "--rocm-key-fingerprint", world.site.radeon_key.fingerprint]


def _installed(root, name):
    res = root.run(["dpkg-query", "-W", "-f=${db:Status-Abbrev}", name])
    return res.returncode == 0 and res.stdout.startswith("ii")


def test_wsl_rocm_user_space_converges_without_a_kernel_driver(wroot, apt_site):
    root = wroot
    root.write("/dev/dxg", "")
    for lib in ("libdxcore.so", "libd3d12.so"):
        root.write("/usr/lib/wsl/lib/" + lib, "")
    watched = ["/etc/apt", "/var/lib/dpkg/status", "/opt"]

    plan = wizard.run(root, "--plan-only", *_args(apt_site), extra_env=WSL)
    assert plan.returncode in (0, 2), plan.stderr
    header = plan.stdout.split("set -Eeuo")[0]
    steps = [line for line in header.splitlines() if re.match(r"#\s+\d+\. ", line)]
    assert any("hsa-runtime-rocr4wsl-amdgpu" in line for line in steps), header
    assert not any("driver" in line or "Secure Boot" in line for line in steps), steps
    root.write("/root/plan.sh", plan.stdout, mode=0o755)
    before = root.snapshot(watched)
    dry = root.run(["bash", "/root/plan.sh"], env={"DRY_RUN": "1", **WSL}, timeout=600)
    assert dry.returncode == 2, dry.stderr[-3000:]
    cli_dry = wizard.run(root, "--dry-run", *_args(apt_site), extra_env=WSL)
    assert cli_dry.returncode in (0, 2), cli_dry.stderr[-3000:]
    assert root.snapshot(watched) == before

    res = wizard.run(root, "--yes", "--no-verify", *_args(apt_site), extra_env=WSL)
    assert res.returncode == 0, res.stderr[-4000:]
    assert _installed(root, "rocm") and _installed(root, "hsa-runtime-rocr4wsl-amdgpu")
    assert not _installed(root, "amdgpu-dkms")
    assert "a reboot is needed" not in res.stderr
    checks.assert_dpkg_healthy(root)

    detect = wizard.run(root, "detect", "--json", extra_env=WSL)
    assert '"wsl_userspace": "rocr4wsl"' in detect.stdout, detect.stdout[:2000]

    again = wizard.run(root, "--yes", "--no-verify", *_args(apt_site), extra_env=WSL)
    assert again.returncode == 0, again.stderr[-4000:]
    words = checks.step_lines(again.stderr)
    assert words and set(words.values()) == {"ok"}, again.stderr[-4000:]


def test_wsl_rocm_playbook_check_converge_and_changed_0(wroot, apt_site, ansible_in):
    """The same WSL plan as a playbook, run for real under each of the harness's ansible-cores:
    --check changes nothing, the run installs ROCm's user space and the WSL runtime (no kernel
    driver, no reboot flag), a second run reports changed=0."""
    from harness import ansible

    root = wroot
    ansible_in(root)
    root.write("/dev/dxg", "")
    for lib in ("libdxcore.so", "libd3d12.so"):
        root.write("/usr/lib/wsl/lib/" + lib, "")
    root.add_user("alice")
    root.run(["groupadd", "--system", "render"], check=True)
    res = wizard.run(root, "--plan-only", "--format", "ansible", *_args(apt_site), extra_env=WSL)
    assert res.returncode in (0, 2), res.stderr
    assert "hsa-runtime-rocr4wsl-amdgpu" in res.stdout and "kernel-driver" not in res.stdout
    root.write("/root/wsl.yml", res.stdout)
    users = ["-e", '{"rocm_wizard_gpu_users": ["alice"]}']
    watched = ["/etc", "/var/lib/dpkg/status", "/var/lib/apt/lists", "/opt"]
    before = root.snapshot(watched)

    check = ansible.playbook(root, "/root/wsl.yml", "--check", "--diff", *users, extra_env=WSL)
    assert check.returncode == 0, check.stdout[-6000:] + check.stderr[-3000:]
    assert ansible.recap(check.stdout)["failed"] == 0
    assert root.snapshot(watched) == before

    run = ansible.playbook(root, "/root/wsl.yml", *users, extra_env=WSL)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert _installed(root, "rocm") and _installed(root, "hsa-runtime-rocr4wsl-amdgpu")
    assert not _installed(root, "amdgpu-dkms") and not root.exists("/run/reboot-required")
    checks.assert_dpkg_healthy(root)

    again = ansible.playbook(root, "/root/wsl.yml", *users, extra_env=WSL)
    assert again.returncode == 0, again.stdout[-6000:] + again.stderr[-3000:]
    counts = ansible.recap(again.stdout)
    assert counts["changed"] == 0 and counts["failed"] == 0, ansible.changed_tasks(again.stdout)
