"""systemd's handling of a unit's values on their way to the server (transport5 batch's mechanisms, our own
inputs): an optional ``EnvironmentFile=`` that is not on this machine (unknown, not unset), a whole-word
``${NAME}`` of unknown value whose name says it lists options (TP063 info), the split of a ``$NAME`` word
that removes quotes and backslashes (TP083) and an ``EnvironmentFile=`` systemd ignores (TP084). The split
itself is systemd 252's (``systemd_syntax._split_value``, checked against systemd in
test_systemd_oracle.py); the ignored ``EnvironmentFile=`` was measured with ``systemd-analyze verify``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.transport.systemd_syntax import _split_value, stripped_only
from tests.transport.test_systemd_unit import check, transport, words

VLLM = "/opt/v/bin/vllm serve Qwen/Qwen2.5-7B-Instruct"


def codes(report: dict[str, Any]) -> list[tuple[str, str]]:
    every = [*report["findings"], *(c for f in report["findings"] for c in f.get("consequences", []))]
    return [(f["code"], f["severity"]) for f in every if f["code"].startswith(("TP", "PA"))]


def test_an_optional_env_file_not_here_leaves_its_names_unknown(tmp_path: Path) -> None:
    unit = (
        "[Service]\nEnvironmentFile=-/nonexistent-dir/vllm\n"
        f"ExecStart={VLLM} --port $PORT --max-model-len ${{LEN}}\n"
    )
    report = check(tmp_path, "a.service", unit)
    assert transport(report) == []  # no TP064: the node's file may set PORT and LEN
    assert words(report) == [
        ["/opt/v/bin/vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", "--port", None, "--max-model-len", None]
    ]
    (env_file,) = report["transport"]["hops"][0]["env_files"]
    assert env_file["assumed"] == (
        "/nonexistent-dir/vllm is optional (`-`) and not on this machine: the names it may set are unknown "
        "here; systemd skips it only if the node lacks it too"
    )


@pytest.mark.parametrize(
    ("word", "said"),
    [("${VLLM_ARGS}", True), ("${EXTRA_FLAGS}", True), ("${SERVER_OPTIONS}", True), ("${MODEL}", False)],
)
def test_a_whole_word_braced_reference_of_unknown_options(tmp_path: Path, word: str, said: bool) -> None:
    unit = f"[Service]\nEnvironmentFile=/nonexistent-dir/vllm.env\nExecStart={VLLM} {word}\n"
    report = check(tmp_path, "b.service", unit)
    found = [(f["code"], f["severity"], f["basis"]) for f in report["findings"] if f["code"] == "TP063"]
    assert found == ([("TP063", "info", "assumed")] if said else [])


def test_the_colon_prefix_turns_the_options_note_off(tmp_path: Path) -> None:
    unit = f"[Service]\nEnvironmentFile=/nonexistent-dir/vllm.env\nExecStart=:{VLLM} ${{VLLM_ARGS}}\n"
    report = check(tmp_path, "c.service", unit)
    assert [f["code"] for f in report["findings"] if f["code"] == "TP063"] == []


@pytest.mark.parametrize(
    ("value", "stripped"),
    [
        ('{"method":"ngram"}', True),  # JSON: the quotes group nothing
        ('--speculative-config {"method": "ngram"}', True),  # and with a blank inside it
        ("C:\\models\\qwen", True),  # backslashes take the next character
        ('--served-model-name "my model"', False),  # the quotes keep a blank: what the split is for
        ('--host "0.0.0.0"', False),  # quotes around a whole word give the same word
        ("--port 8000 --dtype auto", False),
    ],
)
def test_which_splits_lose_characters(value: str, stripped: bool) -> None:
    assert stripped_only(value, _split_value(value)) is stripped


def test_a_json_value_through_dollar_name_is_the_cause_of_the_parser_s_refusal(tmp_path: Path) -> None:
    unit = (
        '[Service]\nEnvironment=\'SPEC={"method":"ngram","num_speculative_tokens":3,"prompt_lookup_max":4}\'\n'
        f"ExecStart={VLLM} --speculative-config $SPEC\n"
    )
    report = check(tmp_path, "d.service", unit)
    (tp083,) = [f for f in report["findings"] if f["code"] == "TP083"]
    assert (tp083["severity"], tp083["at"]) == ("error", "d.service:3")
    assert tp083["message"] == (
        "`$SPEC`: systemd splits SPEC's value as a command line, removing its quotes and backslashes, so the "
        "program gets `{method:ngram,num_speculative_tokens:3,prompt_lookup_max:4}`, not the value "
        '`{"method":"ngram","num_speculative_tokens":3,"prompt_lookup_max":4}`'
    )
    assert tp083["fix"] == "Write `${SPEC}` for the exact value as one argument."
    assert [c["code"] for c in tp083["consequences"]] == ["PA011"]
    fixed = check(tmp_path, "e.service", unit.replace("$SPEC", "${SPEC}"))
    assert [c for c in codes(fixed) if c[1] in ("error", "warning")] == []


def test_several_options_with_json_get_the_single_quote_fix(tmp_path: Path) -> None:
    unit = (
        '[Service]\nEnvironment=\'ARGS=--max-model-len 8192 --speculative-config {"method":"ngram"}\'\n'
        f"ExecStart={VLLM} $ARGS\n"
    )
    report = check(tmp_path, "f.service", unit)
    (tp083,) = [f for f in report["findings"] if f["code"] == "TP083"]
    assert tp083["fix"] == (
        "Single-quote, inside ARGS's value, each word whose quotes or backslashes must reach the program "
        "(the split keeps what single quotes enclose)."
    )
    # the fix: the JSON single-quoted inside the value (the assignment itself double-quoted)
    quoted = (
        "[Service]\n"
        'Environment="ARGS=--max-model-len 8192 --speculative-config \'{\\"method\\":\\"ngram\\"}\'"\n'
        f"ExecStart={VLLM} $ARGS\n"
    )
    again = check(tmp_path, "g.service", quoted)
    assert [f["code"] for f in again["findings"] if f["code"] == "TP083"] == []
    assert words(again)[0][-2:] == ["--speculative-config", '{"method":"ngram"}']


@pytest.mark.parametrize(
    ("line", "fix"),
    [
        ('EnvironmentFile="/etc/default/vllm"', "Write `EnvironmentFile=/etc/default/vllm` without quotes."),
        (
            "EnvironmentFile='-/etc/default/vllm'",
            "Write `EnvironmentFile=-/etc/default/vllm` without quotes.",
        ),
        (
            "EnvironmentFile=vllm.env",
            "Give the absolute path: `EnvironmentFile=/ABSOLUTE/DIR/vllm.env` (`%h/...` for a file in the "
            "user's home).",
        ),
    ],
)
def test_an_environment_file_systemd_ignores(tmp_path: Path, line: str, fix: str) -> None:
    (tmp_path / "vllm.env").write_text("PORT=8001\n")  # even a file beside the unit is not read
    report = check(tmp_path, "h.service", f"[Service]\n{line}\nExecStart={VLLM} --port $PORT\n")
    tp084 = [f for f in report["findings"] if f["code"] == "TP084"]
    assert [(f["severity"], f["at"], f["fix"]) for f in tp084] == [("error", "h.service:2", fix)]
    # the file's names are unset, not unknown: the word vanishes (TP064) and --port loses its value
    assert ("TP064", "warning") in codes(report)
    assert words(report) == [["/opt/v/bin/vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", "--port"]]


def test_a_specifier_path_is_absolute_for_systemd(tmp_path: Path) -> None:
    report = check(tmp_path, "i.service", f"[Service]\nEnvironmentFile=-%h/vllm.env\nExecStart={VLLM}\n")
    assert [f["code"] for f in report["findings"] if f["code"] == "TP084"] == []


@pytest.mark.parametrize(
    ("line", "noted"),
    [
        ("Environment=DATABASE_URL=postgres://u@h/db?options=-c search_path=app", True),
        # OPTS keeps `--verbose`, `--log-level` is cut off (a warning), and the value ends in no option
        ("Environment=OPTS=--verbose --log-level debug_level=2", False),
        ("Environment=HTTP_PROXY=http://p:3128 http_proxy=http://p:3128", False),
        ("Environment=A=1 B=2", False),
    ],
)
def test_a_lower_case_assignment_after_a_value_that_ends_in_an_option(
    tmp_path: Path, line: str, noted: bool
) -> None:
    report = check(tmp_path, "j.service", f"[Service]\n{line}\nExecStart={VLLM}\n")
    notes = [f["basis"] for f in report["findings"] if f["code"] == "TP065" and f["severity"] == "info"]
    assert notes == (["assumed"] if noted else [])
