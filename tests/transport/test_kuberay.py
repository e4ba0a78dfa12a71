"""KubeRay's RayCluster, RayJob and RayService (layers/transport/kuberay.py): the Ray pods they start, the
command KubeRay writes for the Ray container (ray-project/kuberay, ray-operator/controllers/ray/common/pod.go,
BuildPod: the container's words joined unquoted and run before `ray start` by `/bin/bash -c --`, unless they
say `ray start` or the template is annotated `ray.io/overwrite-container-cmd: "true"`), the variables it
sets there, and a RayJob's entrypoint run on the head pod. TP108: a word of the command with a space in it,
which that rewrite splits again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli


def _head(command: str, annotations: str = "", gpus: int = 8, image: str = "vllm/vllm-openai:v0.10.2") -> str:
    return (
        "  headGroupSpec:\n    rayStartParams: {}\n    template:\n"
        + (f"      metadata:\n        annotations:\n          {annotations}\n" if annotations else "")
        + "      spec:\n        containers:\n        - name: ray-head\n"
        + f"          image: {image}\n{command}"
        + f"          resources:\n            limits:\n              nvidia.com/gpu: {gpus}\n"
    )


def _cluster(body: str, kind: str = "RayCluster", name: str = "llm") -> str:
    return f"apiVersion: ray.io/v1\nkind: {kind}\nmetadata:\n  name: {name}\nspec:\n{body}"


_WORKERS = (
    "  workerGroupSpecs:\n  - groupName: gpu\n    replicas: 1\n    rayStartParams: {}\n    template:\n"
    "      spec:\n        containers:\n        - name: ray-worker\n"
    "          image: vllm/vllm-openai:v0.10.2\n"
    "          resources:\n            limits:\n              nvidia.com/gpu: 8\n"
)
_SERVE = "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 8 --pipeline-parallel-size 2"


def _check(tmp_path: Path, text: str, *options: str) -> dict[str, Any]:
    path = tmp_path / "ray.yaml"
    path.write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", *options, str(path)])
    assert result.status in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _codes(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["code"], f["severity"]) for f in report["findings"]]


def test_a_server_started_after_ray_start_over_the_clusters_nodes(tmp_path: Path) -> None:
    """`ray start --head && vllm serve ...`: KubeRay leaves a command that says `ray start` as written, and
    vLLM's Ray executor places 8 x 2 ranks over the head's and the worker's 8 GPUs each (no PA036)."""
    command = (
        '          command: ["/bin/bash", "-c"]\n'
        f'          args: ["ray start --head && {_SERVE} --distributed-executor-backend ray"]\n'
    )
    report = _check(tmp_path, _cluster(_head(command) + _WORKERS))
    (server,) = report["servers"]
    assert server["argv"] == [*_SERVE.split(), "--distributed-executor-backend", "ray"]
    assert [c for c, _s in _codes(report)] == ["SH020"]  # vllm runs only if `ray start` succeeds
    assert server["placement"] == {
        "kind": "RayCluster",
        "name": "llm",
        "role": "head",
        "replicas": 1,
        "gpus": 8,
        "gpus_at": str(tmp_path / "ray.yaml") + ":17",
        "nodes": 2,
    }


def test_kuberays_variables_in_the_ray_container(tmp_path: Path) -> None:
    command = f'          command: ["/bin/bash", "-c"]\n          args: ["ray start --head && {_SERVE}"]\n'
    report = _check(tmp_path, _cluster(_head(command, gpus=16)))
    env = report["process"]["env"]
    assert {k: env[k] for k in sorted(env) if k.startswith("RAY_")} == {
        "RAY_CLOUD_INSTANCE_ID": None,
        "RAY_CLUSTER_NAME": "llm",
        "RAY_CLUSTER_NAMESPACE": None,
        "RAY_NODE_TYPE_NAME": "headgroup",
        "RAY_PORT": "6379",
    }


def test_bash_c_is_split_again_by_kuberay(tmp_path: Path) -> None:
    command = f'          command: ["/bin/bash", "-c"]\n          args: ["{_SERVE}"]\n'
    report = _check(tmp_path, _cluster(_head(command, gpus=16)))
    assert report["servers"] == []  # `bash -c vllm serve ...` runs `vllm` alone
    (finding,) = report["findings"]
    assert (finding["code"], finding["severity"], finding["at"]) == (
        "TP108",
        "error",
        f"{tmp_path}/ray.yaml:14",
    )
    assert finding["message"] == (
        "KubeRay runs container ray-head's command and args joined with spaces, unquoted, as "
        f"`/bin/bash -c -- '/bin/bash -c {_SERVE} && ulimit ...; ray start ...'` (its command does not say "
        '`ray start` and its pod template has no `ray.io/overwrite-container-cmd: "true"` annotation): '
        "`/bin/bash -c` runs only "
        "`vllm`, and `serve Qwen/Qwen3-8B --tensor-parallel-size 8 --pipeline-parallel-size 2` become its "
        "`$0`, `$1`...: the server never gets them"
    )


def test_a_json_word_is_split_into_two(tmp_path: Path) -> None:
    words = '["vllm", "serve", "m", "--speculative-config", "{\\"method\\": \\"ngram\\"}"]'
    report = _check(tmp_path, _cluster(_head(f"          args: {words}\n", gpus=1)))
    tp108 = [f for f in report["findings"] if f["code"] == "TP108"]
    assert [f["message"].split("annotation): ", 1)[-1] for f in tp108] == [
        '`{"method": "ngram"}` reaches `vllm` as 2 words, not one'
    ]


def test_separate_words_run_before_ray_start(tmp_path: Path) -> None:
    """Words without spaces survive the join: the server is the command KubeRay writes before `ray start`."""
    words = '["vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2"]'
    report = _check(tmp_path, _cluster(_head(f"          args: {words}\n", gpus=2)))
    (server,) = report["servers"]
    assert server["argv"] == ["vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2"]
    assert "TP108" not in [c for c, _s in _codes(report)]
    (hop,) = report["transport"]["hops"]
    assert hop["command"] == ["/bin/bash", "-c", "--"]
    assert hop["args"] == [
        " vllm  serve  Qwen/Qwen3-8B  --tensor-parallel-size  2  && "
        "ulimit -n ${RAY_START_ULIMIT_OPEN_FILES:-65536}; $KUBERAY_GEN_RAY_START_CMD"
    ]


def test_the_overwrite_annotation_keeps_the_command(tmp_path: Path) -> None:
    command = f'          command: ["/bin/bash", "-c"]\n          args: ["{_SERVE}"]\n'
    annotation = 'ray.io/overwrite-container-cmd: "true"'
    report = _check(tmp_path, _cluster(_head(command, annotation, gpus=16)))
    (server,) = report["servers"]
    assert server["argv"] == _SERVE.split()
    assert _codes(report) == []


def test_a_rayjobs_entrypoint_runs_on_the_head_with_the_runtime_envs_variables(tmp_path: Path) -> None:
    body = (
        "  entrypoint: python3 -m sglang.launch_server --model-path $MODEL --tp-size 2 --port 30000\n"
        "  runtimeEnvYAML: |\n    env_vars:\n      MODEL: Qwen/Qwen3-8B\n"
        "  rayClusterSpec:\n"
        + "\n".join(
            "  " + line if line else line
            for line in _head("", gpus=2, image="lmsysorg/sglang:v0.5.2").split("\n")
        )
    )
    report = _check(tmp_path, _cluster(body, kind="RayJob", name="job"))
    (server,) = report["servers"]
    assert server["argv"] == [
        "python3",
        "-m",
        "sglang.launch_server",
        "--model-path",
        "Qwen/Qwen3-8B",
        "--tp-size",
        "2",
        "--port",
        "30000",
    ]
    assert report["transport"]["hops"][0]["image"] == "lmsysorg/sglang:v0.5.2"
    assert report["process"]["env"]["RAY_CLUSTER_NAME"] is None  # a RayJob's cluster has a generated name
    assert _codes(report) == []


@pytest.mark.parametrize("kind", ["RayCluster", "RayService"])
def test_a_ray_pod_without_a_command_starts_no_server(tmp_path: Path, kind: str) -> None:
    body = _head("") + _WORKERS
    if kind == "RayService":
        body = "  rayClusterConfig:\n" + "\n".join("  " + line if line else line for line in body.split("\n"))
    report = _check(tmp_path, _cluster(body, kind=kind))
    assert report["servers"] == []
    assert report["findings"] == []
    assert report["notes"] == ["no SGLang or vLLM server start was found in " + str(tmp_path / "ray.yaml")]


def test_a_program_word_written_as_shell_text_is_no_lost_word(tmp_path: Path) -> None:
    """vLLM's production-stack RayCluster (tests/data/kuberay, its source in the header): the head's command
    is one word of shell text, which runs only because KubeRay hands the joined words to `/bin/bash -c --`:
    no TP108; the server is started by a ConfigMap's script this file does not hold, so no server either."""
    source = Path(__file__).resolve().parent.parent / "data" / "kuberay" / "production_stack_raycluster.yaml"
    report = _check(tmp_path, source.read_text())
    assert report["findings"] == []
    assert report["servers"] == []
    head = report["transport"]["hops"][0]
    assert head["command"] == ["/bin/bash", "-c", "--"]
    assert head["args"][0].startswith(
        ' /bin/bash -c " cp /entrypoint/vllm-entrypoint.sh \\$HOME/vllm-entrypoint.sh'
    )
    assert head["args"][0].endswith(
        "  && ulimit -n ${RAY_START_ULIMIT_OPEN_FILES:-65536}; $KUBERAY_GEN_RAY_START_CMD"
    )


@pytest.mark.parametrize(
    ("sample", "servers"),
    [
        ("ray-cluster.verl.yaml", []),
        ("ray-service.deepseek.yaml", [["vllm", "serve", "deepseek-ai/DeepSeek-R1"]]),
    ],
)
def test_kuberays_own_samples_stay_clean(tmp_path: Path, sample: str, servers: list[list[str]]) -> None:
    source = Path(__file__).resolve().parent.parent / "data" / "kuberay" / sample
    report = _check(tmp_path, source.read_text())
    assert [f for f in report["findings"] if f["severity"] in ("error", "warning")] == []
    assert [s["argv"][:3] for s in report["servers"]] == servers
