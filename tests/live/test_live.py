"""``argtrace live`` against a real HTTP(S) server on 127.0.0.1 serving recorded payload shapes."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from argtrace.layers.live import analyze_live, fetch_live, normalise_url, parse_cache_config_info
from argtrace.rules import all_rules
from tests.conftest import run_cli
from tests.live.fixture_server import FIXTURES, load_fixture, serve_fixture

API_KEY = "sk-argtrace-fixture-key-0000000000"
SGLANG_VERSIONS = ["0.5.10.post1", "0.5.15.post1", "0.5.19", "0.5.23"]


def codes(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [f.code for f in result.findings]


def test_every_fixture_names_its_source() -> None:
    for path in FIXTURES.glob("*.json"):
        fixture = load_fixture(path.stem)  # a variant (``base`` + ``edits``) has its base's endpoints
        assert fixture["sources"], path.name
        for endpoint in fixture["endpoints"]:
            assert (
                endpoint in fixture["sources"]
                or "*" in fixture["sources"]
                or endpoint in ("/health", "/metrics", "/version", "/v1/models")
            ), (path.name, endpoint)


@pytest.mark.parametrize("version", SGLANG_VERSIONS)
def test_sglang_versions_identified_with_capacity(version: str) -> None:
    with serve_fixture(f"sglang-{version}") as server:
        snap = fetch_live(server.url)
        assert snap.framework == "sglang" and snap.version == version
        assert snap.server_info_path == "/server_info"
        result = analyze_live(server.url, snapshot=snap)
    section = result.sections["live"]
    assert section["ranks"] == 2
    assert section["capacity"]["max_total_num_tokens"] == 412_320
    assert [r["effective_max_running_requests"] for r in section["capacity"]["ranks"]] == [24, 24]
    assert "LV007" in codes(result)
    assert "tp_size" in result.observations


def test_sglang_0510_rank_rewrite_is_reported() -> None:
    with serve_fixture("sglang-0.5.10.post1") as server:
        result = analyze_live(server.url)
    lv006 = [f for f in result.findings if f.code == "LV006"]
    assert len(lv006) == 1 and lv006[0].setting == "kv_cache_dtype"
    assert "auto" in lv006[0].message and "fp8_e4m3" in lv006[0].message
    history = result.observations["kv_cache_dtype"][1]
    assert [o.value for o in history] == ["auto", "fp8_e4m3", "fp8_e4m3"]
    assert history[1].at is not None and history[1].at.endswith("#/internal_states/0/kv_cache_dtype")


def test_intended_vs_top_level_vs_rank() -> None:
    with serve_fixture("sglang-0.5.10.post1") as server:
        result = analyze_live(
            server.url,
            intended={
                "mamba_scheduler_strategy": "extra_buffer",
                "chunked_prefill_size": "8192",
                "kv_cache_dtype": "auto",
                "trust_remote_code": "",
                "max_running_requests": "512",
            },
        )
    by_setting = {(f.code, f.setting) for f in result.findings}
    assert ("LV005", "mamba_scheduler_strategy") in by_setting
    assert ("LV005", "chunked_prefill_size") not in by_setting
    assert ("LV005", "trust_remote_code") not in by_setting  # store_true flag given without a value
    # kv_cache_dtype: the top level agrees with what was meant, the scheduler does not: an error.
    lv006 = next(f for f in result.findings if f.code == "LV006")
    assert lv006.severity == "error"
    assert ("LV008", "max_running_requests") in by_setting


def test_deprecated_get_server_info_fallback() -> None:
    with serve_fixture("sglang-get-server-info-only") as server:
        snap = fetch_live(server.url)
        result = analyze_live(server.url, snapshot=snap)
    assert snap.server_info_path == "/get_server_info" and snap.framework == "sglang"
    assert "LV010" in codes(result)


def test_vllm_without_dev_mode_uses_models_version_and_metrics() -> None:
    with serve_fixture("vllm-0.33.0") as server:
        snap = fetch_live(server.url)
        result = analyze_live(
            server.url, snapshot=snap, intended={"max_model_len": "65536", "block_size": "32"}
        )
    assert snap.framework == "vllm" and snap.version == "0.33.0"
    assert snap.cache_config_info is not None and snap.cache_config_info["block_size"] == "16"
    assert "LV010" in codes(result)
    lv005 = [f for f in result.findings if f.code == "LV005"]
    assert [f.setting for f in lv005] == ["block_size"]
    assert result.sections["live"]["capacity"]["token_capacity"] == 25_770 * 16


def test_vllm_dev_mode_server_info() -> None:
    with serve_fixture("vllm-0.33.0-devmode") as server:
        result = analyze_live(
            server.url,
            intended={
                "max_num_seqs": "128",
                "gpu_memory_utilization": "0.9",
                "kv_cache_dtype": "auto",
                "tensor_parallel_size": "4",
            },
        )
    assert "LV010" not in codes(result)
    lv005 = [f for f in result.findings if f.code == "LV005"]
    assert [f.setting for f in lv005] == ["max_num_seqs"]
    assert lv005[0].at is not None and lv005[0].at.endswith("#/vllm_config/scheduler_config/max_num_seqs")


def test_other_framework_is_an_error() -> None:
    with serve_fixture("vllm-0.33.0") as server:
        result = analyze_live(server.url, framework="sglang")
    assert codes(result) == ["LV002"]


def test_refused_connection() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    result = analyze_live(f"127.0.0.1:{port}")
    assert codes(result) == ["LV001"]
    assert "refused" in result.findings[0].message


def test_timeout() -> None:
    with serve_fixture("sglang-0.5.10.post1", delay=1.5) as server:
        result = analyze_live(server.url, timeout=0.3)
    assert codes(result) == ["LV001"]
    assert result.findings[0].message == f"{server.url}: timed out: no complete answer within 0.3 s"


def test_html_error_page() -> None:
    with serve_fixture("html-proxy") as server:
        result = analyze_live(server.url)
    assert set(codes(result)) == {"LV003"}
    assert "HTML" in result.findings[0].message


def test_api_key_required_and_used() -> None:
    with serve_fixture("sglang-0.5.10.post1-apikey") as server:
        denied = analyze_live(server.url)
        assert "LV004" in codes(denied)
        wrong = analyze_live(server.url, api_key="sk-wrong-key-000000000000000")
        assert "LV004" in codes(wrong)
        assert "sk-wrong-key" not in json.dumps([f.message for f in wrong.findings])
        ok = analyze_live(server.url, api_key=API_KEY)
        assert "LV004" not in codes(ok) and ok.sections["live"]["framework"] == "sglang"
        # The launch's own --api-key is used when none is given, and never printed.
        from_launch = analyze_live(
            server.url, launch_argv=["python3", "-m", "sglang.launch_server", "--api-key", API_KEY]
        )
        assert "LV004" not in codes(from_launch)
        assert ("/server_info", f"Bearer {API_KEY}") in server.requests or any(
            a == f"Bearer {API_KEY}" for _, a in server.requests
        )


@pytest.mark.parametrize("fixture", ["sglang-0.5.10.post1-apikey", "sglang-0.5.23-apikey"])
def test_secrets_in_payload_are_redacted_in_json_and_text(fixture: str) -> None:
    with serve_fixture(fixture) as server:
        for fmt in ("json", "text"):
            result = run_cli(["live", server.url, "--format", fmt, "--api-key", API_KEY, "--all-settings"])
            assert result.status in (0, 1), result.stderr
            assert API_KEY not in result.stdout, fmt
        data = run_cli(["live", server.url, "--format", "json", "--api-key", API_KEY, "--all-settings"]).json
        top = data["live"]["top_level"]
        assert top["api_key"].startswith("<redacted:") and len(top["api_key"]) == len("<redacted:12345678>")
        if "launch_command" in top:
            assert "--api-key <redacted:" in top["launch_command"]
        shown = run_cli(
            ["live", server.url, "--format", "json", "--api-key", API_KEY, "--all-settings", "--show-secrets"]
        )
        assert API_KEY in shown.stdout


def test_https_self_signed_needs_insecure() -> None:
    with serve_fixture("sglang-0.5.10.post1", tls=True) as server:
        assert server.url.startswith("https://")
        strict = analyze_live(server.url)
        assert codes(strict) == ["LV009"]
        relaxed = analyze_live(server.url, insecure=True)
        assert relaxed.sections["live"]["framework"] == "sglang"


def test_url_forms() -> None:
    assert normalise_url("127.0.0.1:30000") == "http://127.0.0.1:30000"
    assert normalise_url("http://h:1/v1/") == "http://h:1"
    labels = parse_cache_config_info('vllm:cache_config_info{block_size="16",x="a\\"b"} 1.0\n')
    assert labels == {"block_size": "16", "x": 'a"b'}


def test_cli_live_text_never_tracebacks_on_garbage_url() -> None:
    result = run_cli(["live", "http://[::1", "--format", "json"])
    assert (result.status, result.stdout) == (2, "")
    assert result.stderr == "argtrace live: http://[::1: not a valid URL (Invalid IPv6 URL)\n"


LIVE_RULES = [r for r in all_rules() if r.layer == "live"]


def _run_example(example, tmp_path: Path) -> list[str]:  # type: ignore[no-untyped-def]
    from tests.live.example_support import provide

    with provide(example.needs, tmp_path) as subst:
        for name, content in example.written_files().items():  # fleet --intent FILE
            if isinstance(content, str):
                (tmp_path / name).write_text(content)
        argv = [a.format_map(subst) if "{" in a else a for a in example.argv]
        result = run_cli([argv[0], "--format", "json", *argv[1:]], cwd=tmp_path)
    assert result.status in (0, 1), result.stderr
    return result.codes()


@pytest.mark.parametrize("rule", LIVE_RULES, ids=lambda r: r.code)
def test_live_rule_examples(rule, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert rule.code in _run_example(rule.example, tmp_path)
    if rule.correct is not None:
        assert rule.code not in _run_example(rule.correct, tmp_path)


def test_fixtures_are_what_make_fixtures_writes() -> None:
    """The committed fixtures were generated (not hand-edited): regenerate when the wheels are here."""
    from tests.live.fixtures import make_fixtures

    wheels = Path.home() / ".cache/argtrace/resolvers/wheels"
    if not list(wheels.glob("sglang-0.5.10.post1-*.whl")):
        pytest.skip("framework wheels not downloaded")
    fixture = make_fixtures.sglang_fixture(wheels, "0.5.10.post1")
    fixture["name"] = "sglang-0.5.10.post1"
    assert fixture == load_fixture("sglang-0.5.10.post1")


def test_unauthorized_sglang_is_still_identified_by_its_open_metrics() -> None:
    with serve_fixture("sglang-0.5.10.post1-apikey") as server:
        snap = fetch_live(server.url)
        result = analyze_live(server.url, snapshot=snap)
    assert snap.framework == "sglang"
    assert "LV004" in codes(result)


def test_url_password_is_not_printed() -> None:
    with serve_fixture("sglang-0.5.10.post1") as server:
        url = server.url.replace("http://", "http://admin:hunter2pass@")
        result = run_cli(["live", url, "--format", "json"])
    assert "hunter2pass" not in result.stdout
    assert result.json["live"]["framework"] == "sglang"


def test_vllm_guards_only_v1() -> None:
    with serve_fixture("vllm-0.33.0-apikey") as server:
        denied = analyze_live(server.url)
        allowed = analyze_live(server.url, api_key=API_KEY, intended={"max_model_len": "65536"})
    assert "LV004" in codes(denied) and denied.sections["live"]["version"] == "0.33.0"
    assert "LV004" not in codes(allowed)
    assert "max_model_len" in allowed.observations


def test_scheme_mismatches_are_explained() -> None:
    with serve_fixture("sglang-0.5.10.post1") as server:
        wrong = analyze_live(server.url.replace("http://", "https://"), timeout=2)
    assert codes(wrong) == ["LV001"] and "does not speak HTTPS" in wrong.findings[0].message
    with serve_fixture("sglang-0.5.10.post1", tls=True) as server:
        plain = analyze_live(server.url.replace("https://", "http://"), timeout=2)
    assert codes(plain) in (["LV001"], ["LV003"])
