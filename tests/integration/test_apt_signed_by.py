"""Repository hygiene in the apt lab: a second sources entry for AMD's repository with another
Signed-By (as AMD's coming repository-setup package writes one, TheRock#6986) makes apt-get update
fail outright; ``doctor`` finds it and the rocm-upgrade run fixes it (its sources step takes AMD's
repositories out of every other file), after which apt-get update works again."""
from __future__ import annotations

import json
import re

from harness import wizard

from test_exec_resume import upgrade_args  # noqa: E402

OTHER = "/etc/apt/sources.list.d/amdrocm-repo.sources"


def _findings(root):
    res = wizard.run(root, "doctor", "--json")
    assert res.returncode in (0, 1, 2), res.stderr
    return {f["id"] for f in json.loads(res.stdout)["findings"]}


def test_a_duplicate_signed_by_is_found_and_fixed(rocm_old, apt_site):
    root = rocm_old
    line = next(ln for ln in root.read("/etc/apt/sources.list.d/rocm.list").splitlines() if ln.startswith("deb "))
    m = re.match(r"deb \[[^]]*\] (\S+) (\S+) (.+)$", line)
    uri, suite, comps = m.groups()
    root.write(OTHER, f"Types: deb\nURIs: {uri}\nSuites: {suite}\nComponents: {comps}\n"
                      "Signed-By: /usr/share/keyrings/amdrocm-keyring.gpg\n")
    broken = root.apt("update")
    assert broken.returncode != 0 and "Signed-By" in broken.stdout + broken.stderr
    assert "apt-signed-by-conflict" in _findings(root)

    res = wizard.run(root, "--yes", "--no-verify", *upgrade_args(apt_site))
    assert res.returncode == 0, res.stderr
    assert not root.exists(OTHER)
    assert root.apt("update").returncode == 0
    assert "apt-signed-by-conflict" not in _findings(root)
