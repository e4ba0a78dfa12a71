"""Kubernetes service links, container GPUs and the official images' entrypoints (issue 17).

Each expectation follows a documented rule, cited where it is used:
* Kubernetes docs, "Service" > "Environment variables" (https://kubernetes.io/docs/concepts/services-networking/
  service/#environment-variables): ``{SVC}_SERVICE_HOST``/``_SERVICE_PORT`` and ``{SVC}_PORT=tcp://IP:PORT``
  for each Service of the namespace, unless the pod sets ``enableServiceLinks: false`` (PodSpec);
* NVIDIA Container Toolkit, GPU enumeration / Kubernetes "Schedule GPUs": a container's GPUs are numbered
  0..N-1 inside it;
* Dockerfile reference: an ENTRYPOINT set in an image resets the CMD it inherits; a stage inherits its
  parent's ENTRYPOINT.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from argtrace.layers.shell import ScriptSource
from argtrace.layers.transport import analyze_manifest
from argtrace.layers.transport.images import docker_gpus, image_entry, split_image

ROOT = Path(__file__).resolve().parents[2]

# Reconstructed after ogx-ai/ogx-demos (https://github.com/ogx-ai/ogx-demos/issues/49 and
# https://github.com/ogx-ai/ogx-demos/pull/148): a Deployment `vllm` exposed with `oc expose deployment/vllm`,
# which creates a Service named `vllm` in the same namespace; vLLM then fails as in
# https://github.com/vllm-project/vllm/issues/34199 ("VLLM_PORT 'tcp://...' appears to be a URI").
VLLM_SERVICE = """apiVersion: v1
kind: Service
metadata:
  name: vllm
spec:
  selector: {app: vllm}
  ports:
    - port: 8000
      protocol: TCP
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:latest
          command: ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"]
          args: ["--tensor-parallel-size", "1"]
          resources:
            limits:
              nvidia.com/gpu: "1"
"""


def _manifest(text: str) -> object:
    return analyze_manifest(ScriptSource("vllm.yaml", text.encode(), None), env={})


def test_a_service_named_vllm_sets_vllm_port_in_its_pods() -> None:
    result = _manifest(VLLM_SERVICE)
    (server,) = result.servers  # type: ignore[attr-defined]
    env = {k: (v.value, v.origin.expansion) for k, v in server.env.items() if k.startswith("VLLM_")}
    link = "kubernetes service link"
    assert env == {
        "VLLM_PORT": (None, link),
        "VLLM_PORT_8000_TCP": (None, link),
        "VLLM_PORT_8000_TCP_ADDR": (None, link),
        "VLLM_PORT_8000_TCP_PORT": ("8000", link),
        "VLLM_PORT_8000_TCP_PROTO": ("tcp", link),
        "VLLM_SERVICE_HOST": (None, link),
        "VLLM_SERVICE_PORT": ("8000", link),
    }
    assert server.env["VLLM_PORT"].origin.reason == (
        "set by Kubernetes for Service `vllm` (service link; enableServiceLinks defaults to true): "
        "tcp://<cluster IP>:8000"
    )
    (tp041,) = [f for f in result.findings if f.code == "TP041"]  # type: ignore[attr-defined]
    assert tp041.severity == "error"
    assert tp041.message.startswith("container vllm gets VLLM_PORT=tcp://<cluster IP>:PORT from Kubernetes")
    assert server.gpus == 1 and server.gpus_from == "container vllm's resources.limits['nvidia.com/gpu']"


@pytest.mark.parametrize(
    "change",
    [
        ("      containers:", "      enableServiceLinks: false\n      containers:"),  # PodSpec field
        ("  name: vllm\nspec:\n  selector", "  name: vllm-api\nspec:\n  selector"),  # VLLM_API_PORT: not read
        ("  selector: {app: vllm}", "  clusterIP: None\n  selector: {app: vllm}"),  # headless: no links
    ],
)
def test_no_vllm_port_without_the_link(change: tuple[str, str]) -> None:
    result = _manifest(VLLM_SERVICE.replace(*change))
    assert [f.code for f in result.findings if f.code == "TP041"] == []  # type: ignore[attr-defined]
    (server,) = result.servers  # type: ignore[attr-defined]
    assert "VLLM_PORT" not in server.env


def test_the_containers_own_env_wins_over_a_service_link() -> None:
    text = VLLM_SERVICE.replace(
        "          resources:", '          env: [{name: VLLM_PORT, value: "29000"}]\n          resources:'
    )
    result = _manifest(text)
    (server,) = result.servers  # type: ignore[attr-defined]
    assert server.env["VLLM_PORT"].value == "29000"
    assert [f.code for f in result.findings if f.code == "TP041"] == []  # type: ignore[attr-defined]


def test_a_service_of_another_namespace_sets_nothing() -> None:
    text = VLLM_SERVICE.replace(
        "  name: vllm\nspec:\n  selector", "  name: vllm\n  namespace: other\nspec:\n  selector"
    )
    (server,) = _manifest(text).servers  # type: ignore[attr-defined]
    assert "VLLM_PORT" not in server.env


@pytest.mark.parametrize(
    ("value", "count"),
    [("2", 2), ("all", None), ('"device=0,2"', 2), ("device=1", 1), ("count=4", 4), (None, None)],
)
def test_docker_gpus(value: str | None, count: int | None) -> None:
    got = docker_gpus(value, {})
    assert (got[0] if got else None) == count


def test_image_names() -> None:
    assert split_image("docker.io/lmsysorg/sglang:v0.5.5-cu129") == ("lmsysorg/sglang", "v0.5.5-cu129")
    assert split_image("vllm/vllm-openai@sha256:abc") == ("vllm/vllm-openai", None)
    assert image_entry("my/own:1") is None


def test_the_table_names_where_each_entrypoint_was_read() -> None:
    sglang = image_entry("lmsysorg/sglang:v0.5.5")
    assert sglang is not None and sglang.entrypoint == ("/opt/nvidia/nvidia_entrypoint.sh",)
    assert sglang.exec_wrapper
    assert sglang.basis.endswith("tag v0.5.5 is in releases 0.5.3.post2 to 0.5.5, which have it")
    vllm = image_entry("vllm/vllm-openai:latest")
    assert vllm is not None and vllm.entrypoint == ("vllm", "serve")
    assert "assumed (other builds have `python3 -m vllm.entrypoints.openai.api_server`)" in vllm.basis


def _gen() -> object:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import gen_image_entrypoints as gen
    finally:
        sys.path.pop(0)
    return gen


def test_the_generator_follows_stages_and_base_images() -> None:
    gen = _gen()
    text = (
        'ARG CUDA=12.9.1\nFROM nvidia/cuda:${CUDA}-devel-ubuntu22.04 AS base\nCMD ["bash"]\n'
        "FROM base AS app\nRUN true\n"
        'FROM base AS served\nENTRYPOINT ["vllm", "serve"]\n'
        "FROM ubuntu:22.04 AS shell\nENTRYPOINT exec python3 -m x\n"
    )
    app = gen.effective(text, "app")  # type: ignore[attr-defined]
    assert (app["entrypoint"], app["cmd"], app["exec_wrapper"]) == (
        ["/opt/nvidia/nvidia_entrypoint.sh"],
        ["bash"],
        True,
    )
    assert app["base"] == "nvidia/cuda:12.9.1-devel-ubuntu22.04"
    served = gen.effective(text, "served")  # type: ignore[attr-defined]
    # "If CMD is defined from the base image, setting ENTRYPOINT will reset CMD to an empty value"
    assert (served["entrypoint"], served["cmd"], served["exec_wrapper"]) == (["vllm", "serve"], [], False)
    shell = gen.effective(text, None)  # type: ignore[attr-defined]
    assert (shell["stage"], shell["entrypoint"], shell["cmd"]) == (
        "shell",
        ["/bin/sh", "-c", "exec python3 -m x"],
        [],
    )


def test_the_shipped_table_is_the_generators_output_format() -> None:
    data = json.loads((ROOT / "src/argtrace/data/image_entrypoints.json").read_text())
    assert data["generated_by"] == "scripts/gen_image_entrypoints.py"
    rows = data["images"]["vllm/vllm-openai"]
    assert [r["entrypoint"] for r in rows] == [
        ["vllm", "serve"],
        ["vllm", "serve"],
        ["python3", "-m", "vllm.entrypoints.openai.api_server"],
        ["python3", "-m", "vllm.entrypoints.openai.api_server"],
    ]
    assert all(r["source"].startswith("vllm-project/vllm@") for r in rows)
    assert all(r["dockerfile"]["url"].startswith("https://github.com/vllm-project/vllm/blob/") for r in rows)


COMPOSE = """services:
  sglang:
    image: lmsysorg/sglang:v0.5.5
    command: python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp 2
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              DEVICES
              capabilities: [gpu]
"""


@pytest.mark.parametrize(
    ("devices", "count"),
    [('device_ids: ["0", "1"]', 2), ("count: 1", 1), ("count: all", None)],
)
def test_compose_device_reservations_give_the_gpu_count(devices: str, count: int | None) -> None:
    text = COMPOSE.replace("DEVICES", devices)
    result = analyze_manifest(ScriptSource("compose.yaml", text.encode(), None), env={})
    (server,) = result.servers
    assert server.gpus == count
    # nvidia_entrypoint.sh (inherited from nvidia/cuda) runs the command: no TP010 for naming the launcher
    assert server.argv_text[:4] == [
        "/opt/nvidia/nvidia_entrypoint.sh",
        "python3",
        "-m",
        "sglang.launch_server",
    ]
    assert [f.code for f in result.findings if f.code in ("TP010", "TP040")] == []
