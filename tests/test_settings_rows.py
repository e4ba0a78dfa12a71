"""The text report's settings rows are the described server's: a finding placed at another server's command
tags that server's setting, not the described one's row of the same name (sgl32: RS080 about a PD decode
server tagged the prefill server's ``--speculative-algorithm`` row)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parent.parent / "src")
PD = (
    "python3 -m sglang.launch_server --model-path /m/ds --disaggregation-mode prefill --port 30000 "
    "--speculative-algorithm DSPARK &\n"
    "python3 -m sglang.launch_server --model-path /m/ds --disaggregation-mode decode --port 30001 "
    "--speculative-algorithm DSPARK &\n"
    "wait\n"
)


def _rows(*options: str) -> list[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent", "ARGTRACE_WARM": "0"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "argtrace",
            "check",
            "--no-resolve",
            "--framework-version",
            "0.5.16",
            *options,
            "-c",
            PD,
        ],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": SRC},
        check=False,
    )
    assert "sglang 0.5.16's decode server builds no draft input for DSPARK" in done.stdout
    assert "WARNING RS080 <-c>:2:" in done.stdout  # at the decode server's command or its word
    lines = done.stdout.splitlines()
    start = lines.index("Settings (4)")
    return lines[start + 1 : start + 5]


def test_a_finding_about_another_server_does_not_tag_the_described_servers_row() -> None:
    assert _rows() == [
        "  --model-path             /m/ds",
        "  --disaggregation-mode    prefill",
        "  --port                   30000",
        "  --speculative-algorithm  DSPARK",
    ]


def test_the_server_the_finding_is_about_gets_the_tag() -> None:
    assert _rows("--server", "2") == [
        "  --model-path             /m/ds",
        "  --disaggregation-mode    decode",
        "  --port                   30001",
        "  --speculative-algorithm  DSPARK  (RS080)",
    ]
