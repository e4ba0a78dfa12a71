"""util-linux ``getopt`` as argtrace computes it (``layers/shell/getopt_program.py``), compared with the
real getopt on this machine, and the ``eval set -- "$(getopt ...)"`` idiom compared with bash."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from argtrace.layers.shell.getopt_program import getopt_output
from tests.shell.bash_oracle import argtrace_argv, bash_file_argv

pytestmark = pytest.mark.skipif(shutil.which("getopt") is None, reason="util-linux getopt is not installed")

LONG = ["-o", "m:p:h", "--long", "model:,port:,help,tp::,trust-remote-code"]
INVOCATIONS = [
    [*LONG, "--", "-m", "Qwen/Q", "--port=9000", "x", "it's", "-h", "--mo=3", "-pp"],
    [*LONG, "--", "--model", "a b", "--tp", "--tp=4", "--trust", "rest", "--", "-m"],
    [*LONG, "--", "-hm", "m", "-p", "1", "--help"],
    [*LONG, "--"],
    [*LONG, "--", "--port"],  # missing argument: an error
    [*LONG, "--", "--x"],  # unknown option
    [*LONG, "--", "--model=a", "--mod", "b", "-"],
    ["-o", "+a:", "--", "x", "-a", "1"],
    ["-o", "a:", "-u", "--", "-a", "b c", "d"],
    ["-a", "-o", "a", "-l", "long:", "--", "-long", "3", "-a"],
    ["-o", "a", "-l", "alpha,alps", "--", "--al"],  # ambiguous
    ["-o", "a", "-l", "alpha,alps", "--", "--alph"],
    ["ab:c::", "-a", "-b", "x", "y", "-cz", "-c"],
    ["-n", "launch.sh", "-o", "", "--", "x", "y"],
    ["--options", "v", "--longoptions=verbose", "--", "-v", "--verbose", "--verb"],
    ["-o", "m:", "-l", "model:", "-l", "port:", "--", "--port", "1", "-m", "$HOME"],
    ["-s", "bash", "-o", "a:", "--", "-a", "x!y"],
    ["-T"],
    ["-o", "-a", "--", "x"],
]


@pytest.mark.parametrize("args", INVOCATIONS, ids=[" ".join(a[:6]) for a in INVOCATIONS])
def test_output_is_getopt_s(args: list[str]) -> None:
    real = subprocess.run(["getopt", *args], capture_output=True, text=True)
    ours = getopt_output(args)
    if real.returncode != 0:
        assert ours is None
    elif ours is not None:
        assert ours == real.stdout


def test_the_usual_invocations_are_computed() -> None:
    assert sum(getopt_output(a) is not None for a in INVOCATIONS) == 14
    assert getopt_output([*LONG, "--", "-m", "Qwen/Q", "--port=9000", "x"]) == (
        " -m 'Qwen/Q' --port '9000' -- 'x'\n"
    )


SCRIPT = """OPTIONS=$(getopt -o m:p:h --long model:,port:,help -- "$@")
if [ $? -ne 0 ]; then
    echo "Invalid arguments"
    exit 1
fi
eval set -- "$OPTIONS"
MODEL="unsloth/Llama-3.2-1B-Instruct"
PORT="8000"
while true; do
    case "$1" in
        -m | --model) MODEL="$2"; shift 2 ;;
        -p | --port) PORT="$2"; shift 2 ;;
        -h | --help) echo "Usage"; exit 0 ;;
        --) shift; break ;;
        *) echo "Unexpected option: $1"; exit 1 ;;
    esac
done
python3 -m sglang.launch_server --model-path "$MODEL" --port "$PORT" "$@"
"""


@pytest.mark.parametrize(
    "args",
    [[], ["-m", "Qwen/Qwen3-8B", "--port=9000"], ["--model", "a b", "extra"], ["--mod", "x", "-p", "1"]],
)
def test_a_script_that_parses_its_options_with_getopt(args: list[str], tmp_path: Path) -> None:
    """A launch script of this shape from a public repository (the getopt batch's idiom), with the
    arguments a user passes: every word as bash gives it."""
    quoted = " ".join("'" + a.replace("'", "'\\''") + "'" for a in args)
    script = f"set -- {quoted}\n{SCRIPT}" if args else SCRIPT
    ours = argtrace_argv(script, tmp_path)
    assert None not in ours
    assert ours == bash_file_argv(script, tmp_path)
