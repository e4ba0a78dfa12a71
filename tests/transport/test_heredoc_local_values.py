"""A here-document with an unquoted delimiter sent to a node (``ssh HOST bash -s <<EOF``, ``ssh HOST
<<EOF``, ``ssh HOST 'cat > f' <<EOF``): what the node gets is the body as the *script's* shell expands it at
that point, with the script's own variables.

argtrace used to expand the body again with only the caller's environment: ``P=30104`` set two lines
above was "empty (unset)", the node's ``--port`` lost its value, and TP007 was an error on a launch that
works. A body whose only expansions are variables the script gives a value is now a TP007 note (the node
gets this machine's values); an expansion that is empty here (the seed's ``$2``) stays an error. A
backslash the shell removes (``\\$P``) is removed from what the node gets: the node's shell expands
``$P``. Each content is compared with what bash writes for the same here-document."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import run_cli

SERVER = "/opt/venv/bin/python -m sglang.launch_server --model-path /models/qwen"


def check(script: str) -> Any:
    result = run_cli(["check", "--format", "json", "--clean-env", "--no-resolve", "-c", script])
    assert result.stdout.startswith("{"), result.stderr
    return result.json


def bash_writes(script: str, tmp_path: Path) -> str:
    """The here-document as bash sends it: ssh replaced by cat."""
    done = subprocess.run(
        ["bash", "-c", script.replace("ssh gpu1 bash -s", "cat").replace("ssh gpu1", "cat")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
    )
    return done.stdout


def tp007(report: Any) -> list[tuple[str, str]]:
    return [(f["severity"], f["message"]) for f in report["findings"] if f["code"] == "TP007"]


def test_the_scripts_own_variable_reaches_the_node(tmp_path: Path) -> None:
    script = f"P=30104\nssh gpu1 bash -s <<EOT\n{SERVER} --port $P\nEOT\n"
    report = check(script)
    assert report["transport"]["uploads"][0]["content"] == bash_writes(script, tmp_path)
    assert report["servers"][0]["argv"][-2:] == ["--port", "30104"]
    assert tp007(report) == [
        (
            "info",
            "the here-document sent as a script to gpu1 (stdin of bash -s) has an unquoted delimiter, so the "
            "local shell expands $P while sending it: $P -> 30104 (the node gets these values, not the "
            "variables)",
        )
    ]
    assert [f["code"] for f in report["findings"] if f["severity"] in ("error", "warning")] == []
    (info,) = [f for f in report["findings"] if f["code"] == "TP007"]
    assert info["fix_edits"] == []  # quoting the delimiter would lose the value on the node


def test_a_value_empty_here_is_still_lost(tmp_path: Path) -> None:
    script = f"P=\nssh gpu1 bash -s <<EOT\n{SERVER} --port $P --tp-size 2\nEOT\n"
    report = check(script)
    assert report["transport"]["uploads"][0]["content"] == bash_writes(script, tmp_path)
    assert tp007(report) == [
        (
            "error",
            "the here-document sent as a script to gpu1 (stdin of bash -s) has an unquoted delimiter, so the "
            "local shell expands $P while sending it: $P -> empty (unset)",
        )
    ]


def test_a_positional_of_the_script_sent_stays_an_error() -> None:
    report = check(f"ssh gpu1 bash -s <<EOF\n{SERVER} --port $2\nEOF\n")
    assert [s for s, _ in tp007(report)] == ["error"]


def test_an_escaped_dollar_is_the_nodes_to_expand(tmp_path: Path) -> None:
    script = f"P=30105\nssh gpu1 <<EOT\n{SERVER} --port \\$P --tp-size 2\nEOT\n"
    report = check(script)
    assert report["transport"]["uploads"][0]["content"] == bash_writes(script, tmp_path)
    assert f"{SERVER} --port $P --tp-size 2\n" == bash_writes(script, tmp_path)
    # the node's login shell has no P: the word vanishes there (not a literal `$P` refused by argparse)
    assert [
        (f["severity"], f["code"]) for f in report["findings"] if f["severity"] in ("error", "warning")
    ] == [("warning", "SH007")]
    assert report["servers"][0]["argv"][-3:] == ["--port", "--tp-size", "2"]
