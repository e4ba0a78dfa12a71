"""A Python program a script runs with words its own argparse parser reads (``python3 launch.py --model m
--tp 2`` running ``args = parser.parse_args()`` then ``subprocess.run([..., str(args.tp)])``):
layers/transport/python_argparse.py builds Python's own parser from the program's literal calls and reads
the words with it. Each line runs for real under bash and Python with a stand-in ``vllm`` that records its
words (tests/shell/test_python_program.py's fixture); argtrace must predict exactly what the stand-in saw,
without running anything itself, or leave the value unknown where the module docstring says it does."""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.layers.shell import ScriptSource, analyze_script
from tests.shell.test_python_program import predicted, run_real, stand_in  # noqa: F401 (the fixture)

LAUNCH = """\
import argparse
import subprocess


def parse_args():
    parser = argparse.ArgumentParser(description="start the server")
    parser.add_argument("--model", default="org/default", help="the model: 100%% local")
    parser.add_argument("--tp", type=int, default=1)
    parser.add_argument("--max-model-len", dest="max_len", type=int, default=4096)
    group = parser.add_argument_group("serving")
    group.add_argument("--eager", action="store_true")
    group.add_argument("--dtype", choices=["auto", "bfloat16"], default="auto")
    return parser.parse_args()


def main():
    args = parse_args()
    cmd = ["vllm", "serve", args.model, "--tensor-parallel-size", str(args.tp), "--max-model-len",
           str(args.max_len), "--dtype", args.dtype]
    if args.eager:
        cmd.append("--enforce-eager")
    subprocess.run(cmd, check=True)


if __name__ == "__main__":
    main()
"""

# the parser handed to other code, which may add options this file does not show
HANDED = """\
import argparse, subprocess
import extra
parser = argparse.ArgumentParser()
parser.add_argument("--model", default="org/default")
extra.add_options(parser)
args = parser.parse_args()
subprocess.run(["vllm", "serve", args.model], check=True)
"""

# a default the file reads from the environment; an f-string command run by the shell
FROM_ENV = """\
import argparse, os, subprocess
parser = argparse.ArgumentParser()
parser.add_argument("--model", default=os.environ.get("MODEL_PATH", "org/env"))
parser.add_argument("--port", type=int, default=8000)
args = parser.parse_args()
subprocess.run(f"vllm serve {args.model} --port {args.port}", shell=True, check=True)
"""


@pytest.fixture
def programs(stand_in: Path) -> Path:  # noqa: F811 (the fixture, used by name)
    (stand_in / "launch.py").write_text(LAUNCH)
    (stand_in / "handed.py").write_text(HANDED)
    (stand_in / "from_env.py").write_text(FROM_ENV)
    return stand_in


LINES = [
    ("python3 launch.py", ["serve org/default --tensor-parallel-size 1 --max-model-len 4096 --dtype auto"]),
    (
        "python3 launch.py --model /m/q --tp 4 --eager",
        ["serve /m/q --tensor-parallel-size 4 --max-model-len 4096 --dtype auto --enforce-eager"],
    ),
    # `--max-model-len=8192` and an abbreviation argparse accepts (`--dt` for `--dtype`)
    (
        "python3 launch.py --max-model-len=8192 --dt bfloat16",
        ["serve org/default --tensor-parallel-size 1 --max-model-len 8192 --dtype bfloat16"],
    ),
    # the script's own variables give the words
    (
        'TP=8; M=/models/x; python3 -u launch.py --tp "$TP" --model "$M"',
        ["serve /models/x --tensor-parallel-size 8 --max-model-len 4096 --dtype auto"],
    ),
    ("python3 from_env.py --model /m/e --port 9", ["serve /m/e --port 9"]),
    # a default read from the environment is the script's variable, as the program's other reads
    ("python3 from_env.py --port 9", ["serve org/env --port 9"]),
    ("MODEL_PATH=/m/s python3 from_env.py", ["serve /m/s --port 8000"]),
]


@pytest.mark.parametrize(("line", "servers"), LINES, ids=[line for line, _s in LINES])
def test_the_words_the_programs_argparse_reads(programs: Path, line: str, servers: list[str]) -> None:
    assert run_real(line, programs) == servers  # what bash, Python and argparse do
    assert predicted(line, programs) == servers  # what argtrace reads, running nothing


def _argv(line: str, cwd: Path) -> list[list[str | None]]:
    result = analyze_script(
        ScriptSource("<-c>", line.encode(), None), [], {}, run_shellcheck=False, cwd=str(cwd)
    )
    return [[w.text for w in server.argv] for server in result.servers]


def test_words_argparse_refuses_leave_the_values_unknown(programs: Path) -> None:
    # argparse exits with its usage message (`invalid choice: 'fp8'`); no value is guessed
    assert _argv("python3 launch.py --dtype fp8", programs) == [
        [
            "vllm",
            "serve",
            None,
            "--tensor-parallel-size",
            None,
            "--max-model-len",
            None,
            "--dtype",
            None,
            None,
        ]
    ]
    result = analyze_script(
        ScriptSource("<-c>", b"python3 launch.py --dtype fp8", None),
        [],
        {},
        run_shellcheck=False,
        cwd=str(programs),
    )
    said = [f.message for f in result.findings if f.code == "TP094" and f.message.startswith("`args.tp`")]
    assert said == [
        "`args.tp` in a Python launch is not known before the program runs: the program's argparse refuses "
        "its words and exits: argument --dtype: invalid choice: 'fp8' (choose from 'auto', 'bfloat16')"
        "; the server's words made from it are not checked"
    ]


def test_a_word_the_script_leaves_unknown_leaves_every_value_unknown(programs: Path) -> None:
    # `$N`: a variable of the environment the script runs in, not known here
    assert _argv('python3 launch.py --tp "$N"', programs) == [
        [
            "vllm",
            "serve",
            None,
            "--tensor-parallel-size",
            None,
            "--max-model-len",
            None,
            "--dtype",
            None,
            None,
        ]
    ]


def test_a_parser_handed_to_other_code_is_not_followed(programs: Path) -> None:
    assert _argv("python3 handed.py --model /m/h", programs) == [["vllm", "serve", None]]


def test_a_planted_parser_is_bounded(tmp_path: Path) -> None:
    # argparse builds a pattern `nargs` long: a billion would fill memory; such a parser is not followed
    from argtrace.layers.transport.python_launch import read_python_launch

    program = (
        "import argparse, subprocess\n"
        "p = argparse.ArgumentParser()\n"
        'p.add_argument("--model", nargs=10**9)\n'
        "args = p.parse_args()\n"
        'subprocess.run(["vllm", "serve", *args.model])\n'
    )
    launch = read_python_launch("p.py", program.encode(), shell_reads=True, argv=["--model", "m"])
    assert launch.script.strip() == b'vllm serve "${PY_args_model}"'
