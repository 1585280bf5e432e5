"""apt removing packages while it installs ROCm: a site's own package that depends on the old ROCm
(``site-tool``, Depends: rocm-core (<< 6.3)) would have to go for 6.4.3.  ``--yes`` and the script
stop with its name and remove nothing; planned with ``--allow-apt-removals`` they go on."""
from __future__ import annotations

import os

import pytest

from harness import checks, wizard
from harness.debs import DebSpec, build_deb


def upgrade_args(world, *extra):
    return ["--path", "rocm-upgrade", "--rocm", "6.4.3", "--rocm-mirror", world.radeon_url, "--allow-http-mirror",
            "--rocm-key-fingerprint", world.site.radeon_key.fingerprint, *extra]


@pytest.fixture
def with_site_tool(rocm_old, tmp_path):
    deb = build_deb(DebSpec(name="site-tool", version="1.0", depends=["rocm-core (<< 6.3)"],
                            files={"/usr/share/site-tool/README": "a site's tool built against ROCm 6.2\n"}),
                    str(tmp_path / "debs"))
    rocm_old.write("/root/site-tool.deb", open(deb, "rb").read())
    rocm_old.run(["dpkg", "-i", "/root/site-tool.deb"], check=True)
    assert rocm_old.installed_version("site-tool") == "1.0"
    return rocm_old


def _run(root, frontend, args):
    if frontend == "yes":
        return wizard.run(root, "--yes", "--no-verify", *args)
    made = wizard.run(root, "--plan-only", *args)
    assert made.returncode in (0, 2), made.stderr
    root.write("/root/plan.sh", made.stdout, mode=0o755)
    return root.run(["bash", "/root/plan.sh"], timeout=600)


@pytest.mark.parametrize("frontend", ["yes", "script"])
def test_apt_removing_a_site_package_is_refused_then_allowed(with_site_tool, apt_site, frontend):
    root = with_site_tool
    res = _run(root, frontend, upgrade_args(apt_site))
    assert res.returncode == 1, res.stderr
    assert "would remove packages that are not part of ROCm: site-tool" in res.stderr
    assert "--allow-apt-removals" in res.stderr
    assert root.installed_version("site-tool") == "1.0"  # nothing removed
    assert root.installed_version("rocm") == apt_site.old.deb_version("jammy")  # nothing installed
    checks.assert_dpkg_healthy(root)

    res = _run(root, frontend, upgrade_args(apt_site, "--allow-apt-removals"))
    assert res.returncode == 0, res.stderr
    checks.assert_rocm_upgraded(root, apt_site.new)
    assert root.installed_version("site-tool") is None
    assert "site-tool" in res.stderr  # what apt removed is said


def test_plan_names_the_question_and_the_json_carries_it(rocm_old, apt_site):
    import json

    res = wizard.run(rocm_old, "--plan-only", "--format", "json", *upgrade_args(apt_site))
    assert res.returncode in (0, 2), res.stderr
    plan = json.loads(res.stdout)
    keys = {(c["step"], c["key"]) for c in plan["confirmations"]}
    assert keys == {("kernel-driver", "allow_apt_removals"), ("rocm-packages", "allow_apt_removals")}
    step = next(s for s in plan["steps"] if s["id"] == "rocm-packages")
    assert step["params"]["allow_removals"] is False and "rocm*" in step["params"]["related"]
    assert any("not ROCm's stop the step" in a for a in step["description"]["actions"])
    allowed = json.loads(wizard.run(rocm_old, "--plan-only", "--format", "json",
                                    *upgrade_args(apt_site, "--allow-apt-removals")).stdout)
    assert allowed["confirmations"] == []
