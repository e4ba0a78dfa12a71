"""A check whose resolver runs are served by hosts (argtrace/resolver/hosts.py) reports what fresh processes
report: the same settings, histories (with their call chains), findings, start-up steps and memory sizing.
Real SGLang 0.5.23 and vLLM 0.33.0 resolver environments (the ``frameworks`` marker)."""

from __future__ import annotations

from typing import Any

import pytest

from argtrace.resolver import environments, hosts
from tests.test_resolution import SG, run_check

VL = "vllm serve /workspace/models/Qwen3.6-27B --max-model-len 32768 --max-num-seqs 64"
# what differs between two runs of the same launch anyway: wall-clock figures, whether the result cache
# answered, SGLang's random_seed (random.randint when the launch sets none, server_args.py) and vLLM's
# instance_id (time.time_ns(), VllmConfig.__post_init__)
VARIES = {"seconds", "timings", "cache"}
RANDOM_SETTINGS = {"random_seed", "VllmConfig.instance_id"}


def report(framework: str, version: str, command: str) -> dict[str, Any]:
    return run_check(version, command, framework, "--no-cache")


def comparable(value: Any) -> Any:
    if isinstance(value, dict):
        if value.get("name") in RANDOM_SETTINGS:
            return None
        return {k: comparable(v) for k, v in value.items() if k not in VARIES}
    if isinstance(value, list):
        return [comparable(v) for v in value]
    return value


@pytest.mark.frameworks
@pytest.mark.parametrize(
    ("framework", "version", "command"),
    [("sglang", "0.5.23", SG), ("vllm", "0.33.0", VL)],
    ids=["sglang", "vllm"],
)
def test_a_hosted_check_reports_what_a_fresh_one_does(
    framework: str, version: str, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if environments.find_environment(framework, version) is None:
        pytest.skip(f"no resolver environment for {framework}=={version}")
    monkeypatch.setenv("ARGTRACE_RESOLVER_HOSTS", "0")
    fresh = report(framework, version, command)
    monkeypatch.setenv("ARGTRACE_RESOLVER_HOSTS", "1")
    pool = hosts.HostPool()  # its own: hosts other tests of this worker left would serve these runs
    monkeypatch.setattr(hosts, "_pool", pool)
    try:
        hosted = report(framework, version, command)
    finally:
        pool.close()
    assert pool.served > 0 and pool.fresh == 0  # the runs were hosts'
    # SGLang 0.5.23 with --gpu: its own sizing runs after the resolution, on the host check.py started while
    # the resolution ran (the two imports overlap); vLLM has no sizing run
    assert (pool.ahead, pool.ahead_served) == ((1, 1) if framework == "sglang" else (0, 0))
    assert hosted["memory"]["source"].startswith("sglang 0.5.23 (framework code") or framework == "vllm"
    assert hosted["resolution"]["status"] == fresh["resolution"]["status"] == "ok"
    assert comparable(hosted) == comparable(fresh)
