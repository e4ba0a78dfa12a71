"""Start-up, session 29 (issue 18): modules a check of the shipped example never calls into are imported
where first needed. Each input here needs one of them: it is imported then, and the check's answer (the
server's words, the findings) is what the shell and parser layers make of it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from argtrace.frameworks import sglang_router
from argtrace.layers.shell import core, file_kinds, makefile, markdown, textfilters

SRC = str(Path(__file__).resolve().parent.parent / "src")
DEFERRED = (
    "argtrace.frameworks.vanished",
    "argtrace.layers.shell.childenv",
    "argtrace.layers.parser.spaced_words",
    "argtrace.layers.shell.textfilters",
    "argtrace.layers.shell.pattern_views",
    "argtrace.layers.shell.holes",
    "argtrace.layers.shell.outputs",
    "argtrace.layers.shell.printf_format",
    "argtrace.layers.shell.envlines",
    "argtrace.layers.shell.makefile",
    "argtrace.layers.shell.markdown",
    "argtrace.frameworks.sglang_router",
)
LAUNCH = "python3 -m sglang.launch_server --model-path"


def test_the_text_utilities_named_in_core_are_textfilters_table() -> None:
    # core.TEXT_FILTERS decides, without importing textfilters.py, whether a command's output is evaluated
    assert core.TEXT_FILTERS == textfilters.TEXT_FILTERS == frozenset(textfilters._FILTERS)


@pytest.mark.parametrize(
    ("label", "data", "is_makefile", "is_markdown"),
    [
        ("Makefile", b"run:\n", True, False),
        ("dir/GNUmakefile", b"", True, False),
        ("serve.mk", b"", True, False),
        ("Makefile", b"#!/usr/bin/make -f\n", False, False),
        ("README.md", b"# x\n", False, True),
        ("docs/Guide.MARKDOWN", b"", False, True),
        ("launch.md", b"#!/bin/bash\n", False, False),
        ("launch.sh", b"", False, False),
        ("makefile.sh", b"", False, False),
    ],
)
def test_what_a_file_is_by_its_name_is_asked_without_its_reader(
    label: str, data: bytes, is_makefile: bool, is_markdown: bool
) -> None:
    # check.py asks file_kinds; the readers' own names are the same functions
    assert makefile.is_makefile is file_kinds.is_makefile and markdown.is_markdown is file_kinds.is_markdown
    assert file_kinds.is_makefile(label, data) is is_makefile
    assert file_kinds.is_markdown(label, data) is is_markdown


def test_the_router_entry_point_begins_as_rank_placement_tests_it() -> None:
    # rank_placement.router_replicas_over_nodes imports sglang_router.py only for such an entry point
    assert sglang_router.ENTRYPOINT.startswith("sglang_router.")


def test_the_raise_site_directory_start_raises_reads_is_raise_index_s() -> None:
    # start_raises._combination_sites names the directory without importing raise_index.py (a kept copy
    # of the combinations needs no index read): the same directory, so the same files and the same key
    from argtrace.package_data import package_file
    from argtrace.resolver.raise_index import RAISE_DIR

    assert package_file("frameworks/data/raise_sites") == RAISE_DIR
    assert str(package_file("frameworks/data/raise_sites")) == str(RAISE_DIR)


def test_a_check_with_its_kept_combinations_current_reads_no_raise_site_index(tmp_path: Path) -> None:
    # the first check in an empty data cache builds the combinations from the index (raise_index.py);
    # the next one reads the kept copy alone, with the same findings
    example = str(Path(__file__).resolve().parent.parent / "examples" / "launch_mtp.sh")
    code = (
        "import contextlib, io, json, sys\n"
        "from argtrace.cli import main\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        f"    main(['check', '--format', 'json', '--no-resolve', '--no-shellcheck', {example!r}, '0', '3'])\n"
        "codes = sorted(f['code'] for f in json.loads(buf.getvalue())['findings'])\n"
        "print(json.dumps([codes, 'argtrace.resolver.raise_index' in sys.modules]))\n"
    )
    env = dict(os.environ, PYTHONPATH=SRC, ARGTRACE_WARM="0", XDG_CACHE_HOME=str(tmp_path / "cache"))
    env.pop("ARGTRACE_CACHE_DIR", None), env.pop("ARGTRACE_DATA_CACHE", None)
    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", code],
                capture_output=True,
                text=True,
                env=env,
                cwd=tmp_path,
                check=True,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        for _ in range(2)
    ]
    assert runs == [[["PA005", "PR011", "SH004"], True], [["PA005", "PR011", "SH004"], False]]


def _check(
    tmp_path: Path, script: str, extra: dict[str, str] | None = None, name: str = "launch.sh"
) -> list[object]:
    """The servers' argv, the findings' codes and which of DEFERRED are imported, for a check of ``script``
    in a fresh interpreter."""
    for other, text in (extra or {}).items():
        (tmp_path / other).write_text(text)
    (tmp_path / name).write_text(script)
    code = (
        "import contextlib, io, json, sys\n"
        "from argtrace.cli import main\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        f"    main(['check', '--format', 'json', '--no-resolve', '--no-shellcheck', {name!r}])\n"
        "d = json.loads(buf.getvalue())\n"
        "print(json.dumps([[s['argv'] for s in d['servers']], sorted(f['code'] for f in d['findings']),\n"
        f"    sorted(m for m in {DEFERRED!r} if m in sys.modules)]))\n"
    )
    env = dict(os.environ, PYTHONPATH=SRC, ARGTRACE_WARM="0", XDG_CACHE_HOME=str(tmp_path / "cache"))
    env.pop("ARGTRACE_CACHE_DIR", None), env.pop("ARGTRACE_DATA_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, check=True
    )
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    ("script", "extra", "argv", "codes", "imported"),
    [
        (  # a text utility on the script's own text (stdin_text.filter_output)
            f"N=$(echo 0,1 | tr ',' '\\n' | wc -l)\n{LAUNCH} /m --tp-size $N\n",
            None,
            ["--tp-size", "2"],
            ["PR011"],
            [
                "argtrace.layers.shell.outputs",
                "argtrace.layers.shell.printf_format",
                "argtrace.layers.shell.textfilters",
            ],
        ),
        (  # a `case` statement's patterns (control.run_case)
            f"M=b\ncase $M in\n  a) TP=2 ;;\n  b) TP=4 ;;\nesac\n{LAUNCH} /m --tp-size $TP\n",
            None,
            ["--tp-size", "4"],
            ["PR011"],
            ["argtrace.layers.shell.pattern_views"],
        ),
        (  # printf, echo and dirname in `$(...)`, and `read` (expand._emulate, _pure, inputs)
            'P=$(printf "%d" 8000)\nH=$(echo 0.0.0.0)\nD=$(dirname /a/b/c)\nread -r A B <<< "1 2"\n'
            "python3 -m sglang.launch_server --model-path $D --host $H --port $P --tp-size $B\n",
            None,
            ["--model-path", "/a/b", "--host", "0.0.0.0", "--port", "8000", "--tp-size", "2"],
            ["PR011"],
            ["argtrace.layers.shell.outputs", "argtrace.layers.shell.printf_format"],
        ),
        (  # a child shell (its environment: childenv) and a value known but for an unknown part (holes)
            f"export X=$(hostname)\nbash -c '{LAUNCH} /m --tp-size 2'\n",
            None,
            ["--model-path", "/m", "--tp-size", "2"],
            ["PR011"],
            ["argtrace.layers.shell.childenv", "argtrace.layers.shell.holes"],
        ),
        (  # `sglang serve $MODEL` with MODEL unset: the vanished positional (frameworks/sglang.py)
            "sglang serve $MODEL --tp-size 2\n",
            None,
            ["sglang", "serve", "--tp-size", "2"],
            ["PA029", "PR007", "PR011"],
            ["argtrace.frameworks.vanished"],
        ),
        (  # an unknown flag: the parser's leftovers (spaced_words)
            f"{LAUNCH} /m --tp-sizee 2\n",
            None,
            ["--model-path", "/m", "--tp-sizee", "2"],
            ["PA001", "PR011"],
            ["argtrace.layers.parser.spaced_words"],
        ),
        (  # a sourced file: its lines are read for `NAME=value command` (builtins.b_source, envlines)
            f"source ./env.sh\n{LAUNCH} /m --tp-size $TP\n",
            {"env.sh": "TP=2\n"},
            ["--model-path", "/m", "--tp-size", "2"],
            ["PR011"],
            ["argtrace.layers.shell.envlines"],
        ),
        (  # a Makefile's recipes (check.py: file_kinds, then the reader)
            "PORT ?= 8000\nrun:\n\tpython3 -m sglang.launch_server --model-path /m --port $(PORT)\n",
            {"name": "Makefile"},
            ["--model-path", "/m", "--port", "8000"],
            ["PR011"],
            ["argtrace.layers.shell.makefile"],
        ),
        (  # a Markdown page's shell block that starts a server
            "# Serve\n\n```bash\npython3 -m sglang.launch_server --model-path /m --tp-size 2\n```\n",
            {"name": "README.md"},
            ["--model-path", "/m", "--tp-size", "2"],
            ["PR011"],
            ["argtrace.layers.shell.markdown"],
        ),
        (  # sglang-router's launcher (rank_placement.router_replicas_over_nodes)
            "python3 -m sglang_router.launch_server --model-path /m --dp-size 2\n",
            None,
            ["--model-path", "/m", "--dp-size", "2"],
            ["PR011"],
            ["argtrace.frameworks.sglang_router"],
        ),
    ],
)
def test_a_module_a_plain_check_skips_is_imported_where_the_script_needs_it(
    tmp_path: Path,
    script: str,
    extra: dict[str, str] | None,
    argv: list[str],
    codes: list[str],
    imported: list[str],
) -> None:
    files = dict(extra or {})
    name = files.pop("name", "launch.sh")
    servers, found, modules = _check(tmp_path, script, files, name)
    assert [a[-len(argv) :] for a in servers] == [argv]  # type: ignore[index]
    assert found == codes
    assert modules == imported
