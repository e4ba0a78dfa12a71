"""``argtrace --help`` answers from a generated text (argtrace/static_help.py, issue 18): the text must be
exactly what the real parser prints, and any terminal width it was not generated for gets the parser."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from argtrace import static_help
from argtrace.cli import _load_commands, build_parser
from argtrace.static_help_text import TOP_LEVEL
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
VERSION = f"{sys.version_info[0]}.{sys.version_info[1]}"


def _real_help(monkeypatch: pytest.MonkeyPatch, columns: int) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    return build_parser(_load_commands(), only="").format_help()


def test_the_generated_text_is_the_real_parsers_at_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "3.11" in TOP_LEVEL  # the project's reference interpreter (pyproject's mypy python_version)
    if VERSION not in TOP_LEVEL:
        pytest.skip(f"no text generated for Python {VERSION}: the CLI builds the parser there")
    assert TOP_LEVEL[VERSION] == _real_help(monkeypatch, 80)
    assert TOP_LEVEL[VERSION].startswith("usage: argtrace [-h] [--version] [--host [USER@]HOST[:PORT]]\n")


def test_help_at_80_columns_prints_it_and_builds_no_parser() -> None:
    code = (
        "import sys\n"
        "from argtrace.cli import main\n"
        "status = main(['--help'])\n"
        "mine = sorted(m for m in sys.modules if m.startswith('argtrace') or m == 'argparse')\n"
        "print('MODULES', ' '.join(mine))\n"
        "sys.exit(status)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), COLUMNS="80")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    out, _, modules = done.stdout.rpartition("MODULES ")
    assert out == TOP_LEVEL[VERSION]
    assert modules.split() == [
        "argtrace",
        "argtrace.cli",
        "argtrace.commands",
        "argtrace.static_help",
        "argtrace.static_help_text",
    ]


def test_other_widths_and_other_words_get_the_real_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    wide = _real_help(monkeypatch, 120)
    assert wide != TOP_LEVEL.get(VERSION)  # the width matters: the usage line is one line at 120
    result = run_cli(["--help"])
    assert (result.status, result.stdout) == (0, wide)
    # `-h` and `--help` after a global option are argparse's (the static text covers the bare words only)
    monkeypatch.setenv("COLUMNS", "80")
    assert run_cli(["-h"]).stdout == TOP_LEVEL.get(VERSION, _real_help(monkeypatch, 80))
    assert run_cli(["--host", "node1", "--help"]).stdout == _real_help(monkeypatch, 80)


@pytest.mark.parametrize(
    ("value", "expected"), [("100", 100), ("0", 80), ("-3", 80), ("wide", 80), (None, 80)]
)
def test_columns_follows_shutils_rule(
    monkeypatch: pytest.MonkeyPatch, value: str | None, expected: int
) -> None:
    # stdout is pytest's capture (no terminal), so without a usable COLUMNS the fallback 80 applies
    if value is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", value)
    import shutil

    assert static_help.columns() == expected == shutil.get_terminal_size().columns


def test_the_generator_check_passes() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_help_text.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
