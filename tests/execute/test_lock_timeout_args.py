"""--lock-timeout takes a number of seconds between 0 and 86400: nan, inf and negatives are a
usage error (argparse's, which the CLI turns into exit 64) for resume as for apply."""
from __future__ import annotations

import argparse

import pytest

from rocm_wizard.commands import apply, resume


@pytest.mark.parametrize("command", [resume, apply])
@pytest.mark.parametrize("value", ["nan", "inf", "-5"])
def test_a_lock_timeout_that_is_no_duration_is_refused(command, value, capsys):
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    with pytest.raises(SystemExit):
        parser.parse_args(["--lock-timeout", value])
    assert "--lock-timeout" in capsys.readouterr().err
    assert parser.parse_args(["--lock-timeout", "10"]).lock_timeout == 10.0
