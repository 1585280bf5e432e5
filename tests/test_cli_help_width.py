"""``cli._Formatter``: argparse's help formatter with its default width found without importing
``shutil`` (argparse makes one for every ``add_argument``).  Help texts must come out as argparse's
own formatter writes them, whatever ``COLUMNS`` says."""
from __future__ import annotations

import argparse

import pytest

from rocm_wizard import cli


def _parsers(parser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _parsers(sub)


@pytest.mark.parametrize("columns", [None, "50", "200", "0", "-3", "wide", ""])
def test_help_is_argparse_own_at_any_width(columns, monkeypatch):
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert cli._Formatter("p")._width == argparse.HelpFormatter("p")._width
    parser = cli.build_parser()
    parsers = list(_parsers(parser))
    assert len(parsers) > len(cli.COMMANDS)  # (the sub-commands' parsers are looked at too)
    ours = [p.format_help() for p in parsers]
    assert {p.formatter_class for p in parsers} == {cli._Formatter}
    for p in parsers:
        p.formatter_class = argparse.HelpFormatter
    assert [p.format_help() for p in parsers] == ours


def test_an_explicit_formatter_is_kept():
    parser = cli._Parser(prog="x", formatter_class=argparse.RawDescriptionHelpFormatter)
    assert parser.formatter_class is argparse.RawDescriptionHelpFormatter
    assert cli._Formatter("p", width=33)._width == 33
