"""One resolver host per release serves every ``--gpu`` whose answers its import did not read (issue 18,
argtrace/resolver/hosts.py ``Host.serves``): a check re-run on another GPU through the hosts reports what a
fresh process with that GPU's profile set at its start reports, and starts no new host when the import read
nothing the two GPUs differ in. Real SGLang 0.5.10.post1 / 0.5.23 and vLLM 0.33.0 resolver environments (the
``frameworks`` marker); SGLang's checks include the memory layer's sizing run (its own host).

What each release's import step reads of the fake GPU was measured by the hosts themselves (their ``reads``):
SGLang 0.5.10.post1 nothing; SGLang 0.5.23 the device name (``srt/platforms/__init__.py:46``, SAIL or CUDA,
kept in ``current_platform``); vLLM 0.33.0 the GPU count (``vllm/platforms/__init__.py:72``, kept in
``current_platform``). So the GPUs below share hosts where those agree, and get their own where not."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from argtrace.gpus import parse_gpu_spec
from argtrace.layers.memory import framework_sizing
from argtrace.resolver import environments, hosts, record
from argtrace.resolver.fake_gpu import fake_gpu_profile
from tests.conftest import REPO, run_cli
from tests.test_resolution import MODEL, SG
from tests.test_resolver_hosts_frameworks import VL, comparable

RECORDER = Path(record.__file__).name
SIZING = Path(framework_sizing.__file__).name

# (framework, release, command, GPUs, hosts started per script: the recorder's, the sizing's)
CASES = [
    # nothing read at import: one host for both GPUs (0.5.10.post1 is the release the memory formulas
    # follow: no sizing run; test_sizing_... below runs its sizing). Two GPUs where two show the sharing:
    # each GPU costs a fresh and a hosted check (~20 CPU s)
    ("sglang", "0.5.10.post1", SG, ("h100", "l4"), {RECORDER: 1, SIZING: 0}),
    # the device name read at import: the two H100 nodes share hosts, the L4 has its own
    ("sglang", "0.5.23", SG, ("h100", "h100x2", "l4"), {RECORDER: 2, SIZING: 2}),
    # the count read at import: single-GPU nodes share one host (vLLM has no sizing run)
    ("vllm", "0.33.0", VL, ("h100", "l4"), {RECORDER: 1}),
]


def same(value: Any) -> Any:
    """What two runs of one check must agree on: ``comparable``, and no figure of seconds (the memory
    layer's ``suggestions_seconds``)."""
    if isinstance(value, dict):
        return comparable({k: same(v) for k, v in value.items() if not k.endswith("seconds")})
    if isinstance(value, list):
        return [same(v) for v in value]
    return value


def check_on(framework: str, version: str, command: str, gpu: str) -> dict[str, Any]:
    argv = ["check", "--no-cache", "--format", "json", "--model-config", str(MODEL), "--gpu", gpu]
    argv += ["--framework", framework, "--framework-version", version, "-c", command]
    result = run_cli(argv)
    assert result.status in (0, 1), result.stderr
    return dict(result.json)


@pytest.mark.frameworks
@pytest.mark.parametrize(
    ("framework", "version", "command", "gpus", "started"),
    CASES,
    ids=[f"{case[0]}-{case[1]}" for case in CASES],
)
def test_one_host_serves_other_gpus_as_fresh_processes_answer(
    framework: str,
    version: str,
    command: str,
    gpus: tuple[str, ...],
    started: dict[str, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if environments.find_environment(framework, version) is None:
        pytest.skip(f"no resolver environment for {framework}=={version}")
    monkeypatch.setenv("ARGTRACE_RESOLVER_HOSTS", "0")
    fresh = {gpu: check_on(framework, version, command, gpu) for gpu in gpus}
    monkeypatch.setenv("ARGTRACE_RESOLVER_HOSTS", "1")
    pool = hosts.HostPool()  # its own: hosts other tests of this worker left would serve these runs
    monkeypatch.setattr(hosts, "_pool", pool)
    try:
        hosted = {gpu: check_on(framework, version, command, gpu) for gpu in gpus}
        reads = sorted({(Path(h.key[1]).name, h.reads) for h in pool.hosts})
    finally:
        pool.close()
    assert pool.fresh == 0
    per_script = {script: sum(1 for s, _ in pool.spawned if Path(s).name == script) for script in started}
    assert per_script == started, reads
    for gpu in gpus:
        assert hosted[gpu]["resolution"]["status"] == fresh[gpu]["resolution"]["status"]
        assert same(hosted[gpu]) == same(fresh[gpu]), gpu
    # the framework ran (SGLang 0.5.10.post1 refuses this launch: the seed's error, "raised")
    assert {fresh[gpu]["resolution"]["status"] for gpu in gpus} <= {"ok", "raised"}
    # the GPUs do differ in what the checks report (the same answer for every GPU would prove nothing)
    assert len({repr(same(fresh[gpu])) for gpu in gpus}) == len(gpus)


def sized(version: str, gpu: str) -> dict[str, Any]:
    """SGLang ``version``'s own sizing of Llama 3.1 8B on ``gpu``: 1 GiB used before the weights, 17 after."""
    total = int(fake_gpu_profile(parse_gpu_spec(gpu))["memory"])  # type: ignore[call-overload]
    got = framework_sizing.run_framework_sizing(
        REPO / "tests" / "data" / "models" / "llama-3.1-8b",
        [],
        gpu,
        version,
        pre_load_bytes=total - (1 << 30),
        post_load_bytes=total - (17 << 30),
    )
    assert got is not None
    data = dataclasses.asdict(got)
    data.pop("seconds")
    data["resolved"].pop("random_seed", None)  # random.randint when the launch sets none (server_args.py)
    return data


@pytest.mark.frameworks
@pytest.mark.parametrize(
    ("version", "gpus", "started"),
    [("0.5.10.post1", ("h100", "l4"), 1), ("0.5.23", ("h100", "h100x2", "l4"), 2)],
)
def test_the_sizing_host_serves_other_gpus_as_fresh_processes_answer(
    version: str, gpus: tuple[str, ...], started: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    if environments.find_environment("sglang", version) is None:
        pytest.skip(f"no resolver environment for sglang=={version}")
    monkeypatch.setenv("ARGTRACE_NO_CACHE", "1")
    monkeypatch.setenv("ARGTRACE_RESOLVER_HOSTS", "0")
    fresh = {gpu: sized(version, gpu) for gpu in gpus}
    monkeypatch.setenv("ARGTRACE_RESOLVER_HOSTS", "1")
    pool = hosts.HostPool()
    monkeypatch.setattr(hosts, "_pool", pool)
    try:
        hosted = {gpu: sized(version, gpu) for gpu in gpus}
    finally:
        pool.close()
    assert (len(pool.spawned), pool.served, pool.fresh) == (started, len(gpus), 0)
    assert hosted == fresh
    assert fresh[gpus[0]]["error"] is None
    # the GPU's memory decides the pool (mem_fraction_static's default, the tokens): H100 and L4 differ
    assert fresh[gpus[0]]["max_total_num_tokens"] != fresh["l4"]["max_total_num_tokens"]
