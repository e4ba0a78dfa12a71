"""What a new user sees first (bench/first_screens.py measured it on the kept failure cases;
docs/real_cases.md "First screens of the earlier batches"): the mechanisms it led to, each on a minimal input.

* render/screen.py: a headline names a long place by its file name and stays one line; beside an error or a
  warning an ``info`` cause is its headline alone; PR008 (the release read with a stand-in) comes after the
  launch's own findings of its severity; the text drops check's "no server" note when SH019 says it.
* causes.py: TP010 (the launcher given again) explains the words it pushed out of place, TP011 (a flag and
  its value in one list item) the parser's refusal of that word, SH026 on a quoted expansion the parser's
  refusal of ``''`` (which then rests on the variable being unset: a warning), and the flags of one plugin
  are one cause.
* layers/parser/json_values.py: JSON whose double quotes arrived gets no "single-quote the JSON" fix.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.parser.json_fixes import json_value_fix
from argtrace.render.screen import diagnosis_lines, diagnosis_order, short_places
from argtrace.render.text import render_text
from tests.conftest import run_cli

pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(tmp_path: Path, *argv: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", "--no-resolve", *argv], cwd=tmp_path)
    report: dict[str, Any] = result.json
    return report


def causes(report: dict[str, Any]) -> list[tuple[str, str, list[tuple[str, str]]]]:
    return [
        (f["code"], f["severity"], [(c["code"], c["severity"]) for c in f.get("consequences", [])])
        for f in report["findings"]
    ]


# --- render/screen.py --------------------------------------------------------------------------------------

DEEP = "/home/user/projects/inference/deploy/overlays/production/launch_vllm.sh"


def test_a_long_place_is_named_by_its_file_name() -> None:
    places = short_places([f"{DEEP}:4:1", f"{DEEP}:16:1", "<-c>:1:1", "run/a.sh:2"], 80)
    assert places == {f"{DEEP}:4:1": "launch_vllm.sh:4:1", f"{DEEP}:16:1": "launch_vllm.sh:16:1"}
    # a relative path is the user's own way to name the file: kept, however long
    assert short_places(["deploy/overlays/production/eu-west-1/launch_vllm.sh:2"], 80) == {}


def test_two_files_of_one_name_keep_their_directories() -> None:
    other = DEEP.replace("production", "staging")
    assert short_places([f"{DEEP}:4:1", f"{other}:4:1"], 80) == {}


def test_a_headline_with_a_long_place_stays_one_line() -> None:
    finding = {
        "severity": "error",
        "code": "PA041",
        "at": f"{DEEP}:4:1",
        "message": "servers 1, 2 are all PyNcclConnector kv_rank 0: the group never forms",
        "fix": f"give the decode instance kv_rank 1 at {DEEP}:16",
    }
    lines = [line.plain for line in diagnosis_lines(finding, 80, short_places([finding["at"]], 80))]
    assert lines == [
        "ERROR PA041 launch_vllm.sh:4:1 servers 1, 2 are all PyNcclConnector kv_rank 0:…",
        "  the group never forms",
        "  fix: give the decode instance kv_rank 1 at launch_vllm.sh:16",
    ]
    # unshortened, the place leaves the message no room: it closes the headline, cut from the left so that
    # its file name and line stay, and the message follows
    lines = [line.plain for line in diagnosis_lines(finding, 80)]
    assert lines == [
        "ERROR PA041 …er/projects/inference/deploy/overlays/production/launch_vllm.sh:4:1",
        "  servers 1, 2 are all PyNcclConnector kv_rank 0: the group never forms",
        "  fix: give the decode instance kv_rank 1 at…",
    ]
    assert all(len(line) <= 80 for line in lines)


def _report(*findings: dict[str, Any], notes: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"command": "check", "findings": list(findings), "notes": list(notes)}


ERROR = {
    "severity": "error",
    "code": "SH004",
    "layer": "shell",
    "at": "a.sh:3:5",
    "message": "cut",
    "fix": "join",
}
INFO = {
    "severity": "info",
    "code": "SC2086",
    "layer": "shell",
    "at": "a.sh:2:1",
    "message": "shellcheck: Double quote to prevent globbing and word splitting.",
    "fix": "See https://www.shellcheck.net/wiki/SC2086",
}


def _diagnosis(text: str) -> list[str]:
    lines = text.splitlines()
    return lines[1 : lines.index("Details")]


def test_beside_an_error_an_info_cause_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert _diagnosis(render_text(_report(ERROR, INFO))) == [
        "Diagnosis: 1 error, 1 info",
        "ERROR SH004 a.sh:3:5 cut",
        "  fix: join",
        "INFO SC2086 a.sh:2:1 shellcheck: Double quote to prevent globbing and word…",
    ]
    # alone, the note keeps its why and its fix
    assert _diagnosis(render_text(_report(INFO))) == [
        "Diagnosis: 1 info",
        "INFO SC2086 a.sh:2:1 shellcheck: Double quote to prevent globbing and word…",
        "  splitting.",
        "  fix: See https://www.shellcheck.net/wiki/SC2086",
    ]


def test_the_stand_in_release_comes_after_the_launchs_own_warning() -> None:
    stand_in = {"severity": "warning", "code": "PR008", "layer": "process"}
    own = {"severity": "warning", "code": "PA003", "layer": "parser"}
    error = {"severity": "error", "code": "PA014", "layer": "parser"}
    assert diagnosis_order([stand_in, own]) == [1, 0]
    assert diagnosis_order([stand_in, error]) == [1, 0]
    # the layers' order still holds among the launch's own findings
    assert diagnosis_order([own, {"severity": "warning", "code": "SH026", "layer": "shell"}]) == [1, 0]


def test_the_no_server_note_is_not_said_twice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    result = run_cli(["check", "--no-resolve", "-c", "pm2 start launch.sh"], cwd=tmp_path)
    assert [line for line in result.stdout.splitlines() if "server start" in line] == [
        "INFO SH019 <-c> no SGLang or vLLM server start found in the commands <-c> would…",
        "  #1   info    SH019 [shell] <-c>: no SGLang or vLLM server start found in the ",
    ]
    # the JSON contract keeps the note
    assert check(tmp_path, "-c", "pm2 start launch.sh")["notes"] == [
        "no SGLang or vLLM server start was found in <-c>"
    ]


def test_a_launch_passed_by_its_full_path_has_one_line_headlines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    deep = tmp_path / "projects" / "inference" / "deploy" / "overlays" / "production"
    deep.mkdir(parents=True)
    script = deep / "serve.sh"
    script.write_text("#!/bin/bash\npython3 -m sglang.launch_server --model-path /m \\ \n    --port 30000\n")
    result = run_cli(
        ["check", "--no-resolve", "--framework-version", "0.5.10.post1", str(script)], cwd=tmp_path
    )
    lines = result.stdout.splitlines()
    assert lines[1:6] == [
        "Diagnosis: 1 error; 2 more findings follow from them",
        "ERROR SH003 serve.sh:2:49 space after the line-continuation backslash at the…",
        "  end of line 2: the command ends on line 2 with an extra argument `' '`, and…",
        "  explains 2 findings: SC2215, PA001",
        "  fix: Delete the blanks after the backslash at the end of serve.sh line 2, so…",
    ]
    # before: `ERROR SH003 ` alone, the path and the message over the next four lines


# --- causes.py ---------------------------------------------------------------------------------------------


def test_the_launcher_given_again_explains_the_words_it_displaced(tmp_path: Path) -> None:
    report = check(tmp_path, "-c", "docker run --gpus all vllm/vllm-openai:v0.11.0 vllm serve Qwen/Qwen3-8B")
    assert causes(report) == [("TP010", "error", [("PA001", "error"), ("PA001", "error")])]
    assert [c["message"] for c in report["findings"][0]["consequences"]] == [
        "'serve' (after vllm) is not a value of any flag: vllm 0.11.0 rejects it with \"unrecognized "
        'arguments" (exit 2)',
        "'Qwen/Qwen3-8B' (after serve) is not a value of any flag: vllm 0.11.0 rejects it with "
        '"unrecognized arguments" (exit 2)',
    ]


def test_a_shell_after_the_launcher_explains_what_the_parser_says_of_its_words(tmp_path: Path) -> None:
    """vllm#32755: `command: bash -c "vllm serve ..."` on vllm/vllm-openai runs `vllm serve bash -c ...`."""
    (tmp_path / "compose.yaml").write_text(
        "services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n"
        '    command: bash -c -i "vllm serve /m --port 8000"\n'
    )
    report = check(tmp_path, "compose.yaml")
    assert [(c, s, k) for c, s, k in causes(report) if s != "info"] == [
        ("TP010", "error", [("PA001", "error"), ("PA001", "error")])
    ]
    assert [c["message"].split(":")[0] for c in report["findings"][0]["consequences"]] == [
        "-c is not a vllm 0.11.0 flag",
        "-i is not a vllm 0.11.0 flag",
    ]


def test_a_flag_and_its_value_in_one_item_explains_the_parsers_refusal(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(
        "services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n    command:\n"
        "      - Qwen/Qwen3-8B\n      - --dtype auto\n"
    )
    report = check(tmp_path, "compose.yaml")
    (tp011,) = [f for f in report["findings"] if f["code"] == "TP011"]
    assert [(c["code"], c["severity"], c["message"]) for c in tp011["consequences"]] == [
        (
            "PA001",
            "error",
            # the blank inside the word is named (cases12's spaced words), no "did you mean --dtype?"
            "'--dtype auto' (after Qwen/Qwen3-8B) is not a value of any flag: it is one word holding 2 "
            "(`--dtype`, `auto`), and argparse takes an option-like word with a blank in it for a value, not "
            "for the option --dtype, so --dtype never gets its value; vllm 0.11.0 rejects it with "
            '"unrecognized arguments" (exit 2)',
        )
    ]
    assert [f["code"] for f in report["findings"] if f["severity"] != "info"] == ["TP011"]


def test_an_unset_variable_in_quotes_explains_the_refused_empty_value(tmp_path: Path) -> None:
    """Was two causes, the PA010 an error: it holds only if the caller leaves PORT unset (SH026 says so)."""
    (tmp_path / "launch.sh").write_text(
        '#!/bin/bash\npython -m sglang.launch_server --model-path /m --port "$PORT"\n'
    )
    report = check(tmp_path, "--framework-version", "0.5.10.post1", "launch.sh")
    (sh026,) = report["findings"]
    assert (sh026["code"], sh026["severity"], sh026["basis"]) == ("SH026", "warning", "assumed")
    assert sh026["consequences"] == [
        {
            "code": "PA010",
            "at": "launch.sh:2:48",
            "message": "argument --port: invalid int value: '' (argparse exit 2)",
            "severity": "warning",
            "layer": "parser",
        }
    ]
    # the caller's PORT decides: set, the launch is clean
    assert (
        check(tmp_path, "--framework-version", "0.5.10.post1", "--env", "PORT=8000", "launch.sh")["findings"]
        == []
    )


def test_the_flags_of_one_missing_plugin_are_one_cause(tmp_path: Path) -> None:
    report = check(
        tmp_path, "--framework-version", "0.16.0", "-c", "vllm serve /m --stage-configs-path /s.yaml --omni"
    )
    alarms = [f for f in report["findings"] if f["severity"] != "info"]
    assert [
        (f["code"], f["at"], [(c["code"], c["at"]) for c in f.get("consequences", [])]) for f in alarms
    ] == [("PA001", "<-c>:1:15", [("PA001", "<-c>:1:44")])]
    assert alarms[0]["consequences"][0]["message"].startswith(
        "--omni is not a vllm 0.16.0 flag: it is vllm-omni's"
    )


# --- layers/parser/json_values.py ---------------------------------------------------------------------------


def test_json_whose_double_quotes_arrived_is_not_told_to_quote() -> None:
    assert json_value_fix('{"method":"mtp","num_speculative_tokens":}') == (
        "the double quotes reached the server, so quoting is not what is wrong: the JSON breaks at character "
        '42 (Expecting value: `ive_tokens":}`); a part a variable makes is empty when the variable is not set'
    )
    assert json_value_fix('{"method":"mtp","num_speculative_tokens":2}') is None  # valid: nothing to say
    assert json_value_fix("{method: ngram}") is None  # the quotes were eaten: the rule's fix applies


def test_the_json_report_keeps_its_keys(tmp_path: Path) -> None:
    """The contract: the grouping adds consequences, it removes no key of a finding."""
    report = check(tmp_path, "-c", "docker run --gpus all vllm/vllm-openai:v0.11.0 vllm serve Qwen/Qwen3-8B")
    keys = set(report["findings"][0])
    assert {"code", "severity", "layer", "at", "message", "fix", "fix_edits", "fix_verified", "basis"} <= keys
    assert json.loads(json.dumps(report)) == report
