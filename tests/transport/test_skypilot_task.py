"""``argtrace check task.sky.yaml``: SkyPilot's environment for ``run:``/``setup:`` (our own inputs).

``envs:`` values as SkyPilot 0.14.1 turns them into strings (``str()`` of the YAML value: ``0.90`` ->
``0.9``, ``true`` -> ``True``), a null entry (TP066) and ``--env`` giving it, ``SKYPILOT_NUM_GPUS_PER_NODE``
from ``resources.accelerators`` in each form, TP042 against one node's GPUs, and the generated table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.transport.manifests import manifest_kind
from argtrace.layers.transport.skypilot import task_table
from tests.conftest import run_cli

TASK = """resources:
  accelerators: {H100: 4}
envs:
  MODEL: Qwen/Qwen2.5-7B-Instruct
  EAGER: true
  UTIL: 0.90
  TOKEN_X:
run: |
  echo "$EAGER"
  vllm serve $MODEL --tensor-parallel-size $SKYPILOT_NUM_GPUS_PER_NODE \\
    --gpu-memory-utilization $UTIL --port 8000
"""


def check(tmp_path: Path, text: str, *options: str) -> dict[str, Any]:
    (tmp_path / "task.yaml").write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", *options, "task.yaml"], cwd=tmp_path)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def words(report: dict[str, Any]) -> list[list[str | None]]:
    return [[w["text"] for w in s["words"]] for s in report["servers"]]


def errors(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(f["code"], f["at"], f["message"]) for f in report["findings"] if f["severity"] == "error"]


def notes(report: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [
        (f["code"], f["at"], f["message"], f.get("basis", ""))
        for f in report["findings"]
        if f["severity"] == "info" and f["code"] == "TP066"
    ]


_REFUSED = (
    'envs: TOKEN_X has no value and no --env gives one: SkyPilot refuses the task ("Environment '
    "variable 'TOKEN_X' is None. Please set a value for it in task YAML or with --env flag.\", "
    "sky/task.py:716)"
)


def test_envs_values_and_a_null_entry(tmp_path: Path) -> None:
    # no --env at all: the `sky launch` line is unknown, and a null entry is how a task asks for a value
    # at launch (SkyPilot's own examples say `sky launch --env HF_TOKEN`): a note resting on that
    report = check(tmp_path, TASK)
    assert errors(report) == []
    assert notes(report) == [
        ("TP066", "task.yaml:7", _REFUSED + " unless `sky launch` is given `--env TOKEN_X`", "assumed")
    ]
    assert words(report) == [
        ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", "--tensor-parallel-size", "4",
         "--gpu-memory-utilization", "0.9", "--port", "8000"]
    ]  # fmt: skip
    hop = report["transport"]["hops"][0]
    assert (hop["accelerators"], hop["gpus_per_node"], hop["envs"]) == (
        "{H100: 4}",
        4,
        ["EAGER", "MODEL", "TOKEN_X", "UTIL"],
    )


def test_env_option_gives_the_null_entry(tmp_path: Path) -> None:
    report = check(tmp_path, TASK, "--env", "TOKEN_X=abc")
    assert errors(report) == []


def test_env_given_without_the_null_entry_is_refused_for_certain(tmp_path: Path) -> None:
    # --env says what `sky launch` gets; TOKEN_X is not among them: SkyPilot refuses the task
    assert errors(check(tmp_path, TASK, "--env", "OTHER=1")) == [("TP066", "task.yaml:7", _REFUSED)]


def test_caller_environment_does_not_reach_the_task(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOKEN_X", "from-the-callers-shell")
    assert [c for c, _a, _m in errors(check(tmp_path, TASK, "--env", "OTHER=1"))] == ["TP066"]


@pytest.mark.parametrize(
    ("accelerators", "gpus"),
    [
        ("H100:8", 8),
        ("H100", 1),
        ("{A100: 2}", 2),
        ("[A100:8, H100:8]", 8),
        ("{L4, A10G}", 1),
        ("{ H100:8, H200:8 }", 8),
        ("[A100:8, H100:4]", None),
    ],
)
def test_accelerator_forms(tmp_path: Path, accelerators: str, gpus: int | None) -> None:
    text = f"resources:\n  accelerators: {accelerators}\nrun: |\n  vllm serve m --tensor-parallel-size 2\n"
    report = check(tmp_path, text)
    assert report["transport"]["hops"][0]["gpus_per_node"] == gpus
    fires = [f["code"] for f in report["findings"] if f["code"] == "TP042"]
    assert fires == (["TP042"] if gpus == 1 else [])


def test_ray_cluster_over_nodes_counts_every_nodes_gpus(tmp_path: Path) -> None:
    text = (
        "resources:\n  accelerators: L4:1\nnum_nodes: 2\nrun: |\n"
        "  ray start --head --port 6379\n  vllm serve m --tensor-parallel-size 2\n"
    )
    report = check(tmp_path, text)
    assert [f["code"] for f in report["findings"] if f["code"] == "TP042"] == []
    without_ray = check(tmp_path, text.replace("  ray start --head --port 6379\n", ""))
    assert [f["code"] for f in without_ray["findings"] if f["code"] == "TP042"] == ["TP042"]


def test_setup_variable_read_in_run(tmp_path: Path) -> None:
    text = "run: |\n  echo $SKYPILOT_SETUP_NODE_RANK\n  vllm serve m\n"
    assert errors(check(tmp_path, text)) == [
        (
            "TP067",
            "task.yaml:2",
            "`run:` reads SKYPILOT_SETUP_NODE_RANK, which SkyPilot sets for `setup:` only "
            "(sky/backends/cloud_vm_ray_backend.py:4127): it is empty here",
        )
    ]


def test_detection() -> None:
    assert manifest_kind(b"resources:\n  accelerators: H100:8\nrun: |\n  vllm serve m\n") == "skypilot"
    # a key SkyPilot's schema does not have: not a task (a framework's --config, a CI file)
    assert manifest_kind(b"run: x\nmodel: m\n") is None
    assert manifest_kind(b"#!/bin/bash\nrun: x\n") is None


def test_generated_table_names_its_sources() -> None:
    table = task_table()
    assert table["source"] == "skypilot 0.14.1 wheel, read by scripts/gen_skypilot_task.py"
    assert sorted(table["run"]) == [
        "SKYPILOT_INTERNAL_JOB_ID",
        "SKYPILOT_NODE_IPS",
        "SKYPILOT_NODE_RANK",
        "SKYPILOT_NUM_GPUS_PER_NODE",
        "SKYPILOT_NUM_NODES",
    ]
    assert sorted(table["setup"]) == [
        "SKYPILOT_NUM_NODES",
        "SKYPILOT_SETUP_NODE_IPS",
        "SKYPILOT_SETUP_NODE_RANK",
        "SKYPILOT_SETUP_NUM_GPUS_PER_NODE",
    ]
    assert {"run", "setup", "envs", "secrets", "resources", "num_nodes", "service"} <= set(table["task_keys"])


def test_docker_run_inside_run_is_followed(tmp_path: Path) -> None:
    text = (
        "resources:\n  accelerators: L4:1\nenvs:\n  MODEL: Qwen/Qwen2.5-7B-Instruct\nrun: |\n"
        "  docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.11.0 "
        "--model $MODEL --tensor-parallel-size 2\n"
    )
    report = check(tmp_path, text)
    assert words(report) == [
        ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen2.5-7B-Instruct",
         "--tensor-parallel-size", "2"]
    ]  # fmt: skip
    assert [h["via"] for h in report["transport"]["hops"]] == ["skypilot", "docker run"]
    assert [c for c, _a, _m in errors(report)] == ["TP042"]


def test_a_misspelt_top_level_key(tmp_path: Path) -> None:
    text = "resources:\n  accelerators: L4:1\nenv:\n  MODEL: Qwen/Qwen2.5-7B-Instruct\n"
    text += "run: |\n  vllm serve $MODEL\n"
    report = check(tmp_path, text)
    assert errors(report) == [
        (
            "TP069",
            "task.yaml:3",
            '`env:` is no key of a SkyPilot task: SkyPilot refuses the file ("Invalid task YAML: Additional '
            "properties are not allowed ('env' was unexpected)\", sky/utils/schemas.py:1180 "
            "(get_task_schema)); did you mean `envs:`?",
        )
    ]
    assert next(f for f in report["findings"] if f["code"] == "TP069")["fix"] == "Rename it to `envs:`."
