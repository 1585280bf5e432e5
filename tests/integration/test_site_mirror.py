"""``--rocm-mirror`` on a site whose one mirror host serves the distribution's archive too (the
air-gapped case): ``--yes``, the generated script and the playbook (``ansible-playbook``) upgrade
ROCm 6.2 -> 6.4.3 and leave the distribution's lines enabled (only AMD's repository paths under the mirror are AMD's)."""
from __future__ import annotations

import pytest

from harness import ansible, aptrepo, checks, wizard
from harness.sites import site_mirror


@pytest.fixture
def mirrored(wroot, apt_site, tmp_path):
    """A machine on ROCm 6.2.4 whose distribution archive and AMD repositories are on one mirror host."""
    mirror = site_mirror(apt_site, str(tmp_path))
    try:
        root = wroot
        root.write("/etc/apt/sources.list", aptrepo.distro_list(mirror.url, apt_site.site.codename))
        apt_site.add_rocm(root, apt_site.old, base=mirror.url)
        root.apt("update", check=True)
        root.apt("install", "rocm", "amdgpu-dkms", check=True)
        yield root, mirror
    finally:
        mirror.stop()


@pytest.mark.parametrize("frontend", ["yes", "script", "playbook"])
def test_site_mirror_upgrade_keeps_the_distribution_archive(mirrored, apt_site, frontend, request):
    root, mirror = mirrored
    distro = root.read("/etc/apt/sources.list")
    args = ["--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-mirror", mirror.url, "--allow-http-mirror",
            "--rocm-key-fingerprint", apt_site.site.radeon_key.fingerprint]
    if frontend == "yes":
        res = wizard.run(root, "--yes", "--no-verify", *args)
    elif frontend == "playbook":
        ansible.install(root, request.getfixturevalue("ansible_debs"))
        made = wizard.run(root, "--plan-only", "--format", "ansible", *args)
        assert made.returncode in (0, 2), made.stderr
        root.write("/root/site.yml", made.stdout)
        res = ansible.playbook(root, "/root/site.yml", "-e", '{"rocm_wizard_gpu_users": []}')
        assert res.returncode == 0 and ansible.recap(res.stdout)["failed"] == 0, res.stdout[-6000:] + res.stderr[-3000:]
    else:
        made = wizard.run(root, "--plan-only", *args)
        assert made.returncode in (0, 2), made.stderr
        root.write("/root/plan.sh", made.stdout, mode=0o755)
        res = root.run(["bash", "/root/plan.sh"], timeout=600)
    assert res.returncode == 0, res.stderr
    checks.assert_rocm_upgraded(root, apt_site.new)
    checks.assert_dpkg_healthy(root)
    assert root.read("/etc/apt/sources.list") == distro  # the distribution's archive: untouched, enabled
    assert checks.active_lines(distro) == [f"deb {mirror.url}/ubuntu jammy main"]
    # the kernel headers came from that archive, through the very line a host matcher would have disabled
    assert root.installed_version(f"linux-headers-{apt_site.site.kernel}")
