"""Edits computed from the real file text, applied in memory, and lines followed through them."""

from __future__ import annotations

import pytest

from argtrace.fixes.apply import EditError, apply_edits, line_mapper
from argtrace.fixes.edits import (
    SourceFile,
    blanks_after_backslash,
    crlf,
    missing_continuation,
    renamed_flag,
    renamed_variable,
)
from argtrace.model import Finding, FixEdit, Report

REPORT = Report(command="check")


def finding(code: str, at: str, *, fix: str = "", message: str = "") -> Finding:
    return Finding(code=code, severity="error", layer="shell", message=message, at=at, fix=fix)


def test_apply_inserts_deletes_and_replaces_at_line_col_positions() -> None:
    text = "ab\ncd\nef\n"
    edits = [
        FixEdit("f", "1:3", "1:3", " \\"),  # insertion at the end of line 1
        FixEdit("f", "2:1", "3:1", ""),  # line 2 deleted
        FixEdit("f", "3:1", "3:2", "E"),
    ]
    assert apply_edits(text, edits) == "ab \\\nEf\n"
    assert line_mapper(text, edits) == {1: 1, 3: 2, 4: 3}


def test_overlapping_edits_and_positions_past_the_text_are_refused() -> None:
    with pytest.raises(EditError, match="overlapping edits"):
        apply_edits("abcdef\n", [FixEdit("f", "1:1", "1:4", ""), FixEdit("f", "1:3", "1:5", "x")])
    with pytest.raises(EditError, match="past the end of line 1"):
        apply_edits("ab\n", [FixEdit("f", "1:9", "1:9", "x")])
    with pytest.raises(EditError, match="not a position"):
        apply_edits("ab\n", [FixEdit("f", "7:1", "7:1", "x")])


SHIPPED = (
    "set -e\n"  # 1
    "nohup python3 -m sglang.launch_server \\\n"  # 2
    "    --model-path /m \\\n"  # 3
    "    # MTP needs the extra buffer\n"  # 4
    "    --mamba-scheduler-strategy extra_buffer \\\n"  # 5
    "    --port 30000 &\n"  # 6
)


def test_a_comment_inside_a_continued_command_is_moved_above_the_command() -> None:
    source = SourceFile("run/serve.sh", SHIPPED)
    proposal = missing_continuation(finding("SH004", "run/serve.sh:5:5"), source, REPORT)
    assert proposal is not None
    assert proposal.edits == (
        FixEdit("run/serve.sh", "2:1", "2:1", "# MTP needs the extra buffer\n"),
        FixEdit("run/serve.sh", "4:1", "5:1", ""),
    )
    assert proposal.fix == (
        "Move the comment at run/serve.sh line 4 above the command that starts at line 2: inside a "
        "continued command a comment ends the command, so the flags after it never reach the server (a "
        "trailing backslash after a comment is part of the comment)."
    )
    assert apply_edits(SHIPPED, proposal.edits) == (
        "set -e\n"
        "# MTP needs the extra buffer\n"
        "nohup python3 -m sglang.launch_server \\\n"
        "    --model-path /m \\\n"
        "    --mamba-scheduler-strategy extra_buffer \\\n"
        "    --port 30000 &\n"
    )


def test_a_code_line_without_its_backslash_gets_one_and_the_text_names_the_file() -> None:
    text = "python3 -m sglang.launch_server --model-path /m  \n  --port 30000\n"
    source = SourceFile("deploy/start-qwen.sh", text)
    proposal = missing_continuation(finding("SH004", "deploy/start-qwen.sh:2:3"), source, REPORT)
    assert proposal is not None
    assert proposal.edits == (FixEdit("deploy/start-qwen.sh", "1:48", "1:50", " \\"),)
    assert apply_edits(text, proposal.edits).splitlines()[0].endswith("--model-path /m \\")
    assert proposal.fix == (
        "End deploy/start-qwen.sh line 1 with a backslash (and nothing after it), so that line 2 continues "
        "the command."
    )


def test_crlf_names_the_real_file_and_deletes_each_carriage_return() -> None:
    text = "#!/bin/bash\r\npython3 -m sglang.launch_server \\\r\n  --port 1\r\n"
    proposal = crlf(finding("SH002", "My Launch.sh:1"), SourceFile("My Launch.sh", text), REPORT)
    assert proposal is not None
    assert proposal.fix == (
        "Convert My Launch.sh to Unix line endings: `sed -i 's/\\r$//' 'My Launch.sh'` "
        "(or `dos2unix 'My Launch.sh'`)."
    )
    assert apply_edits(text, proposal.edits) == text.replace("\r\n", "\n")


def test_blanks_after_a_backslash_are_deleted() -> None:
    text = "python3 -m sglang.launch_server \\ \t\n  --port 1\n"
    proposal = blanks_after_backslash(finding("SH003", "a.sh:1:33"), SourceFile("a.sh", text), REPORT)
    assert proposal is not None
    assert proposal.edits == (FixEdit("a.sh", "1:34", "1:36", ""),)


def test_a_flag_is_renamed_only_where_the_file_holds_it() -> None:
    text = "python3 -m sglang.launch_server --mem-fraction-statc=0.8\n"
    source = SourceFile("a.sh", text)
    good = finding("PA001", "a.sh:1:33", fix="use --mem-fraction-static")
    proposal = renamed_flag(good, source, REPORT)
    assert proposal is not None
    assert apply_edits(text, proposal.edits) == "python3 -m sglang.launch_server --mem-fraction-static=0.8\n"
    assert proposal.fix == "Write --mem-fraction-static instead of --mem-fraction-statc at a.sh:1:33."
    # the position holds a variable, not the flag: no edit
    assert renamed_flag(finding("PA001", "a.sh:1:1", fix="use --x"), source, REPORT) is None


def test_a_variable_rename_that_flips_its_meaning_is_not_an_edit() -> None:
    text = "SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK=1 python3 -m sglang.launch_server\n"
    flipped = Finding(
        code="PR002",
        severity="warning",
        layer="process",
        message="SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK is deprecated; it now reads "
        "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK",
        at="a.sh:1:1",
        fix="use SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK",
    )
    assert renamed_variable(flipped, SourceFile("a.sh", text), REPORT) is None
    text = "SGL_ENABLE_JIT_DEEPGEMM=1 python3 -m sglang.launch_server\n"
    renamed = Finding(
        code="PR002",
        severity="warning",
        layer="process",
        message="SGL_ENABLE_JIT_DEEPGEMM is deprecated; it now reads SGLANG_ENABLE_JIT_DEEPGEMM",
        at="a.sh:1:1",
        fix="use SGLANG_ENABLE_JIT_DEEPGEMM",
    )
    proposal = renamed_variable(renamed, SourceFile("a.sh", text), REPORT)
    assert proposal is not None
    assert apply_edits(text, proposal.edits).startswith("SGLANG_ENABLE_JIT_DEEPGEMM=1 python3")


def test_a_value_close_to_one_choice_is_replaced_and_an_unclear_one_is_not() -> None:
    from argtrace.fixes.words import nearest_choice

    text = "python3 -m sglang.launch_server --mamba-scheduler-strategy=extra-buffer\n"
    message = (
        "argument --mamba-scheduler-strategy: invalid choice: '{}' (choose from 'auto', 'no_buffer', "
        "'extra_buffer') (argparse exit 2)"
    )
    close = finding("PA009", "a.sh:1:33", message=message.format("extra-buffer"))
    proposal = nearest_choice(close, SourceFile("a.sh", text), REPORT)
    assert proposal is not None
    assert apply_edits(text, proposal.edits) == (
        "python3 -m sglang.launch_server --mamba-scheduler-strategy=extra_buffer\n"
    )
    assert proposal.fix == (
        "Write extra_buffer (one of auto, no_buffer, extra_buffer) instead of extra-buffer at a.sh:1:60."
    )
    text = "python3 -m sglang.launch_server --mamba-scheduler-strategy buffer\n"
    unclear = finding("PA009", "a.sh:1:33", message=message.format("buffer"))
    assert nearest_choice(unclear, SourceFile("a.sh", text), REPORT) is None


def test_flags_are_appended_after_the_last_server_word_even_when_it_is_quoted() -> None:
    from argtrace.fixes.settings import append_after_server_args
    from argtrace.model import Origin, ServerCommand, Word

    text = "python3 -m sglang.launch_server --served-model-name 'my model' > log 2>&1 &\n"
    words = [
        Word("python3", Origin("a.sh:1:1")),
        Word("-m", Origin("a.sh:1:9")),
        Word("sglang.launch_server", Origin("a.sh:1:12")),
        Word("--served-model-name", Origin("a.sh:1:33")),
        Word("my model", Origin("a.sh:1:53")),
    ]
    server = ServerCommand("a.sh:1:1", "sglang", tuple(words), {}, 3, "sglang.launch_server")
    report = Report(command="check", servers=[server])
    edit = append_after_server_args(report, SourceFile("a.sh", text), ["--disable-radix-cache"])
    assert edit == FixEdit("a.sh", "1:63", "1:63", " --disable-radix-cache")
    assert apply_edits(text, [edit]) == (
        "python3 -m sglang.launch_server --served-model-name 'my model' --disable-radix-cache > log 2>&1 &\n"
    )
