"""The one-cause leftovers of vanished words (argtrace/causes.py, frameworks/vanished.py,
layers/shell/vanished.py, layers/transport): what an unquoted expansion that expanded to no word explains,
wherever it vanished.

* a flag's value lost to a variable the caller's environment does not set here: SH007 is the one cause, a
  warning resting on that assumption, with the parser's PA012/PA020 folded under it as notes;
* a required flag a vanished ``$OPTS`` of the caller's environment may carry: PA020 is a warning (basis
  ``assumed``) naming the variable; set to "" by the script it stays an error;
* a required positional missing with no vanished word (``vllm serve --model X`` on vLLM 0.6.6, whose
  ``serve`` requires ``model_tag``): PA020 with argparse's own PA001 folded under it;
* containers: ``docker run IMAGE ... $MODEL`` keeps the local shell's vanished words; compose interpolates
  an unset ``${VAR}`` to "" and then splits a string ``command:`` (the word vanishes); Kubernetes leaves an
  undefined ``$(VAR)`` literal (nothing vanishes: TP012 explains what the parser says of the text).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.causes import fold_causes
from argtrace.fixes.attach import _from_consequences
from argtrace.model import Finding, FixEdit, Report
from tests.conftest import run_cli

VLLM_066 = ("--framework-version", "0.6.6.post1")
SGLANG_0510 = ("--framework-version", "0.5.10.post1")
IMAGE_066 = "vllm/vllm-openai:v0.6.6.post1"
SGLANG_IMAGE = "lmsysorg/sglang:v0.5.10.post1"
STOPS = 'argparse stops with "the following arguments are required" (exit 2)'
MODEL_TAG_MISSING = f"model_tag is required by vllm 0.6.6.post1 and is not given: {STOPS}"
ARGS_REQUIRED = 'argparse stops with "the following arguments are required: model_tag" (exit 2)'
PORT_NEEDS = (
    "--port needs a value but gets none, and the next word '--host' looks like a flag; argparse stops with "
    '"argument --port: expected one argument" (exit status 2)'
)


@pytest.fixture(autouse=True)
def first_run_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path / "argtrace-cache"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    for name in ("MODEL", "PORT", "OPTS", "EXTRA"):
        monkeypatch.delenv(name, raising=False)


def check(tmp_path: Path, *argv: str) -> tuple[int, list[dict[str, Any]]]:
    result = run_cli(["check", "--format", "json", "--clean-env", "--no-resolve", *argv], cwd=tmp_path)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    findings = [f for f in result.json["findings"] if f["code"] not in ("RS004", "PR007", "PR011")]
    return result.status, findings


def shown(findings: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [
        (
            f["severity"],
            f["code"],
            f["basis"],
            f["at"],
            [(c["severity"], c["code"], c["at"]) for c in f.get("consequences", [])],
        )
        for f in findings
    ]


# --- 1. SH007 is the cause of the parser's PA012/PA020 ---------------------------------------------


def test_a_caller_variable_lost_as_a_required_flags_value_is_one_warning(tmp_path: Path) -> None:
    status, findings = check(
        tmp_path, *SGLANG_0510, "-c", "python3 -m sglang.launch_server --model-path $MODEL --port 30000"
    )
    assert shown(findings) == [
        (
            "warning",
            "SH007",
            "assumed",
            "<-c>:1:46",
            [("info", "PA012", "<-c>:1:33"), ("info", "PA020", "<-c>:1:1")],
        )
    ]
    assert findings[0]["message"] == (
        "`$MODEL` is not set (in the environment argtrace was given; if the caller sets it, pass "
        "`--env MODEL=...`), so the unquoted word vanishes: `--model-path` takes `--port` as its value"
    )
    # --model-path has no default to write: the fix names the variable, no edit
    assert (findings[0]["fix"], findings[0]["fix_edits"]) == (
        "Set MODEL where the server runs (check with `--env MODEL=...`), give a default (`${MODEL:-VALUE}`), "
        "or stop early (`${MODEL:?MODEL is not set}`).",
        [],
    )
    assert status == 0  # a warning resting on an assumption; its notes fail nothing


def test_a_script_argument_lost_as_a_flags_value_stays_an_error(tmp_path: Path) -> None:
    """Variant: ``$2`` of a script given one argument is the invocation's: certain, so errors."""
    command = "python3 -m sglang.launch_server --model-path $2 --port 30000"
    status, findings = check(tmp_path, *SGLANG_0510, "-c", command, "--", "serve.sh", "0")
    assert shown(findings) == [
        (
            "error",
            "SH007",
            "static",
            "<-c>:1:46",
            [("error", "PA012", "<-c>:1:33"), ("error", "PA020", "<-c>:1:1")],
        )
    ]
    assert status == 1


def test_a_cause_without_an_edit_takes_its_consequences_distinct_edits() -> None:
    """attach.py's candidates for a cause with no edit of its own: each distinct edit of its consequences,
    in their order (the re-check then proves which removes the cause)."""
    edit = FixEdit("s.sh", "2:3", "2:5", "${2:-30000}")
    other = FixEdit("s.sh", "1:9", "1:9", " 30000")
    pa012 = Finding("PA012", "error", "parser", "--port needs a value", fix="share", fix_edits=(edit,))
    same = Finding("PA020", "error", "parser", "--port is required", fix="again", fix_edits=(edit,))
    own = Finding("PA012", "error", "parser", "--port needs a value", fix="own", fix_edits=(other,))
    plain = Finding("PA001", "error", "parser", "no edit")
    cause = Finding("SH007", "error", "shell", "`$2` is unset", consequences=(plain, pa012, same, own))
    assert [(p.edits, p.fix) for p in _from_consequences(cause)] == [((edit,), "share"), ((other,), "own")]


# --- 2. a required flag a vanished $OPTS may carry --------------------------------------------------


def test_a_required_flag_an_unset_opts_may_carry_is_a_warning_naming_it(tmp_path: Path) -> None:
    status, findings = check(
        tmp_path, *SGLANG_0510, "-c", "python3 -m sglang.launch_server $OPTS --port 30000"
    )
    assert shown(findings) == [
        ("warning", "PA020", "assumed", "<-c>:1:33", [("info", "SC2086", "<-c>:1:33")])
    ]
    (pa020,) = findings
    assert pa020["message"] == (
        "--model-path is required by sglang 0.5.10.post1 and is not among the words argtrace sees: "
        "`$OPTS` is not set in the environment argtrace was given, so the unquoted word vanishes; if the "
        f"server's environment sets OPTS with --model-path, the parser gets it; if not, {STOPS}"
    )
    assert pa020["fix"] == (
        "set OPTS where the server runs (check with `--env OPTS='--model-path ...'`), or add "
        "--model-path VALUE"
    )
    assert pa020["evidence"] == [{"layer": "shell", "at": "<-c>:1:33", "text": "$OPTS"}]
    assert status == 0


def test_two_unset_variables_are_both_named(tmp_path: Path) -> None:
    _, findings = check(
        tmp_path, *SGLANG_0510, "-c", "python3 -m sglang.launch_server $OPTS $EXTRA --port 30000"
    )
    pa020 = next(f for f in findings if f["code"] == "PA020")
    assert (pa020["severity"], pa020["message"].split(": ", 1)[1].split(";")[0]) == (
        "warning",
        "`$OPTS`, `$EXTRA` are not set in the environment argtrace was given, so the unquoted words vanish",
    )


def test_opts_the_script_empties_leaves_the_required_flag_an_error(tmp_path: Path) -> None:
    status, findings = check(
        tmp_path, *SGLANG_0510, "-c", 'OPTS=""; python3 -m sglang.launch_server $OPTS --port 30000'
    )
    pa020 = next(f for f in findings if f["code"] == "PA020")
    assert (pa020["severity"], pa020["basis"], pa020["message"], pa020["fix"]) == (
        "error",
        "schema",
        f"--model-path is required by sglang 0.5.10.post1 and is not given: {STOPS}",
        "add --model-path VALUE",
    )
    assert status == 1


# --- 4. a missing positional with no vanished word: PA020 and argparse's PA001 are one cause ---


@pytest.mark.parametrize(
    ("command", "fix"),
    [
        (
            "vllm serve --model /m --port 8000",
            "put the model right after `vllm serve` (`vllm serve MODEL --port ...`); --model does not "
            "give it: vllm 0.6.6.post1's `vllm serve` requires the positional model_tag",
        ),
        # variant: the model written after a flag of one or more words is one more of its values
        (
            "vllm serve --served-model-name qwen /m --port 8000",
            "put the model right after `vllm serve` (`vllm serve MODEL --port ...`); `/m` after "
            "--served-model-name is taken as one more of its values (it takes one or more words), not as the "
            "model",
        ),
        # variant: no model at all
        (
            "vllm serve --trust-remote-code --port 8000",
            "put the model right after `vllm serve` (`vllm serve MODEL --port ...`)",
        ),
    ],
)
def test_a_missing_model_tag_is_one_finding(tmp_path: Path, command: str, fix: str) -> None:
    status, findings = check(tmp_path, *VLLM_066, "-c", command)
    assert [(f["severity"], f["code"], f["message"], f["fix"]) for f in findings] == [
        ("error", "PA020", MODEL_TAG_MISSING, fix)
    ]
    assert [(c["severity"], c["code"], c["message"]) for c in findings[0]["consequences"]] == [
        ("error", "PA001", ARGS_REQUIRED)
    ]
    assert status == 1


def test_the_missing_required_link_needs_the_same_server() -> None:
    pa020 = Finding(
        "PA020", "error", "parser", MODEL_TAG_MISSING, at="s.sh:2:1", setting="model_tag", server=0
    )
    mine = Finding("PA001", "error", "parser", ARGS_REQUIRED, at="s.sh:2:1", server=0)
    other = Finding("PA001", "error", "parser", ARGS_REQUIRED, at="s.sh:3:1", server=1)
    report = Report(command="check", findings=[pa020, mine, other])
    got = [(f.code, f.server, [c.code for c in f.consequences]) for f in fold_causes(report)]
    assert got == [("PA020", 0, ["PA001"]), ("PA001", 1, [])]


# --- 3. containers, compose, Kubernetes ---------------------------------------------------------------------


def test_docker_run_keeps_the_local_shells_vanished_model(tmp_path: Path) -> None:
    (tmp_path / "run.sh").write_text(
        f"#!/bin/bash\ndocker run --gpus all --entrypoint vllm {IMAGE_066} serve $MODEL --port 8000\n"
    )
    status, findings = check(tmp_path, "run.sh")
    assert shown(findings) == [
        (
            "warning",
            "PA029",
            "assumed",
            "run.sh:2:77",
            [
                ("info", "SC2086", "run.sh:2:77"),
                ("info", "PA001", "run.sh:2:1"),
                ("info", "PA020", "run.sh:2:1"),
            ],
        )
    ]
    assert findings[0]["message"].startswith(
        "`$MODEL` is not set in the environment argtrace was given, so the unquoted word vanishes where vllm "
        "0.6.6.post1 needs its positional model_tag"
    )
    assert status == 0


def test_docker_run_keeps_a_flags_lost_value(tmp_path: Path) -> None:
    """Variant: the word vanished after a flag of the container's server: SH007, as in the script itself."""
    (tmp_path / "run.sh").write_text(
        f"#!/bin/bash\ndocker run --gpus all {SGLANG_IMAGE} python3 -m sglang.launch_server --model-path /m "
        "--port $PORT --host 0.0.0.0\n"
    )
    status, findings = check(tmp_path, "run.sh")
    assert shown(findings) == [
        (
            "warning",
            "SH007",
            "assumed",
            "run.sh:2:108",
            [("info", "SC2086", "run.sh:2:108"), ("info", "PA012", "run.sh:2:1")],
        )
    ]
    assert findings[0]["consequences"][1]["message"] == PORT_NEEDS
    assert findings[0]["fix_edits"] == [
        {"file": "run.sh", "start": "2:108", "end": "2:113", "replacement": "${PORT:-30000}"}
    ]
    assert findings[0]["fix_verified"] is True
    assert status == 0


COMPOSE_MODEL = (
    f"services:\n  vllm:\n    image: {IMAGE_066}\n    entrypoint: vllm\n"
    "    command: serve ${MODEL} --port 8000\n"
)
COMPOSE_PORT = (
    f"services:\n  sglang:\n    image: {SGLANG_IMAGE}\n"
    "    command: python3 -m sglang.launch_server --model-path /m --port ${PORT} --host 0.0.0.0\n"
)


def test_compose_leaves_an_unset_model_out_of_a_string_command(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(COMPOSE_MODEL)
    status, findings = check(tmp_path, "compose.yaml")
    assert shown(findings) == [
        (
            "warning",
            "PA029",
            "assumed",
            "compose.yaml:5",
            [
                ("warning", "TP012", "compose.yaml:5"),
                ("info", "PA001", "compose.yaml:5"),
                ("info", "PA020", "compose.yaml:5"),
            ],
        )
    ]
    assert status == 0


def test_compose_leaves_an_unset_port_out_and_tp012_is_the_cause(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(COMPOSE_PORT)
    status, findings = check(tmp_path, "compose.yaml")
    assert shown(findings) == [
        ("warning", "TP012", "assumed", "compose.yaml:4", [("info", "PA012", "compose.yaml:4")])
    ]
    assert findings[0]["message"] == (
        "${PORT} in `command:` is not set in the environment argtrace was given or the .env file: if it is "
        "unset where `docker compose` runs too, compose warns and substitutes an empty string, and the "
        "unquoted word vanishes from the command (`--port` loses its value)"
    )
    # compose's own default syntax with the release's default for --port, proven by the re-check (carriers8)
    assert findings[0]["fix"] == (
        "Write ${PORT:-30000} at compose.yaml:4:69: when PORT is unset or empty where `docker compose` runs, "
        "--port gets sglang's default, 30000 (or set PORT there or in .env; `${PORT:?...}` makes compose "
        "stop instead)."
    )
    assert findings[0]["fix_edits"] == [
        {"file": "compose.yaml", "start": "4:69", "end": "4:76", "replacement": "${PORT:-30000}"}
    ]
    assert findings[0]["fix_verified"] is True
    assert status == 0


def test_compose_with_the_port_emptied_in_dotenv_is_certain(tmp_path: Path) -> None:
    """Variant: ``.env`` sets PORT to "": nothing is assumed, the parser's refusal is an error."""
    (tmp_path / "compose.yaml").write_text(COMPOSE_PORT)
    (tmp_path / ".env").write_text("PORT=\n")
    status, findings = check(tmp_path, "compose.yaml")
    assert shown(findings) == [
        ("warning", "SH026", "static", "compose.yaml:4", [("error", "PA012", "compose.yaml:4")])
    ]
    assert findings[0]["message"] == (
        "`${PORT}` is empty, so the unquoted word vanishes: `--port` takes `--host` as its value"
    )
    assert status == 1


def test_compose_list_items_keep_an_empty_word(tmp_path: Path) -> None:
    """Variant: a list item is one word whatever it holds (compose does not split it): nothing vanishes."""
    (tmp_path / "compose.yaml").write_text(
        f"services:\n  vllm:\n    image: {IMAGE_066}\n    command: [--model, /m, --port, '${{PORT}}']\n"
    )
    status, findings = check(tmp_path, "compose.yaml")
    tp012 = next(f for f in findings if f["code"] == "TP012")
    # compose reads the shell that runs it: unset here is an assumption (carriers8; Compose specification,
    # Interpolation), and the parser's refusal of the empty word rests on it
    assert (tp012["severity"], tp012["basis"], tp012["message"]) == (
        "warning",
        "assumed",
        "${PORT} in `command:` is not set in the environment argtrace was given or the .env file: if it is "
        "unset where `docker compose` runs too, compose warns and substitutes an empty string, so the list "
        "item '${PORT}' reaches the server as the empty word '' (the value of `--port`)",
    )
    assert [(c["code"], c["severity"]) for c in tp012["consequences"]] == [("PA010", "warning")]
    assert status == 0


def test_kubernetes_leaves_an_undefined_reference_literal_and_tp012_explains_it(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: vllm\nspec:\n  containers:\n  - name: vllm\n"
        f"    image: {IMAGE_066}\n    command: [vllm, serve]\n    args: ['$(MODEL)', --port, '$(PORT)']\n"
    )
    status, findings = check(tmp_path, "pod.yaml")
    assert [
        (
            f["severity"],
            f["code"],
            f["message"],
            [(c["code"], c["message"]) for c in f.get("consequences", [])],
        )
        for f in findings
    ] == [
        (
            "error",
            "TP012",
            "$(MODEL) in container vllm's `args` is not defined in the container's env: Kubernetes leaves it "
            "literal and the process receives '$(MODEL)'",
            [
                (
                    "TP013",
                    "container vllm's command is an exec-form argv: no shell runs it, so '$(MODEL)' is "
                    "passed to the program as a literal argument",
                )
            ],
        ),
        (
            "error",
            "TP012",
            "$(PORT) in container vllm's `args` is not defined in the container's env: Kubernetes leaves it "
            "literal and the process receives '$(PORT)'",
            [("PA010", "argument --port: invalid int value: '$(PORT)' (argparse exit 2)")],
        ),
    ]
    assert status == 1


def test_an_empty_copy_of_a_caller_variable_rests_on_the_same_assumption(tmp_path: Path) -> None:
    """``rank_id=$RANK`` with RANK not set here: ``$rank_id`` is empty only if the caller leaves RANK unset
    too (the S-GRPO serving script of fa24), so SH026 says so, as SH007 does for ``$RANK`` itself: a
    warning resting on an assumption, never an error."""
    (tmp_path / "launch.sh").write_text(
        "rank_id=$RANK\npython3 -m sglang.launch_server --model-path m --node-rank $rank_id --port 30000\n"
    )
    status, findings = check(tmp_path, *SGLANG_0510, "launch.sh")
    assert [(f["severity"], f["code"], f["basis"]) for f in findings] == [("warning", "SH026", "assumed")]
    assert findings[0]["message"] == (
        "`$rank_id` is empty here: the script sets it from `$RANK`, which is not set (in the environment "
        "argtrace was given; if the caller sets it, pass `--env RANK=...`), so the unquoted word vanishes: "
        "`--node-rank` takes `--port` as its value"
    )
    assert status == 0
