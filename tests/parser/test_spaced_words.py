"""A refused word holding a blank and a known flag (layers/parser/spaced_words.py), and a flag written with
extra hyphens (leftovers.py): the parser layer alone, on bundled schemas.

argparse's rule is checked here against the real argparse of this Python (``ArgumentParser._parse_optional``):
a word that does not start with '-', or an option-like word with a blank in it, is a positional.
"""

from __future__ import annotations

import argparse

import pytest

from argtrace.frameworks.schema import load_schema
from argtrace.layers.parser import parse_server_args
from argtrace.model import Finding

from .helpers import server, word

VLLM = "0.33.0"
SGLANG = "0.5.23"


def findings(args: list[object], entrypoint: str = "vllm serve", version: str = VLLM) -> list[Finding]:
    framework = "vllm" if entrypoint.startswith("vllm") else "sglang"
    return parse_server_args(server(args, entrypoint=entrypoint), load_schema(framework, version)).findings  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["--max-model-len 8192", " --max-model-len=8", "--enforce-eager "])
def test_argparse_leaves_a_word_with_a_blank_over(text: str) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-model-len")
    parser.add_argument("--enforce-eager", action="store_true")
    assert parser.parse_known_args([text])[1] == [text]


def test_a_flag_and_its_value_in_one_word() -> None:
    (f,) = findings(["Qwen/Qwen3-8B", "--port 8001"])
    assert (f.code, f.severity, f.setting) == ("PA001", "error", None)
    assert f.message == (
        "'--port 8001' (after Qwen/Qwen3-8B) is not a value of any flag: it is one word holding 2 (`--port`, "
        "`8001`), and argparse takes an option-like word with a blank in it for a value, not for the option "
        "--port, so --port never gets its value; vllm 0.33.0 rejects it with "
        '"unrecognized arguments" (exit 2)'
    )
    assert f.fix == (
        "give each of `--port`, `8001` its own word (a list item each, or unquoted on a shell line)"
    )


def test_a_blank_before_a_flag_of_sglang() -> None:
    (f,) = findings(["--model-path", "/m", " --tp-size=2"], entrypoint="sglang.launch_server", version=SGLANG)
    assert f.message.startswith(
        "' --tp-size=2' (after /m) is not a value of any flag: the word starts with a blank"
    )
    assert f.fix == "delete the blank before --tp-size=2"


def test_vllm_s_underscore_spelling_counts_as_the_flag() -> None:
    (f,) = findings(["Qwen/Qwen3-8B", " --max_model_len=8192"])
    assert "not for the option --max-model-len" in f.message
    assert f.fix == "delete the blank before --max_model_len=8192"


def test_a_double_quoted_expansion_is_named_in_the_fix() -> None:
    quoted = word("--max-model-len 8192 --port 8001", 26, expansion='"$ARGS"')
    (f,) = findings(["Qwen/Qwen3-8B", quoted])
    assert f.fix == (
        'write $ARGS without the double quotes (or keep the flags in a bash array and pass "${NAME[@]}"), so '
        "that the shell splits it into 4 words"
    )


def test_a_word_with_a_blank_and_no_known_flag_keeps_the_old_reading() -> None:
    # a stray value with a blank in it (no flag inside): nothing to split, the leftover finding as before
    (f,) = findings(["Qwen/Qwen3-8B", "hello world"])
    assert f.message.startswith("'hello world' (after Qwen/Qwen3-8B) is not a value of any flag: vllm 0.33.0")
    assert f.fix == "quote the value with the flag before it, or remove the stray word"


def test_extra_hyphens_keep_the_dotted_key_in_the_fix() -> None:
    """vllm-project/recipes PR#90: `----limit-mm-per-prompt.video` (the nearest flag alone dropped "
    "`.video`)."""
    (f,) = findings(["Qwen/Qwen3-VL-8B-Instruct", "----limit-mm-per-prompt.video", "0"])
    assert (f.code, f.severity, f.setting) == ("PA001", "error", "limit_mm_per_prompt")
    assert f.message == (
        "----limit-mm-per-prompt has 4 hyphens; vllm 0.33.0 knows --limit-mm-per-prompt and rejects "
        '----limit-mm-per-prompt with "unrecognized arguments" (exit 2)'
    )
    assert f.fix == "write --limit-mm-per-prompt.video"


def test_three_hyphens_on_sglang() -> None:
    args = ["--model-path", "/m", "---tp-size", "2"]
    (f,) = findings(args, entrypoint="sglang.launch_server", version=SGLANG)
    assert (f.message.split(";")[0], f.fix) == ("---tp-size has 3 hyphens", "write --tp-size")
