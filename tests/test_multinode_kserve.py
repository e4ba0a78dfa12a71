"""KServe's multi-node InferenceService: the worker pods as the controller builds them (serving.py).

After kserve/kserve ``pkg/controller/v1beta1/inferenceservice/components/predictor.go`` at 0187b461
(``multiNodeProcess``): the worker container is the runtime's ``workerSpec`` container named
``worker-container`` patched by the InferenceService's ``workerSpec.containers[0]``
(``MergeServingRuntimeAndInferenceServiceSpecs``), and ``computeRayNodeAndGPUs`` sizes the Ray cluster by
that merged container's GPU request; ``UpdateImageTag`` gives the head's container the model's
``runtimeVersion`` as its tag, and not the workers'. The clean case is KServe's multi-node runtime with the
InferenceService of its guide (``tests/data/multinode/kserve_hf_multinode.yaml``, sources in its header).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import run_cli

CASE = (Path(__file__).resolve().parent / "data" / "multinode" / "kserve_hf_multinode.yaml").read_text()
STORAGE = "      storageUri: pvc://llama-3-8b-pvc/hf/8b_instruction_tuned\n"
ISVC_WORKER = "\n".join(
    [
        "        - name: worker-container",
        "          resources:",
        "            limits:",
        '              nvidia.com/gpu: "1"',
    ]
)
RUNTIME_RAY = '            ray start --address="${RAY_HEAD_ADDRESS}" --block\n'


def _judged(tmp_path: Path, text: str) -> list[tuple[str, str, object, str]]:
    path = tmp_path / "isvc.yaml"
    path.write_text(text)
    result = run_cli(["check", "--format", "json", str(path)])
    assert result.status in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return [
        (f["code"], f["severity"], f["setting"], f["message"])
        for f in report["findings"]
        if f["severity"] != "info"
    ]


def test_the_guides_multinode_inferenceservice_is_clean(tmp_path: Path) -> None:
    assert _judged(tmp_path, CASE) == []


def test_a_runtime_version_on_the_model_moves_only_the_head_to_another_image(tmp_path: Path) -> None:
    text = CASE.replace(STORAGE, "      runtimeVersion: v0.15.2\n" + STORAGE)
    assert _judged(tmp_path, text) == [
        (
            "PA030",
            "error",
            "image",
            "the worker pods of InferenceService huggingface-llama3 run kserve/huggingfaceserver:latest-gpu "
            "(runtime kserve-huggingfaceserver-multinode's workerSpec) but its head runs "
            "kserve/huggingfaceserver:v0.15.2 (runtime kserve-huggingfaceserver-multinode with the model's "
            "runtimeVersion v0.15.2): one Ray cluster and one vLLM engine from two images; unless both carry "
            "the same Ray and vLLM releases, `ray start` on a worker stops at Ray's version check and vLLM's "
            "workers run another release than the head",
        )
    ]


def test_a_worker_image_of_its_own_in_the_inferenceservice(tmp_path: Path) -> None:
    assert ISVC_WORKER in CASE
    image = "          image: kserve/huggingfaceserver:v0.14.0-gpu\n"
    worker = ISVC_WORKER.replace("worker-container\n", "worker-container\n" + image)
    found = _judged(tmp_path, CASE.replace(ISVC_WORKER, worker))
    assert [(code, severity, setting) for code, severity, setting, _ in found] == [
        ("PA030", "error", "image")
    ]
    assert found[0][3].startswith(
        "the worker pods of InferenceService huggingface-llama3 run kserve/huggingfaceserver:v0.14.0-gpu "
        "(the InferenceService's workerSpec) but its head runs kserve/huggingfaceserver:latest-gpu (runtime "
        "kserve-huggingfaceserver-multinode)"
    )


def test_the_runtimes_worker_gpus_size_the_ray_cluster_when_the_inferenceservice_names_none(
    tmp_path: Path,
) -> None:
    # tp 2 x pp 2 = 4 GPUs; the runtime's worker container requests 2, the head 1: KServe plans one worker
    # of 2 and refuses (1 + 2 < 4). Read from the InferenceService's workerSpec alone (no GPUs there), the
    # workers would be single-GPU pods and the layout accepted.
    text = CASE.replace(
        "      tensorParallelSize: 1\n      containers:\n" + ISVC_WORKER, "      tensorParallelSize: 2"
    ).replace(
        RUNTIME_RAY, RUNTIME_RAY + '        resources:\n          limits:\n            nvidia.com/gpu: "2"\n'
    )
    assert _judged(tmp_path, text) == [
        (
            "PA036",
            "error",
            "tensor_parallel_size",
            "KServe refuses the layout of InferenceService huggingface-llama3: the total required number of "
            "GPUs(4) is less than the number of GPUs assigned to the head node(1) + worker node(2) "
            "(tensorParallelSize 2 x pipelineParallelSize 2 over a Ray head that requests 1 GPU(s) and 1 "
            "worker(s) of 2)",
        )
    ]
