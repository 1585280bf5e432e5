"""AMD's rpm repository facts (catalog/data/rpm_repos.toml): every tag exists, layouts give the URLs
AMD's rhel pages write, support lists answer only where a page says so."""
from __future__ import annotations

from types import SimpleNamespace

from rocm_wizard.catalog import _data, rpmrepos, sources


def _tags(obj, out):
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k.endswith("sources") and isinstance(v, list):
                out.update(v)
            else:
                _tags(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _tags(v, out)
    return out


def test_every_tag_exists_and_every_entry_has_status_and_sources():
    data = _data.load("rpm_repos.toml")
    assert sorted(t for t in _tags(data, set()) if sources.get(t) is None) == []
    for entry in data["series"] + data["os_support"] + list(data["layout"].values()):
        assert entry["status"] in ("documented", "inferred") and entry["sources"]


def test_urls_follow_amds_rhel_pages():
    base = "https://repo.radeon.com"
    assert rpmrepos.repo_urls(base, "6.4.3", "6.4", "9", "9.4") == (
        "https://repo.radeon.com/rocm/rhel9/6.4.3/main", "https://repo.radeon.com/amdgpu/6.4.3/rhel/9.4/main/x86_64")
    rocm, driver = rpmrepos.repo_urls(base + "/", "7.0", "7.0", "9", "9.6")
    assert rocm == "https://repo.radeon.com/rocm/el9/7.0/main" and driver is None  # 7.x driver: not known
    assert rpmrepos.repo_urls(base, "5.7", "5.7", "9", "9.2") is None


def test_family_and_support():
    os = lambda i, v="9.4": SimpleNamespace(id=i, version_id=v)  # noqa: E731
    assert [rpmrepos.family(os(i)) for i in ("rhel", "rocky", "almalinux", "ol", "fedora", "centos", "ubuntu")] == \
        ["el", "el", "el", "el", "fedora", None, None]
    assert rpmrepos.el_release(os("rocky", "9.4")) == ("9", "9.4")
    assert rpmrepos.el_release(os("rocky", "9")) is None
    assert rpmrepos.os_supported("7.0.0", "ol", "9.6") is True
    assert rpmrepos.os_supported("7.0.0", "ol", "9.4") is False
    assert rpmrepos.os_supported("6.4.3", "almalinux", "9.4") is True  # follows RHEL's list
    assert rpmrepos.os_supported("6.2.4", "rhel", "9.4") is None  # no list recorded: unknown, not supported


def test_core_sdk_rpm_repositories_as_amds_install_page_writes_them():
    """ROCm/rocm-docs docs/install/include/200-install.rst, 7.14.0 and 10.0.0 revisions (dnf and
    zypper .repo files); 10.1 is a guess and says so; unknown OSes stay unknown."""
    rhel, why = rpmrepos.coresdk_repo("10.0", "rhel", "9.6")
    assert why == "" and rhel.status == "documented" and rhel.profile == "rhel9"
    assert rhel.baseurl == "https://stable.repo.amd.com/rocm/core/packages/rhel9/x86_64"
    assert rhel.key_url == "https://stable.repo.amd.com/rocm/gpg/packages.gpg"
    assert rhel.repo_file == "/etc/yum.repos.d/amdrocm-stable.repo" and rhel.priority is None
    assert "no priority=" in rhel.note
    sles, _ = rpmrepos.coresdk_repo("10.0", "sles", "15.7")
    assert sles.repo_file == "/etc/zypp/repos.d/amdrocm-stable.repo"
    assert sles.baseurl.endswith("/rocm/core/packages/sles15/x86_64")
    old, _ = rpmrepos.coresdk_repo("7.14", "ol", "10.0")
    assert old.baseurl == "https://repo.amd.com/rocm/packages-multi-arch/rhel10/x86_64" and old.priority == 50
    assert old.key_url == "https://repo.amd.com/rocm/packages-multi-arch/gpg/rocm.gpg"
    assert rpmrepos.coresdk_repo("10.0", "rocky", "9.6")[0].profile == "rhel9"
    # the key is the apt path's file for that series: its pinned fingerprint applies to both
    data = _data.load("coresdk.toml")
    assert rhel.key_url == data["repo"]["core"]["base_url"] + "/" + data["repo"]["core"]["key_path"]
    assert old.key_url == data["repo"]["multi-arch"]["base_url"] + "/" + data["repo"]["multi-arch"]["key_path"]
    # 10.1: the same repository, marked as the guess it is
    guess, _ = rpmrepos.coresdk_repo("10.1", "rhel", "9.6")
    assert guess.baseurl == rhel.baseurl and guess.status == "inferred" and "guess" in guess.note
    # not on any page: no repository, a reason
    for args, words in ((("10.0", "almalinux", "9.6"), "on no Core SDK install page"),
                        (("10.0", "rocky", "8.10"), "list no repository for Rocky Linux 8"),
                        (("10.0", "sles", "12.5"), "list no repository for sles 12"),
                        (("7.13", "rhel", "9.6"), "no Core SDK rpm repository is recorded for 7.13")):
        repo, why = rpmrepos.coresdk_repo(*args)
        assert repo is None and words in why, why


def test_7x_kernel_driver_repository_on_el_as_amds_driver_page_writes_it():
    """ROCm/amdgpu-docs package-manager-rhel.rst: el/<point release> for EL 8 and 9, el/<major> for
    EL 10; priority=50; the legacy key; the installed amdgpu-dkms removed first."""
    base = "https://repo.radeon.com/"
    nine = rpmrepos.driver_el_7x(base, "30.30.4", "9", "9.6")
    assert nine["url"] == "https://repo.radeon.com/amdgpu/30.30.4/el/9.6/main/x86_64"
    assert nine["priority"] == 50 and nine["remove_installed_first"] and nine["status"] == "documented"
    assert nine["key_url"] == "https://repo.radeon.com/rocm/rocm.gpg.key"
    assert rpmrepos.driver_el_7x(base, "30.30.4", "10", "10.0")["url"].endswith("/amdgpu/30.30.4/el/10/main/x86_64")
    assert rpmrepos.driver_el_7x(base, "30.10.1", "8", "8.10")["url"].endswith("/el/8.10/main/x86_64")
    assert "rocm-5954" in nine["sources"] and "404" in nine["note"]
    assert rpmrepos.driver_el_7x(base, None, "9", "9.6") is None  # the driver directory not known
