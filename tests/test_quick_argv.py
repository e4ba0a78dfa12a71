"""`log`'s words read without argparse (argtrace/quick_argv.py): the tables are the parser's, and every
command line it reads gives argparse's namespace, in argparse's order; the others go through argparse."""

from __future__ import annotations

import argparse
import contextlib
import io
import random
from pathlib import Path

import pytest

from argtrace import cli, quick_argv
from argtrace.commands import QUICK_COMMANDS
from argtrace.commands import log as log_command

LOGS = Path(__file__).resolve().parent / "data" / "logs"


def _specs_of(parser: argparse.ArgumentParser) -> list[tuple[object, ...]]:
    """The (dest, action, option string, default, choices) of each of the parser's own options."""
    out = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)):
            continue
        kinds = {
            argparse._StoreAction: quick_argv.VALUE,
            argparse._StoreTrueAction: quick_argv.FLAG,
            argparse._AppendAction: quick_argv.APPEND,
        }
        assert type(action) in kinds, action  # another action: quick_argv must learn it first
        assert action.nargs in (None, 0) and action.type is None and action.const in (None, True), action
        assert len(action.option_strings) <= 1, action  # one spelling each (no short options)
        option = action.option_strings[0] if action.option_strings else None
        choices = tuple(action.choices) if action.choices is not None else None
        out.append((action.dest, kinds[type(action)], option, action.default, choices))
    return out


def _argparse_namespace(words: list[str]) -> argparse.Namespace | None:
    """What the CLI's parser gives (None: it exits, a usage error or help)."""
    commands = cli._load_commands()
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            return cli._parse(words, commands)
        except SystemExit:
            return None


def test_the_quick_tables_are_the_parsers_own() -> None:
    commands = cli._load_commands(("log",))
    parser = cli.build_parser(commands, only="log")
    assert QUICK_COMMANDS == ("log",)
    assert _specs_of(parser) == list(quick_argv.GLOBAL_SPECS)
    assert _specs_of(cli._subparser(parser, "log")) == [*quick_argv.common_specs(), *log_command.QUICK_SPECS]


def test_plain_command_lines_are_read_as_argparse_reads_them() -> None:
    plain = [
        ["x.log"],
        ["x.log", "--format", "json", "--launch", "all"],
        ["--format=json", "x.log", "--launch=2"],
        ["x.log", "--expect", "mamba_scheduler=on", "--expect=tp_size=2", "--verbose", "--show-secrets"],
        ["x.log", "--framework", "vllm", "--setting", "mamba", "--all-settings", "--fail-on", "never"],
        ["--launched-after", "2026-11-30T08:00:00", "x.log", "--baseline", "b.json", "--write-baseline", "w"],
        ["x.log", "--format", "text", "--format", "sarif", "--show-config", "--show-suppressed"],
        ["a=b"],
    ]
    for words in plain:
        quick = log_command.quick_parse(words)
        real = _argparse_namespace(["log", *words])
        assert quick is not None and real is not None, words
        assert list(vars(quick).items()) == list(vars(real).items()), words
        assert repr(quick) == repr(real)
        assert ("log" in quick, "nothing" in quick) == (True, False)
        assert quick == quick_argv.Namespace(**vars(real))
    args = log_command.quick_parse(["x.log"])
    assert args is not None and args.expect == [] and args.ssh_option == []
    assert args.expect is not log_command.quick_parse(["x.log"]).expect  # type: ignore[union-attr]


def test_what_is_not_plain_goes_through_argparse() -> None:
    for words in (
        [],  # the positional is required: argparse's usage error
        ["x.log", "y.log"],  # unrecognized arguments
        ["x.log", "-h"],
        ["x.log", "--help"],
        ["x.log", "--launch", "-1"],  # argparse reads a negative number as a value
        ["x.log", "--launch=-1"],
        ["x.log", "--launch"],  # expected one argument
        ["x.log", "--format", "yaml"],  # invalid choice
        ["x.log", "--framework=tgi"],
        ["x.log", "--verbose=yes"],  # ignored explicit argument
        ["x.log", "--laun", "2"],  # no abbreviations (allow_abbrev=False): argparse's error
        ["x.log", "--gpu", "H100"],  # another command's option
        ["--", "x.log"],
        ["-"],
        ["x.log", "--setting", ""],
        ["x.log", "--setting="],
    ):
        assert log_command.quick_parse(words) is None, words


def test_random_command_lines_give_argparses_namespace_or_go_to_it() -> None:
    pieces = [
        *("x.log", "y.log", "", "a=b", "-", "--", "-h", "-1", "2", "all", "json", "vllm", "tgi"),
        *("--format", "--format=json", "--format=bogus", "--launch", "--launch=-1", "--launch=3"),
        *("--verbose", "--verbose=1", "--show-secrets", "--expect", "--expect=c=d", "--framework"),
        *("--fail-on", "never", "--setting", "--all-settings", "--laun", "--host", "--ssh-option"),
        *("--baseline", "--launched-after", "--show-config", "--unknown", "--framework=sglang"),
    ]
    rng = random.Random(29)
    read = 0
    for _ in range(3000):
        words = [rng.choice(pieces) for _ in range(rng.randrange(0, 7))]
        quick = log_command.quick_parse(words)
        if quick is None:
            continue
        read += 1
        real = _argparse_namespace(["log", *words])
        assert real is not None, words
        assert list(vars(quick).items()) == list(vars(real).items()), words
    assert read == 212


@pytest.mark.parametrize(
    ("words", "status"), [(["--format", "json", "--launch", "all"], 1), (["--format", "yaml"], 2), ([], 2)]
)
def test_the_cli_prints_the_same_with_and_without_the_quick_reading(
    words: list[str], status: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = str(LOGS / "vllm_issue25837_free_memory.log")
    argv = ["log", log, *words] if words != [] else ["log"]

    def run() -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.main(argv)
        return status, out.getvalue(), err.getvalue()

    quick = run()
    monkeypatch.setattr(cli, "QUICK_COMMANDS", ())
    assert run() == quick
    assert quick[0] == status  # the log's error finding: 1; a usage error: 2
