"""SH040: a server start through a program or entrypoint argtrace does not follow is named, as a warning,
instead of SH019 "no server start found" (issue 17). Real launches from public trackers keep their URL."""

from __future__ import annotations

import pytest

from argtrace.frameworks.unfollowed import unfollowed_start
from argtrace.layers.shell import ScriptSource, analyze_script

CASES = [
    # (https://github.com/huggingface/blog/pull/3432's `hf jobs run ... vllm serve` was here; `hf jobs run` is
    # followed since the 2026-12-03 false-alarm batch: tests/test_false_alarms_batch16.py)
    # constructed: launchers in front of a start
    (
        "mpirun -np 2 --allow-run-as-root python3 -m sglang.launch_server --model-path m",
        "`mpirun` runs `python3 -m sglang.launch_server` here: argtrace does not follow `mpirun`, so that "
        "server's arguments and environment are not checked",
    ),
    (
        "ray job submit --address http://127.0.0.1:8265 -- vllm serve m --tensor-parallel-size 8",
        "`ray job` runs `vllm serve m` here: argtrace does not follow `ray job`, so that server's arguments "
        "and environment are not checked",
    ),
]


@pytest.mark.parametrize(("line", "message"), CASES)
def test_unfollowed_start_is_a_note_naming_the_word(line: str, message: str) -> None:
    # a note: it says what argtrace could not read, not that the start fails (it was a warning)
    script = f"#!/bin/bash\n{line}\n"
    source = ScriptSource("t.sh", script.encode(), None)
    result = analyze_script(source, [], {}, arg0="t.sh", run_shellcheck=False)
    got = [(f.code, f.severity, f.message) for f in result.findings if f.code in ("SH019", "SH040")]
    assert got == [("SH040", "info", message)]


@pytest.mark.parametrize(
    "line",
    [
        "echo 'starting vllm serve m'",
        "pip install 'sglang[all]' vllm",
        "pkill -f sglang.launch_server",
        "docker run --rm lmsysorg/sglang:latest python3 -m sglang.launch_server --model-path m",  # transport
        "docker exec -it ctr vllm serve m",  # transport (containers.py, tests/transport/test_transport4_*)
        "timeout 10m python3 -m sglang.launch_server --model-path m",  # followed
        "hf jobs run --flavor h200 vllm/vllm-openai:latest vllm serve m",  # followed (frameworks/detect.py)
        # vLLM's demo server is parsed (frameworks/vllm_demo.py, tests/test_vllm_demo_server.py)
        "python -O -u -m vllm.entrypoints.api_server --host=127.0.0.1 --port=8000 --model=m",
        # the router alone is parsed (frameworks/router_launch.py, tests/test_real_cases_pd8.py)
        "python -m sglang_router.launch_router --worker-urls http://127.0.0.1:30000",
    ],
)
def test_no_warning_for_mentions_and_followed_starts(line: str) -> None:
    assert unfollowed_start(line.split()) is None
