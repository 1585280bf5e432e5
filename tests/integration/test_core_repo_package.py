"""AMD's repository-setup package (``amdrocm-repo-stable``, ROCm/TheRock's draft RFC "ROCm repository-setup
packages"): a stand-in laid out like AMD's -- a deb822 ``amdrocm-stable.sources`` conffile
(X-Repo-Id, URIs of the stream host's profile directory, Suites: stable, Signed-By:
/usr/share/keyrings/amdrocm-keyring.gpg) and that keyring -- installed in the Debian root posing as
Ubuntu 26.04, beside a hand-made entry for the same URI with another Signed-By (apt-get update then
fails outright).  The Core SDK plan adopts the package's entry: it writes no entry of its own, takes
the hand-made one out, never touches the package's files, and apt, the install and a second run
work.  A package that names another repository than the plan's is refused before anything changes."""
from __future__ import annotations

from harness import wizard
from harness.debs import DebSpec, build_deb

from test_exec_coresdk import CORE, SOURCES, core_args  # noqa: E402

KEYRING = "/usr/share/keyrings/amdrocm-keyring.gpg"
HAND = "/etc/apt/sources.list.d/rocm.list"


def _uri(world, profile="ubuntu2604"):
    return world.radeon_url.rstrip("/") + f"/rocm/core/packages/{profile}/"


def _install_repo_package(root, world, tmp_path, profile="ubuntu2604", key=None):
    kr = (key or world.core_key).write_keyring(str(tmp_path / "amdrocm-keyring.gpg"))
    with open(kr, "rb") as fh:
        key = fh.read()
    sources = (f"X-Repo-Id: amdrocm-stable\nTypes: deb\nURIs: {_uri(world, profile)}\nSuites: stable\n"
               f"Components: main\nSigned-By: {KEYRING}\nEnabled: yes\n")
    deb = build_deb(DebSpec("amdrocm-repo-stable", "10.0.0-1", arch="all", files={SOURCES: sources, KEYRING: key},
                            conffiles=[SOURCES], description="stand-in for AMD's repository-setup package"),
                    str(tmp_path / "debs"))
    root.bind(str(tmp_path / "debs"), "/opt/rw-repo-debs")
    root.run(["dpkg", "-i", "/opt/rw-repo-debs/" + deb.rsplit("/", 1)[-1]], check=True)
    return sources


def test_the_core_plan_adopts_amds_repo_package_and_apt_works(resolute_root, core_site, tmp_path):
    root = resolute_root
    sources = _install_repo_package(root, core_site, tmp_path)
    # an earlier hand-made entry for the same URI, with another keyring: apt refuses every source
    core_site.core_key.write_keyring(root.host_path("/etc/apt/keyrings/amdrocm.gpg"))
    root.write(HAND, f"deb [arch=amd64 signed-by=/etc/apt/keyrings/amdrocm.gpg] {_uri(core_site)} stable main\n")
    broken = root.apt("update")
    assert broken.returncode != 0 and "Signed-By" in broken.stdout + broken.stderr, broken.stdout + broken.stderr

    plan = wizard.run(root, "--plan-only", "--format", "json", *core_args(core_site))
    assert plan.returncode in (0, 2), plan.stderr
    assert "amdrocm-repo-stable" in plan.stdout and "provides this repository in " + SOURCES in plan.stdout

    res = wizard.run(root, "--yes", "--no-verify", *core_args(core_site))
    assert res.returncode == 0, res.stderr
    assert root.read(SOURCES) == sources  # the package's conffile as the package left it
    assert root.run(["dpkg", "--verify", "amdrocm-repo-stable"]).stdout == ""
    assert all(ln.startswith("#") for ln in root.read(HAND).splitlines() if ln.strip()), root.read(HAND)
    assert root.installed_version(f"amdrocm-core-sdk{CORE.series}-gfx1100") == CORE.deb_version
    ok = root.apt("update")
    assert ok.returncode == 0, ok.stdout + ok.stderr

    again = wizard.run(root, "--yes", "--no-verify", *core_args(core_site))
    assert again.returncode == 0, again.stderr
    assert root.read(SOURCES) == sources


def test_a_repo_package_for_another_repository_is_refused_before_any_change(resolute_root, core_site, tmp_path):
    root = resolute_root
    _install_repo_package(root, core_site, tmp_path, profile="ubuntu2404")
    before = root.snapshot(["/etc/apt", "/var/lib/dpkg/status"])
    res = wizard.run(root, "--yes", "--no-verify", *core_args(core_site))
    assert res.returncode != 0
    assert "amdrocm-repo-stable is installed, but none of its entries" in res.stderr, res.stderr
    assert "ubuntu2404" in res.stderr and "apt-get purge amdrocm-repo-stable" in res.stderr
    assert root.snapshot(["/etc/apt", "/var/lib/dpkg/status"]) == before


def test_the_script_and_the_playbook_keep_the_package_entry_too(resolute_root, core_site, tmp_path, ansible_debs):
    from harness import ansible

    root = resolute_root
    sources = _install_repo_package(root, core_site, tmp_path)
    root.write(HAND, f"deb [arch=amd64 signed-by=/etc/apt/keyrings/amdrocm.gpg] {_uri(core_site)} stable main\n")
    script = wizard.run(root, "--plan-only", *core_args(core_site))
    assert script.returncode == 2, script.stderr
    book = wizard.run(root, "--plan-only", "--format", "ansible", *core_args(core_site))
    assert book.returncode in (0, 2), book.stderr
    root.write("/root/plan.sh", script.stdout, mode=0o755)
    root.write("/root/core.yml", book.stdout)

    res = root.run(["bash", "/root/plan.sh"], timeout=900)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert root.read(SOURCES) == sources
    assert "holds key " + core_site.core_key.fingerprint in res.stdout + res.stderr
    assert not root.exists("/etc/apt/keyrings/amdrocm.gpg")  # the package's key is used; none of ours is written
    assert all(ln.startswith("#") for ln in root.read(HAND).splitlines() if ln.strip()), root.read(HAND)
    assert root.installed_version(f"amdrocm-core-sdk{CORE.series}-gfx1100") == CORE.deb_version

    ansible.install(root, ansible_debs)  # the playbook on the converged host: nothing to change
    again = ansible.playbook(root, "/root/core.yml", "-e", '{"rocm_wizard_gpu_users": []}')
    assert again.returncode == 0, again.stdout[-6000:] + again.stderr[-3000:]
    assert root.read(SOURCES) == sources
    counts = ansible.recap(again.stdout)
    assert counts["changed"] == 0 and counts["failed"] == 0, ansible.changed_tasks(again.stdout)


def test_a_package_keyring_holding_another_key_stops_every_way_before_any_change(resolute_root, core_site, tmp_path,
                                                                                ansible_debs):
    """Issue 21: the adopted entry's Signed-By keyring is checked against the pinned Core SDK key
    (here the plan's --rocm-core-key-fingerprint, the stand-in's), packet by packet; a package whose
    keyring holds another key stops --yes, the script and the playbook at their first step."""
    from harness import ansible

    root = resolute_root
    _install_repo_package(root, core_site, tmp_path, key=core_site.rogue_key)
    before = root.snapshot(["/etc/apt", "/var/lib/dpkg/status", "/usr/share/keyrings"])
    res = wizard.run(root, "--yes", "--no-verify", *core_args(core_site))
    assert res.returncode != 0
    assert KEYRING + ", the keyring that AMD's repository-setup package amdrocm-repo-stable names" in res.stderr, res.stderr
    assert core_site.rogue_key.fingerprint in res.stderr and "Nothing was changed" in res.stderr
    assert root.snapshot(["/etc/apt", "/var/lib/dpkg/status", "/usr/share/keyrings"]) == before

    script = wizard.run(root, "--plan-only", *core_args(core_site))
    assert script.returncode == 2, script.stderr
    root.write("/root/plan.sh", script.stdout, mode=0o755)
    res = root.run(["bash", "/root/plan.sh"], timeout=900)
    assert res.returncode != 0 and "is not exactly the Core SDK key" in res.stdout + res.stderr, res.stdout + res.stderr
    assert root.snapshot(["/etc/apt", "/var/lib/dpkg/status", "/usr/share/keyrings"]) == before

    book = wizard.run(root, "--plan-only", "--format", "ansible", *core_args(core_site))
    assert book.returncode in (0, 2), book.stderr
    root.write("/root/core.yml", book.stdout)
    ansible.install(root, ansible_debs)
    after_ansible = root.snapshot(["/etc/apt", "/usr/share/keyrings"])
    run = ansible.playbook(root, "/root/core.yml", "-e", '{"rocm_wizard_gpu_users": []}')
    assert run.returncode != 0 and "is not exactly the Core SDK key" in run.stdout, run.stdout[-4000:]
    assert root.snapshot(["/etc/apt", "/usr/share/keyrings"]) == after_ansible


def test_a_legacy_upgrade_beside_the_package_keeps_its_entry_and_apt_works(rocm_old, apt_site, core_site, tmp_path):
    """Issue 21: a host with AMD's repository-setup package (its Core SDK entry for jammy) upgrading the
    legacy stream (6.2.4 -> 6.4.3): the package's entry and keyring stay as the package left them (the
    plan says why), the legacy release installs from repo.radeon.com, apt-get update works, and the
    package still verifies."""
    from test_exec_rocm_upgrade import upgrade_args

    root = rocm_old
    sources = _install_repo_package(root, core_site, tmp_path, profile="ubuntu2204")
    plan = wizard.run(root, "--plan-only", "--format", "json", *upgrade_args(apt_site))
    assert plan.returncode == 2, plan.stderr
    assert "amdrocm-repo-stable is installed" in plan.stderr and "stays as it is" in plan.stderr, plan.stderr
    res = wizard.run(root, "--yes", "--no-verify", *upgrade_args(apt_site))
    assert res.returncode == 0, res.stderr
    assert root.read(SOURCES) == sources
    assert root.run(["dpkg", "--verify", "amdrocm-repo-stable"]).stdout == ""
    assert root.installed_version("rocm").startswith("6.4.3"), root.installed_version("rocm")
    ok = root.apt("update")
    assert ok.returncode == 0, ok.stdout + ok.stderr


def test_the_legacy_script_keeps_the_package_entry_too(rocm_old, apt_site, core_site, tmp_path):
    """The same upgrade through the generated script: the package's file is left alone there too."""
    from test_exec_rocm_upgrade import upgrade_args

    root = rocm_old
    sources = _install_repo_package(root, core_site, tmp_path, profile="ubuntu2204")
    script = wizard.run(root, "--plan-only", *upgrade_args(apt_site))
    assert script.returncode == 2, script.stderr
    root.write("/root/plan.sh", script.stdout, mode=0o755)
    res = root.run(["bash", "/root/plan.sh"], timeout=900)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert root.read(SOURCES) == sources
    assert root.run(["dpkg", "--verify", "amdrocm-repo-stable"]).stdout == ""
    assert root.installed_version("rocm").startswith("6.4.3")
    ok = root.apt("update")
    assert ok.returncode == 0, ok.stdout + ok.stderr
