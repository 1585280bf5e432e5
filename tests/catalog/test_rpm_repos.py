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
