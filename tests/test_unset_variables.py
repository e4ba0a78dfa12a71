"""A variable the launch expands that is not set in the environment argtrace was given: the caller, a node
or a container may set it, so what the parser or the process layer says of a word or environment value made
from it rests on its being unset (basis ``assumed``, at most a warning, ``--env NAME=VALUE`` named). Set in
the script, or given with ``--env``, it is a fact again (shell layer: ``Commands._from_unset_variables``;
``verdicts.settle``). vllm#57713's `--speculative-config "{...:${SPEC_TOKENS}}"` was an error; an
exported `CUDA_VISIBLE_DEVICES=$GPU_IDS` was "the server sees no GPU at all" as an error."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli

VLLM = "#!/bin/bash\n{pre}exec vllm serve /models/m --tensor-parallel-size 1 {flags}\n"
SPEC_JSON = '--speculative-config "{{\\"method\\":\\"mtp\\",\\"num_speculative_tokens\\":{value}}}"'


def _check(tmp_path: Path, script: str, *options: str) -> list[dict[str, object]]:
    path = tmp_path / "launch.sh"
    path.write_text(script)
    result = run_cli(["check", "--format", "json", "--no-resolve", *options, str(path)])
    findings: list[dict[str, object]] = result.json["findings"]
    return findings


def _one(findings: list[dict[str, object]], code: str) -> dict[str, object]:
    (found,) = [f for f in findings if f["code"] == code]
    return found


def _spec(tmp_path: Path, value: str, pre: str = "", *options: str) -> list[dict[str, object]]:
    script = VLLM.format(pre=pre, flags=SPEC_JSON.format(value=value))
    return _check(tmp_path, script, "--framework-version", "0.33.0", *options)


def test_a_json_value_broken_by_an_unset_variable_is_an_assumed_warning(tmp_path: Path) -> None:
    pa011 = _one(_spec(tmp_path, "${SPEC_TOKENS}"), "PA011")
    assert (pa011["severity"], pa011["basis"]) == ("warning", "assumed")
    assert pa011["assumed"] == [
        {
            "what": "environment",
            "value": "SPEC_TOKENS is not set where the server starts",
            "option": "--env SPEC_TOKENS=VALUE",
        }
    ]
    assert str(pa011["message"]).startswith(
        'argument --speculative-config/-sc: Value {"method":"mtp","num_speculative_tokens":} '
        "cannot be converted"
    )


def test_through_an_assignment_too(tmp_path: Path) -> None:
    pre = 'N="${SPEC_TOKENS}"\n'
    pa011 = _one(_spec(tmp_path, "$N", pre), "PA011")
    assert (pa011["severity"], pa011["assumed"][0]["value"]) == (  # type: ignore[index]
        "warning",
        "SPEC_TOKENS is not set where the server starts",
    )


def test_given_with_env_it_is_a_fact(tmp_path: Path) -> None:
    assert not [
        f for f in _spec(tmp_path, "${SPEC_TOKENS}", "", "--env", "SPEC_TOKENS=3") if f["layer"] != "shell"
    ]
    pa011 = _one(_spec(tmp_path, "${SPEC_TOKENS}", "", "--env", "SPEC_TOKENS=three"), "PA011")
    assert (pa011["severity"], pa011.get("basis"), pa011.get("assumed")) == ("error", "schema", None)


def test_emptied_in_the_script_or_broken_without_a_variable_it_stays_an_error(tmp_path: Path) -> None:
    emptied = _one(_spec(tmp_path, "${SPEC_TOKENS}", "SPEC_TOKENS=\n"), "PA011")
    assert (emptied["severity"], emptied.get("assumed")) == ("error", None)
    # in single quotes `${SPEC_TOKENS}` is text, not an expansion: the JSON is broken whatever the caller sets
    script = VLLM.format(pre="", flags="--speculative-config '{\"num_speculative_tokens\":${SPEC_TOKENS}}'")
    literal = _one(_check(tmp_path, script, "--framework-version", "0.33.0"), "PA011")
    assert (literal["severity"], literal.get("assumed")) == ("error", None)


def test_a_finding_about_the_flag_itself_does_not_rest_on_its_value(tmp_path: Path) -> None:
    # --speculative-config is not a flag of vLLM 0.6.6.post1: that holds whatever SPEC_TOKENS is
    findings = _spec(tmp_path, "${SPEC_TOKENS}", "", "--framework-version", "0.6.6.post1")
    refused = [f for f in findings if f["layer"] == "parser" and "--speculative-config" in str(f["message"])]
    assert refused and all(f.get("assumed") is None for f in refused)
    assert {f["severity"] for f in refused} == {"error"}


def test_an_environment_value_made_from_an_unset_variable(tmp_path: Path) -> None:
    script = (
        "#!/bin/bash\nexport CUDA_VISIBLE_DEVICES=$GPU_IDS\n"
        "python3 -m sglang.launch_server --model-path /models/qwen --port 30000\n"
    )
    options = ("--framework-version", "0.5.10.post1")
    pr006 = _one(_check(tmp_path, script, *options), "PR006")
    assert (pr006["severity"], pr006["basis"], pr006["assumed"]) == (
        "warning",
        "assumed",
        [
            {
                "what": "environment",
                "value": "GPU_IDS is not set where the server starts",
                "option": "--env GPU_IDS=VALUE",
            }
        ],
    )
    assert pr006["message"] == "CUDA_VISIBLE_DEVICES is set but empty: the server sees no GPU at all"
    written = _one(_check(tmp_path, script.replace("$GPU_IDS", ""), *options), "PR006")
    assert (written["severity"], written.get("assumed")) == ("error", None)
