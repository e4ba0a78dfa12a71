"""A Procfile as honcho reads it (layers/transport/procfile.py).

The oracle is honcho's own code (2.0.0, the dev extra): ``honcho.environ.parse_procfile`` for the process
lines, ``honcho.environ.parse`` for the ``.env`` file and ``honcho.environ.expand_processes`` for each
process's ``PORT``; argtrace's reading must give the same processes, variables and ports.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from honcho.environ import expand_processes, parse, parse_procfile

from argtrace.layers.transport.procfile import is_procfile, parse_env, processes
from tests.conftest import run_cli

REAL = Path(__file__).resolve().parents[1] / "data" / "real_cases_carriers10" / "Procfile.neuralite"

PROCFILES = [
    REAL.read_text(),
    "web: vllm serve Qwen/Qwen3-8B --port $PORT\nworker:python3 worker.py\n",
    "# a comment\n\nllm-api: python3 -m sglang.launch_server --model-path m\n  indented: not a process\n",
    "a_b-1: echo one:two\nbad name: echo no\nrelease: true\r\n",
]


@pytest.mark.parametrize("text", PROCFILES)
def test_process_lines_are_honchos(text: str) -> None:
    ours = {name: command for name, command, _line, _col in processes(text)}
    assert ours == dict(parse_procfile(text).processes)


ENV_FILES = [
    "MODEL=Qwen/Qwen3-8B\nPORT=9000\n",
    "A = 'a b'\nB=\"x\\ty\"\nexport C=1\n# D=2\nE=\n=F\nG=a=b\n",
    "TOKEN=hf_abc # trailing\nQ='unclosed\nR=ok\n",
]


@pytest.mark.parametrize("text", ENV_FILES)
def test_env_file_is_read_as_honcho_reads_it(text: str) -> None:
    try:
        expected = parse(text)
    except ValueError:
        # honcho stops on a line shlex cannot split; argtrace reads the other lines
        expected = parse("\n".join(line for line in text.splitlines() if "'unclosed" not in line))
    assert parse_env(text) == expected


@pytest.mark.parametrize("dotenv", ["", "PORT=7000\n"])
def test_each_process_gets_honchos_port(tmp_path: Path, dotenv: str) -> None:
    text = "".join(f"p{i}: vllm serve m{i} --port $PORT\n" for i in range(3))
    (tmp_path / "Procfile").write_text(text)
    (tmp_path / ".env").write_text(dotenv)
    result = run_cli(["check", "--format", "json", "--no-resolve", "Procfile"], cwd=tmp_path)
    ports = [s["argv"][-1] for s in result.json["servers"]]
    honcho = expand_processes(parse_procfile(text).processes, env=parse(dotenv), port=5000)
    assert (
        ports
        == [p.env["PORT"] for p in honcho]
        == (["7000", "7100", "7200"] if dotenv else ["5000", "5100", "5200"])
    )


def test_a_procfile_is_told_by_its_name_and_lines() -> None:
    assert is_procfile("Procfile", b"web: x\n") and is_procfile("deploy/Procfile.dev", b"web: x\n")
    assert not is_procfile("Procfile", b"#!/bin/sh\nweb: x\n")  # a script named so
    assert not is_procfile("procfile.txt", b"web: x\n") and not is_procfile("Procfile", b"# nothing\n")
