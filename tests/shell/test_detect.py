"""Recognising server start commands from an argv (scripts and real /proc argv alike)."""

from __future__ import annotations

import pytest

from argtrace.frameworks.detect import detect_server

CASES = [
    # argv, framework, entrypoint, server_args_start, interpreter, command_index
    ("python -m sglang.launch_server --port 1", "sglang", "sglang.launch_server", 3, "python", 0),
    ("python3.11 -u -X dev -m sglang.launch_server", "sglang", "sglang.launch_server", 6, "python3.11", 0),
    (
        "/opt/venv/bin/python3 -msglang.launch_server --tp 2",
        "sglang",
        "sglang.launch_server",
        2,
        "/opt/venv/bin/python3",
        0,
    ),
    ("python -um sglang.launch_server --x", "sglang", "sglang.launch_server", 3, "python", 0),
    ("sglang serve --model-path /m", "sglang", "sglang serve", 2, None, 0),
    ("/usr/local/bin/vllm serve /m --port 8000", "vllm", "vllm serve", 2, None, 0),
    (
        "python -m vllm.entrypoints.openai.api_server --model /m",
        "vllm",
        "vllm.entrypoints.openai.api_server",
        3,
        "python",
        0,
    ),
    ("python -m vllm.entrypoints.cli.main serve /m", "vllm", "vllm serve", 4, "python", 0),
    (
        "env -u HOME -i A=1 CUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server",
        "sglang",
        "sglang.launch_server",
        9,
        "python3",
        6,
    ),
    (
        "nohup numactl --cpunodebind=0 -m 0 taskset -c 0-7 python -m sglang.launch_server",
        "sglang",
        "sglang.launch_server",
        11,
        "python",
        8,
    ),
    ("uv run --with sglang python -m sglang.launch_server", "sglang", "sglang.launch_server", 7, "python", 4),
    (
        "conda run -n sgl --no-capture-output python -m sglang.launch_server",
        "sglang",
        "sglang.launch_server",
        8,
        "python",
        5,
    ),
    ("timeout -s KILL 1h stdbuf -oL setsid nice -n 5 vllm serve /m", "vllm", "vllm serve", 12, None, 10),
    (
        "torchrun --nproc_per_node 2 -m sglang.launch_server --tp 2",
        "sglang",
        "sglang.launch_server",
        5,
        None,
        0,
    ),
    (
        "srun -N 2 --ntasks-per-node 1 --gpus-per-node=8 --container-image img "
        "python3 -m sglang.launch_server",
        "sglang",
        "sglang.launch_server",
        11,
        "python3",
        8,
    ),
    ("srun --nodes=1 -p gpu vllm serve /m", "vllm", "vllm serve", 6, None, 4),
    (
        "srun --kill-on-bad-exit python3 -m sglang.launch_server",
        "sglang",
        "sglang.launch_server",
        5,
        "python3",
        2,
    ),
    (
        "sudo -E -u svc python -m vllm.entrypoints.openai.api_server",
        "vllm",
        "vllm.entrypoints.openai.api_server",
        7,
        "python",
        4,
    ),
]


@pytest.mark.parametrize("line,fw,entry,start,interp,ci", CASES, ids=[c[0][:40] for c in CASES])
def test_detects(line: str, fw: str, entry: str, start: int, interp: str | None, ci: int) -> None:
    d = detect_server(line.split())
    assert d is not None
    assert (d.framework, d.entrypoint, d.server_args_start, d.interpreter, d.command_index) == (
        fw,
        entry,
        start,
        interp,
        ci,
    )


def test_env_assignments_are_collected() -> None:
    d = detect_server("env CUDA_VISIBLE_DEVICES=0,1 python -m sglang.launch_server".split())
    assert d is not None and d.env_assignments == ((1, "CUDA_VISIBLE_DEVICES", "0,1"),)
    assert d.wrappers == ("env",)


@pytest.mark.parametrize(
    "line",
    [
        "python -c import sglang",
        "python -m sglang.bench_serving --port 1",
        "python train.py -m sglang.launch_server",
        "vllm bench serve",
        "sglang",
        "echo python -m sglang.launch_server",
        "",
    ],
)
def test_not_a_server(line: str) -> None:
    assert detect_server(line.split()) is None
