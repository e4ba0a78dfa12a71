"""A remote command with a word computed on this machine and not known statically (``ssh HOST python -m
sglang.launch_server ... --port "$(free_port)"``): the node still runs the other words.

Before (session 26) one such word made the whole remote command unknown: no server was read (SH019), so
nothing of the launch was checked. Now the word stands as a value not known statically that the node's
shell splits, named as the user wrote it; the hop's ``remote_command`` stays null (not known)."""

from __future__ import annotations

from typing import Any

from tests.conftest import run_cli

SERVER = "/opt/venv/bin/python -m sglang.launch_server --model-path /models/qwen"


def check(script: str) -> Any:
    result = run_cli(["check", "--format", "json", "--clean-env", "--no-resolve", "-c", script])
    assert result.stdout.startswith("{"), result.stderr
    return result.json


def test_the_server_is_read_with_the_word_unknown() -> None:
    out = check(f'ssh gpu1 {SERVER} --port "$(free_port)" --tp-size 2')
    (server,) = out["servers"]
    assert server["argv"][-4:] == ["--port", None, "--tp-size", "2"]
    word = server["words"][-3]
    assert word["expansion"] == '"$(free_port)"'
    assert word["reason"] == (
        '`"$(free_port)"` is computed on this machine and not known statically (unquoted: it may also split '
        "into several words)"
    )
    (hop,) = out["transport"]["hops"]
    assert hop["remote_command"] is None
    assert "TP002" in [f["code"] for f in out["findings"]]
    assert not [f for f in out["findings"] if "__argtrace_local" in f["message"]]


def test_an_unknown_command_word_starts_nothing_known() -> None:
    out = check('ssh gpu1 "$LAUNCHER" --port 30000')
    assert out["servers"] == []
