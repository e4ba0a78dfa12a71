"""Carriers, 7th batch: dstack run configurations (``.dstack.yml``) and ``bash -lc`` (grouped shell options).

The ``ok_*`` files are dstack's own published examples (tests/data/carriers7/, each header names its URL at
a commit); before this batch argtrace refused every one (exit 2: "YAML, but neither a docker compose file
... nor a Kubernetes manifest"). Each must now give its exact server argv with no error and no warning.
The rest are our own minimal inputs for the rules: dstack's ``_commands``/``_join_shell_commands``
(``src/dstack/_internal/server/services/jobs/configurators/base.py``), ``EnvSentinel.from_env``
(``core/models/envs.py``) and bash's "Invoking Bash" option grammar.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.shell.invocation import shell_invocation
from argtrace.layers.transport.manifests import manifest_kind
from tests.conftest import alarms, run_cli

DATA = Path(__file__).resolve().parents[1] / "data" / "carriers7"


def check(path: Path, *extra: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", "--no-resolve", *extra, path.name], cwd=path.parent)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def codes(report: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((f["code"], f["severity"]) for f in report["findings"])


_PD = "python -m sglang.launch_server --model-path zai-org/GLM-4.5-Air-FP8 --disaggregation-mode"
_PD_REST = "--disaggregation-transfer-backend mooncake --host 0.0.0.0 --port 8000"
# each server's argv as one string; `?` is a word whose value is not known here (`$DSTACK_GPUS_NUM`)
OK: dict[str, list[str]] = {
    "ok_dstack_vllm_llama31.dstack.yml": [
        "vllm serve meta-llama/Meta-Llama-3.1-8B-Instruct --max-model-len 4096 --tensor-parallel-size ?"
    ],
    "ok_dstack_sglang_pd_replicas.dstack.yml": [
        f"{_PD} prefill {_PD_REST} --disaggregation-bootstrap-port 8998",
        f"{_PD} decode {_PD_REST}",
    ],
    "ok_dstack_sglang_rocm.dstack.yml": [
        "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1-Distill-Llama-70B --port 8000 "
        "--trust-remote-code"
    ],
    "ok_dstack_vllm_image.dstack.yml": [
        "vllm serve deepseek-ai/DeepSeek-R1-Distill-Llama-8B --max-model-len 4096"
    ],
    "ok_dstack_vllm_task.dstack.yml": [
        "vllm serve meta-llama/Meta-Llama-3.1-8B-Instruct --tensor-parallel-size ? --max-model-len 4096"
    ],
    # the ` # Should match the number of GPUs` is a YAML comment, gone before the shell sees the command
    "ok_dstack_mixtral_comment_in_command.dstack.yml": [
        "python -m vllm.entrypoints.openai.api_server --model mistralai/Mixtral-8x7B-Instruct-v0.1 "
        "--host 0.0.0.0 --tensor-parallel-size 2"
    ],
    "ok_dstack_vllm_rocm_build.dstack.yml": [
        "vllm serve meta-llama/Meta-Llama-3.1-70B-Instruct --max-model-len 126192 --port 8000"
    ],
    "ok_dstack_api_server_pythonpath.dstack.yml": [
        "python3 -m vllm.entrypoints.openai.api_server --model NousResearch/Llama-2-7b-chat-hf --port 8000"
    ],
}


def argv(line: str) -> list[str | None]:
    return [None if word == "?" else word for word in line.split()]


@pytest.mark.parametrize("name", sorted(OK))
def test_dstack_examples_read_exactly_and_clean(name: str) -> None:
    report = check(DATA / name)
    assert [s["argv"] for s in report["servers"]] == [argv(line) for line in OK[name]]
    assert alarms(report) == []
    assert "SH019" not in {f["code"] for f in report["findings"]}


def test_dstack_files_are_told_apart_by_content() -> None:
    for name in OK:
        assert manifest_kind((DATA / name).read_bytes()) == "dstack", name
    # another tool's YAML with a `type:` key stays what it was
    assert manifest_kind(b"type: object\nproperties:\n  a: 1\n") is None
    assert manifest_kind(b"apiVersion: v1\nkind: Pod\ntype: service\ncommands: []\n") == "kubernetes"


def test_bare_env_name_is_a_note_without_env_and_an_error_when_env_lacks_it(tmp_path: Path) -> None:
    path = tmp_path / "serve.dstack.yml"
    path.write_text(
        "type: service\nimage: vllm/vllm-openai:v0.10.1\nenv:\n  - HF_TOKEN\n  - MODEL=Qwen/Qwen3-0.6B\n"
        "commands:\n  - vllm serve $MODEL --port 8000\nport: 8000\n"
    )
    report = check(path)
    tp089 = [f for f in report["findings"] if f["code"] == "TP089"]
    assert [(f["severity"], f["at"]) for f in tp089] == [("info", "serve.dstack.yml:4")]
    assert tp089[0]["message"] == (
        "env: HF_TOKEN has no value: `dstack apply` takes it from its own environment and refuses the run "
        'when it is not set there ("Environment variable HF_TOKEN is not set"); that environment is not '
        "known here"
    )
    report = check(path, "--env", "OTHER=1")
    assert [f["severity"] for f in report["findings"] if f["code"] == "TP089"] == ["error"]
    report = check(path, "--env", "HF_TOKEN=hf_x")
    assert "TP089" not in {f["code"] for f in report["findings"]}
    assert [s["argv"] for s in report["servers"]] == [["vllm", "serve", "Qwen/Qwen3-0.6B", "--port", "8000"]]


def test_commands_are_one_and_list_so_cd_and_export_carry_over(tmp_path: Path) -> None:
    path = tmp_path / "serve.dstack.yml"
    path.write_text(
        "type: task\npython: '3.11'\nenv:\n  - MODEL=Qwen/Qwen3-0.6B\ncommands:\n  - export LEN=4096\n"
        "  - vllm serve $MODEL --max-model-len $LEN --tensor-parallel-size $DSTACK_GPUS_NUM &\n"
        "  - sleep 10\nports: [8000]\n"
    )
    report = check(path, "--env", "DSTACK_GPUS_NUM=2")
    assert [s["argv"] for s in report["servers"]] == [
        ["vllm", "serve", "Qwen/Qwen3-0.6B", "--max-model-len", "4096", "--tensor-parallel-size", "2"]
    ]
    # the server's own line of the YAML file (the column is that of the `{ ... & }` dstack wraps it in)
    assert report["servers"][0]["at"] == "serve.dstack.yml:7:3"
    hop = next(h for h in report["transport"]["hops"] if h.get("via") == "dstack")
    assert hop["shell"] == "/bin/bash -i -c"  # no image: dstack's base image, bash
    assert alarms(report) == []


def test_entrypoint_is_an_argv_without_a_shell(tmp_path: Path) -> None:
    path = tmp_path / "serve.dstack.yml"
    path.write_text(
        "type: service\nimage: lmsysorg/sglang:v0.5.5\nentrypoint: python3 -m sglang.launch_server\n"
        "commands:\n  - --model-path\n  - Qwen/Qwen3-0.6B\n  - --served-model-name\n  - $NAME\nport: 30000\n"
    )
    report = check(path)
    # no shell reads the words: `$NAME` reaches the server as written
    assert [s["argv"] for s in report["servers"]] == [
        [
            "python3",
            "-m",
            "sglang.launch_server",
            "--model-path",
            "Qwen/Qwen3-0.6B",
            "--served-model-name",
            "$NAME",
        ]
    ]


def test_image_without_commands_is_said_unknown(tmp_path: Path) -> None:
    path = tmp_path / "serve.dstack.yml"
    path.write_text("type: service\nimage: vllm/vllm-openai:latest\nport: 8000\n")
    report = check(path)
    assert report["servers"] == []
    assert ("TP090", "info") in codes(report)
    assert alarms(report) == []
    tp090 = next(f for f in report["findings"] if f["code"] == "TP090")
    assert tp090["at"] == "serve.dstack.yml:2"
    assert "runs the image's own ENTRYPOINT/CMD" in tp090["message"]


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["bash", "-lc", "CMD", "a0"], (2, True)),
        (["sh", "-ec", "CMD"], (2, True)),
        (["bash", "-o", "pipefail", "-c", "CMD"], (4, True)),
        (["bash", "-c", "-l", "CMD"], (3, True)),
        (["bash", "--norc", "--rcfile", "f", "-xc", "CMD"], (5, True)),
        (["bash", "-l", "script.sh", "-c"], (2, False)),
        (["bash", "--", "script.sh"], (2, False)),
    ],
)
def test_shell_invocation_grammar(words: list[str], expected: tuple[int, bool]) -> None:
    assert shell_invocation(words) == expected


@pytest.mark.parametrize(
    "command",
    [
        'bash -lc "vllm serve Qwen/Qwen3-0.6B --port 8000"',
        'sh -ec "vllm serve Qwen/Qwen3-0.6B --port 8000"',
        'apptainer exec --nv vllm.sif bash -lc "vllm serve Qwen/Qwen3-0.6B --port 8000"',
    ],
)
def test_grouped_c_option_reaches_the_server(tmp_path: Path, command: str) -> None:
    """Before: SH019 "no SGLang or vLLM server start found" (the command string read as a script path)."""
    result = run_cli(["check", "--format", "json", "--no-resolve", "-c", command], cwd=tmp_path)
    report = result.json
    assert [s["argv"] for s in report["servers"]] == [["vllm", "serve", "Qwen/Qwen3-0.6B", "--port", "8000"]]
    assert alarms(report) == []
