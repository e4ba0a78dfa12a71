"""``argtrace fleet --url``: several real HTTP servers on 127.0.0.1 (threads) answering recorded
``/server_info`` payloads (``tests/live/fixtures``: the 0.5.10.post1 shape read from the wheel, and variants
whose edited values come from public reports, each named in its ``sources``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.live.fixture_server import FixtureServer, load_fixture

SEED = "/models/Qwen3.6-27B"
LLAMA = "/raid/models/meta-llama/Llama-3.1-8B-Instruct"
NAMES = [
    "sglang-0.5.10.post1",
    "sglang-0.5.10.post1",
    "sglang-0.5.10.post1-context-32k",  # a node with --context-length edited by hand
    "sglang-0.5.10.post1-h100-mem",  # mem_fraction_static auto-sized on another GPU (sglang#29092)
    "sglang-0.5.10.post1-llama31-8b",  # another model (sglang#11303): a group of its own
    "sglang-0.5.10.post1-prefill",  # PD roles: grouped apart, never compared with each other
    "sglang-0.5.10.post1-decode",
    "vllm-0.33.0-devmode",
    "vllm-0.33.0",  # the same vLLM model without VLLM_SERVER_DEV_MODE: only /metrics and /v1/models
]


@pytest.fixture(scope="module")
def servers() -> Iterator[list[FixtureServer]]:
    with ExitStack() as stack:
        started = []
        for name in NAMES:
            server = FixtureServer(load_fixture(name)).start()
            stack.callback(server.stop)
            started.append(server)
        yield started


def test_fleet_of_urls_groups_by_model_and_role_and_reports_the_drift(servers: list[FixtureServer]) -> None:
    urls = [s.url for s in servers]
    words = [w for u in [*urls, "http://127.0.0.1:1"] for w in ("--url", u)]
    result = run_cli(["fleet", "--format", "json", *words])
    assert result.status == 1, result.stderr  # the dead target is an error finding, not a crash
    data = result.json
    assert [r["target"] for r in data["replicas"]] == urls
    assert [(r["framework"], r["model"], r["role"]) for r in data["replicas"]] == [
        ("sglang", SEED, None),
        ("sglang", SEED, None),
        ("sglang", SEED, None),
        ("sglang", SEED, None),
        ("sglang", LLAMA, None),
        ("sglang", SEED, "prefill"),
        ("sglang", SEED, "decode"),
        ("vllm", "/models/Qwen3.6-27B", None),
        ("vllm", "/models/Qwen3.6-27B", None),
    ]
    assert data["replicas"][0]["settings"]["context_length"] == 65536
    assert "api_key" not in data["replicas"][0]["settings"]
    assert [r["settings"]["release"] for r in data["replicas"]] == ["0.5.10.post1"] * 7 + ["0.33.0"] * 2
    assert [g["targets"] for g in data["fleet"]["groups"]] == [
        urls[:4],
        [urls[4]],
        [urls[5]],
        [urls[6]],
        urls[7:],
    ]
    assert [(d["setting"], [v["value"] for v in d["values"]]) for d in data["drift"]] == [
        ("context_length", [65536, 65536, 32768, 65536]),
        ("mem_fraction_static", [0.82, 0.82, 0.82, 0.828]),
    ]
    seed_drift = data["drift"]
    assert seed_drift[0]["values"][2] == {
        "target": urls[2],
        "value": 32768,
        "at": f"{urls[2]}/server_info#/context_length",
    }
    # The two vLLM replicas were read differently (one has no /server_info): compared on what both
    # report (/metrics' cache_config_info, /v1/models), which agrees; the scheduler's measurements, the
    # PD roles and the single Llama replica give no drift either.
    findings = [(f["code"], f["severity"], f["setting"]) for f in data["findings"]]
    assert findings[0] == ("LV051", "error", None)
    assert data["findings"][0]["message"] == (
        "http://127.0.0.1:1: nothing answered: refused "
        "(ConnectionRefusedError: [Errno 111] Connection refused)"
    )
    drift_findings = [f for f in data["findings"] if f["code"] == "LV050"]
    assert len(drift_findings) == len(data["drift"])
    assert all(f["severity"] == "warning" and f["setting"] for f in drift_findings)
    context = next(f for f in drift_findings if f["setting"] == "context_length")
    assert context["message"] == (
        f"the 4 replicas of {SEED} disagree on context_length: {urls[0]}: 65536, {urls[1]}: 65536, "
        f"{urls[2]}: 32768, {urls[3]}: 65536"
    )
    assert context["at"] == f"{urls[2]}/server_info#/context_length"


def test_identical_replicas_have_no_drift_and_exit_0(servers: list[FixtureServer]) -> None:
    result = run_cli(["fleet", "--format", "json", "--url", servers[0].url, "--url", servers[1].url])
    assert (result.status, result.json["drift"], result.json["findings"]) == (0, [], [])
    # random_seed, port and the scheduler's measurements differ between real replicas: never drift
    assert "random_seed" in result.json["replicas"][0]["settings"]


def test_text_report_shows_the_drift_matrix(servers: list[FixtureServer]) -> None:
    urls = [s.url for s in servers[:4]]
    result = run_cli(["fleet", *[w for u in urls for w in ("--url", u)]])
    assert result.status == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("│")]
    assert [row.split("│")[1].strip() for row in rows] == ["context_length", "mem_fraction_static"]
    assert [c.strip() for c in rows[0].split("│")[2:6]] == ["65536", "65536", "32768", "65536"]
    assert f"Drift: {SEED}" in result.stdout
    assert "0 error(s), 2 warning(s), 0 info" in result.stdout


def test_intent_compares_every_replica_with_the_launch_file(
    servers: list[FixtureServer], tmp_path: Path
) -> None:
    launch = tmp_path / "launch.sh"
    launch.write_text(
        f"#!/bin/bash\npython3 -m sglang.launch_server --model-path {SEED} --context-length 65536\n"
    )
    urls = [servers[0].url, servers[2].url]
    result = run_cli(
        ["fleet", "--format", "json", "--url", urls[0], "--url", urls[1], "--intent", str(launch)]
    )
    assert result.status == 0, result.stderr
    lv052 = [f for f in result.json["findings"] if f["code"] == "LV052"]
    assert [(f["setting"], f["at"], f["message"]) for f in lv052] == [
        (
            "context_length",
            f"{urls[1]}/server_info#/context_length",
            f"{urls[1]} runs context_length = 32768, but {launch} gives 65536",
        )
    ]
    assert result.json["fleet"]["intent"]["settings"]["context_length"] == 65536


def test_a_slow_target_times_out_as_a_finding_within_its_bound() -> None:
    slow = FixtureServer(load_fixture("sglang-0.5.10.post1"), delay=3.0).start()
    fast = FixtureServer(load_fixture("sglang-0.5.10.post1")).start()
    try:
        started = time.monotonic()
        result = run_cli(
            ["fleet", "--format", "json", "--timeout", "0.3", "--url", slow.url, "--url", fast.url]
        )
        elapsed = time.monotonic() - started
    finally:
        slow.stop()
        fast.stop()
    assert result.status == 1, result.stderr
    assert [r["target"] for r in result.json["replicas"]] == [fast.url]
    (finding,) = [f for f in result.json["findings"] if f["code"] == "LV051"]
    assert finding["message"].startswith(f"{slow.url}: nothing answered: timeout")
    assert elapsed < 3.0  # one request's deadline, not the server's delay


@pytest.mark.parametrize(
    ("words", "message"),
    [
        ([], "give at least one target: --url URL, --host HOST or --kube -l SELECTOR"),
        (["--kube"], "--kube needs a label selector: -l SELECTOR (e.g. -l app=vllm)"),
        (["--url", "x:1", "-l", "app=x"], "--context, -n, -l and --kubeconfig go with --kube"),
        (["--url", "x:1", "--jobs", "0"], "--jobs must be 1 to 64, got 0"),
        (["--url", "http://[::1"], "http://[::1: not a valid URL (Invalid IPv6 URL)"),
        (
            ["--host=-oProxyCommand=x"],
            "--host '-oProxyCommand=x': a host name cannot start with '-' (ssh would read an option)",
        ),
    ],
)
def test_usage_errors(words: list[str], message: str) -> None:
    result = run_cli(["fleet", *words])
    assert (result.status, result.stdout, result.stderr) == (2, "", f"argtrace fleet: {message}\n")
