"""What start-up defers (issue 18) gives what the standard library gives: ``Path.as_uri`` with
``urllib.parse`` imported late (deferred_stdlib.py), argparse's help at any width without ``shutil``
(help_format.py), ``localfs.which`` against ``shutil.which``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from argtrace.localfs import which

SRC = str(Path(__file__).resolve().parent.parent / "src")


def test_pathlib_imported_without_urllib_parse_still_makes_uris() -> None:
    code = (
        "import sys\n"
        "from argtrace.deferred_stdlib import import_pathlib\n"
        "pathlib = import_pathlib()\n"
        "print(sorted({'urllib.parse', 'ipaddress'} & set(sys.modules)))\n"
        "print(pathlib.PurePosixPath('/tmp/a b/é').as_uri(), pathlib.PureWindowsPath('c:/x y').as_uri())\n"
        "import urllib.parse\n"
        "print(type(urllib.parse).__name__, urllib.parse.urlsplit('http://h:1/p').port)\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, PYTHONPATH=SRC),
    )
    deferred = "[]" if sys.version_info < (3, 13) else done.stdout.splitlines()[0]
    assert done.stdout.splitlines() == [
        deferred,
        "file:///tmp/a%20b/%C3%A9 file:///c:/x%20y",
        "module 1",
    ]


@pytest.mark.parametrize("columns", ["40", "80", "123"])
def test_the_help_formatter_wraps_as_argparse_does(columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    from argtrace.help_format import HelpFormatter

    monkeypatch.setenv("COLUMNS", columns)

    def parser(formatter: type[argparse.HelpFormatter]) -> argparse.ArgumentParser:
        built = argparse.ArgumentParser(prog="argtrace check", formatter_class=formatter)
        built.add_argument("--format", choices=["text", "json"], help="output format " * 12)
        built.add_argument("script", help="the launch script " * 6)
        return built

    assert parser(HelpFormatter).format_help() == parser(argparse.HelpFormatter).format_help()


def test_which_finds_what_shutil_which_finds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second, directory = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for folder in (first, second, directory):
        folder.mkdir()
    (first / "tool").write_text("")  # not executable
    (second / "tool").write_text("#!/bin/sh\n")
    (second / "tool").chmod(0o755)
    (directory / "tool").mkdir()  # a directory is no command
    names = ["tool", "bash", "sh", "no-such-command-here", "a/tool"]
    for path in (
        os.pathsep.join(map(str, (first, directory, second))),
        os.pathsep.join(map(str, (second, second))),
        "",
        os.environ.get("PATH", ""),
    ):
        monkeypatch.setenv("PATH", path)
        assert [which(n) for n in names] == [shutil.which(n) for n in names], path
    monkeypatch.delenv("PATH")
    assert [which(n) for n in names] == [shutil.which(n) for n in names]
