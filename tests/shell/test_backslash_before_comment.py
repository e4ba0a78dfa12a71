"""A backslash followed by blanks and a comment escapes the first blank, not the newline.

Found by the documentation sweep (docs/false_alarms.md, 2026-12-02): vLLM's expert-parallel page comments
each line of a command after its backslash (`--tensor-parallel-size 1 \\      # Tensor parallelism ...`).
bash reads `\\ ` as a word of one space and the `#` after the unescaped blanks as a comment, so the command
ends on that line with an extra argument ` ` (checked: `printf "[%s]\\n" a \\      # c` prints `[a]` and
`[ ]`). argtrace dropped the escaped blank (tree-sitter took it for a separator) and only said that the next
lines run on their own (SH004); it now reads the word as bash does and SH003 names the cause. One blank and
then `#` is no comment: `a \\ #c` passes ` #c`.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import run_cli

pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(command: str) -> dict[str, Any]:
    result = run_cli(
        ["check", "--no-resolve", "--format", "json", "--framework-version", "0.33.0", "-c", command]
    )
    return dict(result.json)


def test_blanks_then_a_comment_after_the_backslash_end_the_command_with_a_blank_argument() -> None:
    report = check("vllm serve m --tensor-parallel-size 1 \\      # one GPU\n  --port 8001")
    assert report["servers"][0]["argv"] == ["vllm", "serve", "m", "--tensor-parallel-size", "1", " "]
    [cause] = [f for f in report["findings"] if f["severity"] != "info"]
    assert (cause["code"], cause["severity"], cause["message"]) == (
        "SH003",
        "error",
        "6 blanks after the line-continuation backslash on line 1, before its comment: the command ends on "
        "line 1 with an extra argument `' '`, and line 2 runs as a separate command; the flags after it "
        "never reach the server",
    )
    # deleting the blanks would leave `\# one GPU`, an escaped `#`: the comment has to move
    assert (
        cause["fix"]
        == "move the comment off the line (above the command), so that `\\` is the last character of it"
    )
    # shellcheck's note on line 2 (SC2215, a flag as a command name) is folded under it too
    [refused] = [c for c in cause["consequences"] if c["code"] == "PA001"]
    assert (refused["code"], refused["message"]) == (
        "PA001",
        "' ' (after 1) is not a value of any flag: vllm 0.33.0 rejects it with \"unrecognized arguments\" "
        "(exit 2)",
    )


@pytest.mark.parametrize(
    ("command", "last"),
    [
        ("vllm serve m --served-model-name a \\ #c", " #c"),  # one escaped blank: `#` starts no comment
        ("vllm serve m --served-model-name a\\ #c", "a #c"),
    ],
)
def test_an_escaped_blank_before_a_hash_is_part_of_a_word(command: str, last: str) -> None:
    report = check(command)
    assert report["servers"][0]["argv"][-1] == last
    assert [f["code"] for f in report["findings"] if f["code"] == "SH003"] == []


def test_a_comment_after_a_proper_continuation_is_no_hazard() -> None:
    report = check("vllm serve m --tensor-parallel-size 1 \\\n  --port 8001   # the API port")
    assert report["servers"][0]["argv"] == [
        "vllm",
        "serve",
        "m",
        "--tensor-parallel-size",
        "1",
        "--port",
        "8001",
    ]
    assert [f for f in report["findings"] if f["severity"] != "info"] == []
