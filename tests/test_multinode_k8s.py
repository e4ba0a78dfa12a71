"""Kubernetes workloads as multi-node carriers (``layers/transport/pods.py``, PA035, PA036), through the CLI.

The correct case is the false-alarm gate's reconstruction of SGLang's two-node StatefulSet
(``tests/data/false_alarms/k8s/sglang_k8s_distributed_sts.yaml``, after
https://github.com/sgl-project/sglang/blob/622284e36e92c9b331ed8945e2e78cda6539e5fd/docker/k8s-sglang-distributed-sts.yaml):
its rank is ``$POD_INDEX``, a downward-API env var from the ``apps.kubernetes.io/pod-index`` label. Each
variant below changes one thing in it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import run_cli

STS = Path(__file__).parent / "data" / "false_alarms" / "k8s" / "sglang_k8s_distributed_sts.yaml"
POD_INDEX_ENV = """        - name: POD_INDEX
          valueFrom:
            fieldRef:
              apiVersion: v1
              fieldPath: metadata.labels['apps.kubernetes.io/pod-index']
"""


def _report(tmp_path: Path, text: str) -> dict[str, Any]:
    manifest = tmp_path / "server.yaml"
    manifest.write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", str(manifest)])
    assert result.status in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _judged(report: dict[str, Any]) -> list[tuple[str, str, str | None, int | None, str]]:
    return [
        (f["code"], f["severity"], f.get("setting"), f.get("server"), f["message"])
        for f in report["findings"]
        if f["severity"] != "info"
    ]


def _ranks(report: dict[str, Any]) -> list[str | None]:
    return [s["argv"][s["argv"].index("--node-rank") + 1] for s in report["servers"]]


def test_each_statefulset_pod_gets_its_ordinal_as_its_rank(tmp_path: Path) -> None:
    report = _report(tmp_path, STS.read_text())
    assert _ranks(report) == ["0", "1"]
    assert [s["at"] for s in report["servers"]] == [
        "<kubernetes pod sglang-two-nodes-0 container server>:1:1",
        "<kubernetes pod sglang-two-nodes-1 container server>:1:1",
    ]
    assert report["servers"][1]["placement"] == {
        "kind": "StatefulSet",
        "name": "sglang-two-nodes",
        "replicas": 2,
        "ordinal": 1,
        "pod": "sglang-two-nodes-1",
        "gpus": 8,
        "gpus_at": f"{tmp_path / 'server.yaml'}:45",
    }
    assert _judged(report) == []


def test_the_hostname_suffix_is_the_ordinal(tmp_path: Path) -> None:
    # the other common pattern: the pod's hostname is NAME-ORDINAL, and bash sets HOSTNAME from it
    text = STS.read_text().replace(POD_INDEX_ENV, "").replace("$POD_INDEX", "${HOSTNAME##*-}")
    report = _report(tmp_path, text)
    assert _ranks(report) == ["0", "1"]
    assert _judged(report) == []


def test_ordinals_start_where_the_statefulset_says(tmp_path: Path) -> None:
    text = STS.read_text().replace("  replicas: 2\n", "  replicas: 2\n  ordinals:\n    start: 1\n")
    report = _report(tmp_path, text)
    assert _ranks(report) == ["1", "2"]
    assert [c for c, *_ in _judged(report)] == ["PA032"]
    assert _judged(report)[0][4] == (
        "server 2 has node_rank 2, but nnodes is 2: ranks run from 0 to 1, so this node never joins"
    )


def test_more_replicas_than_nnodes(tmp_path: Path) -> None:
    report = _report(tmp_path, STS.read_text().replace("replicas: 2", "replicas: 3"))
    assert _ranks(report) == ["0", "1", "2"]
    assert [(c, s, n) for c, _, s, n, _ in _judged(report)] == [
        ("PA032", "node_rank", 3),
        ("PA032", "nnodes", 3),
    ]


def test_a_rank_written_in_the_template_repeats_on_every_replica(tmp_path: Path) -> None:
    text = STS.read_text().replace(POD_INDEX_ENV, "").replace("$POD_INDEX", "0")
    report = _report(tmp_path, text)
    assert len(report["servers"]) == 1  # the pods do not read their identity: one argv for all
    assert _judged(report) == [
        (
            "PA035",
            "error",
            "node_rank",
            1,
            "StatefulSet sglang-two-nodes starts 2 pods from one template, for a server of nnodes 2: every "
            "pod gets node_rank 0",
        )
    ]


def test_a_statefulset_that_reads_its_index_but_ignores_it(tmp_path: Path) -> None:
    report = _report(tmp_path, STS.read_text().replace("$POD_INDEX", "0"))
    assert _ranks(report) == ["0", "0"]
    assert [(c, s, n) for c, _, s, n, _ in _judged(report)] == [("PA031", "node_rank", 2)]


def test_a_deployment_cannot_rank_its_replicas(tmp_path: Path) -> None:
    text = STS.read_text().replace(POD_INDEX_ENV, "").replace("$POD_INDEX", "0")
    report = _report(tmp_path, text.replace("kind: StatefulSet", "kind: Deployment"))
    assert [(c, s, m) for c, _, s, _, m in _judged(report)] == [
        (
            "PA035",
            "node_rank",
            "Deployment sglang-two-nodes starts 2 pods from one template, for a server of nnodes 2: every "
            "pod gets node_rank 0",
        )
    ]


def test_deployment_replicas_of_a_single_node_server_are_independent(tmp_path: Path) -> None:
    text = STS.read_text().replace(POD_INDEX_ENV, "").replace("kind: StatefulSet", "kind: Deployment")
    text = text.replace("--nnodes 2 \\\n", "").replace("--node-rank $POD_INDEX \\\n", "")
    text = text.replace("--tensor-parallel-size 16", "--tensor-parallel-size 8")
    text = text.replace("--expert-parallel-size 16", "--expert-parallel-size 8")
    report = _report(tmp_path, text)
    assert "--nnodes" not in report["servers"][0]["argv"]
    assert _judged(report) == []


def test_a_pod_with_fewer_gpus_than_its_share_of_tp(tmp_path: Path) -> None:
    report = _report(tmp_path, STS.read_text().replace('nvidia.com/gpu: "8"', 'nvidia.com/gpu: "4"'))
    assert _judged(report) == [
        (
            "PA036",
            "error",
            "tp_size",
            1,
            "each node needs 8 GPU(s) (tp_size 16 x pp_size 1 over nnodes 2) but gets 4: the pod's "
            f"nvidia.com/gpu limit ({tmp_path / 'server.yaml'}:45)",
        )
    ]


def test_a_pod_with_more_gpus_than_its_share_is_a_warning(tmp_path: Path) -> None:
    text = STS.read_text().replace("--tensor-parallel-size 16", "--tensor-parallel-size 8")
    text = text.replace("--expert-parallel-size 16", "--expert-parallel-size 8")
    findings = _judged(_report(tmp_path, text))
    assert [(c, sev, s) for c, sev, s, _, _ in findings] == [("PA036", "warning", "tp_size")]
    assert findings[0][4] == (
        "each node needs 4 GPU(s) (tp_size 8 x pp_size 1 over nnodes 2) but gets 8: the pod's nvidia.com/gpu "
        f"limit ({tmp_path / 'server.yaml'}:45); 4 stay idle"
    )


TWO_SERVERS = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: two
spec:
  replicas: 1
  template:
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.11.0
          command: ["/bin/bash", "-c"]
          args:
            - |
              vllm serve Qwen/Qwen3-8B --port 8000 --tensor-parallel-size 4 &
              vllm serve Qwen/Qwen3-8B --port 8001 --tensor-parallel-size {tp} &
              wait
          resources:
            limits:
              nvidia.com/gpu: "{gpus}"
"""


def test_two_servers_of_one_pod_share_its_gpus(tmp_path: Path) -> None:
    # each uses 4 of the pod's 8: no idle GPUs to warn about
    assert _judged(_report(tmp_path, TWO_SERVERS.format(tp=4, gpus=8))) == []


def test_a_server_of_a_shared_pod_still_needs_its_gpus(tmp_path: Path) -> None:
    findings = _judged(_report(tmp_path, TWO_SERVERS.format(tp=8, gpus=4)))
    assert [(c, sev, s, n) for c, sev, s, n, _ in findings] == [("PA036", "error", "tensor_parallel_size", 2)]


def test_a_leaderworkerset_with_half_the_gpus_in_both_templates(tmp_path: Path) -> None:
    # the LWS of tests/test_multinode.py (BARE_LWS): tp 16 over its 2 pods needs 8 GPUs in each
    from tests.test_multinode import BARE_LWS

    report = _report(tmp_path, BARE_LWS.replace('nvidia.com/gpu: "8"', 'nvidia.com/gpu: "4"'))
    findings = [(c, sev, s, n) for c, sev, s, n, _ in _judged(report)]
    # two limits to fix, one in each template: one finding at each
    assert findings == [("PA036", "error", "tp_size", 1), ("PA036", "error", "tp_size", 2)]
    assert _judged(report)[1][4] == (
        "each node needs 8 GPU(s) (tp_size 16 x pp_size 1 over nnodes 2) but gets 4: the pod's "
        f"nvidia.com/gpu limit ({tmp_path / 'server.yaml'}:50)"
    )
    assert _judged(_report(tmp_path, BARE_LWS)) == []


def test_a_deployment_has_no_pod_index_label(tmp_path: Path) -> None:
    # the StatefulSet's pod-index fieldRef in a Deployment: its pods have no such label, the variable is ""
    report = _report(tmp_path, STS.read_text().replace("kind: StatefulSet", "kind: Deployment"))
    assert _ranks(report) == ["--trust-remote-code"]
    # the manifest's image is :latest, which names no release: with 34 bundled SGLang releases --node-rank
    # is not registered alike in all of them, so PA035 holds on some only and says what it assumed
    assert [(c, s) for c, _, s, _, _ in _judged(report)] == [("SH026", None)]
    (pa035,) = [f for f in report["findings"] if f["code"] == "PA035"]
    assert (pa035["severity"], pa035["basis"], pa035["setting"]) == ("info", "assumed", "node_rank")
    # the master Service's link variables are the kubelet's, not "the caller's environment" (no PR001)
    assert [f for f in report["findings"] if f["code"] == "PR001"] == []
    # the rank reads the label the Deployment's pods lack: PA040, resting (like PA035) on the release
    (pa040,) = [f for f in report["findings"] if f["code"] == "PA040"]
    assert (pa040["severity"], pa040["basis"], pa040["setting"], pa040["at"]) == (
        "info",
        "assumed",
        "node_rank",
        f"{tmp_path / 'server.yaml'}:23",
    )
    assert pa040["message"] == (
        "container server of Deployment sglang-two-nodes gives --node-rank $POD_INDEX, a fieldRef to "
        "metadata.labels['apps.kubernetes.io/pod-index']: only StatefulSet pods have that label, so in a "
        "Deployment's pods $POD_INDEX is the empty string and no pod gets a rank"
    )


def test_a_deployment_reading_pod_index_on_a_named_release(tmp_path: Path) -> None:
    # the same Deployment on an image whose tag names the release: PA040 is an error, with the label named
    text = STS.read_text().replace("kind: StatefulSet", "kind: Deployment")
    text = text.replace("lmsysorg/sglang:latest", "lmsysorg/sglang:v0.5.10.post1")
    codes = [(c, sev, s) for c, sev, s, _, _ in _judged(_report(tmp_path, text))]
    assert ("PA040", "error", "node_rank") in codes
    # a template that sets the label itself gives every pod that value: no PA040 (PA035 judges the replicas)
    labelled = text.replace(
        "      labels: {app: sglang-two-nodes}",
        "      labels: {app: sglang-two-nodes, apps.kubernetes.io/pod-index: '0'}",
    )
    assert labelled != text
    report = _report(tmp_path, labelled)
    assert [f["code"] for f in report["findings"] if f["code"] == "PA040"] == []
    assert ("PA035", "error", "node_rank") in [(c, sev, s) for c, sev, s, _, _ in _judged(report)]


def test_a_statefulset_reading_pod_index_has_no_pa040(tmp_path: Path) -> None:
    assert [f for f in _report(tmp_path, STS.read_text())["findings"] if f["code"] == "PA040"] == []


# An Indexed Job as the nodes' carrier (Kubernetes docs, "Jobs": completionMode Indexed gives each pod its
# index in JOB_COMPLETION_INDEX and the hostname JOB-INDEX); our own manifest, not a copied one.
INDEXED_JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: sglang
spec:
  completionMode: Indexed
  completions: {completions}
  parallelism: {completions}
  template:
    spec:
      subdomain: sglang
      restartPolicy: Never
      containers:
        - name: server
          image: lmsysorg/sglang:v0.5.10.post1
          command: ["python3", "-m", "sglang.launch_server"]
          args: [--model-path, /models/DeepSeek-V3, --tp, "16", --dist-init-addr, "sglang-0.sglang:5000",
                 --nnodes, "2", --node-rank, "{rank}"]
          resources:
            limits:
              nvidia.com/gpu: "8"
"""


def test_an_indexed_job_ranks_its_pods_by_completion_index(tmp_path: Path) -> None:
    report = _report(tmp_path, INDEXED_JOB.format(completions=2, rank="$(JOB_COMPLETION_INDEX)"))
    assert _ranks(report) == ["0", "1"]
    assert [s["placement"]["pod"] for s in report["servers"]] == ["sglang-0", "sglang-1"]
    assert _judged(report) == []


def test_an_indexed_job_with_a_written_rank(tmp_path: Path) -> None:
    report = _report(tmp_path, INDEXED_JOB.format(completions=2, rank="0"))
    assert [(c, s) for c, _, s, _, _ in _judged(report)] == [("PA035", "node_rank")]
    assert _judged(report)[0][4].startswith("Job sglang starts 2 pods from one template")
