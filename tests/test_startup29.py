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

from argtrace.layers.shell import core, textfilters

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
)
LAUNCH = "python3 -m sglang.launch_server --model-path"


def test_the_text_utilities_named_in_core_are_textfilters_table() -> None:
    # core.TEXT_FILTERS decides, without importing textfilters.py, whether a command's output is evaluated
    assert core.TEXT_FILTERS == textfilters.TEXT_FILTERS == frozenset(textfilters._FILTERS)


def test_the_raise_site_directory_start_raises_reads_is_raise_index_s() -> None:
    # start_raises._combination_sites names the directory without importing raise_index.py (a kept copy
    # of the combinations needs no index read): the same directory, so the same files and the same key
    from argtrace.package_data import package_file
    from argtrace.resolver.raise_index import RAISE_DIR

    assert package_file("frameworks/data/raise_sites") == RAISE_DIR
    assert str(package_file("frameworks/data/raise_sites")) == str(RAISE_DIR)


def _check(tmp_path: Path, script: str, extra: dict[str, str] | None = None) -> list[object]:
    """The servers' argv, the findings' codes and which of DEFERRED are imported, for a check of ``script``
    in a fresh interpreter."""
    for name, text in (extra or {}).items():
        (tmp_path / name).write_text(text)
    (tmp_path / "launch.sh").write_text(script)
    code = (
        "import contextlib, io, json, sys\n"
        "from argtrace.cli import main\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        "    main(['check', '--format', 'json', '--no-resolve', '--no-shellcheck', 'launch.sh'])\n"
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
    servers, found, modules = _check(tmp_path, script, extra)
    assert [a[-len(argv) :] for a in servers] == [argv]  # type: ignore[index]
    assert found == codes
    assert modules == imported
