"""``ls /opt``, ``ls -l /opt`` and ``update-alternatives --display rocm`` pastes: the ROCm releases
installed side by side and where /opt/rocm points, recognised by content."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocm_wizard.detect import detect_snapshot, recognize
from rocm_wizard.detect.parsers import opt_listing

REAL = Path(__file__).resolve().parents[1] / "data" / "real" / "165-update-alternatives-rocm-6.3.1" / "update-alternatives.txt"

LS_LONG = """total 12
drwxr-xr-x  3 root root 4096 Jun  3 10:00 amdgpu
lrwxrwxrwx  1 root root   22 Jun  3 10:00 rocm -> /opt/rocm-6.4.1
drwxr-xr-x 11 root root 4096 Jun  3 10:00 rocm-6.2.0
drwxr-xr-x 11 root root 4096 Jun  3 10:00 rocm-6.4.1
"""


def test_update_alternatives_real_paste():
    text = REAL.read_text()
    assert opt_listing.looks_like(text) >= 0.9
    out = opt_listing.parse(text)
    assert out.releases == ["6.3.1"] and out.target == "/opt/rocm-6.3.1"
    assert recognize.recognize(text)[0][0] == "opt-listing"


def test_ls_long_gives_releases_and_target():
    out = opt_listing.parse(LS_LONG)
    assert out.releases == ["6.4.1", "6.2.0"] and out.target == "/opt/rocm-6.4.1"
    assert recognize.recognize(LS_LONG)[0][0] == "opt-listing"


def test_plain_ls_needs_its_prompt_line():
    assert opt_listing.parse("amdgpu  rocm  rocm-6.4.1\n").releases == ["6.4.1"]
    assert recognize.recognize("$ ls /opt\namdgpu  rocm  rocm-6.4.1\n")[0][0] == "opt-listing"
    # bare words could be prose: not on their own
    assert recognize.recognize("amdgpu  rocm  rocm-6.4.1\n")[0][0] != "opt-listing"
    assert recognize.recognize("I tried rocm-6.1 first\nthen gave up\n")[0][0] != "opt-listing"


def test_not_a_listing():
    for text in ("", "rocm\n", "ROCk module is loaded\n", "ii  rocm-core  6.4.1.60401-83~24.04  amd64  ROCm core\n",
                 "/opt/rocm-6.3.1/bin/rocminfo: error while loading shared libraries\n"):
        assert opt_listing.looks_like(text) < 0.35, text


def test_detect_takes_the_release_and_link_from_a_pasted_listing(tmp_path):
    (tmp_path / "opt.txt").write_text("$ ls -l /opt\n" + LS_LONG)
    r = detect_snapshot(str(tmp_path)).rocm
    assert r.version == "6.4.1" and r.opt_rocm_target == "/opt/rocm-6.4.1"
    assert sorted(i.path for i in r.installs) == ["/opt/rocm-6.2.0", "/opt/rocm-6.4.1"]
    assert "opt-listing" in r.sources["version"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=2000),
                 st.lists(st.sampled_from(LS_LONG.splitlines() + REAL.read_text().splitlines() + ["", "rocm-", "x -> y"]),
                          max_size=40).map("\n".join)))
def test_never_raises(text):
    assert 0.0 <= opt_listing.looks_like(text) <= 1.0
    opt_listing.parse(text)


HOSTILE = """
    from rocm_wizard.detect.parsers import opt_listing
    n = 1024 * 1024
    for text in ("rocm-6.4.1 " + "a " * (n // 2) + "!", "drwxr-xr-x 11 root root 4096 Jun  3 10:00 " + "r" * n + " ->",
                 ("a " * 150 + "rocm-6.4.1\\n") * (n // 310), "link currently points to /opt/rocm-6" + "." * n,
                 "".join("rocm-6.%d.%d\\n" % (i // 100, i % 100) for i in range(80000)),
                 "core-10.0 " + "core-1 " * (n // 7) + "!", "link currently points to /opt/rocm/core-1" + "0" * n + "x",
                 ("/opt/rocm/core-10." + "1" * 2000 + " - priority 1\\n") * (n // 2040)):
        opt_listing.looks_like(text)
        opt_listing.parse(text)
    print("done")
"""


def test_one_mib_hostile_listings_parse():
    # the child's timeout bounds it: a quadratic pattern would take minutes here
    res = subprocess.run([sys.executable, "-c", textwrap.dedent(HOSTILE)], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ))
    assert res.returncode == 0 and res.stdout.strip() == "done", res.stderr
