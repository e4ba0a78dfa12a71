"""``argtrace check task-definition.json``: an Amazon ECS task definition (layers/transport/ecs.py).

The ECS API reference's ``ContainerDefinition``: ``entryPoint``/``command`` replace the image's
ENTRYPOINT/CMD with no shell, ``environment`` pairs, ``secrets`` not known here, ``resourceRequirements``
GPUs. The real case is aws-ia/ecs-blueprints' vLLM blueprint as Terraform registers it
(tests/data/ecs/README.md); before this module it was refused as JSON argtrace does not read (and before
that read as bash: shellcheck warnings).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from tests.conftest import run_cli

BLUEPRINT = Path(__file__).resolve().parent.parent / "data" / "ecs" / "ecs_blueprints_vllm_gpu_task.json"


def check(tmp_path: Path, task: dict[str, Any]) -> dict[str, Any]:
    (tmp_path / "task.json").write_text(json.dumps(task, indent=2))
    result = run_cli(["check", "--format", "json", "--no-resolve", "task.json"], cwd=tmp_path)
    assert result.status in (0, 1), result.stderr
    report: dict[str, Any] = result.json
    return report


def blueprint() -> dict[str, Any]:
    task: dict[str, Any] = json.loads(BLUEPRINT.read_text())
    return copy.deepcopy(task)


def alarms(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["code"], f["severity"]) for f in report["findings"] if f["severity"] in ("error", "warning")]


def test_the_blueprint_is_read_exactly_and_clean(tmp_path: Path) -> None:
    report = check(tmp_path, blueprint())
    assert alarms(report) == []
    [server] = report["servers"]
    assert [w["text"] for w in server["words"]] == [
        "python3", "-m", "vllm.entrypoints.openai.api_server",  # the image's ENTRYPOINT for v0.10.2
        "--tensor-parallel-size", "4", "--model", "unsloth/Meta-Llama-3.1-8B-Instruct",
    ]  # fmt: skip
    assert report["process"]["env"]["HF_HUB_CACHE"] == "/.cache/huggingface/hub"
    [hop] = report["transport"]["hops"]
    assert (hop["via"], hop["container"], hop["image"]) == ("ecs", "vllm", "vllm/vllm-openai:v0.10.2")
    assert report["framework"]["version"] == "0.10.2"


def test_fewer_gpus_than_the_parallel_sizes_is_tp042(tmp_path: Path) -> None:
    task = blueprint()
    task["containerDefinitions"][0]["resourceRequirements"] = [{"type": "GPU", "value": "2"}]
    report = check(tmp_path, task)
    assert alarms(report) == [("TP042", "error")]
    tp042 = next(f for f in report["findings"] if f["code"] == "TP042")
    assert "container vllm's resourceRequirements (GPU) gives the container 2" in tp042["message"]


def test_a_dollar_reference_is_literal_and_the_fix_is_ecs_own(tmp_path: Path) -> None:
    task = blueprint()
    definition = task["containerDefinitions"][0]
    definition["command"] += ["--served-model-name", "$MODEL_NAME"]
    definition["secrets"] = [{"name": "HF_TOKEN", "valueFrom": "arn:aws:ssm:us-west-2:1:parameter/hf"}]
    report = check(tmp_path, task)
    assert alarms(report) == [("TP013", "error")]
    tp013 = next(f for f in report["findings"] if f["code"] == "TP013")
    assert tp013["message"] == (
        "container vllm's `command` list is an exec-form argv: no shell runs it, so '$MODEL_NAME' is passed "
        "to the program as a literal argument"
    )
    assert tp013["fix"].startswith("ECS runs `command` without a shell and substitutes nothing")
    assert report["process"]["env"]["HF_TOKEN"] is None  # a secret: not known here, never guessed


def test_describe_task_definition_output_is_read_too(tmp_path: Path) -> None:
    report = check(tmp_path, {"taskDefinition": blueprint()})
    assert alarms(report) == []
    assert [w["text"] for w in report["servers"][0]["words"]][-1] == "unsloth/Meta-Llama-3.1-8B-Instruct"
