"""The transport5 batch (docs/real_cases.md, "Transport, 5th batch"): reports of 2024-2026 where a program's
words or environment were changed by how systemd and compose carry them (`${NAME}` against `$NAME`, an
optional `EnvironmentFile=` that is not on this machine, systemd's split of a `$NAME` value, a quoted
`EnvironmentFile=`, an exec-form compose list), and correct launches through the same carriers, measured
before any change as a new user (no resolver environment, no Hugging Face cache).

SGLang and vLLM reports of these carriers not used by an earlier batch were not found (the ones the search
returned are all in tests/ already: vllm#32755, #37133, #22072, #27389, #42399, llm-d-inference-sim#533,
vllm-omni#3834, GenAIComps#336, skypilot#6920, spark-vllm-docker#111, MiaAI-Lab#5, vllm#4462), so the
failures are of other programs started the same way: the mechanism is the carrier's. Each
``tests/data/transport5/`` file names its URL in its header.

First seen (on 39d6f71) / now: failures a = 3 / 7, b = 2 / 1, c = 2 / 0, d = 1 / 0; correct launches: one
wrong warning (TP064 on tinyssh's fixed unit) / none.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import finding, recorded_check, shown
from tests.conftest import Launch

CASES = Path(__file__).resolve().parent / "data" / "transport5"

pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(file: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(file))


def exec_start(report: dict[str, Any]) -> list[str | None]:
    hop = report["transport"]["hops"][0]
    assert hop["via"] == "systemd"
    argv: list[str | None] = hop["exec_start"][0]["argv"]
    return argv


# --- systemd units ----------------------------------------------------------------------------------------


def test_pgbackrest91_braces_hand_three_options_over_as_one_argument() -> None:
    """a before and after: TP063, the exporter gets one word holding its three options."""
    report = check("fail_pgbackrest91.service")
    assert shown(report) == [("error", "TP063", "static")]
    tp063 = finding(report, "TP063")
    assert tp063["at"] == "fail_pgbackrest91.service:10"
    assert tp063["message"] == (
        "`${ARGS}` reaches the server as ONE argument (3 words of ARGS, blanks included): its argument "
        "parser does not read them as options"
    )
    assert tp063["fix"] == "Write `$ARGS` as a word of its own (systemd splits its value at blanks)."
    assert exec_start(report) == [
        "/usr/bin/pgbackrest_exporter",
        "--web.endpoint=/metrics --web.listen-address=:9854 --collect.interval=600",
    ]
    # the optional /etc/default file is the node's: unknown here, said so, and no TP064 about it
    env_file = report["transport"]["hops"][0]["env_files"][0]
    assert (env_file["path"], env_file["read"]) == ("/etc/default/pgbackrest_exporter", None)
    assert env_file["assumed"].startswith("/etc/default/pgbackrest_exporter is optional (`-`) and not on")


def test_pgbackrest92_the_fixed_unit_splits_the_options() -> None:
    report = check("ok_pgbackrest92.service")
    assert shown(report) == []
    assert exec_start(report) == [
        "/usr/bin/pgbackrest_exporter",
        "--web.endpoint=/metrics",
        "--web.listen-address=:9854",
        "--collect.interval=600",
    ]


def test_daliserver29_the_env_file_beside_the_unit_gives_the_options() -> None:
    """a before and after: the reporter's /etc/default/daliserver is read from the copy beside the unit."""
    report = check("fail_daliserver29/daliserver.service")
    assert shown(report) == [("error", "TP063", "static")]
    assert finding(report, "TP063")["message"].startswith(
        "`${DALISERVER_OPTS}` reaches the server as ONE argument (4 words of DALISERVER_OPTS"
    )
    assert exec_start(report) == ["/usr/bin/daliserver", "-l 0.0.0.0 -p 55825"]
    fixed = check("ok_daliserver29/daliserver.service")
    assert shown(fixed) == []
    assert exec_start(fixed) == ["/usr/bin/daliserver", "-l", "0.0.0.0", "-p", "55825"]


def test_tinyssh103_an_optional_env_file_not_here_is_unknown_not_unset() -> None:
    """Was TP064 "TINYSSHDOPTS is set nowhere in the unit, so systemd puts an empty value" (d: the node's
    /etc/default/tinysshd sets it); now the name is unknown and `${TINYSSHDOPTS}` is TP063 as an info
    resting on what the file holds (b: the options' name, not their value, says they are several)."""
    report = check("fail_tinyssh103@.service")
    assert shown(report) == []
    tp063 = finding(report, "TP063")
    assert (tp063["severity"], tp063["basis"], tp063["at"]) == (
        "info",
        "assumed",
        "fail_tinyssh103@.service:10",
    )
    assert tp063["message"] == (
        "`${TINYSSHDOPTS}` is ONE argument whatever TINYSSHDOPTS holds (systemd.service(5): `${NAME}` is "
        "the exact value, blanks included); TINYSSHDOPTS comes from an EnvironmentFile= not read here, and "
        "a name like it usually holds several options, which the program would then get as one word"
    )
    assert tp063["fix"] == "Write `$TINYSSHDOPTS` as a word of its own (systemd splits its value at blanks)."
    assert exec_start(report) == ["/usr/sbin/tinysshd", "${TINYSSHDOPTS}", "--", "/etc/tinyssh/sshkeydir"]


def test_tinyssh103_the_fixed_unit_is_clean() -> None:
    """Was TP064 (a wrong warning on a correct unit: `$TINYSSHDOPTS` "vanishes"); now nothing."""
    report = check("ok_tinyssh103@.service")
    assert [f["code"] for f in report["findings"]] == []
    assert exec_start(report) == ["/usr/sbin/tinysshd", "$TINYSSHDOPTS", "--", "/etc/tinyssh/sshkeydir"]


def test_systemd36488_the_split_of_a_dollar_word_strips_quote_and_backslash() -> None:
    """Was nothing (c, the argv was already `echo abc`); now TP083 names the characters lost."""
    report = check("fail_systemd36488.service")
    assert shown(report) == [("error", "TP083", "static")]
    tp083 = finding(report, "TP083")
    assert tp083["at"] == "fail_systemd36488.service:6"
    assert tp083["message"] == (
        "`$FOO`: systemd splits FOO's value as a command line, removing its quotes and backslashes, so the "
        'program gets `abc`, not the value `a\\b"c`'
    )
    assert tp083["fix"] == "Write `${FOO}` for the exact value as one argument."
    assert exec_start(report) == ["echo", "abc"]


def test_mise12683_a_quoted_environment_file_is_ignored() -> None:
    """Was nothing (c: the quoted path read as a file not here, its names unknown); now TP084, as systemd
    252's `systemd-analyze verify` says of this unit."""
    report = check("fail_mise12683.service")
    assert shown(report) == [("error", "TP084", "static")]
    tp084 = finding(report, "TP084")
    assert tp084["at"] == "fail_mise12683.service:14"
    assert tp084["message"] == (
        '`EnvironmentFile="-%h/.config/sync.env"`: systemd ignores this setting ("EnvironmentFile= path is '
        'not absolute, ignoring: "-%h/.config/sync.env""): it takes the quotes as part of the path, so none '
        "of the file's variables reach the service"
    )
    assert tp084["fix"] == "Write `EnvironmentFile=-%h/.config/sync.env` without quotes."
    env_file = report["transport"]["hops"][0]["env_files"][0]
    assert (env_file["path"], env_file["problem"]) == ('"-%h/.config/sync.env"', "ignored")


def test_openship121_a_blank_cuts_an_unquoted_environment_value() -> None:
    """Was two TP065 warnings on `Cool` and `App` with the generic fix, and nothing on the DATABASE_URL line
    the PR calls "completely silent" (b); now one TP065 for the cut SITE_TITLE with its exact fix, and an
    info for `search_path=app`, a lower-case assignment right after a value (a)."""
    report = check("fail_openship121.service")
    assert shown(report) == [("warning", "TP065", "static")]
    cut, maybe = [f for f in report["findings"] if f["code"] == "TP065"]
    assert cut["at"] == "fail_openship121.service:6"
    assert cut["message"] == (
        "`SITE_TITLE=My Cool App`: the blank ends SITE_TITLE's value, so SITE_TITLE gets `My`, and systemd "
        'ignores `Cool`, `App` ("Invalid environment assignment, ignoring")'
    )
    assert cut["fix"] == 'Quote the whole assignment: `Environment="SITE_TITLE=My Cool App"`.'
    assert (maybe["severity"], maybe["basis"], maybe["at"]) == (
        "info",
        "assumed",
        "fail_openship121.service:7",
    )
    assert maybe["message"].startswith("`search_path=app` becomes a variable of its own (search_path), and ")
    assert "<redacted:" in maybe["message"]  # the URL's password stays redacted
    assert report["transport"]["hops"][0]["environment"] == [
        "DATABASE_URL",
        "PATH",
        "PORT",
        "SITE_TITLE",
        "search_path",
    ]


def test_systemd42426_a_dotted_name_is_dropped() -> None:
    """Was TP065 with the quoting fix (b: quoting does not help a name systemd refuses); now it renames."""
    report = check("fail_systemd42426.service")
    assert shown(report) == [("warning", "TP065", "static")]
    tp065 = finding(report, "TP065")
    assert tp065["message"] == (
        "`X.Y=42` is no NAME=VALUE assignment (X.Y is no variable name: letters, digits, `_`): systemd "
        'ignores it ("Invalid environment assignment, ignoring")'
    )
    assert (
        tp065["fix"]
        == "Name the variable with letters, digits and `_` only (`X_Y`), and read it by that name."
    )


# --- compose ----------------------------------------------------------------------------------------------


def test_compose12468_a_doubled_dollar_in_an_exec_form_list_stays_literal() -> None:
    """a before and after (TP013); the fix now names the command through `sh -c` with `$$`, and that
    command is the correct launch below."""
    report = check("fail_compose12468/compose.yaml")
    assert shown(report) == [("error", "TP013", "static")]
    tp013 = finding(report, "TP013")
    assert tp013["message"] == (
        "service echo's `command:` list is an exec-form argv: no shell runs it, so '$TESTVAR' is passed to "
        "the program as a literal argument"
    )
    assert tp013["fix"] == (
        "Run the command through a shell, which expands $TESTVAR in the container: "
        '`command: ["sh", "-c", "exec echo \\"$$TESTVAR\\""]`.'
    )
    assert report["transport"]["hops"][0]["argv"] == ["echo", "$TESTVAR"]
    fixed = check("ok_compose12468/compose.yaml")
    assert shown(fixed) == []
    assert fixed["transport"]["hops"][0]["argv"] == ["sh", "-c", 'exec echo "$TESTVAR"']


# --- correct launches through docker run and ssh ----------------------------------------------------------


def test_aicontainers973_an_empty_entrypoint_resets_the_image_s() -> None:
    """The documented command the issue calls wrong: `--entrypoint=` (empty) then the image, then
    /bin/bash. No alarm (the container runs a shell, no server)."""
    report = check("ok_aicontainers973.cmd")
    assert shown(report) == []
    assert report["servers"] == []


def test_sglang4270_a_single_quoted_ssh_command_arrives_whole() -> None:
    report = check("ok_sglang4270.cmd")
    assert shown(report) == []
    (server,) = report["servers"]
    argv = [w for w in server["argv"]]
    assert argv[:3] == ["/home/my/.opt/anaconda3/envs/sglang-source/bin/python", "-m", "sglang.launch_server"]
    assert argv[argv.index("--port") + 1] == "9888"
    assert (
        argv[argv.index("--model-path") + 1]
        == "/home/my/resources/huggingface/models/Qwen/Qwen2.5-7B-Instruct"
    )
