"""PA060 (layers/parser/literal_vars.py) speaks of a ``$NAME`` the script wrote that nothing expanded: not
of a ``$`` inside a variable's value, nor of one in an existing file's or directory's real name (both met by
the ssh tests in the twentieth session's CI after PA060 landed)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli

LAUNCH = "python3 -m sglang.launch_server --model-path /m "


def _pa060(script: str) -> list[str]:
    report = run_cli(["check", "--format", "json", "--framework-version", "0.5.10.post1", "-c", script]).json
    return [f["message"] for f in report["findings"] if f["code"] == "PA060"]


def test_a_single_quoted_name_the_launch_sets_is_said() -> None:
    assert _pa060(f"export NAME=qwen\n{LAUNCH}--served-model-name '$NAME'\n") == [
        "--served-model-name: the value holds $NAME as written: the word was single-quoted (or passed "
        "without a shell), so nothing expanded it, and sglang 0.5.10.post1 does not expand environment "
        "variables in its flags, so the server gets the text $NAME, not the value the launch sets (<-c>:1:8)"
    ]


def test_a_dollar_inside_a_variables_value_is_not_a_name_left_unexpanded() -> None:
    assert _pa060(f"export NAME='v $HOME'\n{LAUNCH}--served-model-name \"$NAME\"\n") == []


def test_a_dollar_in_an_existing_directorys_name_is_that_name(tmp_path: Path) -> None:
    folder = tmp_path / "cfg $CFG dir"
    folder.mkdir()
    assert _pa060(f"export CFG=x\n{LAUNCH}--served-model-name '{folder}/missing.yaml'\n") == []
    missing = f"{tmp_path}/not here $CFG/missing.yaml"
    assert len(_pa060(f"export CFG=x\n{LAUNCH}--served-model-name '{missing}'\n")) == 1
