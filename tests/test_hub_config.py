"""``check --fetch-config``: the model's config.json from the Hugging Face Hub (layers/hf_hub.py), asked of a
real HTTP server on loopback standing in for the Hub (``HF_ENDPOINT``, as huggingface_hub reads it)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, run_cli

pytestmark = pytest.mark.usefixtures("new_user_machine")

CONFIG = (REPO / "tests" / "data" / "models" / "qwen3-32b" / "config.json").read_bytes()
TOKEN = "hf_PlantedSecretTokenValue0123456789"


@dataclass
class Hub:
    """A loopback HTTP server: ``answers`` maps a path to (status, body, headers); ``asked`` records each
    request's path and Authorization header."""

    answers: dict[str, tuple[int, bytes, dict[str, str]]] = field(default_factory=dict)
    asked: list[tuple[str, str | None]] = field(default_factory=list)
    url: str = ""


def _serve(hub: Hub, host: str) -> Iterator[ThreadingHTTPServer]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hub.asked.append((self.path, self.headers.get("Authorization")))
            status, body, headers = hub.answers.get(self.path, (404, b"not found", {}))
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer((host, 0), Handler)
    hub.url = f"http://{host}:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[Hub]:
    served = Hub()
    for _ in _serve(served, "127.0.0.1"):
        monkeypatch.setenv("HF_ENDPOINT", served.url)
        monkeypatch.delenv("HF_TOKEN", raising=False)
        monkeypatch.delenv("HUGGING_FACE_HUB_TOKEN", raising=False)
        yield served


def _check(*words: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", "--no-resolve", *words])
    report: dict[str, Any] = json.loads(result.stdout)
    return report


LAUNCH = "vllm serve Qwen/Qwen3-32B --max-model-len 4096"
PATH = "/Qwen/Qwen3-32B/resolve/main/config.json"


def test_the_config_is_fetched_once_kept_and_read_by_the_memory_layer(hub: Hub) -> None:
    hub.answers[PATH] = (200, CONFIG, {})
    report = _check("--fetch-config", "--gpu", "h100", "-c", LAUNCH)
    assert report["notes"] == [f"config.json of Qwen/Qwen3-32B (main) fetched from {hub.url}{PATH}"]
    kept = Path(report["model_config"]["path"])
    assert report["model_config"] == {
        "source": "hub",
        "repo": "Qwen/Qwen3-32B",
        "revision": "main",
        "path": str(kept),
    }
    assert kept.read_bytes() == CONFIG
    assert kept.parent.stat().st_mode & 0o777 == 0o700
    assert report["memory"]["total_params"] > 30e9  # the memory layer sized the model the launch names
    again = _check("--fetch-config", "--gpu", "h100", "-c", LAUNCH)
    assert again["notes"] == [
        f"config.json of Qwen/Qwen3-32B (main) read from argtrace's copy of {hub.url}{PATH}, fetched by an "
        "earlier --fetch-config"
    ]
    assert hub.asked == [(PATH, None)]  # once


def test_without_the_option_nothing_is_asked_and_rs004_names_it(
    hub: Hub, monkeypatch: pytest.MonkeyPatch
) -> None:
    # RS004 "no local config.json" comes where a resolver environment exists (the test machines': CI
    # builds them, scripts/build_test_envs), after its check for one
    monkeypatch.delenv("ARGTRACE_CACHE_DIR")
    from argtrace.resolver.environments import find_environment

    if find_environment("vllm", "0.33.0") is None:
        pytest.skip("the vllm 0.33.0 resolver environment is not built (scripts/build_test_envs)")
    report = json.loads(run_cli(["check", "--format", "json", "-c", LAUNCH]).stdout)
    assert hub.asked == []
    assert [(f["message"], f["fix"]) for f in report["findings"] if f["code"] == "RS004"] == [
        (
            "resolution skipped: no local config.json for model 'Qwen/Qwen3-32B'; model-dependent defaults "
            "cannot be resolved",
            "pass --model-config DIR|config.json (only config.json is read, never weights), or "
            "--fetch-config to download that file alone from the Hugging Face Hub",
        )
    ]


def test_the_launchs_revision_is_the_one_asked_for(hub: Hub) -> None:
    path = "/Qwen/Qwen3-32B/resolve/refs%2Fpr%2F7/config.json"
    hub.answers[path] = (200, CONFIG, {})
    report = _check("--fetch-config", "-c", LAUNCH + " --revision refs/pr/7")
    assert hub.asked == [(path, None)]
    assert report["model_config"]["revision"] == "refs/pr/7"


def test_a_gated_repo_is_said_with_what_to_do_and_the_token_never_shows(
    hub: Hub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    hub.answers[PATH] = (401, b"gated", {})
    result = run_cli(["check", "--format", "json", "--no-resolve", "--fetch-config", "-c", LAUNCH])
    report = json.loads(result.stdout)
    assert hub.asked == [(PATH, f"Bearer {TOKEN}")]
    assert report["notes"] == [
        f"--fetch-config: config.json of Qwen/Qwen3-32B not fetched from {hub.url}{PATH}: HTTP 401: the repo "
        "is gated or private, or the token is refused: accept its terms on the Hub, set HF_TOKEN; "
        "model-dependent values are not read (pass --model-config DIR|config.json)"
    ]
    assert "model_config" not in report
    text = run_cli(["check", "--no-resolve", "--fetch-config", "-c", LAUNCH])
    assert TOKEN not in result.stdout + result.stderr + text.stdout + text.stderr


def test_a_redirect_to_another_host_is_followed_without_the_token(
    hub: Hub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    cdn = Hub()
    for _ in _serve(cdn, "localhost"):
        cdn.answers["/blob/config.json"] = (200, CONFIG, {})
        hub.answers[PATH] = (302, b"", {"Location": f"{cdn.url}/blob/config.json"})
        report = _check("--fetch-config", "-c", LAUNCH)
    assert hub.asked == [(PATH, f"Bearer {TOKEN}")]
    assert cdn.asked == [("/blob/config.json", None)]
    assert Path(report["model_config"]["path"]).read_bytes() == CONFIG


def test_a_redirect_on_the_same_host_keeps_the_token(hub: Hub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    hub.answers[PATH] = (307, b"", {"Location": "/api/resolve-cache/models/Qwen/Qwen3-32B/abc/config.json"})
    hub.answers["/api/resolve-cache/models/Qwen/Qwen3-32B/abc/config.json"] = (200, CONFIG, {})
    _check("--fetch-config", "-c", LAUNCH)
    assert [auth for _, auth in hub.asked] == [f"Bearer {TOKEN}", f"Bearer {TOKEN}"]


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"<html>login</html>", "the answer is not JSON"),
        (b"[1, 2]", "the answer is not a JSON object"),
        (b"[" * 100_000, "the answer is not JSON"),
        (b" " * ((1 << 20) + 1), "the answer is larger than 1024 KiB: not a config.json"),
    ],
)
def test_an_answer_that_is_not_a_config_is_not_kept(hub: Hub, body: bytes, why: str) -> None:
    hub.answers[PATH] = (200, body, {})
    report = _check("--fetch-config", "-c", LAUNCH)
    assert report["notes"][0].endswith(
        f"{PATH}: {why}; model-dependent values are not read (pass --model-config DIR|config.json)"
    )
    assert "model_config" not in report
    again = _check("--fetch-config", "-c", LAUNCH)  # nothing was kept: asked again
    assert len(hub.asked) == 2 and "model_config" not in again


def test_a_local_path_or_a_model_in_the_hf_cache_is_read_where_it_is(hub: Hub, tmp_path: Path) -> None:
    model = tmp_path / "models" / "qwen"
    model.mkdir(parents=True)
    (model / "config.json").write_bytes(CONFIG)
    report = _check("--fetch-config", "-c", f"vllm serve {model}")
    assert hub.asked == [] and report["notes"] == []
    missing = _check("--fetch-config", "-c", "vllm serve /models/not-here")
    assert hub.asked == []
    assert missing["notes"] == ["--fetch-config: '/models/not-here' is not a Hugging Face repo id (ORG/NAME)"]


def test_an_endpoints_password_is_not_shown(hub: Hub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", hub.url.replace("http://", "http://mirror:Pa55word@"))
    hub.answers[PATH] = (200, CONFIG, {})
    result = run_cli(["check", "--no-resolve", "--fetch-config", "-c", LAUNCH])
    assert "Pa55word" not in result.stdout + result.stderr
    assert f"fetched from {hub.url}{PATH}" in " ".join(result.stdout.split())
