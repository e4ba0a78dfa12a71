"""``argtrace fleet --kube`` through the official ``kubernetes`` client against a local HTTP server.

No Kubernetes API server can be installed here (docs/fleet.md says so): a ``ThreadingHTTPServer`` on
127.0.0.1 answers ``GET /api/v1/namespaces/NS/pods`` with the pages of ``fixtures/pods-vllm-mistral.json``
(pods of the GPU Deployment in vLLM's Kubernetes guide, in the PodList shape of the API reference; sources
in the file), following ``limit``/``continue`` as the API does. Every page is first checked against the
Kubernetes OpenAPI schema: the client's generated model (``V1PodList``) must read it back field for field.
"""

from __future__ import annotations

import json
import sys
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli

kubernetes = pytest.importorskip("kubernetes")

FIXTURE = Path(__file__).parent / "fixtures" / "pods-vllm-mistral.json"
MODEL = "mistralai/Mistral-7B-Instruct-v0.3"
TOKEN = "kube-test-token-0123456789abcdef"


def _normal(value: Any) -> Any:
    """The JSON as the client writes it back: RFC 3339 ``Z`` as ``+00:00``, nulls left out."""
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    if isinstance(value, str) and len(value) == 20 and value.endswith("Z") and value[10] == "T":
        return value[:-1] + "+00:00"
    return value


def schema_checked(page: dict[str, Any]) -> dict[str, Any]:
    """``page`` unchanged, once the client's OpenAPI model has read every field of it back."""
    from kubernetes.client import ApiClient, V1PodList

    model = V1PodList.from_dict(page)
    assert ApiClient().sanitize_for_serialization(model) == _normal(page)
    return page


class KubeApi:
    """The pods endpoint of an API server: pages by ``continue`` token, a label selector, a bearer token."""

    def __init__(self, pages: list[dict[str, Any]], status: int = 200, check: bool = True) -> None:
        self.pages = [schema_checked(p) for p in pages] if check and status == 200 else pages
        self.status = status
        self.requests: list[tuple[str, dict[str, list[str]], str | None]] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                parts = urllib.parse.urlsplit(self.path)
                query = urllib.parse.parse_qs(parts.query)
                api.requests.append((parts.path, query, self.headers.get("Authorization")))
                if api.status != 200:
                    body = {
                        "kind": "Status",
                        "apiVersion": "v1",
                        "status": "Failure",
                        "code": api.status,
                        "reason": "Forbidden",
                        "message": 'pods is forbidden: User "fleet" cannot list '
                        'resource "pods" in API group "" in the namespace "serving"',
                    }
                    return self._send(api.status, body)
                index = int(query.get("continue", ["0"])[0] == api.pages[0]["metadata"].get("continue"))
                self._send(200, api.pages[index])

            def _send(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def kubeconfig(path: Path, server: str) -> Path:
    path.write_text(
        "apiVersion: v1\nkind: Config\n"
        f"clusters:\n- name: lab\n  cluster:\n    server: {server}\n"
        f"users:\n- name: fleet\n  user:\n    token: {TOKEN}\n"
        "contexts:\n- name: lab\n  context:\n    cluster: lab\n    user: fleet\n    namespace: serving\n"
        "- name: other\n  context:\n    cluster: lab\n    user: fleet\n"
        "current-context: lab\n"
    )
    return path


@pytest.fixture
def api() -> Iterator[KubeApi]:
    server = KubeApi(json.loads(FIXTURE.read_text())["pages"])
    yield server
    server.stop()


def test_pods_are_replicas_and_their_drift_is_reported(api: KubeApi, tmp_path: Path) -> None:
    config = kubeconfig(tmp_path / "config", api.url)
    result = run_cli(
        ["fleet", "--format", "json", "--kube", "-l", "app=mistral-7b", "--kubeconfig", str(config)]
    )
    assert result.status == 1, result.stderr
    data = result.json
    # two pages, the selector and the token sent, the context's namespace used
    assert [(p, q["labelSelector"], q["limit"], a) for p, q, a in api.requests] == [
        ("/api/v1/namespaces/serving/pods", ["app=mistral-7b"], ["100"], f"Bearer {TOKEN}")
    ] * 2
    assert "continue" in api.requests[1][1]
    pods = ["k2x9p", "qj6wx", "z8m4t"]
    assert [r["target"] for r in data["replicas"]] == [f"pod serving/mistral-7b-7f94cd8b5d-{p}" for p in pods]
    first = data["replicas"][0]
    assert (first["kind"], first["source"], first["framework"], first["model"]) == (
        "kube",
        "argv",
        "vllm",
        MODEL,
    )
    assert first["settings"]["max_num_batched_tokens"] == 1024
    assert first["settings"]["image"] == "vllm/vllm-openai:latest"
    assert first["given"] == [
        "enable_chunked_prefill",
        "image",
        "image_id",
        "max_num_batched_tokens",
        "model",
        "trust_remote_code",
    ]
    assert [(d["setting"], [v["value"] for v in d["values"]]) for d in data["drift"]] == [
        ("max_num_batched_tokens", [1024, 1024, 2048]),
        (
            "image_id",
            ["docker.io/vllm/vllm-openai@sha256:" + "3e" * 32] * 2
            + ["docker.io/vllm/vllm-openai@sha256:" + "a1" * 32],
        ),
    ]
    image = data["drift"][1]["values"][2]
    assert (
        image["at"] == "pod serving/mistral-7b-7f94cd8b5d-z8m4t status.containerStatuses[mistral-7b].imageID"
    )
    assert (data["findings"][0]["code"], data["findings"][0]["setting"], data["findings"][0]["message"]) == (
        "LV051",
        None,
        "pod serving/mistral-7b-7f94cd8b5d-r5v7n: is Pending, not Running",
    )
    assert [f["setting"] for f in data["findings"] if f["code"] == "LV050"] == [
        "max_num_batched_tokens",
        "image_id",
    ]
    # the pod's secret-backed env is never read, nor printed
    assert "hf-token-secret" not in result.stdout


def test_namespace_and_context_options(api: KubeApi, tmp_path: Path) -> None:
    config = kubeconfig(tmp_path / "config", api.url)
    base = ["fleet", "--format", "json", "--kube", "-l", "app=mistral-7b", "--kubeconfig", str(config)]
    run_cli([*base, "-n", "blue"])
    run_cli([*base, "--context", "other"])  # a context without a namespace: "default"
    assert [p for p, _, _ in api.requests[::2]] == [
        "/api/v1/namespaces/blue/pods",
        "/api/v1/namespaces/default/pods",
    ]


def test_a_forbidden_listing_is_a_finding(tmp_path: Path) -> None:
    server = KubeApi([], status=403)
    try:
        config = kubeconfig(tmp_path / "config", server.url)
        result = run_cli(["fleet", "--format", "json", "--kube", "-l", "app=x", "--kubeconfig", str(config)])
    finally:
        server.stop()
    assert result.status == 1, result.stderr
    assert [(f["code"], f["message"]) for f in result.json["findings"]] == [
        ("LV051", "--kube -l app=x: the Kubernetes API answered 403 Forbidden")
    ]
    assert len(server.requests) == 1  # no retries


def test_a_body_that_is_not_a_podlist_is_refused(tmp_path: Path) -> None:
    broken = {
        "apiVersion": "v1",
        "kind": "PodList",
        "metadata": {},
        "items": [{"spec": {"containers": "vllm"}}],
    }
    with pytest.raises(ValueError, match="valid dictionary or instance of V1Container"):
        schema_checked(broken)  # what the schema says of it
    server = KubeApi([broken], check=False)  # served as it is
    try:
        config = kubeconfig(tmp_path / "config", server.url)
        result = run_cli(["fleet", "--format", "json", "--kube", "-l", "app=x", "--kubeconfig", str(config)])
    finally:
        server.stop()
    (finding,) = result.json["findings"]
    assert finding["code"] == "LV051"
    assert finding["message"].startswith(
        "--kube -l app=x: the answer is not a PodList of the Kubernetes API schema"
    )


def test_nothing_listening_and_no_pods(tmp_path: Path) -> None:
    config = kubeconfig(tmp_path / "config", "http://127.0.0.1:1")
    dead = run_cli(["fleet", "--format", "json", "--kube", "-l", "app=x", "--kubeconfig", str(config)])
    (finding,) = dead.json["findings"]
    assert finding["message"].startswith("--kube -l app=x: cannot reach the Kubernetes API")
    empty = KubeApi([{"apiVersion": "v1", "kind": "PodList", "metadata": {}, "items": []}])
    try:
        kubeconfig(config, empty.url)
        none = run_cli(["fleet", "--format", "json", "--kube", "-l", "app=x", "--kubeconfig", str(config)])
    finally:
        empty.stop()
    assert [f["message"] for f in none.json["findings"]] == [
        "--kube -l app=x: no pod in namespace serving matches the selector 'app=x'"
    ]


def test_leaderworkerset_pods_per_rank_values_are_allowed_and_a_bad_worker_is_found(tmp_path: Path) -> None:
    # Two LWS groups of two pods: node_rank (the Downward API's worker-index label) and the rendezvous
    # (each group's leader) differ by design; group 1's worker runs another image with --tp 8.
    fixture = Path(__file__).parent / "fixtures" / "pods-sglang-lws.json"
    server = KubeApi(json.loads(fixture.read_text())["pages"])
    try:
        config = kubeconfig(tmp_path / "config", server.url)
        words = ["--kube", "-n", "default", "-l", "leaderworkerset.sigs.k8s.io/name=sglang"]
        result = run_cli(["fleet", "--format", "json", *words, "--kubeconfig", str(config)])
    finally:
        server.stop()
    assert result.status == 1, result.stderr
    data = result.json
    targets = [
        "pod default/sglang-0",
        "pod default/sglang-0-1",
        "pod default/sglang-1",
        "pod default/sglang-1-1",
    ]
    assert [r["target"] for r in data["replicas"]] == targets
    assert [(r["settings"]["node_rank"], r["settings"]["nnodes"]) for r in data["replicas"]] == [
        (0, 2),
        (1, 2),
        (0, 2),
        (1, 2),
    ]
    assert [r["settings"]["dist_init_addr"] for r in data["replicas"]] == [
        "sglang-0.sglang.default:20000",
        "sglang-0.sglang.default:20000",
        "sglang-1.sglang.default:20000",
        "sglang-1.sglang.default:20000",
    ]
    assert [(d["setting"], [v["value"] for v in d["values"]]) for d in data["drift"]] == [
        ("tp_size", [16, 16, 16, 8]),
        ("image", ["lmsysorg/sglang:v0.5.10.post1-cu126"] * 3 + ["lmsysorg/sglang:v0.5.19-cu126"]),
        ("release", ["0.5.10.post1"] * 3 + ["0.5.19"]),
        (
            "image_id",
            ["docker.io/lmsysorg/sglang@sha256:" + "5c" * 32] * 3
            + ["docker.io/lmsysorg/sglang@sha256:" + "9d" * 32],
        ),
    ]
    # inside group 1 the multi-node rules see it too: one launch whose nodes disagree (PA030)
    pa030 = [(f["setting"], f["at"]) for f in data["findings"] if f["code"] == "PA030"]
    assert [s for s, _ in pa030] == ["tp_size", "image"]
    assert all(at.startswith("pod default/sglang-1-1") for _, at in pa030)
    assert not [f for f in data["findings"] if f["code"] in ("PA031", "PA032", "LV051")]


def test_a_missing_kubeconfig_is_a_finding_and_a_missing_client_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    absent = tmp_path / "no-such-config"
    result = run_cli(["fleet", "--format", "json", "--kube", "-l", "app=x", "--kubeconfig", str(absent)])
    (finding,) = result.json["findings"]
    assert (finding["code"], finding["message"]) == (
        "LV051",
        "--kube -l app=x: ConfigException: Invalid kube-config file. No configuration found.",
    )
    monkeypatch.setitem(sys.modules, "kubernetes", None)  # as if the optional extra were not installed
    missing = run_cli(["fleet", "--kube", "-l", "app=x"])
    assert (missing.status, missing.stdout) == (2, "")
    assert missing.stderr == (
        "argtrace fleet: --kube needs the official Kubernetes client: pip install 'argtrace[kube]' "
        "(or kubernetes)\n"
    )
