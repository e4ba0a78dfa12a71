"""Secrets the probe of session 13 found in reports: pieces of a secret word its spelling left visible.

- ``--admin-api-key 'LeakProbe'"Odd"'Quoted'CCCC``: the redactor read the first quoted piece as the value,
  and every source line the report quotes (shellcheck's evidence) showed ``"Odd"'Quoted'CCCC``, 14 of the
  secret's 22 characters.
- ``--hf-token ${KEY_PART}AAAABBBB``: the word's value was masked, but its ``expansion`` (the spelling) was
  printed beside it in ``servers[].words`` and the setting's history, with the secret's literal tail.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.redact import mask, redact_text, secrets_in_text
from tests.conftest import run_cli

FORMATS = ("text", "json", "sarif", "github", "gcc", "junit", "json-lines")
ODD = "LeakProbeOddQuotedCCCC"
ODD_WORD = "'LeakProbe'\"Odd\"'Quoted'CCCC"
SPLIT_TAIL = "AAAABBBB"


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "launch.sh"
    path.write_text(
        "#!/bin/bash\n"
        "KEY_PART=hf_\n"
        "python3 -m sglang.launch_server --model-path m --tp-size 2 \\\n"
        "  --admin-api-key 'LeakProbe'\"Odd\"'Quoted'CCCC \\\n"
        f"  --api-key ${{KEY_PART}}{SPLIT_TAIL}\n"
    )
    return path


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_piece_of_a_secret_word_is_shown(script: Path, fmt: str) -> None:
    result = run_cli(["check", "--no-resolve", "--no-shellcheck", "--format", fmt, str(script)])
    out = result.stdout + result.stderr
    for piece in (ODD, "'LeakProbe'", "OddQuoted", "'Quoted'CCCC", SPLIT_TAIL):
        assert piece not in out, f"{piece!r} shown in {fmt}"


def test_shellcheck_evidence_masks_the_whole_word(script: Path) -> None:
    result = run_cli(["check", "--no-resolve", "--format", "json", str(script)])
    assert "SC1011" in result.stdout  # shellcheck quotes the line: `'LeakProbe'"Odd"` ends a quoted string
    assert f"--admin-api-key {mask(ODD_WORD)} " in result.stdout.replace('\\"', '"')


@pytest.mark.parametrize(
    ("text", "shown", "learned"),
    [
        (
            "--admin-api-key 'LeakProbe'\"Odd\"'Quoted'CCCC \\",
            "--admin-api-key {} \\",
            {"'LeakProbe'\"Odd\"'Quoted'CCCC", ODD},
        ),
        ('HF_TOKEN="hf_"abc rest', "HF_TOKEN={} rest", {'"hf_"abc', "hf_abc"}),
        ('--api-key "$P"tail next', "--api-key {} next", {'"$P"tail', "$Ptail"}),
    ],
)
def test_a_word_of_several_pieces_is_one_value(text: str, shown: str, learned: set[str]) -> None:
    word = text.split("=", 1)[1] if text.startswith("HF") else text.split(" ", 1)[1]
    assert redact_text(text) == shown.format(mask(word.split(" ")[0]))
    assert secrets_in_text(text) == learned


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("--api-key 'abc' --tp 2", "--api-key '{}' --tp 2"),  # one quoted piece: its inside, as before
        ("API_KEY=$'xyz1' y", "API_KEY=$'{}' y"),
    ],
)
def test_a_word_of_one_piece_keeps_its_quotes(text: str, shown: str) -> None:
    inner = text.split("'")[1]
    assert redact_text(text) == shown.format(mask(inner))


def test_an_mcp_tool_error_masks_the_rejected_arguments_secrets() -> None:
    """The MCP SDK writes a rejected argument's value into its validation error before argtrace runs."""
    import asyncio

    from argtrace.mcp_server import ToolError, build_server

    server = build_server(30.0)
    secret = "LeakProbeCliEnvValue66"
    arguments = {"command": "python3 -m sglang.launch_server --model-path m", "env": [f"HF_TOKEN={secret}"]}
    with pytest.raises(ToolError) as raised:
        asyncio.run(server.call_tool("check", arguments))
    text = str(raised.value)
    assert secret not in text
    assert f"input_value=['HF_TOKEN={mask(secret)}']" in text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("--hf-token is a vLLM flag; SGLang rejects it", "--hf-token is a vLLM flag; SGLang rejects it"),
        ("--api-key and --tp are given", "--api-key and --tp are given"),
        ("--api-key=is", f"--api-key={mask('is')}"),  # `=` binds: a value, however short
        ("--api-key abcdef is", f"--api-key {mask('abcdef')} is"),
    ],
)
def test_prose_after_a_secret_flag_is_no_value(text: str, shown: str) -> None:
    # before: `is` was masked, then masked as a whole word everywhere in the report ("This word <redacted>")
    assert redact_text(text) == shown


def test_a_report_that_names_a_secret_flag_in_prose_stays_readable(tmp_path: Path) -> None:
    script = tmp_path / "launch.sh"
    script.write_text("python3 -m sglang.launch_server --model-path m --hf-token hf_abcdefghijklmnopqrstu1\n")
    result = run_cli(["check", "--no-resolve", "--no-shellcheck", str(script)])
    assert "--hf-token is a vLLM flag" in result.stdout
    assert "hf_abcdefghijklmnopqrstu1" not in result.stdout
