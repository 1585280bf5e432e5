"""Mirrors: an http:// mirror needs an explicit opt-in (the key would come over plain HTTP), and
credentials in a mirror URL reach no plan output, no sources file and no message."""
from __future__ import annotations

from plan_helpers import SYSTEMS, run_cli

SEED = str(SYSTEMS / "seed-rx7900xt-jammy-rocm6.2.json")
UPGRADE = ["--snapshot", SEED, "--path", "rocm-upgrade", "--rocm", "6.4.3"]


def test_an_http_mirror_is_refused_without_the_opt_in():
    rc, out, err = run_cli(["--plan-only"] + UPGRADE + ["--rocm-mirror", "http://mirror.example.org/radeon"])
    assert rc == 64 and out == ""
    assert "plain http" in err and "--allow-http-mirror" in err


def test_an_http_mirror_with_the_opt_in_is_planned_with_a_warning():
    rc, out, err = run_cli(["--plan-only"] + UPGRADE + ["--rocm-mirror", "http://mirror.example.org/radeon",
                                                       "--allow-http-mirror"])
    assert rc == 2, err
    assert "http://mirror.example.org/radeon/rocm/apt/6.4.3 jammy main" in out
    assert "WARNING: the mirror is plain http" in err and "fingerprint is then the only protection" in err
    assert "# Note: WARNING: the mirror is plain http" in out  # and in the script's header


def test_https_and_file_mirrors_need_no_opt_in():
    for mirror in ("https://mirror.example.org/radeon", "file:///srv/radeon"):
        rc, out, err = run_cli(["--plan-only"] + UPGRADE + ["--rocm-mirror", mirror])
        assert rc == 2, err
        assert "WARNING" not in err


def test_the_answers_file_can_opt_in(tmp_path):
    answers = tmp_path / "a.toml"
    answers.write_text('format = 1\nrocm_mirror = "http://mirror.example.org/radeon"\n')
    from rocm_wizard.execute.answers import load
    from rocm_wizard.plan.build import Choices

    assert Choices(**load(str(answers))).allow_http_mirror is False
    answers.write_text('format = 1\nrocm_mirror = "http://mirror.example.org/radeon"\nallow_http_mirror = true\n')
    assert Choices(**load(str(answers))).allow_http_mirror is True
