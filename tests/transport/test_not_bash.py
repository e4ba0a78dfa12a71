"""Files that are not bash scripts are read as what they are or refused with one message, never read as bash.

Before (main at 43ae2cf): ``kubectl get deployment vllm -o json`` saved to a file gave two SH001 "bash cannot
parse" errors; an ECS task definition, a PowerShell script and a batch file gave shellcheck warnings about
commands bash would never run. A JSON Kubernetes object or compose file is YAML and is read like one; other
JSON and the Windows shells' scripts are refused (exit 2) with what to check instead; ECS task definitions
are read (tests/transport/test_ecs.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.transport.manifests import manifest_kind
from tests.conftest import run_cli

TOKEN = "hf_abcdefghijklmnopqrstuvwxyz1234"
CONTAINER = {
    "name": "vllm",
    "image": "vllm/vllm-openai:v0.10.0",
    "args": ["--model", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2"],
    "env": [{"name": "HF_TOKEN", "value": TOKEN}],
    "resources": {"limits": {"nvidia.com/gpu": "2"}},
}
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm"},
    "spec": {"replicas": 1, "template": {"spec": {"containers": [CONTAINER]}}},
}


def check(tmp_path: Path, name: str, text: str) -> Any:
    (tmp_path / name).write_text(text)
    return run_cli(["check", "--format", "json", "--no-resolve", name], cwd=tmp_path)


@pytest.mark.parametrize(
    "document",
    [DEPLOYMENT, {"apiVersion": "v1", "kind": "List", "items": [DEPLOYMENT]}],
    ids=["a Deployment", "kubectl's List of one"],
)
def test_a_json_kubernetes_object_is_read_as_a_manifest(tmp_path: Path, document: dict[str, Any]) -> None:
    result = check(tmp_path, "vllm.json", json.dumps(document, indent=4))
    assert result.status == 0, result.stderr
    report = result.json
    assert [f["code"] for f in report["findings"] if f["severity"] in ("error", "warning")] == []
    [server] = report["servers"]
    assert [w["text"] for w in server["words"]][-4:] == [
        "--model",
        "Qwen/Qwen3-8B",
        "--tensor-parallel-size",
        "2",
    ]
    assert server["at"].startswith("vllm.json:")  # the YAML loader's line numbers
    assert TOKEN not in result.stdout


def test_a_json_compose_file_is_read_as_compose(tmp_path: Path) -> None:
    compose = {"services": {"vllm": {"image": "vllm/vllm-openai:v0.10.0", "command": ["--model", "m"]}}}
    result = check(tmp_path, "compose.json", json.dumps(compose))
    assert result.status == 0, result.stderr
    assert result.json["transport"]["hops"][0]["via"] == "compose"


def test_other_json_is_refused_with_what_to_check(tmp_path: Path) -> None:
    result = check(tmp_path, "package.json", json.dumps({"name": "x", "scripts": {"serve": "vllm serve m"}}))
    assert result.status == 2
    assert result.stderr == (
        "argtrace check: package.json: JSON, neither a Kubernetes object (`apiVersion` and `kind`), a "
        "compose file (`services`) nor an ECS task definition (`containerDefinitions`), so there is no "
        "launch here to check. Check the container's command line (`argtrace check -c 'docker run IMAGE "
        "ARGS...'`), or the manifest or compose file that starts it; a framework's own JSON value "
        "(`--speculative-config`, `--hf-overrides`) is checked with the command that passes it.\n"
    )


@pytest.mark.parametrize(
    ("name", "text", "what"),
    [
        ("run.ps1", '$env:CUDA_VISIBLE_DEVICES="0"\nvllm serve Qwen/Qwen3-8B\n', "a PowerShell script"),
        (
            "run.bat",
            "@echo off\nset CUDA_VISIBLE_DEVICES=0\nvllm serve Qwen/Qwen3-8B\n",
            "a Windows batch file",
        ),
        ("run.cmd", "set CUDA_VISIBLE_DEVICES=0\nvllm serve Qwen/Qwen3-8B\n", "a Windows batch file"),
    ],
)
def test_a_windows_shell_script_is_refused(tmp_path: Path, name: str, text: str, what: str) -> None:
    result = check(tmp_path, name, text)
    assert result.status == 2
    assert result.stderr.startswith(
        f"argtrace check: {name}: {what}, which argtrace does not read: it follows bash"
    )


def test_a_saved_command_line_named_cmd_is_still_a_command(tmp_path: Path) -> None:
    result = check(tmp_path, "serve.cmd", "vllm serve Qwen/Qwen3-8B --port 8000\n")
    assert result.status == 0, result.stderr
    assert [w["text"] for w in result.json["servers"][0]["words"]][:3] == ["vllm", "serve", "Qwen/Qwen3-8B"]


def test_a_script_that_opens_with_a_brace_group_is_a_script() -> None:
    assert manifest_kind(b"{ echo start; }\nvllm serve m\n") is None
    assert manifest_kind(json.dumps(DEPLOYMENT).encode()) == "kubernetes"
    assert manifest_kind(b'{"family": "x"}') is None
    assert manifest_kind(b'{"family": "x", "containerDefinitions": []}') == "ecs"


def test_json_nested_too_deeply_is_refused_not_read_as_bash(tmp_path: Path) -> None:
    text = '{"apiVersion": "v1", "kind": "Pod", "x": ' + "[" * 5000 + "1" + "]" * 5000 + "}"
    result = check(tmp_path, "deep.json", text)
    assert (result.status, result.stderr) == (
        2,
        "argtrace check: deep.json: JSON nested deeper than Python's decoder reads, so argtrace cannot read "
        "it\n",
    )
