"""resume --follow replays run.log, which holds what commands printed: terminal control sequences
in it (a title change, a screen clear, an OSC 52 clipboard write) are not passed to the terminal."""
from __future__ import annotations

import io

from rocm_wizard.commands.resume import follow
from rocm_wizard.execute import journal as jr
from rocm_wizard.plan.core import Fingerprint, Plan
from rocm_wizard.plan.steps.files import FileContent


def test_follow_strips_control_sequences_from_the_log(tmp_path):
    plan = Plan("rocm-upgrade", "t", [FileContent("one", "one", path="/etc/one", content="1\n")], Fingerprint())
    j = jr.Journal.create(str(tmp_path / "journal.json"), run_id="20260101-000000-1", plan=plan, argv=["--yes"],
                          root="/", backup_dir="/b")
    j.data["state"] = "finished"
    j.save()
    (tmp_path / "run.log").write_text("  | \x1b]0;pwned\x07hello \x1b[2Jworld\n  | \x1b]52;c;ZXZpbA==\x07end\n")
    out = io.StringIO()
    follow(str(tmp_path), j.path, poll=0.01, out=out)
    text = out.getvalue()
    assert "\x1b" not in text and "\x07" not in text, repr(text)
    assert "hello world" in text and "end" in text
