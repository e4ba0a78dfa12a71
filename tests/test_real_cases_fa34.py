"""The 2026-12-05 wrong-alarm sweep, thirteenth (fa34): working orchestrated launches of 2025-2026 from
sources argtrace had not seen (each path and URL grepped in tests/ and docs/ first): Kubernetes manifests of
Google's GKE samples and inference reference architecture (LeaderWorkerSets over two A3 nodes, a TPU
Deployment, a JobSet whose vLLM server is a native sidecar, kustomize bases whose values come from a
ConfigMap), `envsubst` templates of AWS's distributed-AI test cases (a disaggregated DeepSeek-V3 over NIXL,
Cosmos-Reason), AIBrix's StormServices, RayClusterFleets, benchmark Deployment and single-node docker compose,
an llmaz inference Service whose workload is a LeaderWorkerSet, an SGLang worker an EC2 fleet starts from
Python, and OLCF Frontier's Slurm jobs (`srun` into an Apptainer image). Each file under
``tests/data/real_cases_fa34/`` is a reconstruction (its header names the source at its commit and what it
keeps), checked as a new user: no options, no resolver environment, no Hugging Face cache. docs/real_cases.md
("Working launches of 2025-2026 from new sources, 13th sweep") has the table and the mechanisms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import SweepBatch
from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_fa34"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# launch -> servers found; each gets no error or warning
CLEAN: dict[str, int] = {
    "aibrix_standalone_compose/docker-compose.yml": 3,
    "aibrix_stormservice_sglang_pool.yaml": 2,
    "aibrix_stormservice_vllm_1p1d.yaml": 2,
    "awsome_dsv3_nixl_decode_envsubst.yaml": 1,
    "awsome_dsv3_nixl_unified_envsubst.yaml": 1,
    "awsome_inference_sglang_run_worker.py": 1,
    "gke_lws_vllm_deepseek_r1_a3.yaml": 1,
    "gke_lws_vllm_llama3_405b_a3_hdml.yaml": 1,
    "gke_mix_train_inference_vllm_gemma3.yaml": 1,
    # was no server: a JobSet's replicated job was not read, nor an init container that is a sidecar
    "gke_refarch_offline_batch_jobset.yaml": 1,
    # was a TP012 error each: `$(date)` of a `sh -c` script read as a Kubernetes reference left unresolved
    "gke_refarch_vllm_spec_decoding_deployment.yaml": 1,
    "gke_refarch_vllm_tpu_deployment.yaml": 1,
    "gke_vllm_llama4_maverick_fp8.yaml": 1,
    # was refused as "not valid YAML": a tab after `type: LoadBalancer`, which kubectl's YAML takes
    "gke_vllm_tpu_llama3_70b.yaml": 1,
    # was no server (llmaz's Service not read); then an RS034 warning on llmaz's own download folder
    "llmaz_multinode_sglang_service.yaml": 2,
    "olcf_frontier_vllm_singlenode/launchsinglenode_lustre.sbatch": 1,
    # was no server (path34): the job runs its scripts by their path (`srun ... $APPTAINER_CMD
    # ./start_head_lustre.sh $SLURM_NNODES`), now read as `bash FILE` is (layers/shell/scriptpath.py)
    "olcf_frontier_vllm_multinode/launchmultinode_lustre.sbatch": 1,
}
# read as no server, and so no alarm (not done: docs' table): AIBrix's RayClusterFleets (a KubeRay
# cluster's head runs vLLM over Ray), a HyperPod InferenceEndpointConfig, an envsubst template whose image is
# a hole (was a TP013 error)
NOT_READ = [
    "aibrix_deepseek_r1_huggingface.yaml",
    "aibrix_rayclusterfleet_two_node.yaml",
    "awsome_cosmos_reason_deployment_envsubst.yaml",
    "awsome_cosmos_reason_hyperpod_endpoint.yaml",
]
# brixbench's baseline runs vLLM 0.10.2 (the AIBrix image's tag) with --no-enable-chunked-prefill: the V1
# engine of 0.6.6.post1-0.11.0 sets it back to True (vllm#20914), so the value the file writes is lost (kept)
_CHUNKED = "aibrix_brixbench_qwen3_32b_tp4.yaml"
# files the cases run (read through them)
SUPPORT = [
    "olcf_frontier_vllm_multinode/start_head_lustre.sh",
    "olcf_frontier_vllm_multinode/start_worker.sh",
]
_HEADER = "Reconstructed (not copied) after https://github.com/"


BATCH = SweepBatch(CASES, CLEAN, not_read=tuple(NOT_READ), others=(_CHUNKED, *SUPPORT), header=_HEADER)
report_of = BATCH.report
globals().update(BATCH.tests())


def test_the_chunked_prefill_the_v1_engine_turns_back_on_is_kept() -> None:
    report = report_of(_CHUNKED)
    ((code, severity, message),) = [(f["code"], f["severity"], f["message"]) for f in alarms(report)]
    assert (code, severity) == ("RS060", "warning")
    assert message.startswith("--no-enable-chunked-prefill is lost: vllm 0.11.0 sets enable_chunked_prefill")


# --- variants of each mechanism ----------------------------------------------------------------------------


def _check(tmp_path: Path, name: str, text: str) -> Any:
    (tmp_path / name).write_text(text)
    result = run_cli(["check", "--format", "json", name], cwd=tmp_path)
    assert result.stdout.startswith("{"), result.stderr
    return result.json


def _pod(command: str, args: str, image: str = "vllm/vllm-openai:v0.11.0") -> str:
    return (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: s\n"
        f"    image: {image}\n    command: {command}\n    args:\n{args}"
    )


def _codes(report: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((f["code"], f["severity"]) for f in report["findings"] if f["code"].startswith("TP01"))


@pytest.mark.parametrize(
    ("script", "said"),
    [
        # the shell's command substitution, written where Kubernetes leaves `$(name)` as it is
        ('echo "start $(date)"; vllm serve Qwen/Qwen3-8B', []),
        ("vllm serve Qwen/Qwen3-8B --host $(hostname)", []),
        # an upper-case name is a variable the pod lacks: the shell would run it as a command
        ("vllm serve $(MODEL)", [("TP012", "error")]),
    ],
)
def test_a_shell_scripts_command_substitution_is_the_shells(
    tmp_path: Path, script: str, said: list[Any]
) -> None:
    report = _check(tmp_path, "pod.yaml", _pod('["/bin/sh", "-c"]', f"    - |\n      {script}\n"))
    assert _codes(report) == said


def test_a_substitution_outside_a_shell_stays_literal(tmp_path: Path) -> None:
    # no shell runs the args: the process gets `$(date)` as characters
    report = _check(
        tmp_path, "pod.yaml", _pod('["vllm", "serve"]', "    - Qwen/Qwen3-8B\n    - --host=$(date)\n")
    )
    assert _codes(report) == [("TP012", "error")]


@pytest.mark.parametrize(
    ("image", "said"), [("${REGISTRY}vllm:${TAG}", []), ("vllm/vllm-openai:v0.11.0", ["TP013"])]
)
def test_an_envsubst_templates_holes_are_not_literal_words(
    tmp_path: Path, image: str, said: list[str]
) -> None:
    # an image with `${NAME}` is no reference Kubernetes can pull: the file is filled before `kubectl apply`
    report = _check(tmp_path, "t.yaml", _pod('["vllm", "serve"]', '    - "${MODEL_ID}"\n', image=image))
    assert [f["code"] for f in report["findings"] if f["code"] == "TP013"] == said


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("a: b\t\n", True),  # after a value: libyaml's (and kubectl's Go YAML's) whitespace
        ("a: [1,\t2]\n", True),  # in flow context
        ("key\t: v\n", True),
        ("a:\n\t- b\n", False),  # at a line's start: refused by every YAML reader
    ],
)
def test_a_tab_where_libyaml_takes_one(text: str, ok: bool) -> None:
    from argtrace.layers.transport.yamlnodes import _load_yaml_nodes
    from argtrace.model import UsageError

    if ok:
        assert len(_load_yaml_nodes(text.encode(), "f").nodes) == 1
    else:
        with pytest.raises(UsageError, match="cannot start any token"):
            _load_yaml_nodes(text.encode(), "f")


def _jobset(parallelism: str, init: str) -> str:
    return (
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: js\n"
        "spec:\n  replicatedJobs:\n"
        "  - name: workers\n    replicas: 2\n    template:\n      spec:\n"
        f"{parallelism}        template:\n          spec:\n{init}            containers:\n"
        "            - name: main\n              image: python:3.12\n"
        "              command: [python3, run.py]\n"
    )


_SIDECAR = (
    "            initContainers:\n            - name: server\n              image: vllm/vllm-openai:v0.11.0\n"
    "              restartPolicy: Always\n              command: [vllm, serve, Qwen/Qwen3-8B]\n"
)


@pytest.mark.parametrize(
    ("parallelism", "init", "replicas"),
    [
        ("        parallelism: 3\n", _SIDECAR, [6]),  # 2 Jobs of 3 pods
        ("", _SIDECAR, [2]),
        ("", _SIDECAR.replace("restartPolicy: Always", "restartPolicy: OnFailure"), []),  # runs to completion
        (
            "",
            _SIDECAR.replace(
                "              command: [vllm, serve, Qwen/Qwen3-8B]\n", "              args: [x]\n"
            ),
            [],
        ),
    ],
)
def test_a_jobsets_sidecar_server(tmp_path: Path, parallelism: str, init: str, replicas: list[int]) -> None:
    report = _check(tmp_path, "js.yaml", _jobset(parallelism, init))
    assert [s["placement"]["replicas"] for s in report["servers"]] == replicas


def test_frontiers_head_script_runs_vllm_over_the_jobs_nodes() -> None:
    # start_head_lustre.sh's `--pipeline-parallel-size $NNODES`, NNODES=$@: the job's $SLURM_NNODES
    # (`#SBATCH -N 4`)
    (server,) = report_of("olcf_frontier_vllm_multinode/launchmultinode_lustre.sbatch")["servers"]
    assert server["at"] == "./start_head_lustre.sh:15:1"
    assert server["argv"][6:8] == ["--pipeline-parallel-size", "4"]


def test_llmazs_service_runs_its_workload_as_a_leader_worker_set() -> None:
    report = report_of("llmaz_multinode_sglang_service.yaml")
    roles = [(s["placement"]["role"], s["placement"]["replicas"]) for s in report["servers"]]
    assert roles == [("leader", 1), ("worker", 1)]


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("/workspace/models/models--Qwen--Qwen3-8B", []),  # a loader's local_dir (llmaz's) holds the files
        (
            "/data/hub/models--Qwen--Qwen3-8B",
            ["RS034"],
        ),  # huggingface_hub's cache: the files are in snapshots/
        ("/root/.cache/huggingface/models--Qwen--Qwen3-8B", ["RS034"]),
        ("/workspace/models/models--Qwen--Qwen3-8B/snapshots", ["RS034"]),
    ],
)
def test_a_cache_named_folder_is_a_cache_where_a_cache_stands(
    tmp_path: Path, path: str, said: list[str]
) -> None:
    report = _check(tmp_path, "run.sh", f"#!/bin/bash\nvllm serve {path}\n")
    assert [f["code"] for f in report["findings"] if f["code"] == "RS034"] == said
