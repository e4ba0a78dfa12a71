"""Variables the cluster sets, as the kubelet and the LeaderWorkerSet controller really behave.

Kubernetes (kubernetes.io, "Define Dependent Environment Variables" and the container `command`/`args`
reference): `$(VAR)` in `command`/`args` is expanded by the kubelet from the container's environment, which
includes `valueFrom` entries (values known only in the cluster); an undefined reference stays literal.
LeaderWorkerSet (kubernetes-sigs/lws, its API docs): the controller sets LWS_LEADER_ADDRESS, LWS_GROUP_SIZE
and LWS_WORKER_INDEX in every container of the leader and worker pods.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli

LWS = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: sglang
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      spec:
        containers:
          - name: leader
            image: lmsysorg/sglang:v0.5.10.post1
            command: ["python3", "-m", "sglang.launch_server", "--model-path", "/m", "--tp-size", "16",
                      "--dist-init-addr", "$(LWS_LEADER_ADDRESS):20000",
                      "--nnodes", "$(LWS_GROUP_SIZE)", "--node-rank", "$(LWS_WORKER_INDEX)"]
"""


def _check(tmp_path: Path, text: str) -> dict:
    (tmp_path / "m.yaml").write_text(text)
    result = run_cli(["check", "--no-resolve", "--format", "json", "m.yaml"], cwd=tmp_path)
    assert result.status in (0, 1), result.stderr
    data: dict = result.json
    return data


def test_leaderworkerset_variables_are_set_by_the_cluster(tmp_path: Path) -> None:
    # LWS_GROUP_SIZE is the manifest's size and the leader is worker index 0 (kubernetes-sigs/lws README:
    # each pod of a group has a unique index from 0 to n-1, the leader 0); the leader's address is known
    # only in the cluster.
    data = _check(tmp_path, LWS)
    assert [f["code"] for f in data["findings"] if f["severity"] != "info"] == []
    words = {w["expansion"]: w for w in data["servers"][0]["words"] if w.get("known") is False}
    assert set(words) == {"$(LWS_LEADER_ADDRESS):20000"}
    assert words["$(LWS_LEADER_ADDRESS):20000"]["text"] is None
    assert words["$(LWS_LEADER_ADDRESS):20000"]["reason"] == (
        "$(LWS_LEADER_ADDRESS) is expanded by the kubelet when the container starts, from a variable the "
        "cluster sets"
    )
    argv = data["servers"][0]["argv"]
    assert argv[argv.index("--nnodes") :] == ["--nnodes", "2", "--node-rank", "0"]
    env = data["process"]["env"]
    assert {k: env[k] for k in ("LWS_LEADER_ADDRESS", "LWS_GROUP_SIZE", "LWS_WORKER_INDEX")} == {
        "LWS_LEADER_ADDRESS": None,
        "LWS_GROUP_SIZE": "2",
        "LWS_WORKER_INDEX": "0",
    }


def test_the_same_references_in_a_plain_pod_are_undefined(tmp_path: Path) -> None:
    pod = """\
apiVersion: v1
kind: Pod
metadata:
  name: sglang
spec:
  containers:
    - name: leader
      image: lmsysorg/sglang:v0.5.10.post1
      command: ["python3", "-m", "sglang.launch_server", "--model-path", "/m", "--tp-size", "16",
                "--dist-init-addr", "$(LWS_LEADER_ADDRESS):20000",
                "--nnodes", "$(LWS_GROUP_SIZE)", "--node-rank", "$(LWS_WORKER_INDEX)"]
"""
    data = _check(tmp_path, pod)
    tp012 = [f["message"] for f in data["findings"] if f["code"] == "TP012"]
    assert len(tp012) == 3
    assert tp012[0].startswith("$(LWS_LEADER_ADDRESS) in container leader's `command` is not defined")


def test_a_reference_to_a_valuefrom_variable_is_an_unknown_word_not_shell_syntax(tmp_path: Path) -> None:
    pod = """\
apiVersion: v1
kind: Pod
metadata:
  name: sglang
spec:
  containers:
    - name: server
      image: lmsysorg/sglang:v0.5.10.post1
      env:
        - name: POD_INDEX
          valueFrom:
            fieldRef:
              fieldPath: metadata.labels['apps.kubernetes.io/pod-index']
      command: ["python3", "-m", "sglang.launch_server", "--model-path", "/m", "--node-rank", "$(POD_INDEX)",
                "--nnodes", "2", "--dist-init-addr", "sglang-0.sglang:20000"]
"""
    data = _check(tmp_path, pod)
    assert [(f["code"], f["severity"]) for f in data["findings"] if f["severity"] != "info"] == []
    [word] = [w for w in data["servers"][0]["words"] if w.get("known") is False]
    assert (word["text"], word["expansion"]) == (None, "$(POD_INDEX)")


def test_a_valuefrom_variable_is_set_for_the_containers_shell(tmp_path: Path) -> None:
    # SGLang's distributed StatefulSet pattern: `bash -c` reads $POD_INDEX, which Kubernetes sets.
    pod = """\
apiVersion: v1
kind: Pod
metadata:
  name: sglang
spec:
  containers:
    - name: server
      image: lmsysorg/sglang:v0.5.10.post1
      env:
        - name: POD_INDEX
          valueFrom:
            fieldRef:
              fieldPath: metadata.labels['apps.kubernetes.io/pod-index']
      command: ["bash", "-c"]
      args:
        - python3 -m sglang.launch_server --model-path /m --nnodes 2 --node-rank $POD_INDEX --dist-init-addr
          sglang-0.sglang:20000
"""
    data = _check(tmp_path, pod)
    assert [(f["code"], f["severity"]) for f in data["findings"] if f["severity"] != "info"] == []
    [word] = [w for w in data["servers"][0]["words"] if w.get("known") is False]
    assert (word["text"], word["expansion"]) == (None, "$POD_INDEX")
