"""A script that reads its arguments, checked without any (`argtrace check launch.sh`): what its words and
variables get from them is what `bash launch.sh` with no arguments does, which is rarely how it is launched.
Such findings rest on that (basis ``assumed``, at most a warning, the option that replaces it named), and so
do the findings they explain; given arguments, missing or empty ones are the invocation's and stay errors
(shell layer: ``Commands._from_missing_arguments``; ``verdicts.settle``; ``causes._resting_on``)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli

ASSUMED = {
    "what": "script-arguments",
    "value": "the script gets no arguments",
    "option": "its arguments after SCRIPT: argtrace check SCRIPT ARG1 ARG2 ...",
}
GPU_FROM_ARGUMENT = (
    "#!/bin/bash\nGPU=$1\nPORT=${2:-30000}\nexport CUDA_VISIBLE_DEVICES=$GPU\n"
    "python3 -m sglang.launch_server --model-path /models/qwen --port $PORT\n"
)


def _check(tmp_path: Path, script: str, *args: str) -> tuple[int, list[dict[str, object]]]:
    path = tmp_path / "launch.sh"
    path.write_text(script)
    result = run_cli(
        ["check", "--format", "json", "--framework-version", "0.5.10.post1", "--no-resolve", str(path), *args]
    )
    return result.status, result.json["findings"]


def _by_code(findings: list[dict[str, object]]) -> dict[object, dict[str, object]]:
    return {f["code"]: f for f in findings}


def test_an_empty_gpu_list_made_from_an_argument_not_given_is_an_assumed_warning(tmp_path: Path) -> None:
    status, findings = _check(tmp_path, GPU_FROM_ARGUMENT)
    pr006 = _by_code(findings)["PR006"]
    assert (pr006["severity"], pr006["basis"], pr006["assumed"]) == ("warning", "assumed", [ASSUMED])
    assert pr006["message"] == "CUDA_VISIBLE_DEVICES is set but empty: the server sees no GPU at all"
    assert status == 0


def test_the_same_empty_argument_given_is_the_invocations_error(tmp_path: Path) -> None:
    status, findings = _check(tmp_path, GPU_FROM_ARGUMENT, "")
    pr006 = _by_code(findings)["PR006"]
    assert (pr006["severity"], pr006.get("basis"), pr006.get("assumed")) == ("error", "static", None)
    assert status == 1


def test_an_empty_gpu_list_written_in_the_script_stays_an_error(tmp_path: Path) -> None:
    script = GPU_FROM_ARGUMENT.replace("GPU=$1", "GPU=")
    status, findings = _check(tmp_path, script)
    assert (_by_code(findings)["PR006"]["severity"], status) == ("error", 1)


def test_a_flag_value_vanished_with_an_argument_not_given_is_an_assumed_warning(tmp_path: Path) -> None:
    script = "#!/bin/bash\npython3 -m sglang.launch_server --model-path /m --port $2 --tp-size 1\n"
    _, findings = _check(tmp_path, script)
    (sh007,) = [f for f in findings if f["code"] == "SH007"]
    assert sh007["message"] == (
        "`$2` is unset (the script got 0 arguments), so the unquoted word vanishes: `--port` takes "
        "`--tp-size` as its value"
    )
    assert (sh007["severity"], sh007["basis"], sh007["assumed"]) == ("warning", "assumed", [ASSUMED])


def test_the_parser_errors_an_assumed_cause_explains_rest_on_it_too(tmp_path: Path) -> None:
    script = "#!/bin/bash\nMODEL=$1\npython3 -m sglang.launch_server --model-path $MODEL --port 30000\n"
    status, findings = _check(tmp_path, script)
    (sh026,) = findings
    assert (sh026["code"], sh026["severity"], sh026["assumed"]) == ("SH026", "warning", [ASSUMED])
    consequences = sh026["consequences"]
    assert isinstance(consequences, list)
    assert [(c["code"], c["severity"]) for c in consequences] == [("PA012", "warning"), ("PA020", "warning")]
    assert status == 0


def test_a_value_through_two_variables_is_traced_to_the_argument(tmp_path: Path) -> None:
    script = (
        '#!/bin/bash\nNODE_GPUS="$1"\nDEVICES=$NODE_GPUS\nexport CUDA_VISIBLE_DEVICES=${DEVICES}\n'
        "python3 -m sglang.launch_server --model-path /models/qwen\n"
    )
    _, findings = _check(tmp_path, script)
    assert _by_code(findings)["PR006"]["severity"] == "warning"
