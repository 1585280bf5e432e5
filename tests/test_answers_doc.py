"""``docs/answers.md`` is generated from the code (issue 22): every answers-file key with its option,
type and default; the page in the repository is what the generator writes now."""
from __future__ import annotations

from pathlib import Path

from rocm_wizard import answers_doc
from rocm_wizard.execute import answers

PAGE = Path(__file__).resolve().parents[1] / "docs" / "answers.md"


def test_the_page_is_in_sync_with_the_code():
    assert PAGE.read_text(encoding="utf-8") == answers_doc.markdown(), \
        "docs/answers.md is stale: python -m rocm_wizard.answers_doc > docs/answers.md"


def test_every_key_has_a_row_with_its_option():
    rows = {r["key"]: r for r in answers_doc.rows()}
    assert list(rows) == list(answers.KEYS)
    for key, row in rows.items():
        if key != "format":
            assert row["flag"].startswith("--") and row["meaning"], row
    assert rows["dkms"]["flag"].startswith("--no-dkms") and rows["path"]["type"].startswith("string (")


def test_the_example_on_the_page_is_a_valid_answers_file(tmp_path):
    text = PAGE.read_text(encoding="utf-8").split("```toml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "a.toml").write_text(text, encoding="utf-8")
    loaded = answers.load(str(tmp_path / "a.toml"))
    assert loaded["path"] == "torch-reinstall" and loaded["env"] == {"TORCH_BLAS_PREFER_HIPBLASLT": "0"}


def test_the_snapshot_names_the_environment_variables_it_keeps():
    """issue 22: 'only GPU-related environment variables are kept' was not true (PATH, HOME, USER...)."""
    from rocm_wizard.commands.snapshot import env_kept_message
    from rocm_wizard.detect.sources import GPU_ENV_NAMES

    msg = env_kept_message()
    assert all(name in msg for name in GPU_ENV_NAMES) and "PATH" in msg and "HOME" in msg
    assert "only GPU-related" not in msg
