"""Serving resources that embed pod specs (``layers/transport/pods.py``, ``serving.py``), through the CLI.

Each correct manifest is a reconstruction of a documented one (its header names the source, the commit and
what it keeps); each variant changes one thing in it and must fire.
- llm-d: ``tests/data/false_alarms/k8s/llmd_modelservice_pd_rendered.yaml`` (the ModelService chart's
  ``helm template`` output: two Deployments);
- KServe: ``false_alarms/k8s/kserve_vllm_runtime_isvc.yaml`` (an InferenceService on the vLLM
  ClusterServingRuntime), ``multinode/kserve_llmisvc_dp_ep.yaml`` (an LLMInferenceService, DP over pods);
- NVIDIA Dynamo: ``multinode/dynamo_sglang_disagg_multinode.yaml`` and
  ``multinode/dynamo_vllm_disagg_multinode.yaml`` (DynamoGraphDeployments, workers on two nodes each).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import run_cli

DATA = Path(__file__).parent / "data"
LLMD = DATA / "false_alarms" / "k8s" / "llmd_modelservice_pd_rendered.yaml"
ISVC = DATA / "false_alarms" / "k8s" / "kserve_vllm_runtime_isvc.yaml"
LLMISVC = DATA / "multinode" / "kserve_llmisvc_dp_ep.yaml"
DYNAMO = DATA / "multinode" / "dynamo_sglang_disagg_multinode.yaml"


def _report(tmp_path: Path, text: str) -> dict[str, Any]:
    manifest = tmp_path / "serving.yaml"
    manifest.write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", str(manifest)])
    assert result.status in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _judged(report: dict[str, Any]) -> list[tuple[str, str, str | None, str]]:
    return [
        (f["code"], f["severity"], f["setting"], f["message"])
        for f in report["findings"]
        if f["severity"] != "info"
    ]


def _where(tmp_path: Path, line: int) -> str:
    return f"{tmp_path / 'serving.yaml'}:{line}"


def test_the_rendered_llmd_chart_gives_its_two_deployments(tmp_path: Path) -> None:
    report = _report(tmp_path, LLMD.read_text())
    assert [s["placement"]["name"] for s in report["servers"]] == [
        "pd-llm-d-modelservice-decode",
        "pd-llm-d-modelservice-prefill",
    ]
    assert [s["placement"]["gpus"] for s in report["servers"]] == [1, 1]
    assert _judged(report) == []


def test_an_llmd_decode_pod_with_tp_2_on_one_gpu(tmp_path: Path) -> None:
    text = LLMD.read_text().replace("- --enforce-eager", '- --tensor-parallel-size\n            - "2"', 1)
    findings = _judged(_report(tmp_path, text))
    # two causes, each to fix: the pod gets one GPU, and CUDA_VISIBLE_DEVICES=0 shows one of them
    assert findings == [
        (
            "PR004",
            "error",
            "tensor_parallel_size",
            "the server needs 2 GPU(s) (tensor_parallel_size 2 x pipeline_parallel_size 1 x "
            "data_parallel_size 1) but CUDA_VISIBLE_DEVICES=0 makes only 1 visible",
        ),
        (
            "PA036",
            "error",
            "tensor_parallel_size",
            "each node needs 2 GPU(s) (tensor_parallel_size 2 x pipeline_parallel_size 1) but gets 1: the "
            f"pod's nvidia.com/gpu limit ({_where(tmp_path, 51)})",
        ),
    ]


def test_an_inference_service_runs_its_runtime_container_with_its_own_args(tmp_path: Path) -> None:
    report = _report(tmp_path, ISVC.read_text())
    (server,) = report["servers"]  # the runtime is not read again on its own
    assert server["argv"][3:] == [
        "--port=8080",
        "--served-model-name=llama-31-8b-instruct",
        "--model=/mnt/models",
        "--gpu-memory-utilization=0.95",
        "--max-model-len=1024",
        "--tensor-parallel-size=1",
        "--enforce-eager",
        "--disable-log-stats",
    ]
    assert server["placement"] == {
        "kind": "InferenceService",
        "name": "llama-31-8b-instruct",
        "role": "predictor (runtime kserve-vllmserver)",
        "replicas": 1,
        "gpus": 1,
        "gpus_at": _where(tmp_path, 54),
    }
    assert _judged(report) == []


def test_an_inference_service_asking_tp_2_of_one_gpu(tmp_path: Path) -> None:
    text = ISVC.read_text().replace("--tensor-parallel-size=1", "--tensor-parallel-size=2")
    assert [(c, s, m.split(":")[0]) for c, _, s, m in _judged(_report(tmp_path, text))] == [
        (
            "PA036",
            "tensor_parallel_size",
            "each node needs 2 GPU(s) (tensor_parallel_size 2 x pipeline_parallel_size 1) but gets 1",
        )
    ]


def test_an_inference_service_on_a_runtime_not_in_the_file_reads_nothing_else(tmp_path: Path) -> None:
    runtime, _, isvc = ISVC.read_text().partition("---\n")
    report = _report(tmp_path, isvc)
    assert report["servers"] == []
    # the runtime alone is read as it is: its container is a server
    assert len(_report(tmp_path, runtime)["servers"]) == 1


def test_the_llm_inference_service_pods_get_tensor_x_data_local_gpus(tmp_path: Path) -> None:
    report = _report(tmp_path, LLMISVC.read_text())
    assert report["servers"] == []  # the command is in KServe's LLMInferenceServiceConfig
    assert _judged(report) == []


def test_an_llm_inference_service_worker_with_half_the_gpus(tmp_path: Path) -> None:
    text = LLMISVC.read_text()
    head, marker, worker = text.partition("  worker:\n")
    text = head + marker + worker.replace('nvidia.com/gpu: "8"', 'nvidia.com/gpu: "4"')
    assert _judged(_report(tmp_path, text)) == [
        (
            "PA036",
            "error",
            "tensor_parallel_size",
            "each pod needs 8 GPU(s) (parallelism.tensor 1 x parallelism.dataLocal 8) but gets 4: "
            f"spec.worker container main's nvidia.com/gpu limit ({_where(tmp_path, 39)})",
        )
    ]


def test_the_dynamo_workers_spread_tp_over_their_nodes(tmp_path: Path) -> None:
    report = _report(tmp_path, DYNAMO.read_text())
    hops = [h for h in report["transport"]["hops"] if h["argv"]]
    # Dynamo's operator runs each two-node worker as a leader and a worker pod, with --dist-init-addr,
    # --nnodes 2 and --node-rank appended (backend_sglang.go getMultinodeFlags)
    assert [(h["container"], h["placement"]["role"], h["placement"]["nodes"]) for h in hops] == [
        ("main", "decode", 2),
        ("main", "decode", 2),
        ("main", "prefill", 2),
        ("main", "prefill", 2),
    ]
    assert hops[0]["argv"][:3] == ["python3", "-m", "dynamo.sglang"]
    assert hops[0]["argv"][-6:] == [
        "--dist-init-addr",
        "$(LWS_LEADER_ADDRESS):29500",
        "--nnodes",
        "2",
        "--node-rank",
        "0",
    ]
    assert [s["entrypoint"] for s in report["servers"]] == ["dynamo.sglang"] * 4
    assert [launch["columns"] for launch in report["multinode"]["launches"]] == [
        ["sglang-disagg-multinode/decode leader", "sglang-disagg-multinode/decode worker"],
        ["sglang-disagg-multinode/prefill leader", "sglang-disagg-multinode/prefill worker"],
    ]
    assert _judged(report) == []


def test_a_dynamo_worker_whose_tp_needs_more_gpus_than_its_nodes_have(tmp_path: Path) -> None:
    text = DYNAMO.read_text().replace('- --tp-size\n            - "8"', '- --tp-size\n            - "16"', 1)
    assert _judged(_report(tmp_path, text)) == [
        (
            "PA036",
            "error",
            "tp_size",
            "each node needs 8 GPU(s) (tp_size 16 x pp_size 1 over nnodes 2) but gets 4: the pod's gpu limit "
            f"({_where(tmp_path, 25)})",
        )
    ]


DYNAMO_VLLM = DATA / "multinode" / "dynamo_vllm_disagg_multinode.yaml"


def test_the_dynamo_vllm_workers_have_one_gpu_per_node_for_tp_2(tmp_path: Path) -> None:
    assert _judged(_report(tmp_path, DYNAMO_VLLM.read_text())) == []


def test_a_dynamo_vllm_worker_with_tp_4_on_two_one_gpu_nodes(tmp_path: Path) -> None:
    text = DYNAMO_VLLM.read_text().replace(
        '- --tensor-parallel-size\n            - "2"\n            - --dis',
        '- --tensor-parallel-size\n            - "4"\n            - --dis',
    )
    assert _judged(_report(tmp_path, text)) == [
        (
            "PA036",
            "error",
            "tensor_parallel_size",
            # the operator's mp launch (backend_vllm.go): --nnodes 2 on the leader and the headless worker
            "each node needs 2 GPU(s) (tensor_parallel_size 4 x pipeline_parallel_size 1 over nnodes 2) but "
            f"gets 1: the pod's gpu limit ({_where(tmp_path, 41)})",
        )
    ]


KSERVE_MULTINODE = DATA / "multinode" / "kserve_hf_multinode.yaml"
_STORAGE = "      storageUri: pvc://llama-3-8b-pvc/hf/8b_instruction_tuned\n"


def test_kserves_multinode_huggingface_runtime_on_two_one_gpu_nodes(tmp_path: Path) -> None:
    report = _report(tmp_path, KSERVE_MULTINODE.read_text())
    # the image's tag names no vLLM release: only that (information)
    # RS061 (vLLM 22nd batch): pipeline parallelism without Ray sends 0.8.5.post1-0.11.0 back to the V0
    # engine; a note, since nothing shows which release runs
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("PR011", "info"), ("RS061", "info")]
    (hop,) = [h for h in report["transport"]["hops"] if h["container"] == "kserve-container"]
    assert hop["argv"][-1] == "--model_name=huggingface-llama3"
    # the head's `python -m huggingfaceserver` is read as vLLM's server, KServe's own option taken out
    (server,) = report["servers"]
    assert (server["framework"], server["entrypoint"]) == ("vllm", "huggingfaceserver")
    assert report["parser"]["argv"] == ["--tensor-parallel-size=1", "--pipeline-parallel-size=2"]
    assert report["parser"]["notes"] == [
        "huggingfaceserver options (KServe's, kserve/kserve@aaac4e294dae2c7b1aa1886447793f3aa1c30912: "
        "python/kserve/kserve/model_server.py, python/huggingfaceserver/huggingfaceserver/__main__.py), not "
        "vLLM flags: --model_name"
    ]


def test_kserve_refuses_the_parallel_sizes_in_env(tmp_path: Path) -> None:
    env = '      env:\n        - name: TENSOR_PARALLEL_SIZE\n          value: "2"\n'
    text = KSERVE_MULTINODE.read_text().replace(_STORAGE, _STORAGE + env)
    assert _judged(_report(tmp_path, text)) == [
        (
            "PA036",
            "error",
            "tensor_parallel_size",
            'KServe refuses the InferenceService: the InferenceService "huggingface-llama3" is invalid: '
            "setting TENSOR_PARALLEL_SIZE in environment variables is not allowed (set "
            "workerSpec.tensorParallelSize instead)",
        )
    ]


def test_kserve_refuses_a_ray_head_with_too_few_gpus(tmp_path: Path) -> None:
    text = (
        KSERVE_MULTINODE.read_text()
        .replace(
            "      tensorParallelSize: 1\n      containers:", "      tensorParallelSize: 2\n      containers:"
        )
        .replace(
            '            limits:\n              nvidia.com/gpu: "1"',
            '            limits:\n              nvidia.com/gpu: "2"',
        )
    )
    assert _judged(_report(tmp_path, text)) == [
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


def test_model_args_that_override_the_tensor_parallel_size_kserve_sized_for(tmp_path: Path) -> None:
    text = KSERVE_MULTINODE.read_text().replace(
        _STORAGE, _STORAGE + "      args:\n        - --tensor-parallel-size=2\n"
    )
    message = (
        "the model's args of InferenceService huggingface-llama3 set tensor_parallel_size 2 x "
        "pipeline_parallel_size 2 after the runtime's flags (the last wins): vLLM needs 4 GPU(s) but KServe "
        "sized the Ray cluster for workerSpec tensorParallelSize 1 x pipelineParallelSize 2 = 2"
    )
    # the head's vLLM (python -m huggingfaceserver) parsed: the override is also a setting given twice
    twice = (
        "--tensor-parallel-size is set by the script and again by the caller's arguments ($@): "
        "--tensor-parallel-size=1, --tensor-parallel-size=2; the caller's 2 wins and the script's own value "
        "is overridden"
    )
    assert _judged(_report(tmp_path, text)) == [
        ("PA036", "error", "tensor_parallel_size", message),
        ("PA006", "warning", "tensor_parallel_size", twice),
    ]
    # without the runtime in the file its command is assumed (KServe's own): information only
    alone = text.split("---\n", 1)[1]
    (finding,) = _report(tmp_path, alone)["findings"]
    assert (finding["severity"], finding["basis"]) == ("info", "assumed")
    assert finding["message"].startswith(
        message + " (assumed: the runtime is not in the file: assumed to be "
    )
