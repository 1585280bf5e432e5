"""The answers file: TOML read and written, validated, merged with the command line, and a round
trip through the real plan engine gives the same plan."""
from __future__ import annotations

import os
import stat

import pytest
from hypothesis import given, settings, strategies as st

from rocm_wizard.execute import answers
from rocm_wizard.model import GPU, OSInfo, System, TorchEnv
from rocm_wizard.plan.build import Choices, build_plan

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40)


@settings(max_examples=150, deadline=None)
@given(path=TEXT, venv=TEXT, env=st.dictionaries(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True), TEXT,
                                                  max_size=4),
       dkms=st.booleans())
def test_any_answers_survive_a_write_and_read(tmp_path_factory, path, venv, env, dkms):
    f = str(tmp_path_factory.mktemp("a") / "answers.toml")
    data = {"path": path, "venv": venv, "env": env, "dkms": dkms}
    answers.write(f, data)
    back = answers.load(f)
    want = {k: v for k, v in data.items() if v != ""}
    want["env"] = env
    assert back == want


def test_file_is_private_and_says_how_to_replay(tmp_path):
    f = tmp_path / "a.toml"
    answers.write(str(f), {"path": "docker", "image": "rocm/pytorch:latest"})
    assert stat.S_IMODE(os.stat(f).st_mode) == 0o600
    assert "rocm-wizard --yes --answers" in f.read_text()


@pytest.mark.parametrize("content, message", [
    ("path = 3\n", "path must be a string"),
    ("dkms = \"yes\"\n", "dkms must be true or false"),
    ("colour = \"red\"\n", "unknown key(s) colour"),
    ("format = 2\n", "format 2 is not 1"),
    ("[env]\nX = 1\n", "env must be a table"),
    ("path = \n", "not valid TOML"),
    (b"\xff\xfe", "not valid TOML"),
])
def test_bad_answers_files_get_a_clear_error(tmp_path, content, message):
    f = tmp_path / "a.toml"
    f.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(answers.AnswersError, match=message.replace("(", r"\(").replace(")", r"\)")):
        answers.load(str(f))


def test_missing_file(tmp_path):
    with pytest.raises(answers.AnswersError, match="does not exist"):
        answers.load(str(tmp_path / "nope.toml"))


def test_command_line_wins_over_the_file():
    merged = answers.merge({"path": "docker", "rocm": "6.4", "env": {"A": "1", "B": "2"}},
                           {"path": "rocm-upgrade", "rocm": None, "env": {"B": "3"}, "dkms": None})
    assert merged == {"path": "rocm-upgrade", "rocm": "6.4", "env": {"A": "1", "B": "3"}}


def _system():
    s = System()
    s.os = OSInfo(id="ubuntu", version_id="22.04", codename="jammy", kernel="6.8.0-48-generic",
                  pretty_name="Ubuntu 22.04.5 LTS")
    s.gpus = [GPU(vendor_id="1002", device_id="744c", revision="c8", gfx_target="gfx1100", kind="dgpu")]
    s.rocm.version = "6.2.4"
    s.rocm.packages = {"rocm": "6.2.4.60204-139~22.04", "rocm-core": "6.2.4.60204-139~22.04"}
    s.torch = [TorchEnv(path="/home/alice/venv", version="2.5.1+rocm6.2", build="rocm", python="3.10",
                        hip="6.2.41133-dd7f95766")]
    s.access.user = "alice"
    return s


@pytest.mark.parametrize("choices", [
    Choices(path="rocm-upgrade", rocm="6.4", rocm_mirror="https://mirror.example.org/radeon/"),
    Choices(path="rocm-upgrade", rocm="6.4.3", dkms=False,
            rocm_key_fingerprint="ca8b b472 7a47 b4d0 9b4e e896 9386 b48a 1a69 3c5c"),
    Choices(path="torch-reinstall", torch="2.4.1", venv="/home/alice/venv", venv_mode="existing"),
    Choices(path="torch-reinstall", venv="/home/alice/venv", env={"HIP_VISIBLE_DEVICES": "0"}),
    Choices(),  # everything from the diagnosis and the defaults
])
def test_replaying_the_written_answers_gives_the_same_plan(tmp_path, choices):
    system = _system()
    plan = build_plan(system, choices)
    f = str(tmp_path / "answers.toml")
    answers.write(f, answers.from_plan_inputs(plan.inputs))
    loaded = answers.load(f)
    loaded.setdefault("env", {})
    replay = build_plan(_system(), Choices(**loaded))
    assert replay.plan_id == plan.plan_id
    assert [s.to_dict() for s in replay.steps] == [s.to_dict() for s in plan.steps]


SEED = os.path.join(os.path.dirname(__file__), "..", "plan", "systems", "seed-rx7900xt-jammy-rocm6.2.json")


def _plan_json(args):
    import contextlib
    import io
    import json

    from rocm_wizard.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["--plan-only", "--format", "json", "--snapshot", SEED] + args)
    return rc, (json.loads(out.getvalue()) if out.getvalue() else None), err.getvalue()


def test_plan_only_reads_the_answers_file_that_yes_would_replay(tmp_path):
    f = tmp_path / "answers.toml"
    answers.write(str(f), {"path": "torch-reinstall", "torch": "2.4.1+rocm6.1", "venv": "/opt/v",
                           "venv_mode": "existing", "env": {"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}})
    rc_a, from_file, err = _plan_json(["--answers", str(f)])
    assert rc_a == 2, err
    rc_b, from_cli, err = _plan_json(["--path", "torch-reinstall", "--torch", "2.4.1+rocm6.1", "--venv", "/opt/v",
                                      "--venv-mode", "existing", "--env", "HSA_OVERRIDE_GFX_VERSION=11.0.0"])
    assert rc_b == 2, err
    assert from_file["plan_id"] == from_cli["plan_id"]
    rc_c, default, err = _plan_json([])  # without the file: the recommendation, another plan
    assert default["plan_id"] != from_file["plan_id"]
    rc_d, over, err = _plan_json(["--answers", str(f), "--torch", "2.4.0"])  # the command line wins
    assert over["plan_id"] != from_file["plan_id"]


@pytest.mark.parametrize("content, message", [
    (None, "does not exist"), ("path = [", "is not valid TOML"), ("path = 3\n", "path must be a string"),
    ("colour = \"red\"\n", "unknown key(s) colour"),
])
def test_plan_only_with_a_bad_answers_file_is_an_input_error_not_changes_pending(tmp_path, content, message):
    f = tmp_path / "answers.toml"
    if content is not None:
        f.write_text(content)
    rc, out, err = _plan_json(["--answers", str(f)])
    assert rc == 1 and out is None and message in err and "Traceback" not in err, err


def test_allow_apt_removals_is_an_answer(tmp_path):
    from rocm_wizard.execute import answers

    path = tmp_path / "a.toml"
    path.write_text("format = 1\nallow_apt_removals = true\n")
    assert answers.load(str(path)) == {"allow_apt_removals": True}
    assert "allow_apt_removals = true" in answers.dumps({"allow_apt_removals": True})
    path.write_text("allow_apt_removals = \"yes\"\n")
    with pytest.raises(answers.AnswersError, match="allow_apt_removals must be true or false"):
        answers.load(str(path))
