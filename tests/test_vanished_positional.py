"""An unquoted expansion that vanished where the parser needed a positional (PA029, argtrace/causes.py's
``lost-positional``): ``vllm serve $M --port 8000`` with M unset here is a warning naming M (the server's
environment may set it) with the parser's PA001/PA020 folded under it as notes; M set to "" by the script is
an error; a ``$EXTRA_ARGS`` that vanishes among flags while nothing is missing adds no finding.

Found on vllm#9791 (docs/real_cases.md, fifth batch): ``vllm serve ${LLM_MODEL_NAME} ...`` with the
variable set in the reporter's compose service, not on the machine argtrace ran on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.causes import fold_causes
from argtrace.model import Finding, Report
from tests.conftest import run_cli

VLLM_066 = ("--framework-version", "0.6.6.post1")
SGLANG_0523 = ("--framework-version", "0.5.23")
REQUIRED = 'argparse stops with "the following arguments are required: model_tag" (exit 2)'
UNSET_FIX = (
    "set M where the server runs (check with `--env M=...`), or write the model in place of `$M`; "
    "`${M:?M is not set}` stops with that message instead"
)
EMPTY_FIX = "give M a value (it is empty), or write the model in place of `$M`"


@pytest.fixture(autouse=True)
def first_run_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path / "argtrace-cache"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("M", raising=False)


def check(tmp_path: Path, version: tuple[str, ...], command: str) -> list[dict[str, Any]]:
    result = run_cli(["check", "--format", "json", "--clean-env", *version, "-c", command], cwd=tmp_path)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    findings: list[dict[str, Any]] = result.json["findings"]
    return [f for f in findings if f["code"] not in ("RS004", "PR007", "PR011")]


def shown(findings: list[dict[str, Any]]) -> list[tuple[str, str, str, list[tuple[str, str, str]]]]:
    return [
        (
            f["severity"],
            f["code"],
            f["message"],
            [(c["severity"], c["code"], c["message"]) for c in f.get("consequences", [])],
        )
        for f in findings
    ]


def test_an_unset_model_variable_is_one_warning_naming_it(tmp_path: Path) -> None:
    findings = check(tmp_path, VLLM_066, "vllm serve $M --port 8000")
    assert shown(findings) == [
        (
            "warning",
            "PA029",
            "`$M` is not set in the environment argtrace was given, so the unquoted word vanishes where vllm "
            "0.6.6.post1 needs its positional model_tag: if the server's environment sets M, model_tag gets "
            f"its value; if not, {REQUIRED}",
            [
                ("info", "SC2086", "shellcheck: Double quote to prevent globbing and word splitting."),
                ("info", "PA001", REQUIRED),
                (
                    "info",
                    "PA020",
                    "model_tag is required by vllm 0.6.6.post1 and is not given: argparse stops with "
                    '"the following arguments are required" (exit 2)',
                ),
            ],
        )
    ]
    assert (findings[0]["basis"], findings[0]["at"], findings[0]["fix"]) == (
        "assumed",
        "<-c>:1:12",
        UNSET_FIX,
    )


def test_a_model_variable_the_script_empties_is_an_error(tmp_path: Path) -> None:
    findings = check(tmp_path, VLLM_066, 'M=""; vllm serve $M --port 8000')
    assert shown(findings) == [
        (
            "error",
            "PA029",
            "`$M` is empty, so the unquoted word vanishes where vllm 0.6.6.post1 needs its positional "
            f"model_tag: {REQUIRED}",
            [
                ("info", "SC2086", "shellcheck: Double quote to prevent globbing and word splitting."),
                ("error", "PA001", REQUIRED),
                (
                    "error",
                    "PA020",
                    "model_tag is required by vllm 0.6.6.post1 and is not given: argparse stops with "
                    '"the following arguments are required" (exit 2)',
                ),
            ],
        )
    ]
    assert (findings[0]["basis"], findings[0]["fix"]) == ("schema", EMPTY_FIX)


def test_an_unset_script_argument_after_a_switch_asks_for_the_arguments(tmp_path: Path) -> None:
    findings = check(tmp_path, VLLM_066, "vllm serve --trust-remote-code $1 --port 8000")
    assert [(f["severity"], f["code"], f["message"], f["fix"]) for f in findings] == [
        (
            "warning",
            "PA029",
            "`$1` is unset (argtrace was given no such script argument), so the unquoted word vanishes where "
            "vllm 0.6.6.post1 needs its positional model_tag: if the caller passes it, model_tag gets it; "
            f"if not, {REQUIRED}",
            "pass the script's arguments after it (`argtrace check SCRIPT MODEL ...`), or write the model in "
            "place of `$1`",
        )
    ]


def test_sglang_serve_with_an_unset_model_variable(tmp_path: Path) -> None:
    findings = check(tmp_path, SGLANG_0523, "sglang serve $M --port 30000")
    assert [(f["severity"], f["code"], f["message"]) for f in findings] == [
        (
            "warning",
            "PA029",
            "`$M` is not set in the environment argtrace was given, so the unquoted word vanishes where the "
            "sglang 0.5.23 `sglang serve` takes its first positional word as the model path: if the server's "
            'environment sets M, the model path gets its value; if not, the launcher stops with "Error: '
            '--model-path is required"',
        )
    ]
    assert [(c["severity"], c["code"]) for c in findings[0]["consequences"]] == [
        ("info", "SC2086"),
        ("info", "PA023"),
        ("info", "PA020"),
    ]


@pytest.mark.parametrize(
    ("version", "command", "quoting_notes"),
    [
        (VLLM_066, "vllm serve /m --port 8000 $EXTRA_ARGS --dtype half ${OPTS}", 2),
        (VLLM_066, "vllm serve $EXTRA_ARGS /m --port 8000", 1),
        (SGLANG_0523, "sglang serve /m $EXTRA_ARGS --port 30000", 1),
        (SGLANG_0523, "python3 -m sglang.launch_server --model-path /m ${OPTS} --port 30000", 1),
    ],
)
def test_an_unset_list_of_extra_flags_adds_nothing(
    tmp_path: Path, version: tuple[str, ...], command: str, quoting_notes: int
) -> None:
    """Nothing is missing: the vanished words are what such variables are for (shellcheck's notes only)."""
    findings = check(tmp_path, version, command)
    assert [(f["severity"], f["code"]) for f in findings] == [("info", "SC2086")] * quoting_notes


def test_the_link_needs_the_same_positional_and_server() -> None:
    """PA029 folds PA020 of its positional and the PA001 that lists it; another server's stay causes."""
    cause = Finding("PA029", "warning", "parser", "`$M` ...", at="s.sh:2:12", setting="model_tag", server=0)
    pa001 = Finding("PA001", "info", "parser", REQUIRED, at="s.sh:2:1", server=0)
    pa020 = Finding(
        "PA020", "info", "parser", "model_tag is required", at="s.sh:2:1", setting="model_tag", server=0
    )
    other = Finding(
        "PA020", "error", "parser", "model_tag is required", at="s.sh:3:1", setting="model_tag", server=1
    )
    report = Report(command="check", findings=[cause, pa001, pa020, other])
    got = [(f.code, f.server, [c.code for c in f.consequences]) for f in fold_causes(report)]
    assert got == [("PA029", 0, ["PA001", "PA020"]), ("PA020", 1, [])]
