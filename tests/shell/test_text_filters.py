"""``wc``, ``tr``, ``cut``, ``head``, ``tail`` and ``paste -s`` on text the script gives them, against the
real GNU coreutils on the same input, and the GPU-counting idioms of launch scripts against bash.

Before (session 26), ``NUM=$(echo $CUDA_VISIBLE_DEVICES | tr ',' '\\n' | wc -l)`` and ``$(seq 0 3 | paste
-sd,)`` were unknown, so ``--tp-size $NUM`` could not be checked against the model or the GPUs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from argtrace.layers.shell.textfilters import text_filter
from tests.shell.bash_oracle import argtrace_argv, bash_file_argv

INPUTS = ["0,1,2,3\n", "a b\nc\n", "a:b:c\nno-delim\n", "Qwen/Qwen3-8B\n", "x", "", "1\n2\n3\n4\n5\n6\n"]

FORMS = [
    ["wc", "-l"],
    ["wc", "-c"],
    ["wc", "-w"],
    ["tr", ",", "\\n"],
    ["tr", "-d", ","],
    ["tr", "-cd", ","],
    ["tr", "-cd", "a-z\\n"],
    ["tr", "[:upper:]", "[:lower:]"],
    ["tr", "a-z", "A-Z"],
    ["tr", "abc", "x"],
    ["tr", "/", "_"],
    ["cut", "-d:", "-f2"],
    ["cut", "-d", ":", "-f", "2-"],
    ["cut", "-d/", "-f1,2"],
    ["cut", "-c", "2-4"],
    ["cut", "-c-2"],
    ["head", "-n", "2"],
    ["head", "-1"],
    ["head"],
    ["tail", "-n", "1"],
    ["tail", "-n", "+3"],
    ["tail", "-2"],
    ["paste", "-sd,"],
    ["paste", "-s", "-d", " "],
    ["paste", "-s"],
]


@pytest.mark.parametrize("form", FORMS, ids=" ".join)
def test_each_form_prints_what_coreutils_prints(form: list[str]) -> None:
    for text in INPUTS:
        real = subprocess.run(form, input=text, capture_output=True, text=True, timeout=10, check=True).stdout
        assert text_filter(form[0], form[1:], text) == real, (form, text)


@pytest.mark.parametrize(
    "form",
    [
        ["tr", "-s", ","],
        ["wc", "-l", "file"],
        ["cut", "-s", "-d,", "-f2"],
        ["sort"],
        ["head", "-c", "3"],
        ["tr", "[a*3]", "x"],
    ],
    ids=" ".join,
)
def test_forms_not_read_are_unknown(form: list[str]) -> None:
    assert text_filter(form[0], form[1:], "a,,b\n") is None


def test_unknown_or_non_ascii_input_is_unknown() -> None:
    assert text_filter("wc", ["-l"], None) is None
    assert text_filter("wc", ["-c"], "caf\u00e9\n") is None  # bytes or characters: the locale decides


SERVER = "python3 -m sglang.launch_server --model-path m"


@pytest.mark.parametrize(
    "script",
    [
        "export CUDA_VISIBLE_DEVICES=0,1,2,3\nNUM=$(echo $CUDA_VISIBLE_DEVICES | tr ',' '\\n' | wc -l)\n"
        + SERVER
        + " --tp-size $NUM",
        'G="0,1"\n' + SERVER + " --tp-size $(( $(echo $G | tr -cd , | wc -c) + 1 ))",
        SERVER + ' --served-model-name "$(seq 0 7 | head -n 4 | paste -sd,)"',
        SERVER + ' --served-model-name "$(echo Qwen/Qwen3-8B | cut -d/ -f2 | tr "[:upper:]" "[:lower:]")"',
        SERVER + ' --served-model-name "$(cut -d, -f1 <<< "7,8")"',
    ],
)
def test_launch_idioms_equal_bash(script: str, tmp_path: Path) -> None:
    predicted = argtrace_argv(script, tmp_path)
    assert None not in predicted
    assert predicted == bash_file_argv(script, tmp_path)
